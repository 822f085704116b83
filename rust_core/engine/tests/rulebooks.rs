//! Scenario tests: the rulebooks read exactly (issue 16). Rent is claimed in the printed books'
//! presets, cards go under the deck, ending a timed game settles what is owed, a GO card pays what
//! it says, the Paris app and the Norwegian book seat 2 to 6 and the app builds in one's own turn,
//! and the Norwegian shortage auction opens at 10.

mod common;
use common::*;

use lanopoly_engine::board::Deck;
use lanopoly_engine::state::{Auction, Claim, Debt, Lot, Pending, Placement};
use lanopoly_engine::{Action, BoardId, Chance, Game, Outcome, Party, Reason, RentClaim, Rules, HOTEL};

// 1. Rent must be claimed, as every printed book says.

/// Seat 0 lands on Baltic Avenue (rent 4), owned by seat 2, under a preset's rules.
fn baltic_rent_due(name: &str) -> Game {
    let mut game = started(3, preset(name));
    give(&mut game, 2, &[3]);
    land(&mut game, 0, 1, 2);
    game
}

#[test]
fn the_french_book_makes_the_owner_claim_before_the_second_next_roll() {
    let mut game = baltic_rent_due("official");
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1500, 1500), "nothing is paid until claimed");
    assert_eq!(game.claims, vec![Claim { owner: 2, payer: 0, square: 3, amount: 4, lapses_at_turn: game.turn + 2 }]);
    end_turn(&mut game);
    idle_turn(&mut game); // the next player rolls: the claim still holds
    act(&mut game, 2, Action::ClaimRent(3));
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1496, 1504));
}

#[test]
fn the_italian_and_norwegian_books_give_until_the_next_roll() {
    for name in ["it", "no", "speed", "timed"] {
        let rules = preset(name);
        assert_eq!(rules.rent_claim, RentClaim::BeforeNextRoll, "{name}");
        if rules.starting_deeds > 0 {
            continue; // the dealt variants share the Norwegian rule, checked on the preset
        }
        let mut game = baltic_rent_due(name);
        assert_eq!(game.claims.len(), 1, "{name}");
        end_turn(&mut game);
        idle_turn(&mut game);
        assert!(game.claims.is_empty(), "{name}: lapsed at the next player's roll");
        assert_eq!(refused(&mut game, 2, Action::ClaimRent(3)), "no rent is due to you on square 3");
        assert_eq!(cash(&game, 0), 1500, "{name}");
    }
}

#[test]
fn the_paris_app_collects_rent_by_itself() {
    for name in ["paris-app", "paris-quick", "paris-house"] {
        let game = baltic_rent_due(name);
        assert!(game.claims.is_empty(), "{name}");
        assert_eq!(cash(&game, 2), preset(name).starting_cash + 4, "{name}");
    }
}

// 2. Cards go under the deck, so the order repeats.

/// The first pass through the Community Chest deck, in this order (the jail card, 4, is kept).
const FIRST_PASS: [u8; 16] = [9, 2, 15, 0, 4, 11, 7, 1, 13, 5, 3, 14, 6, 10, 12, 8];

/// The turn player (taken out of jail, a test set-up) rolls from 14 onto Community Chest at 17.
fn onto_community_chest(game: &mut Game) {
    let p = game.turn_player;
    game.players[p as usize].in_jail = false;
    land(game, 14, 1, 2);
    assert_eq!(game.pending, Some(Pending::Card(Deck::CommunityChest)));
}

/// Draw `card` at Community Chest, then end the turn.
fn draw_and_end(game: &mut Game, card: u8) {
    onto_community_chest(game);
    draw(game, card);
    end_turn(game);
}

fn chest_pass(rules: Rules) -> Game {
    let mut game = started(2, rules);
    for (k, &card) in FIRST_PASS.iter().enumerate() {
        onto_community_chest(&mut game);
        let outcomes = game.chance_outcomes();
        assert_eq!(outcomes.len(), 16 - k, "the first pass is drawn uniformly from the cards not seen yet");
        assert!(outcomes.iter().all(|c| c.weight == 1 && c.total == 16 - k as u32));
        draw(&mut game, card);
        end_turn(&mut game);
    }
    game
}

