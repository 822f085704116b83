//! `lanopoly._core`: the thin PyO3 layer over `lanopoly-engine`.
//!
//! Only conversions and error mapping live here: moves and outcomes as plain dicts (see
//! [`convert`]), events as dicts (see [`dicts`]), states as snapshots (dicts, via pythonize) and
//! bytes, engine errors as
//! `IllegalAction` (a `ValueError`). The rules are all in the engine crate.

use lanopoly_engine as engine;
use lanopoly_engine::board::{self, Kind, Square, DEEDS, LAYOUT};
use lanopoly_sim as sim;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyType};
use pythonize::{depythonize, pythonize};

mod convert;
mod dicts;

create_exception!(
    _core,
    IllegalAction,
    PyValueError,
    "An action or input the rules do not allow now; the message says why and the game is unchanged."
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

fn pyerr(e: impl std::fmt::Display) -> PyErr {
    IllegalAction::new_err(e.to_string())
}

/// `current_player` at a chance node.
const CHANCE: i32 = -1;
/// Version of the snapshot dict layout.
const SNAPSHOT_FORMAT: u32 = 1;

/// Rule options; see `lanopoly.Rules` in the stub for the list.
#[pyclass(module = "lanopoly._core", name = "Rules", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Rules {
    inner: engine::Rules,
}

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Self::with_options(engine::Rules::default(), options)
    }

    /// The rules of a named preset, with options overridden.
    #[staticmethod]
    #[pyo3(signature = (name, **options))]
    fn preset(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let base = engine::Rules::preset(name)
            .ok_or_else(|| pyerr(format!("unknown preset {name:?}; presets: {}", engine::PRESETS.join(", "))))?;
        Self::with_options(base, options)
    }

    /// Names of the presets.
    #[staticmethod]
    fn presets() -> Vec<&'static str> {
        engine::PRESETS.to_vec()
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner).map_err(pyerr)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let all = self.to_dict(py)?;
        all.get_item(name).map_err(|_| pyo3::exceptions::PyAttributeError::new_err(format!("no rule option {name:?}")))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let default = engine::Rules::default();
        let changed: Vec<String> = {
            let now = self.to_dict(py)?.cast_into::<PyDict>()?;
            let base = pythonize(py, &default).map_err(pyerr)?.cast_into::<PyDict>()?;
            let mut out = Vec::new();
            for (k, v) in now.iter() {
                if !base.get_item(&k)?.map(|b| b.eq(&v)).transpose()?.unwrap_or(false) {
                    out.push(format!("{}={}", k, v.repr()?));
                }
            }
            out
        };
        Ok(format!("Rules({})", changed.join(", ")))
    }
}

impl Rules {
    fn with_options(base: engine::Rules, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut rules = base;
        if let Some(options) = options {
            let py = options.py();
            let all = pythonize(py, &rules).map_err(pyerr)?.cast_into::<PyDict>()?;
            for (key, value) in options.iter() {
                let key: String = key.extract()?;
                if key == "free_building" {
                    if value.is_truthy()? {
                        all.set_item("even_building", false)?;
                        all.set_item("limited_buildings", false)?;
                    }
                    continue;
                }
                let Some(current) = all.get_item(&key)? else {
                    let known: Vec<String> = all.keys().iter().map(|k| k.to_string()).collect();
                    return Err(pyerr(format!("unknown rule option {key:?}; options: {}", known.join(", "))));
                };
                let same_kind = if current.is_instance_of::<PyBool>() {
                    value.is_instance_of::<PyBool>()
                } else if current.is_instance_of::<PyInt>() {
                    value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>()
                } else {
                    value.is_instance_of::<PyString>()
                };
                if !same_kind {
                    let expected = current.get_type().name()?;
                    return Err(pyerr(format!("rule option {key:?} takes a {expected}, not {}", value.repr()?)));
                }
                all.set_item(key, value)?;
            }
            rules = depythonize(all.as_any()).map_err(pyerr)?;
        }
        rules.validate().map_err(pyerr)?;
        Ok(Rules { inner: rules })
    }
}

