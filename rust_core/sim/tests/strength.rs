//! Strength and soundness of the heuristic bot.
//!
//! The strength test is meant for release builds (`cargo test -p lanopoly-sim --release --test
//! strength`): 2000 four-player games of one heuristic bot against three random bots. In debug
//! builds it plays fewer games, and `play()` asserts that every move the bots return is legal.

use lanopoly_engine::{RentClaim, Rules, PRESETS};
use lanopoly_sim::bots::{HeuristicBot, RandomBot};
use lanopoly_sim::Policy;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

mod common;
use common::{run_games, SEATS};

/// Games of the strength test: the full count in release, a smoke run in debug.
const STRENGTH_GAMES: u32 = if cfg!(debug_assertions) { 40 } else { 2000 };
/// Required share of wins for the heuristic bot against three random bots.
const MIN_WIN_RATE: f64 = 0.95;

/// The heuristic bot sits at seat `i % 4` in game `i`, so it plays every seat equally often.
fn one_heuristic_three_random(i: u32) -> Vec<Box<dyn Policy>> {
    (0..SEATS as u32)
        .map(|seat| -> Box<dyn Policy> {
            if seat == i % SEATS as u32 {
                Box::new(HeuristicBot::default())
            } else {
                Box::new(RandomBot::default())
            }
        })
        .collect()
}

#[test]
fn heuristic_beats_three_random_bots() {
    let start = Instant::now();
    // Official rules with a 200-round safety cap: a game still going then is won on net worth.
    let rules = Rules { round_limit: 200, ..Rules::default() };
    let capped = AtomicU32::new(0);
    let wins = run_games(
        STRENGTH_GAMES,
        |i| (rules, one_heuristic_three_random(i), 2_000_000),
        |i, game, inputs| {
            assert!(game.is_over(), "game {i} did not end in {inputs} inputs");
            // Still more than one player in: ended by the round cap, won on net worth.
            if game.active().count() > 1 {
                capped.fetch_add(1, Ordering::Relaxed);
            }
            game.winner() == Some((i % SEATS as u32) as u8)
        },
    );
    let rate = f64::from(wins) / f64::from(STRENGTH_GAMES);
    println!(
        "heuristic vs 3 random: won {wins}/{STRENGTH_GAMES} = {:.1}% ({} decided at the round cap) in {:.1?}",
        rate * 100.0,
        capped.into_inner(),
        start.elapsed()
    );
    assert!(rate >= MIN_WIN_RATE, "win rate {:.1}% is below {:.0}%", rate * 100.0, MIN_WIN_RATE * 100.0);
}

#[test]
fn four_heuristic_bots_finish_their_games() {
    // No round limit: the bots must end the game themselves, by bankruptcies. In debug builds,
    // play() also asserts that every move they return is legal.
    let games = if cfg!(debug_assertions) { 30 } else { 200 };
    let max_inputs = 200_000;
    let start = Instant::now();
    let finished = run_games(
        games,
        |_| {
            let bots = (0..SEATS).map(|_| Box::new(HeuristicBot::default()) as Box<dyn Policy>).collect();
            (Rules::default(), bots, max_inputs)
        },
        |i, game, inputs| {
            assert!(game.is_over(), "game {i} was still going after {inputs} inputs (round {})", game.round);
            true
        },
    );
    println!("4 heuristic bots: {finished}/{games} games over in {:.1?}", start.elapsed());
    assert_eq!(finished, games);
}

#[test]
fn heuristic_bots_play_every_preset_to_the_end() {
    // Every preset, the rent-claim options and free building, with two random bots among the
    // heuristic ones: in debug builds play() asserts that every move is legal (claims, timed
    // games, no auctions, dealt deeds, speed hotels...).
    let mut variants: Vec<Rules> = PRESETS.iter().map(|name| Rules::preset(name).unwrap()).collect();
    variants.push(Rules { rent_claim: RentClaim::BeforeNextRoll, ..Rules::default() });
    variants.push(Rules { rent_claim: RentClaim::BeforeSecondNextRoll, ..Rules::default() });
    variants.push(Rules::default().with_free_building());
    let per_variant = if cfg!(debug_assertions) { 6 } else { 40 };
    let games = per_variant * variants.len() as u32;
    let finished = run_games(
        games,
        |i| {
            let bots = (0..SEATS as u32)
                .map(|seat| -> Box<dyn Policy> {
                    if (seat + i) % 2 == 0 {
                        Box::new(HeuristicBot::default())
                    } else {
                        Box::new(RandomBot::default())
                    }
                })
                .collect();
            (variants[(i % variants.len() as u32) as usize], bots, 400_000)
        },
        |i, game, inputs| {
            assert!(game.is_over(), "game {i} was still going after {inputs} inputs (round {})", game.round);
            true
        },
    );
    assert_eq!(finished, games);
}
