//! A small pool of persistent worker threads that share one borrowed task.
//!
//! [`Pool::run`] calls `task(0)` on the calling thread and offers `task(k)` to worker `k - 1`
//! (always the same thread, so a worker keeps its part of the data warm in its cache), and
//! returns once every part that started has finished. A worker that has not started when part 0
//! finishes skips that run: waiting for it would cost the whole step whenever its CPU is taken
//! away for a while (a shared VM), so a task must leave nothing undone when only part 0 runs
//! (`VecGame`'s parts take chunks from a common pool of work until none is left). It is the
//! pattern of `std::thread::scope` without spawning threads on every call: `VecGame` steps a
//! batch of games every few microseconds, and spawning threads afresh cost more than the work.
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

/// How often a caller that waits for the workers wakes up to call its tick.
pub const TICK: Duration = Duration::from_millis(10);

/// A task for every part, shared by the workers while [`Pool::run`] runs.
type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// Persistent worker threads (`parts - 1` of them: the caller runs part 0).
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

/// What the caller and the workers share.
struct Shared {
    /// The run: its number times two, plus one once it is closed (part 0 has finished, and a
    /// worker that has not started yet must skip it). Bumped by `run` to publish a task (and by
    /// `drop` to stop the workers).
    run: AtomicU64,
    /// The task of the current run. Its lifetime is erased: `run` does not return before every
    /// worker that entered the run has finished with it (see [`Pool::run`]).
    task: Mutex<Option<&'static Task<'static>>>,
    /// Workers inside the current run (entered and not finished).
    entered: AtomicUsize,
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
            run: AtomicU64::new(0),
            task: Mutex::new(None),
            entered: AtomicUsize::new(0),
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

