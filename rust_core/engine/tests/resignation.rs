//! Scenario tests: a player resigns (leaves the game), of its own will or on the vote of the other
//! peers of a LAN game. The bank takes everything, as in a bankruptcy to the bank.

mod common;
use common::*;

use lanopoly_engine::state::{Debt, Lot};
use lanopoly_engine::{Action, Deck, Event, Party, Phase, Reason, Rules, HOTEL, NOBODY};

#[test]
fn a_resigning_player_leaves_everything_to_the_bank_which_auctions_the_deeds() {
    let mut game = official(3);
    give(&mut game, 0, &[1, 3, 5]);
    set_level(&mut game, 1, 2);
    set_level(&mut game, 3, 3);
    set_mortgaged(&mut game, 5);
    game.players[0].jail_cards = 0b10;
    game.decks[Deck::CommunityChest as usize].held = 1 << 4;
    game.decks[Deck::CommunityChest as usize].drawn = 1 << 4;
    game.validate().unwrap();
    let houses = game.houses_left;
    act(&mut game, 0, Action::Resign);
    let events = game.take_events();
    assert_eq!(events[0], Event::Resigned { player: 0 });
    assert!(events.contains(&Event::Payment {
        from: Party::Player(0),
        to: Party::Bank,
        amount: 1500,
        reason: Reason::Resignation
    }));
    assert!(game.players[0].bankrupt);
    assert_eq!(cash(&game, 0), 0);
    assert_eq!(game.houses_left, houses + 5, "the houses go back into the bank's stock");
    assert_eq!((level(&game, 1), level(&game, 3)), (0, 0));
    assert_eq!((owner(&game, 1), owner(&game, 3), owner(&game, 5)), (NOBODY, NOBODY, NOBODY));
    assert_eq!(game.mortgaged(), 0);
    assert_eq!(game.players[0].jail_cards, 0);
    assert_eq!(game.decks[Deck::CommunityChest as usize].held, 0);
    assert_eq!(game.bankruptcies, 1);
    assert_eq!(game.turn_player, 1, "its turn passes on");
    let auction = game.auction.expect("the bank auctions the first deed");
    assert_eq!(auction.lot, Lot::Property(prop(1) as u8));
    assert_eq!(auction.bidders, 0b110);
    assert_eq!(game.auction_queue, (1 << prop(3)) | (1 << prop(5)));
    assert_eq!(refused(&mut game, 0, Action::Bid(10)), "seat 0 is bankrupt");
    assert_eq!(refused(&mut game, 0, Action::Resign), "seat 0 is bankrupt");
    game.validate().unwrap();
}

#[test]
fn a_player_may_resign_out_of_turn_and_the_turn_goes_on() {
    let mut game = official(3);
    give(&mut game, 2, &[39]);
    roll(&mut game, 2, 3);
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(5) as u8 });
    act(&mut game, 2, Action::Resign);
    assert!(game.players[2].bankrupt);
    assert_eq!((game.turn_player, game.phase), (0, Phase::BuyDecision { property: prop(5) as u8 }));
    let auction = game.auction.expect("Boardwalk is auctioned at once");
    assert_eq!(auction.lot, Lot::Property(prop(39) as u8));
    act(&mut game, 0, Action::Pass);
    act(&mut game, 1, Action::Pass);
    assert_eq!(owner(&game, 39), NOBODY, "nobody bid: it stays with the bank");
    act(&mut game, 0, Action::Buy);
    end_turn(&mut game);
    end_turn_of_next(&mut game, 1);
    assert_eq!(game.turn_player, 0, "seat 2 is skipped");
}

/// Seat `seat` (the turn player) plays an idle turn.
fn end_turn_of_next(game: &mut lanopoly_engine::Game, seat: u8) {
    assert_eq!(game.turn_player, seat);
    idle_turn(game);
}

