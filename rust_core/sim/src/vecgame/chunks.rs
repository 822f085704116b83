//! How a step is shared between threads: fixed chunks of games, taken by threads from shares.

use super::{Failure, Slot, StepOut};
use crate::{action_space, observation};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// One chunk of a step: consecutive games from `first`, their actions and output rows,
/// and how stepping them went.
pub(super) struct Part<'a> {
    pub first: usize,
    pub slots: &'a mut [Slot],
    pub actions: &'a [u32],
    pub out: StepOut<'a>,
    pub result: Result<(), Failure>,
}

/// Games per chunk: the unit of work a thread takes at a time. Small, so that when one thread's
/// CPU is taken away (a shared VM) or its games cost more (resets) the others take over its
/// remaining chunks; large enough that taking a chunk costs nothing next to stepping it (a few
/// microseconds). Fixed, so the chunks never depend on the thread count.
pub const CHUNK: usize = 8;

/// The chunks of one step shared out between the threads: thread `k` first takes the chunks of
/// its own contiguous share, in order (its games stay warm in its cache from step to step), then
/// helps with the others' shares. Each chunk is taken exactly once (an atomic cursor per share).
pub(super) struct Shares {
    cursors: Vec<AtomicUsize>,
    ends: Vec<usize>,
}

impl Shares {
    pub fn new(chunks: usize, threads: usize) -> Shares {
        let bound = |k: usize| k * chunks / threads;
        Shares {
            cursors: (0..threads).map(|k| AtomicUsize::new(bound(k))).collect(),
            ends: (0..threads).map(|k| bound(k + 1)).collect(),
        }
    }

    /// The next chunk for thread `k`, or `None` once every chunk has been taken.
    pub fn next(&self, k: usize) -> Option<usize> {
        let threads = self.ends.len();
        (0..threads).map(|d| (k + d) % threads).find_map(|share| {
            let i = self.cursors[share].fetch_add(1, Relaxed);
            (i < self.ends[share]).then_some(i)
        })
    }
}

/// Cut the games into contiguous chunks of `chunk` games (the last one shorter), each with its
/// actions and rows. The chunks depend on the counts only, never on timing.
pub(super) fn split<'a>(
    slots: &'a mut [Slot],
    actions: &'a [u32],
    mut out: StepOut<'a>,
    chunk: usize,
    players: usize,
) -> Vec<Mutex<Part<'a>>> {
    let mut split = Vec::with_capacity(slots.len().div_ceil(chunk));
    let mut first = 0;
    for (slots, actions) in slots.chunks_mut(chunk).zip(actions.chunks(chunk)) {
        let len = slots.len();
        let (head, tail) = out.split_at(len, players);
        out = tail;
        split.push(Mutex::new(Part { first, slots, actions, out: head, result: Ok(()) }));
        first += len;
    }
    split
}

impl<'a> StepOut<'a> {
    /// The same buffers, borrowed for a shorter time.
    pub(super) fn reborrow(&mut self) -> StepOut<'_> {
        StepOut {
            obs: &mut *self.obs,
            mask: &mut *self.mask,
            player: &mut *self.player,
            rewards: &mut *self.rewards,
            terminated: &mut *self.terminated,
            truncated: &mut *self.truncated,
        }
    }

    /// The rows of the first `games` games, and the rest.
    fn split_at(self, games: usize, players: usize) -> (StepOut<'a>, StepOut<'a>) {
        let (obs, obs_rest) = self.obs.split_at_mut(games * observation::SIZE);
        let (mask, mask_rest) = self.mask.split_at_mut(games * action_space::SIZE);
        let (player, player_rest) = self.player.split_at_mut(games);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(games * players);
        let (terminated, terminated_rest) = self.terminated.split_at_mut(games);
        let (truncated, truncated_rest) = self.truncated.split_at_mut(games);
        (
            StepOut { obs, mask, player, rewards, terminated, truncated },
            StepOut {
                obs: obs_rest,
                mask: mask_rest,
                player: player_rest,
                rewards: rewards_rest,
                terminated: terminated_rest,
                truncated: truncated_rest,
            },
        )
    }
}
