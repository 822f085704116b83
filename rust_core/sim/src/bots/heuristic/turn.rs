//! The heuristic bot's own turn: housekeeping (offers, rent claims, mortgages, trades, building),
//! then the roll, the jail choice and the buy decision.

use super::*;

impl HeuristicBot {
    /// The game waits for the bot outside any overlay: it is the bot's turn. First the
    /// housekeeping (offers, rent claims, stale offers, mortgages, trades, building), unless
    /// there is plainly none to do, then the move itself.
    pub(super) fn play_turn(&mut self, game: &Game, me: u8) -> Option<Action> {
        // The bot's deeds and whole groups, from its picture of the board.
        let (held, whole) = (self.picture().held, self.picture().whole);
        if self.may_manage(game, me, held, whole) {
            if let Some(a) = self.manage(game, me, held, whole) {
                return Some(a);
            }
        } else {
            debug_assert!(self.clone().manage(game, me, held, whole).is_none(), "housekeeping skipped wrongly");
        }
        match game.phase {
            Phase::AwaitRoll => Some(self.before_roll(game, me)),
            Phase::BuyDecision { property } => self.buy_or_decline(game, me, property),
            _ => Some(Action::EndTurn),
        }
    }

    /// Is the plain step `step` (the roll or the end of the bot's turn, nobody else to answer:
    /// [`Game::plain_step`]) what [`HeuristicBot::play_turn`] would answer? Yes when there is
    /// plainly no housekeeping ([`HeuristicBot::may_manage`] false on the picture read afresh)
    /// and, for a roll, the bot is not in jail (where it may leave by card or fine first) or
    /// stays there by strategy. Keeps the bot's memory as a decision would (the game it plays,
    /// its picture of the owners). A quick "no" first for a trading bot with trade candidates in
    /// its picture as last read (perhaps stale: a "no" is always safe, `choose` is asked): it
    /// mostly still has some.
    pub(super) fn plain_step_is_chosen(&mut self, game: &Game, step: Move) -> bool {
        let me = step.player;
        if step.action == Action::Roll && game.player(me).in_jail && self.jail != JailStrategy::StayLate {
            return false;
        }
        let trades = self.trade_willingness != 0;
        if trades && self.memory.picture.as_ref().is_some_and(Picture::has_wants) {
            return false;
        }
        // Mostly the same game and a picture of these very deeds: what `remember_game` and
        // `Picture::refresh` would do then is to note the turn, and nothing else.
        let (held, whole) = match &self.memory.picture {
            Some(picture) if game.turn >= self.memory.last_turn && picture.is_current(game, me, trades) => {
                self.memory.last_turn = game.turn;
                (picture.held, picture.whole)
            }
            _ => self.read_afresh(game, me),
        };
        !self.may_manage(game, me, held, whole)
    }

    /// What a decision reads first (the game it plays, its picture of the owners), when the
    /// picture kept is not the game's as it is: out of line, a few dozen times a game.
    #[inline(never)]
    fn read_afresh(&mut self, game: &Game, me: u8) -> (u32, u8) {
        self.remember_game(game);
        Picture::refresh(&mut self.memory.picture, game, me, self.trade_willingness != 0);
        (self.picture().held, self.picture().whole)
    }

    /// The fast path of most decisions: is there possibly some housekeeping to do? `false` only
    /// when each step of [`HeuristicBot::manage`] would plainly find nothing: no offer, no rent
    /// owed to the bot, no mortgage, no trade candidate, no building possible.
    #[inline(always)]
    fn may_manage(&self, game: &Game, me: u8, held: u32, whole: u8) -> bool {
        !game.offers.is_empty()
            || game.claims.iter().any(|c| c.owner == me)
            || held & game.mortgaged() != 0
            || (self.trade_willingness != 0 && self.picture().has_wants())
            || (whole != 0 && !self.no_building(game, me, whole))
    }

