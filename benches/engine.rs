//! Criterion benchmarks of the rules engine: one step, a whole game, clone, hash, legal actions.
//!
//! Run: `cargo bench -p lanopoly-engine --bench engine`; figures go in benches/README.md.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use lanopoly_engine::bot::{play_randomly, random_input};
use lanopoly_engine::{BoardId, Game, Input, Resolver, Rules};
use std::hint::black_box;

fn new_game() -> Game {
    Game::new(4, BoardId::Classic, Rules { round_limit: 100, ..Rules::default() }).unwrap()
}

/// The inputs of one random game, to replay without the cost of choosing them.
fn trace(seed: u64) -> Vec<Input> {
    let mut game = new_game();
    let mut rng = Resolver::new(seed);
    let mut inputs = Vec::new();
    while let Some(input) = random_input(&game, &mut rng) {
        game.apply_input(input).unwrap();
        inputs.push(input);
    }
    inputs
}

/// A state from the middle of a game, with owners, buildings and cash spread around.
fn midgame() -> Game {
    let inputs = trace(7);
    let mut game = new_game();
    for input in &inputs[..inputs.len() / 2] {
        game.apply_input(*input).unwrap();
    }
    game
}

fn bench(c: &mut Criterion) {
    let inputs = trace(1);
    let mut group = c.benchmark_group("step");
    group.throughput(Throughput::Elements(inputs.len() as u64));
    group.bench_function("apply (replay of a random 4-player game)", |b| {
        b.iter_batched(
            new_game,
            |mut game| {
                for input in &inputs {
                    game.apply_input(*input).unwrap();
                }
                game
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();

    c.bench_function("game/random policy, 4 players, 100-round cap", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut game = new_game();
            play_randomly(&mut game, &mut Resolver::new(seed), u32::MAX)
        })
    });

    let game = midgame();
    c.bench_function("clone", |b| b.iter(|| black_box(&game).clone()));
    c.bench_function("state_hash", |b| b.iter(|| black_box(&game).state_hash()));
    c.bench_function("to_bytes", |b| b.iter(|| black_box(&game).to_bytes()));
    let seat = game.actor().unwrap_or(0);
    c.bench_function("legal_actions", |b| b.iter(|| black_box(&game).legal_actions(seat)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
