//! Scenario tests: every card of both classic decks, applied after landing on a card square.

mod common;
use common::*;

use lanopoly_engine::state::Pending;
use lanopoly_engine::{Action, BoardId, Deck, Game, Outcome, Phase, Rules, HOTEL, NOBODY};

const CHANCE: [u8; 3] = [7, 22, 36];
const CHEST: [u8; 3] = [2, 17, 33];

/// Seat 0 has just landed on the card square `square` (from 7 squares back with 3 + 4) and waits
/// for its card. Cash is reset to 1500 if the landing passed GO.
fn at_card(players: u8, square: u8) -> Game {
    at_card_with(players, square, automatic_rent())
}

fn at_card_with(players: u8, square: u8, rules: Rules) -> Game {
    let mut game = started(players, rules);
    land(&mut game, (square + 33) % 40, 3, 4);
    set_cash(&mut game, 0, 1500);
    let deck = if CHANCE.contains(&square) { Deck::Chance } else { Deck::CommunityChest };
    assert_eq!(game.pending, Some(Pending::Card(deck)));
    assert_eq!(pos(&game, 0), square);
    game.take_events();
    game
}

fn drawn(game: &Game, deck: Deck) -> u16 {
    game.decks[deck as usize].drawn
}

/// Cards that only move money: (deck, index, change of seat 0's cash).
const MONEY_CARDS: [(Deck, u8, i32); 18] = [
    (Deck::Chance, 6, 50),
    (Deck::Chance, 11, -15),
    (Deck::Chance, 14, 150),
    (Deck::CommunityChest, 1, 200),
    (Deck::CommunityChest, 2, -50),
    (Deck::CommunityChest, 3, 50),
    (Deck::CommunityChest, 6, 20),
    (Deck::CommunityChest, 8, 100),
    (Deck::CommunityChest, 9, 100),
    (Deck::CommunityChest, 10, -100),
    (Deck::CommunityChest, 11, -50),
    (Deck::CommunityChest, 12, 25),
    (Deck::CommunityChest, 14, 10),
    (Deck::CommunityChest, 15, 100),
    // Repairs with no buildings cost nothing.
    (Deck::Chance, 10, 0),
    (Deck::CommunityChest, 13, 0),
    // Pay / collect each player, 2 players.
    (Deck::Chance, 13, -50),
    (Deck::CommunityChest, 7, 10),
];

#[test]
fn money_cards_from_every_card_square() {
    for (deck, card, delta) in MONEY_CARDS {
        let squares = if deck == Deck::Chance { CHANCE } else { CHEST };
        for square in squares {
            let mut game = at_card(2, square);
            draw(&mut game, card);
            let what = format!("{deck:?} card {card} on square {square}");
            assert_eq!(cash(&game, 0) as i32, 1500 + delta, "{what}");
            let between_players = matches!((deck, card), (Deck::Chance, 13) | (Deck::CommunityChest, 7));
            assert_eq!(cash(&game, 1) as i32, 1500 - if between_players { delta } else { 0 }, "{what}");
            assert_eq!(pos(&game, 0), square, "{what}");
            assert_eq!(game.phase, Phase::AfterRoll, "{what}");
            assert_eq!(drawn(&game, deck), 1 << card, "{what}");
            assert_eq!(game.decks[deck as usize].held, 0, "{what}");
            assert!(game.debts.is_empty(), "{what}");
        }
    }
}

#[test]
fn chance_0_advance_to_go() {
    for square in CHANCE {
        let mut game = at_card(2, square);
        draw(&mut game, 0);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (0, 1700), "from {square}");
        assert_eq!(game.phase, Phase::AfterRoll);
    }
}

#[test]
fn chest_0_advance_to_go() {
    for square in CHEST {
        let mut game = at_card(2, square);
        draw(&mut game, 0);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (0, 1700), "from {square}");
    }
}

#[test]
fn chance_1_advance_to_illinois_avenue() {
    for (square, salary) in [(7, 0), (22, 0), (36, 200)] {
        let mut game = at_card(2, square);
        draw(&mut game, 1);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (24, 1500 + salary), "from {square}");
        assert_eq!(game.phase, Phase::BuyDecision { property: prop(24) as u8 });
    }
    // Owned: pay its rent (20).
    let mut game = at_card(2, 36);
    give(&mut game, 1, &[24]);
    draw(&mut game, 1);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1680, 1520));
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn chance_2_advance_to_st_charles_place() {
    for (square, salary) in [(7, 0), (22, 200), (36, 200)] {
        let mut game = at_card(2, square);
        draw(&mut game, 2);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (11, 1500 + salary), "from {square}");
        assert_eq!(game.phase, Phase::BuyDecision { property: prop(11) as u8 });
    }
}

