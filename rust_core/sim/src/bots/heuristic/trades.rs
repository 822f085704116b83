//! The heuristic bot's trades: answering offers, proposing them, and valuing both sides.

use super::*;
use lanopoly_engine::Offer;

impl HeuristicBot {
    /// Forget a previous game when a new one starts with the same bot.
    pub(super) fn remember_game(&mut self, game: &Game) {
        if game.turn < self.memory.last_turn {
            self.memory = Memory::default();
        }
        self.memory.last_turn = game.turn;
    }

    /// Answer an offer made to the bot on its turn ([`HeuristicBot::judge_offer`]); `None`
    /// without one. Inline, so that the usual case (no offer) costs no call.
    #[inline]
    pub(super) fn answer_offer(&self, game: &Game, me: u8) -> Option<Action> {
        let offer = game.offers.iter().find(|o| o.to == me)?;
        self.judge_offer(game, me, offer, self.picture().held)
    }

    /// Answer an offer made to the bot out of turn, with the judgement of its turn: its deeds
    /// are read from the game (its picture of the board is read at its own decisions only).
    /// Out of line, so that the claims' round (`interject` with no offer) stays small.
    #[inline(never)]
    pub(super) fn answer_offer_out_of_turn(&self, game: &Game, me: u8) -> Option<Action> {
        let offer = game.offers.iter().find(|o| o.to == me)?;
        self.judge_offer(game, me, offer, game.holdings(me))
    }

    /// The answer to `offer`, made to the bot holding the deeds `held`, on its turn or out of
    /// turn: accept when it gains at least what the other side gains (so a complete group is
    /// handed over only when paid a lot), else reject. `None` when neither answer is allowed now
    /// (out of turn: during an auction or another player's debt).
    fn judge_offer(&self, game: &Game, me: u8, offer: &Offer, held: u32) -> Option<Action> {
        let from = offer.from;
        if !legal(game, me, Action::AcceptTrade { from }) {
            return legal_then(game, me, Action::RejectTrade { from });
        }
        let (mine, theirs) = self.trade_gains(game, (held, game.holdings(from)), &offer.get, &offer.give);
        let fair = mine >= 0 && mine >= theirs;
        Some(if fair { Action::AcceptTrade { from } } else { Action::RejectTrade { from } })
    }

    /// Withdraw the bot's own offer once its target has had a turn to answer, or when it no
    /// longer holds.
    pub(super) fn cancel_stale_offer(&self, game: &Game, me: u8) -> Option<Action> {
        let offer = game.offers.iter().find(|o| o.from == me)?;
        let fresh = self.memory.proposed_in_turn == Some(game.turn);
        // (The engine is asked whether the offer still holds only while it is fresh.)
        let stale =
            !fresh || !legal(game, offer.from, Action::ProposeTrade { to: offer.to, give: offer.give, get: offer.get });
        stale.then_some(Action::CancelTrade)
    }