    /// Plainly no building nor freeing of houses for the bot's whole groups `whole`: the bank has
    /// no house and no hotel left (every building is refused), and the bot cannot be rich enough
    /// to break the shortage ([`HeuristicBot::free_houses`]) even above the smallest reserve.
    fn no_building(&self, game: &Game, me: u8, whole: u8) -> bool {
        let cheapest = board::bits(whole as u32)
            .map(|g| DEEDS[GROUP_MASKS[g as usize].trailing_zeros() as usize].house_cost)
            .min()
            .unwrap_or(0);
        game.rules.limited_buildings
            && game.houses_left == 0
            && game.hotels_left == 0
            && game.player(me).cash < cheapest + self.reserve_floor() + self.rich_cash
    }

    /// The housekeeping of the bot's turn, first step that applies: answer an offer, claim rent,
    /// withdraw a stale offer, lift a mortgage, propose a trade, build, free houses.
    fn manage(&mut self, game: &Game, me: u8, held: u32, whole: u8) -> Option<Action> {
        if let Some(a) = self.answer_offer(game, me) {
            return Some(a);
        }
        if !game.claims.is_empty() {
            if let Some(a) = owed_claim_in_turn(game, me) {
                return Some(a);
            }
        }
        if let Some(a) = self.cancel_stale_offer(game, me) {
            return Some(a);
        }
        if let Some(a) = self.lift_mortgage(game, me, held) {
            return Some(a);
        }
        if let Some(a) = self.propose_trade(game, me, held) {
            return Some(a);
        }
        if let Some(a) = self.build(game, me, whole) {
            return Some(a);
        }
        self.free_houses(game, me, whole)
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
                let unowned = game.holdings(NOBODY).count_ones();
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
        if cash >= price && (key || self.covers_reserve(game, me, cash - price)) {
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
    fn lift_mortgage(&self, game: &Game, me: u8, held: u32) -> Option<Action> {
        let mortgaged = held & game.mortgaged();
        if mortgaged == 0 {
            return None;
        }
        // No lift affordable even above the smallest reserve: no danger to work out.
        let cheapest = board::bits(mortgaged).map(|p| DEEDS[p as usize].unmortgage_cost()).min().unwrap_or(0);
        let cash = game.player(me).cash;
        if cash.saturating_sub(self.reserve_floor()) < cheapest {
            return None;
        }
        // (What is left after the lift and margin must cover the reserve.)
        let complete = whole_streets(held);
        let in_complete_group = |p: u8| complete & 1 << p != 0;
        board::bits(mortgaged)
            .filter(|&p| {
                let cost = DEEDS[p as usize].unmortgage_cost();
                let margin = if in_complete_group(p) { 0 } else { self.rich_cash };
                self.affords(game, me, cost + margin)
            })
            .max_by_key(|&p| (in_complete_group(p), DEEDS[p as usize].price))
            .map(|p| Action::Unmortgage(DEEDS[p as usize].square))
    }

    /// Build evenly on complete groups: first `max_houses` on every street of the best group,
    /// then the next group; beyond that (up to hotels) only when rich. Always keep the reserve.
    /// `whole`: the bot's whole groups (`board::whole_groups` of its holdings).
    pub(super) fn build(&self, game: &Game, me: u8, whole: u8) -> Option<Action> {
        if whole == 0 {
            return None; // (most turns: no reserve to work out)
        }
        let cash = game.player(me).cash;
        let freed = self.memory.freed_group.filter(|&(turn, _)| turn == game.turn).map(|(_, g)| g);
        // No group's house affordable above the smallest reserve: no candidate to find (the
        // test below would refuse them all; most decisions of a bot with a complete group and
        // little cash).
        let floor = self.reserve_floor();
        let open = whole & !freed.map_or(0, |g| 1 << g);
        if board::bits(open as u32).all(|g| cash < GROUP_HOUSE_COST[g as usize] + floor) {
            return None;
        }
        let height = |p: u8| game.height(game.level(p));
        // The lowest street of each complete group, best group first: the candidates.
        let mut lowest = [0u8; COLOUR_GROUPS];
        let mut count = 0;
        for &g in self.group_order.iter().filter(|&&g| whole & 1 << g != 0 && Some(g) != freed) {
            if let Some(p) = board::group_members(g).min_by_key(|&p| height(p)) {
                lowest[count] = p;
                count += 1;
            }
        }
        let lowest = &lowest[..count];
        // No candidate affordable even above the smallest reserve, or all at hotels: no danger
        // to work out (most decisions of a bot with a complete group and little cash).
        let room = |p: u8| height(p) < game.height(self.max_houses).max(game.height(HOTEL));
        if !lowest.iter().any(|&p| cash >= DEEDS[p as usize].house_cost + floor && room(p)) {
            return None;
        }
        let affordable = |p: u8| self.affords(game, me, DEEDS[p as usize].house_cost);
        let rich = |p: u8| self.affords(game, me, DEEDS[p as usize].house_cost + self.rich_cash);
        // First up to `max_houses` where affordable, then up to hotels where rich; a street
        // refused in the first pass is refused in the second too (the same state).
        let mut refused = 0u32;
        let mut first_legal = |p: u8, wanted: bool| {
            if !wanted || refused & 1 << p != 0 {
                return None;
            }
            // Refusals of `check_build` read from the deeds and the bank's stock, without asking
            // the engine (about 130 instructions a check): a mortgaged street in the group, no
            // piece of the kind left. The engine is asked about the rest.
            if plainly_refused(game, p) {
                refused |= 1 << p;
                return None;
            }
            let action = Action::Build(DEEDS[p as usize].square);
            if legal(game, me, action) {
                return Some(action);
            }
            refused |= 1 << p;
            None
        };
        let to_target = |p: u8| affordable(p) && height(p) < game.height(self.max_houses);
        let beyond = |p: u8| rich(p) && height(p) < game.height(HOTEL);
        lowest
            .iter()
            .find_map(|&p| first_legal(p, to_target(p)))
            .or_else(|| lowest.iter().find_map(|&p| first_legal(p, beyond(p))))
    }

    /// Break a housing shortage when rich: if the bank has no house left for the bot's best group
    /// that still wants one, sell a level of its weakest built group (one ranked lower) so that the
    /// best group can grow toward hotels, which give houses back to the bank.
    fn free_houses(&mut self, game: &Game, me: u8, whole: u8) -> Option<Action> {
        if !game.rules.limited_buildings || game.houses_left > 0 {
            return None;
        }
        // The groups the bot owns whole, best first: none on most turns (and on every turn of a
        // game without houses in the bank, where this ran at each decision).
        if whole == 0 {
            return None;
        }
        let rank = |g: u8| self.group_order.iter().position(|&x| x == g).unwrap_or(COLOUR_GROUPS);
        let mut owned = [0u8; COLOUR_GROUPS];
        let mut count = 0;
        for &g in self.group_order.iter().filter(|&&g| whole & 1 << g != 0) {
            owned[count] = g;
            count += 1;
        }
        let mine = &owned[..count];
        let wants_house = |g: u8| {
            let lowest = board::group_members(g).map(|p| game.level(p)).min().unwrap_or(HOTEL);
            let cost = DEEDS[GROUP_MASKS[g as usize].trailing_zeros() as usize].house_cost;
            lowest < game.rules.houses_per_hotel && self.affords(game, me, cost + self.rich_cash)
        };
        let strong = mine.iter().copied().find(|&g| wants_house(g))?;
        let weak = mine
            .iter()
            .copied()
            .rev()
            .find(|&g| rank(g) > rank(strong) && board::group_members(g).any(|p| matches!(game.level(p), 1..=4)))?;
        let action =
            board::group_members(weak).map(|p| Action::Sell(DEEDS[p as usize].square)).find(|&a| legal(game, me, a))?;
        self.memory.freed_group = Some((game.turn, weak));
        Some(action)
    }

    /// The reserve: base cash plus a share of the highest rent an opponent can charge.
    pub(super) fn reserve(&self, game: &Game, me: u8) -> u32 {
        if self.danger_percent == 0 || self.cash_reserve >= self.max_reserve {
            return self.reserve_floor(); // the danger changes nothing
        }
        (self.cash_reserve + self.danger(game, me) * self.danger_percent / 100).min(self.max_reserve)
    }

    /// The smallest the reserve can be, whatever the danger: a move that this floor already
    /// rules out needs no danger worked out.
    fn reserve_floor(&self) -> u32 {
        self.cash_reserve.min(self.max_reserve)
    }

    /// The largest the reserve can be, whatever the danger: a move that leaves this much needs
    /// no danger worked out either.
    pub(super) fn reserve_ceiling(&self) -> u32 {
        if self.danger_percent == 0 || self.cash_reserve >= self.max_reserve {
            self.reserve_floor()
        } else {
            self.max_reserve
        }
    }

    /// Does `left` cash cover the reserve (`left >= reserve`)? The danger is worked out only
    /// when `left` lies between the smallest and the largest reserve: the same answer, and most
    /// purchases early in a game leave more than the largest.
    #[inline]
    pub(super) fn covers_reserve(&self, game: &Game, me: u8, left: u32) -> bool {
        if left >= self.reserve_ceiling() {
            return true;
        }
        left >= self.reserve_floor() && left >= self.reserve(game, me)
    }

    /// Can the bot spend `cost` and keep its reserve (`cash >= cost + reserve`)?
    #[inline]
    pub(super) fn affords(&self, game: &Game, me: u8, cost: u32) -> bool {
        let cash = game.player(me).cash;
        cash >= cost && self.covers_reserve(game, me, cash - cost)
    }

    /// [`danger`], computed once per decision, or taken from the last board it was computed on.
    pub(super) fn danger(&self, game: &Game, me: u8) -> u32 {
        let fresh = || match self.memory.danger_seen {
            Some((seen, value)) if seen.is_of(game, me) => value,
            _ => danger(game, me),
        };
        match self.memory.deciding {
            Some((step, seat)) if step == game.step && seat == me => self.memory.danger_now.get_or_init(fresh),
            _ => fresh(),
        }
    }

    /// The bot's picture of the owners, read at the start of the decision being made.
    pub(super) fn picture(&self) -> &Picture {
        self.memory.picture.as_ref().expect("read at the start of each decision")
    }
}

/// The cheapest house of each colour group (the streets of a group have one price).
const GROUP_HOUSE_COST: [u32; COLOUR_GROUPS] = {
    let mut cost = [u32::MAX; COLOUR_GROUPS];
    let mut p = 0;
    while p < PROPERTIES {
        if let Kind::Street(g) = DEEDS[p].kind {
            if DEEDS[p].house_cost < cost[g as usize] {
                cost[g as usize] = DEEDS[p].house_cost;
            }
        }
        p += 1;
    }
    cost
};

/// [`crate::bots::owed_claim`] for the bot's own turn, out of line: [`Game::first_claim`] is
/// inlined into the claims' round (`interject`), and kept out of `choose`'s frame here.
#[inline(never)]
fn owed_claim_in_turn(game: &Game, me: u8) -> Option<Action> {
    crate::bots::owed_claim(game, me)
}

/// Does [`Game::check_build`] plainly refuse a building on street `property` of a group the bot
/// holds whole: a street of the group is mortgaged, or the bank has no piece of the kind left?
fn plainly_refused(game: &Game, property: u8) -> bool {
    let group = DEEDS[property as usize].group().map_or(0, |g| GROUP_MASKS[g as usize]);
    let hotel = game.level(property) == game.rules.houses_per_hotel;
    let stock = if hotel { game.hotels_left } else { game.houses_left };
    group & game.mortgaged() != 0 || (game.rules.limited_buildings && stock == 0)
}

/// Mortgage the least useful deed outside complete groups.
fn mortgage_loose_deed(game: &Game, me: u8) -> Option<Action> {
    board::bits(game.holdings(me) & !game.mortgaged())
        .filter(|&p| !in_complete_group(game, p))
        .min_by_key(|&p| income(game, p))
        .map(|p| Action::Mortgage(DEEDS[p as usize].square))
        .filter(|&a| legal(game, me, a))
}

/// Cash the bot could raise by mortgaging its deeds outside complete groups.
fn loose_mortgage_value(game: &Game, me: u8) -> u32 {
    board::bits(game.holdings(me) & !game.mortgaged())
        .filter(|&p| !in_complete_group(game, p))
        .map(|p| DEEDS[p as usize].mortgage_value())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play, Streams};
    use lanopoly_engine::{BoardId, Rules};

    /// What [`plainly_refused`] refuses the engine refuses too, at every step of games with a
    /// short bank (12 houses, 4 hotels) where mortgages, shortages and hotels come often; and it
    /// refuses some (else it would save nothing).
    #[test]
    fn a_plainly_refused_building_is_refused_by_the_engine() {
        let rules = Rules { houses: 12, hotels: 4, ..Rules::default() };
        let mut refusals = 0;
        for seed in 0..6 {
            let mut game = Game::new(4, BoardId::Classic, rules).expect("a valid game");
            let mut players: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut players, &mut streams, 20_000, |game, _, _| {
                for me in game.active() {
                    let whole = board::whole_groups(game.holdings(me));
                    for g in board::bits(whole as u32) {
                        for p in board::group_members(g).filter(|&p| plainly_refused(game, p)) {
                            refusals += 1;
                            let action = Action::Build(DEEDS[p as usize].square);
                            assert!(!legal(game, me, action), "{action:?} by {me} at step {}", game.step);
                        }
                    }
                }
            });
        }
        assert!(refusals > 1000, "{refusals}");
    }