#[test]
fn chance_3_and_4_nearest_railway_unowned_can_be_bought() {
    for card in [3, 4] {
        for (square, railway, salary) in [(7, 15, 0), (22, 25, 0), (36, 5, 200)] {
            let mut game = at_card(2, square);
            draw(&mut game, card);
            assert_eq!((pos(&game, 0), cash(&game, 0)), (railway, 1500 + salary), "card {card} from {square}");
            assert_eq!(game.phase, Phase::BuyDecision { property: prop(railway) as u8 });
        }
    }
}

#[test]
fn chance_3_and_4_nearest_railway_pays_twice_the_rent() {
    for card in [3, 4] {
        // Owner has two railways: rent 50, paid twice.
        for (square, railway, salary) in [(7, 15, 0), (22, 25, 0), (36, 5, 200)] {
            let mut game = at_card(2, square);
            give(&mut game, 1, &[railway, if railway == 35 { 5 } else { 35 }]);
            draw(&mut game, card);
            assert_eq!(pos(&game, 0), railway);
            assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 + salary - 100, 1600), "card {card} from {square}");
            assert_eq!(game.phase, Phase::AfterRoll);
        }
    }
}

#[test]
fn nearest_railway_declined_is_auctioned() {
    let mut game = at_card(2, 7);
    draw(&mut game, 3);
    act(&mut game, 0, Action::Decline);
    assert!(game.auction.is_some());
    act(&mut game, 0, Action::Pass);
    act(&mut game, 1, Action::Bid(150));
    assert_eq!(owner(&game, 15), 1);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn chance_5_nearest_utility_rolls_and_pays_ten_times() {
    for (square, utility, salary) in [(7, 12, 0), (22, 28, 0), (36, 12, 200)] {
        let mut game = at_card(2, square);
        give(&mut game, 1, &[utility]);
        draw(&mut game, 5);
        assert_eq!(pos(&game, 0), utility, "from {square}");
        assert_eq!(game.pending, Some(Pending::UtilityDice { property: prop(utility) as u8 }));
        assert_eq!(cash(&game, 0), 1500 + salary);
        game.apply_chance(Outcome::Dice(2, 5)).unwrap();
        assert_eq!((cash(&game, 0), cash(&game, 1)), (1500 + salary - 70, 1570), "from {square}");
        assert_eq!(game.phase, Phase::AfterRoll);
    }
}

#[test]
fn nearest_utility_pays_ten_times_even_when_both_are_owned_and_a_double_does_not_roll_again() {
    let mut game = at_card(2, 22);
    give(&mut game, 1, &[12, 28]);
    draw(&mut game, 5);
    game.apply_chance(Outcome::Dice(3, 3)).unwrap();
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1440, 1560));
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(game.doubles, 0);
}

#[test]
fn nearest_utility_unowned_can_be_bought_and_own_or_mortgaged_pays_nothing() {
    let mut game = at_card(2, 7);
    draw(&mut game, 5);
    assert_eq!(game.pending, None);
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(12) as u8 });

    let mut game = at_card(2, 7);
    give(&mut game, 0, &[12]);
    draw(&mut game, 5);
    assert_eq!(game.pending, None);
    assert_eq!((cash(&game, 0), game.phase), (1500, Phase::AfterRoll));

    let mut game = at_card(2, 7);
    give(&mut game, 1, &[12]);
    set_mortgaged(&mut game, 12);
    draw(&mut game, 5);
    assert_eq!(game.pending, None);
    assert_eq!((cash(&game, 0), cash(&game, 1), game.phase), (1500, 1500, Phase::AfterRoll));
}

#[test]
fn chance_7_get_out_of_jail_is_kept() {
    let mut game = at_card(2, 22);
    draw(&mut game, 7);
    assert_eq!(game.players[0].jail_cards, 0b01);
    assert_eq!(game.decks[0].held, 1 << 7);
    assert_eq!(game.decks[0].drawn, 1 << 7);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AfterRoll);
    // While held it cannot be drawn again.
    assert!(game.decks[0].remaining() & (1 << 7) == 0);
}

#[test]
fn chest_4_get_out_of_jail_is_kept() {
    let mut game = at_card(2, 33);
    draw(&mut game, 4);
    assert_eq!(game.players[0].jail_cards, 0b10);
    assert_eq!(game.decks[1].held, 1 << 4);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn chance_8_go_back_3_from_7_pays_income_tax() {
    let mut game = at_card(2, 7);
    draw(&mut game, 8);
    assert_eq!((pos(&game, 0), cash(&game, 0)), (4, 1300));
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn chance_8_go_back_3_from_22_lands_on_new_york_avenue() {
    let mut game = at_card(2, 22);
    give(&mut game, 1, &[19]);
    draw(&mut game, 8);
    assert_eq!(pos(&game, 0), 19);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1484, 1516));
}

