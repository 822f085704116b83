//! Scenario tests: houses, hotels, the bank's stock, selling, and the building shortage.

mod common;
use common::*;

use lanopoly_engine::state::{Auction, Lot, Placement};
use lanopoly_engine::{Action, Game, Phase, HOTEL};

const LIGHT_BLUE: [u8; 3] = [6, 8, 9];

fn levels(game: &Game, squares: &[u8]) -> Vec<u8> {
    squares.iter().map(|&s| level(game, s)).collect()
}

fn light_blue_owner() -> Game {
    let mut game = official(2);
    give(&mut game, 0, &LIGHT_BLUE);
    game
}

/// Seat 1 holds 29 houses (brown 4/4, light blue 4/4/4, pink 3/3/3): the bank keeps 3.
fn bank_with_3_houses(game: &mut Game) {
    give(game, 1, &[1, 3, 6, 8, 9, 11, 13, 14]);
    for sq in [1, 3, 6, 8, 9] {
        set_level(game, sq, 4);
    }
    for sq in [11, 13, 14] {
        set_level(game, sq, 3);
    }
    assert_eq!(game.houses_left, 3);
}

#[test]
fn building_goes_evenly_up() {
    let mut game = light_blue_owner();
    act(&mut game, 0, Action::Build(6));
    assert_eq!(levels(&game, &LIGHT_BLUE), [1, 0, 0]);
    assert_eq!((cash(&game, 0), game.houses_left), (1450, 31));
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "build evenly: another street of the group has fewer buildings than Oriental Avenue");
    act(&mut game, 0, Action::Build(8));
    act(&mut game, 0, Action::Build(9));
    act(&mut game, 0, Action::Build(6));
    assert_eq!(levels(&game, &LIGHT_BLUE), [2, 1, 1]);
    assert_eq!((cash(&game, 0), game.houses_left), (1300, 28));
    game.validate().unwrap();
}

#[test]
fn selling_goes_evenly_down_at_half_price() {
    let mut game = light_blue_owner();
    set_level(&mut game, 6, 2);
    set_level(&mut game, 8, 1);
    set_level(&mut game, 9, 1);
    let reason = refused(&mut game, 0, Action::Sell(8));
    assert_eq!(reason, "sell evenly: another street of the group has more buildings than Vermont Avenue");
    act(&mut game, 0, Action::Sell(6));
    assert_eq!(levels(&game, &LIGHT_BLUE), [1, 1, 1]);
    assert_eq!((cash(&game, 0), game.houses_left), (1525, 29));
    act(&mut game, 0, Action::Sell(8));
    assert_eq!(levels(&game, &LIGHT_BLUE), [1, 0, 1]);
    assert_eq!((cash(&game, 0), game.houses_left), (1550, 30));
    let reason = refused(&mut game, 0, Action::Sell(8));
    assert_eq!(reason, "Vermont Avenue has no buildings");
}

#[test]
fn building_needs_the_whole_unmortgaged_group_and_a_street() {
    let mut game = official(2);
    give(&mut game, 0, &[6, 8, 5]);
    give(&mut game, 1, &[9]);
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "you need the whole colour group of Oriental Avenue to build");
    let reason = refused(&mut game, 0, Action::Build(5));
    assert_eq!(reason, "Reading Railroad is not a street: railways and utilities carry no buildings");
    let reason = refused(&mut game, 0, Action::Build(9));
    assert_eq!(reason, "you do not own Connecticut Avenue");
    let reason = refused(&mut game, 0, Action::Build(7));
    assert_eq!(reason, "Chance is not a property");
    let reason = refused(&mut game, 0, Action::Build(40));
    assert_eq!(reason, "there is no square 40");

    let mut game = light_blue_owner();
    set_mortgaged(&mut game, 9);
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "a street of this group is mortgaged: lift it first");

    let mut game = light_blue_owner();
    set_cash(&mut game, 0, 49);
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "a building on Oriental Avenue costs 50; you have 49");
}

#[test]
fn building_is_allowed_between_turns() {
    let mut game = official(2);
    give(&mut game, 1, &[1, 3]);
    assert_eq!(game.turn_player, 0);
    act(&mut game, 1, Action::Build(1));
    assert_eq!(level(&game, 1), 1);
    assert_eq!(cash(&game, 1), 1450);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(0));
}

