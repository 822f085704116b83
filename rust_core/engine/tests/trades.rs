//! Scenario tests: trades between two players.

mod common;
use common::*;

use lanopoly_engine::{Action, Bundle, Deck, Offer};

fn deeds(squares: &[u8]) -> u32 {
    squares.iter().fold(0, |m, &s| m | 1 << prop(s))
}

#[test]
fn propose_and_accept_swaps_deeds_and_cash() {
    let mut game = official(2);
    give(&mut game, 0, &[3]);
    give(&mut game, 1, &[5]);
    let give = Bundle { properties: deeds(&[3]), cash: 50, jail_cards: 0 };
    let get = Bundle { properties: deeds(&[5]), ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    assert_eq!(game.offers, vec![Offer { from: 0, to: 1, give, get }]);
    assert_eq!(owner(&game, 3), 0);
    act(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert_eq!((owner(&game, 3), owner(&game, 5)), (1, 0));
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1450, 1550));
    assert!(game.offers.is_empty());
    assert_eq!(game.fee_due, 0);
}

#[test]
fn reject_and_cancel_change_nothing_but_the_offer() {
    let mut game = official(2);
    give(&mut game, 0, &[3]);
    let give = Bundle { properties: deeds(&[3]), ..Default::default() };
    let get = Bundle { cash: 100, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    act(&mut game, 1, Action::RejectTrade { from: 0 });
    assert!(game.offers.is_empty());
    assert_eq!((owner(&game, 3), cash(&game, 0), cash(&game, 1)), (0, 1500, 1500));
    assert_eq!(refused(&mut game, 1, Action::AcceptTrade { from: 0 }), "seat 0 has no open offer to you");

    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    act(&mut game, 0, Action::CancelTrade);
    assert!(game.offers.is_empty());
    assert_eq!(refused(&mut game, 1, Action::AcceptTrade { from: 0 }), "seat 0 has no open offer to you");
    assert_eq!(refused(&mut game, 1, Action::RejectTrade { from: 0 }), "seat 0 has no open offer to you");
    assert_eq!(refused(&mut game, 0, Action::CancelTrade), "you have no open offer");
    assert_eq!(owner(&game, 3), 0);
}

#[test]
fn a_new_offer_replaces_the_old_one() {
    let mut game = official(3);
    give(&mut game, 0, &[3]);
    let give = Bundle { properties: deeds(&[3]), ..Default::default() };
    let get = Bundle { cash: 100, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    act(&mut game, 0, Action::ProposeTrade { to: 2, give, get });
    assert_eq!(game.offers, vec![Offer { from: 0, to: 2, give, get }]);
    assert_eq!(refused(&mut game, 1, Action::AcceptTrade { from: 0 }), "seat 0 has no open offer to you");
    act(&mut game, 2, Action::AcceptTrade { from: 0 });
    assert_eq!(owner(&game, 3), 2);
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1600, 1400));
}

#[test]
fn jail_cards_can_be_traded_and_used_by_the_new_holder() {
    let mut game = official(2);
    land(&mut game, 0, 3, 4);
    draw(&mut game, 7);
    assert_eq!(game.players[0].jail_cards, 0b01);
    let give = Bundle { jail_cards: 0b01, ..Default::default() };
    let get = Bundle { cash: 30, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    act(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert_eq!((game.players[0].jail_cards, game.players[1].jail_cards), (0, 0b01));
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1530, 1470));
    assert_eq!(game.jail_card_holder(Deck::Chance), Some(1));
    assert_eq!(game.decks[0].held, 1 << 7);
    end_turn(&mut game);
    jail(&mut game, 1);
    act(&mut game, 1, Action::UseJailCard);
    assert!(!in_jail(&game, 1));
    assert_eq!(game.players[1].jail_cards, 0);
    assert_eq!(game.decks[0].held, 0);
    game.validate().unwrap();
}

#[test]
fn a_street_of_a_built_group_cannot_be_traded() {
    let mut game = official(2);
    give(&mut game, 0, &[6, 8, 9]);
    act(&mut game, 0, Action::Build(6));
    let give = Bundle { properties: deeds(&[8]), ..Default::default() };
    let reason = refused(&mut game, 0, Action::ProposeTrade { to: 1, give, get: Bundle::default() });
    assert_eq!(reason, "the group of Vermont Avenue has buildings: sell them before trading it");
    let get = Bundle { properties: deeds(&[6]), ..Default::default() };
    let reason = refused(&mut game, 1, Action::ProposeTrade { to: 0, give: Bundle::default(), get });
    assert_eq!(reason, "the group of Oriental Avenue has buildings: sell them before trading it");
    act(&mut game, 0, Action::Sell(6));
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get: Bundle::default() });
    act(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert_eq!(owner(&game, 8), 1);
}

