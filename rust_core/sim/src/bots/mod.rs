//! The bots, selectable by name, with parameters (`heuristic(jail=stay)`: see [`from_spec`]).

mod heuristic;
mod random;
mod search;
mod spec;

pub use heuristic::{HeuristicBot, JailStrategy, Memory};
pub use random::RandomBot;
pub use search::{SearchBot, SearchMemory, Searched};
pub use spec::{from_spec, parameters};

use crate::policy::Policy;
use lanopoly_engine::{Action, Game};

/// Names of the built-in bots.
pub const BOTS: [&str; 3] = ["random", "heuristic", "search"];

/// A new bot by name (or by spec, see [`from_spec`]), or `None` if there is no such bot.
pub fn by_name(name: &str) -> Option<Box<dyn Policy>> {
    from_spec(name).ok()
}

/// Rent owed to `seat` that it may claim now (the first open claim), as every built-in bot claims
/// it out of turn: rent must be claimed in time in the printed books, and a claim never costs.
/// Taken from the engine's own list ([`Game::first_claim`]), so it is legal without a check.
#[inline]
pub fn owed_claim(game: &Game, seat: u8) -> Option<Action> {
    if game.claims.is_empty() {
        return None; // (most decisions: no call)
    }
    game.first_claim(seat)
}