#[test]
fn a_hotel_needs_four_houses_on_every_street_and_returns_them() {
    let mut game = light_blue_owner();
    for (sq, l) in [(6, 4), (8, 4), (9, 3)] {
        set_level(&mut game, sq, l);
    }
    assert_eq!(game.houses_left, 21);
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "build evenly: another street of the group has fewer buildings than Oriental Avenue");
    act(&mut game, 0, Action::Build(9));
    assert_eq!((game.houses_left, game.hotels_left), (20, 12));
    act(&mut game, 0, Action::Build(6));
    assert_eq!(levels(&game, &LIGHT_BLUE), [HOTEL, 4, 4]);
    assert_eq!((game.houses_left, game.hotels_left), (24, 11));
    assert_eq!(cash(&game, 0), 1400);
    let reason = refused(&mut game, 0, Action::Build(6));
    assert_eq!(reason, "Oriental Avenue already has a hotel");
    act(&mut game, 0, Action::Build(8));
    act(&mut game, 0, Action::Build(9));
    assert_eq!(levels(&game, &LIGHT_BLUE), [HOTEL, HOTEL, HOTEL]);
    assert_eq!((game.houses_left, game.hotels_left), (32, 9));
    assert_eq!(cash(&game, 0), 1300);
    game.validate().unwrap();
}

#[test]
fn the_bank_has_only_32_houses() {
    let mut game = official(2);
    // Seat 1: brown, light blue and pink with 4 houses each = 32.
    give(&mut game, 1, &[1, 3, 6, 8, 9, 11, 13, 14]);
    for sq in [1, 3, 6, 8, 9, 11, 13, 14] {
        set_level(&mut game, sq, 4);
    }
    assert_eq!(game.houses_left, 0);
    give(&mut game, 0, &[37, 39]);
    let reason = refused(&mut game, 0, Action::Build(37));
    assert_eq!(reason, "the bank has no houses left");
    // A hotel puts 4 houses back in the bank.
    act(&mut game, 1, Action::Build(11));
    assert_eq!((game.houses_left, game.hotels_left), (4, 11));
    act(&mut game, 0, Action::Build(37));
    assert_eq!(level(&game, 37), 1);
    assert_eq!(game.houses_left, 3);
    game.validate().unwrap();
}

#[test]
fn the_bank_has_only_12_hotels() {
    let mut game = official(2);
    let twelve = [16, 18, 19, 21, 23, 24, 26, 27, 29, 31, 32, 34];
    give(&mut game, 1, &twelve);
    for sq in twelve {
        set_level(&mut game, sq, HOTEL);
    }
    assert_eq!((game.houses_left, game.hotels_left), (32, 0));
    give(&mut game, 0, &[37, 39]);
    set_level(&mut game, 37, 4);
    set_level(&mut game, 39, 4);
    let reason = refused(&mut game, 0, Action::Build(37));
    assert_eq!(reason, "the bank has no hotels left");
    game.validate().unwrap();
}

