//! What a bot is: something that picks a move for the seat the game waits for, and may move out
//! of turn.

use lanopoly_engine::{Action, Game, Resolver};

/// A player that chooses moves through the same API as people: it sees the game (never the
/// future of chance: the resolver it gets is its own, for its own random choices) and returns
/// one move for `seat`, which must be legal (`game.check` accepts it).
pub trait Policy: Send + Sync {
    /// A short name for reports ("random", "heuristic", ...).
    fn name(&self) -> &str;

    /// Choose a move for `seat`, the seat the game waits for now.
    fn choose(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Action;

    /// A move of `seat` out of turn, while the game waits for another seat, or `None` to stay
    /// quiet. Drivers ask it once after every input for each seat still in that is not the one
    /// to act (see [`crate::play::interjections`]). Rent must be claimed before the next rolls
    /// (the printed books), while the payer's turn goes on: the built-in bots claim here what is
    /// owed to them ([`crate::bots::owed_claim`]). By default a policy never moves out of turn.
    fn interject(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Option<Action> {
        let _ = (game, seat, rng);
        None
    }
}
