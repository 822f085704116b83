//! Scenario tests: debts, raising money, bankruptcy and the end of the game.

mod common;
use common::*;

use lanopoly_engine::state::{Debt, Lot};
use lanopoly_engine::{Action, Bundle, Deck, Game, Party, Phase, Reason, HOTEL, NOBODY};

#[test]
fn a_tax_beyond_cash_becomes_a_debt_paid_after_mortgaging() {
    let mut game = official(2);
    give(&mut game, 0, &[39]);
    set_cash(&mut game, 0, 100);
    land(&mut game, 0, 1, 3);
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Bank, amount: 200, reason: Reason::Tax }]);
    assert_eq!(cash(&game, 0), 100);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(game.actor(), Some(0));
    assert_eq!(
        refused(&mut game, 0, Action::EndTurn),
        "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy"
    );
    assert_eq!(
        refused(&mut game, 0, Action::PayDebt),
        "you owe 200 but have 100: sell buildings, mortgage or trade first"
    );
    assert_eq!(
        refused(&mut game, 0, Action::DeclareBankruptcy),
        "you owe 200 and could raise 300 by selling and mortgaging: pay instead"
    );
    assert_eq!(refused(&mut game, 1, Action::Build(1)), "seat 0 must first settle a debt of 200");
    act(&mut game, 0, Action::Mortgage(39));
    act(&mut game, 0, Action::PayDebt);
    assert!(game.debts.is_empty());
    assert_eq!(cash(&game, 0), 100);
    end_turn(&mut game);
    assert_eq!(game.turn_player, 1);
}

#[test]
fn rent_beyond_cash_is_paid_after_selling_houses() {
    let mut game = official(2);
    give(&mut game, 1, &[37, 39]);
    give(&mut game, 0, &[6, 8, 9]);
    for sq in [6, 8, 9] {
        set_level(&mut game, sq, 1);
    }
    set_cash(&mut game, 0, 40);
    land(&mut game, 32, 3, 4);
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Player(1), amount: 100, reason: Reason::Rent }]);
    act(&mut game, 0, Action::Sell(6));
    act(&mut game, 0, Action::Sell(8));
    act(&mut game, 0, Action::Sell(9));
    assert_eq!(cash(&game, 0), 115);
    act(&mut game, 0, Action::PayDebt);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (15, 1600));
    assert_eq!(game.houses_left, 32);
    assert!(game.debts.is_empty());
}

#[test]
fn a_debtor_may_sell_a_deed_by_trade_and_the_other_seat_may_accept() {
    let mut game = official(2);
    give(&mut game, 0, &[3]);
    set_cash(&mut game, 0, 100);
    land(&mut game, 0, 1, 3);
    let offer = Bundle { properties: 1 << prop(3), ..Default::default() };
    let ask = Bundle { cash: 150, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give: offer, get: ask });
    act(&mut game, 1, Action::AcceptTrade { from: 0 });
    act(&mut game, 0, Action::PayDebt);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (50, 1350));
    assert_eq!(owner(&game, 3), 1);
    assert!(game.debts.is_empty());
}

#[test]
fn nothing_owed_means_no_pay_debt_and_no_bankruptcy() {
    let mut game = official(2);
    assert_eq!(refused(&mut game, 0, Action::PayDebt), "you owe nothing");
    assert_eq!(refused(&mut game, 0, Action::DeclareBankruptcy), "you owe nothing");
}

/// Seat 0 (100 cash; light blue with a house each; Reading mortgaged; the Chance jail card)
/// lands on seat 1's Boardwalk with a hotel: 2000 rent it cannot raise.
fn broke_on_boardwalk(players: u8) -> Game {
    let mut game = official(players);
    give(&mut game, 1, &[37, 39]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    give(&mut game, 0, &[6, 8, 9, 5]);
    for sq in [6, 8, 9] {
        set_level(&mut game, sq, 1);
    }
    set_mortgaged(&mut game, 5);
    game.players[0].jail_cards = 0b01;
    game.decks[Deck::Chance as usize].held = 1 << 7;
    game.decks[Deck::Chance as usize].drawn = 1 << 7;
    set_cash(&mut game, 0, 100);
    game.validate().unwrap();
    land(&mut game, 32, 3, 4);
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Player(1), amount: 2000, reason: Reason::Rent }]);
    assert_eq!(game.liquidation_value(0), 100 + 3 * 25 + 50 + 50 + 60);
    game
}

