//! Plain-dict forms of moves, chance outcomes and trade bundles: what Python code and the wire see.
//!
//! A move is `{"type": "build", "player": 0, "square": 39}`; a chance outcome is
//! `{"type": "dice", "dice": [3, 4]}`, `{"type": "card", "card": 7}` or
//! `{"type": "deed", "square": 39}`. Squares are board squares 0..40 everywhere.
//!
//! A dict that is not a move is refused here, before the engine sees it: a field of the wrong
//! Python type (a string for a number, a non-dict) is a `TypeError`; a missing field, an unknown
//! `"type"`, a number out of its field's range (a square outside 0..40, a colour group that does
//! not exist, a negative amount) or a bundle square that is no deed is a `ValueError`. Seats are
//! checked against the game by `Game` (see `Game::check_seats`); whether the move is allowed now
//! is the engine's answer (`IllegalAction`).

use lanopoly_engine::board::{self, DEEDS};
use lanopoly_engine::{Action, Bundle, Input, Move, Outcome};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::{bad_type, bad_value};
use lanopoly_engine::board::COLOUR_GROUPS;
use pyo3::exceptions::PyOverflowError;

/// A constant Python string (a dict key or a type name), interned once per call site: a fresh
/// string would be allocated and hashed on every call, a large part of what a move costs to
/// convert.
macro_rules! pystr {
    ($d:expr, $name:literal) => {
        pyo3::intern!($d.py(), $name)
    };
}

/// Read a required field: missing or out of range is a `ValueError`, the wrong type a `TypeError`.
fn field<'py, T: FromPyObjectOwned<'py>>(d: &Bound<'py, PyDict>, key: &Bound<'py, PyString>) -> PyResult<T> {
    let value = d.get_item(key)?.ok_or_else(|| bad_value(format!("missing field \"{key}\"")))?;
    value.extract::<T>().map_err(|e| wrong(d.py(), e.into(), &format!("field \"{key}\"")))
}

/// The error for a value that did not extract: an integer that does not fit (Python raised an
/// `OverflowError`) is a `ValueError` ("out of range"), anything else a `TypeError`.
fn wrong(py: Python<'_>, e: PyErr, what: &str) -> PyErr {
    if e.is_instance_of::<PyOverflowError>(py) {
        bad_value(format!("{what} is out of range"))
    } else {
        bad_type(format!("{what} has the wrong type"))
    }
}

/// A square number field, 0..40.
fn square_field(d: &Bound<'_, PyDict>) -> PyResult<u8> {
    let square: u8 = field(d, pystr!(d, "square"))?;
    if square >= 40 {
        return Err(bad_value(format!("there is no square {square}")));
    }
    Ok(square)
}

/// The `"type"` of an action or outcome dict, borrowed (no copy).
fn kind_of<'a>(type_value: &'a Bound<'_, PyAny>) -> PyResult<&'a str> {
    let not_str = || bad_type("field \"type\" is not a string");
    type_value.cast::<PyString>().map_err(|_| not_str())?.to_str().map_err(|_| not_str())
}

fn as_dict<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    obj.cast::<PyDict>().cloned().map_err(|_| bad_type("an action is a dict with a \"type\" key"))
}

const JAIL_CARD_NAMES: [&str; 2] = ["chance", "community_chest"];

fn bundle_from(obj: Option<Bound<'_, PyAny>>) -> PyResult<Bundle> {
    let Some(obj) = obj else { return Ok(Bundle::default()) };
    let d = as_dict(&obj)?;
    let mut bundle = Bundle::default();
    if let Some(squares) = d.get_item(pystr!(d, "properties"))? {
        let not_list = |_| bad_type("properties is a list of square numbers");
        for square in squares.try_iter().map_err(not_list)? {
            let square: u8 =
                square.map_err(not_list)?.extract().map_err(|e| wrong(d.py(), e, "a square of properties"))?;
            let p = (square < 40).then(|| board::property_at(square)).flatten();
            let p = p.ok_or_else(|| bad_value(format!("square {square} is not a property")))?;
            bundle.properties |= 1 << p;
        }
    }
    if d.contains(pystr!(d, "cash"))? {
        bundle.cash = field(&d, pystr!(d, "cash"))?;
    }
    if let Some(cards) = d.get_item(pystr!(d, "jail_cards"))? {
        let not_names = |_| bad_type("jail_cards is a list of \"chance\" or \"community_chest\"");
        for card in cards.try_iter().map_err(not_names)? {
            let name: String = card.map_err(not_names)?.extract().map_err(not_names)?;
            let i = JAIL_CARD_NAMES.iter().position(|n| *n == name);
            let i = i.ok_or_else(|| bad_value(format!("no jail card {name:?}")))?;
            bundle.jail_cards |= 1 << i;
        }
    }
    Ok(bundle)
}

