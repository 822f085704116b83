//! Scenario tests: going to jail, the ways out, and rent while in jail.

mod common;
use common::*;

use lanopoly_engine::event::JailExit;
use lanopoly_engine::state::Pending;
use lanopoly_engine::{Action, Deck, Event, Phase, Rules};

#[test]
fn go_to_jail_square_sends_straight_to_jail_without_salary() {
    let mut game = official(2);
    land(&mut game, 25, 2, 3);
    assert_eq!(pos(&game, 0), 10);
    assert!(in_jail(&game, 0));
    assert_eq!(game.players[0].jail_attempts, 0);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn go_to_jail_square_on_a_double_ends_the_turn() {
    let mut game = official(2);
    land(&mut game, 28, 1, 1);
    assert_eq!(pos(&game, 0), 10);
    assert!(in_jail(&game, 0));
    assert_eq!(game.doubles, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(refused(&mut game, 0, Action::Roll), "you cannot roll now");
}

#[test]
fn landing_on_jail_by_a_normal_move_is_just_visiting() {
    let mut game = official(2);
    land(&mut game, 4, 2, 4);
    assert_eq!(pos(&game, 0), 10);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(refused(&mut game, 0, Action::PayJailFine), "jail options come before your roll");
    end_turn(&mut game);
    assert_eq!(game.turn_player, 1);
}

#[test]
fn pay_the_fine_then_roll_normally() {
    let mut game = official(2);
    jail(&mut game, 0);
    act(&mut game, 0, Action::PayJailFine);
    assert_eq!(cash(&game, 0), 1450);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.phase, Phase::AwaitRoll);
    // A double after paying is an ordinary double: move and roll again.
    roll(&mut game, 5, 5);
    assert_eq!(pos(&game, 0), 20);
    assert_eq!(game.doubles, 1);
    assert_eq!(game.phase, Phase::AwaitRoll);
    roll(&mut game, 1, 2); // 23 Indiana Avenue
    assert_eq!(pos(&game, 0), 23);
    assert_eq!(game.phase, Phase::BuyDecision { property: prop(23) as u8 });
}

#[test]
fn the_fine_needs_the_cash() {
    let mut game = official(2);
    jail(&mut game, 0);
    set_cash(&mut game, 0, 49);
    assert_eq!(refused(&mut game, 0, Action::PayJailFine), "the fine is 50: raise the money first");
}

#[test]
fn jail_options_are_refused_when_not_in_jail_or_without_a_card() {
    let mut game = official(2);
    assert_eq!(refused(&mut game, 0, Action::PayJailFine), "you are not in jail");
    jail(&mut game, 0);
    assert_eq!(refused(&mut game, 0, Action::UseJailCard), "you have no \"get out of jail\" card");
    assert_eq!(refused(&mut game, 1, Action::PayJailFine), "jail options come before your roll");
}

#[test]
fn a_chance_jail_card_is_kept_then_used_and_goes_back_to_its_deck() {
    let mut game = official(2);
    land(&mut game, 0, 3, 4);
    draw(&mut game, 7);
    assert_eq!(game.players[0].jail_cards, 0b01);
    assert_eq!(game.decks[Deck::Chance as usize].held, 1 << 7);
    assert_eq!(game.jail_card_holder(Deck::Chance), Some(0));
    end_turn(&mut game);
    idle_turn(&mut game);
    jail(&mut game, 0);
    act(&mut game, 0, Action::UseJailCard);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.players[0].jail_cards, 0);
    assert_eq!(game.decks[Deck::Chance as usize].held, 0);
    assert_eq!(game.jail_card_holder(Deck::Chance), None);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AwaitRoll);
    roll(&mut game, 4, 6);
    assert_eq!(pos(&game, 0), 20);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn a_community_chest_jail_card_goes_back_to_its_own_deck() {
    let mut game = official(2);
    land(&mut game, 10, 3, 4); // 17 Community Chest
    draw(&mut game, 4);
    assert_eq!(game.players[0].jail_cards, 0b10);
    assert_eq!(game.decks[Deck::CommunityChest as usize].held, 1 << 4);
    end_turn(&mut game);
    idle_turn(&mut game);
    jail(&mut game, 0);
    act(&mut game, 0, Action::UseJailCard);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.players[0].jail_cards, 0);
    assert_eq!(game.decks[Deck::CommunityChest as usize].held, 0);
    assert_eq!(game.decks[Deck::Chance as usize].held, 0);
}

