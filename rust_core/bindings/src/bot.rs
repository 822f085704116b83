//! `Bot`: a built-in bot as a Python policy.

use crate::game::Game;
use crate::{bad_type, bad_value, bot_failed, convert, corrupt};
use lanopoly_engine as engine;
use lanopoly_sim as sim;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// A built-in bot (see `bots()`), usable as a policy from Python: `choose(game, seat, legal)`.
#[pyclass(module = "lanopoly._core", name = "Bot")]
pub(crate) struct Bot {
    name: String,
    // A bot is used from one thread at a time; the mutex only makes the pyclass Sync.
    policy: std::sync::Mutex<Box<dyn sim::Policy>>,
    rng: engine::Resolver,
}

#[pymethods]
impl Bot {
    #[new]
    #[pyo3(signature = (name = "heuristic", seed = 0))]
    fn new(name: &str, seed: u64) -> PyResult<Self> {
        let policy = sim::bots::from_spec(name).map_err(bad_value)?;
        Ok(Bot { name: name.to_string(), policy: std::sync::Mutex::new(policy), rng: engine::Resolver::new(seed) })
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The bot's move for `seat` (the seat the game waits for); `legal` is ignored (the bot asks
    /// the engine itself) and accepted so that a Bot is a `lanopoly.Policy`.
    #[pyo3(signature = (game, seat, legal = None))]
    fn choose<'py>(
        &mut self,
        py: Python<'py>,
        game: PyRef<'_, Game>,
        seat: i64,
        legal: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let _ = legal;
        let seat = game.seat(seat)?;
        if game.inner.actor() != Some(seat) {
            return Err(bad_value(format!("the game does not wait for seat {seat}")));
        }
        let mut policy = self.policy.lock().map_err(|_| bot_failed())?;
        let action = policy.choose(&game.inner, seat, &mut self.rng);
        convert::move_to(py, engine::Move { player: seat, action })
    }

    /// The bot's move out of turn for `seat` (the game waits for another seat), or None: the
    /// built-in bots claim the rent owed to them and answer the trade offers made to them (as on
    /// their turn). `legal` is ignored, as for `choose`; the console and LAN drivers ask this
    /// after every step (see `lanopoly.bots.Interjecting`).
    #[pyo3(signature = (game, seat, legal = None))]
    fn interject<'py>(
        &mut self,
        py: Python<'py>,
        game: PyRef<'_, Game>,
        seat: i64,
        legal: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let _ = legal;
        let seat = game.seat(seat)?;
        if game.inner.is_over() || game.inner.is_chance_node() || game.inner.actor() == Some(seat) {
            return Ok(None);
        }
        let mut policy = self.policy.lock().map_err(|_| bot_failed())?;
        match policy.interject(&game.inner, seat, &mut self.rng) {
            Some(action) => convert::move_to(py, engine::Move { player: seat, action }).map(Some),
            None => Ok(None),
        }
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }

    /// Pickling: a new bot of the same spec (`__getnewargs__`), then its memory and random
    /// stream (`__getstate__`, `__setstate__`), so that it goes on choosing as it would have.
    fn __getnewargs__(&self) -> (String, u64) {
        (self.name.clone(), 0)
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        let policy = self.policy.lock().map_err(|_| bot_failed())?;
        let state = policy.save().ok_or_else(|| bad_type(format!("the {} bot cannot be saved", self.name)))?;
        Ok((PyBytes::new(py, &state), self.rng.state()))
    }

    fn __setstate__(&mut self, state: (Vec<u8>, u64)) -> PyResult<()> {
        let mut policy = self.policy.lock().map_err(|_| bot_failed())?;
        policy.load(&state.0).map_err(corrupt)?;
        self.rng = engine::Resolver::new(state.1);
        Ok(())
    }
}
