//! Named, fixed workloads for measuring the engine and its bots: the same games on every machine,
//! so instruction counts (callgrind) can be compared across commits and developers.
//!
//! - `mc`: the closest equal work to the C++ Monte Carlo simulators (no trades, no building, buy
//!   everything, a 100-round cap): the official rules with `round_limit` 100 and no houses or
//!   hotels in the bank, and [`MC_BOT`]. In Python: `Rules.preset("official", round_limit=100,
//!   houses=0, hotels=0)` and `lanopoly.simulate(..., bots=[MC_BOT])`.
//! - `full`: the official rules, no round limit, four default heuristic bots.
//!
//! `benches/callgrind.sh` counts the instructions of either (per dice roll and per player turn).

use crate::simulate::Config;
use lanopoly_engine::{BoardId, Rules};

/// The heuristic bot that plays the MC-equal game: never trades, keeps no reserve, leaves jail
/// at once, never builds beyond what a million in cash allows (so it never builds: there are no
/// houses), and buys every deed it can pay for.
pub const MC_BOT: &str =
    "heuristic(trade_willingness=0,cash_reserve=0,danger_percent=0,max_reserve=0,jail=leave,rich_cash=1000000)";

/// The names of the workloads, in the order they are listed.
pub const WORKLOADS: [&str; 2] = ["mc", "full"];

/// The simulation config of a named workload with `games` games (seed 1, one thread, 4
/// players), or `None` for an unknown name.
pub fn workload(name: &str, games: u32) -> Option<Config> {
    let (rules, bot) = match name {
        "mc" => (Rules { round_limit: 100, houses: 0, hotels: 0, ..Rules::preset("official")? }, MC_BOT),
        "full" => (Rules::preset("official")?, "heuristic"),
        _ => return None,
    };
    Some(Config {
        games,
        first_game: 0,
        players: 4,
        board: BoardId::Classic,
        rules,
        bots: vec![bot.to_string()],
        seed: 1,
        threads: 1,
        max_inputs: 1_000_000,
    })
}

/// A digest of a report (FNV-1a of its debug text): equal digests, equal games. The bots'
/// choices are pinned by such digests: a faster bot must play exactly the same games.
pub fn digest(report: &crate::simulate::Report) -> u64 {
    format!("{report:?}").bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}