#[test]
fn once_every_card_has_been_seen_the_next_one_is_certain() {
    let mut game = chest_pass(Rules::default());
    onto_community_chest(&mut game);
    assert_eq!(game.chance_outcomes(), vec![Chance { outcome: Outcome::Card(9), weight: 1, total: 1 }]);
    for bytes in [&b"any"[..], b"other random bytes", &[0u8; 32]] {
        assert_eq!(game.outcome_from_bytes(bytes), Some(Outcome::Card(9)));
    }
    assert_eq!(refused_outcome(&mut game, Outcome::Card(2)), "card 2 is not in the deck now");
    draw(&mut game, 9);
    end_turn(&mut game);
    // The second pass repeats the first, the kept jail card aside.
    for card in FIRST_PASS.into_iter().skip(1).filter(|&c| c != 4) {
        onto_community_chest(&mut game);
        assert_eq!(game.chance_outcomes()[0].outcome, Outcome::Card(card));
        draw(&mut game, card);
        end_turn(&mut game);
    }
    game.validate().unwrap();
}

#[test]
fn a_used_jail_card_goes_to_the_bottom_of_its_deck() {
    let mut game = chest_pass(Rules::default());
    let holder = game.jail_card_holder(Deck::CommunityChest).expect("card 4 was kept");
    if game.turn_player != holder {
        idle_turn(&mut game);
    }
    draw_and_end(&mut game, 9); // the holder draws the first card of the second pass
    if game.turn_player != holder {
        idle_turn(&mut game);
    }
    jail(&mut game, holder);
    act(&mut game, holder, Action::UseJailCard);
    let queue: Vec<u8> = game.decks[Deck::CommunityChest as usize].queued_cards().collect();
    assert_eq!(queue, [2, 15, 0, 11, 7, 1, 13, 5, 3, 14, 6, 10, 12, 8, 9, 4], "under the 9 just drawn");
    game.validate().unwrap();
}

#[test]
fn reshuffling_each_pass_stays_an_option() {
    let mut game = chest_pass(Rules { reshuffle_decks: true, ..Rules::default() });
    onto_community_chest(&mut game);
    let outcomes = game.chance_outcomes();
    assert_eq!(outcomes.len(), 15, "a fresh shuffle of every card but the kept jail card");
    assert!(outcomes.iter().all(|c| c.total == 15) && !outcomes.iter().any(|c| c.outcome == Outcome::Card(4)));
}

// 3. Timed game: ending the game does not cancel debts.

/// A timed game (Norwegian 2001 book): seat 0 (1900 cash, the four railways and both utilities:
/// net worth 3000) lands on seat 1's Boardwalk with a hotel (seat 1: 100 cash, dark blue with two
/// hotels: 2850). Seat 1 claims the 2000 rent: seat 0 owes it with 1900 in cash.
fn timed_debt() -> Game {
    let mut game = dealt(2, preset("timed"), &[5, 37, 15, 39]);
    give(&mut game, 0, &[25, 35, 12, 28]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    set_cash(&mut game, 0, 1900);
    set_cash(&mut game, 1, 100);
    assert_eq!(game.net_worths(), vec![3000, 2850]);
    land(&mut game, 32, 3, 4);
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Player(1), amount: 2000, reason: Reason::Rent }]);
    game
}

#[test]
fn a_debtor_cannot_end_a_timed_game_to_escape_a_debt() {
    let mut game = timed_debt();
    assert_eq!(
        refused(&mut game, 0, Action::EndGame),
        "you owe money: pay it or declare bankruptcy before ending the game"
    );
    assert!(!game.legal_actions(0).contains(&Action::EndGame));
    assert!(game.legal_actions(1).contains(&Action::EndGame));
}

#[test]
fn a_debt_open_when_a_timed_game_ends_counts_against_the_debtor() {
    let mut game = timed_debt();
    act(&mut game, 1, Action::EndGame);
    assert!(game.is_over());
    assert_eq!(game.net_worths(), vec![1000, 4850], "owed 2000: less for seat 0, more for seat 1");
    assert_eq!(game.winner(), Some(1));
    assert_eq!(game.debts.len(), 1, "the debt stays on record");
    game.validate().unwrap();
}

#[test]
fn ending_a_timed_game_closes_a_running_auction_at_its_leading_bid() {
    let mut game = dealt(2, preset("timed"), &[1, 3, 6, 8]);
    land(&mut game, 14, 1, 3); // Tennessee Avenue (180), declined
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Bid(20));
    act(&mut game, 1, Action::Bid(50));
    act(&mut game, 0, Action::EndGame);
    assert!(game.is_over() && game.auction.is_none());
    assert_eq!(owner(&game, 18), 1, "sold to the leader");
    assert_eq!(cash(&game, 1), 1500 - 60 - 100 - 50);
}

