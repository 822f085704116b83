//! `lanopoly._core`: the thin PyO3 layer over `lanopoly-engine`.
//!
//! Only conversions and error mapping live here: moves and outcomes as plain dicts (see
//! [`convert`]), events as dicts (see [`dicts`]), states as snapshots (dicts, via pythonize) and
//! bytes. Errors say by their type what went wrong: `IllegalAction` (a `ValueError`) for a move or
//! chance outcome the rules refuse in this state, `TypeError` for an argument of the wrong Python
//! type, `ValueError` for one of the right type with a bad value, `DecodeError` (a `ValueError`)
//! for corrupt bytes, snapshots or pickles. The rules are all in the engine crate, the bots and
//! the batch stepping in the sim crate.
//!
//! One file per Python class ([`rules`], [`game`], [`bot`], [`vecgame`]); this one holds the
//! error mapping, the module's functions and the module itself.

use lanopoly_engine as engine;
use lanopoly_sim as sim;
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

mod bot;
mod convert;
mod dicts;
mod game;
mod rules;
mod sig;
mod vecgame;

use bot::Bot;
use game::Game;
use rules::Rules;
use sig::{ed25519_verify, Ed25519Key};
use vecgame::VecGame;

create_exception!(
    _core,
    IllegalAction,
    PyValueError,
    "An action or input the rules do not allow now; the message says why and the game is unchanged."
);

create_exception!(
    _core,
    DecodeError,
    PyValueError,
    "Bytes, a snapshot or a pickle that do not decode to a valid state; the message says why."
);

/// The engine's refusal as `IllegalAction`: the English reason as the message, the template as
/// `code` (None for a free text), its fields as the dict `fields`, and the refusal it wraps (if
/// any) as `__cause__`; user interfaces translate refusals from `code` and `fields`.
fn illegal(e: engine::IllegalAction) -> PyErr {
    Python::attach(|py| refusal(py, e))
}

fn refusal(py: Python<'_>, e: engine::IllegalAction) -> PyErr {
    let err = IllegalAction::new_err(e.reason);
    let value = err.value(py);
    let fields = PyDict::new(py);
    let attached = (|| -> PyResult<()> {
        for (name, text) in e.args {
            fields.set_item(name, text)?;
        }
        if !e.code.is_empty() {
            value.setattr("code", e.code)?;
        }
        value.setattr("fields", fields)
    })();
    attached.expect("an exception instance takes attributes");
    if let Some(cause) = e.cause {
        err.set_cause(py, Some(refusal(py, *cause)));
    }
    err
}

/// A `ValueError`: an argument of the right Python type with a bad value (an unknown name, a seat
/// or square out of range, a missing key).
fn bad_value(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A `TypeError`: an argument of the wrong Python type (a string where an integer goes).
fn bad_type(e: impl std::fmt::Display) -> PyErr {
    PyTypeError::new_err(e.to_string())
}

/// A `DecodeError`: bytes, a snapshot or a pickle that are not a valid saved state.
fn corrupt(e: impl std::fmt::Display) -> PyErr {
    DecodeError::new_err(e.to_string())
}

/// A `RuntimeError` for a bot whose lock a panic poisoned (a bug, not the caller's input).
fn bot_failed() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err("the bot failed earlier")
}

/// Python's signals (Ctrl-C) for a long Rust loop: [`Signals::hook`] is an interrupt hook that
/// runs Python's signal handlers (attaching to the interpreter if the loop released it) and
/// keeps the exception a handler raised, for [`Signals::raised`] to return after the loop.
#[derive(Default)]
struct Signals {
    raised: std::sync::Mutex<Option<PyErr>>,
}

impl Signals {
    fn hook(&self) -> bool {
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *self.raised.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
                true
            }
        }
    }

    /// The exception a signal handler raised during the loop (KeyboardInterrupt), if any.
    fn raised(self) -> PyResult<()> {
        match self.raised.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A board from its name, or an error listing the boards.
fn board_id(name: &str) -> PyResult<engine::BoardId> {
    engine::BoardId::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = engine::BoardId::ALL.iter().map(|b| b.name()).collect();
        bad_value(format!("unknown board {name:?}; boards: {}", known.join(", ")))
    })
}

/// A seed from Python: any integer (taken modulo 2**64), or a random one for None.
fn seed_arg(py: Python<'_>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match seed {
        None => py.import("secrets")?.call_method1("randbits", (64,))?.extract(),
        Some(s) => {
            let int = s.cast::<PyInt>().map_err(|_| bad_type("seed is an integer"))?;
            int.call_method1("__mod__", (u64::MAX as u128 + 1,))?.extract()
        }
    }
}

