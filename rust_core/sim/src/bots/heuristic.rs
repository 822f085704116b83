//! The heuristic bot: a solid player built from the usual advice of the game.
//!
//! It buys sensibly, completes colour groups by trading at a fair price, builds toward three
//! houses, bids up to its valuation in auctions, stays in jail late in the game and raises money
//! with the least loss. It decides from the visible state only: it never samples or inspects
//! anything that predicts chance (its own resolver is unused: every choice is deterministic).
//!
//! Every move goes through [`Game::check`] before it is returned, so a rule the bot gets wrong
//! makes it fall back to a plainer move instead of playing an illegal one.
//!
//! Reading order: [`HeuristicBot::choose`] dispatches on who the game waits for and why, then
//! each situation has its own section below (auctions, debts, received mortgages, trades, the
//! turn itself), and the valuation helpers come last.

use crate::policy::Policy;
use lanopoly_engine::board::{self, Kind, COLOUR_GROUPS, DEEDS, GROUP_MASKS, PROPERTIES, RAILWAY_MASK, UTILITY_MASK};
use lanopoly_engine::state::Lot;
use lanopoly_engine::{Action, Bundle, Game, Move, Phase, Resolver, HOTEL, NOBODY};
use std::sync::OnceLock;

/// What to do when the turn starts in jail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JailStrategy {
    /// Use a card or pay the fine at once, to keep moving and buying.
    LeaveAtOnce,
    /// Roll for a double every time: jail is a safe place while rent keeps coming in.
    StayLate,
    /// Leave at once while many deeds are still for sale; stay and roll once the board is
    /// mostly owned or dangerous.
    Auto,
}

/// The tunable heuristic player. Every field is public: build a variant with
/// `HeuristicBot { max_houses: 4, ..HeuristicBot::default() }`.
#[derive(Clone, Debug)]
pub struct HeuristicBot {
    /// Cash kept back before buying or building on a harmless board.
    pub cash_reserve: u32,
    /// The reserve grows by this percentage of the highest rent an opponent can charge now.
    pub danger_percent: u32,
    /// The reserve never grows beyond this.
    pub max_reserve: u32,
    pub jail: JailStrategy,
    /// `Auto` jail: the game counts as late once fewer deeds than this are left with the bank.
    pub late_unowned: u32,
    /// `Auto` jail: the game also counts as late once an opponent can charge this much rent.
    pub late_danger: u32,
    /// Houses to reach on every street of a group before going beyond (three is where rents jump).
    pub max_houses: u8,
    /// Cash above the reserve needed to build beyond `max_houses` (up to hotels) and to lift
    /// mortgages that do not stop building.
    pub rich_cash: u32,
    /// Trade willingness: the first offer for a missing street, in percent of its printed price.
    /// 0 never proposes trades.
    pub trade_willingness: u32,
    /// Each repeated offer for the same streets adds this many percent.
    pub trade_step: u32,
    /// Offers never go beyond this percentage of the printed price.
    pub trade_max_percent: u32,
    /// Turns to wait before offering again for the same streets to the same player.
    pub trade_retry_turns: u32,
    /// A complete colour group is worth this percentage of its printed prices on top of them
    /// (used to value trades and auctions).
    pub monopoly_percent: u32,
    /// Building order: groups earlier in this list get their houses first (orange and red are the
    /// best returns; brown and dark blue the weakest or dearest).
    pub group_order: [u8; COLOUR_GROUPS],
    /// In a building-shortage auction, pay up to this percentage of the rent one more house adds.
    pub shortage_percent: u32,
    /// Auction raises: at least this percentage of the lot's value at a time (never above the
    /// bot's limit). Raising by 1 each time made auctions hundreds of moves long.
    pub bid_step_percent: u32,
    /// What the bot remembers during a game (opaque; a new game resets it).
    pub memory: Memory,
}

/// Defaults tuned by self-play (one variant against three default bots, 2000 games): a small
/// reserve that grows slowly with danger and building past three houses once 300 spare builds
/// wins clearly more than a cautious bot (reserve 150 + 50 % of danger, rich at 700), which won
/// only 16 % against three of these.
impl Default for HeuristicBot {
    fn default() -> Self {
        HeuristicBot {
            cash_reserve: 100,
            danger_percent: 15,
            max_reserve: 500,
            jail: JailStrategy::Auto,
            late_unowned: 8,
            late_danger: 400,
            max_houses: 3,
            rich_cash: 300,
            trade_willingness: 150,
            trade_step: 25,
            trade_max_percent: 300,
            trade_retry_turns: 8,
            monopoly_percent: 100,
            group_order: [3, 4, 1, 5, 2, 6, 7, 0],
            shortage_percent: 50,
            bid_step_percent: 10,
            memory: Memory::default(),
        }
    }
}

