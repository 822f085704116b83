//! A fixed integer action space for learning agents, with a legality mask for any seat.
//!
//! Version [`VERSION`]; [`SIZE`] actions. Seats are *relative* to the acting seat (0 = me, 1 = the
//! next seat, ...), properties are indices 0..28 in board order. Ranges:
//!
//! | range | action |
//! | --- | --- |
//! | 0..11 | roll, pay jail fine, use jail card, buy, decline, pass, end turn, pay debt, declare bankruptcy, cancel trade, end game |
//! | 11..19 | bid: 11 the lowest legal bid; 12..19 a fraction of the lot's value (1/4, 1/2, 3/4, 1, 5/4, 3/2, 2) |
//! | 19..47 | build on property p |
//! | 47..75 | sell one level on p |
//! | 75..103 | mortgage p |
//! | 103..131 | unmortgage p |
//! | 131..159 | keep p mortgaged (after receiving it) |
//! | 159..187 | claim rent on p |
//! | 187..195 | sell colour group g down to nothing |
//! | 195..203 | accept the offer of relative seat s |
//! | 203..211 | reject the offer of relative seat s |
//! | 211..256 | compose a trade ([`Draft`]): 211..219 start a draft with relative seat s; 219..247 toggle property p in it (mine: given, theirs: asked); 247..251 give cash +50, +250, ask cash +50, +250; 251..253 toggle a jail card (chance, community chest); 253 propose the draft; 254 discard it |
//!
//! A trade is a short sequence of these small actions; the draft lives beside the game (it is a
//! plan, not part of the rules), one per seat. Resigning (`Action::Resign`, leaving the game) has
//! no index: an agent plays the game to its end.

use lanopoly_engine::action::{Action, Bundle, Move};
use lanopoly_engine::board::{self, DEEDS, PROPERTIES};
use lanopoly_engine::state::{Lot, NOBODY};
use lanopoly_engine::Game;
use serde::{Deserialize, Serialize};

/// Version of the layout below; bumped whenever an index changes meaning.
pub const VERSION: u32 = 1;

const SIMPLE: [Action; 11] = [
    Action::Roll,
    Action::PayJailFine,
    Action::UseJailCard,
    Action::Buy,
    Action::Decline,
    Action::Pass,
    Action::EndTurn,
    Action::PayDebt,
    Action::DeclareBankruptcy,
    Action::CancelTrade,
    Action::EndGame,
];
pub const BID: usize = 11;
/// Bid fractions of the lot's value, in quarters, for actions BID+1..BID+8.
const BID_QUARTERS: [u32; 7] = [1, 2, 3, 4, 5, 6, 8];
pub const BUILD: usize = 19;
pub const SELL: usize = BUILD + PROPERTIES;
pub const MORTGAGE: usize = SELL + PROPERTIES;
pub const UNMORTGAGE: usize = MORTGAGE + PROPERTIES;
pub const KEEP: usize = UNMORTGAGE + PROPERTIES;
pub const CLAIM: usize = KEEP + PROPERTIES;
pub const SELL_DOWN: usize = CLAIM + PROPERTIES;
pub const ACCEPT: usize = SELL_DOWN + 8;
pub const REJECT: usize = ACCEPT + 8;
pub const DRAFT_START: usize = REJECT + 8;
pub const DRAFT_TOGGLE: usize = DRAFT_START + 8;
pub const DRAFT_CASH: usize = DRAFT_TOGGLE + PROPERTIES;
pub const DRAFT_CARD: usize = DRAFT_CASH + 4;
pub const DRAFT_PROPOSE: usize = DRAFT_CARD + 2;
pub const DRAFT_DISCARD: usize = DRAFT_PROPOSE + 1;
/// Number of actions.
pub const SIZE: usize = DRAFT_DISCARD + 1;

const CASH_STEPS: [u32; 2] = [50, 250];

/// A trade being composed by one seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    /// Absolute seat the offer is for, or [`NOBODY`] when no draft is open.
    pub to: u8,
    pub give: Bundle,
    pub get: Bundle,
}

impl Draft {
    pub fn closed() -> Draft {
        Draft { to: NOBODY, ..Draft::default() }
    }

    pub fn is_open(&self) -> bool {
        self.to != NOBODY
    }
}

/// What an index means for `seat` now: a move for the engine, or a change to the seat's draft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    Move(Action),
    Draft(Draft),
}

