//! Stopping a long call from outside (Ctrl-C in Python) without giving the loops a clock.
//!
//! Loops that play bots (a simulation, the opponents inside a `VecGame` step) call
//! [`Interrupt::check`] every [`Interrupt::EVERY`] inputs. On the thread that made the
//! `Interrupt` (the caller's, the only one Python delivers signals to) a check also asks the
//! hook whether to stop; on the others it only reads the flag the hook's answer set. Nothing a
//! check does reaches a game: a stopped call is abandoned, not continued.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread::{self, ThreadId};

/// A stop request shared by the threads of one call, and the hook that raises it.
pub struct Interrupt<'a> {
    stop: AtomicBool,
    hook: Option<&'a (dyn Fn() -> bool + Sync)>,
    owner: ThreadId,
}

impl<'a> Interrupt<'a> {
    /// Inputs between two checks in a loop that plays bots: a few milliseconds of play at most.
    pub const EVERY: u32 = 4096;

    /// An interrupt that never fires.
    pub fn none() -> Interrupt<'static> {
        Interrupt { stop: AtomicBool::new(false), hook: None, owner: thread::current().id() }
    }

    /// An interrupt whose `hook` (called on this thread only) returns true to stop the call.
    pub fn new(hook: &'a (dyn Fn() -> bool + Sync)) -> Interrupt<'a> {
        Interrupt { stop: AtomicBool::new(false), hook: Some(hook), owner: thread::current().id() }
    }

    /// Should the call stop? On the thread that made the interrupt, asks the hook first.
    pub fn check(&self) -> bool {
        if self.stop.load(Relaxed) {
            return true;
        }
        match self.hook {
            Some(hook) if thread::current().id() == self.owner && hook() => {
                self.stop.store(true, Relaxed);
                true
            }
            _ => false,
        }
    }

    /// Has the call been asked to stop (without asking the hook)?
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::Interrupt;
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

    #[test]
    fn only_the_owner_asks_the_hook_and_every_thread_sees_the_stop() {
        let calls = AtomicU32::new(0);
        let hook = || calls.fetch_add(1, SeqCst) >= 2;
        let interrupt = Interrupt::new(&hook);
        std::thread::scope(|s| {
            s.spawn(|| assert!(!interrupt.check(), "another thread never asks the hook"));
        });
        assert_eq!(calls.load(SeqCst), 0);
        assert!(!interrupt.check() && !interrupt.check());
        assert!(interrupt.check(), "the third answer stops");
        std::thread::scope(|s| {
            s.spawn(|| assert!(interrupt.check() && interrupt.stopped()));
        });
        assert!(!Interrupt::none().check());
    }
}