#[test]
fn bankruptcy_to_a_player_hands_over_cash_deeds_and_cards() {
    let mut game = broke_on_boardwalk(3);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert!(game.players[0].bankrupt);
    assert_eq!(cash(&game, 0), 0);
    // Houses sold to the bank at half price (3 x 25), then all cash to the creditor.
    assert_eq!(cash(&game, 1), 1500 + 100 + 75);
    assert_eq!(cash(&game, 2), 1500);
    for sq in [6, 8, 9, 5] {
        assert_eq!(owner(&game, sq), 1, "square {sq}");
    }
    assert_eq!([level(&game, 6), level(&game, 8), level(&game, 9)], [0, 0, 0]);
    assert_eq!((game.houses_left, game.hotels_left), (32, 10));
    assert_eq!((game.players[0].jail_cards, game.players[1].jail_cards), (0, 0b01));
    assert_eq!(game.decks[Deck::Chance as usize].held, 1 << 7);
    assert!(game.is_mortgaged(prop(5) as u8));
    assert_eq!(game.fee_due, 1 << prop(5));
    assert!(game.debts.is_empty());
    assert_eq!(game.bankruptcies, 1);
    assert!(!game.is_over());
    assert_eq!(game.turn_player, 1);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(1));
    assert_eq!(
        refused(&mut game, 1, Action::Roll),
        "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received"
    );
    assert_eq!(refused(&mut game, 0, Action::Roll), "seat 0 is bankrupt");
    act(&mut game, 1, Action::KeepMortgaged(5));
    assert_eq!(cash(&game, 1), 1665);
    assert_eq!(game.fee_due, 0);
    act(&mut game, 1, Action::Roll);
    game.validate().unwrap();
}

#[test]
fn bankruptcy_to_a_player_creditor_may_lift_the_mortgage_instead() {
    let mut game = broke_on_boardwalk(3);
    act(&mut game, 0, Action::DeclareBankruptcy);
    act(&mut game, 1, Action::Unmortgage(5));
    assert_eq!(cash(&game, 1), 1675 - 110);
    assert_eq!(game.fee_due, 0);
    assert!(!game.is_mortgaged(prop(5) as u8));
}

#[test]
fn the_last_player_standing_wins() {
    let mut game = broke_on_boardwalk(2);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert!(game.is_over());
    assert_eq!(game.phase, Phase::GameOver);
    assert_eq!(game.winner(), Some(1));
    assert_eq!(game.actor(), None);
    assert_eq!(refused(&mut game, 1, Action::Roll), "the game is over");
}

#[test]
fn bankruptcy_to_the_bank_auctions_the_deeds_one_after_another() {
    let mut game = official(3);
    give(&mut game, 0, &[3, 5]);
    set_mortgaged(&mut game, 5);
    game.players[0].jail_cards = 0b10;
    game.decks[Deck::CommunityChest as usize].held = 1 << 4;
    game.decks[Deck::CommunityChest as usize].drawn = 1 << 4;
    set_cash(&mut game, 0, 50);
    game.validate().unwrap();
    land(&mut game, 0, 1, 3);
    assert_eq!(game.liquidation_value(0), 80);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert!(game.players[0].bankrupt);
    assert_eq!(cash(&game, 0), 0);
    assert_eq!((owner(&game, 3), owner(&game, 5)), (NOBODY, NOBODY));
    assert_eq!(game.mortgaged(), 0);
    assert_eq!(game.players[0].jail_cards, 0);
    assert_eq!(game.decks[Deck::CommunityChest as usize].held, 0);
    assert_eq!(game.turn_player, 1);
    let auction = game.auction.expect("Baltic Avenue is auctioned");
    assert_eq!(auction.lot, Lot::Property(prop(3) as u8));
    assert_eq!(auction.bidders, 0b110);
    assert_eq!(game.auction_queue, 1 << prop(5));
    assert_eq!(game.actor(), Some(1));
    assert_eq!(refused(&mut game, 0, Action::Bid(10)), "seat 0 is bankrupt");
    act(&mut game, 1, Action::Bid(40));
    act(&mut game, 2, Action::Pass);
    assert_eq!(owner(&game, 3), 1);
    assert_eq!(cash(&game, 1), 1460);
    let auction = game.auction.expect("Reading Railroad is auctioned next");
    assert_eq!(auction.lot, Lot::Property(prop(5) as u8));
    assert_eq!(game.auction_queue, 0);
    act(&mut game, 1, Action::Pass);
    act(&mut game, 2, Action::Bid(150));
    assert!(game.auction.is_none());
    assert_eq!(owner(&game, 5), 2);
    assert!(!game.is_mortgaged(prop(5) as u8));
    assert_eq!(game.fee_due, 0);
    assert_eq!(cash(&game, 2), 1350);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(1));
    game.validate().unwrap();
}