fn absolute(game: &Game, seat: u8, relative: usize) -> Option<u8> {
    (relative < game.num_players as usize).then(|| ((seat as usize + relative) % game.num_players as usize) as u8)
}

/// The value bids are measured against: the deed's price, or the house cost of the cheapest
/// street the bidder could build on in a shortage auction.
fn lot_value(game: &Game) -> u32 {
    match game.auction.map(|a| a.lot) {
        Some(Lot::Property(p)) => DEEDS[p as usize].price,
        Some(Lot::Building { square, .. }) => board::property_at(square).map_or(100, |p| DEEDS[p as usize].house_cost),
        None => 0,
    }
}

/// Decode an index for `seat` given its current draft; `None` if the index has no meaning now.
pub fn decode(game: &Game, seat: u8, draft: &Draft, index: usize) -> Option<Decoded> {
    let property = |base: usize| (index - base) as u8;
    let square = |base: usize| DEEDS[index - base].square;
    let decoded = match index {
        i if i < BID => Decoded::Move(SIMPLE[i]),
        i if i < BUILD => {
            let (min, max) = game.bid_range(seat)?;
            let amount = if i == BID { min } else { lot_value(game) * BID_QUARTERS[i - BID - 1] / 4 };
            if amount < min || amount > max {
                return None;
            }
            Decoded::Move(Action::Bid(amount))
        }
        i if i < SELL => Decoded::Move(Action::Build(square(BUILD))),
        i if i < MORTGAGE => Decoded::Move(Action::Sell(square(SELL))),
        i if i < UNMORTGAGE => Decoded::Move(Action::Mortgage(square(MORTGAGE))),
        i if i < KEEP => Decoded::Move(Action::Unmortgage(square(UNMORTGAGE))),
        i if i < CLAIM => Decoded::Move(Action::KeepMortgaged(square(KEEP))),
        i if i < SELL_DOWN => Decoded::Move(Action::ClaimRent(square(CLAIM))),
        i if i < ACCEPT => Decoded::Move(Action::SellDown { group: (i - SELL_DOWN) as u8, levels: [0; 3] }),
        i if i < REJECT => Decoded::Move(Action::AcceptTrade { from: absolute(game, seat, i - ACCEPT)? }),
        i if i < DRAFT_START => Decoded::Move(Action::RejectTrade { from: absolute(game, seat, i - REJECT)? }),
        i if i < DRAFT_TOGGLE => {
            let to = absolute(game, seat, i - DRAFT_START)?;
            if to == seat || game.player(to).bankrupt {
                return None;
            }
            Decoded::Draft(Draft { to, ..Draft::default() })
        }
        i if i < DRAFT_CASH => {
            let p = property(DRAFT_TOGGLE);
            let mut d = *draft;
            let owner = game.owner(p);
            match owner {
                o if o == seat && d.is_open() => d.give.properties ^= 1 << p,
                o if o == d.to && d.is_open() => d.get.properties ^= 1 << p,
                _ => return None,
            }
            Decoded::Draft(d)
        }
        i if i < DRAFT_CARD => {
            let mut d = *draft;
            if !d.is_open() {
                return None;
            }
            let step = CASH_STEPS[(i - DRAFT_CASH) % 2];
            let giving = i - DRAFT_CASH < 2;
            let payer = if giving { seat } else { d.to };
            let bundle = if giving { &mut d.give } else { &mut d.get };
            bundle.cash += step;
            if bundle.cash > game.player(payer).cash {
                return None;
            }
            Decoded::Draft(d)
        }
        i if i < DRAFT_PROPOSE => {
            let bit = 1u8 << (i - DRAFT_CARD);
            let mut d = *draft;
            if !d.is_open() {
                return None;
            }
            if game.player(seat).jail_cards & bit != 0 {
                d.give.jail_cards ^= bit;
            } else if game.player(d.to).jail_cards & bit != 0 {
                d.get.jail_cards ^= bit;
            } else {
                return None;
            }
            Decoded::Draft(d)
        }
        DRAFT_PROPOSE => {
            if !draft.is_open() {
                return None;
            }
            Decoded::Move(Action::ProposeTrade { to: draft.to, give: draft.give, get: draft.get })
        }
        DRAFT_DISCARD => {
            if !draft.is_open() {
                return None;
            }
            Decoded::Draft(Draft::closed())
        }
        _ => return None,
    };
    Some(decoded)
}

