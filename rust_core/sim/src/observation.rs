//! A fixed-size float32 observation of a game from one seat's point of view.
//!
//! Seats are relative to the observer (slot 0 = the observer), so one policy can play every seat.
//! Money is scaled by 1/1000. The layout ([`LAYOUT`], names and sizes in order) is versioned with
//! the action space ([`crate::action_space::VERSION`]).

use crate::action_space::Draft;
use lanopoly_engine::board::{bits, PROPERTIES, SQUARES};
use lanopoly_engine::state::{Lot, Pending, Phase, HOTEL, MAX_PLAYERS, NOBODY};
use lanopoly_engine::{Bundle, Game};

const PLAYER: usize = 3 + SQUARES + 8;
const PROPERTY: usize = (MAX_PLAYERS + 1) + 4;
const BUNDLE: usize = PROPERTIES + 1 + 2;

/// A bit for every deed.
const DEEDS_MASK: u32 = (1 << PROPERTIES) - 1;

/// The observation's parts: (name, length), in order.
pub const LAYOUT: [(&str, usize); 8] = [
    // per relative seat: present, bankrupt, cash, position (one-hot 40), in jail, jail attempts,
    // Chance card, Community Chest card, net worth, whose turn, waited for, owes
    ("players", MAX_PLAYERS * PLAYER),
    // per property: owner (one-hot: bank, then relative seats), level/5, hotel, mortgaged, fee due
    ("properties", PROPERTIES * PROPERTY),
    // dealing, ordering, await roll, buy decision, after roll, game over
    ("phase", 6),
    // none, move dice, order dice, utility dice, card, deed
    ("pending", 6),
    // running, lot property (one-hot 28), building lot, high bid, leader (one-hot: none + seats),
    // I am still in, my lowest bid, my highest bid
    ("auction", 1 + PROPERTIES + 1 + 1 + (MAX_PLAYERS + 1) + 3),
    // the oldest offer to me: present, from (relative one-hot), give (props, cash, cards), get
    ("offer", 1 + MAX_PLAYERS + 2 * BUNDLE),
    // my draft: open, to (relative one-hot), give, get
    ("draft", 1 + MAX_PLAYERS + 2 * BUNDLE),
    // houses left/32, hotels left/12, jackpot, round/100, doubles/3, last dice total/12
    ("bank", 6),
];

/// Number of floats in an observation.
pub const SIZE: usize = {
    let mut total = 0;
    let mut i = 0;
    while i < LAYOUT.len() {
        total += LAYOUT[i].1;
        i += 1;
    }
    total
};

fn money(amount: impl Into<u64>) -> f32 {
    amount.into() as f32 / 1000.0
}

/// Writes consecutive values into a region of the observation buffer that was zeroed first:
/// zeros are skipped over, and only the other values are stored.
struct Writer<'a> {
    out: &'a mut [f32],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, value: f32) {
        self.out[self.at] = value;
        self.at += 1;
    }
    fn zeros(&mut self, size: usize) {
        self.at += size;
    }
    fn flag(&mut self, on: bool) {
        self.put(one(on));
    }
    fn one_hot(&mut self, size: usize, hot: Option<usize>) {
        if let Some(i) = hot.filter(|&i| i < size) {
            self.out[self.at + i] = 1.0;
        }
        self.at += size;
    }
    fn mask(&mut self, size: usize, bits: u32) {
        let block = &mut self.out[self.at..self.at + size];
        let mut bits = if size >= 32 { bits } else { bits & ((1 << size) - 1) };
        while bits != 0 {
            block[bits.trailing_zeros() as usize] = 1.0;
            bits &= bits - 1;
        }
        self.at += size;
    }
    fn bundle(&mut self, b: &Bundle) {
        self.mask(PROPERTIES, b.properties);
        self.put(money(b.cash));
        self.mask(2, b.jail_cards as u32);
    }
}

/// Fill `out` (length [`SIZE`]) with the game as `me` sees it, given `me`'s trade draft.
///
/// Every float of the row is written (the buffer may hold anything), without zero-filling the
/// whole 3.9 KB row first (glibc's `rep stosb` at that size was a third of a learner's `VecGame`
/// step in callgrind's count): three regions are zeroed one by one and their non-zero floats
/// set. The seat blocks follow the relative seats;
/// the property blocks read the owners' relative seats from a table (a division per property
/// costs more than the rest of the block).
pub fn observe(game: &Game, me: u8, draft: &Draft, out: &mut [f32]) {
    observe_with(game, me, draft, &game.net_worths_all(), out);
}