pub fn bundle_to<'py>(py: Python<'py>, b: &Bundle) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let squares: Vec<u32> = board::bits(b.properties).map(|p| DEEDS[p as usize].square.into()).collect();
    d.set_item(pystr!(d, "properties"), squares)?;
    d.set_item(pystr!(d, "cash"), b.cash)?;
    let cards: Vec<&str> = (0..2).filter(|i| b.jail_cards & (1 << i) != 0).map(|i| JAIL_CARD_NAMES[i]).collect();
    d.set_item(pystr!(d, "jail_cards"), cards)?;
    Ok(d)
}

/// A move from its dict form.
pub fn move_from(obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    let d = as_dict(obj)?;
    let type_value = d.get_item(pystr!(d, "type"))?.ok_or_else(|| bad_value("missing field \"type\""))?;
    move_of(&d, kind_of(&type_value)?)
}

/// A move from its dict form, whose `"type"` is `kind`.
fn move_of(d: &Bound<'_, PyDict>, kind: &str) -> PyResult<Move> {
    let player: u8 = field(d, pystr!(d, "player"))?;
    let square = || square_field(d);
    let from = || field::<u8>(d, pystr!(d, "from"));
    let action = match kind {
        "roll" => Action::Roll,
        "pay_jail_fine" => Action::PayJailFine,
        "use_jail_card" => Action::UseJailCard,
        "buy" => Action::Buy,
        "decline" => Action::Decline,
        "bid" => Action::Bid(field(d, pystr!(d, "amount"))?),
        "pass" => Action::Pass,
        "build" => Action::Build(square()?),
        "sell" => Action::Sell(square()?),
        "sell_down" => {
            let levels: Vec<u8> = field(d, pystr!(d, "levels"))?;
            if levels.len() > 3 {
                return Err(bad_value("a colour group has at most 3 streets"));
            }
            let mut padded = [0u8; 3];
            padded[..levels.len()].copy_from_slice(&levels);
            let group: u8 = field(d, pystr!(d, "group"))?;
            if group as usize >= COLOUR_GROUPS {
                return Err(bad_value(format!("there is no colour group {group}")));
            }
            Action::SellDown { group, levels: padded }
        }
        "mortgage" => Action::Mortgage(square()?),
        "unmortgage" => Action::Unmortgage(square()?),
        "keep_mortgaged" => Action::KeepMortgaged(square()?),
        "propose_trade" => Action::ProposeTrade {
            to: field(d, pystr!(d, "to"))?,
            give: bundle_from(d.get_item(pystr!(d, "give"))?)?,
            get: bundle_from(d.get_item(pystr!(d, "get"))?)?,
        },
        "accept_trade" => Action::AcceptTrade { from: from()? },
        "reject_trade" => Action::RejectTrade { from: from()? },
        "cancel_trade" => Action::CancelTrade,
        "pay_debt" => Action::PayDebt,
        "declare_bankruptcy" => Action::DeclareBankruptcy,
        "claim_rent" => Action::ClaimRent(square()?),
        "end_turn" => Action::EndTurn,
        "end_game" => Action::EndGame,
        "resign" => Action::Resign,
        other => return Err(bad_value(format!("unknown action type {other:?}"))),
    };
    Ok(Move { player, action })
}

