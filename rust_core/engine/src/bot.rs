//! The simplest policy: uniform over the legal actions of the seat the game waits for.
//!
//! Used by the property tests and the benchmarks; the bots worth playing come with the
//! simulation engine. A random policy never sees the future: at a chance node it draws the
//! outcome with the resolver like everyone else.

use crate::action::{Action, Input, Move};
use crate::chance::Resolver;
use crate::state::Game;

/// A random legal input for the current state, or `None` when the game is over: a chance outcome
/// at a chance node, otherwise a uniformly chosen legal action of the seat the game waits for
/// (a bid at a uniformly chosen legal amount).
pub fn random_input(game: &Game, rng: &mut Resolver) -> Option<Input> {
    if game.is_over() {
        return None;
    }
    if game.is_chance_node() {
        return game.sample_outcome(rng).map(Input::Chance);
    }
    let player = game.actor()?;
    let actions = game.legal_actions(player);
    if actions.is_empty() {
        return None;
    }
    let mut action = actions[rng.below(actions.len() as u32) as usize];
    if let Action::Bid(_) = action {
        let (min, max) = game.bid_range(player)?;
        action = Action::Bid(min + rng.below(max - min + 1));
    }
    Some(Input::Move(Move { player, action }))
}

/// Play random inputs until the game ends or `max_inputs` have been applied; returns how many.
pub fn play_randomly(game: &mut Game, rng: &mut Resolver, max_inputs: u32) -> u32 {
    let mut applied = 0;
    while applied < max_inputs {
        let Some(input) = random_input(game, rng) else { break };
        game.apply_input(input).expect("a listed input is legal");
        applied += 1;
    }
    applied
}
