//! Chance: which outcomes a chance event can have, with exact probabilities, and how randomness
//! becomes an outcome.
//!
//! Two ways in, both exact: [`Game::outcome_from_bytes`] maps a string of random bytes (for
//! instance the joint randomness of networked peers) to an outcome, and [`Resolver`], a seeded
//! SplitMix64 generator, does the same for local play and simulation. Both draw a uniform number
//! below n by rejection, so every outcome has exactly its probability. Dice are drawn as one of 36
//! equally likely ordered pairs and reported smaller first (the 21 unordered outcomes).

use crate::action::Outcome;
use crate::board::{self, PROPERTIES};
use crate::error::Legal;
use crate::state::{Game, Pending, NOBODY};
use crate::{deny, ensure};
use sha2::{Digest, Sha256};

/// One possible outcome and its probability `weight / total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chance {
    pub outcome: Outcome,
    pub weight: u32,
    pub total: u32,
}

/// The ordered pair of dice for cell 0..36, smaller die first.
#[inline]
fn dice_cell(cell: u32) -> Outcome {
    let (a, b) = DICE_CELLS[cell as usize];
    Outcome::Dice(a, b)
}

/// [`dice_cell`]'s answers, worked out once: the first die is `cell / 6 + 1`, the second
/// `cell % 6 + 1`, reported smaller first.
const DICE_CELLS: [(u8, u8); 36] = {
    let mut cells = [(0, 0); 36];
    let mut cell = 0;
    while cell < 36 {
        let (a, b) = ((cell / 6) as u8 + 1, (cell % 6) as u8 + 1);
        cells[cell] = if a <= b { (a, b) } else { (b, a) };
        cell += 1;
    }
    cells
};

/// The `k`-th set bit of a mask (k from 0).
fn nth_bit(mask: u32, k: u32) -> u8 {
    board::bits(mask).nth(k as usize).expect("k < popcount")
}

/// The equally likely cells of a pending chance event: the 36 ordered pairs of dice, or one per
/// set bit of a mask (the cards left in a deck, the deeds still with the bank).
#[derive(Clone, Copy)]
enum Cells {
    Dice,
    Cards(u32),
    Deeds(u32),
}

impl Cells {
    /// How many cells there are.
    #[inline]
    fn count(self) -> u32 {
        match self {
            Cells::Dice => 36,
            Cells::Cards(mask) | Cells::Deeds(mask) => mask.count_ones(),
        }
    }

    /// The outcome of cell `k` (below [`Cells::count`]).
    #[inline]
    fn outcome(self, k: u32) -> Outcome {
        match self {
            Cells::Dice => dice_cell(k),
            Cells::Cards(mask) => Outcome::Card(nth_bit(mask, k)),
            Cells::Deeds(mask) => Outcome::Deed(nth_bit(mask, k)),
        }
    }
}

impl Game {
    /// Bit mask of the deeds still with the bank (those that may be dealt).
    fn unowned(&self) -> u32 {
        self.holdings(NOBODY)
    }

    /// The cells of the pending event (`None` if none is pending), read once for both the count
    /// and the outcome.
    #[inline(always)]
    fn cells(&self) -> Option<Cells> {
        Some(match self.pending? {
            Pending::MoveDice | Pending::OrderDice | Pending::UtilityDice { .. } => Cells::Dice,
            Pending::Card(deck) => Cells::Cards(self.decks[deck as usize].remaining() as u32),
            Pending::Deed => Cells::Deeds(self.unowned()),
        })
    }

    /// How many equally likely cells the pending event has (0 if none is pending).
    fn cell_count(&self) -> u32 {
        self.cells().map_or(0, Cells::count)
    }

    /// The outcome of cell `k` (below [`Self::cell_count`]) of the pending event.
    fn cell(&self, k: u32) -> Outcome {
        self.cells().expect("a chance event is pending").outcome(k)
    }

    /// Every outcome the pending chance event can have, with its exact probability.
    pub fn chance_outcomes(&self) -> Vec<Chance> {
        let n = self.cell_count();
        let mut out: Vec<Chance> = Vec::with_capacity(21);
        for k in 0..n {
            let outcome = self.cell(k);
            match out.iter_mut().find(|c| c.outcome == outcome) {
                Some(c) => c.weight += 1,
                None => out.push(Chance { outcome, weight: 1, total: n }),
            }
        }
        out
    }