    /// [`HeuristicBot::covers_reserve`] (the danger skipped outside the reserve's bounds) says
    /// `left >= reserve` exactly, and the auction limits are those of the reserve worked out,
    /// for bots whose reserve does and does not follow the danger, on every board of a game.
    #[test]
    fn the_reserve_bounds_give_the_answers_of_the_reserve() {
        let bots = [
            HeuristicBot::default(),
            HeuristicBot { cash_reserve: 0, danger_percent: 50, max_reserve: 300, ..HeuristicBot::default() },
            HeuristicBot { cash_reserve: 600, max_reserve: 500, ..HeuristicBot::default() },
            HeuristicBot { danger_percent: 0, ..HeuristicBot::default() },
        ];
        let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
        let mut players: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
        let mut streams = Streams::new(7, 4);
        let mut checked = 0;
        play(&mut game, &mut players, &mut streams, 20_000, |game, _, _| {
            if game.step % 5 != 0 {
                return;
            }
            for bot in &bots {
                for me in game.active() {
                    let reserve = bot.reserve(game, me);
                    for left in (0..700).step_by(7).chain([reserve.saturating_sub(1), reserve, reserve + 1]) {
                        assert_eq!(
                            bot.covers_reserve(game, me, left),
                            left >= reserve,
                            "left {left}, reserve {reserve}"
                        );
                    }
                    let cash = game.player(me).cash;
                    for cost in [1, 50, 150, 400] {
                        assert_eq!(bot.affords(game, me, cost), cash >= cost + reserve);
                    }
                    for property in 0..PROPERTIES as u8 {
                        let price = DEEDS[property as usize].price;
                        let plain = if completes_group(game, me, property) {
                            (price + bot.group_bonus(property)).min(cash.saturating_sub(reserve / 2))
                        } else if blocks_group(game, me, property) {
                            (price + price / 2).min(cash.saturating_sub(reserve / 2))
                        } else {
                            price.min(cash.saturating_sub(reserve))
                        };
                        assert_eq!(bot.deed_bid_limit(game, me, property), plain);
                    }
                    checked += 1;
                }
            }
        });
        assert!(checked > 1000, "{checked}");
    }

    /// `DangerKey::is_of` is `== DangerKey::of` for the keys of every seat kept from earlier
    /// steps of full games (new deeds' versions, bankruptcies), and finds both answers.
    #[test]
    fn a_danger_key_is_of_a_board_when_it_equals_its_key() {
        let mut seen = [0u32; 2];
        for seed in 0..3 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut bots: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            let mut kept: Vec<DangerKey> = Vec::new();
            play(&mut game, &mut bots, &mut streams, 20_000, |game, _, _| {
                for seat in 0..4 {
                    for key in &kept {
                        let same = *key == DangerKey::of(game, seat);
                        assert_eq!(key.is_of(game, seat), same, "{key:?}, seat {seat}");
                        seen[same as usize] += 1;
                    }
                }
                kept.push(DangerKey::of(game, game.step as u8 % 4));
                if kept.len() > 8 {
                    kept.remove(0);
                }
            });
        }
        assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
    }
}
