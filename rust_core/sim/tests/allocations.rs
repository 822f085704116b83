//! The random bot decides without allocating: its legal actions go into a buffer it keeps from
//! one decision to the next (it was a fresh `Vec`, grown push by push, at every decision: a
//! sixth of a learner's `VecGame` step against random opponents). Counted by a global allocator
//! of this test binary alone.

use lanopoly_engine::{BoardId, Game, Move, Resolver, Rules};
use lanopoly_sim::bots;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the allocations made while `COUNTING` is on.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// At most the buffers' growth (a doubling now and then, per bot) against one allocation or
/// more at every decision before.
#[test]
fn the_random_bot_decides_without_allocating_but_for_its_buffer_growing() {
    let rules = Rules { round_limit: 40, ..Rules::default() };
    let mut game = Game::new(4, BoardId::Classic, rules).unwrap();
    let mut bots: Vec<_> = (0..4).map(|_| bots::from_spec("random").unwrap()).collect();
    let mut rng = Resolver::new(7);
    let (mut decisions, mut allocations) = (0, 0);
    while !game.is_over() {
        if game.is_chance_node() {
            let o = game.sample_outcome(&mut rng).unwrap();
            game.apply_chance(o).unwrap();
            continue;
        }
        let seat = game.actor().unwrap();
        COUNTING.store(true, Relaxed);
        let action = bots[seat as usize].choose(&game, seat, &mut rng);
        COUNTING.store(false, Relaxed);
        allocations += ALLOCATIONS.swap(0, Relaxed);
        decisions += 1;
        game.apply(Move { player: seat, action }).unwrap();
    }
    assert!(decisions > 500, "{decisions} decisions");
    assert!(allocations <= 4 * 8, "{allocations} allocations in {decisions} decisions");
}