/// What the bot remembers between calls: its trade proposals, so that it does not repeat one,
/// and the group it sold down this turn.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Last `game.turn` seen, to notice a new game.
    last_turn: u32,
    /// Turn in which the bot last proposed a trade (at most one proposal per turn).
    proposed_in_turn: Option<u32>,
    /// Earlier proposals: to whom, for which deeds, when, and how often.
    proposals: Vec<Proposal>,
    /// A group sold down this turn to free houses for a better one: (turn, group). It is not
    /// rebuilt in the same turn, so selling and building cannot go round in circles.
    freed_group: Option<(u32, u8)>,
    /// The decision being made: (step, seat).
    deciding: Option<(u32, u8)>,
    /// The danger (highest rent an opponent can charge) at that decision, computed when the
    /// decision first needs it (about half of them never do): it was the bot's largest
    /// cost. A `OnceLock` because the deciding helpers see the bot through `&self`.
    danger_now: OnceLock<u32>,
    /// The last danger computed and the board it was computed on: rolls, bids and ends of turn
    /// leave the board as it was, so most decisions reuse it instead of 28 rent lookups.
    danger_seen: Option<(DangerKey, u32)>,
}

/// Everything [`danger`] reads: whose danger, who is still in, who owns what, the buildings
/// and the mortgages. Equal keys give equal dangers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DangerKey {
    seat: u8,
    active: u8,
    mortgaged: u32,
    owner: [u8; PROPERTIES],
    level: [u8; PROPERTIES],
}

impl DangerKey {
    fn of(game: &Game, seat: u8) -> DangerKey {
        DangerKey { seat, active: game.active_mask(), mortgaged: game.mortgaged, owner: game.owner, level: game.level }
    }
}

#[derive(Clone, Copy, Debug)]
struct Proposal {
    to: u8,
    want: u32,
    turn: u32,
    tries: u32,
}

impl Policy for HeuristicBot {
    fn name(&self) -> &str {
        "heuristic"
    }

    /// The game waits for `me`: find out why, and answer that situation.
    fn choose(&mut self, game: &Game, me: u8, _rng: &mut Resolver) -> Action {
        self.remember_game(game);
        self.memory.deciding = Some((game.step, me));
        self.memory.danger_now = OnceLock::new();
        let action = if game.auction.is_some() {
            self.bid_or_pass(game, me)
        } else if game.placing.is_some() {
            best_placement(game, me)
        } else if game.debts.iter().any(|d| d.debtor == me) {
            self.settle_debt(game, me)
        } else if game.fee_due != 0 {
            self.lift_or_keep(game, me)
        } else {
            self.play_turn(game, me)
        };
        if let Some(&value) = self.memory.danger_now.get() {
            self.memory.danger_seen = Some((DangerKey::of(game, me), value));
        }
        self.memory.deciding = None; // the danger is valid for this decision only
        match action.filter(|&a| legal(game, me, a)) {
            Some(a) => a,
            None => fallback(game, me),
        }
    }
}

/// Is this move allowed now?
fn legal(game: &Game, me: u8, action: Action) -> bool {
    game.is_legal(Move { player: me, action })
}

/// `Some(action)` if it is legal now.
fn legal_then(game: &Game, me: u8, action: Action) -> Option<Action> {
    legal(game, me, action).then_some(action)
}

/// A move that keeps the game going, if the chosen one was refused (a bot bug): prefer moves
/// that end an overlay or the turn, never one that ends a timed game.
fn fallback(game: &Game, me: u8) -> Action {
    let actions = game.legal_actions(me);
    let prefer = [Action::Pass, Action::PayDebt, Action::DeclareBankruptcy, Action::Roll, Action::EndTurn];
    prefer
        .into_iter()
        .find(|a| actions.contains(a))
        .or_else(|| actions.iter().copied().find(|a| *a != Action::EndGame))
        .expect("the game waits for this seat, so it has a legal move")
}

// ---------------------------------------------------------------------------------------------
// Auctions and won buildings

impl HeuristicBot {
    /// Bid the minimum while it is below what the lot is worth to the bot; otherwise pass.
    fn bid_or_pass(&self, game: &Game, me: u8) -> Option<Action> {
        let auction = game.auction.as_ref()?;
        let Some((min, max)) = game.bid_range(me) else { return Some(Action::Pass) };
        let (limit, value) = match auction.lot {
            Lot::Property(property) => (self.deed_bid_limit(game, me, property), DEEDS[property as usize].price),
            Lot::Building { hotel, .. } => (self.building_bid_limit(game, me, hotel), 0),
        };
        let cap = limit.min(max);
        if min > cap {
            return Some(Action::Pass);
        }
        let raise = (value * self.bid_step_percent / 100).max(1);
        Some(Action::Bid((auction.high_bid + raise).clamp(min, cap)))
    }

