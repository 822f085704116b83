//! What a bot is: something that picks a move for the seat the game waits for.

use lanopoly_engine::{Action, Game, Resolver};

/// A player that chooses moves through the same API as people: it sees the game (never the
/// future of chance: the resolver it gets is its own, for its own random choices) and returns
/// one move for `seat`, which must be legal (`game.check` accepts it).
pub trait Policy: Send + Sync {
    /// A short name for reports ("random", "heuristic", ...).
    fn name(&self) -> &str;

    /// Choose a move for `seat`, the seat the game waits for now.
    fn choose(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Action;
}