#[test]
fn trade_proposal_refusals() {
    let mut game = official(2);
    give(&mut game, 0, &[3]);
    give(&mut game, 1, &[5]);
    let some = Bundle { cash: 10, ..Default::default() };
    let none = Bundle::default();
    let p = |to, give, get| Action::ProposeTrade { to, give, get };
    assert_eq!(refused(&mut game, 0, p(0, some, none)), "trade with another seat in the game");
    assert_eq!(refused(&mut game, 0, p(2, some, none)), "trade with another seat in the game");
    assert_eq!(refused(&mut game, 0, p(1, none, none)), "an offer must give or ask something");
    let boardwalk = Bundle { properties: deeds(&[39]), ..Default::default() };
    assert_eq!(refused(&mut game, 0, p(1, boardwalk, none)), "seat 0 does not own Boardwalk");
    assert_eq!(refused(&mut game, 0, p(1, none, boardwalk)), "seat 1 does not own Boardwalk");
    let too_much = Bundle { cash: 1501, ..Default::default() };
    assert_eq!(refused(&mut game, 0, p(1, too_much, none)), "seat 0 has only 1500 in cash");
    assert_eq!(refused(&mut game, 0, p(1, none, too_much)), "seat 1 has only 1500 in cash");
    let card = Bundle { jail_cards: 0b10, ..Default::default() };
    assert_eq!(refused(&mut game, 0, p(1, card, none)), "seat 0 does not hold that jail card");
    assert_eq!(refused(&mut game, 0, p(1, none, card)), "seat 1 does not hold that jail card");
    let bad = Bundle { properties: 1 << 28, ..Default::default() };
    assert_eq!(refused(&mut game, 0, p(1, bad, none)), "there are only 28 deeds");
}

#[test]
fn an_offer_is_checked_again_when_accepted() {
    // The proposer built on the group of the deed offered in the meantime.
    let mut game = official(2);
    give(&mut game, 0, &[1, 3]);
    let offer = Bundle { properties: deeds(&[3]), ..Default::default() };
    let ask = Bundle { cash: 200, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give: offer, get: ask });
    act(&mut game, 0, Action::Build(1));
    let reason = refused(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert!(reason.starts_with("the offer no longer holds: "), "{reason}");
    assert!(reason.ends_with("the group of Baltic Avenue has buildings: sell them before trading it"), "{reason}");
    assert_eq!(owner(&game, 3), 0);
    assert_eq!(game.offers.len(), 1);

    // The accepting player spent the cash asked of it on two houses.
    let mut game = official(2);
    give(&mut game, 0, &[5]);
    give(&mut game, 1, &[1, 3]);
    let offer = Bundle { properties: deeds(&[5]), ..Default::default() };
    let ask = Bundle { cash: 1450, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give: offer, get: ask });
    act(&mut game, 1, Action::Build(1));
    act(&mut game, 1, Action::Build(3));
    assert_eq!(cash(&game, 1), 1400);
    let reason = refused(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert!(reason.starts_with("the offer no longer holds: "), "{reason}");
    assert!(reason.contains("1400 in cash"), "{reason}");
    assert_eq!(owner(&game, 5), 0);
}

/// The reason for refusing a stale offer is shown to the accepting seat: it must not call the
/// proposer "you" (or the acceptor "they").
#[test]
fn a_stale_offer_reason_names_the_right_player() {
    // Seat 0 offered 1450 cash, then paid 60 for Baltic Avenue; seat 1 (1500 in cash) accepts.
    let mut game = official(2);
    give(&mut game, 1, &[5]);
    let offer = Bundle { cash: 1450, ..Default::default() };
    let ask = Bundle { properties: deeds(&[5]), ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give: offer, get: ask });
    land(&mut game, 0, 1, 2);
    act(&mut game, 0, Action::Buy);
    assert_eq!(cash(&game, 0), 1440);
    let reason = refused(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert!(reason.contains("1440"), "{reason}");
    assert!(!reason.contains("you have only"), "the acceptor is told about the proposer's cash as its own: {reason}");

    // Seat 0 asked 1450 of seat 1, who then spent 100 on houses.
    let mut game = official(2);
    give(&mut game, 0, &[5]);
    give(&mut game, 1, &[1, 3]);
    let offer = Bundle { properties: deeds(&[5]), ..Default::default() };
    let ask = Bundle { cash: 1450, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give: offer, get: ask });
    act(&mut game, 1, Action::Build(1));
    act(&mut game, 1, Action::Build(3));
    let reason = refused(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert!(!reason.contains("they have only"), "the acceptor is told about its own cash as \"they\": {reason}");
}