/// Is this index legal for `seat` now? Draft edits are legal whenever they make sense and the
/// seat may trade at all (a proposal of the draft must also pass the engine's check).
pub fn is_legal(game: &Game, seat: u8, draft: &Draft, index: usize) -> bool {
    match decode(game, seat, draft, index) {
        Some(Decoded::Move(action)) => game.is_legal(Move { player: seat, action }),
        Some(Decoded::Draft(_)) => may_trade(game, seat),
        None => false,
    }
}

/// Could `seat` propose some trade now (so that composing one is worth allowing)?
pub fn may_trade(game: &Game, seat: u8) -> bool {
    game.auction.is_none()
        && game.placing.is_none()
        && !game.is_chance_node()
        && !game.is_over()
        && !game.player(seat).bankrupt
        && (game.debts.is_empty() || game.debts.iter().any(|d| d.debtor == seat))
        && game.fee_due == 0
}

/// The legality mask of every index for `seat` (no allocation: the listed actions are visited).
pub fn mask(game: &Game, seat: u8, draft: &Draft, out: &mut [bool; SIZE]) {
    let (moves, drafts) = out.split_at_mut(DRAFT_START);
    moves_mask(game, seat, moves.try_into().expect("DRAFT_START entries"));
    drafts_mask(game, seat, draft, drafts);
}

/// The part of the mask below [`DRAFT_START`]: the engine's moves, which depend on the game and
/// the seat only (not on the seat's draft), so a caller may keep it while only the draft changes.
pub fn moves_mask(game: &Game, seat: u8, out: &mut [bool; DRAFT_START]) {
    out.fill(false);
    if game.is_over() || game.is_chance_node() {
        return;
    }
    let no_draft = Draft::closed();
    let draft = &no_draft;
    game.visit_legal_actions(seat, |action| {
        if let Some(i) = index_of(game, seat, action) {
            out[i] = true;
        }
    });
    // Selling a built group down to nothing is listed only for groups with a hotel.
    let built = game.built();
    for group in board::bits(board::whole_groups(game.holdings(seat)) as u32) {
        if board::GROUP_MASKS[group as usize] & built != 0 {
            out[SELL_DOWN + group as usize] = is_legal(game, seat, draft, SELL_DOWN + group as usize);
        }
    }
    // Bids at fractions of the value are not among the listed actions.
    if game.auction.is_some() {
        for (i, slot) in out.iter_mut().enumerate().take(BUILD).skip(BID + 1) {
            *slot = is_legal(game, seat, draft, i);
        }
    }
}

/// The part of the mask from [`DRAFT_START`]: composing and proposing a trade.
pub fn drafts_mask(game: &Game, seat: u8, draft: &Draft, out: &mut [bool]) {
    if !may_trade(game, seat) {
        out.fill(false);
        return;
    }
    draft_mask(game, seat, draft, out);
}

/// The draft range of the mask (`out` from [`DRAFT_START`]) when `seat` may trade: what
/// [`decode`] accepts there, computed directly (the proposal alone goes through the engine's
/// check).
fn draft_mask(game: &Game, seat: u8, draft: &Draft, out: &mut [bool]) {
    let n = game.num_players as usize;
    for (relative, slot) in out[..DRAFT_TOGGLE - DRAFT_START].iter_mut().enumerate() {
        let to = ((seat as usize + relative) % n.max(1)) as u8;
        *slot = relative < n && relative != 0 && !game.player(to).bankrupt;
    }
    let open = draft.is_open();
    if !open {
        out[DRAFT_TOGGLE - DRAFT_START..].fill(false);
        return;
    }
    let toggles = &mut out[DRAFT_TOGGLE - DRAFT_START..DRAFT_CASH - DRAFT_START];
    for (slot, &owner) in toggles.iter_mut().zip(game.owners().iter()) {
        *slot = owner == seat || owner == draft.to;
    }
    for k in 0..4 {
        let giving = k < 2;
        let (payer, bundle) = if giving { (seat, &draft.give) } else { (draft.to, &draft.get) };
        out[DRAFT_CASH - DRAFT_START + k] = bundle.cash + CASH_STEPS[k % 2] <= game.player(payer).cash;
    }
    let cards = game.player(seat).jail_cards | game.player(draft.to).jail_cards;
    for k in 0..2 {
        out[DRAFT_CARD - DRAFT_START + k] = cards & (1 << k) != 0;
    }
    let proposal = Action::ProposeTrade { to: draft.to, give: draft.give, get: draft.get };
    out[DRAFT_PROPOSE - DRAFT_START] = game.is_legal(Move { player: seat, action: proposal });
    out[DRAFT_DISCARD - DRAFT_START] = true;
}

