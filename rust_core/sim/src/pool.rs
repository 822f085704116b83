//! A small pool of persistent worker threads that run one borrowed task on every part at once.
//!
//! [`Pool::run`] calls `task(k)` for every part `k` in `0..parts` at the same time: part 0 on the
//! calling thread, part `k` on worker `k - 1` (always the same thread, so a worker keeps its part
//! of the data warm in its cache), and returns once every part has finished. It is the pattern of
//! `std::thread::scope` without spawning threads on every call: `VecGame` steps a batch of games
//! every few microseconds, and spawning threads afresh cost more than the work itself.
//!
//! Workers wait for the next task by spinning and yielding for 50 µs (batch steps come back to back in a training
//! loop, and waking a sleeping thread takes tens of microseconds on a VM), then sleep on a condvar
//! so an idle pool costs no CPU. A panicking task is caught on its thread and reported by `run`
//! once every part has finished; the pool stays usable. Dropping the pool joins its workers.
//!
//! Which thread runs which part never reaches the results: each part owns its data.

#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a thread spins for the next event before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

/// A task for every part, shared by the workers while [`Pool::run`] runs.
type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// Persistent worker threads (`parts - 1` of them: the caller runs part 0).
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

/// What the caller and the workers share.
struct Shared {
    /// Bumped by `run` to publish a task (and by `drop` to stop the workers).
    epoch: AtomicU64,
    /// The task of the current epoch. Its lifetime is erased: `run` does not return before
    /// every worker has finished with it (see [`Pool::run`]).
    task: Mutex<Option<&'static Task<'static>>>,
    /// Workers that have not finished the current task.
    busy: AtomicUsize,
    stop: AtomicBool,
    /// Panic messages of the current task, by part.
    panics: Mutex<Vec<(usize, String)>>,
    /// Where workers sleep between tasks, and where the caller sleeps until they finish.
    work: Signal,
    done: Signal,
}

impl Pool {
    /// A pool for `parts` parts (at least 1): `parts - 1` worker threads.
    pub fn new(parts: usize) -> Pool {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            task: Mutex::new(None),
            busy: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panics: Mutex::new(Vec::new()),
            work: Signal::default(),
            done: Signal::default(),
        });
        let workers = (1..parts.max(1))
            .map(|part| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("lanopoly-worker-{part}"))
                    .spawn(move || worker(&shared, part))
                    .expect("spawn a worker thread")
            })
            .collect();
        Pool { shared, workers }
    }

    /// The number of parts a run splits into.
    pub fn parts(&self) -> usize {
        self.workers.len() + 1
    }

    /// Run `task(k)` for every part `k` at once and wait for all of them. A task that panics does
    /// not stop the others; the result is the panic message of the lowest such part.
    pub fn run(&mut self, task: &Task<'_>) -> Result<(), String> {
        let shared = &*self.shared;
        if !self.workers.is_empty() {
            // SAFETY: the reference is only used by the workers between the publication below and
            // their decrement of `busy`, and this function does not return (nor unwind: the
            // caller's part is run under `catch_unwind`, and the wait below cannot panic) before
            // `busy` is back to zero and the reference has been taken out of `task` again. So the
            // borrow outlives every use, as with `std::thread::scope`.
            let erased = unsafe { std::mem::transmute::<&Task<'_>, &'static Task<'static>>(task) };
            *lock(&shared.task) = Some(erased);
            shared.busy.store(self.workers.len(), SeqCst);
            shared.epoch.fetch_add(1, SeqCst);
            shared.work.notify();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| task(0)));
        if !self.workers.is_empty() {
            shared.done.wait_until(|| shared.busy.load(SeqCst) == 0);
            *lock(&shared.task) = None;
        }
        let mut panics = std::mem::take(&mut *lock(&shared.panics));
        if let Err(payload) = mine {
            panics.push((0, panic_message(&*payload)));
        }
        match panics.into_iter().min_by_key(|(part, _)| *part) {
            None => Ok(()),
            Some((part, why)) => Err(format!("part {part} panicked: {why}")),
        }
    }
}