#[test]
fn debts_owed_by_or_to_a_resigning_player_lapse() {
    let mut game = official(3);
    give(&mut game, 1, &[39]);
    set_level(&mut game, 39, HOTEL);
    set_cash(&mut game, 0, 100);
    land(&mut game, 32, 3, 4);
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Player(1), amount: 2000, reason: Reason::Rent }]);
    assert_eq!(refused(&mut game, 2, Action::Build(39)), "seat 0 must first settle a debt of 2000");
    act(&mut game, 0, Action::Resign);
    assert!(game.debts.is_empty(), "the debt lapses: the bank, not the creditor, takes the assets");
    assert_eq!(cash(&game, 1), 1500);
    assert_eq!(game.turn_player, 1);

    let mut game = official(3);
    give(&mut game, 1, &[39]);
    set_cash(&mut game, 0, 10);
    land(&mut game, 32, 3, 4);
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.debts.len(), 1);
    act(&mut game, 1, Action::Resign);
    assert!(game.debts.is_empty(), "nobody is left to pay");
    assert_eq!(cash(&game, 0), 10);
    assert_eq!(owner(&game, 39), NOBODY);
    assert_eq!(game.turn_player, 0, "the debtor's turn goes on");
    assert_eq!(game.auction.map(|a| a.lot), Some(Lot::Property(prop(39) as u8)));
}

#[test]
fn a_bidder_resigning_leaves_the_auction_and_a_leader_must_wait_for_its_end() {
    let mut game = official(3);
    land(&mut game, 0, 2, 3);
    act(&mut game, 0, Action::Decline);
    act(&mut game, 1, Action::Bid(50));
    assert_eq!(refused(&mut game, 1, Action::Resign), "you lead this auction: resign once it is over");
    act(&mut game, 2, Action::Resign);
    assert_eq!(game.auction.map(|a| a.bidders), Some(0b011));
    act(&mut game, 0, Action::Pass);
    assert_eq!(owner(&game, 5), 1);
    assert_eq!(game.phase, Phase::AfterRoll, "the turn it was auctioned in goes on");
}

#[test]
fn the_turn_player_resigning_during_its_landing_auction_ends_its_turn_after_the_sale() {
    let mut game = official(3);
    land(&mut game, 0, 2, 3);
    act(&mut game, 0, Action::Decline);
    act(&mut game, 1, Action::Bid(50));
    act(&mut game, 0, Action::Resign);
    assert_eq!(game.turn_player, 1);
    assert!(game.auction.is_some(), "the auction goes on without it");
    act(&mut game, 2, Action::Pass);
    assert_eq!(owner(&game, 5), 1);
    assert_eq!((game.turn_player, game.phase), (1, Phase::AwaitRoll));
    game.validate().unwrap();
}

#[test]
fn the_last_but_one_resigning_ends_the_game_and_resigning_counts_as_a_bankruptcy() {
    let mut game = official(2);
    act(&mut game, 0, Action::Resign);
    assert!(game.is_over());
    assert_eq!(game.winner(), Some(1));

    let mut game = started(3, Rules { end_after_bankruptcies: 1, ..Rules::default() });
    act(&mut game, 2, Action::Resign);
    assert!(game.is_over());
    assert_eq!(game.winner(), Some(0), "the richest of the others (ties: the earlier seat in play order)");
}

#[test]
fn resigning_waits_for_chance_and_is_never_listed_as_a_legal_action() {
    let mut game = official(3);
    put(&mut game, 0, 0);
    act(&mut game, 0, Action::Roll);
    assert_eq!(refused(&mut game, 1, Action::Resign), "waiting for a chance outcome (dice or a card)");
    game.apply_chance(lanopoly_engine::Outcome::Dice(1, 2)).unwrap();
    for seat in 0..3 {
        assert!(game.is_legal(lanopoly_engine::Move { player: seat, action: Action::Resign }));
        assert!(!game.legal_actions(seat).contains(&Action::Resign));
    }
}