/// The names of the simple actions, in index order (the move types of the Python API).
const SIMPLE_NAMES: [&str; 11] = [
    "roll",
    "pay_jail_fine",
    "use_jail_card",
    "buy",
    "decline",
    "pass",
    "end_turn",
    "pay_debt",
    "declare_bankruptcy",
    "cancel_trade",
    "end_game",
];

/// What index `index` means, as a short stable name: the move type (as in the Python API's
/// dicts), then what it applies to after a colon: a board square (properties), a fraction of the
/// lot's value (bids), a colour group, a seat relative to the actor (`+1` is the next seat), a
/// sum of money or a deck. Draft edits start with `draft_`. `None` past the last index.
pub fn name(index: usize) -> Option<String> {
    let square = |base: usize| DEEDS[index - base].square;
    let relative = |base: usize| index - base;
    Some(match index {
        i if i < BID => SIMPLE_NAMES[i].to_string(),
        BID => "bid:lowest".to_string(),
        i if i < BUILD => {
            let quarters = BID_QUARTERS[i - BID - 1];
            let (n, d) = match quarters % 4 {
                0 => (quarters / 4, 1),
                2 => (quarters / 2, 2),
                _ => (quarters, 4),
            };
            if d == 1 {
                format!("bid:{n}x_value")
            } else {
                format!("bid:{n}/{d}_value")
            }
        }
        i if i < SELL => format!("build:{}", square(BUILD)),
        i if i < MORTGAGE => format!("sell:{}", square(SELL)),
        i if i < UNMORTGAGE => format!("mortgage:{}", square(MORTGAGE)),
        i if i < KEEP => format!("unmortgage:{}", square(UNMORTGAGE)),
        i if i < CLAIM => format!("keep_mortgaged:{}", square(KEEP)),
        i if i < SELL_DOWN => format!("claim_rent:{}", square(CLAIM)),
        i if i < ACCEPT => format!("sell_down:{}", relative(SELL_DOWN)),
        i if i < REJECT => format!("accept_trade:+{}", relative(ACCEPT)),
        i if i < DRAFT_START => format!("reject_trade:+{}", relative(REJECT)),
        i if i < DRAFT_TOGGLE => format!("draft_start:+{}", relative(DRAFT_START)),
        i if i < DRAFT_CASH => format!("draft_toggle:{}", square(DRAFT_TOGGLE)),
        i if i < DRAFT_CARD => {
            let k = i - DRAFT_CASH;
            format!("draft_{}_cash:{}", if k < 2 { "give" } else { "ask" }, CASH_STEPS[k % 2])
        }
        i if i < DRAFT_PROPOSE => format!("draft_toggle_card:{}", ["chance", "community_chest"][i - DRAFT_CARD]),
        DRAFT_PROPOSE => "draft_propose".to_string(),
        DRAFT_DISCARD => "draft_discard".to_string(),
        _ => return None,
    })
}

/// The index of a listed legal action (bids map to the lowest-bid index).
pub fn index_of(game: &Game, seat: u8, action: Action) -> Option<usize> {
    let relative = |from: u8| (from as usize + game.num_players as usize - seat as usize) % game.num_players as usize;
    let prop = |square: u8| board::property_at(square).map(usize::from);
    Some(match action {
        Action::Bid(_) => BID,
        Action::Build(s) => BUILD + prop(s)?,
        Action::Sell(s) => SELL + prop(s)?,
        Action::Mortgage(s) => MORTGAGE + prop(s)?,
        Action::Unmortgage(s) => UNMORTGAGE + prop(s)?,
        Action::KeepMortgaged(s) => KEEP + prop(s)?,
        Action::ClaimRent(s) => CLAIM + prop(s)?,
        Action::SellDown { group, levels: [0, 0, 0] } => SELL_DOWN + group as usize,
        Action::AcceptTrade { from } => ACCEPT + relative(from),
        Action::RejectTrade { from } => REJECT + relative(from),
        Action::Roll => 0,
        Action::PayJailFine => 1,
        Action::UseJailCard => 2,
        Action::Buy => 3,
        Action::Decline => 4,
        Action::Pass => 5,
        Action::EndTurn => 6,
        Action::PayDebt => 7,
        Action::DeclareBankruptcy => 8,
        Action::CancelTrade => 9,
        Action::EndGame => 10,
        Action::ProposeTrade { .. } | Action::SellDown { .. } | Action::Resign => return None,
    })
}
