//! Scenario tests: GO, doubles, taxes, Free Parking, who starts.

mod common;
use common::*;

use lanopoly_engine::state::Pending;
use lanopoly_engine::{Action, BoardId, Deck, Event, Game, Outcome, Party, Phase, Reason, Rules};

fn salaries(events: &[Event]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Payment { from: Party::Bank, amount, reason: Reason::Salary, .. } => Some(*amount),
            _ => None,
        })
        .collect()
}

#[test]
fn passing_go_pays_200_once() {
    let mut game = official(2);
    // 39 + 5 = 44 -> square 4 (Income Tax): salary then tax.
    land(&mut game, 39, 2, 3);
    let events = game.take_events();
    assert_eq!(salaries(&events), vec![200]);
    assert_eq!(events.iter().filter(|e| matches!(e, Event::PassedGo { player: 0 })).count(), 1);
    assert_eq!(pos(&game, 0), 4);
    assert_eq!(cash(&game, 0), 1500 + 200 - 200);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn passing_go_to_a_property_pays_200() {
    let mut game = official(2);
    land(&mut game, 38, 5, 6); // 49 -> 9 Connecticut Avenue
    assert_eq!(pos(&game, 0), 9);
    assert_eq!(cash(&game, 0), 1700);
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(9) as u8 });
}

#[test]
fn landing_on_go_pays_200() {
    let mut game = official(2);
    land(&mut game, 33, 3, 4);
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 1700);
    assert_eq!(salaries(&game.take_events()), vec![200]);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn landing_on_go_pays_400_only_with_the_option() {
    let rules = Rules { double_go_on_landing: true, ..Rules::default() };
    let mut game = started(2, rules);
    land(&mut game, 33, 3, 4);
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 1900);

    // Passing (not landing) still pays 200 with the option on.
    let mut game = started(2, rules);
    land(&mut game, 38, 5, 6);
    assert_eq!(pos(&game, 0), 9);
    assert_eq!(cash(&game, 0), 1700);
}

#[test]
fn paris_house_preset_starts_with_2000_and_pays_400_on_go() {
    let mut game = started(3, preset("paris-house"));
    assert_eq!([cash(&game, 0), cash(&game, 1), cash(&game, 2)], [2000, 2000, 2000]);
    land(&mut game, 35, 2, 3);
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 2400);
}