#[test]
fn several_creditors_are_paid_in_seat_order() {
    let mut game = official(3);
    give(&mut game, 0, &[39]);
    set_cash(&mut game, 0, 30);
    land(&mut game, 29, 3, 4); // 36 Chance
    draw(&mut game, 13); // pay each player 50
    assert_eq!(
        game.debts,
        vec![
            Debt { debtor: 0, creditor: Party::Player(1), amount: 50, reason: Reason::Card },
            Debt { debtor: 0, creditor: Party::Player(2), amount: 50, reason: Reason::Card },
        ]
    );
    act(&mut game, 0, Action::Mortgage(39));
    act(&mut game, 0, Action::PayDebt);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [180, 1550, 1500]);
    act(&mut game, 0, Action::PayDebt);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [130, 1550, 1550]);
    assert!(game.debts.is_empty());
}

#[test]
fn a_bankrupt_with_several_creditors_pays_the_oldest_debt_s_creditor() {
    let mut game = official(3);
    set_cash(&mut game, 0, 30);
    land(&mut game, 29, 3, 4);
    draw(&mut game, 13);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [0, 1530, 1500]);
    assert!(game.debts.is_empty());
    assert_eq!(game.turn_player, 1);
}

#[test]
fn speed_ends_at_the_second_bankruptcy_and_the_richest_wins() {
    let mut game = dealt(4, preset("speed"), &[1, 3, 37, 5, 6, 8, 39, 15]);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2), cash(&game, 3)], [1340, 1340, 750, 1100]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    set_cash(&mut game, 3, 7000);
    land(&mut game, 32, 3, 4);
    act(&mut game, 2, Action::ClaimRent(39));
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert!(!game.is_over());
    assert_eq!(game.bankruptcies, 1);
    assert_eq!(cash(&game, 2), 750 + 1340);
    assert_eq!(game.turn_player, 1);
    land(&mut game, 32, 3, 4);
    act(&mut game, 2, Action::ClaimRent(39));
    act(&mut game, 1, Action::DeclareBankruptcy);
    assert!(game.is_over());
    assert_eq!(game.bankruptcies, 2);
    assert!(!game.players[2].bankrupt && !game.players[3].bankrupt);
    // Seat 2: 3430 cash + deeds 750 + 320 + two hotels at 4 x 200 each; seat 3: 7000 + 400.
    assert_eq!(game.net_worths(), vec![0, 0, 6100, 7400]);
    assert_eq!(game.winner(), Some(3));
}

#[test]
fn another_seat_s_debt_holds_the_turn_until_settled() {
    let mut game = official(3);
    set_cash(&mut game, 1, 5);
    land(&mut game, 10, 3, 4); // 17 Community Chest
    draw(&mut game, 7); // birthday: 10 from each player
    assert_eq!(game.debts, vec![Debt { debtor: 1, creditor: Party::Player(0), amount: 10, reason: Reason::Card }]);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [1510, 5, 1490]);
    assert_eq!(game.actor(), Some(1));
    assert_eq!(refused(&mut game, 0, Action::EndTurn), "seat 1 must first settle a debt of 10");
    act(&mut game, 1, Action::DeclareBankruptcy);
    assert!(game.players[1].bankrupt);
    assert_eq!(cash(&game, 0), 1515);
    assert_eq!(game.turn_player, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
    end_turn(&mut game);
    assert_eq!(game.turn_player, 2);
}

#[test]
fn a_third_jail_failure_fine_beyond_cash_is_a_debt_before_the_buy_decision() {
    let mut game = official(3);
    jail(&mut game, 0);
    game.players[0].jail_attempts = 2;
    set_cash(&mut game, 0, 20);
    roll(&mut game, 1, 2); // 13 States Avenue, unowned
    assert_eq!(pos(&game, 0), 13);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(13) as u8 });
    assert_eq!(game.debts, vec![Debt { debtor: 0, creditor: Party::Bank, amount: 50, reason: Reason::JailFine }]);
    assert_eq!(
        refused(&mut game, 0, Action::Decline),
        "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy"
    );
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert_eq!(owner(&game, 13), NOBODY);
    assert!(game.auction.is_none());
    assert_eq!(game.turn_player, 1);
    assert_eq!(game.phase, Phase::AwaitRoll);
}

#[test]
fn without_auctions_a_bankrupt_s_deeds_simply_return_to_the_bank() {
    let mut game = started(3, preset("paris-app"));
    give(&mut game, 0, &[3]);
    set_mortgaged(&mut game, 3);
    set_cash(&mut game, 0, 50);
    land(&mut game, 0, 1, 3);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert_eq!(owner(&game, 3), NOBODY);
    assert_eq!(game.mortgaged(), 0);
    assert!(game.auction.is_none());
    assert_eq!(game.auction_queue, 0);
    assert_eq!(game.actor(), Some(1));
}
