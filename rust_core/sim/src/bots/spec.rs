//! Bot specs: a built-in bot's name, with parameters in parentheses as OpenSpiel writes games:
//! `heuristic`, `heuristic(jail=stay)`, `search(rollouts=32,max_houses=4)`, `random(max_extra=0)`.
//!
//! Simulations, `VecGame` opponents and Python's `Bot` all take a spec. The parameters of each
//! bot are a table (name, what it sets, how it is read), so an unknown name or a bad value is
//! refused with the list of what there is. The search bot also takes every heuristic parameter:
//! they tune the heuristic player it uses for its own seat and for the decisions it does not
//! search.

use super::{HeuristicBot, JailStrategy, RandomBot, SearchBot, BOTS};
use crate::policy::Policy;

/// One parameter of a bot of type `B`: its name, what it means (for error messages and the
/// docs), and how a value is read into the bot.
struct Param<B> {
    name: &'static str,
    help: &'static str,
    set: fn(&mut B, &str) -> Result<(), String>,
}

/// A whole number in `min..=max`.
fn number<T: TryFrom<u64>>(value: &str, min: u64, max: u64) -> Result<T, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| format!("a whole number from {min} to {max}, not {value:?}"))
}

/// A parameter that sets the bot's field of the same name to a whole number from `min` to `max`.
macro_rules! whole {
    ($field:ident, $min:expr, $max:expr, $help:expr) => {
        Param { name: stringify!($field), help: $help, set: |b, v| number(v, $min, $max).map(|n| b.$field = n) }
    };
}

const MONEY: u64 = 1_000_000;
const PERCENT: u64 = 10_000;

static HEURISTIC: &[Param<HeuristicBot>] = &[
    Param {
        name: "jail",
        help: "leave (at once), stay (roll for a double) or auto (leave while deeds are for sale)",
        set: |b, v| {
            b.jail = match v {
                "leave" => JailStrategy::LeaveAtOnce,
                "stay" => JailStrategy::StayLate,
                "auto" => JailStrategy::Auto,
                _ => return Err(format!("leave, stay or auto, not {v:?}")),
            };
            Ok(())
        },
    },
    whole!(cash_reserve, 0, MONEY, "cash kept back before buying or building"),
    whole!(danger_percent, 0, PERCENT, "the reserve grows by this percent of the highest rent an opponent can charge"),
    whole!(max_reserve, 0, MONEY, "the reserve never grows beyond this"),
    whole!(late_unowned, 0, 28, "auto jail: the game is late once fewer deeds than this are for sale"),
    whole!(late_danger, 0, MONEY, "auto jail: the game is also late once an opponent can charge this much rent"),
    whole!(max_houses, 1, 4, "houses on every street of a group before building beyond"),
    whole!(rich_cash, 0, MONEY, "cash above the reserve needed to build beyond max_houses"),
    whole!(trade_willingness, 0, PERCENT, "first offer for a missing street, in % of its price (0: never proposes)"),
    whole!(trade_step, 0, PERCENT, "percent added by each repeated offer"),
    whole!(trade_max_percent, 0, PERCENT, "offers never go beyond this percentage of the price"),
    whole!(trade_retry_turns, 0, 1_000, "turns before offering again for the same streets"),
    whole!(monopoly_percent, 0, PERCENT, "a complete group is worth this percentage of its prices on top of them"),
    whole!(shortage_percent, 0, PERCENT, "shortage auctions: pay up to this percent of the rent one more house adds"),
    whole!(bid_step_percent, 1, PERCENT, "auction raises: at least this percentage of the lot's value"),
];

static SEARCH: &[Param<SearchBot>] = &[
    whole!(rollouts, 1, 10_000, "rollouts per candidate"),
    whole!(horizon_rounds, 1, 1_000, "a rollout stops after this many rounds"),
];

static RANDOM: &[Param<RandomBot>] =
    &[whole!(max_extra, 0, 1_000, "optional actions (build, sell, mortgage...) per turn at most")];

/// A bot from its spec, or why not.
pub fn from_spec(spec: &str) -> Result<Box<dyn Policy>, String> {
    let (name, params) = split(spec)?;
    match name {
        "heuristic" => {
            let mut bot = HeuristicBot::default();
            apply(name, &params, &mut |k, v| set(HEURISTIC, &mut bot, k, v))?;
            Ok(Box::new(bot))
        }
        "search" => {
            let mut bot = SearchBot::default();
            apply(name, &params, &mut |k, v| match set(SEARCH, &mut bot, k, v) {
                Err(SetError::Unknown) => set(HEURISTIC, &mut bot.inner, k, v),
                done => done,
            })?;
            Ok(Box::new(bot))
        }
        "random" => {
            let mut bot = RandomBot::default();
            apply(name, &params, &mut |k, v| set(RANDOM, &mut bot, k, v))?;
            Ok(Box::new(bot))
        }
        _ => Err(format!("unknown bot {name:?}; bots: {}", BOTS.join(", "))),
    }
}

/// The parameters a bot takes: (name, what it means), in the order of the docs.
pub fn parameters(bot: &str) -> Option<Vec<(&'static str, &'static str)>> {
    fn of<B>(table: &[Param<B>]) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        table.iter().map(|p| (p.name, p.help))
    }
    match bot {
        "heuristic" => Some(of(HEURISTIC).collect()),
        "search" => Some(of(SEARCH).chain(of(HEURISTIC)).collect()),
        "random" => Some(of(RANDOM).collect()),
        _ => None,
    }
}

