//! Identity of a state: its canonical bytes, its 32-byte hash, and the checks a decoded state
//! must pass before it is trusted.
//!
//! The canonical encoding is postcard (a documented, stable wire format: varint integers, fields
//! in declaration order, no maps) of [`Game`] without its event log, behind a version tag. The
//! same state gives the same bytes on every machine, so SHA-256 of them is what peers compare.

use crate::board::{self, Deck, DEEDS, PROPERTIES};
use crate::error::IllegalAction;
use crate::state::{Game, Pending, Phase, HOTEL, MAX_PLAYERS, MIN_PLAYERS, NOBODY};
use sha2::{Digest, Sha256};

/// First bytes of every encoded state; bumped whenever the encoding changes.
pub const FORMAT_TAG: &[u8; 12] = b"lanopoly/s1\0";

/// The most cash a seat (or the jackpot) may hold in a decoded state: far above any real game,
/// far below where sums could overflow.
pub const MAX_CASH: u32 = 1 << 30;

impl Game {
    /// The canonical bytes of the state (tag + postcard).
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_extend(self, FORMAT_TAG.to_vec()).expect("a state always encodes")
    }

    /// Decode and check a state; malformed or inconsistent bytes are refused with the reason.
    pub fn from_bytes(bytes: &[u8]) -> Result<Game, IllegalAction> {
        let body = bytes
            .strip_prefix(FORMAT_TAG.as_slice())
            .ok_or_else(|| IllegalAction::new("not a lanopoly state (wrong format tag)"))?;
        let (game, rest): (Game, &[u8]) =
            postcard::take_from_bytes(body).map_err(|e| IllegalAction::new(format!("malformed state: {e}")))?;
        if !rest.is_empty() {
            return Err(IllegalAction::new(format!("malformed state: {} bytes after its end", rest.len())));
        }
        game.validate()?;
        Ok(game)
    }

    /// SHA-256 of the canonical bytes.
    pub fn state_hash(&self) -> [u8; 32] {
        Sha256::digest(self.to_bytes()).into()
    }

    /// Check the invariants every reachable state satisfies. A decoded state (from bytes or a
    /// snapshot) must pass this before it is played, so a forged one cannot break the engine.
    pub fn validate(&self) -> Result<(), IllegalAction> {
        let bad = |why: String| Err(IllegalAction::new(format!("invalid state: {why}")));
        let n = self.num_players as usize;
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&n) {
            return bad(format!("{n} players"));
        }
        self.rules.validate().map_err(|e| IllegalAction::new(format!("invalid state: {e}")))?;
        #[allow(clippy::needless_range_loop)] // p indexes three tables
        for p in 0..PROPERTIES {
            let owner = self.owner[p];
            if owner != NOBODY && (owner as usize >= n || self.players[owner as usize].bankrupt) {
                return bad(format!("deed {p} has owner {owner}"));
            }
            let level = self.level[p];
            if level != 0 {
                let Some(group) = DEEDS[p].group() else { return bad(format!("buildings on deed {p}")) };
                if level > self.rules.houses_per_hotel && level != HOTEL {
                    return bad(format!("level {level} on deed {p}"));
                }
                if self.group_owner(group).is_none() || board::GROUP_MASKS[group as usize] & self.mortgaged != 0 {
                    return bad(format!("buildings on deed {p} without an unmortgaged group"));
                }
            }
            if owner == NOBODY && self.mortgaged & (1 << p) != 0 {
                return bad(format!("deed {p} mortgaged by the bank"));
            }
        }
        if (self.mortgaged | self.fee_due | self.auction_queue) >> PROPERTIES != 0
            || self.fee_due & !self.mortgaged != 0
        {
            return bad("property masks out of range".into());
        }
        if self.rules.even_building {
            for g in 0..board::COLOUR_GROUPS as u8 {
                let heights = board::group_members(g).map(|q| self.height(self.level[q as usize]));
                let (lo, hi) = heights.fold((u8::MAX, 0), |(lo, hi), h| (lo.min(h), hi.max(h)));
                if hi - lo > 1 {
                    return bad(format!("uneven buildings in group {g}"));
                }
            }
        }
        if self.rules.limited_buildings {
            let (houses, hotels) = self.seats().fold((0u32, 0u32), |(h, t), p| {
                let (a, b) = self.buildings_of(p);
                (h + a, t + b)
            });
            if houses + self.houses_left as u32 != self.rules.houses as u32
                || hotels + self.hotels_left as u32 != self.rules.hotels as u32
            {
                return bad("buildings on the board and in the bank do not add up".into());
            }
        }
        for deck in [Deck::Chance, Deck::CommunityChest] {
            let holders =
                self.seats().filter(|&p| self.players[p as usize].jail_cards & (1 << deck as u8) != 0).count();
            let held = self.decks[deck as usize].held;
            let card = 1u16 << self.jail_card_index(deck);
            if holders > 1 || (holders == 1) != (held == card) || held & !card != 0 {
                return bad(format!("jail card of {deck:?} held inconsistently"));
            }
        }
        for (p, player) in self.players.iter().enumerate() {
            if p >= n && *player != Default::default() {
                return bad(format!("data in unused seat {p}"));
            }
            if player.position >= 40 || player.jail_attempts > 2 || player.jail_cards > 3 {
                return bad(format!("seat {p} out of range"));
            }
        }
        let seat_ok = |s: u8| (s as usize) < n;
        if !seat_ok(self.turn_player) || !seat_ok(self.starter) {
            return bad("turn seat out of range".into());
        }
        if self.debts.iter().any(|d| !seat_ok(d.debtor))
            || self.offers.iter().any(|o| !seat_ok(o.from) || !seat_ok(o.to))
            || self.claims.iter().any(|c| !seat_ok(c.owner) || !seat_ok(c.payer) || c.square >= 40)
        {
            return bad("seat out of range in debts, offers or claims".into());
        }
        if let Phase::BuyDecision { property } = self.phase {
            if property as usize >= PROPERTIES {
                return bad("buy decision on no deed".into());
            }
        }
        if let Some(a) = &self.auction {
            let lot_ok = match a.lot {
                crate::state::Lot::Property(p) => (p as usize) < PROPERTIES,
                crate::state::Lot::Building { requester, square, .. } => seat_ok(requester) && square < 40,
            };
            if !lot_ok || !seat_ok(a.first) || (a.high_bidder != NOBODY && !seat_ok(a.high_bidder)) {
                return bad("auction out of range".into());
            }
        }
        self.validate_seats()?;
        self.validate_flow()?;
        Ok(())
    }

    /// Bankrupt seats hold nothing; nobody holds more than [`MAX_CASH`]; debts name real seats.
    fn validate_seats(&self) -> Result<(), IllegalAction> {
        let bad = |why: String| Err(IllegalAction::new(format!("invalid state: {why}")));
        let n = self.num_players;
        for p in 0..n {
            let player = &self.players[p as usize];
            if player.cash > MAX_CASH {
                return bad(format!("seat {p} holds {} (more than {MAX_CASH})", player.cash));
            }
            if player.bankrupt && (player.cash != 0 || player.jail_cards != 0 || player.in_jail) {
                return bad(format!("bankrupt seat {p} still holds something"));
            }
        }
        if self.jackpot > MAX_CASH {
            return bad("jackpot out of range".into());
        }
        let live = |s: u8| s < n && !self.players[s as usize].bankrupt;
        for d in &self.debts {
            let creditor_ok = match d.creditor {
                crate::event::Party::Player(c) => live(c) && c != d.debtor,
                _ => true,
            };
            if !live(d.debtor) || !creditor_ok || d.amount == 0 || d.amount > MAX_CASH {
                return bad("a debt names a seat not in the game".into());
            }
        }
        if self.offers.iter().any(|o| !live(o.from) || !live(o.to) || o.from == o.to)
            || self.claims.iter().any(|c| !live(c.owner) || !live(c.payer))
        {
            return bad("an offer or claim names a seat not in the game".into());
        }
        if !self.is_over() && !live(self.turn_player) {
            return bad("the turn belongs to a seat not in the game".into());
        }
        if self.placing.is_some_and(|pl| !live(pl.player)) {
            return bad("a building is placed by a seat not in the game".into());
        }
        if let Some(a) = &self.auction {
            if a.bidders & !self.active_mask() != 0
                || (a.high_bidder != NOBODY && a.bidders & (1 << a.high_bidder) == 0)
            {
                return bad("auction bidders out of range".into());
            }
        }
        Ok(())
    }

    /// The phase and the pending chance event fit together.
    fn validate_flow(&self) -> Result<(), IllegalAction> {
        let bad = |why: &str| Err(IllegalAction::new(format!("invalid state: {why}")));
        let n = self.num_players;
        let seats = ((1u16 << n) - 1) as u8;
        let ok = match (self.phase, self.pending) {
            (Phase::Dealing { seat, dealt }, Some(Pending::Deed)) => seat < n && dealt < self.rules.starting_deeds,
            (Phase::Ordering { contenders, next, leaders, best }, Some(Pending::OrderDice)) => {
                contenders & !seats == 0
                    && contenders & (1 << next.min(7)) != 0
                    && next < n
                    && leaders & !contenders == 0
                    && best <= 12
            }
            (Phase::Dealing { .. } | Phase::Ordering { .. }, _) => false,
            (_, Some(Pending::Deed | Pending::OrderDice)) => false,
            (Phase::GameOver, pending) => pending.is_none(),
            (_, Some(Pending::UtilityDice { property })) => (property as usize) < PROPERTIES,
            _ => true,
        };
        if !ok {
            return bad("the phase and the pending chance event do not fit");
        }
        if self.is_over() != (self.winner != NOBODY) && self.winner != NOBODY {
            return bad("a winner in a game not over");
        }
        if self.winner != NOBODY && self.winner >= n {
            return bad("winner out of range");
        }
        Ok(())
    }
}