#[test]
fn ending_a_timed_game_charges_the_fee_of_a_mortgaged_deed_just_received() {
    let mut game = dealt(2, preset("timed"), &[1, 3, 6, 8]);
    set_mortgaged(&mut game, 3);
    let give_baltic = lanopoly_engine::Bundle { properties: 1 << prop(3), ..Default::default() };
    act(&mut game, 1, Action::ProposeTrade { to: 0, give: give_baltic, get: Default::default() });
    act(&mut game, 0, Action::AcceptTrade { from: 1 });
    assert_eq!(game.fee_due, 1 << prop(3));
    let before = cash(&game, 0);
    act(&mut game, 1, Action::EndGame);
    assert_eq!(cash(&game, 0), before - 3, "10 % of Baltic Avenue's mortgage value of 30");
    assert!(game.is_mortgaged(prop(3) as u8) && game.fee_due == 0);
}

#[test]
fn a_won_building_still_to_place_is_placed_when_a_timed_game_ends() {
    let mut game = shortage(dealt(2, preset("timed"), &[26, 27, 29, 31]));
    set_cash(&mut game, 0, 1500);
    act(&mut game, 0, Action::Build(6));
    act(&mut game, 1, Action::Bid(30));
    act(&mut game, 0, Action::Pass);
    assert_eq!(game.placing, Some(Placement { player: 1, hotel: false }));
    act(&mut game, 0, Action::EndGame);
    assert_eq!(game.placing, None);
    assert_eq!(level(&game, 11), 1, "on seat 1's cheapest street where it may go (pink, houses at 100)");
    game.validate().unwrap();
}

// 4. 400 on GO is for the dice; the "Advance to GO" card pays what it says.

#[test]
fn stopping_on_go_by_the_dice_pays_400_with_the_paris_house_rules() {
    let mut game = started(2, preset("paris-house"));
    land(&mut game, 35, 2, 3);
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 2000 + 400);
}

#[test]
fn the_advance_to_go_card_pays_200_even_with_400_on_go() {
    let mut game = started(2, preset("paris-house"));
    land(&mut game, 4, 1, 2); // Chance
    draw(&mut game, 0); // Advance to GO. Collect $200.
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 2000 + 200);
    end_turn(&mut game); // the same from the Community Chest deck
    land(&mut game, 31, 1, 1); // Community Chest at 33, after a double
    draw(&mut game, 0);
    assert_eq!(cash(&game, 1), 2000 + 200);
}

// 5. The Paris app and the Norwegian book: 2 to 6 players; the app builds in one's own turn.

#[test]
fn the_paris_app_and_the_norwegian_book_seat_2_to_6_players() {
    for name in ["paris-app", "paris-quick", "paris-house", "no", "speed", "timed"] {
        let err = Game::new(7, BoardId::Paris, preset(name)).unwrap_err();
        assert_eq!(err.reason, "a game has 2 to 6 players, not 7", "{name}");
        Game::new(6, BoardId::Paris, preset(name)).unwrap();
    }
    for name in ["official", "it"] {
        Game::new(8, BoardId::Classic, preset(name)).unwrap();
    }
}

const OWN_TURN: &str = "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn";

#[test]
fn in_the_paris_app_building_mortgaging_and_lifting_wait_for_one_s_own_turn() {
    let mut game = started(2, preset("paris-app"));
    give(&mut game, 1, &[6, 8, 9, 5]);
    give(&mut game, 0, &[1, 3]);
    set_mortgaged(&mut game, 5);
    set_level(&mut game, 8, 1);
    assert_eq!(refused(&mut game, 1, Action::Build(6)), OWN_TURN);
    assert_eq!(refused(&mut game, 1, Action::Sell(8)), OWN_TURN);
    assert_eq!(refused(&mut game, 1, Action::Unmortgage(5)), OWN_TURN);
    let listed = game.legal_actions(1);
    assert!(!listed.iter().any(|a| matches!(a, Action::Build(_) | Action::Sell(_) | Action::Unmortgage(_))));
    act(&mut game, 0, Action::Build(1)); // the turn player may
    act(&mut game, 0, Action::Sell(1));
    act(&mut game, 0, Action::Mortgage(1));
    idle_turn(&mut game);
    act(&mut game, 1, Action::Build(6));
    act(&mut game, 1, Action::Unmortgage(5));
    assert_eq!(refused(&mut game, 0, Action::Unmortgage(1)), OWN_TURN);
}

#[test]
fn in_the_paris_app_a_debtor_still_raises_money_out_of_turn() {
    let mut game = started(2, preset("paris-app"));
    give(&mut game, 1, &[39]);
    set_cash(&mut game, 1, 5);
    land(&mut game, 31, 1, 1); // Community Chest at 33, after a double
    draw(&mut game, 7); // It is your birthday: 10 from every player
    assert_eq!(game.debts.len(), 1);
    act(&mut game, 1, Action::Mortgage(39));
    act(&mut game, 1, Action::PayDebt);
    assert_eq!(cash(&game, 1), 5 + 200 - 10);
    assert_eq!(refused(&mut game, 1, Action::Unmortgage(39)), OWN_TURN);
}

