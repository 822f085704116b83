//! Plain-dict forms of moves, chance outcomes and trade bundles: what Python code and the wire see.
//!
//! A move is `{"type": "build", "player": 0, "square": 39}`; a chance outcome is
//! `{"type": "dice", "dice": [3, 4]}`, `{"type": "card", "card": 7}` or
//! `{"type": "deed", "square": 39}`. Squares are board squares 0..40 everywhere.

use lanopoly_engine::board::{self, DEEDS};
use lanopoly_engine::{Action, Bundle, Move, Outcome};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::IllegalAction;

fn bad(msg: impl Into<String>) -> PyErr {
    IllegalAction::new_err(msg.into())
}

/// Read a required integer field.
fn field<'py, T: FromPyObjectOwned<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    let value = d.get_item(key)?.ok_or_else(|| bad(format!("missing field {key:?}")))?;
    value.extract::<T>().map_err(|_| bad(format!("field {key:?} has the wrong type or is out of range")))
}

fn as_dict<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    obj.cast::<PyDict>().cloned().map_err(|_| bad("an action is a dict with a \"type\" key"))
}

const JAIL_CARD_NAMES: [&str; 2] = ["chance", "community_chest"];

fn bundle_from(obj: Option<Bound<'_, PyAny>>) -> PyResult<Bundle> {
    let Some(obj) = obj else { return Ok(Bundle::default()) };
    let d = as_dict(&obj)?;
    let mut bundle = Bundle::default();
    if let Some(squares) = d.get_item("properties")? {
        let not_list = |_| bad("properties is a list of square numbers");
        for square in squares.try_iter().map_err(not_list)? {
            let square: u8 = square.map_err(not_list)?.extract().map_err(|_| bad("properties are square numbers"))?;
            let p = (square < 40).then(|| board::property_at(square)).flatten();
            let p = p.ok_or_else(|| bad(format!("square {square} is not a property")))?;
            bundle.properties |= 1 << p;
        }
    }
    if d.contains("cash")? {
        bundle.cash = field(&d, "cash")?;
    }
    if let Some(cards) = d.get_item("jail_cards")? {
        let not_names = |_| bad("jail_cards is a list of \"chance\" or \"community_chest\"");
        for card in cards.try_iter().map_err(not_names)? {
            let name: String = card.map_err(not_names)?.extract().map_err(not_names)?;
            let i = JAIL_CARD_NAMES.iter().position(|n| *n == name);
            let i = i.ok_or_else(|| bad(format!("no jail card {name:?}")))?;
            bundle.jail_cards |= 1 << i;
        }
    }
    Ok(bundle)
}

pub fn bundle_to<'py>(py: Python<'py>, b: &Bundle) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let squares: Vec<u32> = board::bits(b.properties).map(|p| DEEDS[p as usize].square.into()).collect();
    d.set_item("properties", squares)?;
    d.set_item("cash", b.cash)?;
    let cards: Vec<&str> = (0..2).filter(|i| b.jail_cards & (1 << i) != 0).map(|i| JAIL_CARD_NAMES[i]).collect();
    d.set_item("jail_cards", cards)?;
    Ok(d)
}

