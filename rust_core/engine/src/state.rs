//! The complete state of a game, and the read-only questions asked of it.
//!
//! Everything here is plain data of fixed meaning: integers, bit masks and small vectors that are
//! empty most of the time (debts, offers, rent claims), so a clone rarely touches the heap. No
//! floats, no `usize`, no hash maps: the state encodes the same way on every machine.

use crate::action::Offer;
use crate::board::{self, Deck, Kind, DEEDS, PROPERTIES, RAILWAY_MASK, UTILITY_MASK};
use crate::cards::DeckState;
use crate::deeds::DeedsVersion;
use crate::edition::BoardId;
use crate::event::{EventLog, Party, Reason};
use crate::rules::Rules;
use serde::{Deserialize, Serialize};

pub const MAX_PLAYERS: usize = 8;
pub const MIN_PLAYERS: usize = 2;
/// "No player" in a seat-valued field.
pub const NOBODY: u8 = u8::MAX;
/// Building level of a street with a hotel.
pub const HOTEL: u8 = 5;

/// One seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Player {
    pub cash: u32,
    pub position: u8,
    pub in_jail: bool,
    /// Failed rolls for a double during this stay in jail.
    pub jail_attempts: u8,
    /// Bit 0: holds the Chance jail card, bit 1: the Community Chest one.
    pub jail_cards: u8,
    pub bankrupt: bool,
}

/// Money a player must pay but could not when it fell due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Debt {
    pub debtor: u8,
    pub creditor: Party,
    pub amount: u32,
    pub reason: Reason,
}

/// Rent that the owner must claim before a deadline (option "rent must be claimed").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Claim {
    pub owner: u8,
    pub payer: u8,
    pub square: u8,
    pub amount: u32,
    /// The claim lapses when the player of this turn number rolls.
    pub lapses_at_turn: u32,
}

/// What is being auctioned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lot {
    /// A title deed, by property index.
    Property(u8),
    /// One house (or hotel) from the bank's last pieces, sold in a building shortage. The bid is
    /// paid on top of the normal building price.
    Building { hotel: bool, requester: u8, square: u8 },
}

/// A running auction. Bids are open: anyone still in may bid at any time; passing is final.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Auction {
    pub lot: Lot,
    pub high_bid: u32,
    pub high_bidder: u8,
    /// Bit mask of seats still bidding.
    pub bidders: u8,
    /// Seat from which "whose move it is" goes round (the player who declined, or the requester).
    pub first: u8,
    /// Continue the landing player's move when it ends (a declined purchase).
    pub after_landing: bool,
}

/// A house or hotel won in a shortage auction, to be placed by its winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    pub player: u8,
    pub hotel: bool,
}

/// A chance event the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pending {
    /// Dice for the turn player's move (or jail attempt).
    MoveDice,
    /// Dice for the rent of a utility reached by a card: ten times the roll.
    UtilityDice {
        property: u8,
    },
    /// Dice to decide who starts.
    OrderDice,
    Card(Deck),
    /// A random title deed for the seat being dealt to (speed and timed variants).
    Deed,
}

/// Where the game is in a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Dealing `rules.starting_deeds` random deeds to each seat: `seat` gets the next one.
    Dealing {
        seat: u8,
        dealt: u8,
    },
    /// Rolling for who starts: `contenders` roll in seat order; `best` holds the highest total so
    /// far and `leaders` who rolled it. Ties among the highest roll again.
    Ordering {
        contenders: u8,
        next: u8,
        best: u8,
        leaders: u8,
    },
    /// The turn player is to roll (or use a jail option first).
    AwaitRoll,
    /// The turn player landed on an unowned property: buy or decline.
    BuyDecision {
        property: u8,
    },
    /// The turn player has moved and may end the turn.
    AfterRoll,
    GameOver,
}