    /// Is this outcome possible for the pending chance event?
    pub fn check_outcome(&self, outcome: Outcome) -> Legal {
        let Some(pending) = self.pending else { deny!("no chance event is pending: a player must act") };
        match (pending, outcome) {
            (Pending::MoveDice | Pending::OrderDice | Pending::UtilityDice { .. }, Outcome::Dice(a, b)) => {
                ensure!((1..=6).contains(&a) && (a..=6).contains(&b), "dice are 1 to 6, smaller first");
            }
            (Pending::Card(deck), Outcome::Card(card)) => {
                let left = self.decks[deck as usize].remaining();
                ensure!(card < 16 && left & (1 << card) != 0, "card {card} is not in the deck now", card = card);
            }
            (Pending::Deed, Outcome::Deed(property)) => {
                ensure!(
                    (property as usize) < PROPERTIES && self.owner(property) == NOBODY,
                    "deed {property} is not with the bank",
                    property = property
                );
            }
            (Pending::MoveDice | Pending::OrderDice | Pending::UtilityDice { .. }, _) => {
                deny!("the pending chance event needs dice")
            }
            (Pending::Card(_), _) => deny!("the pending chance event needs a card"),
            (Pending::Deed, _) => deny!("the pending chance event needs a deed"),
        }
        Ok(())
    }

    /// Map random bytes to an outcome of the pending event with exactly the right odds.
    ///
    /// The bytes seed a SHA-256 counter stream, read 64 bits at a time and rejected above the
    /// largest multiple of n; any input of 16 or more random bytes is plenty.
    pub fn outcome_from_bytes(&self, bytes: &[u8]) -> Option<Outcome> {
        let n = self.cell_count();
        if n == 0 {
            return None;
        }
        let mut counter = 0u32;
        let k = uniform(n, || {
            let mut h = Sha256::new();
            h.update(b"lanopoly/chance/v1");
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
            h.update(counter.to_le_bytes());
            counter += 1;
            u64::from_le_bytes(h.finalize()[..8].try_into().expect("8 bytes"))
        });
        Some(self.cell(k))
    }

    /// Draw an outcome of the pending event with a seeded resolver.
    ///
    /// The pending event is read once for the count of its cells and the outcome (what
    /// [`Game::cell_count`] and [`Game::cell`] read each); dice, most of the draws, draw below the
    /// constant 36.
    #[inline(always)]
    pub fn sample_outcome(&self, resolver: &mut Resolver) -> Option<Outcome> {
        match self.cells()? {
            Cells::Dice => Some(dice_cell(resolver.below(36))),
            cells => {
                let n = cells.count();
                (n > 0).then(|| cells.outcome(resolver.below(n)))
            }
        }
    }

    /// Play on from a chance event to the next decision in one call: draw the pending event's
    /// outcome from `chance` and apply it, again while another event follows (the dice of a
    /// roll, then a card, then a utility's dice), until the game waits for a player, at most
    /// `budget` outcomes. Each outcome is exactly what [`Game::sample_outcome`] and
    /// [`Game::apply_chance_trusted`] give one at a time (the same rule functions, the same
    /// stream), so the state and events are the step-by-step ones; `each` sees the game after
    /// every outcome, with the outcome and the event it answered. Returns how many were applied.
    ///
    /// Nobody can act while an event is pending, so a driver that resolves them together skips
    /// no one's decision: a roll and its forced consequences become one call between two choices.
    pub fn resolve_chance(
        &mut self,
        chance: &mut Resolver,
        budget: u32,
        mut each: impl FnMut(&Game, Outcome, Pending),
    ) -> u32 {
        let mut applied = 0;
        while applied < budget {
            let Some(pending) = self.pending else { break };
            let outcome = self.sample_outcome(chance).expect("a pending chance event has outcomes");
            self.apply_outcome_trusted(pending, outcome);
            each(self, outcome, pending);
            applied += 1;
        }
        applied
    }
}

/// A uniform number below `n` from a stream of 64-bit words, by rejection (exact).
#[inline]
fn uniform(n: u32, mut next: impl FnMut() -> u64) -> u32 {
    let n = n as u64;
    let zone = u64::MAX - (u64::MAX % n) - 1;
    loop {
        let x = next();
        if x <= zone {
            return (x % n) as u32;
        }
    }
}