impl Drop for Pool {
    /// Stop the workers and join them.
    fn drop(&mut self) {
        self.shared.stop.store(true, SeqCst);
        self.shared.epoch.fetch_add(1, SeqCst);
        self.shared.work.notify();
        for handle in self.workers.drain(..) {
            // A worker catches its tasks' panics, so it ends normally.
            let _ = handle.join();
        }
    }
}

/// A worker's life: wait for a new epoch, run its part of the task, report, again.
fn worker(shared: &Shared, part: usize) {
    let mut seen = 0;
    loop {
        shared.work.wait_until(|| shared.epoch.load(SeqCst) != seen);
        seen = shared.epoch.load(SeqCst);
        if shared.stop.load(SeqCst) {
            return;
        }
        let task = lock(&shared.task).expect("a task is published with its epoch");
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| task(part))) {
            lock(&shared.panics).push((part, panic_message(&*payload)));
        }
        if shared.busy.fetch_sub(1, SeqCst) == 1 {
            shared.done.notify();
        }
    }
}

/// A wake-up call: a waiter spins briefly, yields its CPU until [`SPIN`] has passed, then sleeps
/// until notified.
#[derive(Default)]
struct Signal {
    lock: Mutex<()>,
    wake: Condvar,
    sleepers: AtomicUsize,
}

impl Signal {
    /// Return once `ready()` holds. `ready` must become true only through memory that the
    /// notifier changes before calling [`Signal::notify`].
    fn wait_until(&self, ready: impl Fn() -> bool) {
        let start = Instant::now();
        let mut spins = 0u32;
        while !ready() {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
                continue;
            }
            // Let a thread waiting for this CPU run (on a busy machine it may be the one this
            // waits for), then check the clock.
            std::thread::yield_now();
            if start.elapsed() > SPIN {
                let mut guard = lock(&self.lock);
                self.sleepers.fetch_add(1, SeqCst);
                // Checked under the lock, after announcing the sleep: a notifier that changed
                // the state before seeing `sleepers` is zero was seen here.
                while !ready() {
                    guard = self.wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
                }
                self.sleepers.fetch_sub(1, SeqCst);
                return;
            }
        }
    }

    /// Wake the sleepers (call after changing what they wait for).
    fn notify(&self) {
        if self.sleepers.load(SeqCst) > 0 {
            let _guard = lock(&self.lock);
            self.wake.notify_all();
        }
    }
}

/// Lock a mutex; a panic never happens while these locks are held, but do not die of poison.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    #[test]
    fn every_part_runs_once_per_run_on_a_fixed_thread() {
        let mut pool = Pool::new(3);
        assert_eq!(pool.parts(), 3);
        let names: Vec<Mutex<Vec<String>>> = (0..3).map(|_| Mutex::new(Vec::new())).collect();
        for _ in 0..1000 {
            pool.run(&|k| {
                let name = std::thread::current().name().unwrap_or("caller").to_string();
                names[k].lock().unwrap().push(name);
            })
            .unwrap();
        }
        for (k, runs) in names.iter().enumerate() {
            let runs = runs.lock().unwrap();
            assert_eq!(runs.len(), 1000);
            assert!(runs.iter().all(|n| n == &runs[0]), "part {k} moved between threads");
        }
    }

    #[test]
    fn a_panic_is_reported_and_the_pool_goes_on() {
        let mut pool = Pool::new(2);
        let count = AtomicUsize::new(0);
        let err = pool
            .run(&|k| {
                count.fetch_add(1, Ordering::SeqCst);
                assert!(k != 1, "boom in part {k}");
            })
            .unwrap_err();
        assert!(err.contains("part 1 panicked: boom in part 1"), "{err}");
        assert_eq!(count.load(Ordering::SeqCst), 2, "the other part ran to the end");
        pool.run(&|_| {
            count.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 4);
        // The caller's own part may panic too; the lowest part is named.
        let err = pool.run(&|k| panic!("all {k}")).unwrap_err();
        assert!(err.starts_with("part 0 panicked: all 0"), "{err}");
    }

    #[test]
    fn workers_sleep_when_idle_and_wake_for_the_next_run() {
        let mut pool = Pool::new(2);
        let count = AtomicUsize::new(0);
        for _ in 0..3 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            pool.run(&|_| {
                count.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        }
        assert_eq!(count.load(Ordering::SeqCst), 6);
        drop(pool); // joins the (sleeping) worker
    }
}
