//! The instruction-count harness: plays a named workload (`lanopoly_sim::workload`: `mc` or
//! `full`) on one thread and prints its games, dice rolls, player turns and report digest.
//! `benches/callgrind.sh` runs it under callgrind, counting only [`measured`], and divides.
//!
//! `cargo build --release -p lanopoly-sim --example count`, then
//! `target/release/examples/count WORKLOAD [GAMES]`.

use lanopoly_sim::simulate::{simulate, Config, Report};
use lanopoly_sim::workload::{digest, workload, WORKLOADS};
use std::time::Instant;

/// The measured part: the simulation alone (callgrind's `--toggle-collect` names this function).
#[inline(never)]
fn measured(config: &Config) -> Report {
    simulate(config).expect("a valid workload")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "full".to_string());
    let Some(games) = args.next().map_or(Some(200), |a| a.parse().ok()) else {
        eprintln!("usage: count WORKLOAD [GAMES]; workloads: {}", WORKLOADS.join(", "));
        std::process::exit(2);
    };
    let Some(config) = workload(&name, games) else {
        eprintln!("unknown workload {name:?}; workloads: {}", WORKLOADS.join(", "));
        std::process::exit(2);
    };
    let start = Instant::now();
    let report = measured(&config);
    let elapsed = start.elapsed().as_secs_f64();
    // Every move roll lands once (`Report::landings` counts them, jail included).
    let rolls: u64 = report.landings.iter().sum();
    let turns: u64 = report.games.iter().map(|g| g.turns as u64).sum();
    let moves: u64 = report.games.iter().map(|g| g.actions as u64).sum();
    let rounds: u64 = report.games.iter().map(|g| g.rounds as u64).sum();
    println!(
        "workload {name}: {games} games, {rounds} rounds, {rolls} rolls, {turns} turns, {moves} moves, digest {:016x}",
        digest(&report)
    );
    println!(
        "wall {elapsed:.3} s: {:.1} ns per roll, {:.1} ns per turn",
        elapsed * 1e9 / rolls as f64,
        elapsed * 1e9 / turns as f64
    );
}
