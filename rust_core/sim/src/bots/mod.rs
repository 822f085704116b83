//! The bots, selectable by name.

mod heuristic;
mod random;
mod search;

pub use heuristic::{HeuristicBot, JailStrategy, Memory};
pub use random::RandomBot;
pub use search::{SearchBot, SearchMemory, Searched};

use crate::policy::Policy;

/// Names of the built-in bots.
pub const BOTS: [&str; 3] = ["random", "heuristic", "search"];

/// A new bot by name, or `None` if there is no such bot.
pub fn by_name(name: &str) -> Option<Box<dyn Policy>> {
    match name {
        "random" => Some(Box::new(RandomBot::default())),
        "heuristic" => Some(Box::new(HeuristicBot::default())),
        "search" => Some(Box::new(SearchBot::default())),
        _ => None,
    }
}