/// The (key, value) pairs of a spec, in order.
type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// `name(k=v,...)` cut into the name and its (key, value) pairs.
fn split(spec: &str) -> Result<(&str, Pairs<'_>), String> {
    let spec = spec.trim();
    let Some(open) = spec.find('(') else { return Ok((spec, Vec::new())) };
    let inner =
        spec[open + 1..].strip_suffix(')').ok_or_else(|| format!("bot spec {spec:?}: the parameters end with ')'"))?;
    let mut params = Vec::new();
    for item in inner.split(',').map(str::trim).filter(|item| !item.is_empty()) {
        let (key, value) =
            item.split_once('=').ok_or_else(|| format!("bot spec {spec:?}: {item:?} is not name=value"))?;
        params.push((key.trim(), value.trim()));
    }
    Ok((spec[..open].trim(), params))
}

/// Setting one parameter: done, or not in the table (another table may have it), or a bad value
/// (with what is expected).
type SetResult = Result<(), SetError>;

enum SetError {
    Unknown,
    Bad(String),
}

fn set<B>(table: &[Param<B>], bot: &mut B, key: &str, value: &str) -> SetResult {
    let param = table.iter().find(|p| p.name == key).ok_or(SetError::Unknown)?;
    (param.set)(bot, value).map_err(SetError::Bad)
}

/// Set every parameter once, or say which one is wrong and why.
fn apply(name: &str, params: &[(&str, &str)], set: &mut dyn FnMut(&str, &str) -> SetResult) -> Result<(), String> {
    for (i, &(key, value)) in params.iter().enumerate() {
        if params[..i].iter().any(|&(k, _)| k == key) {
            return Err(format!("{name}: parameter {key:?} given twice"));
        }
        match set(key, value) {
            Ok(()) => {}
            Err(SetError::Bad(why)) => return Err(format!("{name}: {key} is {why}")),
            Err(SetError::Unknown) => {
                let known: Vec<_> = parameters(name).unwrap_or_default().into_iter().map(|(k, _)| k).collect();
                return Err(format!("{name} has no parameter {key:?}; parameters: {}", known.join(", ")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heuristic(spec: &str) -> Result<HeuristicBot, String> {
        let (name, params) = split(spec)?;
        let mut bot = HeuristicBot::default();
        apply(name, &params, &mut |k, v| set(HEURISTIC, &mut bot, k, v))?;
        Ok(bot)
    }

    #[test]
    fn parameters_set_the_bot() {
        let bot = heuristic(" heuristic( jail = stay , max_houses=4,cash_reserve=250 ) ").expect("a valid spec");
        assert_eq!((bot.jail, bot.max_houses, bot.cash_reserve), (JailStrategy::StayLate, 4, 250));
        assert_eq!(heuristic("heuristic()").expect("no parameters").cash_reserve, HeuristicBot::default().cash_reserve);
        // Every numeric parameter takes 1, and changes what the bot is.
        let plain = format!("{:?}", HeuristicBot::default());
        for param in HEURISTIC.iter().filter(|p| p.name != "jail") {
            let bot = heuristic(&format!("heuristic({}=1)", param.name)).expect("1 is in range");
            assert_ne!(format!("{bot:?}"), plain, "{} changed nothing", param.name);
        }
    }

    #[test]
    fn the_search_bot_takes_its_own_and_the_heuristic_parameters() {
        let (name, params) = split("search(rollouts=3,horizon_rounds=5,jail=leave)").expect("a valid spec");
        let mut bot = SearchBot::default();
        apply(name, &params, &mut |k, v| match set(SEARCH, &mut bot, k, v) {
            Err(SetError::Unknown) => set(HEURISTIC, &mut bot.inner, k, v),
            done => done,
        })
        .expect("valid parameters");
        assert_eq!((bot.rollouts, bot.horizon_rounds, bot.inner.jail), (3, 5, JailStrategy::LeaveAtOnce));
        assert!(parameters("search").expect("a bot").iter().any(|&(k, _)| k == "max_houses"));
        for spec in ["random", "random(max_extra=0)", "heuristic", "search(rollouts=2)"] {
            assert!(from_spec(spec).is_ok(), "{spec}");
        }
    }

    #[test]
    fn a_bad_spec_says_what_is_wrong() {
        let error = |spec: &str| from_spec(spec).err().expect("refused");
        assert_eq!(error("clever"), "unknown bot \"clever\"; bots: random, heuristic, search");
        assert!(error("heuristic(greed=3)")
            .starts_with("heuristic has no parameter \"greed\"; parameters: jail, cash_reserve,"));
        assert_eq!(error("heuristic(max_houses=9)"), "heuristic: max_houses is a whole number from 1 to 4, not \"9\"");
        assert_eq!(error("heuristic(jail=never)"), "heuristic: jail is leave, stay or auto, not \"never\"");
        assert_eq!(error("random(max_extra=-1)"), "random: max_extra is a whole number from 0 to 1000, not \"-1\"");
        assert_eq!(error("heuristic(jail=stay,jail=leave)"), "heuristic: parameter \"jail\" given twice");
        assert_eq!(error("heuristic(jail=stay"), "bot spec \"heuristic(jail=stay\": the parameters end with ')'");
        assert_eq!(error("heuristic(stay)"), "bot spec \"heuristic(stay)\": \"stay\" is not name=value");
        assert!(error("search(rollouts=0)").contains("rollouts is a whole number from 1"));
    }
}
