//! `Game`: one game stepped from Python (moves, chance, legal actions, snapshots, events).

use crate::rules::Rules;
use crate::{bad_type, bad_value, board_id, convert, corrupt, dicts, illegal, seed_arg, CHANCE};
use lanopoly_engine as engine;
use lanopoly_engine::board::{self, Kind, Square, DEEDS, LAYOUT};
use lanopoly_sim as sim;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyTuple, PyType};
use pythonize::{depythonize, pythonize};

/// The refusal of a chance draw when no chance event is pending (the engine's own wording).
fn no_chance() -> PyErr {
    illegal(engine::IllegalAction::refusal("no chance event is pending: a player must act", Vec::new()))
}

/// Version of the snapshot dict layout.
const SNAPSHOT_FORMAT: u32 = 1;

/// One game: the engine state, seat names, and a seeded resolver for local chance.
#[pyclass(module = "lanopoly._core", name = "Game", subclass)]
pub(crate) struct Game {
    pub(crate) inner: engine::Game,
    names: Vec<String>,
    resolver: engine::Resolver,
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
        let names: Vec<String> = if players.is_instance_of::<PyInt>() {
            let n: u8 = players.extract().map_err(|_| bad_value(format!("a game cannot have {players} players")))?;
            (0..n as usize).map(|i| tokens.get(i).copied().unwrap_or("player").to_string()).collect()
        } else {
            players.extract().map_err(|_| bad_type("players is a count or a list of names"))?
        };
        let count = u8::try_from(names.len()).map_err(|_| bad_value("too many players"))?;
        let rules = match rules {
            None => engine::Rules::default(),
            Some(r) => match r.extract::<Rules>() {
                Ok(rules) => rules.inner,
                Err(_) => {
                    let name: String = r.extract().map_err(|_| bad_type("rules is a Rules object or a preset name"))?;
                    Rules::preset(&name, None)?.inner
                }
            },
        };
        // The engine refuses only a seat count its rules do not take: a bad argument.
        let mut inner = engine::Game::new(count, board, rules).map_err(bad_value)?;
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
        pythonize(py, &self.inner.pending).map_err(bad_value)
    }

    /// Inputs applied so far.
    #[getter]
    fn step(&self) -> u32 {
        self.inner.step
    }

    #[getter]
    fn phase<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner.phase).map_err(bad_value)
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
        pythonize(py, &self.inner.debts).map_err(bad_value)
    }

    /// Rent its owner may still claim, oldest first, as dicts (`owner`, `payer`, `square`,
    /// `amount`, `lapses_at_turn`: the claim lapses when the player of that turn rolls).
    #[getter]
    fn claims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner.claims).map_err(bad_value)
    }

    /// Every possible outcome of the pending chance event with its probability.
    fn chance_outcomes<'py>(&self, py: Python<'py>) -> PyResult<Vec<(Bound<'py, PyDict>, f64)>> {
        self.inner
            .chance_outcomes()
            .into_iter()
            .map(|c| Ok((convert::outcome_to(py, c.outcome)?, c.weight as f64 / c.total as f64)))
            .collect()
    }

    /// The outcome that these random bytes select for the pending chance event (exact odds);
    /// `IllegalAction` if none is pending (no chance outcome is allowed now).
    fn outcome_from_bytes<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
        let outcome = self.inner.outcome_from_bytes(data).ok_or_else(no_chance)?;
        convert::outcome_to(py, outcome)
    }

    /// Draw an outcome of the pending chance event with this game's seeded resolver.
    fn sample_chance<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let outcome = self.inner.sample_outcome(&mut self.resolver).ok_or_else(no_chance)?;
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
                Err(bad_value("trade composition (actions 211..255) needs a VecGame, which keeps the drafts"))
            }
            None if index >= sim::action_space::SIZE => {
                Err(bad_value(format!("there is no action {index}: actions are 0..{}", sim::action_space::SIZE)))
            }
            // A slot that holds no move for this seat now: the rules' answer, not a bad argument.
            None => {
                Err(illegal(engine::IllegalAction::new(format!("action {index} means nothing for seat {seat} now"))))
            }
        }
    }

    /// Lowest and highest bid a seat may make in the running auction, or None.
    fn bid_range(&self, player: i64) -> PyResult<Option<(u32, u32)>> {
        Ok(self.inner.bid_range(self.seat(player)?))
    }

    /// Apply a move or a chance outcome (a dict); returns the events it caused.
    fn apply<'py>(&mut self, py: Python<'py>, action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let input = convert::input_from(action)?;
        if let engine::Input::Move(m) = input {
            self.check_seats(m)?;
        }
        self.inner.apply_input(input).map_err(illegal)?;
        self.events(py)
    }

    /// Check a move without applying it; raises IllegalAction with the reason if refused (and
    /// TypeError or ValueError, as `apply` does, for a dict that is not a move of this game).
    fn check(&self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = convert::move_from(action)?;
        self.check_seats(m)?;
        self.inner.check(m).map_err(illegal)
    }

    /// Sample and apply one chance outcome with the seeded resolver; returns (outcome, events).
    fn resolve_chance<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyAny>)> {
        let outcome = self.inner.sample_outcome(&mut self.resolver).ok_or_else(no_chance)?;
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
        let inner = engine::Game::from_bytes(data).map_err(corrupt)?;
        Self::restored(cls.py(), inner, names, seed)
    }

    /// The complete state as a plain dict (JSON- and msgpack-able); see the stub for its layout.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("format", SNAPSHOT_FORMAT)?;
        d.set_item("names", self.names.clone())?;
        d.set_item("state", pythonize(py, &self.inner).map_err(bad_value)?)?;
        Ok(d)
    }

    #[classmethod]
    #[pyo3(signature = (snapshot, seed = None))]
    fn from_snapshot(
        cls: &Bound<'_, PyType>,
        snapshot: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let snapshot = snapshot.cast::<PyDict>().map_err(|_| bad_type("a snapshot is a dict from Game.snapshot()"))?;
        let format: u32 = snapshot
            .get_item("format")?
            .ok_or_else(|| corrupt("not a snapshot: no \"format\""))?
            .extract()
            .map_err(|e| corrupt(format!("not a snapshot: format {e}")))?;
        if format != SNAPSHOT_FORMAT {
            return Err(corrupt(format!("snapshot format {format} is not supported (expected {SNAPSHOT_FORMAT})")));
        }
        let state = snapshot.get_item("state")?.ok_or_else(|| corrupt("not a snapshot: no \"state\""))?;
        let inner: engine::Game = depythonize(&state).map_err(|e| corrupt(format!("malformed snapshot: {e}")))?;
        inner.validate().map_err(corrupt)?;
        let names: Option<Vec<String>> = snapshot
            .get_item("names")?
            .map(|n| n.extract())
            .transpose()
            .map_err(|_| corrupt("malformed snapshot: names is a list of strings"))?;
        if let Some(names) = &names {
            if names.len() != inner.num_players as usize {
                return Err(corrupt(format!(
                    "malformed snapshot: {} names for {} seats",
                    names.len(),
                    inner.num_players
                )));
            }
        }
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

    /// The seed that continues this game's chance stream from where it is now:
    /// `Game.from_bytes(g.to_bytes(), seed=g.chance_seed)` draws what `g` would draw next.
    #[getter]
    fn chance_seed(&self) -> u64 {
        self.resolver.state()
    }

    /// Pickling: the canonical bytes, the names and the chance stream, through `from_bytes`
    /// (so a pickle is checked like any other state when it is loaded).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let game = slf.borrow();
        let state = PyBytes::new(py, &game.inner.to_bytes());
        let args = (state, game.names.clone(), game.resolver.state()).into_pyobject(py)?;
        Ok((py.get_type::<Game>().getattr("from_bytes")?, args))
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

    /// One square as a dict: name, kind, and for deeds price, owner, buildings, mortgage, the rent
    /// a landing costs now and the railway/utility rent table.
    fn square<'py>(&self, py: Python<'py>, square: i64) -> PyResult<Bound<'py, PyDict>> {
        let square = u8::try_from(square)
            .ok()
            .filter(|&s| s < 40)
            .ok_or_else(|| bad_value(format!("there is no square {square}")))?;
        let d = PyDict::new(py);
        d.set_item("square", square)?;
        d.set_item("name", self.inner.square_name(square))?;
        let kind = match LAYOUT[square as usize] {
            Square::Go => "go",
            Square::Property(p) => {
                let deed = &DEEDS[p as usize];
                let owner = self.inner.owner(p);
                d.set_item("price", deed.price)?;
                d.set_item("owner", (owner != engine::NOBODY).then_some(owner))?;
                d.set_item("mortgaged", self.inner.is_mortgaged(p))?;
                d.set_item("level", self.inner.level(p))?;
                d.set_item("house_cost", deed.house_cost)?;
                d.set_item("rents", deed.rents.to_vec())?;
                d.set_item("mortgage_value", deed.mortgage_value())?;
                // What a landing costs now (0 unowned or mortgaged); a utility's is its dice factor.
                d.set_item("rent", self.inner.rent(p, 1))?;
                match deed.kind {
                    Kind::Street(g) => {
                        d.set_item("group", g)?;
                        "street"
                    }
                    Kind::Railway => {
                        d.set_item("rent_table", board::RAILWAY_RENT[1..].to_vec())?;
                        "railway"
                    }
                    Kind::Utility => {
                        d.set_item("rent_table", board::UTILITY_FACTOR[1..].to_vec())?;
                        "utility"
                    }
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
            other => return Err(bad_value(format!("no deck {other:?}"))),
        };
        let cards = self.inner.edition().deck(deck);
        let found = usize::try_from(card).ok().and_then(|i| cards.get(i));
        found.map(|c| c.text).ok_or_else(|| bad_value(format!("no card {card}")))
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
    /// A seat number from Python, checked against this game: a `ValueError` if there is no such seat.
    pub(crate) fn seat(&self, seat: i64) -> PyResult<u8> {
        u8::try_from(seat)
            .ok()
            .filter(|&s| s < self.inner.num_players)
            .ok_or_else(|| bad_value(format!("there is no seat {seat}")))
    }

    /// The seats a move names (its player, and the other side of a trade) exist in this game: a
    /// move by or to a seat that is not there is a bad argument (`ValueError`), not a refusal.
    fn check_seats(&self, m: engine::Move) -> PyResult<()> {
        let other = match m.action {
            engine::Action::ProposeTrade { to, .. } => Some(to),
            engine::Action::AcceptTrade { from } | engine::Action::RejectTrade { from } => Some(from),
            _ => None,
        };
        for seat in std::iter::once(m.player).chain(other) {
            self.seat(seat.into())?;
        }
        Ok(())
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

    pub(crate) fn restored(
        py: Python<'_>,
        mut inner: engine::Game,
        names: Option<Vec<String>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        inner.record_events(true);
        let n = inner.num_players as usize;
        let names = names.unwrap_or_else(|| (0..n).map(|i| format!("seat {i}")).collect());
        if names.len() != n {
            return Err(bad_value(format!("{} names for {n} seats", names.len())));
        }
        let seed = seed_arg(py, seed)?;
        Ok(Game { inner, names, resolver: engine::Resolver::new(seed) })
    }
}
