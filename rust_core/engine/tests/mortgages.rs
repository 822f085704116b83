//! Scenario tests: mortgaging, lifting, and mortgaged deeds changing hands.

mod common;
use common::*;

use lanopoly_engine::{Action, Bundle, Game, Phase};

fn mortgaged(game: &Game, square: u8) -> bool {
    game.is_mortgaged(prop(square) as u8)
}

#[test]
fn mortgage_value_is_half_the_price_and_lifting_adds_10_percent_rounded_up() {
    let mut game = official(2);
    give(&mut game, 0, &[39, 12, 37, 1]);
    // (square, value, lift): 10 % of 75 is 7.5 -> 8, of 175 is 17.5 -> 18.
    for (sq, value, lift) in [(39, 200, 220), (12, 75, 83), (37, 175, 193), (1, 30, 33)] {
        let before = cash(&game, 0);
        act(&mut game, 0, Action::Mortgage(sq));
        assert!(mortgaged(&game, sq));
        assert_eq!(cash(&game, 0), before + value, "mortgage {sq}");
        act(&mut game, 0, Action::Unmortgage(sq));
        assert!(!mortgaged(&game, sq));
        assert_eq!(cash(&game, 0), before + value - lift, "lift {sq}");
    }
    assert_eq!(cash(&game, 0), 1500 - 20 - 8 - 18 - 3);
}

#[test]
fn mortgage_refusals() {
    let mut game = official(2);
    give(&mut game, 0, &[39]);
    assert_eq!(refused(&mut game, 0, Action::Unmortgage(39)), "Boardwalk is not mortgaged");
    assert_eq!(refused(&mut game, 1, Action::Mortgage(39)), "you do not own Boardwalk");
    act(&mut game, 0, Action::Mortgage(39));
    assert_eq!(refused(&mut game, 0, Action::Mortgage(39)), "Boardwalk is already mortgaged");
    set_cash(&mut game, 0, 219);
    assert_eq!(
        refused(&mut game, 0, Action::Unmortgage(39)),
        "lifting the mortgage on Boardwalk costs 220; you have 219"
    );
    assert_eq!(refused(&mut game, 0, Action::KeepMortgaged(39)), "you have received no mortgaged deed");
}

#[test]
fn no_mortgage_while_the_group_has_buildings() {
    let mut game = official(2);
    give(&mut game, 0, &[6, 8, 9]);
    act(&mut game, 0, Action::Build(6));
    let reason = refused(&mut game, 0, Action::Mortgage(8));
    assert_eq!(reason, "sell the buildings of the group of Vermont Avenue first");
    let reason = refused(&mut game, 0, Action::Mortgage(6));
    assert_eq!(reason, "sell the buildings of the group of Oriental Avenue first");
    act(&mut game, 0, Action::Sell(6));
    act(&mut game, 0, Action::Mortgage(8));
    assert!(mortgaged(&game, 8));
    assert_eq!(cash(&game, 0), 1500 - 50 + 25 + 50);
}

/// Seat 0 mortgages Boardwalk and trades it to seat 1 for 100.
fn mortgaged_boardwalk_traded() -> Game {
    let mut game = official(2);
    give(&mut game, 0, &[39]);
    act(&mut game, 0, Action::Mortgage(39));
    let give = Bundle { properties: 1 << prop(39), ..Default::default() };
    let get = Bundle { cash: 100, ..Default::default() };
    act(&mut game, 0, Action::ProposeTrade { to: 1, give, get });
    act(&mut game, 1, Action::AcceptTrade { from: 0 });
    assert_eq!(owner(&game, 39), 1);
    assert!(mortgaged(&game, 39));
    assert_eq!(game.fee_due, 1 << prop(39));
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1800, 1400));
    game
}

#[test]
fn a_mortgaged_deed_received_waits_for_lift_or_keep() {
    let mut game = mortgaged_boardwalk_traded();
    assert_eq!(game.actor(), Some(1));
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(refused(&mut game, 0, Action::Roll), "seat 1 must first lift or keep the mortgaged deeds it received");
    assert_eq!(
        refused(&mut game, 1, Action::Build(39)),
        "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received"
    );
    let give = Bundle { properties: 1 << prop(39), ..Default::default() };
    let reason = refused(&mut game, 1, Action::ProposeTrade { to: 0, give, get: Bundle::default() });
    assert_eq!(reason, "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received");
}

#[test]
fn keeping_a_received_mortgage_pays_10_percent_now_and_value_plus_10_percent_later() {
    let mut game = mortgaged_boardwalk_traded();
    act(&mut game, 1, Action::KeepMortgaged(39));
    assert_eq!(cash(&game, 1), 1380);
    assert_eq!(game.fee_due, 0);
    assert!(mortgaged(&game, 39));
    assert_eq!(game.actor(), Some(0));
    act(&mut game, 1, Action::Unmortgage(39));
    assert_eq!(cash(&game, 1), 1160);
    assert!(!mortgaged(&game, 39));
}

#[test]
fn lifting_a_received_mortgage_at_once_pays_value_plus_10_percent_only() {
    let mut game = mortgaged_boardwalk_traded();
    act(&mut game, 1, Action::Unmortgage(39));
    assert_eq!(cash(&game, 1), 1400 - 220);
    assert_eq!(game.fee_due, 0);
    assert!(!mortgaged(&game, 39));
    assert_eq!(game.actor(), Some(0));
}

#[test]
fn keep_mortgaged_only_for_deeds_just_received() {
    let mut game = mortgaged_boardwalk_traded();
    give(&mut game, 1, &[37]);
    act(&mut game, 1, Action::Mortgage(37));
    assert_eq!(refused(&mut game, 1, Action::KeepMortgaged(37)), "Park Place was not just received mortgaged");
    act(&mut game, 1, Action::KeepMortgaged(39));
}

#[test]
fn the_transfer_fee_becomes_a_debt_when_cash_is_short() {
    let mut game = mortgaged_boardwalk_traded();
    set_cash(&mut game, 1, 5);
    act(&mut game, 1, Action::KeepMortgaged(39));
    assert_eq!(game.debts.len(), 1);
    assert_eq!((game.debts[0].debtor, game.debts[0].amount), (1, 20));
    assert_eq!(cash(&game, 1), 5);
    assert_eq!(game.actor(), Some(1));
}
