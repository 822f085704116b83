//! `VecGame`: many games stepped at once with numpy in and out, for learning agents.

use crate::game::Game;
use crate::rules::Rules;
use crate::{bad_type, bad_value, board_id, corrupt, illegal, Signals};
use lanopoly_engine as engine;
use lanopoly_sim as sim;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Many games stepped at once for learning agents (see `lanopoly.rl` and the stub).
#[pyclass(module = "lanopoly._core", name = "VecGame")]
pub(crate) struct VecGame {
    inner: sim::vecgame::VecGame,
}

type StepArrays<'py> = (
    Bound<'py, numpy::PyArray2<f32>>,
    Bound<'py, numpy::PyArray2<bool>>,
    Bound<'py, numpy::PyArray1<i8>>,
    Bound<'py, numpy::PyArray2<f32>>,
    Bound<'py, numpy::PyArray1<bool>>,
    Bound<'py, numpy::PyArray1<bool>>,
);

/// One seat's observation and mask.
type SeatView<'py> = (Bound<'py, numpy::PyArray1<f32>>, Bound<'py, numpy::PyArray1<bool>>);

/// Observation, mask and current player of every game.
type ViewArrays<'py> =
    (Bound<'py, numpy::PyArray2<f32>>, Bound<'py, numpy::PyArray2<bool>>, Bound<'py, numpy::PyArray1<i8>>);

fn to_numpy(py: Python<'_>, out: sim::vecgame::StepBuffers, n: usize, players: usize) -> PyResult<StepArrays<'_>> {
    use numpy::{PyArray1, PyArrayMethods};
    Ok((
        PyArray1::from_vec(py, out.obs).reshape([n, sim::observation::SIZE])?,
        PyArray1::from_vec(py, out.mask).reshape([n, sim::action_space::SIZE])?,
        PyArray1::from_vec(py, out.player),
        PyArray1::from_vec(py, out.rewards).reshape([n, players])?,
        PyArray1::from_vec(py, out.terminated),
        PyArray1::from_vec(py, out.truncated),
    ))
}

impl VecGame {
    /// `step` into the caller's arrays (checked for shape; numpy's borrow checking refuses the
    /// same array twice). The GIL stays held while the games are stepped, so that no Python
    /// thread can read the arrays half-written. An illegal action leaves them untouched; after a
    /// panic or an interrupt their contents are unspecified.
    fn step_into<'py>(&mut self, actions: &[u32], arrays: StepArrays<'py>) -> PyResult<StepArrays<'py>> {
        use numpy::PyUntypedArrayMethods;
        let (mut obs, mut mask, mut player, mut rewards, mut terminated, mut truncated) = (
            writable(&arrays.0)?,
            writable(&arrays.1)?,
            writable(&arrays.2)?,
            writable(&arrays.3)?,
            writable(&arrays.4)?,
            writable(&arrays.5)?,
        );
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
        let shapes: [(&str, &[usize], Vec<usize>); 6] = [
            ("obs", obs.shape(), vec![n, sim::observation::SIZE]),
            ("mask", mask.shape(), vec![n, sim::action_space::SIZE]),
            ("player", player.shape(), vec![n]),
            ("rewards", rewards.shape(), vec![n, players]),
            ("terminated", terminated.shape(), vec![n]),
            ("truncated", truncated.shape(), vec![n]),
        ];
        check_shapes(&shapes)?;
        self.healthy()?;
        let mut view = sim::vecgame::StepOut {
            obs: obs.as_slice_mut()?,
            mask: mask.as_slice_mut()?,
            player: player.as_slice_mut()?,
            rewards: rewards.as_slice_mut()?,
            terminated: terminated.as_slice_mut()?,
            truncated: truncated.as_slice_mut()?,
        };
        let signals = Signals::default();
        let hook = || signals.hook();
        let stepped = self.inner.step_interruptible(actions, &mut view, &sim::interrupt::Interrupt::new(&hook));
        signals.raised()?;
        self.healthy()?;
        stepped.map_err(refused)?;
        Ok(arrays)
    }

    /// `reset_games` writing the new rows into the caller's (obs, mask, player) arrays.
    fn reset_into(&mut self, which: &[bool], arrays: &ViewArrays<'_>) -> PyResult<()> {
        use numpy::PyUntypedArrayMethods;
        let (mut obs, mut mask, mut player) = (writable(&arrays.0)?, writable(&arrays.1)?, writable(&arrays.2)?);
        let n = self.inner.len();
        check_shapes(&[
            ("obs", obs.shape(), vec![n, sim::observation::SIZE]),
            ("mask", mask.shape(), vec![n, sim::action_space::SIZE]),
            ("player", player.shape(), vec![n]),
        ])?;
        let done = self.inner.reset_games(which, obs.as_slice_mut()?, mask.as_slice_mut()?, player.as_slice_mut()?);
        done.map_err(bad_value)
    }

    /// A `RuntimeError` if a step panicked (a bug): the games cannot be trusted until `reset`.
    fn healthy(&self) -> PyResult<()> {
        match self.inner.poisoned() {
            Some(why) => Err(pyo3::exceptions::PyRuntimeError::new_err(why.to_string())),
            None => Ok(()),
        }
    }
}

