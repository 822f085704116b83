//! The instruction-count harness of a learner's `VecGame` step (issue 17): `GAMES` games of 4
//! players (official rules, seed 1), the learner in seat 0 playing its first legal action (as
//! `python benches/bench_python.py --vector` does) against three `OPPONENT` bots that play inside
//! the step. Prints the steps taken and a digest of every step's outputs (a change that must not
//! alter what a step returns keeps it).
//!
//! `cargo build --release -p lanopoly-sim --example vecstep`, then
//! `target/release/examples/vecstep OPPONENT [GAMES [STEPS]]`; `benches/callgrind.sh vec-heuristic`
//! (or `vec-random`) counts the instructions of [`measured`] alone, per learner step.

use lanopoly_engine::{BoardId, Rules};
use lanopoly_sim::action_space::SIZE;
use lanopoly_sim::vecgame::{StepBuffers, StepOut, VecGame};
use std::time::Instant;

/// The measured part: one batch step (callgrind's `--toggle-collect` names this function).
#[inline(never)]
fn measured(v: &mut VecGame, actions: &[u32], out: &mut StepOut<'_>) {
    v.step(actions, out).expect("legal actions");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let opponent = args.next().unwrap_or_else(|| "heuristic".to_string());
    let mut number = |default: usize| args.next().map_or(Some(default), |a| a.parse().ok());
    let (Some(games), Some(steps)) = (number(1024), number(100)) else {
        eprintln!("usage: vecstep OPPONENT [GAMES [STEPS]]");
        std::process::exit(2);
    };
    let opponents = [opponent.clone()];
    let mut v = VecGame::with_opponents(games, 4, BoardId::Classic, Rules::default(), 1, 20_000, Some(0), &opponents)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut b = StepBuffers::new(games, 4);
    v.observe_all(&mut b.view()).unwrap();
    let mut actions = vec![0u32; games];
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &byte in bytes {
            digest = (digest ^ byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    // `VECSTEP_NO_DIGEST=1`: skip the digest (hashing every output byte takes longer than the
    // steps), so that the process's CPU time (`/usr/bin/time`) is mostly the steps'.
    let hashing = std::env::var_os("VECSTEP_NO_DIGEST").is_none();
    let mut spent = 0.0;
    for _ in 0..steps {
        for (i, a) in actions.iter_mut().enumerate() {
            *a = b.mask[i * SIZE..(i + 1) * SIZE].iter().position(|&m| m).expect("a legal action") as u32;
        }
        let start = Instant::now();
        measured(&mut v, &actions, &mut b.view());
        spent += start.elapsed().as_secs_f64();
        if !hashing {
            continue;
        }
        b.obs.iter().for_each(|x| eat(&x.to_bits().to_le_bytes()));
        b.mask.iter().for_each(|&m| eat(&[m as u8]));
        b.player.iter().for_each(|&p| eat(&[p as u8]));
        b.rewards.iter().for_each(|x| eat(&x.to_bits().to_le_bytes()));
        b.terminated.iter().chain(&b.truncated).for_each(|&t| eat(&[t as u8]));
    }
    let total = games * steps;
    let digest = if hashing { format!("{digest:016x}") } else { "not computed".to_string() };
    println!("vec-{opponent}: {games} games, {steps} steps, {total} learner steps, outputs digest {digest}");
    println!(
        "wall {spent:.3} s: {:.1} ns per learner step, {:.2} M steps/s",
        spent * 1e9 / total as f64,
        total as f64 / spent / 1e6
    );
}