/// The complete state of one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub board: BoardId,
    pub rules: Rules,
    pub num_players: u8,
    pub players: [Player; MAX_PLAYERS],
    /// Owner seat of each title deed, or [`NOBODY`] for the bank. Private, as are `level` and
    /// `mortgaged`: read through [`Game::owner`] and the like, written through the setters,
    /// which take a new [`Game::deeds_version`] (what bots key their picture of the board on).
    owner: [u8; PROPERTIES],
    /// Buildings on each street: 0..=4 houses, or [`HOTEL`].
    level: [u8; PROPERTIES],
    /// Bit mask of mortgaged title deeds.
    mortgaged: u32,
    /// Mortgaged deeds just received in a trade or bankruptcy whose owner must lift the mortgage
    /// or pay the 10 % fee before play goes on.
    pub fee_due: u32,
    pub houses_left: u8,
    pub hotels_left: u8,
    pub decks: [DeckState; 2],
    pub jackpot: u32,
    /// Seat whose turn it is.
    pub turn_player: u8,
    /// Seat that started the game (a round ends when play comes back to it).
    pub starter: u8,
    /// Doubles rolled in a row this turn.
    pub doubles: u8,
    /// The last dice rolled (for utility rent).
    pub last_dice: (u8, u8),
    /// Completed rounds.
    pub round: u32,
    /// Turns started since the beginning.
    pub turn: u32,
    pub phase: Phase,
    pub pending: Option<Pending>,
    pub auction: Option<Auction>,
    /// Deeds taken by the bank from a bankrupt player, auctioned one after another.
    pub auction_queue: u32,
    /// The winner of a building-shortage auction, who must now place the piece.
    pub placing: Option<Placement>,
    pub debts: Vec<Debt>,
    pub claims: Vec<Claim>,
    pub offers: Vec<Offer>,
    pub bankruptcies: u8,
    pub winner: u8,
    /// Inputs applied so far.
    pub step: u32,
    #[serde(skip)]
    pub log: EventLog,
    /// Names the contents of `owner`, `level` and `mortgaged` (see [`crate::deeds`]); neither
    /// encoded nor compared.
    #[serde(skip)]
    deeds_version: DeedsVersion,
}