/// A step the batch refused: with the argument checked (its length, each index in range) and the
/// batch healthy, what is left is an action the rules refuse in its game (`IllegalAction`).
fn refused(why: String) -> PyErr {
    illegal(engine::IllegalAction::new(why))
}

// The default of `max_inputs` in the signature below, written out for Python's signature text.
const _: () = assert!(sim::vecgame::MAX_INPUTS == 1_000_000);

/// An out array borrowed for writing: C-contiguous (a Fortran-ordered array is contiguous too,
/// but the rows are written in C order) and not borrowed elsewhere.
fn writable<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: &Bound<'py, numpy::PyArray<T, D>>,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    use numpy::{PyArrayMethods, PyUntypedArrayMethods};
    if !array.is_c_contiguous() {
        return Err(PyValueError::new_err("out arrays must be C-contiguous"));
    }
    array.try_readwrite().map_err(|e| PyValueError::new_err(format!("out arrays must be distinct and writable ({e})")))
}

/// A `ValueError` naming the first out array whose shape is not the one wanted.
fn check_shapes(shapes: &[(&str, &[usize], Vec<usize>)]) -> PyResult<()> {
    for (name, got, want) in shapes {
        if *got != want.as_slice() {
            return Err(PyValueError::new_err(format!("out {name} has shape {got:?}, not {want:?}")));
        }
    }
    Ok(())
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (n, players = 4, board = "classic", rules = None, seed = 0, max_steps = 20_000, learner = None, opponents = None, threads = 1, max_inputs = 1_000_000))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        n: usize,
        players: u8,
        board: &str,
        rules: Option<Rules>,
        seed: u64,
        max_steps: u32,
        learner: Option<u8>,
        opponents: Option<Vec<String>>,
        threads: usize,
        max_inputs: u32,
    ) -> PyResult<Self> {
        if threads == 0 {
            return Err(bad_value("threads must be at least 1"));
        }
        if max_inputs == 0 {
            return Err(bad_value("max_inputs must be at least 1"));
        }
        let rules = rules.map(|r| r.inner).unwrap_or_default();
        let opponents = opponents.unwrap_or_else(|| vec!["heuristic".to_string()]);
        let mut inner = sim::vecgame::VecGame::with_opponents(
            n,
            players,
            board_id(board)?,
            rules,
            seed,
            max_steps,
            learner,
            &opponents,
        )
        .map_err(bad_value)?;
        inner.set_threads(threads);
        inner.set_max_inputs(max_inputs);
        Ok(VecGame { inner })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.len()
    }

    /// Replace finished games in the same step (default True); False keeps them for `reset`.
    #[getter]
    fn get_autoreset(&self) -> bool {
        self.inner.autoreset
    }

    #[setter]
    fn set_autoreset(&mut self, on: bool) {
        self.inner.autoreset = on;
    }

    /// Inputs after which a game is cut (reported as truncated).
    #[getter]
    fn max_inputs(&self) -> u32 {
        self.inner.max_inputs()
    }

    /// Threads a step uses (contiguous chunks of the games; the outputs do not depend on it).
    #[getter]
    fn threads(&self) -> usize {
        self.inner.threads()
    }

    /// The observation and action mask of game `i` from any seat's point of view.
    fn view<'py>(&self, py: Python<'py>, i: usize, seat: u8) -> PyResult<SeatView<'py>> {
        self.healthy()?;
        if i >= self.inner.len() || seat >= self.inner.players() {
            return Err(bad_value(format!("there is no game {i} seat {seat}")));
        }
        let mut obs = vec![0.0; sim::observation::SIZE];
        let mut mask = [false; sim::action_space::SIZE];
        self.inner.view(i, seat, &mut obs, &mut mask);
        Ok((numpy::PyArray1::from_vec(py, obs), numpy::PyArray1::from_vec(py, mask.to_vec())))
    }

    #[getter]
    fn num_players(&self) -> u8 {
        self.inner.players()
    }

    #[classattr]
    fn observation_size() -> usize {
        sim::observation::SIZE
    }

    #[classattr]
    fn action_size() -> usize {
        sim::action_space::SIZE
    }

    #[classattr]
    fn action_space_version() -> u32 {
        sim::action_space::VERSION
    }

    /// What each action index means, as a short name (see `action_space::name`).
    #[classattr]
    fn action_names() -> Vec<String> {
        (0..sim::action_space::SIZE).map(|i| sim::action_space::name(i).expect("an index below SIZE")).collect()
    }

    /// The observation's parts as (name, start, stop).
    #[classattr]
    fn observation_layout() -> Vec<(&'static str, usize, usize)> {
        let mut at = 0;
        sim::observation::LAYOUT
            .iter()
            .map(|&(name, len)| {
                at += len;
                (name, at - len, at)
            })
            .collect()
    }

    /// Start every game afresh; returns (obs, mask, current player) for all games.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<ViewArrays<'py>> {
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
        let mut out = sim::vecgame::StepBuffers::new(n, players);
        let inner = &mut self.inner;
        let signals = Signals::default();
        let hook = || signals.hook();
        let interrupt = sim::interrupt::Interrupt::new(&hook);
        let done = py.detach(|| {
            inner.reset_interruptible(&interrupt)?;
            inner.observe_all(&mut out.view())
        });
        signals.raised()?;
        self.healthy()?;
        done.map_err(bad_value)?;
        let (obs, mask, player, ..) = to_numpy(py, out, n, players)?;
        Ok((obs, mask, player))
    }

    /// Start the games where `which` is true afresh (their next episode); with `out`, three
    /// arrays (obs, mask, current player) as `observe` returns, write their new rows there.
    #[pyo3(signature = (which, out = None))]
    fn reset_games(&mut self, which: numpy::PyReadonlyArray1<'_, bool>, out: Option<ViewArrays<'_>>) -> PyResult<()> {
        self.healthy()?;
        let which = which.as_slice()?;
        if which.len() != self.inner.len() {
            return Err(bad_value(format!("{} flags for {} games", which.len(), self.inner.len())));
        }
        match out {
            Some(arrays) => self.reset_into(which, &arrays),
            None => {
                let n = self.inner.len();
                let mut rows = sim::vecgame::StepBuffers::new(n, self.inner.players() as usize);
                self.inner.reset_games(which, &mut rows.obs, &mut rows.mask, &mut rows.player).map_err(bad_value)
            }
        }
    }

    /// The current (obs, mask, current player) without stepping.
    fn observe<'py>(&mut self, py: Python<'py>) -> PyResult<ViewArrays<'py>> {
        self.healthy()?;
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
        let mut out = sim::vecgame::StepBuffers::new(n, players);
        self.inner.observe_all(&mut out.view()).map_err(bad_value)?;
        let (obs, mask, player, ..) = to_numpy(py, out, n, players)?;
        Ok((obs, mask, player))
    }

    /// One action index per game, for the seat each game waits for; returns (obs, mask,
    /// current player, rewards, terminated, truncated), finished games already reset.
    ///
    /// With `out`, a tuple of six C-contiguous arrays of those dtypes and shapes, the step
    /// writes into them and returns them instead of allocating six new arrays per call.
    #[pyo3(signature = (actions, out = None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        out: Option<Bound<'py, pyo3::types::PyTuple>>,
    ) -> PyResult<StepArrays<'py>> {
        let actions = action_indices(actions)?;
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
        if actions.len() != n {
            return Err(bad_value(format!("{} actions for {n} games", actions.len())));
        }
        if let Some(out) = out {
            // Extracted as arrays and borrowed later: extracting borrows panics on a conflict.
            let arrays = out.extract().map_err(|e| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "out must be six numpy arrays: obs float32 (n, {}), mask bool (n, {}), player int8 (n,), \
                     rewards float32 (n, players), terminated bool (n,), truncated bool (n,) ({e})",
                    sim::observation::SIZE,
                    sim::action_space::SIZE,
                ))
            })?;
            return self.step_into(&actions, arrays);
        }
        let mut out = sim::vecgame::StepBuffers::new(n, players);
        self.healthy()?;
        let inner = &mut self.inner;
        let signals = Signals::default();
        let hook = || signals.hook();
        let interrupt = sim::interrupt::Interrupt::new(&hook);
        let stepped = py.detach(|| inner.step_interruptible(&actions, &mut out.view(), &interrupt));
        signals.raised()?;
        // A panic inside the step poisoned the batch: a RuntimeError, not an illegal action.
        self.healthy()?;
        stepped.map_err(refused)?;
        to_numpy(py, out, n, players)
    }

    /// The whole batch as bytes (games, chance streams, drafts, bots with their memory,
    /// settings), for `from_bytes`; pickling uses them.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        self.healthy()?;
        // The one failure left once the batch is healthy: a bot that cannot be saved.
        Ok(pyo3::types::PyBytes::new(py, &self.inner.to_bytes().map_err(bad_type)?))
    }

    /// A batch from `to_bytes`, resuming exactly where it was.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(VecGame { inner: sim::vecgame::VecGame::from_bytes(data).map_err(corrupt)? })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {
        let py = slf.py();
        let data = slf.borrow().to_bytes(py)?;
        Ok((py.get_type::<VecGame>().getattr("from_bytes")?, (data,)))
    }

    /// A copy of game `i` as a `Game` (for inspection or display).
    fn game(&self, py: Python<'_>, i: usize) -> PyResult<Game> {
        self.healthy()?;
        if i >= self.inner.len() {
            return Err(bad_value(format!("there is no game {i}")));
        }
        Game::restored(py, self.inner.game(i).clone(), None, Some(&0u64.into_pyobject(py)?.into_any()))
    }
}

