//! What the bot tests share: playing many seeded games on every core.

use lanopoly_engine::{BoardId, Game, Rules};
use lanopoly_sim::play::{play, Streams};
use lanopoly_sim::Policy;
use std::sync::atomic::{AtomicU32, Ordering};

/// Seats of every game these tests play.
pub const SEATS: u8 = 4;

/// Play `games` games (seeded 0..games) on all cores; `setup(i)` gives the rules, the seats' bots
/// and the input limit of game `i`; `judge` sees each finished game. Returns what `judge`
/// counted. Trusted moves are checked (`lanopoly_engine::verify_trusted`).
pub fn run_games<S, J>(games: u32, setup: S, judge: J) -> u32
where
    S: Fn(u32) -> (Rules, Vec<Box<dyn Policy>>, u32) + Sync,
    J: Fn(u32, &Game, u32) -> bool + Sync,
{
    // The test mode: every move of a trusted bot and every sampled outcome is checked, release
    // builds included (`play` skips those checks otherwise).
    lanopoly_engine::verify_trusted(true);
    let next = AtomicU32::new(0);
    let counted = AtomicU32::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= games {
                    break;
                }
                let (rules, mut policies, max_inputs) = setup(i);
                let mut game = Game::new(SEATS, BoardId::Classic, rules).unwrap();
                let mut streams = Streams::new(u64::from(i), SEATS);
                let inputs = play(&mut game, &mut policies, &mut streams, max_inputs, |_, _, _| {});
                if judge(i, &game, inputs) {
                    counted.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    counted.into_inner()
}
