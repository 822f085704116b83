//! The hot path does not allocate: applying inputs to a game touches the heap only for the rare
//! lists (a debt, a trade offer, a rent claim, paying every player), never per step.

use lanopoly_engine::bot::random_input;
use lanopoly_engine::{BoardId, Game, Input, Resolver, Rules};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn applying_inputs_rarely_allocates() {
    let rules = Rules { round_limit: 100, ..Rules::default() };
    let mut total_inputs = 0u64;
    let mut total_allocations = 0u64;
    for seed in 0..20 {
        // Choose the inputs first (legal_actions allocates its list), then count only applying.
        let mut game = Game::new(4, BoardId::Classic, rules).unwrap();
        let mut rng = Resolver::new(seed);
        let mut inputs: Vec<Input> = Vec::new();
        while let Some(input) = random_input(&game, &mut rng) {
            game.apply_input(input).unwrap();
            inputs.push(input);
        }
        let mut replay = Game::new(4, BoardId::Classic, rules).unwrap();
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for input in &inputs {
            replay.apply_input(*input).unwrap();
        }
        total_allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
        total_inputs += inputs.len() as u64;
    }
    let per_thousand = total_allocations as f64 * 1000.0 / total_inputs as f64;
    println!("{total_allocations} allocations over {total_inputs} inputs ({per_thousand:.2} per 1000)");
    // About one a game: the first debt gives the debt list its buffer.
    assert!(per_thousand < 1.0, "{per_thousand:.2} allocations per 1000 inputs");
}