/// SplitMix64: a small, portable, seeded generator for local play and simulation. It lives
/// outside the state: nothing in a game predicts its future.
#[derive(Clone, Debug)]
pub struct Resolver {
    state: u64,
}

impl Resolver {
    pub fn new(seed: u64) -> Self {
        Resolver { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Where the stream is: `Resolver::new(r.state())` continues exactly where `r` is (to save
    /// a game with its chance stream, e.g. when pickling it).
    pub fn state(&self) -> u64 {
        self.state
    }

    /// A uniform number below `n` (n > 0), exact.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        uniform(n, || self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_golden_vector() {
        // Reference values of SplitMix64 seeded with 1234567 (Vigna's splitmix64.c).
        let mut r = Resolver::new(1234567);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, [6457827717110365317, 3203168211198807973, 9817491932198370423]);
    }

    #[test]
    fn a_resolver_made_from_the_state_of_another_continues_it() {
        let mut r = Resolver::new(77);
        r.below(36);
        let mut twin = Resolver::new(r.state());
        assert!((0..100).all(|_| r.next_u64() == twin.next_u64()));
    }

    #[test]
    fn uniform_is_exact_on_small_n() {
        // With n = 36, every residue is reached equally often over the full accepted zone; check
        // that a stream of consecutive words maps evenly.
        let mut counts = [0u32; 36];
        let mut x = 0u64;
        for _ in 0..36 * 100 {
            counts[uniform(36, || {
                x += 1;
                x - 1
            }) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c == 100));
    }

    #[test]
    fn dice_cells_give_the_21_outcomes_with_their_weights() {
        let mut seen = std::collections::BTreeMap::new();
        for cell in 0..36 {
            let (a, b) = ((cell / 6) as u8 + 1, (cell % 6) as u8 + 1);
            assert_eq!(dice_cell(cell), Outcome::Dice(a.min(b), a.max(b)), "cell {cell}");
            *seen.entry(format!("{:?}", dice_cell(cell))).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 21);
        assert_eq!(seen.values().filter(|&&w| w == 1).count(), 6);
        assert_eq!(seen.values().filter(|&&w| w == 2).count(), 15);
    }

    /// `sample_outcome`, which reads the pending event once, draws what the cell count and the
    /// cell of that count give with the same stream, at every chance event of random games of
    /// every preset (order dice, dealt deeds, move dice, cards, a utility's dice).
    #[test]
    fn a_sampled_outcome_is_the_cell_of_a_uniform_draw() {
        use crate::action::Move;
        use crate::rules::PRESETS;
        use crate::{BoardId, Rules};
        let mut kinds = std::collections::BTreeSet::new();
        for (i, name) in PRESETS.iter().enumerate() {
            let mut game = Game::new(4, BoardId::Classic, Rules::preset(name).expect("a preset")).expect("a game");
            let mut chance = Resolver::new(i as u64);
            let mut moves = Resolver::new(100 + i as u64);
            for _ in 0..3000 {
                if game.is_over() {
                    break;
                }
                if let Some(pending) = game.pending {
                    kinds.insert(format!("{pending:?}").split([' ', '(']).next().unwrap_or_default().to_string());
                    let mut twin = chance.clone();
                    let outcome = game.sample_outcome(&mut chance).expect("a pending event has outcomes");
                    assert_eq!(outcome, game.cell(twin.below(game.cell_count())), "{name}: {pending:?}");
                    assert_eq!(twin.state(), chance.state());
                    assert!(game.chance_outcomes().iter().any(|c| c.outcome == outcome));
                    game.apply_chance(outcome).expect("a sampled outcome is possible");
                } else {
                    assert_eq!(game.sample_outcome(&mut chance.clone()), None, "{name}: no event pending");
                    let p = game.actor().expect("someone acts");
                    let legal = game.legal_actions(p);
                    let action = legal[moves.below(legal.len() as u32) as usize];
                    game.apply(Move { player: p, action }).expect("a listed action is legal");
                }
            }
        }
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["Card", "Deed", "MoveDice", "OrderDice", "UtilityDice"]);
    }
}