impl Game {
    pub fn edition(&self) -> &'static crate::edition::Edition {
        self.board.edition()
    }

    pub fn seats(&self) -> impl Iterator<Item = u8> {
        0..self.num_players
    }

    /// Seats still in the game.
    pub fn active(&self) -> impl Iterator<Item = u8> + '_ {
        self.seats().filter(|&p| !self.players[p as usize].bankrupt)
    }

    pub fn active_mask(&self) -> u8 {
        self.active().fold(0, |m, p| m | 1 << p)
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::GameOver
    }

    pub fn player(&self, seat: u8) -> &Player {
        &self.players[seat as usize]
    }

    pub fn player_mut(&mut self, seat: u8) -> &mut Player {
        &mut self.players[seat as usize]
    }

    /// A game of `num_players` before anything happened: no cash dealt, every deed with the
    /// bank, the bank's full stock of buildings (the start of [`Game::new`]).
    pub(crate) fn blank(num_players: u8, board: BoardId, rules: Rules) -> Game {
        Game {
            board,
            rules,
            num_players,
            players: [Player::default(); MAX_PLAYERS],
            owner: [NOBODY; PROPERTIES],
            level: [0; PROPERTIES],
            mortgaged: 0,
            fee_due: 0,
            houses_left: if rules.limited_buildings { rules.houses } else { 0 },
            hotels_left: if rules.limited_buildings { rules.hotels } else { 0 },
            decks: [DeckState::default(); 2],
            jackpot: 0,
            turn_player: 0,
            starter: 0,
            doubles: 0,
            last_dice: (0, 0),
            round: 0,
            turn: 0,
            phase: Phase::AwaitRoll,
            pending: None,
            auction: None,
            auction_queue: 0,
            placing: None,
            debts: Vec::new(),
            claims: Vec::new(),
            offers: Vec::new(),
            bankruptcies: 0,
            winner: NOBODY,
            step: 0,
            log: EventLog::default(),
            deeds_version: DeedsVersion::fresh(),
        }
    }

    /// Owner seat of title deed `property`, or [`NOBODY`] for the bank.
    #[inline]
    pub fn owner(&self, property: u8) -> u8 {
        self.owner[property as usize]
    }

    /// Buildings on street `property`: 0..=4 houses, or [`HOTEL`].
    #[inline]
    pub fn level(&self, property: u8) -> u8 {
        self.level[property as usize]
    }

    /// Bit mask of mortgaged title deeds.
    #[inline]
    pub fn mortgaged(&self) -> u32 {
        self.mortgaged
    }

    /// The owner seat of every title deed ([`NOBODY`]: the bank).
    #[inline]
    pub fn owners(&self) -> &[u8; PROPERTIES] {
        &self.owner
    }

    /// The buildings on every title deed (0..=4 houses, or [`HOTEL`]).
    #[inline]
    pub fn levels(&self) -> &[u8; PROPERTIES] {
        &self.level
    }

    /// Names the owners, buildings and mortgages of the deeds: two games (or two states of one)
    /// with the same version have the same ones (see [`crate::deeds`]). Unequal versions say
    /// nothing: the deeds may have come back to what they were.
    #[inline]
    pub fn deeds_version(&self) -> u64 {
        self.deeds_version.get()
    }

    /// Give title deed `property` to `seat` ([`NOBODY`]: the bank). Nothing else changes: the
    /// rules' transfers are in [`crate::bank`], [`crate::trade`] and [`crate::auction`].
    pub fn set_owner(&mut self, property: u8, seat: u8) {
        if self.owner[property as usize] != seat {
            self.owner[property as usize] = seat;
            self.deeds_version = DeedsVersion::fresh();
        }
    }

    /// Set the buildings on street `property` (the bank's stock is not touched).
    pub fn set_level(&mut self, property: u8, level: u8) {
        if self.level[property as usize] != level {
            self.level[property as usize] = level;
            self.deeds_version = DeedsVersion::fresh();
        }
    }

    /// Set the bit mask of mortgaged title deeds.
    pub fn set_mortgaged(&mut self, mask: u32) {
        if self.mortgaged != mask {
            self.mortgaged = mask;
            self.deeds_version = DeedsVersion::fresh();
        }
    }

    /// Set every deed's owner, buildings and mortgage at once (a decoded state).
    pub(crate) fn set_deeds(&mut self, owner: [u8; PROPERTIES], level: [u8; PROPERTIES], mortgaged: u32) {
        (self.owner, self.level, self.mortgaged) = (owner, level, mortgaged);
        self.deeds_version = DeedsVersion::fresh();
    }

    /// Bit mask of the deeds a seat owns.
    ///
    /// Bots ask this many times per decision, so the owners are compared eight at a time (see
    /// [`byte_mask`]), not one by one.
    pub fn holdings(&self, seat: u8) -> u32 {
        byte_mask(&self.owner, seat)
    }

    /// Bit mask of the deeds whose owner is not the one in `owners` (an earlier copy of
    /// [`Game::owners`]): what changed hands since, compared eight deeds at a time.
    pub fn owners_changed_since(&self, owners: &[u8; PROPERTIES]) -> u32 {
        differing_bytes(&self.owner, owners)
    }

    /// Bit mask of the deeds with a hotel.
    pub fn hotels(&self) -> u32 {
        byte_mask(&self.level, HOTEL)
    }

    /// Bit mask of the deeds with a house or a hotel.
    pub fn built(&self) -> u32 {
        !byte_mask(&self.level, 0) & ((1 << PROPERTIES) - 1)
    }

    /// How many of the deeds in `mask` `seat` owns (a few lookups: railways, utilities).
    fn owned_among(&self, seat: u8, mask: u32) -> usize {
        board::bits(mask).filter(|&p| self.owner(p) == seat).count()
    }

    pub fn is_mortgaged(&self, property: u8) -> bool {
        self.mortgaged() & (1 << property) != 0
    }

    /// The owner of every street of `group`, if one player owns them all.
    pub fn group_owner(&self, group: u8) -> Option<u8> {
        let mut members = board::group_members(group);
        let first = self.owner(members.next()?);
        (first != NOBODY && members.all(|p| self.owner(p) == first)).then_some(first)
    }

    /// Buildings anywhere in the group of this property (false for railways and utilities).
    pub fn group_has_buildings(&self, property: u8) -> bool {
        DEEDS[property as usize].group().is_some_and(|g| board::group_members(g).any(|p| self.level(p) > 0))
    }

    /// Height of a building level for even building: a hotel counts one above the last house.
    pub fn height(&self, level: u8) -> u8 {
        if level == HOTEL {
            self.rules.houses_per_hotel + 1
        } else {
            level
        }
    }

    /// The rent due for landing on `property`, given the dice just rolled.
    pub fn rent(&self, property: u8, dice_total: u32) -> u32 {
        let deed = &DEEDS[property as usize];
        let owner = self.owner(property);
        if owner == NOBODY || self.is_mortgaged(property) {
            return 0;
        }
        match deed.kind {
            Kind::Railway => board::RAILWAY_RENT[self.owned_among(owner, RAILWAY_MASK)],
            Kind::Utility => board::UTILITY_FACTOR[self.owned_among(owner, UTILITY_MASK)] * dice_total,
            Kind::Street(group) => {
                let level = self.level(property);
                if level > 0 {
                    deed.rents[level as usize]
                } else if self.group_owner(group).is_some() {
                    deed.rents[0] * 2
                } else {
                    deed.rents[0]
                }
            }
        }
    }

    /// Houses and hotels a seat has on the board.
    pub fn buildings_of(&self, seat: u8) -> (u32, u32) {
        let mut houses = 0;
        let mut hotels = 0;
        for p in 0..PROPERTIES as u8 {
            if self.owner(p) == seat {
                match self.level(p) {
                    HOTEL => hotels += 1,
                    n => houses += n as u32,
                }
            }
        }
        (houses, hotels)
    }

    /// Cost of the buildings on a street: every level bought, a hotel counting as the houses it
    /// replaced plus itself.
    pub fn building_cost(&self, property: u8) -> u32 {
        DEEDS[property as usize].house_cost * self.height(self.level(property)) as u32
    }

    /// Net worth: cash + printed price of unmortgaged deeds + mortgage value of mortgaged ones +
    /// buildings at cost (RULES.md, round limit), less the debts the seat still owes and plus
    /// those owed to it, never below 0. Debts are counted so that a game ending while some are
    /// open (a timed game, a speed game's last bankruptcy) names the truly richest.
    pub fn net_worth(&self, seat: u8) -> u64 {
        if seat >= self.num_players {
            return 0;
        }
        self.net_worths_all()[seat as usize]
    }

    /// What a deed adds to its owner's net worth without its buildings ([`Game::building_cost`],
    /// the rest): its printed price, its mortgage value (half the price) while mortgaged. A
    /// shift by the mortgage bit, without a branch.
    fn deed_value(&self, property: u8) -> u32 {
        // The shift is the mortgage value for every deed (the build fails otherwise).
        const _: () = {
            let mut p = 0;
            while p < PROPERTIES {
                assert!(DEEDS[p].mortgage_value() == DEEDS[p].price >> 1);
                p += 1;
            }
        };
        DEEDS[property as usize].price >> ((self.mortgaged() >> property) & 1)
    }

    /// [`Game::net_worth`] of every seat (0 for absent seats) in one pass over the deeds, then
    /// one over the built ones (the buildings of the others cost nothing).
    pub fn net_worths_all(&self) -> [u64; MAX_PLAYERS] {
        let mut worth = [0u64; MAX_PLAYERS];
        let owned = !byte_mask(&self.owner, NOBODY) & ((1 << PROPERTIES) - 1);
        for p in board::bits(owned) {
            worth[self.owner(p) as usize % MAX_PLAYERS] += self.deed_value(p) as u64;
        }
        for p in board::bits(owned & self.built()) {
            worth[self.owner(p) as usize % MAX_PLAYERS] += self.building_cost(p) as u64;
        }
        for (seat, w) in worth.iter_mut().enumerate().take(self.num_players as usize) {
            let player = &self.players[seat];
            *w = if player.bankrupt { 0 } else { *w + player.cash as u64 };
        }
        if !self.debts.is_empty() {
            self.count_debts(&mut worth);
        }
        worth
    }

    /// Take the open debts into net worths: owed, less; owed to a seat, more.
    fn count_debts(&self, worth: &mut [u64; MAX_PLAYERS]) {
        let mut owes = [0u64; MAX_PLAYERS];
        for d in &self.debts {
            owes[d.debtor as usize % MAX_PLAYERS] += d.amount as u64;
            if let Party::Player(c) = d.creditor {
                if !self.player(c).bankrupt {
                    worth[c as usize % MAX_PLAYERS] += d.amount as u64;
                }
            }
        }
        for (w, owed) in worth.iter_mut().zip(owes) {
            *w = w.saturating_sub(owed);
        }
    }

    /// What a seat could raise from the bank: cash, half the cost of every building, and the
    /// mortgage value of every unmortgaged deed.
    pub fn liquidation_value(&self, seat: u8) -> u64 {
        let mut value = self.player(seat).cash as u64;
        for p in board::bits(self.holdings(seat)) {
            value += (self.building_cost(p) / 2) as u64;
            if !self.is_mortgaged(p) {
                value += DEEDS[p as usize].mortgage_value() as u64;
            }
        }
        value
    }

    /// Total of the debts a seat still owes.
    pub fn owed_by(&self, seat: u8) -> u64 {
        self.debts.iter().filter(|d| d.debtor == seat).map(|d| d.amount as u64).sum()
    }

    /// The seat the game waits for, `None` at a chance node or when the game is over.
    ///
    /// Priority: a chance event, then an auction, then debts (oldest first), then mortgaged
    /// deeds awaiting the lift-or-keep choice, then the turn itself. Inlined: the drivers and
    /// bots ask it at nearly every input.
    #[inline]
    pub fn actor(&self) -> Option<u8> {
        if self.pending.is_some() || self.is_over() {
            return None;
        }
        if let Some(a) = &self.auction {
            return Some(self.next_bidder(a));
        }
        if let Some(placement) = &self.placing {
            return Some(placement.player);
        }
        if let Some(d) = self.debts.first() {
            return Some(d.debtor);
        }
        if self.fee_due != 0 {
            return Some(self.owner(self.fee_due.trailing_zeros() as u8));
        }
        match self.phase {
            Phase::Dealing { .. } | Phase::Ordering { .. } | Phase::GameOver => None,
            _ => Some(self.turn_player),
        }
    }

    /// In an auction, the first bidder still in (going round from `first`) other than the leader.
    pub fn next_bidder(&self, a: &Auction) -> u8 {
        (0..self.num_players)
            .map(|d| (a.first + d) % self.num_players)
            .find(|&p| a.bidders & (1 << p) != 0 && p != a.high_bidder)
            .unwrap_or(a.first)
    }

    /// Is the game waiting for a chance outcome?
    pub fn is_chance_node(&self) -> bool {
        self.pending.is_some()
    }

    /// The seat holding the given deck's jail card, if any.
    pub fn jail_card_holder(&self, deck: Deck) -> Option<u8> {
        self.seats().find(|&p| self.player(p).jail_cards & (1 << deck as u8) != 0)
    }

    /// Sum of all the money players hold plus the jackpot (for conservation checks).
    pub fn money_in_play(&self) -> u64 {
        self.seats().map(|p| self.player(p).cash as u64).sum::<u64>() + self.jackpot as u64
    }
}