    /// Run `task(0)` here and offer `task(k)` to the workers at once; return when part 0 and
    /// every part that started have finished (see the module documentation). A task that panics
    /// does not stop the others; the result is the panic message of the lowest such part.
    ///
    /// While it waits for the workers, this thread calls `tick` every [`TICK`] (to notice a stop
    /// request, such as Ctrl-C, that only it can see: the workers learn of it through the task).
    pub fn run(&mut self, task: &Task<'_>, tick: Option<&dyn Fn()>) -> Result<(), String> {
        let shared = &*self.shared;
        let open = (shared.run.load(SeqCst) | 1) + 1; // the next even number: a new, open run
        if !self.workers.is_empty() {
            // SAFETY: a worker uses the reference only inside a run it entered: it counts itself
            // in `entered`, then checks the run is still open, and counts itself out when done.
            // This function closes the run, then waits for `entered` to reach zero, then takes
            // the reference out of `task` before returning (it cannot unwind in between: the
            // caller's part runs under `catch_unwind`, and the waits cannot panic). With SeqCst,
            // a worker either entered before the close (and is waited for) or sees the run
            // closed (and skips it without touching the task). So the borrow outlives every use,
            // as with `std::thread::scope`.
            let erased = unsafe { std::mem::transmute::<&Task<'_>, &'static Task<'static>>(task) };
            *lock(&shared.task) = Some(erased);
            shared.run.store(open, SeqCst);
            shared.work.notify();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| task(0)));
        if !self.workers.is_empty() {
            shared.run.store(open | 1, SeqCst);
            shared.done.wait_ticking(|| shared.entered.load(SeqCst) == 0, tick);
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
        self.shared.run.fetch_add(2, SeqCst);
        self.shared.work.notify();
        for handle in self.workers.drain(..) {
            // A worker catches its tasks' panics, so it ends normally.
            let _ = handle.join();
        }
    }
}

/// A worker's life: wait for a new run, enter it if it is still open, run its part, again.
fn worker(shared: &Shared, part: usize) {
    let mut seen = 0;
    loop {
        shared.work.wait_until(|| shared.run.load(SeqCst) >> 1 != seen);
        if shared.stop.load(SeqCst) {
            return;
        }
        // Count in first, then look: see the safety argument in `Pool::run`.
        shared.entered.fetch_add(1, SeqCst);
        let run = shared.run.load(SeqCst);
        seen = run >> 1;
        if run & 1 == 0 {
            let task = lock(&shared.task).expect("a task is published with its run");
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| task(part))) {
                lock(&shared.panics).push((part, panic_message(&*payload)));
            }
        }
        shared.entered.fetch_sub(1, SeqCst);
        shared.done.notify();
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
        self.wait_ticking(ready, None)
    }

    /// [`Signal::wait_until`], calling `tick` (without the lock) every [`TICK`] of sleep.
    fn wait_ticking(&self, ready: impl Fn() -> bool, tick: Option<&dyn Fn()>) {
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
                while !self.sleep_until(&ready, tick.is_some()) {
                    tick.expect("only a ticking sleep times out")();
                }
                return;
            }
        }
    }

    /// Sleep until `ready()` holds (true) or, with `timeout`, until [`TICK`] has passed (false).
    fn sleep_until(&self, ready: &impl Fn() -> bool, timeout: bool) -> bool {
        let mut guard = lock(&self.lock);
        self.sleepers.fetch_add(1, SeqCst);
        // Checked under the lock, after announcing the sleep: a notifier that changed the state
        // before seeing `sleepers` is zero was seen here.
        let mut woke = true;
        while !ready() {
            if !timeout {
                guard = self.wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let (back, waited) = self.wake.wait_timeout(guard, TICK).unwrap_or_else(PoisonError::into_inner);
            guard = back;
            if waited.timed_out() {
                woke = ready();
                break;
            }
        }
        self.sleepers.fetch_sub(1, SeqCst);
        woke
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
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// A task for the tests: part 0 first waits until every other part has started (so none is
    /// skipped), then each part runs `body`.
    fn all_parts<'a>(
        parts: usize,
        started: &'a [AtomicBool],
        body: impl Fn(usize) + Sync + 'a,
    ) -> impl Fn(usize) + Sync + 'a {
        move |k| {
            started[k].store(true, Ordering::SeqCst);
            if k == 0 {
                while !started[1..parts].iter().all(|s| s.load(Ordering::SeqCst)) {
                    std::hint::spin_loop();
                }
            }
            body(k);
        }
    }

    #[test]
    fn every_part_runs_once_per_run_on_a_fixed_thread() {
        let mut pool = Pool::new(3);
        assert_eq!(pool.parts(), 3);
        let names: Vec<Mutex<Vec<String>>> = (0..3).map(|_| Mutex::new(Vec::new())).collect();
        for _ in 0..1000 {
            let started: Vec<AtomicBool> = (0..3).map(|_| AtomicBool::new(false)).collect();
            pool.run(
                &all_parts(3, &started, |k| {
                    let name = std::thread::current().name().unwrap_or("caller").to_string();
                    names[k].lock().unwrap().push(name);
                }),
                None,
            )
            .unwrap();
        }
        for (k, runs) in names.iter().enumerate() {
            let runs = runs.lock().unwrap();
            assert_eq!(runs.len(), 1000);
            assert!(runs.iter().all(|n| n == &runs[0]), "part {k} moved between threads");
        }
    }

    #[test]
    fn part_0_always_runs_and_a_late_worker_at_most_once() {
        let mut pool = Pool::new(2);
        let counts = [AtomicUsize::new(0), AtomicUsize::new(0)];
        for _ in 0..2000 {
            // Part 0 returns at once: the worker is often too late and skips the run.
            pool.run(
                &|k| {
                    counts[k].fetch_add(1, Ordering::SeqCst);
                },
                None,
            )
            .unwrap();
        }
        assert_eq!(counts[0].load(Ordering::SeqCst), 2000);
        assert!(counts[1].load(Ordering::SeqCst) <= 2000, "a part ran twice in one run");
        // Skipped runs leave the pool working: a run that waits for the worker gets it.
        let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let both = AtomicUsize::new(0);
        pool.run(
            &all_parts(2, &started, |_| {
                both.fetch_add(1, Ordering::SeqCst);
            }),
            None,
        )
        .unwrap();
        assert_eq!(both.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_panic_is_reported_and_the_pool_goes_on() {
        let mut pool = Pool::new(2);
        let count = AtomicUsize::new(0);
        let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let err = pool
            .run(
                &all_parts(2, &started, |k| {
                    count.fetch_add(1, Ordering::SeqCst);
                    assert!(k != 1, "boom in part {k}");
                }),
                None,
            )
            .unwrap_err();
        assert!(err.contains("part 1 panicked: boom in part 1"), "{err}");
        assert_eq!(count.load(Ordering::SeqCst), 2, "the other part ran to the end");
        let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        pool.run(
            &all_parts(2, &started, |_| {
                count.fetch_add(1, Ordering::SeqCst);
            }),
            None,
        )
        .unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 4);
        // The caller's own part may panic too; the lowest part is named.
        let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let err = pool.run(&all_parts(2, &started, |k| panic!("all {k}")), None).unwrap_err();
        assert!(err.starts_with("part 0 panicked: all 0"), "{err}");
    }

    #[test]
    fn a_caller_waiting_for_a_busy_worker_ticks() {
        let mut pool = Pool::new(2);
        let ticks = AtomicUsize::new(0);
        let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let tick = || {
            ticks.fetch_add(1, Ordering::SeqCst);
        };
        let task = all_parts(2, &started, |k| {
            // The worker is busy until the waiting caller has ticked three times (or 10 s).
            let start = std::time::Instant::now();
            while k == 1 && ticks.load(Ordering::SeqCst) < 3 && start.elapsed().as_secs() < 10 {
                std::thread::yield_now();
            }
        });
        pool.run(&task, Some(&tick)).unwrap();
        assert!(ticks.load(Ordering::SeqCst) >= 3, "the caller did not tick while it waited");
    }

    #[test]
    fn workers_sleep_when_idle_and_wake_for_the_next_run() {
        let mut pool = Pool::new(2);
        let count = AtomicUsize::new(0);
        for _ in 0..3 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let started: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
            pool.run(
                &all_parts(2, &started, |_| {
                    count.fetch_add(1, Ordering::SeqCst);
                }),
                None,
            )
            .unwrap();
        }
        assert_eq!(count.load(Ordering::SeqCst), 6);
        drop(pool); // joins the (sleeping) worker
    }
}