#[test]
fn a_double_leaves_jail_and_moves_without_an_extra_roll() {
    let mut game = official(2);
    jail(&mut game, 0);
    game.take_events();
    roll(&mut game, 5, 5);
    assert!(!in_jail(&game, 0));
    assert_eq!(pos(&game, 0), 20);
    assert_eq!(game.doubles, 0);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert_eq!(cash(&game, 0), 1500);
    assert!(game.take_events().contains(&Event::LeftJail { player: 0, how: JailExit::Double }));
    assert_eq!(refused(&mut game, 0, Action::Roll), "you cannot roll now");
}

#[test]
fn three_failures_pay_50_and_move_by_the_third_roll() {
    let mut game = official(2);
    jail(&mut game, 0);
    roll(&mut game, 1, 2);
    assert!(in_jail(&game, 0));
    assert_eq!((pos(&game, 0), game.players[0].jail_attempts), (10, 1));
    assert_eq!(game.phase, Phase::AfterRoll);
    end_turn(&mut game);
    idle_turn(&mut game);
    roll(&mut game, 2, 5);
    assert!(in_jail(&game, 0));
    assert_eq!((pos(&game, 0), game.players[0].jail_attempts), (10, 2));
    assert_eq!(cash(&game, 0), 1500);
    end_turn(&mut game);
    idle_turn(&mut game);
    game.take_events();
    roll(&mut game, 4, 6);
    assert!(!in_jail(&game, 0));
    assert_eq!(game.players[0].jail_attempts, 0);
    assert_eq!(pos(&game, 0), 20);
    assert_eq!(cash(&game, 0), 1450);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert!(game.take_events().contains(&Event::LeftJail { player: 0, how: JailExit::ThirdFailure }));
}

#[test]
fn third_failure_landing_on_a_card_square_draws() {
    let mut game = official(2);
    jail(&mut game, 0);
    game.players[0].jail_attempts = 2;
    roll(&mut game, 3, 4); // 17 Community Chest
    assert_eq!(cash(&game, 0), 1450);
    assert_eq!(pos(&game, 0), 17);
    assert_eq!(game.pending, Some(Pending::Card(Deck::CommunityChest)));
}

#[test]
fn a_jailed_owner_still_collects_rent() {
    let mut game = official(2);
    give(&mut game, 0, &[3]);
    jail(&mut game, 0);
    roll(&mut game, 1, 2); // stays
    end_turn(&mut game);
    land(&mut game, 0, 1, 2); // Baltic Avenue, rent 4, claimed from jail
    act(&mut game, 0, Action::ClaimRent(3));
    assert_eq!(cash(&game, 1), 1496);
    assert_eq!(cash(&game, 0), 1504);
    assert_eq!(game.phase, Phase::AfterRoll);
}

#[test]
fn a_jailed_owner_collects_nothing_with_the_option() {
    let mut game = started(2, Rules { jailed_owner_collects: false, ..Rules::default() });
    give(&mut game, 0, &[3]);
    jail(&mut game, 0);
    roll(&mut game, 1, 2);
    end_turn(&mut game);
    land(&mut game, 0, 1, 2);
    assert_eq!(cash(&game, 1), 1500);
    assert_eq!(cash(&game, 0), 1500);
    assert_eq!(game.phase, Phase::AfterRoll);
    assert!(game.debts.is_empty() && game.claims.is_empty());
}

#[test]
fn a_jailed_player_builds_mortgages_and_trades() {
    let mut game = official(2);
    give(&mut game, 1, &[1, 3, 5]);
    jail(&mut game, 1);
    act(&mut game, 1, Action::Build(1));
    assert_eq!(level(&game, 1), 1);
    act(&mut game, 1, Action::Mortgage(5));
    assert_eq!(cash(&game, 1), 1500 - 50 + 100);
    let give = lanopoly_engine::Bundle { cash: 10, ..Default::default() };
    act(&mut game, 1, Action::ProposeTrade { to: 0, give, get: Default::default() });
    act(&mut game, 0, Action::AcceptTrade { from: 1 });
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1510, 1540));
    assert!(in_jail(&game, 1));
}