/// `current_player` at a chance node.
const CHANCE: i32 = -1;

/// The names of the squares of a board.
#[pyfunction]
#[pyo3(signature = (board = "classic"))]
fn square_names(board: &str) -> PyResult<Vec<&'static str>> {
    Ok(board_id(board)?.edition().squares.to_vec())
}

/// Run `games` seeded bot games on `threads` threads (default: all cores) with the GIL released.
/// Returns plain lists per game (winner or -1, rounds, turns, actions, bankruptcies, net worths,
/// truncated) and the 41 landing counts; `lanopoly.simulate` wraps this with numpy and progress.
#[pyfunction]
#[pyo3(signature = (games, players = 4, board = "classic", rules = None, bots = None, seed = 0, threads = None, max_inputs = 1_000_000, first_game = 0))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    games: u32,
    players: u8,
    board: &str,
    rules: Option<Rules>,
    bots: Option<Vec<String>>,
    seed: u64,
    threads: Option<usize>,
    max_inputs: u32,
    first_game: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let config = sim::simulate::Config {
        games,
        first_game,
        players,
        board: board_id(board)?,
        rules: rules.map(|r| r.inner).unwrap_or_default(),
        bots: bots.unwrap_or_else(|| vec!["random".to_string()]),
        seed,
        threads,
        max_inputs,
    };
    let signals = Signals::default();
    let hook = || signals.hook();
    let interrupt = sim::interrupt::Interrupt::new(&hook);
    let report = py.detach(|| sim::simulate::simulate_interruptible(&config, &interrupt));
    signals.raised()?;
    let report = report.map_err(bad_value)?;
    let d = PyDict::new(py);
    let column = |f: &dyn Fn(&sim::simulate::GameSummary) -> i64| report.games.iter().map(f).collect::<Vec<i64>>();
    d.set_item("winners", column(&|g| g.winner.map_or(-1, i64::from)))?;
    d.set_item("rounds", column(&|g| g.rounds.into()))?;
    d.set_item("turns", column(&|g| g.turns.into()))?;
    d.set_item("actions", column(&|g| g.actions.into()))?;
    d.set_item("bankruptcies", column(&|g| g.bankruptcies.into()))?;
    d.set_item("truncated", report.games.iter().map(|g| g.truncated).collect::<Vec<bool>>())?;
    d.set_item("net_worths", report.games.iter().map(|g| g.net_worths.clone()).collect::<Vec<Vec<u64>>>())?;
    d.set_item("landings", report.landings.to_vec())?;
    Ok(d)
}

/// The seeds `simulate` gives game `index` of a run with `seed`: (chance, one per seat). A game
/// played from Python with `Game(seed=chance)` and `Bot(name, seed=seat)` is the same game.
#[pyfunction]
fn simulation_seeds(seed: u64, index: u64, players: u8) -> (u64, Vec<u64>) {
    sim::play::Streams::seeds(sim::simulate::game_seed(seed, index), players)
}

/// The names of the built-in bots.
#[pyfunction]
fn bots() -> Vec<&'static str> {
    sim::bots::BOTS.to_vec()
}

/// The parameters a built-in bot takes in its spec (`heuristic(jail=stay)`): (name, meaning).
#[pyfunction]
fn bot_parameters(bot: &str) -> PyResult<Vec<(&'static str, &'static str)>> {
    sim::bots::parameters(bot)
        .ok_or_else(|| bad_value(format!("unknown bot {bot:?}; bots: {}", sim::bots::BOTS.join(", "))))
}

/// The boards there are.
#[pyfunction]
fn boards() -> Vec<&'static str> {
    engine::BoardId::ALL.iter().map(|b| b.name()).collect()
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{
        boards, bot_parameters, bots, ed25519_verify, simulate, simulation_seeds, square_names, Bot, DecodeError,
        Ed25519Key, Game, IllegalAction, Rules, VecGame,
    };

    use pyo3::prelude::*;
    use pyo3::types::{PyDict, PyMapping, PyMappingProxy};

    #[pymodule_export]
    const CHANCE: i32 = super::CHANCE;

    #[pymodule_export]
    const STATE_FORMAT: &str = "lanopoly/s2";

    /// `IllegalAction.code` and `.fields` exist on every instance (a refusal without a template,
    /// or raised from Python, has code None and no fields).
    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let class = m.py().get_type::<IllegalAction>();
        class.setattr("code", m.py().None())?;
        let empty = PyDict::new(m.py()).into_any().cast_into::<PyMapping>()?;
        class.setattr("fields", PyMappingProxy::new(m.py(), &empty))
    }
}
