//! The bots, selectable by name.

mod heuristic;
mod random;

pub use heuristic::{HeuristicBot, JailStrategy, Memory};
pub use random::RandomBot;

use crate::policy::Policy;

/// Names of the built-in bots.
pub const BOTS: [&str; 2] = ["random", "heuristic"];

/// A new bot by name, or `None` if there is no such bot.
pub fn by_name(name: &str) -> Option<Box<dyn Policy>> {
    match name {
        "random" => Some(Box::new(RandomBot::default())),
        "heuristic" => Some(Box::new(HeuristicBot::default())),
        _ => None,
    }
}
