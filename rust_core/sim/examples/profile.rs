//! A fixed workload for profilers: heuristic bots play seeded 4-player games on one thread.
//!
//! `cargo build --release -p lanopoly-sim --example profile` then e.g.
//! `valgrind --tool=callgrind target/release/examples/profile 20 heuristic` (instruction counts
//! are repeatable on a busy machine).
//!
//! `profile N BOT engine` instead records the inputs of N such games, then times applying them
//! again to fresh games: the engine's share of a turn alone, the speed a bot costing nothing
//! would reach.

use lanopoly_engine::{BoardId, Game, Input, Rules};
use lanopoly_sim::bots;
use lanopoly_sim::play::{play, Streams};
use lanopoly_sim::simulate::{simulate, Config};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let bot = args.next().unwrap_or_else(|| "heuristic".to_string());
    if args.next().as_deref() == Some("engine") {
        return engine_only(games, &bot);
    }
    let config = Config {
        games,
        first_game: 0,
        players: 4,
        board: BoardId::Classic,
        rules: Rules::default(),
        bots: vec![bot.clone()],
        seed: 1,
        threads: 1,
        max_inputs: 1_000_000,
    };
    let start = Instant::now();
    let report = simulate(&config).expect("a valid configuration");
    let elapsed = start.elapsed().as_secs_f64();
    let turns: u64 = report.games.iter().map(|g| g.turns as u64).sum();
    let inputs: u64 = report.games.iter().map(|g| g.actions as u64).sum();
    // A digest of the whole report (FNV-1a of its debug text): equal digests, equal games.
    let digest = format!("{report:?}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    println!("totals: {games} games, {turns} turns, {inputs} moves, report digest {digest:016x}");
    println!(
        "{games} games of {bot}: {elapsed:.3} s, {:.0} games/s, {:.0} turns/s, {:.0} moves/s (one thread)",
        games as f64 / elapsed,
        turns as f64 / elapsed,
        inputs as f64 / elapsed
    );
}

/// Record the inputs of `games` games of `bot`, then time applying them to fresh games.
fn engine_only(games: u32, bot: &str) {
    let new_game = || Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
    let recorded: Vec<Vec<Input>> = (0..games)
        .map(|i| {
            let mut policies: Vec<_> = (0..4).map(|_| bots::from_spec(bot).expect("a known bot")).collect();
            let mut inputs = Vec::new();
            play(&mut new_game(), &mut policies, &mut Streams::new(i as u64, 4), 1_000_000, |_, input, _| {
                inputs.push(input)
            });
            inputs
        })
        .collect();
    let start = Instant::now();
    let mut turns = 0u64;
    for inputs in &recorded {
        let mut game = new_game();
        for &input in inputs {
            game.apply_input(black_box(input)).expect("a recorded input applies again");
        }
        turns += game.turn as u64 + 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let count: usize = recorded.iter().map(Vec::len).sum();
    println!(
        "engine alone, {games} games of {bot}: {count} inputs, {turns} turns in {elapsed:.3} s: {:.0} turns/s, {:.1} ns per input",
        turns as f64 / elapsed,
        elapsed * 1e9 / count as f64
    );
}