#[test]
fn a_hotel_sells_for_half_and_comes_down_to_four_houses() {
    let mut game = official(2);
    give(&mut game, 0, &[37, 39]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    assert_eq!((game.houses_left, game.hotels_left), (32, 10));
    act(&mut game, 0, Action::Sell(39));
    assert_eq!((level(&game, 37), level(&game, 39)), (HOTEL, 4));
    assert_eq!((game.houses_left, game.hotels_left), (28, 11));
    assert_eq!(cash(&game, 0), 1600);
    let reason = refused(&mut game, 0, Action::Sell(39));
    assert_eq!(reason, "sell evenly: another street of the group has more buildings than Boardwalk");
    act(&mut game, 0, Action::Sell(37));
    act(&mut game, 0, Action::Sell(39));
    assert_eq!((level(&game, 37), level(&game, 39)), (4, 3));
    assert_eq!((game.houses_left, game.hotels_left), (25, 12));
    assert_eq!(cash(&game, 0), 1800);
    game.validate().unwrap();
}

#[test]
fn a_hotel_cannot_be_broken_down_without_four_houses_in_the_bank() {
    let mut game = official(2);
    bank_with_3_houses(&mut game);
    give(&mut game, 0, &[37, 39]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    let reason = refused(&mut game, 0, Action::Sell(39));
    assert_eq!(
        reason,
        "the bank has 3 houses, 4 are needed to break down the hotel on Boardwalk: sell the group down instead"
    );
    let reason = refused(&mut game, 0, Action::SellDown { group: 7, levels: [2, 2, 0] });
    assert_eq!(reason, "the bank has 3 houses; this needs 4");
    let reason = refused(&mut game, 0, Action::SellDown { group: 7, levels: [0, 2, 0] });
    assert_eq!(reason, "the group must stay even: levels may differ by one at most");
    let reason = refused(&mut game, 0, Action::SellDown { group: 7, levels: [HOTEL, HOTEL, 0] });
    assert_eq!(reason, "nothing to sell");
    let reason = refused(&mut game, 0, Action::SellDown { group: 7, levels: [1, 1, 1] });
    assert_eq!(reason, "this group has only 2 streets");
    let reason = refused(&mut game, 0, Action::SellDown { group: 8, levels: [0, 0, 0] });
    assert_eq!(reason, "there is no colour group 8");
    let reason = refused(&mut game, 1, Action::SellDown { group: 7, levels: [0, 0, 0] });
    assert_eq!(reason, "you do not own the whole group");
    act(&mut game, 0, Action::SellDown { group: 7, levels: [1, 2, 0] });
    assert_eq!((level(&game, 37), level(&game, 39)), (1, 2));
    assert_eq!((game.houses_left, game.hotels_left), (0, 12));
    assert_eq!(cash(&game, 0), 1500 + 4 * 100 + 3 * 100);
    game.validate().unwrap();
}

#[test]
fn selling_a_hotel_group_down_to_nothing() {
    let mut game = official(2);
    bank_with_3_houses(&mut game);
    give(&mut game, 0, &[37, 39]);
    set_level(&mut game, 37, HOTEL);
    set_level(&mut game, 39, HOTEL);
    act(&mut game, 0, Action::SellDown { group: 7, levels: [0, 0, 0] });
    assert_eq!((level(&game, 37), level(&game, 39)), (0, 0));
    assert_eq!((game.houses_left, game.hotels_left), (3, 12));
    assert_eq!(cash(&game, 0), 1500 + 2 * 5 * 100);
    game.validate().unwrap();
}

/// Seat 0 owns light blue (unbuilt); seat 1 owns pink (unbuilt) and brown 4/4, orange 4/4/4,
/// red 4/4/3: 31 houses out, 1 left in the bank, and both seats can build.
fn shortage() -> Game {
    let mut game = light_blue_owner();
    give(&mut game, 1, &[11, 13, 14, 1, 3, 16, 18, 19, 21, 23, 24]);
    for sq in [1, 3, 16, 18, 19, 21, 23] {
        set_level(&mut game, sq, 4);
    }
    set_level(&mut game, 24, 3);
    assert_eq!(game.houses_left, 1);
    game.validate().unwrap();
    game
}

#[test]
fn the_last_house_is_auctioned_when_several_players_can_build() {
    let mut game = shortage();
    act(&mut game, 0, Action::Build(6));
    assert_eq!(
        game.auction,
        Some(Auction {
            lot: Lot::Building { hotel: false, requester: 0, square: 6 },
            high_bid: 0,
            high_bidder: 0,
            bidders: 0b11,
            first: 0,
            after_landing: false
        })
    );
    assert_eq!(level(&game, 6), 0);
    assert_eq!(game.actor(), Some(1));
    // The bid is a premium on top of the cheapest building seat 1 could place (100).
    assert_eq!(game.bid_range(1), Some((1, 1400)));
    act(&mut game, 1, Action::Bid(30));
    assert_eq!(game.actor(), Some(0));
    act(&mut game, 0, Action::Bid(40));
    act(&mut game, 1, Action::Pass);
    assert!(game.auction.is_none());
    assert_eq!(level(&game, 6), 1);
    assert_eq!(game.houses_left, 0);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 - 40 - 50, 1500));
    assert_eq!(game.placing, None);
    game.validate().unwrap();
}

#[test]
fn the_winner_of_a_shortage_auction_places_the_house() {
    let mut game = shortage();
    act(&mut game, 0, Action::Build(6));
    act(&mut game, 1, Action::Bid(30));
    act(&mut game, 0, Action::Pass);
    assert_eq!(game.placing, Some(Placement { player: 1, hotel: false }));
    assert_eq!(cash(&game, 1), 1470);
    assert_eq!(game.actor(), Some(1));
    assert_eq!(refused(&mut game, 0, Action::Roll), "seat 1 must first place the building it won");
    assert_eq!(refused(&mut game, 1, Action::Build(6)), "you do not own Oriental Avenue");
    assert_eq!(
        refused(&mut game, 1, Action::Build(21)),
        "build evenly: another street of the group has fewer buildings than Kentucky Avenue"
    );
    // Orange has 4 houses: its next piece would be a hotel.
    assert_eq!(refused(&mut game, 1, Action::Build(16)), "you won a house");
    act(&mut game, 1, Action::Build(11));
    assert_eq!(level(&game, 11), 1);
    assert_eq!(level(&game, 6), 0);
    assert_eq!(game.houses_left, 0);
    assert_eq!(cash(&game, 1), 1370);
    assert_eq!(game.placing, None);
    assert_eq!(game.actor(), Some(0));
    game.validate().unwrap();
}