/// Bit i set where `bytes[i] == value`, for the [`PROPERTIES`] per-deed bytes of the state.
///
/// The bytes are compared eight at a time in a `u64` (a byte-wise equality test, exact: no carry
/// crosses bytes), then the eight flags are gathered into one byte.
fn byte_mask(bytes: &[u8; PROPERTIES], value: u8) -> u32 {
    let mut padded = [!value; 32];
    padded[..PROPERTIES].copy_from_slice(bytes);
    let wanted = u64::from_le_bytes([value; 8]);
    let mut mask = 0u32;
    for (i, chunk) in padded.chunks_exact(8).enumerate() {
        let diff = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ wanted;
        mask |= gather_flags(!(nonzero_bytes(diff) | LOW7)) << (8 * i);
    }
    mask & ((1 << PROPERTIES) - 1)
}

/// Bit i set where `a[i] != b[i]`, compared as [`byte_mask`] does; equal arrays (most calls)
/// are told by one comparison.
fn differing_bytes(a: &[u8; PROPERTIES], b: &[u8; PROPERTIES]) -> u32 {
    if a == b {
        return 0;
    }
    let word = |bytes: &[u8; PROPERTIES], i: usize| {
        let mut w = [0u8; 8];
        let end = (8 * i + 8).min(PROPERTIES);
        w[..end - 8 * i].copy_from_slice(&bytes[8 * i..end]);
        u64::from_le_bytes(w)
    };
    (0..PROPERTIES.div_ceil(8))
        .fold(0, |mask, i| mask | gather_flags(nonzero_bytes(word(a, i) ^ word(b, i))) << (8 * i))
}

