//! Criterion benchmark of `VecGame::step`: 64 games (4 players, official rules, all seats the
//! agent's), random legal actions from the mask, auto-reset. The actions are recorded once and
//! replayed from a fresh `VecGame` (same seed, so the same states), so the timing is the step
//! alone: apply, chance, observation and mask of every game.
//!
//! Run: `cargo bench -p lanopoly-sim --bench vecgame`; figures go in benches/README.md.
//! Profile: `LANOPOLY_VECGAME_PROFILE=<steps>[,threads[,games]] target/release/deps/vecgame-*` runs
//! that many batch steps without criterion (for `valgrind --tool=callgrind`), then prints a digest
//! of every step's outputs (unchanged by a change that must not alter them).

use criterion::{criterion_group, BatchSize, Criterion, Throughput};
use lanopoly_engine::{BoardId, Resolver, Rules};
use lanopoly_sim::action_space;
use lanopoly_sim::vecgame::{StepBuffers, VecGame};

const PLAYERS: usize = 4;
const SEED: u64 = 11;

fn vecgame(n: usize, threads: usize) -> VecGame {
    let mut v = VecGame::new(n, PLAYERS as u8, BoardId::Classic, Rules::default(), SEED, 20_000).unwrap();
    v.set_threads(threads);
    v
}

/// Random legal actions for `steps` batch steps of `n` games, one row per step.
fn record(n: usize, steps: usize) -> Vec<Vec<u32>> {
    let mut v = vecgame(n, 1);
    let mut b = StepBuffers::new(n, PLAYERS);
    v.observe_all(&mut b.view()).unwrap();
    let mut rng = Resolver::new(SEED);
    let mut trace = Vec::with_capacity(steps);
    for _ in 0..steps {
        let actions: Vec<u32> = (0..n)
            .map(|i| {
                let row = &b.mask[i * action_space::SIZE..(i + 1) * action_space::SIZE];
                let legal = row.iter().filter(|&&m| m).count() as u32;
                let k = rng.below(legal) as usize;
                row.iter().enumerate().filter(|(_, &m)| m).nth(k).unwrap().0 as u32
            })
            .collect();
        v.step(&actions, &mut b.view()).unwrap();
        trace.push(actions);
    }
    trace
}

/// Replay a trace from a fresh batch.
#[inline(never)]
fn replay(v: &mut VecGame, b: &mut StepBuffers, trace: &[Vec<u32>]) {
    for actions in trace {
        v.step(actions, &mut b.view()).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    const STEPS: usize = 200;
    let mut group = c.benchmark_group("vecgame");
    for (n, threads) in [(64, 1), (64, 2), (256, 1), (256, 2)] {
        let trace = record(n, STEPS);
        group.throughput(Throughput::Elements((n * STEPS) as u64));
        group.bench_function(format!("step, {n} games, {threads} thread(s), {STEPS} steps"), |bench| {
            bench.iter_batched_ref(
                || (vecgame(n, threads), StepBuffers::new(n, PLAYERS)),
                |(v, b)| replay(v, b, &trace),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn profile(spec: &str) {
    let mut parts = spec.split(',');
    let steps: usize =
        parts.next().and_then(|s| s.parse().ok()).expect("LANOPOLY_VECGAME_PROFILE=<steps>[,threads[,games]]");
    let threads: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let n: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(64);
    let trace = record(n, steps);
    let mut v = vecgame(n, threads);
    let mut b = StepBuffers::new(n, PLAYERS);
    let start = std::time::Instant::now();
    replay(&mut v, &mut b, &trace);
    let secs = start.elapsed().as_secs_f64();
    println!("{} game steps in {secs:.3} s: {:.0} steps/s", n * steps, (n * steps) as f64 / secs);
    // Replayed again, outside the timing, hashing every step's outputs: a change that must not
    // alter what a step returns keeps this digest.
    let mut v = vecgame(n, threads);
    let mut digest = Fnv::default();
    for actions in &trace {
        v.step(actions, &mut b.view()).unwrap();
        b.obs.iter().for_each(|x| digest.add(&x.to_bits().to_le_bytes()));
        b.mask.iter().for_each(|&m| digest.add(&[m as u8]));
        b.player.iter().for_each(|&p| digest.add(&[p as u8]));
        b.rewards.iter().for_each(|x| digest.add(&x.to_bits().to_le_bytes()));
        b.terminated.iter().chain(&b.truncated).for_each(|&t| digest.add(&[t as u8]));
    }
    println!("outputs digest {:016x}", digest.0);
}

/// FNV-1a, 64 bits: a digest of the outputs (no need for a cryptographic hash here).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(spec) = std::env::var("LANOPOLY_VECGAME_PROFILE") {
        profile(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