#[test]
fn no_shortage_auction_when_the_stock_covers_everyone_able() {
    // Two houses left for two seats able to build: no auction.
    let mut game = shortage();
    set_level(&mut game, 23, 3);
    assert_eq!(game.houses_left, 2);
    act(&mut game, 0, Action::Build(6));
    assert!(game.auction.is_none());
    assert_eq!((level(&game, 6), game.houses_left, cash(&game, 0)), (1, 1, 1450));

    // One house left, but seat 1 cannot pay for a house: no auction.
    let mut game = shortage();
    set_cash(&mut game, 1, 99);
    act(&mut game, 0, Action::Build(6));
    assert!(game.auction.is_none());
    assert_eq!((level(&game, 6), game.houses_left, cash(&game, 0)), (1, 0, 1450));
}

#[test]
fn the_last_hotel_is_auctioned_when_several_players_can_build_one() {
    let mut game = official(2);
    let eleven = [16, 18, 19, 21, 23, 24, 26, 27, 29, 31, 32];
    give(&mut game, 1, &eleven);
    give(&mut game, 1, &[34]);
    for sq in eleven {
        set_level(&mut game, sq, HOTEL);
    }
    set_level(&mut game, 34, 4);
    give(&mut game, 0, &[37, 39]);
    set_level(&mut game, 37, 4);
    set_level(&mut game, 39, 4);
    assert_eq!(game.hotels_left, 1);
    game.validate().unwrap();
    act(&mut game, 0, Action::Build(39));
    assert_eq!(game.auction.map(|a| a.lot), Some(Lot::Building { hotel: true, requester: 0, square: 39 }));
    act(&mut game, 1, Action::Pass);
    assert_eq!(level(&game, 39), HOTEL);
    assert_eq!(game.hotels_left, 0);
    assert_eq!(cash(&game, 0), 1300);
    game.validate().unwrap();
}

#[test]
fn speed_preset_needs_three_houses_before_a_hotel() {
    let mut game = dealt(2, preset("speed"), &[6, 1, 8, 3]);
    give(&mut game, 0, &[9]);
    set_cash(&mut game, 0, 1500);
    for (sq, l) in [(6, 3), (8, 3), (9, 2)] {
        set_level(&mut game, sq, l);
    }
    assert_eq!(game.houses_left, 24);
    act(&mut game, 0, Action::Build(9));
    assert_eq!(level(&game, 9), 3);
    act(&mut game, 0, Action::Build(6));
    assert_eq!(level(&game, 6), HOTEL);
    assert_eq!((game.houses_left, game.hotels_left), (26, 11));
    assert_eq!(cash(&game, 0), 1400);
    // The hotel is worth 3 houses + itself: 4 x 50.
    assert_eq!(game.building_cost(prop(6) as u8), 200);
    act(&mut game, 0, Action::Sell(6));
    assert_eq!(level(&game, 6), 3);
    assert_eq!((game.houses_left, game.hotels_left), (23, 12));
    assert_eq!(cash(&game, 0), 1425);
    game.validate().unwrap();
}

#[test]
fn free_building_has_no_even_rule_and_no_stock_limit() {
    let mut game = started(2, lanopoly_engine::Rules::default().with_free_building());
    give(&mut game, 0, &[6, 8, 9]);
    set_cash(&mut game, 0, 10_000);
    for _ in 0..4 {
        act(&mut game, 0, Action::Build(6));
    }
    assert_eq!(levels(&game, &LIGHT_BLUE), [4, 0, 0]);
    assert_eq!(cash(&game, 0), 9800);
    // Far more than 32 houses over the board.
    let mut game = started(2, lanopoly_engine::Rules::default().with_free_building());
    let streets = [1, 3, 6, 8, 9, 11, 13, 14, 16];
    give(&mut game, 0, &[1, 3, 6, 8, 9, 11, 13, 14, 16, 18, 19]);
    set_cash(&mut game, 0, 100_000);
    for sq in streets {
        for _ in 0..4 {
            act(&mut game, 0, Action::Build(sq));
        }
    }
    assert_eq!(game.buildings_of(0), (36, 0));
}