// 6. The Norwegian building-shortage auction opens at 10.

/// Seat 0 owns light blue (houses at 50); seat 1 holds 31 houses and could build more: the bank
/// has one house left.
fn shortage(mut game: Game) -> Game {
    give(&mut game, 0, &[6, 8, 9]);
    give(&mut game, 1, &[11, 13, 14, 1, 3, 16, 18, 19, 21, 23, 24]);
    for sq in [1, 3, 16, 18, 19, 21, 23] {
        set_level(&mut game, sq, 4);
    }
    set_level(&mut game, 24, 3);
    set_cash(&mut game, 0, 1500);
    set_cash(&mut game, 1, 1500);
    assert_eq!(game.houses_left, 1);
    game.validate().unwrap();
    game
}

#[test]
fn the_norwegian_shortage_auction_opens_at_10() {
    let mut game = shortage(started(2, preset("no")));
    act(&mut game, 0, Action::Build(6));
    assert_eq!(
        game.auction,
        Some(Auction {
            lot: Lot::Building { hotel: false, requester: 0, square: 6 },
            high_bid: 10,
            high_bidder: 0,
            bidders: 0b11,
            first: 0,
            after_landing: false
        })
    );
    assert_eq!(game.bid_range(1).map(|r| r.0), Some(11));
    act(&mut game, 1, Action::Pass);
    assert_eq!(level(&game, 6), 1);
    assert_eq!(cash(&game, 0), 1500 - 10 - 50, "the opening 10 on top of the price");
}

#[test]
fn a_norwegian_asker_must_afford_the_opening_10_on_top_of_the_price() {
    let mut game = shortage(started(2, preset("no")));
    set_cash(&mut game, 0, 55);
    assert_eq!(
        refused(&mut game, 0, Action::Build(6)),
        "the bank is short: its last piece is auctioned from 10 above the price, 60 in all on Oriental Avenue; you have 55"
    );
    let mut game = shortage(started(2, preset("official")));
    set_cash(&mut game, 0, 55);
    act(&mut game, 0, Action::Build(6)); // the French book: the asker leads at 0
    assert_eq!(game.auction.map(|a| a.high_bid), Some(0));
}

#[test]
fn an_outbid_asker_who_wins_back_places_on_a_street_it_can_still_pay_for() {
    // Seat 0 asks for Boardwalk (houses at 200) but also owns light blue (50): its bids were
    // capped by the cheaper street, so after winning it may no longer afford Boardwalk.
    let mut game = shortage(started(2, preset("official")));
    give(&mut game, 0, &[37, 39]);
    set_cash(&mut game, 0, 300);
    act(&mut game, 0, Action::Build(39));
    act(&mut game, 1, Action::Bid(100));
    act(&mut game, 0, Action::Bid(250));
    act(&mut game, 1, Action::Pass);
    assert_eq!(cash(&game, 0), 50);
    assert_eq!(game.placing, Some(Placement { player: 0, hotel: false }));
    act(&mut game, 0, Action::Build(6));
    assert_eq!((level(&game, 6), cash(&game, 0)), (1, 0));
    game.validate().unwrap();
}

// 7. What the books leave open, as documented: a bankrupt's debt to the jackpot pays the bank.

#[test]
fn a_bankrupt_who_owed_the_jackpot_gives_its_cash_to_the_bank() {
    let mut game = started(3, preset("paris-quick"));
    game.jackpot = 300;
    set_cash(&mut game, 0, 120);
    land(&mut game, 0, 1, 3); // income tax 200, into the jackpot: a debt
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Jackpot, amount: 200, reason: Reason::Tax }]);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert_eq!(game.jackpot, 300, "the jackpot gets nothing");
    assert_eq!((cash(&game, 0), cash(&game, 1), cash(&game, 2)), (0, 1500, 1500));
}

#[test]
fn the_norwegian_variants_open_auctions_at_10_and_charge_for_their_dealt_deeds() {
    for name in ["speed", "timed"] {
        let mut game = dealt(2, preset(name), &[39, 1, 6, 3]);
        assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 - 400 - 100, 1500 - 60 - 60), "{name}");
        land(&mut game, 14, 1, 3); // Tennessee Avenue, declined
        act(&mut game, 0, Action::Decline);
        assert_eq!(game.bid_range(0).map(|r| r.0), Some(10), "{name}");
    }
}
