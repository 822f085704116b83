//! Scenario tests: round limit, timed games, starting deeds, rent claims.

mod common;
use common::*;

use lanopoly_engine::state::{Claim, Pending};
use lanopoly_engine::{Action, BoardId, Game, Outcome, Phase, RentClaim, Rules};

#[test]
fn the_round_limit_ends_the_game_and_the_richest_by_net_worth_wins() {
    let mut game = started(2, Rules { round_limit: 2, ..Rules::default() });
    // Seat 0: 1000 cash + brown (120) + two houses at cost (100) = 1220.
    give(&mut game, 0, &[1, 3]);
    set_level(&mut game, 1, 1);
    set_level(&mut game, 3, 1);
    set_cash(&mut game, 0, 1000);
    // Seat 1: more cash, 1040, + Park Place mortgaged at its value (175) = 1215.
    give(&mut game, 1, &[37]);
    set_mortgaged(&mut game, 37);
    set_cash(&mut game, 1, 1040);
    assert_eq!(game.net_worths(), vec![1220, 1215]);
    idle_turn(&mut game);
    idle_turn(&mut game);
    assert_eq!(game.round, 1);
    idle_turn(&mut game);
    assert!(!game.is_over());
    assert_eq!(game.turn_player, 1);
    idle_turn(&mut game);
    assert!(game.is_over());
    assert_eq!(game.round, 2);
    assert_eq!(game.phase, Phase::GameOver);
    assert_eq!(game.winner(), Some(0));
}

#[test]
fn paris_quick_ends_after_25_rounds() {
    let mut game = started(2, preset("paris-quick"));
    for _ in 0..49 {
        idle_turn(&mut game);
    }
    assert!(!game.is_over());
    assert_eq!(game.round, 24);
    land(&mut game, 0, 1, 3); // seat 1 pays 200 tax (into the jackpot)
    end_turn(&mut game);
    assert!(game.is_over());
    assert_eq!(game.winner(), Some(0));
}

#[test]
fn starting_deeds_are_dealt_and_paid_for() {
    let mut game = Game::new(2, BoardId::Classic, preset("speed")).unwrap();
    assert_eq!(game.phase, Phase::Dealing { seat: 0, dealt: 0 });
    assert_eq!(game.pending, Some(Pending::Deed));
    assert_eq!(game.actor(), None);
    let chances = game.chance_outcomes();
    assert_eq!(chances.len(), 28);
    assert!(chances.iter().all(|c| c.weight == 1 && c.total == 28));
    assert_eq!(refused_outcome(&mut game, Outcome::Dice(1, 2)), "the pending chance event needs a deed");
    game.apply_chance(Outcome::Deed(prop(39) as u8)).unwrap();
    assert_eq!((owner(&game, 39), cash(&game, 0)), (0, 1100));
    assert_eq!(game.phase, Phase::Dealing { seat: 1, dealt: 0 });
    assert_eq!(refused_outcome(&mut game, Outcome::Deed(prop(39) as u8)), "deed 27 is not with the bank");
    assert_eq!(game.chance_outcomes().len(), 27);
    game.apply_chance(Outcome::Deed(prop(1) as u8)).unwrap();
    assert_eq!((owner(&game, 1), cash(&game, 1)), (1, 1440));
    assert_eq!(game.phase, Phase::Dealing { seat: 0, dealt: 1 });
    game.apply_chance(Outcome::Deed(prop(5) as u8)).unwrap();
    game.apply_chance(Outcome::Deed(prop(12) as u8)).unwrap();
    assert_eq!((owner(&game, 5), owner(&game, 12)), (0, 1));
    assert_eq!((cash(&game, 0), cash(&game, 1)), (900, 1290));
    assert_eq!(game.phase, Phase::Ordering { contenders: 0b11, next: 0, best: 0, leaders: 0 });
    assert_eq!(game.pending, Some(Pending::OrderDice));
    assert_eq!(game.holdings(0).count_ones() + game.holdings(1).count_ones(), 4);
}

#[test]
fn timed_games_deal_two_deeds_and_end_by_an_explicit_action() {
    let mut game = dealt(2, preset("timed"), &[39, 1, 6, 3]);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1000, 1380));
    assert_eq!(game.net_worths(), vec![1500, 1500]);
    land(&mut game, 0, 1, 3); // seat 0 pays income tax: net worth 1300
    act(&mut game, 1, Action::EndGame);
    assert!(game.is_over());
    assert_eq!(game.winner(), Some(1));
    assert_eq!(refused(&mut game, 0, Action::EndGame), "the game is over");
}

#[test]
fn only_a_timed_game_can_be_ended_early() {
    let mut game = official(2);
    assert_eq!(refused(&mut game, 0, Action::EndGame), "only a timed game can be ended early");
}