    /// Most the bot pays for a deed: its printed price, more if it completes one of the bot's
    /// groups or blocks an opponent's, and never so much that the bot drops below its reserve
    /// (a completing or blocking deed may eat into half the reserve).
    fn deed_bid_limit(&self, game: &Game, me: u8, property: u8) -> u32 {
        let price = DEEDS[property as usize].price;
        let reserve = self.reserve(game, me);
        let cash = game.player(me).cash;
        if completes_group(game, me, property) {
            let value = price + self.group_bonus(property);
            value.min(cash.saturating_sub(reserve / 2))
        } else if blocks_group(game, me, property) {
            (price + price / 2).min(cash.saturating_sub(reserve / 2))
        } else {
            price.min(cash.saturating_sub(reserve))
        }
    }

    /// Most the bot pays on top of the building price for a house or hotel in a shortage: a
    /// share of the rent it adds on the bot's best street for it, within the reserve.
    fn building_bid_limit(&self, game: &Game, me: u8, hotel: bool) -> u32 {
        let gain = buildable_streets(game, me)
            .filter(|&p| (game.level[p as usize] == game.rules.houses_per_hotel) == hotel)
            .map(|p| rent_gain(game, p))
            .max()
            .unwrap_or(0);
        let spare = game.player(me).cash.saturating_sub(self.reserve(game, me));
        (gain * self.shortage_percent / 100).min(spare)
    }
}

/// Place a building won at auction where it adds the most rent.
fn best_placement(game: &Game, me: u8) -> Option<Action> {
    game.legal_actions(me)
        .into_iter()
        .filter_map(|a| match a {
            Action::Build(square) => Some((rent_gain(game, board::property_at(square)?), a)),
            _ => None,
        })
        .max_by_key(|&(gain, _)| gain)
        .map(|(_, a)| a)
}

// ---------------------------------------------------------------------------------------------
// Debts and received mortgages

impl HeuristicBot {
    /// Pay the oldest debt as soon as the cash is there; otherwise raise money with the least
    /// loss; give up only when bankruptcy is the legal option left.
    fn settle_debt(&self, game: &Game, me: u8) -> Option<Action> {
        let oldest = game.debts.iter().find(|d| d.debtor == me)?;
        if game.player(me).cash >= oldest.amount {
            return Some(Action::PayDebt);
        }
        if legal(game, me, Action::DeclareBankruptcy) {
            return Some(Action::DeclareBankruptcy);
        }
        raise_money(game, me)
    }

    /// Mortgaged deeds just received: lift the mortgage when cash is plentiful, else keep it
    /// mortgaged (pay the 10 % fee) and lift it later.
    fn lift_or_keep(&self, game: &Game, me: u8) -> Option<Action> {
        let property = board::bits(game.fee_due).find(|&p| game.owner[p as usize] == me)?;
        let deed = &DEEDS[property as usize];
        let spare = game.player(me).cash.saturating_sub(self.reserve(game, me));
        if spare >= deed.unmortgage_cost() {
            Some(Action::Unmortgage(deed.square))
        } else {
            Some(Action::KeepMortgaged(deed.square))
        }
    }
}

/// One step toward paying a debt, cheapest loss first: mortgage deeds outside complete groups
/// (they earn little), then sell houses where a level loses the least rent, then mortgage the
/// streets of complete groups. Candidates go in property order, as `legal_actions` lists them
/// (the first of equal losses wins), but only mortgages and sales are checked.
fn raise_money(game: &Game, me: u8) -> Option<Action> {
    let held = game.holdings(me);
    let mortgage = |in_group: bool| {
        board::bits(held & !game.mortgaged)
            .filter(|&p| in_complete_group(game, p) == in_group)
            .map(|p| (p, Action::Mortgage(DEEDS[p as usize].square)))
            .filter(|&(_, a)| legal(game, me, a))
            .min_by_key(|&(p, _)| (income(game, p), DEEDS[p as usize].price))
            .map(|(_, a)| a)
    };
    let sell = || {
        board::bits(held)
            .filter(|&p| game.level[p as usize] > 0)
            .map(|p| (rent_loss(game, p), Action::Sell(DEEDS[p as usize].square)))
            .filter(|&(_, a)| legal(game, me, a))
            .min_by_key(|&(loss, _)| loss)
            .map(|(_, a)| a)
    };
    mortgage(false).or_else(sell).or_else(|| sell_down_hotels(game, me)).or_else(|| mortgage(true))
}

