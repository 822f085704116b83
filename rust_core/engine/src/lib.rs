//! lanopoly-engine: the deterministic rules of the property-trading board game, in pure Rust.
//!
//! A [`Game`] is the complete state. It moves forward only by inputs: a player's [`Move`]
//! (checked; an illegal one is refused with a reason and changes nothing) or a chance
//! [`Outcome`] (dice, a card, a dealt deed) at a chance node. The same inputs give the same state
//! and the same [`Game::state_hash`] on every machine. Randomness never lives in the state: use
//! [`Game::outcome_from_bytes`] or a seeded [`Resolver`] to pick outcomes. (Cards drawn go under
//! their deck, so the state knows the order of the cards already seen, as players at a table do;
//! see [`cards`].)
//!
//! ```
//! use lanopoly_engine::{Action, BoardId, Game, Move, Resolver, Rules};
//! let mut game = Game::new(2, BoardId::Classic, Rules::default()).unwrap();
//! let mut dice = Resolver::new(7);
//! while game.is_chance_node() {
//!     let outcome = game.sample_outcome(&mut dice).unwrap();
//!     game.apply_chance(outcome).unwrap();
//! }
//! let player = game.actor().unwrap();
//! game.apply(Move { player, action: Action::Roll }).unwrap();
//! assert!(game.is_chance_node());
//! ```
//!
//! The rules follow `shared/RULES.md`; the points the rulebooks leave open are settled in the
//! module docs: [`bank`] (several creditors), [`building`] (shortage), [`auction`] (bidding),
//! [`cards`] (deck order), [`trade`]; the options and presets are in [`rules`].

#![forbid(unsafe_code)]

pub mod action;
pub mod auction;
pub mod bank;
pub mod board;
pub mod bot;
pub mod building;
pub mod cards;
pub mod chance;
pub mod deeds;
pub mod edition;
pub mod error;
pub mod event;
pub mod game;
pub mod hash;
pub mod plain;
pub mod rules;
pub mod state;
pub mod trade;
pub mod turn;

pub use action::{Action, Bundle, Input, Move, Offer, Outcome};
pub use board::Deck;
pub use chance::{Chance, Resolver};
pub use edition::BoardId;
pub use error::{IllegalAction, Refused};
pub use event::{Event, Party, Reason};
pub use game::verify_trusted;
pub use rules::{RentClaim, Rules, PRESETS};
pub use state::{Game, Phase, HOTEL, NOBODY};
