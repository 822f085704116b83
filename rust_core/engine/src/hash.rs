//! Identity of a state: its canonical bytes, its 32-byte hash, and the checks a decoded state
//! must pass before it is trusted.
//!
//! The canonical encoding is postcard (a documented, stable wire format: varint integers, fields
//! in declaration order, no maps) of [`Game`] without its event log, behind a version tag. The
//! same state gives the same bytes on every machine, so SHA-256 of them is what peers compare.
//!
//! Two formats: `s2` (the current layout) and `s1`, the layout before the options
//! `reshuffle_decks`, `max_players`, `build_in_own_turn`, `shortage_opening_bid` and the deck
//! queues existed. A state whose rules give those options their old values
//! ([`Rules::is_legacy_encodable`]: decks reshuffled each pass, so no queues) is written in `s1`,
//! byte for byte as before, so logs recorded then replay to their recorded hashes. Every other
//! state is written in `s2`, which stores each deck's queue of seen cards (a varint of up to 16
//! four-bit cards and a count: 11 bytes at most per deck, see [`crate::cards::DeckState`]) and
//! the four options (4 or 5 bytes): at most 27 bytes more per state, all of them hashed.

use crate::action::Offer;
use crate::board::{self, Deck, DEEDS, PROPERTIES};
use crate::cards::DeckState;
use crate::edition::BoardId;
use crate::error::IllegalAction;
use crate::rules::{RentClaim, Rules};
use crate::state::{
    Auction, Claim, Debt, Game, Pending, Phase, Placement, Player, HOTEL, MAX_PLAYERS, MIN_PLAYERS, NOBODY,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// First bytes of every encoded state in the current format; bumped whenever the encoding changes.
pub const FORMAT_TAG: &[u8; 12] = b"lanopoly/s2\0";
/// First bytes of a state in the first format, still written for states it can hold.
pub const FORMAT_TAG_S1: &[u8; 12] = b"lanopoly/s1\0";

/// The most cash a seat (or the jackpot) may hold in a decoded state: far above any real game,
/// far below where sums could overflow.
pub const MAX_CASH: u32 = 1 << 30;

impl Game {
    /// The canonical bytes of the state (tag + postcard), in format `s1` when it can hold the
    /// state, else `s2`.
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.rules.is_legacy_encodable() {
            return postcard::to_extend(&StateS1::from(self), FORMAT_TAG_S1.to_vec()).expect("a state always encodes");
        }
        postcard::to_extend(self, FORMAT_TAG.to_vec()).expect("a state always encodes")
    }

    /// Decode and check a state; malformed, inconsistent or non-canonical bytes are refused with
    /// the reason.
    pub fn from_bytes(bytes: &[u8]) -> Result<Game, IllegalAction> {
        let malformed = |e: postcard::Error| IllegalAction::new(format!("malformed state: {e}"));
        let (game, rest) = if let Some(body) = bytes.strip_prefix(FORMAT_TAG_S1.as_slice()) {
            let (old, rest): (StateS1, &[u8]) = postcard::take_from_bytes(body).map_err(malformed)?;
            (Game::from(old), rest)
        } else if let Some(body) = bytes.strip_prefix(FORMAT_TAG.as_slice()) {
            let (game, rest): (Game, &[u8]) = postcard::take_from_bytes(body).map_err(malformed)?;
            if game.rules.is_legacy_encodable() {
                return Err(IllegalAction::new("malformed state: these rules are written in format s1"));
            }
            (game, rest)
        } else {
            return Err(IllegalAction::new("not a lanopoly state (wrong format tag)"));
        };
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
            let owner = self.owners()[p];
            if owner != NOBODY && (owner as usize >= n || self.players[owner as usize].bankrupt) {
                return bad(format!("deed {p} has owner {owner}"));
            }
            let level = self.levels()[p];
            if level != 0 {
                let Some(group) = DEEDS[p].group() else { return bad(format!("buildings on deed {p}")) };
                if level > self.rules.houses_per_hotel && level != HOTEL {
                    return bad(format!("level {level} on deed {p}"));
                }
                if self.group_owner(group).is_none() || board::GROUP_MASKS[group as usize] & self.mortgaged() != 0 {
                    return bad(format!("buildings on deed {p} without an unmortgaged group"));
                }
            }
            if owner == NOBODY && self.mortgaged() & (1 << p) != 0 {
                return bad(format!("deed {p} mortgaged by the bank"));
            }
        }
        if (self.mortgaged() | self.fee_due | self.auction_queue) >> PROPERTIES != 0
            || self.fee_due & !self.mortgaged() != 0
        {
            return bad("property masks out of range".into());
        }
        if self.rules.even_building {
            for g in 0..board::COLOUR_GROUPS as u8 {
                let heights = board::group_members(g).map(|q| self.height(self.level(q)));
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
            let state = &self.decks[deck as usize];
            let held = state.held;
            let card = 1u16 << self.jail_card_index(deck);
            if holders > 1 || (holders == 1) != (held == card) || held & !card != 0 {
                return bad(format!("jail card of {deck:?} held inconsistently"));
            }
            if !state.is_consistent(self.rules.reshuffle_decks) {
                return bad(format!("the {deck:?} deck is inconsistent"));
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

/// The options of format `s1`: [`Rules`] up to `timed`.
#[derive(Serialize, Deserialize)]
struct RulesS1 {
    starting_cash: u32,
    go_salary: u32,
    double_go_on_landing: bool,
    auctions: bool,
    opening_bid: u32,
    free_parking_jackpot: bool,
    jailed_owner_collects: bool,
    even_building: bool,
    limited_buildings: bool,
    houses: u8,
    hotels: u8,
    houses_per_hotel: u8,
    jail_fine: u32,
    round_limit: u16,
    rent_claim: RentClaim,
    starting_deeds: u8,
    end_after_bankruptcies: u8,
    timed: bool,
}

/// A deck in format `s1`: no queue (its decks were reshuffled each pass).
#[derive(Serialize, Deserialize)]
struct DeckS1 {
    drawn: u16,
    held: u16,
}

/// The state in format `s1`, field for field as [`Game`] was then. Frozen: it never changes.
#[derive(Serialize, Deserialize)]
struct StateS1 {
    board: BoardId,
    rules: RulesS1,
    num_players: u8,
    players: [Player; MAX_PLAYERS],
    owner: [u8; PROPERTIES],
    level: [u8; PROPERTIES],
    mortgaged: u32,
    fee_due: u32,
    houses_left: u8,
    hotels_left: u8,
    decks: [DeckS1; 2],
    jackpot: u32,
    turn_player: u8,
    starter: u8,
    doubles: u8,
    last_dice: (u8, u8),
    round: u32,
    turn: u32,
    phase: Phase,
    pending: Option<Pending>,
    auction: Option<Auction>,
    auction_queue: u32,
    placing: Option<Placement>,
    debts: Vec<Debt>,
    claims: Vec<Claim>,
    offers: Vec<Offer>,
    bankruptcies: u8,
    winner: u8,
    step: u32,
}

impl From<&Game> for StateS1 {
    fn from(g: &Game) -> StateS1 {
        let r = &g.rules;
        StateS1 {
            board: g.board,
            rules: RulesS1 {
                starting_cash: r.starting_cash,
                go_salary: r.go_salary,
                double_go_on_landing: r.double_go_on_landing,
                auctions: r.auctions,
                opening_bid: r.opening_bid,
                free_parking_jackpot: r.free_parking_jackpot,
                jailed_owner_collects: r.jailed_owner_collects,
                even_building: r.even_building,
                limited_buildings: r.limited_buildings,
                houses: r.houses,
                hotels: r.hotels,
                houses_per_hotel: r.houses_per_hotel,
                jail_fine: r.jail_fine,
                round_limit: r.round_limit,
                rent_claim: r.rent_claim,
                starting_deeds: r.starting_deeds,
                end_after_bankruptcies: r.end_after_bankruptcies,
                timed: r.timed,
            },
            num_players: g.num_players,
            players: g.players,
            owner: *g.owners(),
            level: *g.levels(),
            mortgaged: g.mortgaged(),
            fee_due: g.fee_due,
            houses_left: g.houses_left,
            hotels_left: g.hotels_left,
            decks: g.decks.map(|d| DeckS1 { drawn: d.drawn, held: d.held }),
            jackpot: g.jackpot,
            turn_player: g.turn_player,
            starter: g.starter,
            doubles: g.doubles,
            last_dice: g.last_dice,
            round: g.round,
            turn: g.turn,
            phase: g.phase,
            pending: g.pending,
            auction: g.auction,
            auction_queue: g.auction_queue,
            placing: g.placing,
            debts: g.debts.clone(),
            claims: g.claims.clone(),
            offers: g.offers.clone(),
            bankruptcies: g.bankruptcies,
            winner: g.winner,
            step: g.step,
        }
    }
}

impl From<StateS1> for Game {
    fn from(s: StateS1) -> Game {
        let r = s.rules;
        let rules = Rules {
            starting_cash: r.starting_cash,
            go_salary: r.go_salary,
            double_go_on_landing: r.double_go_on_landing,
            auctions: r.auctions,
            opening_bid: r.opening_bid,
            free_parking_jackpot: r.free_parking_jackpot,
            jailed_owner_collects: r.jailed_owner_collects,
            even_building: r.even_building,
            limited_buildings: r.limited_buildings,
            houses: r.houses,
            hotels: r.hotels,
            houses_per_hotel: r.houses_per_hotel,
            jail_fine: r.jail_fine,
            round_limit: r.round_limit,
            rent_claim: r.rent_claim,
            starting_deeds: r.starting_deeds,
            end_after_bankruptcies: r.end_after_bankruptcies,
            timed: r.timed,
            ..Rules::legacy()
        };
        // Every field is set below (the deeds' are private: set through `set_deeds`).
        let mut game = Game::blank(s.num_players, s.board, rules);
        game.players = s.players;
        game.set_deeds(s.owner, s.level, s.mortgaged);
        game.fee_due = s.fee_due;
        game.houses_left = s.houses_left;
        game.hotels_left = s.hotels_left;
        game.decks = s.decks.map(|d| DeckState { drawn: d.drawn, held: d.held, ..DeckState::default() });
        game.jackpot = s.jackpot;
        game.turn_player = s.turn_player;
        game.starter = s.starter;
        game.doubles = s.doubles;
        game.last_dice = s.last_dice;
        game.round = s.round;
        game.turn = s.turn;
        game.phase = s.phase;
        game.pending = s.pending;
        game.auction = s.auction;
        game.auction_queue = s.auction_queue;
        game.placing = s.placing;
        game.debts = s.debts;
        game.claims = s.claims;
        game.offers = s.offers;
        game.bankruptcies = s.bankruptcies;
        game.winner = s.winner;
        game.step = s.step;
        game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::play_randomly;
    use crate::chance::Resolver;

    /// A game played at random for a while under `rules`.
    fn played(rules: Rules, seed: u64) -> Game {
        let mut game = Game::new(4, BoardId::Classic, rules).unwrap();
        play_randomly(&mut game, &mut Resolver::new(seed), 3000);
        game
    }

    #[test]
    fn legacy_rules_keep_format_s1_and_the_others_use_s2() {
        let old = played(Rules::legacy(), 1);
        assert!(old.to_bytes().starts_with(FORMAT_TAG_S1));
        let new = played(Rules::default(), 1);
        assert!(new.to_bytes().starts_with(FORMAT_TAG));
        for game in [old, new] {
            assert_eq!(Game::from_bytes(&game.to_bytes()).unwrap(), game);
        }
    }

    #[test]
    fn an_s2_encoding_of_an_s1_state_is_not_canonical() {
        let old = played(Rules::legacy(), 2);
        let s2 = postcard::to_extend(&old, FORMAT_TAG.to_vec()).unwrap();
        let err = Game::from_bytes(&s2).unwrap_err();
        assert!(err.reason.contains("format s1"), "{}", err.reason);
    }

    #[test]
    fn a_state_of_the_first_format_still_has_its_hash() {
        // The state hash of a new 2-seat classic game with the options of format s1, as the
        // engine gave it before format s2 existed (seat 0 rolled 2 + 3 for the order).
        let mut game = Game::new(2, BoardId::Classic, Rules { round_limit: 3, ..Rules::legacy() }).unwrap();
        game.apply_chance(crate::Outcome::Dice(2, 3)).unwrap();
        let hex: String = game.state_hash().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "411651ef372c71e1181e75ab8c2dbe6ee655b6936b35379715a36dfa366f0037");
    }
}
