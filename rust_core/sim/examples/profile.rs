//! A fixed workload for profilers: heuristic bots play seeded 4-player games on one thread.
//!
//! `cargo build --release -p lanopoly-sim --example profile` then e.g.
//! `valgrind --tool=callgrind target/release/examples/profile 20 heuristic` (instruction counts
//! are repeatable on a busy machine).

use lanopoly_engine::{BoardId, Rules};
use lanopoly_sim::simulate::{simulate, Config};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let bot = args.next().unwrap_or_else(|| "heuristic".to_string());
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
