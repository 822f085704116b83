//! Chance and Community Chest cards: what a card does, as data.
//!
//! The decks of each edition are tables of [`Card`] in [`crate::edition`]. A deck is shuffled by
//! its first pass: each draw is a chance event uniform over the cards nobody has seen yet. A card
//! drawn goes under the deck, so the state then knows the order of the cards seen, and once all
//! have been seen the order repeats (see [`DeckState`]; option `reshuffle_decks` shuffles afresh
//! at each pass instead).

use serde::{Deserialize, Serialize};

/// Cards per deck.
pub const DECK_SIZE: usize = 16;

/// What a card makes happen. Amounts are in the edition's currency units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Move forward to a square; passing GO pays the salary.
    AdvanceTo(u8),
    /// Move forward to the nearest railway; pay its owner twice the rent, or buy it if unowned.
    NearestRailway,
    /// Move forward to the nearest utility; roll and pay its owner ten times the roll, or buy it.
    NearestUtility,
    /// Move back this many squares and resolve the square reached (no GO salary).
    GoBack(u8),
    GoToJail,
    /// Kept until used or traded, then goes back under its own deck.
    GetOutOfJail,
    Collect(u32),
    Pay(u32),
    PayEachPlayer(u32),
    CollectFromEachPlayer(u32),
    /// Pay per house and per hotel owned.
    Repairs {
        house: u32,
        hotel: u32,
    },
}

/// One printed card.
#[derive(Clone, Copy, Debug)]
pub struct Card {
    pub text: &'static str,
    pub effect: Effect,
}

/// What the state knows of one deck.
///
/// **Under the deck** (the books, default): the deck is shuffled once; a card drawn is applied and
/// put at the bottom (000 «remets-la sous le paquet»), a kept "get out of jail" card goes to the
/// bottom when it is used or given back. The state knows the cards never drawn yet (`drawn`
/// clear), which lie on top in an order nobody knows, and below them the cards already seen, in
/// the order they went under (`queue`). While unseen cards are left, a draw is a chance event
/// uniform over them (the first pass is the shuffle); after that the next card is the front of
/// the queue, and the chance event has a single certain outcome. A player with a good memory
/// could know it, as at a real table.
///
/// **Reshuffle** (option `reshuffle_decks`): a cycle ends when every card not held by a player
/// has been drawn, and the next cycle starts with all of them (a fresh shuffle); a held card is
/// marked drawn while it is out, so a returned one waits for the next cycle. The queue stays
/// empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeckState {
    /// Bit i set: card i has been drawn (in this cycle, or ever when cards go under the deck),
    /// or is held by a player.
    pub drawn: u16,
    /// Bit i set: card i is held by a player.
    pub held: u16,
    /// The cards under the unseen ones, from the next to be drawn (low 4 bits) to the bottom.
    #[serde(default)]
    pub queue: u64,
    /// How many cards `queue` holds (0..=16).
    #[serde(default)]
    pub queued: u8,
}

const ALL: u16 = u16::MAX;

impl DeckState {
    /// Cards that may come up on the next draw: one certain card once a deck that goes under
    /// itself has been seen through.
    pub fn remaining(&self) -> u16 {
        let left = !self.drawn;
        if left != 0 {
            left
        } else if self.queued > 0 {
            1 << self.front()
        } else {
            ALL & !self.held
        }
    }

    /// The card at the front of the queue (meaningful when `queued > 0`).
    fn front(&self) -> u8 {
        (self.queue & 0xF) as u8
    }