/// One game: the engine state, seat names, and a seeded resolver for local chance.
#[pyclass(module = "lanopoly._core", name = "Game", subclass)]
struct Game {
    inner: engine::Game,
    names: Vec<String>,
    resolver: engine::Resolver,
}

fn board_id(name: &str) -> PyResult<engine::BoardId> {
    engine::BoardId::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = engine::BoardId::ALL.iter().map(|b| b.name()).collect();
        pyerr(format!("unknown board {name:?}; boards: {}", known.join(", ")))
    })
}

/// A seed from Python: any integer (taken modulo 2**64), or a random one for None.
fn seed_arg(py: Python<'_>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match seed {
        None => py.import("secrets")?.call_method1("randbits", (64,))?.extract(),
        Some(s) => {
            let int = s.cast::<PyInt>().map_err(|_| pyerr("seed is an integer"))?;
            int.call_method1("__mod__", (u64::MAX as u128 + 1,))?.extract()
        }
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (players, board = "classic", rules = None, seed = None))]
    fn new(
        py: Python<'_>,
        players: &Bound<'_, PyAny>,
        board: &str,
        rules: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let board = board_id(board)?;
        let tokens = board.edition().tokens;
        let names: Vec<String> = match players.extract::<u8>() {
            Ok(n) => (0..n as usize).map(|i| tokens.get(i).copied().unwrap_or("player").to_string()).collect(),
            Err(_) => players.extract().map_err(|_| pyerr("players is a count or a list of names"))?,
        };
        let count = u8::try_from(names.len()).map_err(|_| pyerr("too many players"))?;
        let rules = match rules {
            None => engine::Rules::default(),
            Some(r) => match r.extract::<Rules>() {
                Ok(rules) => rules.inner,
                Err(_) => {
                    let name: String = r.extract().map_err(|_| pyerr("rules is a Rules object or a preset name"))?;
                    Rules::preset(&name, None)?.inner
                }
            },
        };
        let mut inner = engine::Game::new(count, board, rules).map_err(illegal)?;
        inner.record_events(true);
        inner.take_events();
        let seed = seed_arg(py, seed)?;
        Ok(Game { inner, names, resolver: engine::Resolver::new(seed) })
    }

    /// Seat names.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    #[getter]
    fn num_players(&self) -> u8 {
        self.inner.num_players
    }

    #[getter]
    fn board(&self) -> &'static str {
        self.inner.board.name()
    }

    #[getter]
    fn rules(&self) -> Rules {
        Rules { inner: self.inner.rules }
    }

    /// The seat the game waits for, `CHANCE` (-1) at a chance node, `None` when over.
    #[getter]
    fn current_player(&self) -> Option<i32> {
        if self.inner.is_over() {
            None
        } else if self.inner.is_chance_node() {
            Some(CHANCE)
        } else {
            self.inner.actor().map(i32::from)
        }
    }

    #[getter]
    fn is_chance_node(&self) -> bool {
        self.inner.is_chance_node()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.inner.is_over()
    }

    #[getter]
    fn winner(&self) -> Option<u8> {
        self.inner.winner()
    }

    #[getter]
    fn turn_player(&self) -> u8 {
        self.inner.turn_player
    }

    #[getter]
    fn round(&self) -> u32 {
        self.inner.round
    }

    /// Turns started since the beginning (0 for the first turn).
    #[getter]
    fn turn(&self) -> u32 {
        self.inner.turn
    }

    /// The chance event the game waits for: None, "move_dice", "order_dice", "deed",
    /// ``{"utility_dice": {"property": i}}`` or ``{"card": "chance" | "community_chest"}``.
    #[getter]
    fn pending_chance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner.pending).map_err(pyerr)
    }

    /// Inputs applied so far.
    #[getter]
    fn step(&self) -> u32 {
        self.inner.step
    }

    #[getter]
    fn phase<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner.phase).map_err(pyerr)
    }

    /// The square of the deed the turn player may buy now, if it is deciding.
    #[getter]
    fn buy_square(&self) -> Option<u8> {
        match self.inner.phase {
            engine::Phase::BuyDecision { property } => Some(DEEDS[property as usize].square),
            _ => None,
        }
    }

    /// The running auction, if any: `lot` ("property", "house" or "hotel"), `square` (the deed,
    /// or the street asked for), `high_bid`, `high_bidder` (None before the first bid), `bidders`.
    #[getter]
    fn auction<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(a) = &self.inner.auction else { return Ok(None) };
        let d = PyDict::new(py);
        match a.lot {
            engine::state::Lot::Property(p) => {
                d.set_item("lot", "property")?;
                d.set_item("square", DEEDS[p as usize].square)?;
            }
            engine::state::Lot::Building { hotel, square, .. } => {
                d.set_item("lot", if hotel { "hotel" } else { "house" })?;
                d.set_item("square", square)?;
            }
        }
        d.set_item("high_bid", a.high_bid)?;
        d.set_item("high_bidder", (a.high_bidder != engine::NOBODY).then_some(a.high_bidder))?;
        let bidders: Vec<u32> =
            (0..self.inner.num_players).filter(|p| a.bidders & (1 << p) != 0).map(u32::from).collect();
        d.set_item("bidders", bidders)?;
        Ok(Some(d))
    }

    /// Open trade offers as dicts (`from`, `to`, `give`, `get`).
    #[getter]
    fn offers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for o in &self.inner.offers {
            let d = PyDict::new(py);
            d.set_item("from", o.from)?;
            d.set_item("to", o.to)?;
            d.set_item("give", convert::bundle_to(py, &o.give)?)?;
            d.set_item("get", convert::bundle_to(py, &o.get)?)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Unpaid debts as dicts (`debtor`, `creditor`, `amount`, `reason`).
    #[getter]
    fn debts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner.debts).map_err(pyerr)
    }

    /// Every possible outcome of the pending chance event with its probability.
    fn chance_outcomes<'py>(&self, py: Python<'py>) -> PyResult<Vec<(Bound<'py, PyDict>, f64)>> {
        self.inner
            .chance_outcomes()
            .into_iter()
            .map(|c| Ok((convert::outcome_to(py, c.outcome)?, c.weight as f64 / c.total as f64)))
            .collect()
    }

    /// The outcome that these random bytes select for the pending chance event (exact odds).
    fn outcome_from_bytes<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
        let outcome = self.inner.outcome_from_bytes(data).ok_or_else(|| pyerr("no chance event is pending"))?;
        convert::outcome_to(py, outcome)
    }

    /// Draw an outcome of the pending chance event with this game's seeded resolver.
    fn sample_chance<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let outcome =
            self.inner.sample_outcome(&mut self.resolver).ok_or_else(|| pyerr("no chance event is pending"))?;
        convert::outcome_to(py, outcome)
    }

    /// Legal moves of a seat (default: the seat the game waits for). At a chance node with no
    /// seat given, the possible outcomes.
    #[pyo3(signature = (player = None))]
    fn legal_actions<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let player = match player {
            Some(p) => self.seat(p)?,
            None if self.inner.is_chance_node() => {
                return self.inner.chance_outcomes().into_iter().map(|c| convert::outcome_to(py, c.outcome)).collect();
            }
            None => match self.inner.actor() {
                Some(p) => p,
                None => return Ok(Vec::new()),
            },
        };
        self.inner
            .legal_actions(player)
            .into_iter()
            .map(|action| convert::move_to(py, engine::Move { player, action }))
            .collect()
    }

    /// The legality mask of the integer action space (see `lanopoly.rl`) for a seat, without
    /// trade composition (drafts live in a VecGame): a numpy bool array.
    fn action_mask<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, numpy::PyArray1<bool>>> {
        let seat = self.seat(seat)?;
        let mut mask = [false; sim::action_space::SIZE];
        sim::action_space::mask(&self.inner, seat, &sim::action_space::Draft::closed(), &mut mask);
        for slot in mask.iter_mut().skip(sim::action_space::DRAFT_START) {
            *slot = false;
        }
        Ok(numpy::PyArray1::from_vec(py, mask.to_vec()))
    }

    /// The float32 observation of `lanopoly.rl` from a seat's point of view (no trade draft).
    fn observation<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, numpy::PyArray1<f32>>> {
        let seat = self.seat(seat)?;
        let mut obs = vec![0.0; sim::observation::SIZE];
        sim::observation::observe(&self.inner, seat, &sim::action_space::Draft::closed(), &mut obs);
        Ok(numpy::PyArray1::from_vec(py, obs))
    }

    /// The move an integer action means for a seat now (see `lanopoly.rl`), as a dict.
    fn action_from_index<'py>(&self, py: Python<'py>, seat: i64, index: usize) -> PyResult<Bound<'py, PyDict>> {
        let seat = self.seat(seat)?;
        let draft = sim::action_space::Draft::closed();
        match sim::action_space::decode(&self.inner, seat, &draft, index) {
            Some(sim::action_space::Decoded::Move(action)) => {
                convert::move_to(py, engine::Move { player: seat, action })
            }
            Some(sim::action_space::Decoded::Draft(_)) => {
                Err(pyerr("trade composition (actions 211..255) needs a VecGame, which keeps the drafts"))
            }
            None => Err(pyerr(format!("action {index} means nothing for seat {seat} now"))),
        }
    }

    /// Lowest and highest bid a seat may make in the running auction, or None.
    fn bid_range(&self, player: i64) -> PyResult<Option<(u32, u32)>> {
        Ok(self.inner.bid_range(self.seat(player)?))
    }

    /// Apply a move or a chance outcome (a dict); returns the events it caused.
    fn apply<'py>(&mut self, py: Python<'py>, action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let input = convert::input_from(action)?;
        self.inner.apply_input(input).map_err(illegal)?;
        self.events(py)
    }

    /// Check a move without applying it; raises IllegalAction with the reason if refused.
    fn check(&self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = convert::move_from(action)?;
        self.inner.check(m).map_err(illegal)
    }

    /// Sample and apply one chance outcome with the seeded resolver; returns (outcome, events).
    fn resolve_chance<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyAny>)> {
        let outcome =
            self.inner.sample_outcome(&mut self.resolver).ok_or_else(|| pyerr("no chance event is pending"))?;
        self.inner.apply_chance(outcome).map_err(illegal)?;
        Ok((convert::outcome_to(py, outcome)?, self.events(py)?))
    }

    /// 32-byte SHA-256 of the canonical encoding of the complete state.
    fn state_hash<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.state_hash())
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    #[classmethod]
    #[pyo3(signature = (data, names = None, seed = None))]
    fn from_bytes(
        cls: &Bound<'_, PyType>,
        data: &[u8],
        names: Option<Vec<String>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let inner = engine::Game::from_bytes(data).map_err(illegal)?;
        Self::restored(cls.py(), inner, names, seed)
    }

    /// The complete state as a plain dict (JSON- and msgpack-able); see the stub for its layout.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("format", SNAPSHOT_FORMAT)?;
        d.set_item("names", self.names.clone())?;
        d.set_item("state", pythonize(py, &self.inner).map_err(pyerr)?)?;
        Ok(d)
    }

    #[classmethod]
    #[pyo3(signature = (snapshot, seed = None))]
    fn from_snapshot(
        cls: &Bound<'_, PyType>,
        snapshot: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let snapshot = snapshot.cast::<PyDict>().map_err(|_| pyerr("a snapshot is a dict from Game.snapshot()"))?;
        let format: u32 = snapshot
            .get_item("format")?
            .ok_or_else(|| pyerr("not a snapshot: no \"format\""))?
            .extract()
            .map_err(pyerr)?;
        if format != SNAPSHOT_FORMAT {
            return Err(pyerr(format!("snapshot format {format} is not supported (expected {SNAPSHOT_FORMAT})")));
        }
        let state = snapshot.get_item("state")?.ok_or_else(|| pyerr("not a snapshot: no \"state\""))?;
        let inner: engine::Game = depythonize(&state).map_err(|e| pyerr(format!("malformed snapshot: {e}")))?;
        inner.validate().map_err(illegal)?;
        let names = snapshot
            .get_item("names")?
            .map(|n| n.extract())
            .transpose()
            .map_err(|_| pyerr("names is a list of strings"))?;
        Self::restored(cls.py(), inner, names, seed)
    }

    /// An independent copy (same state, same names, a copy of the resolver).
    fn clone(&self) -> Self {
        Game { inner: self.inner.clone(), names: self.names.clone(), resolver: self.resolver.clone() }
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    /// Net worth of a seat (cash + deeds at price or mortgage value + buildings at cost).
    fn net_worth(&self, seat: i64) -> PyResult<u64> {
        Ok(self.inner.net_worth(self.seat(seat)?))
    }

    /// One seat as a dict: name, cash, position, jail state, jail cards, bankrupt, net worth,
    /// and the squares of its deeds.
    fn player<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyDict>> {
        let seat = self.seat(seat)?;
        let p = self.inner.player(seat);
        let d = PyDict::new(py);
        d.set_item("seat", seat)?;
        d.set_item("name", &self.names[seat as usize])?;
        d.set_item("cash", p.cash)?;
        d.set_item("position", p.position)?;
        d.set_item("in_jail", p.in_jail)?;
        d.set_item("jail_attempts", p.jail_attempts)?;
        let cards: Vec<&str> =
            (0..2).filter(|i| p.jail_cards & (1 << i) != 0).map(|i| ["chance", "community_chest"][i]).collect();
        d.set_item("jail_cards", cards)?;
        d.set_item("bankrupt", p.bankrupt)?;
        d.set_item("net_worth", self.inner.net_worth(seat))?;
        let squares: Vec<u32> =
            board::bits(self.inner.holdings(seat)).map(|q| DEEDS[q as usize].square.into()).collect();
        d.set_item("properties", squares)?;
        Ok(d)
    }

    /// One square as a dict: name, kind, and for deeds price, owner, buildings, mortgage.
    fn square<'py>(&self, py: Python<'py>, square: i64) -> PyResult<Bound<'py, PyDict>> {
        let square = u8::try_from(square)
            .ok()
            .filter(|&s| s < 40)
            .ok_or_else(|| pyerr(format!("there is no square {square}")))?;
        let d = PyDict::new(py);
        d.set_item("square", square)?;
        d.set_item("name", self.inner.square_name(square))?;
        let kind = match LAYOUT[square as usize] {
            Square::Go => "go",
            Square::Property(p) => {
                let deed = &DEEDS[p as usize];
                let owner = self.inner.owner[p as usize];
                d.set_item("price", deed.price)?;
                d.set_item("owner", (owner != engine::NOBODY).then_some(owner))?;
                d.set_item("mortgaged", self.inner.is_mortgaged(p))?;
                d.set_item("level", self.inner.level[p as usize])?;
                d.set_item("house_cost", deed.house_cost)?;
                d.set_item("rents", deed.rents.to_vec())?;
                d.set_item("mortgage_value", deed.mortgage_value())?;
                match deed.kind {
                    Kind::Street(g) => {
                        d.set_item("group", g)?;
                        "street"
                    }
                    Kind::Railway => "railway",
                    Kind::Utility => "utility",
                }
            }
            Square::Tax(amount) => {
                d.set_item("amount", amount)?;
                "tax"
            }
            Square::Card(engine::Deck::Chance) => "chance",
            Square::Card(engine::Deck::CommunityChest) => "community_chest",
            Square::Jail => "jail",
            Square::FreeParking => "free_parking",
            Square::GoToJail => "go_to_jail",
        };
        d.set_item("kind", kind)?;
        Ok(d)
    }

    /// Text of a card of this edition.
    fn card_text(&self, deck: &str, card: i64) -> PyResult<&'static str> {
        let deck = match deck {
            "chance" => engine::Deck::Chance,
            "community_chest" => engine::Deck::CommunityChest,
            other => return Err(pyerr(format!("no deck {other:?}"))),
        };
        let cards = self.inner.edition().deck(deck);
        cards.get(card as usize).map(|c| c.text).ok_or_else(|| pyerr(format!("no card {card}")))
    }

    #[getter]
    fn currency(&self) -> &'static str {
        self.inner.edition().currency
    }

    #[getter]
    fn houses_left(&self) -> u8 {
        self.inner.houses_left
    }

    #[getter]
    fn hotels_left(&self) -> u8 {
        self.inner.hotels_left
    }

    #[getter]
    fn jackpot(&self) -> u32 {
        self.inner.jackpot
    }

    fn __repr__(&self) -> String {
        format!(
            "<lanopoly.Game {} players, board={}, step={}, {}>",
            self.inner.num_players,
            self.inner.board.name(),
            self.inner.step,
            if self.inner.is_over() { "over" } else { "in play" }
        )
    }
}