/// Hotels that cannot come down one level (the bank lacks houses): sell the group down to the
/// highest levels the bank's stock allows.
fn sell_down_hotels(game: &Game, me: u8) -> Option<Action> {
    for group in 0..COLOUR_GROUPS as u8 {
        if game.group_owner(group) != Some(me) || !board::group_members(group).any(|p| game.level[p as usize] > 0) {
            continue;
        }
        let members: Vec<u8> = board::group_members(group).collect();
        let current: Vec<u8> = members.iter().map(|&p| game.level[p as usize]).collect();
        let mut best: Option<(u32, Action)> = None;
        for_each_levels(members.len(), |levels| {
            let height: u32 = levels.iter().map(|&l| game.height(l) as u32).sum();
            let lower = levels.iter().zip(&current).all(|(&l, &c)| game.height(l) <= game.height(c));
            let action = Action::SellDown { group, levels };
            if lower && !matches!(best, Some((h, _)) if h >= height) && legal(game, me, action) {
                best = Some((height, action));
            }
        });
        if let Some((_, action)) = best {
            return Some(action);
        }
    }
    None
}

/// Call `f` with every combination of building levels (0..=4 houses or a hotel) for a group of
/// `streets` streets, unused slots 0.
fn for_each_levels(streets: usize, mut f: impl FnMut([u8; 3])) {
    let options = [0, 1, 2, 3, 4, HOTEL];
    let third = if streets == 3 { &options[..] } else { &options[..1] };
    for &a in &options {
        for &b in &options {
            for &c in third {
                f([a, b, c]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Trades

impl HeuristicBot {
    /// Forget a previous game when a new one starts with the same bot.
    fn remember_game(&mut self, game: &Game) {
        if game.turn < self.memory.last_turn {
            self.memory = Memory::default();
        }
        self.memory.last_turn = game.turn;
    }

    /// Answer an offer made to the bot: accept when it gains at least what the other side gains
    /// (so a complete group is handed over only when paid a lot), else reject.
    fn answer_offer(&self, game: &Game, me: u8) -> Option<Action> {
        let offer = game.offers.iter().find(|o| o.to == me)?;
        let from = offer.from;
        if !legal(game, me, Action::AcceptTrade { from }) {
            return Some(Action::RejectTrade { from });
        }
        let (mine, theirs) = self.trade_gains(game, me, from, &offer.get, &offer.give);
        let fair = mine >= 0 && mine >= theirs;
        Some(if fair { Action::AcceptTrade { from } } else { Action::RejectTrade { from } })
    }

    /// Withdraw the bot's own offer once its target has had a turn to answer, or when it no
    /// longer holds.
    fn cancel_stale_offer(&self, game: &Game, me: u8) -> Option<Action> {
        let offer = game.offers.iter().find(|o| o.from == me)?;
        let still_holds =
            legal(game, offer.from, Action::ProposeTrade { to: offer.to, give: offer.give, get: offer.get });
        let fresh = self.memory.proposed_in_turn == Some(game.turn);
        (!fresh || !still_holds).then_some(Action::CancelTrade)
    }

    /// At most one proposal per turn: buy the missing street(s) of a group the bot nearly owns
    /// from the one opponent holding them, for cash; after cash offers failed, offer a swap that
    /// completes a group for each side, balanced with cash.
    fn propose_trade(&mut self, game: &Game, me: u8) -> Option<Action> {
        if self.trade_willingness == 0 || self.memory.proposed_in_turn == Some(game.turn) {
            return None;
        }
        if game.offers.iter().any(|o| o.from == me) {
            return None;
        }
        let (to, want, give, tries) = self.best_trade(game, me)?;
        let action = Action::ProposeTrade { to, give, get: Bundle { properties: want, ..Bundle::default() } };
        if !legal(game, me, action) {
            return None;
        }
        self.memory.proposed_in_turn = Some(game.turn);
        self.memory.proposals.retain(|p| !(p.to == to && p.want == want));
        self.memory.proposals.push(Proposal { to, want, turn: game.turn, tries: tries + 1 });
        Some(action)
    }

    /// The most valuable proposal worth making now: (to, deeds wanted, what the bot gives, earlier
    /// tries for the same deeds).
    fn best_trade(&self, game: &Game, me: u8) -> Option<(u8, u32, Bundle, u32)> {
        let mut best: Option<(i64, (u8, u32, Bundle, u32))> = None;
        let held = game.holdings(me);
        for group in 0..COLOUR_GROUPS as u8 {
            let Some((holder, want)) = missing_from_one_opponent(game, me, held, group) else { continue };
            let earlier = self.memory.proposals.iter().find(|p| p.to == holder && p.want == want);
            if earlier.is_some_and(|p| game.turn < p.turn + self.trade_retry_turns) {
                continue;
            }
            let tries = earlier.map_or(0, |p| p.tries);
            let Some(give) = self.trade_payment(game, me, holder, want, tries) else { continue };
            let (gain, _) =
                self.trade_gains(game, me, holder, &give, &Bundle { properties: want, ..Bundle::default() });
            if gain > 0 && !matches!(best, Some((g, _)) if g >= gain) {
                best = Some((gain, (holder, want, give, tries)));
            }
        }
        best.map(|(_, t)| t)
    }

    /// What to give for `want`: cash at the willingness percentage (raised with each try) that
    /// the bot can spare; after two cash tries, a swap if the holder nearly owns a group whose
    /// missing streets the bot holds.
    fn trade_payment(&self, game: &Game, me: u8, holder: u8, want: u32, tries: u32) -> Option<Bundle> {
        let printed: u32 = board::bits(want).map(|p| DEEDS[p as usize].price).sum();
        let percent = (self.trade_willingness + tries * self.trade_step).min(self.trade_max_percent);
        let spare = game.player(me).cash.saturating_sub(self.cash_reserve);
        let cash = (printed * percent / 100).min(spare);
        if tries >= 2 {
            if let Some(swap) = self.swap_payment(game, me, holder, want) {
                return Some(swap);
            }
        }
        (cash >= printed).then_some(Bundle { cash, ..Bundle::default() })
    }

    /// A swap: the bot's streets that complete a group for `holder`, plus the cash that makes
    /// the two gains about equal (the holder accepts what gains it at least as much as the bot).
    fn swap_payment(&self, game: &Game, me: u8, holder: u8, want: u32) -> Option<Bundle> {
        let (held, theirs) = (game.holdings(me), game.holdings(holder));
        let mine = (0..COLOUR_GROUPS as u8).find_map(|g| {
            let (who, missing) = missing_from_one_opponent(game, holder, theirs, g)?;
            (who == me && !nearly_own(held, g)).then_some(missing)
        })?;
        let get = Bundle { properties: want, ..Bundle::default() };
        let give = Bundle { properties: mine, ..Bundle::default() };
        let (gain, theirs) = self.trade_gains(game, me, holder, &give, &get);
        let cash = u32::try_from((gain - theirs) / 2 + 1).unwrap_or(0);
        (cash <= game.player(me).cash.saturating_sub(self.cash_reserve)).then_some(Bundle { cash, ..give })
    }

    /// Gains of a trade in which the bot gives `give` to `other` and receives `get`: (the bot's
    /// gain, the other side's gain), each the change in holdings value plus the cash balance.
    fn trade_gains(&self, game: &Game, me: u8, other: u8, give: &Bundle, get: &Bundle) -> (i64, i64) {
        // Holdings after the trade: what is given changes hands, and what is received too (a
        // deed in both bundles ends with the bot).
        let (mine, theirs) = (game.holdings(me), game.holdings(other));
        let mine_after = (mine & !give.properties) | get.properties;
        let theirs_after = (theirs | give.properties) & !get.properties;
        let change = |seat: u8| match seat == me {
            true => self.holdings_change(game, mine, mine_after),
            false => self.holdings_change(game, theirs, theirs_after),
        };
        let fees = |bundle: &Bundle| -> i64 {
            board::bits(bundle.properties & game.mortgaged).map(|p| DEEDS[p as usize].mortgage_interest() as i64).sum()
        };
        let cards = |bundle: &Bundle| JAIL_CARD_VALUE * bundle.jail_cards.count_ones() as i64;
        let cash = get.cash as i64 - give.cash as i64 + cards(get) - cards(give);
        (change(me) + cash - fees(get), change(other) - cash - fees(give))
    }

    /// How the value of a holding changes from the deeds in `before` to those in `after`. A
    /// holding is worth its printed prices (mortgaged deeds at what they are worth once lifted)
    /// plus a bonus for each complete group and for railways held together; only the deeds that
    /// change hands are read.
    fn holdings_change(&self, game: &Game, before: u32, after: u32) -> i64 {
        deeds_value(game, after & !before) - deeds_value(game, before & !after) + self.set_bonus(after)
            - self.set_bonus(before)
    }

    /// The bonus of a holding for its complete groups and its railways held together.
    fn set_bonus(&self, held: u32) -> i64 {
        let mut value = 0i64;
        for &mask in &GROUP_MASKS {
            if held & mask == mask {
                value += self.group_bonus(mask.trailing_zeros() as u8) as i64;
            }
        }
        value + RAILWAY_SET_BONUS[(held & RAILWAY_MASK).count_ones() as usize]
    }

    /// Bonus for owning the whole group of `property`: a share of the group's printed prices.
    fn group_bonus(&self, property: u8) -> u32 {
        let Some(group) = DEEDS[property as usize].group() else { return 0 };
        let printed: u32 = board::group_members(group).map(|p| DEEDS[p as usize].price).sum();
        printed * self.monopoly_percent / 100
    }
}

/// Printed prices of the deeds in `deeds`, a mortgaged deed at what it is worth once lifted.
fn deeds_value(game: &Game, deeds: u32) -> i64 {
    board::bits(deeds)
        .map(|p| {
            let deed = &DEEDS[p as usize];
            let mortgaged = game.mortgaged & (1 << p) != 0;
            (if mortgaged { deed.price - deed.unmortgage_cost() } else { deed.price }) as i64
        })
        .sum()
}

/// What a "get out of jail" card is worth in a trade.
const JAIL_CARD_VALUE: i64 = 30;
/// Extra value of holding 0..=4 railways together (their rent doubles with each one).
const RAILWAY_SET_BONUS: [i64; 5] = [0, 0, 50, 150, 300];

/// If `seat` (holding the deeds in `held`) owns some of `group` and all the rest belongs to one
/// active opponent (at most two streets), that opponent and the mask of the missing streets.
fn missing_from_one_opponent(game: &Game, seat: u8, held: u32, group: u8) -> Option<(u8, u32)> {
    let mask = GROUP_MASKS[group as usize];
    let missing = mask & !held;
    if missing == 0 || missing == mask || missing.count_ones() > 2 {
        return None;
    }
    let holder = game.owner[missing.trailing_zeros() as usize];
    let one_holder = board::bits(missing).all(|p| game.owner[p as usize] == holder);
    (holder != NOBODY && holder != seat && one_holder && !game.player(holder).bankrupt).then_some((holder, missing))
}

/// Does a player holding the deeds in `held` own all but one street of `group`?
fn nearly_own(held: u32, group: u8) -> bool {
    (GROUP_MASKS[group as usize] & !held).count_ones() == 1
}

// ---------------------------------------------------------------------------------------------
// The bot's own turn

impl HeuristicBot {
    /// The game waits for the bot outside any overlay: it is the bot's turn. First the
    /// housekeeping (offers, rent claims, stale offers, mortgages, trades, building), then the
    /// move itself.
    fn play_turn(&mut self, game: &Game, me: u8) -> Option<Action> {
        if let Some(a) = self.answer_offer(game, me) {
            return Some(a);
        }
        if let Some(a) = claim_rent(game, me) {
            return Some(a);
        }
        if let Some(a) = self.cancel_stale_offer(game, me) {
            return Some(a);
        }
        if let Some(a) = self.lift_mortgage(game, me) {
            return Some(a);
        }
        if let Some(a) = self.propose_trade(game, me) {
            return Some(a);
        }
        if let Some(a) = self.build(game, me) {
            return Some(a);
        }
        if let Some(a) = self.free_houses(game, me) {
            return Some(a);
        }
        match game.phase {
            Phase::AwaitRoll => Some(self.before_roll(game, me)),
            Phase::BuyDecision { property } => self.buy_or_decline(game, me, property),
            _ => Some(Action::EndTurn),
        }
    }

    /// In jail before rolling: leave at once (card, then fine) or roll for a double, by strategy.
    fn before_roll(&self, game: &Game, me: u8) -> Action {
        if !game.player(me).in_jail || !self.leave_jail_now(game, me) {
            return Action::Roll;
        }
        legal_then(game, me, Action::UseJailCard)
            .or_else(|| legal_then(game, me, Action::PayJailFine))
            .unwrap_or(Action::Roll)
    }

    fn leave_jail_now(&self, game: &Game, me: u8) -> bool {
        match self.jail {
            JailStrategy::LeaveAtOnce => true,
            JailStrategy::StayLate => false,
            JailStrategy::Auto => {
                let unowned = game.owner.iter().filter(|&&o| o == NOBODY).count() as u32;
                unowned >= self.late_unowned && self.danger(game, me) < self.late_danger
            }
        }
    }

    /// Buy when the cash left stays above the reserve; always buy (if affordable) a deed that
    /// completes or blocks a group, mortgaging loose deeds to afford it if need be.
    fn buy_or_decline(&self, game: &Game, me: u8, property: u8) -> Option<Action> {
        let price = DEEDS[property as usize].price;
        let cash = game.player(me).cash;
        let key = completes_group(game, me, property) || blocks_group(game, me, property);
        if cash >= price && (key || cash - price >= self.reserve(game, me)) {
            return Some(Action::Buy);
        }
        if key && cash < price && cash + loose_mortgage_value(game, me) >= price {
            if let Some(a) = mortgage_loose_deed(game, me) {
                return Some(a);
            }
        }
        Some(Action::Decline)
    }

    /// Lift mortgages in complete groups (they stop building) when the reserve allows; lift the
    /// others only when rich.
    fn lift_mortgage(&self, game: &Game, me: u8) -> Option<Action> {
        let mortgaged = game.holdings(me) & game.mortgaged;
        if mortgaged == 0 {
            return None;
        }
        let spare = game.player(me).cash.saturating_sub(self.reserve(game, me));
        board::bits(mortgaged)
            .filter(|&p| {
                let cost = DEEDS[p as usize].unmortgage_cost();
                let margin = if in_complete_group(game, p) { 0 } else { self.rich_cash };
                spare >= cost + margin
            })
            .max_by_key(|&p| (in_complete_group(game, p), DEEDS[p as usize].price))
            .map(|p| Action::Unmortgage(DEEDS[p as usize].square))
    }

    /// Build evenly on complete groups: first `max_houses` on every street of the best group,
    /// then the next group; beyond that (up to hotels) only when rich. Always keep the reserve.
    fn build(&self, game: &Game, me: u8) -> Option<Action> {
        let held = game.holdings(me);
        if board::whole_groups(held) == 0 {
            return None; // (most turns: no reserve to work out)
        }
        let cash = game.player(me).cash;
        let reserve = self.reserve(game, me);
        let affordable = |p: u8| cash >= DEEDS[p as usize].house_cost + reserve;
        let rich = |p: u8| cash >= DEEDS[p as usize].house_cost + reserve + self.rich_cash;
        let freed = self.memory.freed_group.filter(|&(turn, _)| turn == game.turn).map(|(_, g)| g);
        let owns_group = |g: u8| held & GROUP_MASKS[g as usize] == GROUP_MASKS[g as usize];
        let lowest_streets = self
            .group_order
            .iter()
            .filter(|&&g| owns_group(g) && Some(g) != freed)
            .filter_map(|&g| board::group_members(g).min_by_key(|&p| game.height(game.level[p as usize])));
        let below = |p: u8, level: u8| game.height(game.level[p as usize]) < game.height(level);
        let to_target = lowest_streets.clone().filter(|&p| affordable(p) && below(p, self.max_houses));
        let beyond = lowest_streets.filter(|&p| rich(p) && below(p, HOTEL));
        to_target.chain(beyond).map(|p| Action::Build(DEEDS[p as usize].square)).find(|&a| legal(game, me, a))
    }

    /// Break a housing shortage when rich: if the bank has no house left for the bot's best group
    /// that still wants one, sell a level of its weakest built group (one ranked lower) so that the
    /// best group can grow toward hotels, which give houses back to the bank.
    fn free_houses(&mut self, game: &Game, me: u8) -> Option<Action> {
        if !game.rules.limited_buildings || game.houses_left > 0 {
            return None;
        }
        let cash = game.player(me).cash;
        let rank = |g: u8| self.group_order.iter().position(|&x| x == g).unwrap_or(COLOUR_GROUPS);
        let mine: Vec<u8> = self.group_order.iter().copied().filter(|&g| game.group_owner(g) == Some(me)).collect();
        let wants_house = |g: u8| {
            let lowest = board::group_members(g).map(|p| game.level[p as usize]).min().unwrap_or(HOTEL);
            let cost = DEEDS[GROUP_MASKS[g as usize].trailing_zeros() as usize].house_cost;
            lowest < game.rules.houses_per_hotel && cash >= cost + self.reserve(game, me) + self.rich_cash
        };
        let strong = mine.iter().copied().find(|&g| wants_house(g))?;
        let weak = mine.iter().copied().rev().find(|&g| {
            rank(g) > rank(strong) && board::group_members(g).any(|p| matches!(game.level[p as usize], 1..=4))
        })?;
        let action =
            board::group_members(weak).map(|p| Action::Sell(DEEDS[p as usize].square)).find(|&a| legal(game, me, a))?;
        self.memory.freed_group = Some((game.turn, weak));
        Some(action)
    }

    /// The reserve: base cash plus a share of the highest rent an opponent can charge.
    fn reserve(&self, game: &Game, me: u8) -> u32 {
        (self.cash_reserve + self.danger(game, me) * self.danger_percent / 100).min(self.max_reserve)
    }

    /// [`danger`], computed once per decision, or taken from the last board it was computed on.
    fn danger(&self, game: &Game, me: u8) -> u32 {
        let fresh = || match self.memory.danger_seen {
            Some((seen, value)) if seen == DangerKey::of(game, me) => value,
            _ => danger(game, me),
        };
        match self.memory.deciding {
            Some((step, seat)) if step == game.step && seat == me => *self.memory.danger_now.get_or_init(fresh),
            _ => fresh(),
        }
    }
}

/// Claim any rent owed to the bot (option "rent must be claimed").
fn claim_rent(game: &Game, me: u8) -> Option<Action> {
    game.claims.iter().find(|c| c.owner == me).map(|c| Action::ClaimRent(c.square))
}

/// Mortgage the least useful deed outside complete groups.
fn mortgage_loose_deed(game: &Game, me: u8) -> Option<Action> {
    board::bits(game.holdings(me) & !game.mortgaged)
        .filter(|&p| !in_complete_group(game, p))
        .min_by_key(|&p| income(game, p))
        .map(|p| Action::Mortgage(DEEDS[p as usize].square))
        .filter(|&a| legal(game, me, a))
}

/// Cash the bot could raise by mortgaging its deeds outside complete groups.
fn loose_mortgage_value(game: &Game, me: u8) -> u32 {
    board::bits(game.holdings(me) & !game.mortgaged)
        .filter(|&p| !in_complete_group(game, p))
        .map(|p| DEEDS[p as usize].mortgage_value())
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Board reading

/// The highest rent an opponent can charge the bot on one landing now (utilities at a roll of 7).
///
/// The same value as the largest [`Game::rent`] over the opponents' deeds (a test checks it),
/// read one opponent at a time from its holdings: a railway's or utility's rent depends only on
/// how many of them the owner holds, and an unbuilt street's on whether it holds the group.
fn danger(game: &Game, me: u8) -> u32 {
    let mut worst = 0;
    for seat in game.active().filter(|&s| s != me) {
        let held = game.holdings(seat);
        let earning = held & !game.mortgaged;
        if earning == 0 {
            continue;
        }
        if earning & RAILWAY_MASK != 0 {
            worst = worst.max(board::RAILWAY_RENT[(held & RAILWAY_MASK).count_ones() as usize]);
        }
        if earning & UTILITY_MASK != 0 {
            worst = worst.max(board::UTILITY_FACTOR[(held & UTILITY_MASK).count_ones() as usize] * 7);
        }
        for &group in &GROUP_MASKS {
            let whole = held & group == group;
            for p in board::bits(earning & group) {
                let rents = &DEEDS[p as usize].rents;
                let rent = match game.level[p as usize] {
                    0 if whole => rents[0] * 2,
                    level => rents[level as usize],
                };
                worst = worst.max(rent);
            }
        }
    }
    worst
}

/// Rent the deed earns on one landing now (utilities at a roll of 7).
fn income(game: &Game, property: u8) -> u32 {
    game.rent(property, 7)
}

/// Does buying `property` give `me` its whole colour group?
fn completes_group(game: &Game, me: u8, property: u8) -> bool {
    let Some(group) = DEEDS[property as usize].group() else { return false };
    board::group_members(group).all(|p| p == property || game.owner[p as usize] == me)
}

/// Would `property` otherwise complete the group of one opponent (who owns all its other streets)?
fn blocks_group(game: &Game, me: u8, property: u8) -> bool {
    let Some(group) = DEEDS[property as usize].group() else { return false };
    let mut others = board::group_members(group).filter(|&p| p != property).map(|p| game.owner[p as usize]);
    let first = others.next().unwrap_or(NOBODY);
    first != NOBODY && first != me && others.all(|o| o == first)
}

/// Is `property` a street of a group that one player owns whole?
fn in_complete_group(game: &Game, property: u8) -> bool {
    DEEDS[property as usize].group().is_some_and(|g| game.group_owner(g).is_some())
}

/// Streets of the bot's complete groups.
fn buildable_streets(game: &Game, me: u8) -> impl Iterator<Item = u8> + '_ {
    board::bits(game.holdings(me)).filter(move |&p| {
        matches!(DEEDS[p as usize].kind, Kind::Street(g) if game.group_owner(g) == Some(me))
            && game.level[p as usize] != HOTEL
    })
}

/// Rent added by one more building level on a street (from the double unbuilt rent for 0).
fn rent_gain(game: &Game, property: u8) -> u32 {
    let deed = &DEEDS[property as usize];
    let level = game.level[property as usize];
    if level == HOTEL {
        return 0;
    }
    let now = if level == 0 { deed.rents[0] * 2 } else { deed.rents[level as usize] };
    let next =
        if level == game.rules.houses_per_hotel { deed.rents[HOTEL as usize] } else { deed.rents[level as usize + 1] };
    next.saturating_sub(now)
}

/// Rent lost by selling one building level on a street.
fn rent_loss(game: &Game, property: u8) -> u32 {
    let deed = &DEEDS[property as usize];
    let level = game.level[property as usize];
    let below = if level == HOTEL { game.rules.houses_per_hotel } else { level.saturating_sub(1) };
    let below_rent = if below == 0 { deed.rents[0] * 2 } else { deed.rents[below as usize] };
    deed.rents[level as usize].saturating_sub(below_rent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play, Streams};
    use lanopoly_engine::{BoardId, Rules};

    /// The danger as first written: the largest rent of any active opponent's deed.
    fn danger_by_rent(game: &Game, me: u8) -> u32 {
        (0..PROPERTIES as u8)
            .filter(|&p| {
                let owner = game.owner[p as usize];
                owner != NOBODY && owner != me && !game.player(owner).bankrupt
            })
            .map(|p| game.rent(p, 7))
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn danger_is_the_highest_rent_of_an_opponent() {
        for seed in 0..6 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut bots: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut bots, &mut streams, 20_000, |game, _, _| {
                for seat in game.seats() {
                    assert_eq!(danger(game, seat), danger_by_rent(game, seat), "seat {seat} at step {}", game.step);
                }
            });
        }
    }
}
