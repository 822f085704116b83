//! Scenario tests: buying, declining, and the auction of a declined deed.

mod common;
use common::*;

use lanopoly_engine::state::{Auction, Lot};
use lanopoly_engine::{Action, Event, Phase, Rules, NOBODY};

/// Seat 0 lands on Baltic Avenue (square 3, price 60).
fn on_baltic(players: u8, rules: Rules) -> lanopoly_engine::Game {
    let mut game = started(players, rules);
    land(&mut game, 0, 1, 2);
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(3) as u8 });
    assert_eq!(game.actor(), Some(0));
    game
}

#[test]
fn buying_pays_the_printed_price() {
    let mut game = on_baltic(2, Rules::default());
    act(&mut game, 0, Action::Buy);
    assert_eq!(owner(&game, 3), 0);
    assert_eq!(cash(&game, 0), 1440);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert!(game.auction.is_none());
}

#[test]
fn buying_on_a_double_rolls_again() {
    let mut game = official(2);
    land(&mut game, 0, 3, 3); // Oriental Avenue, 100
    act(&mut game, 0, Action::Buy);
    assert_eq!(owner(&game, 6), 0);
    assert_eq!(cash(&game, 0), 1400);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(0));
}

#[test]
fn buying_without_the_cash_is_refused() {
    let mut game = on_baltic(2, Rules::default());
    set_cash(&mut game, 0, 59);
    assert_eq!(refused(&mut game, 0, Action::Buy), "the price is 60; you have 59: raise money or decline");
    assert_eq!(refused(&mut game, 1, Action::Buy), "it is seat 0's decision");
    assert_eq!(refused(&mut game, 0, Action::EndTurn), "you must roll first");
}

#[test]
fn buy_with_nothing_to_buy_is_refused() {
    let mut game = official(2);
    assert_eq!(refused(&mut game, 0, Action::Buy), "there is nothing to buy now");
    assert_eq!(refused(&mut game, 0, Action::Bid(5)), "there is no auction");
}

#[test]
fn a_declined_deed_is_auctioned_among_everyone_decliner_included() {
    let mut game = on_baltic(3, Rules::default());
    act(&mut game, 0, Action::Decline);
    assert_eq!(
        game.auction,
        Some(Auction {
            lot: Lot::Property(prop(3) as u8),
            high_bid: 0,
            high_bidder: NOBODY,
            bidders: 0b111,
            first: 0,
            after_landing: true
        })
    );
    assert_eq!(game.actor(), Some(0));
    assert_eq!(refused(&mut game, 0, Action::EndTurn), "an auction is running: bid or pass");
    act(&mut game, 0, Action::Bid(10));
    assert_eq!(game.actor(), Some(1));
    act(&mut game, 1, Action::Bid(20));
    // Open bidding: the seat asked first is the first one still in from the decliner, but any
    // bidder still in may bid or pass at any time.
    assert_eq!(game.actor(), Some(0));
    act(&mut game, 2, Action::Pass);
    assert_eq!(game.actor(), Some(0));
    act(&mut game, 0, Action::Bid(30));
    assert_eq!(game.actor(), Some(1));
    game.take_events();
    act(&mut game, 1, Action::Pass);
    assert!(game.auction.is_none());
    assert_eq!(owner(&game, 3), 0);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [1470, 1500, 1500]);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(game.actor(), Some(0));
    assert!(game.take_events().contains(&Event::AuctionWon { player: 0, square: 3, price: 30 }));
}

#[test]
fn another_player_can_win_the_auction_above_the_price() {
    let mut game = on_baltic(2, Rules::default());
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Pass);
    assert_eq!(game.actor(), Some(1));
    act(&mut game, 1, Action::Bid(75));
    assert!(game.auction.is_none());
    assert_eq!(owner(&game, 3), 1);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1500, 1425));
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(game.actor(), Some(0));
}