/// The dict form of a move.
pub fn move_to<'py>(py: Python<'py>, m: Move) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let kind = match m.action {
        Action::Roll => pystr!(d, "roll"),
        Action::PayJailFine => pystr!(d, "pay_jail_fine"),
        Action::UseJailCard => pystr!(d, "use_jail_card"),
        Action::Buy => pystr!(d, "buy"),
        Action::Decline => pystr!(d, "decline"),
        Action::Bid(amount) => {
            d.set_item(pystr!(d, "amount"), amount)?;
            pystr!(d, "bid")
        }
        Action::Pass => pystr!(d, "pass"),
        Action::Build(s)
        | Action::Sell(s)
        | Action::Mortgage(s)
        | Action::Unmortgage(s)
        | Action::KeepMortgaged(s)
        | Action::ClaimRent(s) => {
            d.set_item(pystr!(d, "square"), s)?;
            match m.action {
                Action::Build(_) => pystr!(d, "build"),
                Action::Sell(_) => pystr!(d, "sell"),
                Action::Mortgage(_) => pystr!(d, "mortgage"),
                Action::Unmortgage(_) => pystr!(d, "unmortgage"),
                Action::KeepMortgaged(_) => pystr!(d, "keep_mortgaged"),
                _ => pystr!(d, "claim_rent"),
            }
        }
        Action::SellDown { group, levels } => {
            d.set_item(pystr!(d, "group"), group)?;
            let size = board::group_members(group).count();
            d.set_item(pystr!(d, "levels"), PyList::new(py, &levels[..size])?)?;
            pystr!(d, "sell_down")
        }
        Action::ProposeTrade { to, give, get } => {
            d.set_item(pystr!(d, "to"), to)?;
            d.set_item(pystr!(d, "give"), bundle_to(py, &give)?)?;
            d.set_item(pystr!(d, "get"), bundle_to(py, &get)?)?;
            pystr!(d, "propose_trade")
        }
        Action::AcceptTrade { from } | Action::RejectTrade { from } => {
            d.set_item(pystr!(d, "from"), from)?;
            if matches!(m.action, Action::AcceptTrade { .. }) {
                pystr!(d, "accept_trade")
            } else {
                pystr!(d, "reject_trade")
            }
        }
        Action::CancelTrade => pystr!(d, "cancel_trade"),
        Action::PayDebt => pystr!(d, "pay_debt"),
        Action::DeclareBankruptcy => pystr!(d, "declare_bankruptcy"),
        Action::EndTurn => pystr!(d, "end_turn"),
        Action::EndGame => pystr!(d, "end_game"),
        Action::Resign => pystr!(d, "resign"),
    };
    d.set_item(pystr!(d, "type"), kind)?;
    d.set_item(pystr!(d, "player"), m.player)?;
    Ok(d)
}

/// An input from its dict form: a chance outcome (`"type"` dice, card or deed) or a move.
pub fn input_from(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
    let d = as_dict(obj)?;
    let type_value = d.get_item(pystr!(d, "type"))?.ok_or_else(|| bad_value("missing field \"type\""))?;
    let kind = kind_of(&type_value)?;
    Ok(match kind {
        "dice" | "card" | "deed" => Input::Chance(outcome_of(&d, kind)?),
        _ => Input::Move(move_of(&d, kind)?),
    })
}

/// A chance outcome from its dict form, whose `"type"` is `kind`.
fn outcome_of(d: &Bound<'_, PyDict>, kind: &str) -> PyResult<Outcome> {
    Ok(match kind {
        "dice" => {
            let dice: Vec<u8> = field(d, pystr!(d, "dice"))?;
            let [a, b] = dice[..] else { return Err(bad_value("dice is a pair such as [3, 4]")) };
            Outcome::Dice(a.min(b), a.max(b))
        }
        "card" => Outcome::Card(field(d, pystr!(d, "card"))?),
        "deed" => {
            let square = square_field(d)?;
            Outcome::Deed(
                board::property_at(square).ok_or_else(|| bad_value(format!("square {square} is not a property")))?,
            )
        }
        other => return Err(bad_value(format!("unknown chance outcome type {other:?}"))),
    })
}

/// The dict form of a chance outcome.
pub fn outcome_to<'py>(py: Python<'py>, o: Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match o {
        Outcome::Dice(a, b) => {
            d.set_item(pystr!(d, "type"), pystr!(d, "dice"))?;
            d.set_item(pystr!(d, "dice"), [a as u32, b as u32])?;
        }
        Outcome::Card(card) => {
            d.set_item(pystr!(d, "type"), pystr!(d, "card"))?;
            d.set_item(pystr!(d, "card"), card)?;
        }
        Outcome::Deed(p) => {
            d.set_item(pystr!(d, "type"), pystr!(d, "deed"))?;
            d.set_item(pystr!(d, "square"), DEEDS[p as usize].square)?;
        }
    }
    Ok(d)
}