    /// At most one proposal per turn: buy the missing street(s) of a group the bot nearly owns
    /// from the one opponent holding them, for cash; after cash offers failed, offer a swap that
    /// completes a group for each side, balanced with cash.
    /// `held`: the bot's deeds.
    pub(super) fn propose_trade(&mut self, game: &Game, me: u8, held: u32) -> Option<Action> {
        if self.trade_willingness == 0 || self.memory.proposed_in_turn == Some(game.turn) {
            return None;
        }
        if game.offers.iter().any(|o| o.from == me) {
            return None;
        }
        let (to, want, give, tries) = self.best_trade(game, me, held)?;
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
    /// tries for the same deeds). The candidates (groups missing streets held by one opponent)
    /// come from the bot's picture of the board: none on most decisions.
    fn best_trade(&self, game: &Game, me: u8, held: u32) -> Option<(u8, u32, Bundle, u32)> {
        let mut best: Option<(i64, (u8, u32, Bundle, u32))> = None;
        let picture = self.picture();
        for (holder, want) in picture.wants() {
            let earlier = self.memory.proposals.iter().find(|p| p.to == holder && p.want == want);
            if earlier.is_some_and(|p| game.turn < p.turn + self.trade_retry_turns) {
                continue;
            }
            let tries = earlier.map_or(0, |p| p.tries);
            let both = (held, game.holdings(holder));
            let Some(give) = self.trade_payment(game, me, holder, both, want, tries) else { continue };
            let gain = self.my_trade_gain(game, held, &give, &Bundle { properties: want, ..Bundle::default() });
            if gain > 0 && !matches!(best, Some((g, _)) if g >= gain) {
                best = Some((gain, (holder, want, give, tries)));
            }
        }
        best.map(|(_, t)| t)
    }

    /// What to give for `want`: cash at the willingness percentage (raised with each try) that
    /// the bot can spare; after two cash tries, a swap if the holder nearly owns a group whose
    /// missing streets the bot holds.
    fn trade_payment(
        &self,
        game: &Game,
        me: u8,
        holder: u8,
        held: (u32, u32),
        want: u32,
        tries: u32,
    ) -> Option<Bundle> {
        let printed: u32 = board::bits(want).map(|p| DEEDS[p as usize].price).sum();
        let percent = (self.trade_willingness + tries * self.trade_step).min(self.trade_max_percent);
        let spare = game.player(me).cash.saturating_sub(self.cash_reserve);
        let cash = (printed * percent / 100).min(spare);
        if tries >= 2 {
            if let Some(swap) = self.swap_payment(game, me, holder, held, want) {
                return Some(swap);
            }
        }
        (cash >= printed).then_some(Bundle { cash, ..Bundle::default() })
    }

    /// A swap: the bot's streets that complete a group for `holder`, plus the cash that makes
    /// the two gains about equal (the holder accepts what gains it at least as much as the bot).
    /// `both`: the deeds of the bot and of `holder`.
    fn swap_payment(&self, game: &Game, me: u8, holder: u8, both: (u32, u32), want: u32) -> Option<Bundle> {
        let (held, theirs) = both;
        let mine = (0..COLOUR_GROUPS as u8).find_map(|g| {
            let (who, missing) = missing_from_one_opponent(game, holder, theirs, g)?;
            (who == me && !nearly_own(held, g)).then_some(missing)
        })?;
        let get = Bundle { properties: want, ..Bundle::default() };
        let give = Bundle { properties: mine, ..Bundle::default() };
        let (gain, theirs) = self.trade_gains(game, both, &give, &get);
        let cash = u32::try_from((gain - theirs) / 2 + 1).unwrap_or(0);
        (cash <= game.player(me).cash.saturating_sub(self.cash_reserve)).then_some(Bundle { cash, ..give })
    }

    /// Gains of a trade in which the bot gives `give` to the other side and receives `get`,
    /// `held` being the deeds of (the bot, the other side) now: (the bot's gain, the other side's
    /// gain), each the change in holdings value plus the cash balance.
    fn trade_gains(&self, game: &Game, held: (u32, u32), give: &Bundle, get: &Bundle) -> (i64, i64) {
        (self.my_trade_gain(game, held.0, give, get), self.their_trade_gain(game, held.1, give, get))
    }

    /// The bot's gain of [`HeuristicBot::trade_gains`] alone (a proposal weighs only its own),
    /// `mine` being its deeds now. What is given changes hands, and what is received too: a
    /// deed in both bundles ends with the bot.
    fn my_trade_gain(&self, game: &Game, mine: u32, give: &Bundle, get: &Bundle) -> i64 {
        let after = (mine & !give.properties) | get.properties;
        self.holdings_change(game, mine, after) + cash_balance(give, get) - mortgage_fees(game, get)
    }

    /// The other side's gain of [`HeuristicBot::trade_gains`], `theirs` being its deeds now.
    fn their_trade_gain(&self, game: &Game, theirs: u32, give: &Bundle, get: &Bundle) -> i64 {
        let after = (theirs | give.properties) & !get.properties;
        self.holdings_change(game, theirs, after) - cash_balance(give, get) - mortgage_fees(game, give)
    }

    /// How the value of a holding changes from the deeds in `before` to those in `after`. A
    /// holding is worth its printed prices (mortgaged deeds at what they are worth once lifted)
    /// plus a bonus for each complete group and for railways held together; only the deeds that
    /// change hands are read.
    fn holdings_change(&self, game: &Game, before: u32, after: u32) -> i64 {
        deeds_value(game, after & !before) - deeds_value(game, before & !after) + self.set_bonus_change(before, after)
    }

    /// How the bonus of a holding for its complete groups and its railways held together
    /// changes from `before` to `after`: only the groups some deed of the change belongs to are
    /// read (the others are whole in both or in neither).
    fn set_bonus_change(&self, before: u32, after: u32) -> i64 {
        let changed = before ^ after;
        let mut value = 0i64;
        for (g, &mask) in GROUP_MASKS.iter().enumerate() {
            if changed & mask != 0 {
                let whole = |held: u32| (held & mask == mask) as i64;
                value += self.whole_group_bonus(g) as i64 * (whole(after) - whole(before));
            }
        }
        let railways = |held: u32| RAILWAY_SET_BONUS[(held & RAILWAY_MASK).count_ones() as usize];
        value + railways(after) - railways(before)
    }

    /// Bonus for owning the whole group of `property`: a share of the group's printed prices.
    pub(super) fn group_bonus(&self, property: u8) -> u32 {
        DEEDS[property as usize].group().map_or(0, |g| self.whole_group_bonus(g as usize))
    }

    /// Bonus for owning colour group `group` whole.
    fn whole_group_bonus(&self, group: usize) -> u32 {
        GROUP_PRINTED[group] * self.monopoly_percent / 100
    }
}

/// The cash balance of a trade to the side that gives `give` and receives `get`: cash, and the
/// jail cards at what they are worth.
fn cash_balance(give: &Bundle, get: &Bundle) -> i64 {
    let cards = |bundle: &Bundle| JAIL_CARD_VALUE * bundle.jail_cards.count_ones() as i64;
    get.cash as i64 - give.cash as i64 + cards(get) - cards(give)
}

/// The 10 % fees on the mortgaged deeds of `bundle`, due from whoever receives them.
fn mortgage_fees(game: &Game, bundle: &Bundle) -> i64 {
    board::bits(bundle.properties & game.mortgaged()).map(|p| DEEDS[p as usize].mortgage_interest() as i64).sum()
}

/// Printed prices of the deeds in `deeds`, a mortgaged deed at what it is worth once lifted.
fn deeds_value(game: &Game, deeds: u32) -> i64 {
    board::bits(deeds).map(|p| DEED_VALUE[(game.mortgaged() >> p & 1) as usize][p as usize] as i64).sum()
}

/// What each deed is worth in a holding: unmortgaged (its printed price), and mortgaged (its
/// price less the cost of lifting the mortgage).
const DEED_VALUE: [[u32; PROPERTIES]; 2] = {
    let mut value = [[0; PROPERTIES]; 2];
    let mut p = 0;
    while p < PROPERTIES {
        value[0][p] = DEEDS[p].price;
        value[1][p] = DEEDS[p].price - DEEDS[p].unmortgage_cost();
        p += 1;
    }
    value
};

/// The printed prices of each colour group's streets, summed.
const GROUP_PRINTED: [u32; COLOUR_GROUPS] = {
    let mut printed = [0; COLOUR_GROUPS];
    let mut p = 0;
    while p < DEEDS.len() {
        if let Some(g) = DEEDS[p].group() {
            printed[g as usize] += DEEDS[p].price;
        }
        p += 1;
    }
    printed
};

/// What a "get out of jail" card is worth in a trade.
const JAIL_CARD_VALUE: i64 = 30;
/// Extra value of holding 0..=4 railways together (their rent doubles with each one).
const RAILWAY_SET_BONUS: [i64; 5] = [0, 0, 50, 150, 300];

/// Does a player holding the deeds in `held` own all but one street of `group`?
fn nearly_own(held: u32, group: u8) -> bool {
    (GROUP_MASKS[group as usize] & !held).count_ones() == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanopoly_engine::{BoardId, Rules};

    /// Both gains of a trade worked out by hand: the bot (seat 0, holding Mediterranean) gives 100
    /// and the Chance jail card for Baltic, mortgaged, of seat 1 (which also holds Reading).
    #[test]
    fn the_gains_of_a_trade_by_hand() {
        let mut game = Game::new(2, BoardId::Classic, Rules::default()).expect("a game");
        let (mediterranean, baltic, reading) = (0, 1, 2);
        game.set_owner(mediterranean, 0);
        game.set_owner(baltic, 1);
        game.set_owner(reading, 1);
        game.set_mortgaged(1 << baltic);
        let give = Bundle { cash: 100, jail_cards: 1, ..Bundle::default() };
        let get = Bundle { properties: 1 << baltic, ..Bundle::default() };
        let bot = HeuristicBot::default();
        // The bot: Baltic worth 60 - 33 once lifted, the browns whole (+120), 130 paid, a fee of 3.
        // Seat 1: Baltic gone (-27), 130 received.
        let held = (game.holdings(0), game.holdings(1));
        assert_eq!(bot.trade_gains(&game, held, &give, &get), (27 + 120 - 130 - 3, -27 + 130));
        assert_eq!(bot.my_trade_gain(&game, held.0, &give, &get), 14);
    }
}