#[test]
fn chance_8_go_back_3_from_36_draws_community_chest() {
    let mut game = at_card(2, 36);
    draw(&mut game, 8);
    assert_eq!(pos(&game, 0), 33);
    assert_eq!(game.pending, Some(Pending::Card(Deck::CommunityChest)));
    draw(&mut game, 1);
    assert_eq!(cash(&game, 0), 1700);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn go_to_jail_cards() {
    for (deck, card, squares) in [(Deck::Chance, 9, CHANCE), (Deck::CommunityChest, 5, CHEST)] {
        for square in squares {
            let mut game = at_card(2, square);
            draw(&mut game, card);
            assert_eq!(pos(&game, 0), 10, "{deck:?} from {square}");
            assert!(in_jail(&game, 0));
            assert_eq!(cash(&game, 0), 1500, "no salary from {square}");
            assert_eq!(game.phase, Phase::AfterRoll);
        }
    }
}

#[test]
fn a_go_to_jail_card_after_a_double_ends_the_turn() {
    let mut game = official(2);
    land(&mut game, 0, 1, 1); // 2 Community Chest on a double
    draw(&mut game, 5);
    assert!(in_jail(&game, 0));
    assert_eq!(game.doubles, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn repairs_count_houses_and_hotels() {
    // Seat 0: brown with 2 houses each (4 houses), dark blue with hotels (2 hotels).
    let setup = |square| {
        let mut game = at_card(2, square);
        give(&mut game, 0, &[1, 3, 37, 39]);
        for sq in [1, 3] {
            set_level(&mut game, sq, 2);
        }
        for sq in [37, 39] {
            set_level(&mut game, sq, HOTEL);
        }
        // Another player's buildings do not count.
        give(&mut game, 1, &[6, 8, 9]);
        set_level(&mut game, 6, 1);
        set_level(&mut game, 8, 1);
        set_level(&mut game, 9, 1);
        game
    };
    let mut game = setup(7);
    draw(&mut game, 10);
    assert_eq!(cash(&game, 0), 1500 - (4 * 25 + 2 * 100));
    let mut game = setup(17);
    draw(&mut game, 13);
    assert_eq!(cash(&game, 0), 1500 - (4 * 40 + 2 * 115));
    assert_eq!(cash(&game, 1), 1500);
}

#[test]
fn chance_12_reading_railroad_passes_go() {
    for square in CHANCE {
        let mut game = at_card(2, square);
        draw(&mut game, 12);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (5, 1700), "from {square}");
        assert_eq!(game.phase, Phase::BuyDecision { property: prop(5) as u8 });
    }
}

#[test]
fn chance_13_pay_each_player_50() {
    let mut game = at_card(4, 36);
    draw(&mut game, 13);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2), cash(&game, 3)], [1350, 1550, 1550, 1550]);
}

#[test]
fn chest_7_collect_10_from_each_player() {
    let mut game = at_card(4, 17);
    draw(&mut game, 7);
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2), cash(&game, 3)], [1530, 1490, 1490, 1490]);
}

#[test]
fn chance_15_advance_to_boardwalk() {
    for square in CHANCE {
        let mut game = at_card(2, square);
        draw(&mut game, 15);
        assert_eq!((pos(&game, 0), cash(&game, 0)), (39, 1500), "from {square}");
        assert_eq!(game.phase, Phase::BuyDecision { property: prop(39) as u8 });
    }
    let mut game = at_card(2, 36);
    give(&mut game, 1, &[39]);
    draw(&mut game, 15);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1450, 1550));
}

#[test]
fn a_drawn_card_cannot_come_up_again_in_the_cycle() {
    let mut game = at_card(2, 7);
    draw(&mut game, 6);
    end_turn(&mut game);
    land(&mut game, 15, 3, 4);
    let reason = refused_outcome(&mut game, Outcome::Card(6));
    assert_eq!(reason, "card 6 is not in the deck now");
    assert_eq!(game.chance_outcomes().len(), 15);
}

#[test]
fn paris_gare_de_lyon_card_goes_to_square_15() {
    let mut game = started_on(BoardId::Paris, 2, Rules::default());
    land(&mut game, 0, 3, 4);
    draw(&mut game, 12);
    assert_eq!((pos(&game, 0), cash(&game, 0)), (15, 1500));
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(15) as u8 });
    assert_eq!(game.square_name(15), "Gare de Lyon");

    let mut game = started_on(BoardId::Paris, 2, Rules::default());
    land(&mut game, 29, 3, 4);
    draw(&mut game, 12);
    assert_eq!((pos(&game, 0), cash(&game, 0)), (15, 1700));
    assert_eq!(owner(&game, 15), NOBODY);
}