/// The low seven bits of each byte.
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// 0x80 in each byte of `x` that is not zero, 0 in the others (exact: no carry crosses bytes).
fn nonzero_bytes(x: u64) -> u64 {
    (((x & LOW7) + LOW7) | x) & !LOW7
}

/// The eight flags of `flags` (bit 8k + 7, the rest 0) gathered into one byte, flag k at bit k.
fn gather_flags(flags: u64) -> u32 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdings_and_changes_match_a_plain_scan() {
        let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut before = game.owner;
        for _ in 0..2000 {
            for p in 0..PROPERTIES as u8 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                game.set_owner(p, [0, 1, 2, 3, NOBODY, 0x80, 0x7f][(x % 7) as usize]);
            }
            let plain_changes =
                (0..PROPERTIES as u8).filter(|&p| game.owner(p) != before[p as usize]).fold(0u32, |m, p| m | 1 << p);
            assert_eq!(game.owners_changed_since(&before), plain_changes, "{:?} -> {:?}", before, game.owners());
            before = game.owner;
            for seat in [0, 1, 2, 3, NOBODY, 0x80, 0x7f, 4] {
                let plain = (0..PROPERTIES as u8).filter(|&p| game.owner(p) == seat).fold(0u32, |m, p| m | 1 << p);
                assert_eq!(game.holdings(seat), plain, "seat {seat}, owners {:?}", game.owners());
            }
        }
    }

    /// The net worths of RULES.md written plainly, deed by deed (no debts open), against
    /// [`Game::net_worths_all`] on random owners, levels and mortgages.
    #[test]
    fn net_worths_are_the_plain_sum_of_cash_deeds_and_buildings() {
        let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |below: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % below
        };
        for _ in 0..2000 {
            let mut mortgaged = 0;
            for (p, deed) in (0..).zip(DEEDS.iter()) {
                game.set_owner(p, [0, 1, 2, 3, NOBODY][next(5) as usize]);
                game.set_level(p, if deed.group().is_some() { [0, 0, 1, 3, 4, HOTEL][next(6) as usize] } else { 0 });
                if next(3) == 0 {
                    mortgaged |= 1 << p;
                }
            }
            game.set_mortgaged(mortgaged);
            game.players[next(4) as usize].bankrupt = next(4) == 0;
            let worths = game.net_worths_all();
            for seat in 0..4u8 {
                let player = game.player(seat);
                let deeds: u64 = (0..PROPERTIES as u8)
                    .filter(|&p| game.owner(p) == seat)
                    .map(|p| {
                        let deed = &DEEDS[p as usize];
                        let value = if game.is_mortgaged(p) { deed.mortgage_value() } else { deed.price };
                        (value + game.building_cost(p)) as u64
                    })
                    .sum();
                let plain = if player.bankrupt { 0 } else { player.cash as u64 + deeds };
                assert_eq!(worths[seat as usize], plain, "seat {seat}");
            }
            for p in game.players.iter_mut() {
                p.bankrupt = false;
            }
        }
    }

    #[test]
    fn the_state_stays_small() {
        // Clone cost follows the inline size; the rare lists (debts, offers, claims) are empty
        // most of the time and then cost nothing to clone.
        let size = std::mem::size_of::<Game>();
        assert!(size <= 512, "Game is {size} bytes");
    }
}