/// The actions of a step as indices: an int64 array as it is, any other integer array or
/// sequence (a list, an int32 array) converted, anything else refused saying what was given.
fn action_indices(actions: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let array = match actions.extract::<numpy::PyReadonlyArray1<'_, i64>>() {
        Ok(array) => array,
        Err(_) => {
            let array = actions.py().import("numpy")?.call_method1("asarray", (actions,))?;
            let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
            let ndim: usize = array.getattr("ndim")?.extract()?;
            if !matches!(kind.as_str(), "i" | "u") || ndim != 1 {
                return Err(bad_type(format!(
                    "actions must be one integer per game (a list, or a 1-D integer array), not {} of shape {}",
                    array.getattr("dtype")?.str()?,
                    array.getattr("shape")?.str()?,
                )));
            }
            array.call_method1("astype", ("int64",))?.extract::<numpy::PyReadonlyArray1<'_, i64>>()?
        }
    };
    array
        .as_array()
        .iter()
        .map(|&a| match a {
            -1 => Ok(sim::vecgame::SKIP),
            _ => u32::try_from(a).ok().filter(|&a| (a as usize) < sim::action_space::SIZE).ok_or_else(|| {
                bad_value(format!("action {a} is out of range (0..{}, or -1 to skip)", sim::action_space::SIZE))
            }),
        })
        .collect()
}
