//! Chance and Community Chest cards: what a card does, as data.
//!
//! The decks of each edition are tables of [`Card`] in [`crate::edition`]. A deck is never stored
//! in an order: the state only remembers which cards of the current cycle have been drawn (see
//! [`DeckState`]), and a draw is a chance event uniform over the rest, so reading the state never
//! tells the next card.

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

/// What the state knows of one deck: the cards of the current cycle already drawn.
///
/// A physical deck has its drawn cards put at the bottom; here a cycle ends when every card not
/// held by a player has been drawn, and the next cycle starts with all of them (a fresh shuffle).
/// A held "get out of jail" card is marked drawn while it is out, so a returned one waits for the
/// next cycle, as a card put under the deck would.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeckState {
    /// Bit i set: card i has been drawn in this cycle (or is held by a player).
    pub drawn: u16,
    /// Bit i set: card i is held by a player.
    pub held: u16,
}

const ALL: u16 = u16::MAX;

impl DeckState {
    /// Cards that may come up on the next draw.
    pub fn remaining(&self) -> u16 {
        let left = !self.drawn;
        if left == 0 {
            ALL & !self.held
        } else {
            left
        }
    }

    /// Record that card `i` was drawn; start a new cycle if it was the last of this one.
    pub fn draw(&mut self, i: u8) {
        if self.drawn == ALL {
            self.drawn = self.held;
        }
        self.drawn |= 1 << i;
    }

    pub fn take(&mut self, i: u8) {
        self.held |= 1 << i;
    }

    /// A held card goes back under its deck: it stays marked drawn until the next cycle.
    pub fn give_back(&mut self, i: u8) {
        self.held &= !(1 << i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_draws_every_card_once_then_restarts() {
        let mut deck = DeckState::default();
        for i in 0..16 {
            assert_ne!(deck.remaining() & (1 << i), 0);
            deck.draw(i);
            assert_eq!(deck.remaining() & (1 << i), if i == 15 { 1 << i } else { 0 });
        }
        assert_eq!(deck.remaining(), ALL);
    }

    #[test]
    fn a_held_card_is_not_drawn_until_returned_and_the_cycle_turns() {
        let mut deck = DeckState::default();
        deck.draw(3);
        deck.take(3);
        for i in (0..16).filter(|&i| i != 3) {
            deck.draw(i);
        }
        assert_eq!(deck.remaining(), ALL & !(1 << 3));
        deck.draw(0);
        assert_eq!(deck.remaining() & (1 << 3), 0);
        deck.give_back(3);
        assert_eq!(deck.remaining() & (1 << 3), 0, "returned card waits for the next cycle");
    }
}