impl Game {
    /// A seat number from Python, checked against this game.
    fn seat(&self, seat: i64) -> PyResult<u8> {
        u8::try_from(seat)
            .ok()
            .filter(|&s| s < self.inner.num_players)
            .ok_or_else(|| pyerr(format!("there is no seat {seat}")))
    }

    /// The dict form of the events recorded since the last call. Trade events carry their
    /// bundles in the same form as trade actions (squares and card names).
    fn events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let events = self.inner.take_events();
        let list = PyList::empty(py);
        for event in &events {
            let d = dicts::to_py(py, event)?.cast_into::<PyDict>()?;
            match event {
                engine::Event::TradeProposed { offer } => {
                    let o = PyDict::new(py);
                    o.set_item("from", offer.from)?;
                    o.set_item("to", offer.to)?;
                    o.set_item("give", convert::bundle_to(py, &offer.give)?)?;
                    o.set_item("get", convert::bundle_to(py, &offer.get)?)?;
                    d.set_item("offer", o)?;
                }
                engine::Event::TradeAccepted { give, get, .. } => {
                    d.set_item("give", convert::bundle_to(py, give)?)?;
                    d.set_item("get", convert::bundle_to(py, get)?)?;
                }
                _ => {}
            }
            list.append(d)?;
        }
        Ok(list.into_any())
    }

    fn restored(
        py: Python<'_>,
        mut inner: engine::Game,
        names: Option<Vec<String>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        inner.record_events(true);
        let n = inner.num_players as usize;
        let names = names.unwrap_or_else(|| (0..n).map(|i| format!("seat {i}")).collect());
        if names.len() != n {
            return Err(pyerr(format!("{} names for {n} seats", names.len())));
        }
        let seed = seed_arg(py, seed)?;
        Ok(Game { inner, names, resolver: engine::Resolver::new(seed) })
    }
}