/// A move from its dict form.
pub fn move_from(obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    let d = as_dict(obj)?;
    let kind: String = field(&d, "type")?;
    let player: u8 = field(&d, "player")?;
    let square = || field::<u8>(&d, "square");
    let from = || field::<u8>(&d, "from");
    let action = match kind.as_str() {
        "roll" => Action::Roll,
        "pay_jail_fine" => Action::PayJailFine,
        "use_jail_card" => Action::UseJailCard,
        "buy" => Action::Buy,
        "decline" => Action::Decline,
        "bid" => Action::Bid(field(&d, "amount")?),
        "pass" => Action::Pass,
        "build" => Action::Build(square()?),
        "sell" => Action::Sell(square()?),
        "sell_down" => {
            let levels: Vec<u8> = field(&d, "levels")?;
            if levels.len() > 3 {
                return Err(bad("a colour group has at most 3 streets"));
            }
            let mut padded = [0u8; 3];
            padded[..levels.len()].copy_from_slice(&levels);
            Action::SellDown { group: field(&d, "group")?, levels: padded }
        }
        "mortgage" => Action::Mortgage(square()?),
        "unmortgage" => Action::Unmortgage(square()?),
        "keep_mortgaged" => Action::KeepMortgaged(square()?),
        "propose_trade" => Action::ProposeTrade {
            to: field(&d, "to")?,
            give: bundle_from(d.get_item("give")?)?,
            get: bundle_from(d.get_item("get")?)?,
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
        other => return Err(bad(format!("unknown action type {other:?}"))),
    };
    Ok(Move { player, action })
}

/// The dict form of a move.
pub fn move_to<'py>(py: Python<'py>, m: Move) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let kind = match m.action {
        Action::Roll => "roll",
        Action::PayJailFine => "pay_jail_fine",
        Action::UseJailCard => "use_jail_card",
        Action::Buy => "buy",
        Action::Decline => "decline",
        Action::Bid(amount) => {
            d.set_item("amount", amount)?;
            "bid"
        }
        Action::Pass => "pass",
        Action::Build(s)
        | Action::Sell(s)
        | Action::Mortgage(s)
        | Action::Unmortgage(s)
        | Action::KeepMortgaged(s)
        | Action::ClaimRent(s) => {
            d.set_item("square", s)?;
            match m.action {
                Action::Build(_) => "build",
                Action::Sell(_) => "sell",
                Action::Mortgage(_) => "mortgage",
                Action::Unmortgage(_) => "unmortgage",
                Action::KeepMortgaged(_) => "keep_mortgaged",
                _ => "claim_rent",
            }
        }
        Action::SellDown { group, levels } => {
            d.set_item("group", group)?;
            let size = board::group_members(group).count();
            d.set_item("levels", PyList::new(py, &levels[..size])?)?;
            "sell_down"
        }
        Action::ProposeTrade { to, give, get } => {
            d.set_item("to", to)?;
            d.set_item("give", bundle_to(py, &give)?)?;
            d.set_item("get", bundle_to(py, &get)?)?;
            "propose_trade"
        }
        Action::AcceptTrade { from } | Action::RejectTrade { from } => {
            d.set_item("from", from)?;
            if matches!(m.action, Action::AcceptTrade { .. }) {
                "accept_trade"
            } else {
                "reject_trade"
            }
        }
        Action::CancelTrade => "cancel_trade",
        Action::PayDebt => "pay_debt",
        Action::DeclareBankruptcy => "declare_bankruptcy",
        Action::EndTurn => "end_turn",
        Action::EndGame => "end_game",
        Action::Resign => "resign",
    };
    d.set_item("type", kind)?;
    d.set_item("player", m.player)?;
    Ok(d)
}

/// Is this dict a chance outcome (rather than a move)?
pub fn is_outcome(d: &Bound<'_, PyDict>) -> PyResult<bool> {
    let Some(kind) = d.get_item("type")? else { return Ok(false) };
    let kind: String = kind.extract().unwrap_or_default();
    Ok(matches!(kind.as_str(), "dice" | "card" | "deed"))
}

pub fn outcome_from(obj: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    let d = as_dict(obj)?;
    let kind: String = field(&d, "type")?;
    Ok(match kind.as_str() {
        "dice" => {
            let dice: Vec<u8> = field(&d, "dice")?;
            let [a, b] = dice[..] else { return Err(bad("dice is a pair such as [3, 4]")) };
            Outcome::Dice(a.min(b), a.max(b))
        }
        "card" => Outcome::Card(field(&d, "card")?),
        "deed" => {
            let square: u8 = field(&d, "square")?;
            let p = (square < 40).then(|| board::property_at(square)).flatten();
            Outcome::Deed(p.ok_or_else(|| bad(format!("square {square} is not a property")))?)
        }
        other => return Err(bad(format!("unknown chance outcome type {other:?}"))),
    })
}

pub fn outcome_to<'py>(py: Python<'py>, o: Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match o {
        Outcome::Dice(a, b) => {
            d.set_item("type", "dice")?;
            d.set_item("dice", [a as u32, b as u32])?;
        }
        Outcome::Card(card) => {
            d.set_item("type", "card")?;
            d.set_item("card", card)?;
        }
        Outcome::Deed(p) => {
            d.set_item("type", "deed")?;
            d.set_item("square", DEEDS[p as usize].square)?;
        }
    }
    Ok(d)
}