#[test]
fn advance_to_go_card_pays_200() {
    let mut game = official(2);
    land(&mut game, 0, 3, 4);
    assert_eq!(game.pending, Some(Pending::Card(Deck::Chance)));
    draw(&mut game, 0);
    assert_eq!(pos(&game, 0), 0);
    assert_eq!(cash(&game, 0), 1700);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn a_double_rolls_again_and_a_plain_roll_ends_the_move() {
    let mut game = official(2);
    land(&mut game, 0, 2, 2); // Income Tax
    assert_eq!(cash(&game, 0), 1300);
    assert_eq!(game.doubles, 1);
    assert_eq!(game.phase, Phase::AwaitRoll);
    assert_eq!(game.actor(), Some(0));
    let reason = refused(&mut game, 0, Action::EndTurn);
    assert_eq!(reason, "you must roll first");
    roll(&mut game, 1, 5); // 4 + 6 = 10, just visiting
    assert_eq!(pos(&game, 0), 10);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.doubles, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
    let reason = refused(&mut game, 0, Action::Roll);
    assert_eq!(reason, "you cannot roll now");
    end_turn(&mut game);
    assert_eq!(game.turn_player, 1);
    assert_eq!(game.actor(), Some(1));
}

#[test]
fn third_double_goes_to_jail_without_the_third_move() {
    let mut game = official(2);
    land(&mut game, 4, 3, 3); // -> 10 just visiting
    assert_eq!((pos(&game, 0), game.doubles, game.phase), (10, 1, Phase::AwaitRoll));
    roll(&mut game, 5, 5); // -> 20 Free Parking
    assert_eq!((pos(&game, 0), game.doubles, game.phase), (20, 2, Phase::AwaitRoll));
    game.take_events();
    roll(&mut game, 6, 6); // would be 32: jail instead
    assert_eq!(pos(&game, 0), 10);
    assert!(in_jail(&game, 0));
    assert_eq!(game.doubles, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(cash(&game, 0), 1500);
    let events = game.take_events();
    assert!(!events.iter().any(|e| matches!(e, Event::Moved { to: 32, .. })));
    assert!(events.contains(&Event::WentToJail { player: 0 }));
    assert_eq!(refused(&mut game, 0, Action::Roll), "you cannot roll now");
}

#[test]
fn the_doubles_counter_restarts_each_turn() {
    let mut game = official(2);
    land(&mut game, 4, 3, 3); // 10
    roll(&mut game, 5, 5); // 20
    roll(&mut game, 4, 6); // 30: Go To Jail (a plain roll)
    assert!(in_jail(&game, 0));
    assert_eq!(game.doubles, 0);
    end_turn(&mut game);
    // Seat 1's first double is its first, not a third.
    land(&mut game, 4, 3, 3);
    assert_eq!(game.doubles, 1);
    assert!(!in_jail(&game, 1));
    assert_eq!(pos(&game, 1), 10);
    assert_eq!(game.phase, Phase::AwaitRoll);
    roll(&mut game, 5, 5);
    assert_eq!(game.doubles, 2);
    assert_eq!(pos(&game, 1), 20);
    assert!(!in_jail(&game, 1));
}

#[test]
fn income_tax_is_200_and_luxury_tax_100() {
    let mut game = official(2);
    land(&mut game, 0, 1, 3);
    assert_eq!(pos(&game, 0), 4);
    assert_eq!(cash(&game, 0), 1300);
    assert_eq!(game.jackpot, 0);
    end_turn(&mut game);
    land(&mut game, 35, 1, 2);
    assert_eq!(pos(&game, 1), 38);
    assert_eq!(cash(&game, 1), 1400);
    assert_eq!(game.jackpot, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn free_parking_pays_nothing_by_default() {
    let mut game = official(2);
    land(&mut game, 0, 1, 3); // tax 200 to the bank
    end_turn(&mut game);
    land(&mut game, 10, 4, 6);
    assert_eq!(pos(&game, 1), 20);
    assert_eq!(cash(&game, 1), 1500);
    assert_eq!(game.jackpot, 0);
}

#[test]
fn free_parking_jackpot_collects_taxes_and_fines() {
    let rules = Rules { free_parking_jackpot: true, ..Rules::default() };
    let mut game = started(2, rules);
    land(&mut game, 0, 1, 3); // income tax 200
    assert_eq!((cash(&game, 0), game.jackpot), (1300, 200));
    end_turn(&mut game);
    jail(&mut game, 1);
    act(&mut game, 1, Action::PayJailFine);
    assert_eq!((cash(&game, 1), game.jackpot), (1450, 250));
    land(&mut game, 35, 1, 2); // luxury tax 100
    assert_eq!((cash(&game, 1), game.jackpot), (1350, 350));
    end_turn(&mut game);
    // A card fine too: Chance "speeding fine 15".
    land(&mut game, 0, 3, 4);
    draw(&mut game, 11);
    assert_eq!((cash(&game, 0), game.jackpot), (1285, 365));
    end_turn(&mut game);
    land(&mut game, 10, 4, 6);
    assert_eq!(pos(&game, 1), 20);
    assert_eq!((cash(&game, 1), game.jackpot), (1350 + 365, 0));
}

#[test]
fn paris_quick_preset_has_the_jackpot() {
    let mut game = started(2, preset("paris-quick"));
    land(&mut game, 0, 1, 3);
    assert_eq!(game.jackpot, 200);
    end_turn(&mut game);
    land(&mut game, 10, 4, 6);
    assert_eq!((cash(&game, 1), game.jackpot), (1700, 0));
}

#[test]
fn ties_for_the_highest_order_roll_roll_again() {
    let mut game = Game::new(3, BoardId::Classic, Rules::default()).unwrap();
    game.apply_chance(Outcome::Dice(3, 5)).unwrap(); // seat 0: 8
    game.apply_chance(Outcome::Dice(2, 6)).unwrap(); // seat 1: 8
    game.apply_chance(Outcome::Dice(1, 4)).unwrap(); // seat 2: 5
    assert!(game.is_chance_node());
    assert_eq!(game.phase, Phase::Ordering { contenders: 0b011, next: 0, best: 0, leaders: 0 });
    assert_eq!(game.actor(), None);
    game.apply_chance(Outcome::Dice(1, 2)).unwrap(); // seat 0: 3
    assert!(game.is_chance_node());
    game.apply_chance(Outcome::Dice(4, 6)).unwrap(); // seat 1: 10
    assert!(!game.is_chance_node());
    assert_eq!(game.starter, 1);
    assert_eq!(game.turn_player, 1);
    assert_eq!(game.actor(), Some(1));
    assert_eq!(game.phase, Phase::AwaitRoll);
    // Play goes round the seats from the starter.
    idle_turn(&mut game);
    assert_eq!(game.turn_player, 2);
    idle_turn(&mut game);
    assert_eq!(game.turn_player, 0);
    assert_eq!(game.round, 0);
    idle_turn(&mut game);
    assert_eq!(game.turn_player, 1);
    assert_eq!(game.round, 1);
}

#[test]
fn a_three_way_tie_rolls_again_among_all_three() {
    let mut game = Game::new(4, BoardId::Classic, Rules::default()).unwrap();
    for dice in [Outcome::Dice(1, 1), Outcome::Dice(4, 5), Outcome::Dice(3, 6), Outcome::Dice(4, 5)] {
        game.apply_chance(dice).unwrap();
    }
    assert_eq!(game.phase, Phase::Ordering { contenders: 0b1110, next: 1, best: 0, leaders: 0 });
    for dice in [Outcome::Dice(2, 3), Outcome::Dice(2, 3), Outcome::Dice(1, 2)] {
        game.apply_chance(dice).unwrap();
    }
    // Seats 1 and 2 tie again at 5.
    assert_eq!(game.phase, Phase::Ordering { contenders: 0b0110, next: 1, best: 0, leaders: 0 });
    game.apply_chance(Outcome::Dice(1, 3)).unwrap();
    game.apply_chance(Outcome::Dice(1, 2)).unwrap();
    assert_eq!(game.starter, 1);
    assert_eq!(game.actor(), Some(1));
}

#[test]
fn moves_during_the_order_roll_are_refused() {
    let mut game = Game::new(2, BoardId::Classic, Rules::default()).unwrap();
    let reason = refused(&mut game, 0, Action::Roll);
    assert_eq!(reason, "waiting for a chance outcome (dice or a card)");
    let reason = refused_outcome(&mut game, Outcome::Dice(5, 2));
    assert_eq!(reason, "dice are 1 to 6, smaller first");
    refused_outcome(&mut game, Outcome::Card(0));
}

#[test]
fn only_the_turn_player_rolls() {
    let mut game = official(3);
    assert_eq!(refused(&mut game, 1, Action::Roll), "it is seat 0's turn");
    assert_eq!(refused(&mut game, 7, Action::Roll), "there is no seat 7");
}