/// A built-in bot (see `bots()`), usable as a policy from Python: `choose(game, seat, legal)`.
#[pyclass(module = "lanopoly._core", name = "Bot")]
struct Bot {
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
        let policy = sim::bots::by_name(name)
            .ok_or_else(|| pyerr(format!("unknown bot {name:?}; bots: {}", sim::bots::BOTS.join(", "))))?;
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
            return Err(pyerr(format!("the game does not wait for seat {seat}")));
        }
        let mut policy = self.policy.lock().map_err(|_| pyerr("the bot failed earlier"))?;
        let action = policy.choose(&game.inner, seat, &mut self.rng);
        convert::move_to(py, engine::Move { player: seat, action })
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }
}

/// Many games stepped at once for learning agents (see `lanopoly.rl` and the stub).
#[pyclass(module = "lanopoly._core", name = "VecGame")]
struct VecGame {
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
    /// thread can read the arrays half-written. After an error their contents are unspecified.
    fn step_into<'py>(&mut self, actions: &[u32], arrays: StepArrays<'py>) -> PyResult<StepArrays<'py>> {
        use numpy::{PyArrayMethods, PyUntypedArrayMethods};
        fn writable<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
            array: &Bound<'py, numpy::PyArray<T, D>>,
        ) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
            // A Fortran-ordered array is contiguous too, but the rows are written in C order.
            if !array.is_c_contiguous() {
                return Err(PyValueError::new_err("out arrays must be C-contiguous"));
            }
            array
                .try_readwrite()
                .map_err(|e| PyValueError::new_err(format!("out arrays must be distinct and writable ({e})")))
        }
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
        for (name, got, want) in shapes {
            if got != want.as_slice() {
                return Err(PyValueError::new_err(format!("out {name} has shape {got:?}, not {want:?}")));
            }
        }
        self.healthy()?;
        let mut view = sim::vecgame::StepOut {
            obs: obs.as_slice_mut()?,
            mask: mask.as_slice_mut()?,
            player: player.as_slice_mut()?,
            rewards: rewards.as_slice_mut()?,
            terminated: terminated.as_slice_mut()?,
            truncated: truncated.as_slice_mut()?,
        };
        let stepped = self.inner.step(actions, &mut view);
        self.healthy()?;
        stepped.map_err(pyerr)?;
        Ok(arrays)
    }

    /// A `RuntimeError` if a step panicked (a bug): the games cannot be trusted until `reset`.
    fn healthy(&self) -> PyResult<()> {
        match self.inner.poisoned() {
            Some(why) => Err(pyo3::exceptions::PyRuntimeError::new_err(why.to_string())),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (n, players = 4, board = "classic", rules = None, seed = 0, max_steps = 20_000, learner = None, opponents = None, threads = 1))]
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
    ) -> PyResult<Self> {
        if threads == 0 {
            return Err(pyerr("threads must be at least 1"));
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
        .map_err(pyerr)?;
        inner.set_threads(threads);
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

    /// Threads a step uses (contiguous chunks of the games; the outputs do not depend on it).
    #[getter]
    fn threads(&self) -> usize {
        self.inner.threads()
    }

    /// The observation and action mask of game `i` from any seat's point of view.
    fn view<'py>(&self, py: Python<'py>, i: usize, seat: u8) -> PyResult<SeatView<'py>> {
        self.healthy()?;
        if i >= self.inner.len() || seat >= self.inner.players() {
            return Err(pyerr(format!("there is no game {i} seat {seat}")));
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
        py.detach(|| {
            inner.reset();
            inner.observe_all(&mut out.view())
        })
        .map_err(pyerr)?;
        let (obs, mask, player, ..) = to_numpy(py, out, n, players)?;
        Ok((obs, mask, player))
    }

    /// The current (obs, mask, current player) without stepping.
    fn observe<'py>(&mut self, py: Python<'py>) -> PyResult<ViewArrays<'py>> {
        self.healthy()?;
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
        let mut out = sim::vecgame::StepBuffers::new(n, players);
        self.inner.observe_all(&mut out.view()).map_err(pyerr)?;
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
        actions: numpy::PyReadonlyArray1<'py, i64>,
        out: Option<Bound<'py, pyo3::types::PyTuple>>,
    ) -> PyResult<StepArrays<'py>> {
        let actions: Vec<u32> = actions
            .as_array()
            .iter()
            .map(|&a| u32::try_from(a).map_err(|_| pyerr(format!("action {a} is out of range"))))
            .collect::<PyResult<_>>()?;
        let (n, players) = (self.inner.len(), self.inner.players() as usize);
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
        let stepped = py.detach(|| inner.step(&actions, &mut out.view()));
        // A panic inside the step poisoned the batch: a RuntimeError, not an illegal action.
        self.healthy()?;
        stepped.map_err(pyerr)?;
        to_numpy(py, out, n, players)
    }

    /// A copy of game `i` as a `Game` (for inspection or display).
    fn game(&self, py: Python<'_>, i: usize) -> PyResult<Game> {
        self.healthy()?;
        if i >= self.inner.len() {
            return Err(pyerr(format!("there is no game {i}")));
        }
        Game::restored(py, self.inner.game(i).clone(), None, Some(&0u64.into_pyobject(py)?.into_any()))
    }
}

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
    let report = py.detach(|| sim::simulate::simulate(&config)).map_err(pyerr)?;
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

/// The names of the built-in bots.
#[pyfunction]
fn bots() -> Vec<&'static str> {
    sim::bots::BOTS.to_vec()
}

/// The boards there are.
#[pyfunction]
fn boards() -> Vec<&'static str> {
    engine::BoardId::ALL.iter().map(|b| b.name()).collect()
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{boards, bots, simulate, square_names, Bot, Game, IllegalAction, Rules, VecGame};

    use pyo3::prelude::*;
    use pyo3::types::{PyDict, PyMapping, PyMappingProxy};

    #[pymodule_export]
    const CHANCE: i32 = super::CHANCE;

    #[pymodule_export]
    const STATE_FORMAT: &str = "lanopoly/s1";

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