#[test]
fn an_auction_with_no_bid_leaves_the_deed_with_the_bank() {
    let mut game = on_baltic(3, Rules::default());
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Pass);
    act(&mut game, 1, Action::Pass);
    game.take_events();
    act(&mut game, 2, Action::Pass);
    assert!(game.auction.is_none());
    assert_eq!(owner(&game, 3), NOBODY);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [1500, 1500, 1500]);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert!(game.take_events().contains(&Event::AuctionUnsold { square: 3 }));
}

#[test]
fn an_auction_after_a_double_lets_the_player_roll_again() {
    let mut game = official(2);
    land(&mut game, 0, 3, 3);
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Pass);
    act(&mut game, 1, Action::Pass);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(0));
}

#[test]
fn a_bid_above_cash_is_refused() {
    let mut game = on_baltic(2, Rules::default());
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Pass);
    set_cash(&mut game, 1, 25);
    assert_eq!(game.bid_range(1), Some((1, 25)));
    assert_eq!(refused(&mut game, 1, Action::Bid(26)), "you can bid at most 25 (your cash)");
    act(&mut game, 1, Action::Bid(25));
    assert_eq!(owner(&game, 3), 1);
    assert_eq!(cash(&game, 1), 0);
}

#[test]
fn bids_must_beat_the_current_bid_and_leaders_cannot_pass() {
    let mut game = on_baltic(2, Rules::default());
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Bid(40));
    assert_eq!(refused(&mut game, 1, Action::Bid(40)), "the lowest bid now is 41");
    assert_eq!(refused(&mut game, 0, Action::Pass), "you lead this auction: your bid stands");
    assert_eq!(refused(&mut game, 0, Action::Bid(50)), "you already lead this auction with 40");
    act(&mut game, 1, Action::Bid(41));
    act(&mut game, 0, Action::Pass);
    assert_eq!(owner(&game, 3), 1);
    assert_eq!(cash(&game, 1), 1459);
}

#[test]
fn passing_is_final() {
    let mut game = on_baltic(3, Rules::default());
    act(&mut game, 0, Action::Decline);
    act(&mut game, 0, Action::Pass);
    act(&mut game, 1, Action::Bid(5));
    assert_eq!(refused(&mut game, 0, Action::Bid(10)), "you have left this auction");
    assert_eq!(refused(&mut game, 0, Action::Pass), "you have already left this auction");
}

#[test]
fn opening_bid_is_1_by_default() {
    let mut game = on_baltic(2, Rules::default());
    act(&mut game, 0, Action::Decline);
    assert_eq!(game.bid_range(0), Some((1, 1500)));
    act(&mut game, 0, Action::Bid(1));
    act(&mut game, 1, Action::Pass);
    assert_eq!(owner(&game, 3), 0);
    assert_eq!(cash(&game, 0), 1499);
}

#[test]
fn opening_bid_is_10_in_the_italian_preset() {
    let mut game = on_baltic(2, preset("it"));
    act(&mut game, 0, Action::Decline);
    assert_eq!(game.bid_range(0), Some((10, 1500)));
    assert_eq!(refused(&mut game, 0, Action::Bid(9)), "the lowest bid now is 10");
    act(&mut game, 0, Action::Bid(10));
    assert_eq!(game.bid_range(1), Some((11, 1500)));
    act(&mut game, 1, Action::Bid(11));
    act(&mut game, 0, Action::Pass);
    assert_eq!(owner(&game, 3), 1);
    assert_eq!(cash(&game, 1), 1489);
}

#[test]
fn opening_bid_is_10_in_the_norwegian_preset() {
    let mut game = on_baltic(2, preset("no"));
    act(&mut game, 0, Action::Decline);
    assert_eq!(refused(&mut game, 0, Action::Bid(1)), "the lowest bid now is 10");
}

#[test]
fn without_auctions_a_declined_deed_stays_unsold() {
    let mut game = on_baltic(3, preset("paris-app"));
    act(&mut game, 0, Action::Decline);
    assert!(game.auction.is_none());
    assert_eq!(owner(&game, 3), NOBODY);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(refused(&mut game, 1, Action::Bid(10)), "there is no auction");
    end_turn(&mut game);
    assert_eq!(game.turn_player, 1);
}