fn claiming(rent_claim: RentClaim) -> Game {
    let mut game = started(3, Rules { rent_claim, ..Rules::default() });
    give(&mut game, 2, &[3]);
    land(&mut game, 0, 1, 2);
    assert_eq!(
        game.claims,
        vec![Claim {
            owner: 2,
            payer: 0,
            square: 3,
            amount: 4,
            lapses_at_turn: game.turn + 1 + (rent_claim == RentClaim::BeforeSecondNextRoll) as u32
        }]
    );
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1500, 1500));
    assert_eq!(game.phase, Phase::AfterRoll);
    game
}

#[test]
fn rent_must_be_claimed_before_the_next_roll() {
    let mut game = claiming(RentClaim::BeforeNextRoll);
    assert_eq!(refused(&mut game, 0, Action::ClaimRent(3)), "no rent is due to you on square 3");
    assert_eq!(refused(&mut game, 2, Action::ClaimRent(1)), "no rent is due to you on square 1");
    act(&mut game, 2, Action::ClaimRent(3));
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1496, 1504));
    assert!(game.claims.is_empty());
    assert_eq!(refused(&mut game, 2, Action::ClaimRent(3)), "no rent is due to you on square 3");

    // Claimed after the payer's turn, before the next player rolls.
    let mut game = claiming(RentClaim::BeforeNextRoll);
    end_turn(&mut game);
    act(&mut game, 2, Action::ClaimRent(3));
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1496, 1504));
}

/// A claim taken from the front or the back of several open ones takes that one only, and
/// leaves the others in their order (the last one is popped, the others removed).
#[test]
fn a_claim_takes_its_own_rent_among_several() {
    let mut game = claiming(RentClaim::BeforeNextRoll);
    let first = game.claims[0];
    let second = Claim { owner: 1, payer: 0, square: 1, amount: 2, ..first };
    let third = Claim { owner: 1, payer: 0, square: 39, amount: 50, ..first };
    game.claims = vec![first, second, third];
    act(&mut game, 2, Action::ClaimRent(3));
    assert_eq!(game.claims, vec![second, third]);
    assert_eq!((cash(&game, 0), cash(&game, 1), cash(&game, 2)), (1496, 1500, 1504));
    act(&mut game, 1, Action::ClaimRent(39));
    assert_eq!(game.claims, vec![second]);
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1446, 1550));
    act(&mut game, 1, Action::ClaimRent(1));
    assert!(game.claims.is_empty());
    assert_eq!((cash(&game, 0), cash(&game, 1)), (1444, 1552));
}

#[test]
fn unclaimed_rent_lapses_at_the_next_roll() {
    let mut game = claiming(RentClaim::BeforeNextRoll);
    end_turn(&mut game);
    idle_turn(&mut game);
    assert!(game.claims.is_empty());
    assert_eq!(refused(&mut game, 2, Action::ClaimRent(3)), "no rent is due to you on square 3");
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1500, 1500));
}

#[test]
fn french_rule_rent_survives_the_next_roll_and_lapses_at_the_second() {
    let mut game = claiming(RentClaim::BeforeSecondNextRoll);
    end_turn(&mut game);
    idle_turn(&mut game);
    assert_eq!(game.claims.len(), 1);
    act(&mut game, 2, Action::ClaimRent(3));
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1496, 1504));

    let mut game = claiming(RentClaim::BeforeSecondNextRoll);
    end_turn(&mut game);
    idle_turn(&mut game);
    assert_eq!(game.turn_player, 2);
    act(&mut game, 2, Action::Roll);
    assert!(game.claims.is_empty());
    game.apply_chance(Outcome::Dice(1, 2)).unwrap();
    assert_eq!(refused(&mut game, 2, Action::ClaimRent(3)), "no rent is due to you on square 3");
    assert_eq!(cash(&game, 0), 1500);
}

#[test]
fn a_double_does_not_make_the_payer_s_own_rent_lapse() {
    let mut game = started(3, Rules { rent_claim: RentClaim::BeforeNextRoll, ..Rules::default() });
    give(&mut game, 2, &[6]);
    land(&mut game, 0, 3, 3); // Oriental Avenue on a double: rent 6 due
    assert_eq!(game.claims.len(), 1);
    roll(&mut game, 4, 6); // same turn
    assert_eq!(game.claims.len(), 1);
    act(&mut game, 2, Action::ClaimRent(6));
    assert_eq!((cash(&game, 0), cash(&game, 2)), (1494, 1506));
}

#[test]
fn rounds_still_count_after_the_starter_goes_bankrupt() {
    let mut game = started(3, Rules { round_limit: 1, ..Rules::default() });
    set_cash(&mut game, 0, 10);
    land(&mut game, 0, 1, 3);
    act(&mut game, 0, Action::DeclareBankruptcy);
    assert_eq!((game.turn_player, game.round), (1, 0));
    set_cash(&mut game, 2, 1600);
    idle_turn(&mut game);
    assert!(!game.is_over());
    idle_turn(&mut game);
    assert!(game.is_over());
    assert_eq!(game.round, 1);
    assert_eq!(game.winner(), Some(2));
}