/// [`observe`], given every seat's net worth ([`Game::net_worths_all`], which a caller may keep
/// while the game does not move).
pub fn observe_with(game: &Game, me: u8, draft: &Draft, worth: &[u64; MAX_PLAYERS], out: &mut [f32]) {
    assert_eq!(out.len(), SIZE, "observation buffer of the wrong size");
    let n = game.num_players as usize;
    // relative[seat]: the seat's slot as `me` sees it (slot 0 = me).
    let mut relative = [0usize; MAX_PLAYERS];
    for (seat, slot) in relative.iter_mut().enumerate().take(n) {
        *slot = (seat + n - me as usize) % n;
    }
    // The seat and property regions, and the rest of the row, are zeroed whole (1.6, 1.5 and
    // 0.8 KB: vector stores, below the size where glibc's memset turns to `rep stosb`), then
    // only their non-zero floats are written: most are zeros (absent seats, 39 of 40 squares,
    // 8 of 9 owner slots, unbuilt and unmortgaged deeds, no auction, offer or draft).
    let (seats, rest) = out.split_at_mut(MAX_PLAYERS * PLAYER);
    let (properties, rest) = rest.split_at_mut(PROPERTIES * PROPERTY);
    seats.fill(0.0);
    let actor = game.actor();
    for (slot, block) in seats.chunks_exact_mut(PLAYER).enumerate().take(n) {
        let seat = ((me as usize + slot) % n) as u8;
        let p = game.player(seat);
        block[0] = 1.0;
        block[1] = one(p.bankrupt);
        block[2] = money(p.cash);
        if !p.bankrupt && (p.position as usize) < SQUARES {
            block[3 + p.position as usize] = 1.0;
        }
        let after = &mut block[3 + SQUARES..];
        after[0] = one(p.in_jail);
        after[1] = p.jail_attempts as f32 / 3.0;
        after[2] = one(p.jail_cards & 1 != 0);
        after[3] = one(p.jail_cards & 2 != 0);
        after[4] = money(worth[seat as usize]) / 5.0;
        after[5] = one(game.turn_player == seat);
        after[6] = one(actor == Some(seat));
        after[7] = money(game.owed_by(seat));
    }
    properties.fill(0.0);
    for (p, block) in properties.chunks_exact_mut(PROPERTY).enumerate() {
        let owner = game.owners()[p];
        block[if owner == NOBODY { 0 } else { 1 + relative[owner as usize] }] = 1.0;
    }
    for p in bits(game.built()) {
        let block = &mut properties[p as usize * PROPERTY..][..PROPERTY];
        (block[MAX_PLAYERS + 1], block[MAX_PLAYERS + 2]) = match game.level(p) {
            HOTEL => (1.0, 1.0),
            level => (level as f32 / 5.0, 0.0),
        };
    }
    for p in bits(game.mortgaged() & DEEDS_MASK) {
        properties[p as usize * PROPERTY + MAX_PLAYERS + 3] = 1.0;
    }
    for p in bits(game.fee_due & DEEDS_MASK) {
        properties[p as usize * PROPERTY + MAX_PLAYERS + 4] = 1.0;
    }
    let relative = |seat: u8| relative[seat as usize];
    rest.fill(0.0);
    let mut w = Writer { out: rest, at: 0 };
    let phase = match game.phase {
        Phase::Dealing { .. } => 0,
        Phase::Ordering { .. } => 1,
        Phase::AwaitRoll => 2,
        Phase::BuyDecision { .. } => 3,
        Phase::AfterRoll => 4,
        Phase::GameOver => 5,
    };
    w.one_hot(6, Some(phase));
    let pending = match game.pending {
        None => 0,
        Some(Pending::MoveDice) => 1,
        Some(Pending::OrderDice) => 2,
        Some(Pending::UtilityDice { .. }) => 3,
        Some(Pending::Card(_)) => 4,
        Some(Pending::Deed) => 5,
    };
    w.one_hot(6, Some(pending));
    match game.auction {
        Some(a) => {
            w.flag(true);
            let property = match a.lot {
                Lot::Property(p) => Some(p as usize),
                Lot::Building { .. } => None,
            };
            w.one_hot(PROPERTIES, property);
            w.flag(property.is_none());
            w.put(money(a.high_bid));
            let leader = (a.high_bidder != NOBODY).then(|| 1 + relative(a.high_bidder));
            w.one_hot(MAX_PLAYERS + 1, Some(leader.unwrap_or(0)));
            w.flag(a.bidders & (1 << me) != 0);
            let (min, max) = game.bid_range(me).unwrap_or((0, 0));
            w.put(money(min));
            w.put(money(max));
        }
        None => w.zeros(LAYOUT[4].1),
    }
    match game.offers.iter().find(|o| o.to == me) {
        Some(o) => {
            w.flag(true);
            w.one_hot(MAX_PLAYERS, Some(relative(o.from)));
            w.bundle(&o.give);
            w.bundle(&o.get);
        }
        None => w.zeros(LAYOUT[5].1),
    }
    if draft.is_open() {
        w.flag(true);
        w.one_hot(MAX_PLAYERS, Some(relative(draft.to)));
        w.bundle(&draft.give);
        w.bundle(&draft.get);
    } else {
        w.zeros(LAYOUT[6].1);
    }
    w.put(game.houses_left as f32 / 32.0);
    w.put(game.hotels_left as f32 / 12.0);
    w.put(money(game.jackpot));
    w.put(game.round as f32 / 100.0);
    w.put(game.doubles as f32 / 3.0);
    w.put((game.last_dice.0 + game.last_dice.1) as f32 / 12.0);
    debug_assert_eq!(MAX_PLAYERS * PLAYER + PROPERTIES * PROPERTY + w.at, SIZE);
}

/// 1.0 for true, 0.0 for false.
fn one(on: bool) -> f32 {
    if on {
        1.0
    } else {
        0.0
    }
}