    /// The queued cards, from the next to the bottom.
    pub fn queued_cards(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.queued).map(|k| (self.queue >> (4 * k) & 0xF) as u8)
    }

    /// Take card `i` from the top (one of [`DeckState::remaining`]). With `reshuffle`, start a
    /// new cycle if it was the last of this one.
    pub fn draw(&mut self, i: u8, reshuffle: bool) {
        if !reshuffle && self.drawn == ALL {
            debug_assert_eq!(self.front(), i, "the front of the queue is drawn");
            self.queue >>= 4;
            self.queued -= 1;
            return;
        }
        if reshuffle && self.drawn == ALL {
            self.drawn = self.held;
        }
        self.drawn |= 1 << i;
    }

    /// Put card `i` at the bottom of the deck (nothing to remember when decks are reshuffled).
    pub fn put_under(&mut self, i: u8, reshuffle: bool) {
        if !reshuffle {
            self.queue |= (i as u64) << (4 * self.queued);
            self.queued += 1;
        }
    }

    pub fn take(&mut self, i: u8) {
        self.held |= 1 << i;
    }

    /// A held card goes back under its deck: at the bottom, or (reshuffling) marked drawn until
    /// the next cycle.
    pub fn give_back(&mut self, i: u8, reshuffle: bool) {
        self.held &= !(1 << i);
        self.put_under(i, reshuffle);
    }

    /// Do the fields fit together? Every card is in exactly one place: unseen, queued or held
    /// (under the deck), or the queue is empty (reshuffling).
    pub fn is_consistent(&self, reshuffle: bool) -> bool {
        if self.held & !self.drawn != 0 || self.queued as usize > DECK_SIZE {
            return false;
        }
        let used = 4 * self.queued as u32;
        if used < 64 && self.queue >> used != 0 {
            return false;
        }
        if reshuffle {
            return self.queued == 0;
        }
        let queued = self.queued_cards().try_fold(0u16, |seen, c| (seen & (1 << c) == 0).then_some(seen | 1 << c));
        queued.is_some_and(|q| q & self.held == 0 && q | self.held == self.drawn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reshuffled_cycle_draws_every_card_once_then_restarts() {
        let mut deck = DeckState::default();
        for i in 0..16 {
            assert_ne!(deck.remaining() & (1 << i), 0);
            deck.draw(i, true);
            deck.put_under(i, true);
            assert_eq!(deck.remaining() & (1 << i), if i == 15 { 1 << i } else { 0 });
        }
        assert_eq!(deck.remaining(), ALL);
        assert!(deck.is_consistent(true));
    }

    #[test]
    fn a_reshuffled_held_card_is_not_drawn_until_returned_and_the_cycle_turns() {
        let mut deck = DeckState::default();
        deck.draw(3, true);
        deck.take(3);
        for i in (0..16).filter(|&i| i != 3) {
            deck.draw(i, true);
        }
        assert_eq!(deck.remaining(), ALL & !(1 << 3));
        deck.draw(0, true);
        assert_eq!(deck.remaining() & (1 << 3), 0);
        deck.give_back(3, true);
        assert_eq!(deck.remaining() & (1 << 3), 0, "returned card waits for the next cycle");
    }

    #[test]
    fn under_the_deck_the_first_pass_is_drawn_then_its_order_repeats() {
        let mut deck = DeckState::default();
        let order = [5u8, 0, 15, 9, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14];
        for (k, &card) in order.iter().enumerate() {
            assert_eq!(deck.remaining().count_ones() as usize, 16 - k, "a uniform draw over the unseen cards");
            deck.draw(card, false);
            deck.put_under(card, false);
            assert!(deck.is_consistent(false));
        }
        for _ in 0..3 {
            for &card in &order {
                assert_eq!(deck.remaining(), 1 << card, "the order repeats");
                deck.draw(card, false);
                deck.put_under(card, false);
            }
        }
        assert!(deck.is_consistent(false));
    }

    #[test]
    fn under_the_deck_a_returned_jail_card_goes_to_the_bottom() {
        let mut deck = DeckState::default();
        deck.draw(7, false);
        deck.take(7);
        for i in (0..16).filter(|&i| i != 7) {
            deck.draw(i, false);
            deck.put_under(i, false);
        }
        assert!(deck.is_consistent(false));
        deck.draw(0, false);
        deck.put_under(0, false);
        deck.give_back(7, false);
        assert!(deck.is_consistent(false));
        let next: Vec<u8> = deck.queued_cards().collect();
        assert_eq!(next, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 0, 7]);
    }

    #[test]
    fn inconsistent_decks_are_recognised() {
        let mut deck = DeckState::default();
        deck.draw(2, false);
        deck.put_under(2, false);
        assert!(deck.is_consistent(false) && !deck.is_consistent(true));
        assert!(!DeckState { drawn: 0b101, ..deck }.is_consistent(false), "a card drawn but nowhere");
        assert!(!DeckState { queue: 2 | 2 << 4, queued: 2, drawn: 1 << 2, held: 0 }.is_consistent(false));
        assert!(!DeckState { queue: 2 << 8, ..deck }.is_consistent(false));
        assert!(!DeckState { held: 1 << 2, ..deck }.is_consistent(false));
    }
}
