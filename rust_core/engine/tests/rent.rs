//! Scenario tests: street, railway and utility rent. Rent is collected on landing here
//! (`automatic_rent`), so each amount shows at once; claiming it is tested in `endgame.rs`.

mod common;
use common::*;

use lanopoly_engine::{Event, Party, Phase, Reason, HOTEL};

#[test]
fn unbuilt_street_rent() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[3]);
    land(&mut game, 0, 1, 2);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1496, 1504));
    assert_eq!(game.phase, Phase::AfterRoll);
    assert!(game.take_events().contains(&Event::Payment {
        from: Party::Player(0),
        to: Party::Player(1),
        amount: 4,
        reason: Reason::Rent
    }));
}

#[test]
fn a_complete_group_doubles_unbuilt_rent() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[1, 3]);
    land(&mut game, 0, 1, 2);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1492, 1508));
}

#[test]
fn a_three_street_group_needs_all_three_for_doubling() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[6, 8]);
    land(&mut game, 0, 4, 5); // Connecticut: not owned
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(9) as u8 });
    let mut game = auto_rent(2);
    give(&mut game, 1, &[6, 8]);
    give(&mut game, 0, &[9]);
    land(&mut game, 0, 2, 6); // Vermont: 6, no doubling (seat 0 owns Connecticut)
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1494, 1506));
}

#[test]
fn a_mortgaged_street_keeps_the_doubling_for_the_others_but_collects_nothing() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[1, 3]);
    set_mortgaged(&mut game, 1);
    land(&mut game, 0, 1, 2); // Baltic: 4 doubled
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1492, 1508));
    end_turn(&mut game);
    idle_turn(&mut game);
    land(&mut game, 38, 1, 2); // Mediterranean (mortgaged), passing GO
    assert_eq!(pos(&game, 0), 1);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1692, 1508));
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn street_rent_with_houses_and_hotel() {
    // Connecticut Avenue: 8 / 40 / 100 / 300 / 450 / 600.
    for (lvl, rent) in [(1, 40), (2, 100), (3, 300), (4, 450), (HOTEL, 600)] {
        let mut game = auto_rent(2);
        give(&mut game, 1, &[6, 8, 9]);
        for sq in [6, 8, 9] {
            set_level(&mut game, sq, lvl);
        }
        land(&mut game, 0, 4, 5);
        assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 - rent, 1500 + rent), "level {lvl}");
    }
}

#[test]
fn boardwalk_rent_with_houses_and_hotel() {
    for (lvl, rent) in [(0, 100), (1, 200), (2, 600), (3, 1400), (4, 1700), (HOTEL, 2000)] {
        let mut game = auto_rent(2);
        give(&mut game, 1, &[37, 39]);
        set_level(&mut game, 37, lvl);
        set_level(&mut game, 39, lvl);
        set_cash(&mut game, 0, 3000);
        land(&mut game, 32, 3, 4);
        assert_eq!((cash(&game, 0), cash(&game, 1)), (3000 - rent, 1500 + rent), "level {lvl}");
    }
}

#[test]
fn railway_rent_25_50_100_200() {
    let railways = [5, 15, 25, 35];
    for (n, rent) in [(1, 25), (2, 50), (3, 100), (4, 200)] {
        let mut game = auto_rent(2);
        give(&mut game, 1, &railways[..n]);
        land(&mut game, 0, 1, 4);
        assert_eq!(pos(&game, 0), 5);
        assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 - rent, 1500 + rent), "{n} railways");
    }
}

#[test]
fn a_mortgaged_railway_collects_nothing() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[5, 15]);
    set_mortgaged(&mut game, 5);
    land(&mut game, 0, 1, 4);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1500, 1500));
    end_turn(&mut game);
    idle_turn(&mut game);
    land(&mut game, 10, 1, 4); // Pennsylvania Railroad: 2 owned -> 50
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1450, 1550));
}

#[test]
fn utility_rent_is_4_times_the_dice_for_one() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[12]);
    land(&mut game, 4, 3, 5);
    assert_eq!(pos(&game, 0), 12);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1468, 1532));
}

#[test]
fn utility_rent_is_10_times_the_dice_for_both() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[12, 28]);
    land(&mut game, 20, 2, 6);
    assert_eq!(pos(&game, 0), 28);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1420, 1580));
}

#[test]
fn no_rent_on_your_own_property() {
    let mut game = auto_rent(2);
    give(&mut game, 0, &[3]);
    land(&mut game, 0, 1, 2);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn rent_method_matches_the_deeds() {
    let mut game = auto_rent(2);
    give(&mut game, 1, &[37, 39, 12]);
    assert_eq!(game.rent(prop(39) as u8, 7), 100);
    assert_eq!(game.rent(prop(12) as u8, 7), 28);
    assert_eq!(game.rent(prop(5) as u8, 7), 0);
}
