//! The front of the engine: create a game, ask what is legal, apply inputs.
//!
//! Every input is checked completely before anything changes, so an illegal one returns an
//! [`IllegalAction`] with the reason and leaves the state as it was. `legal_actions` is built from
//! the same checks, so it never lists an action that `apply` would refuse.
//!
//! Who may act when (the "overlays", in priority order):
//! 1. a chance event: only its outcome;
//! 2. an auction: only bids and passes;
//! 3. a won shortage piece: only its placement;
//! 4. debts: debtors raise money (sell, mortgage, trade) and pay or go bankrupt; others may only
//!    answer a debtor's trade offer;
//! 5. mortgaged deeds just received: their owner lifts or keeps them (and may raise money);
//! 6. otherwise anyone may build, sell, mortgage, trade or claim rent, and the turn player plays
//!    the turn.
//!
//! Two moves stand outside the overlays: ending a timed game, and resigning (leaving the game).

use crate::action::{Action, Input, Move, Offer, Outcome};
use crate::board::{self, DEEDS, GROUP_MASKS};
use crate::edition::BoardId;
use crate::error::{Checked, IllegalAction, Legal, Refusal, Refused};
use crate::event::{Event, JailExit, Party, Reason};
use crate::rules::Rules;
use crate::state::{Game, Pending, Phase, HOTEL, MAX_PLAYERS, MIN_PLAYERS, NOBODY};
use crate::{deny, ensure};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The test mode of [`Game::apply_trusted`]: when set, trusted moves and outcomes are checked in
/// release builds too.
static VERIFY_TRUSTED: AtomicBool = AtomicBool::new(false);

/// Check every trusted move and outcome from now on, in this process, release builds included
/// (the release strength tests turn it on), or stop checking them (`false`: release builds trust
/// them again; debug builds always check).
pub fn verify_trusted(on: bool) {
    VERIFY_TRUSTED.store(on, Relaxed);
}

/// Are trusted moves checked now?
pub(crate) fn verifying() -> bool {
    cfg!(debug_assertions) || VERIFY_TRUSTED.load(Relaxed)
}

impl Game {
    /// A new game, waiting for its first chance event (dealing deeds or rolling for who starts).
    pub fn new(num_players: u8, board: BoardId, rules: Rules) -> Result<Game, IllegalAction> {
        rules.validate().map_err(IllegalAction::new)?;
        let max = (rules.max_players as usize).min(MAX_PLAYERS);
        ensure!(
            (MIN_PLAYERS..=max).contains(&(num_players as usize)),
            "a game has {min} to {max} players, not {n}",
            min = MIN_PLAYERS,
            max = max,
            n = num_players
        );
        let mut game = Game::blank(num_players, board, rules);
        for p in 0..num_players {
            game.transfer(Party::Bank, Party::Player(p), rules.starting_cash, Reason::StartingCash);
        }
        game.begin();
        Ok(game)
    }

    /// Apply any input: a player's move or a chance outcome.
    pub fn apply_input(&mut self, input: Input) -> Legal {
        match input {
            Input::Move(m) => self.apply(m),
            Input::Chance(outcome) => self.apply_chance(outcome),
        }
    }

    /// Apply a chance outcome to the pending chance event.
    pub fn apply_chance(&mut self, outcome: Outcome) -> Legal {
        self.check_outcome(outcome)?;
        let pending = self.pending.expect("checked");
        self.step += 1;
        self.on_outcome(pending, outcome);
        Ok(())
    }

    /// Apply a player's move, or explain why it is not allowed (and change nothing).
    pub fn apply(&mut self, m: Move) -> Legal {
        self.check(m)?;
        self.step += 1;
        self.perform(m.player, m.action);
        Ok(())
    }

    /// Apply a move the caller has already proven legal on this very state: taken from the
    /// engine's own enumeration ([`Game::legal_actions`], [`Game::visit_legal_actions`]) or
    /// accepted by [`Game::is_legal`] / [`Game::check`], or built by a bot whose every move is
    /// (`Policy::trusted` in lanopoly-sim). Release builds skip the check that [`Game::apply`]
    /// repeats (about a tenth of a simulated turn); debug builds, and every build once
    /// [`verify_trusted`]`(true)` is set (the test mode), still check and panic on a refused
    /// move, since that is the caller's bug.
    #[inline]
    pub fn apply_trusted(&mut self, m: Move) {
        if verifying() {
            self.verify_move(m);
        }
        self.step += 1;
        self.perform(m.player, m.action);
    }

    /// Panic if `m` is refused: a trusted move checked (debug builds, the test mode).
    #[cold]
    #[inline(never)]
    pub(crate) fn verify_move(&self, m: Move) {
        if let Err(e) = self.check(m) {
            panic!("a trusted move was refused: {m:?}: {e}");
        }
    }

    /// Apply a chance outcome the engine itself gave for the pending event
    /// ([`Game::sample_outcome`], [`Game::chance_outcomes`]), without checking it again; checked
    /// as [`Game::apply_trusted`] says.
    pub fn apply_chance_trusted(&mut self, outcome: Outcome) {
        let pending = self.pending.expect("a trusted outcome answers a pending chance event");
        self.apply_outcome_trusted(pending, outcome);
    }

    /// [`Game::apply_chance_trusted`] where the caller has just read the pending event: the
    /// engine's own loops ([`Game::resolve_chance`]), which sampled the outcome for it.
    #[inline]
    pub(crate) fn apply_outcome_trusted(&mut self, pending: Pending, outcome: Outcome) {
        if verifying() {
            self.verify_outcome(outcome);
        }
        debug_assert_eq!(self.pending, Some(pending));
        self.step += 1;
        self.on_outcome(pending, outcome);
    }

    /// Panic if `outcome` is refused: a trusted outcome checked (debug builds, the test mode).
    #[cold]
    #[inline(never)]
    fn verify_outcome(&self, outcome: Outcome) {
        if let Err(e) = self.check_outcome(outcome) {
            panic!("a trusted chance outcome was refused: {outcome:?}: {e}");
        }
    }

    /// Is this move allowed now? The error says why not.
    pub fn check(&self, m: Move) -> Legal {
        self.check_as(m)
    }

    /// Is this move allowed now? The same answer as [`Game::check`] without building the reason
    /// of a refusal: for bots and masks, which ask often and read no reasons.
    pub fn is_legal(&self, m: Move) -> bool {
        self.check_as::<Refused>(m).is_ok()
    }

    /// The one legality check behind [`Game::check`] and [`Game::is_legal`].
    fn check_as<R: Refusal>(&self, Move { player: p, action }: Move) -> Checked<(), R> {
        ensure!(!self.is_over(), "the game is over");
        ensure!(p < self.num_players, "there is no seat {seat}", seat = p);
        ensure!(!self.player(p).bankrupt, "seat {seat} is bankrupt", seat = p);
        ensure!(self.pending.is_none(), "waiting for a chance outcome (dice or a card)");
        if action == Action::EndGame {
            ensure!(self.rules.timed, "only a timed game can be ended early");
            ensure!(
                !self.debts.iter().any(|d| d.debtor == p),
                "you owe money: pay it or declare bankruptcy before ending the game"
            );
            return Ok(());
        }
        if action == Action::Resign {
            return self.check_resign(p);
        }
        self.check_overlays(p, action)
    }

    /// The rest of [`Game::check_as`] once its first checks passed (the game goes on, `p` is a
    /// seat still in, no chance event waits) for a move other than `EndGame` and `Resign`: the
    /// overlays in priority order, then the action's own rules. The enumeration, which makes the
    /// first checks once for all its candidates, starts here.
    fn check_overlays<R: Refusal>(&self, p: u8, action: Action) -> Checked<(), R> {
        if self.auction.is_some() {
            return match action {
                Action::Bid(amount) => self.check_bid(p, amount),
                Action::Pass => self.check_pass(p),
                _ => deny!("an auction is running: bid or pass"),
            };
        }
        if let Some(placement) = self.placing {
            return match action {
                Action::Build(square) => self.check_place(p, square),
                _ => deny!("seat {seat} must first place the building it won", seat = placement.player),
            };
        }
        if let Some(debt) = self.debts.first() {
            return self.check_in_debt(p, action, debt.debtor, debt.amount);
        }
        if self.fee_due != 0 {
            return self.check_fee_choice(p, action);
        }
        self.check_own_turn(p, action)?;
        self.check_free(p, action)
    }

    /// Option `build_in_own_turn` (the Paris app): building, selling buildings, mortgaging and
    /// lifting wait for one's own turn. Debtors and the owner of a mortgaged deed just received
    /// are answered by the overlays above, so they may still raise money or lift at once.
    fn check_own_turn<R: Refusal>(&self, p: u8, action: Action) -> Checked<(), R> {
        let managing = matches!(
            action,
            Action::Build(_) | Action::Sell(_) | Action::SellDown { .. } | Action::Mortgage(_) | Action::Unmortgage(_)
        );
        if managing && !self.may_manage_now(p) {
            deny!("under these rules you build, sell buildings, mortgage and lift mortgages only during your turn");
        }
        Ok(())
    }

    /// May `p` build, sell buildings, mortgage or lift now, as far as the time is concerned?
    pub(crate) fn may_manage_now(&self, p: u8) -> bool {
        !self.rules.build_in_own_turn || p == self.turn_player
    }

    /// While debts are owed: debtors raise money and pay; others may answer their offers.
    fn check_in_debt<R: Refusal>(&self, p: u8, action: Action, first_debtor: u8, amount: u32) -> Checked<(), R> {
        let in_debt = |q: u8| self.debts.iter().any(|d| d.debtor == q);
        match action {
            Action::AcceptTrade { from } | Action::RejectTrade { from } if in_debt(from) => self.check_free(p, action),
            _ if !in_debt(p) => {
                deny!("seat {seat} must first settle a debt of {amount}", seat = first_debtor, amount = amount)
            }
            Action::PayDebt => self.check_pay_debt(p),
            Action::DeclareBankruptcy => self.check_bankruptcy(p),
            Action::Sell(_)
            | Action::SellDown { .. }
            | Action::Mortgage(_)
            | Action::ProposeTrade { .. }
            | Action::CancelTrade => self.check_free(p, action),
            _ => deny!("you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy"),
        }
    }

    /// While mortgaged deeds just received await the lift-or-keep choice.
    fn check_fee_choice<R: Refusal>(&self, p: u8, action: Action) -> Checked<(), R> {
        let owner = self.owner(self.fee_due.trailing_zeros() as u8);
        ensure!(p == owner, "seat {seat} must first lift or keep the mortgaged deeds it received", seat = owner);
        match action {
            Action::KeepMortgaged(square) => self.check_keep_mortgaged(p, square),
            Action::Unmortgage(_) | Action::Sell(_) | Action::SellDown { .. } | Action::Mortgage(_) => {
                self.check_free(p, action)
            }
            _ => deny!("lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received"),
        }
    }

    /// The ordinary rules of each action, when no overlay restricts who may act.
    fn check_free<R: Refusal>(&self, p: u8, action: Action) -> Checked<(), R> {
        let my_turn = p == self.turn_player;
        let phase = self.phase;
        match action {
            Action::Roll => {
                ensure!(my_turn, "it is seat {seat}'s turn", seat = self.turn_player);
                ensure!(phase == Phase::AwaitRoll, "you cannot roll now");
            }
            Action::PayJailFine | Action::UseJailCard => {
                ensure!(my_turn && phase == Phase::AwaitRoll, "jail options come before your roll");
                ensure!(self.player(p).in_jail, "you are not in jail");
                if action == Action::PayJailFine {
                    let fine = self.rules.jail_fine;
                    ensure!(self.player(p).cash >= fine, "the fine is {fine}: raise the money first", fine = fine);
                } else {
                    ensure!(self.player(p).jail_cards != 0, "you have no \"get out of jail\" card");
                }
            }
            Action::Buy | Action::Decline => {
                let Phase::BuyDecision { property } = phase else { deny!("there is nothing to buy now") };
                ensure!(my_turn, "it is seat {seat}'s decision", seat = self.turn_player);
                if action == Action::Buy {
                    let price = DEEDS[property as usize].price;
                    let cash = self.player(p).cash;
                    ensure!(
                        cash >= price,
                        "the price is {price}; you have {cash}: raise money or decline",
                        price = price,
                        cash = cash
                    );
                }
            }
            Action::EndTurn => {
                ensure!(my_turn, "it is seat {seat}'s turn", seat = self.turn_player);
                ensure!(phase == Phase::AfterRoll, "you must roll first");
            }
            Action::Bid(_) | Action::Pass => deny!("there is no auction"),
            Action::Build(square) => self.check_build_request::<R>(p, square)?,
            Action::Sell(square) => self.check_sell::<R>(p, square)?,
            Action::SellDown { group, levels } => self.check_sell_down::<R>(p, group, levels)?,
            Action::Mortgage(square) => self.check_mortgage::<R>(p, square)?,
            Action::Unmortgage(square) => self.check_unmortgage::<R>(p, square)?,
            Action::KeepMortgaged(_) => deny!("you have received no mortgaged deed"),
            Action::ProposeTrade { to, give, get } => self.check_offer::<R>(&Offer { from: p, to, give, get })?,
            Action::AcceptTrade { from } => self.check_accept::<R>(p, from)?,
            Action::RejectTrade { from } => self.check_reject::<R>(p, from)?,
            Action::CancelTrade => self.check_cancel::<R>(p)?,
            Action::PayDebt | Action::DeclareBankruptcy => deny!("you owe nothing"),
            Action::ClaimRent(square) => {
                let found = self.claims.iter().any(|c| c.owner == p && c.square == square);
                ensure!(found, "no rent is due to you on square {number}", number = square);
            }
            Action::EndGame | Action::Resign => unreachable!("handled first"),
        }
        Ok(())
    }

    /// Carry out a checked move.
    fn perform(&mut self, p: u8, action: Action) {
        match action {
            Action::Roll => self.roll(),
            Action::PayJailFine => {
                self.transfer(Party::Player(p), self.fine_sink(), self.rules.jail_fine, Reason::JailFine);
                self.leave_jail(p, JailExit::Fine);
            }
            Action::UseJailCard => {
                let deck =
                    if self.player(p).jail_cards & 1 != 0 { board::Deck::Chance } else { board::Deck::CommunityChest };
                self.return_jail_card(p, deck);
                self.leave_jail(p, JailExit::Card);
            }
            Action::Buy | Action::Decline => {
                let Phase::BuyDecision { property } = self.phase else { unreachable!("checked") };
                if action == Action::Buy {
                    self.buy(p, property);
                } else {
                    self.decline(p, property);
                }
            }
            Action::Bid(amount) => self.bid(p, amount),
            Action::Pass => self.pass(p),
            Action::Build(square) if self.placing.is_some() => self.place_won_building(p, square),
            Action::Build(square) => {
                // The next piece is a hotel when the street has all its houses: what the check
                // made before (about 140 instructions) answered, read from the level.
                let property = board::property_at(square).expect("checked");
                let hotel = self.level(property) == self.rules.houses_per_hotel;
                debug_assert_eq!(self.check_build::<Refused>(p, square).ok(), Some(hotel), "checked");
                self.build(p, square, hotel);
            }
            Action::Sell(square) => self.sell(p, square),
            Action::SellDown { group, levels } => self.sell_down(p, group, levels),
            Action::Mortgage(square) => self.mortgage(p, square),
            Action::Unmortgage(square) => self.unmortgage(p, square),
            Action::KeepMortgaged(square) => self.keep_mortgaged(p, square),
            Action::ProposeTrade { to, give, get } => self.propose(Offer { from: p, to, give, get }),
            Action::AcceptTrade { from } => self.accept(p, from),
            Action::RejectTrade { from } => self.reject(p, from),
            Action::CancelTrade => self.cancel(p),
            Action::PayDebt => self.pay_debt(p),
            Action::DeclareBankruptcy => self.declare_bankruptcy(p),
            Action::ClaimRent(square) => self.claim_rent(p, square),
            Action::EndTurn => self.next_turn(),
            Action::EndGame => self.finish_game(),
            Action::Resign => self.resign(p),
        }
    }

    /// Every action `p` may take now. Bids are listed at their lowest amount (any amount in
    /// [`Game::bid_range`] is legal); trade proposals and partial sell-downs are open-ended and
    /// not listed (a full sell-down of each built group is).
    pub fn legal_actions(&self, p: u8) -> Vec<Action> {
        let mut out = Vec::new();
        self.visit_legal_actions(p, |action| out.push(action));
        out
    }

    /// Call `emit` with each action of [`Game::legal_actions`], in the same order, without
    /// collecting them (the legality mask of `lanopoly-sim` needs no allocation).
    pub fn visit_legal_actions(&self, p: u8, emit: impl FnMut(Action)) {
        self.visit_legal_actions_where(p, |_| true, emit);
    }

    /// [`Game::visit_legal_actions`], of the actions `wanted` accepts only: the others are not
    /// checked at all (a caller that will drop some kinds of action saves their legality checks).
    pub fn visit_legal_actions_where(&self, p: u8, wanted: impl Fn(&Action) -> bool, mut emit: impl FnMut(Action)) {
        if self.is_over() || self.pending.is_some() || p >= self.num_players || self.player(p).bankrupt {
            return;
        }
        // The first checks of `check_as` hold for every candidate now: each is checked from the
        // overlays on (but `EndGame`, which has checks of its own before them).
        // Outside every overlay (most enumerations), the route of `check_overlays` is known
        // once for all the candidates: its own-turn and free checks.
        let free = self.auction.is_none() && self.placing.is_none() && self.debts.is_empty() && self.fee_due == 0;
        // `filtered`: the filter that lets a candidate through is the whole of its rule in
        // `check_free` (see `candidate_is_legal`).
        let mut consider = |action: Action, filtered: bool| {
            if wanted(&action) && self.candidate_is_legal(p, action, free, filtered) {
                emit(action);
            }
        };
        if self.auction.is_some() {
            if let Some((min, _)) = self.bid_range(p) {
                consider(Action::Bid(min), false);
            }
            consider(Action::Pass, false);
            if self.rules.timed {
                consider(Action::EndGame, false);
            }
            return;
        }
        // Cheap filters first, so that nearly every candidate checked is legal. Where the
        // filter is the whole rule of the action in `check_free` (the third field), only the
        // time of `check_own_turn` is left to check outside the overlays.
        let my_turn = p == self.turn_player;
        let in_debt = self.debts.iter().any(|d| d.debtor == p);
        let me = self.player(p);
        let candidates = [
            (Action::Roll, my_turn && self.phase == Phase::AwaitRoll, true),
            (Action::PayJailFine, my_turn && me.in_jail && self.phase == Phase::AwaitRoll, false),
            (Action::UseJailCard, my_turn && me.in_jail && me.jail_cards != 0 && self.phase == Phase::AwaitRoll, true),
            (Action::Buy, my_turn && matches!(self.phase, Phase::BuyDecision { .. }), false),
            (Action::Decline, my_turn && matches!(self.phase, Phase::BuyDecision { .. }), true),
            (Action::EndTurn, my_turn && self.phase == Phase::AfterRoll, true),
            (Action::PayDebt, in_debt, false),
            (Action::DeclareBankruptcy, in_debt, false),
            (Action::CancelTrade, self.offers.iter().any(|o| o.from == p), false),
            (Action::EndGame, self.rules.timed, false),
        ];
        for (action, worth_checking, filtered) in candidates {
            if worth_checking {
                consider(action, filtered);
            }
        }
        // Whole groups and buildings as bit masks, computed once for every deed below.
        let holdings = self.holdings(p);
        let whole = board::whole_groups(holdings);
        let built = self.built();
        for property in board::bits(holdings) {
            let deed = &DEEDS[property as usize];
            let square = deed.square;
            let level = self.level(property);
            let mortgaged = self.is_mortgaged(property);
            let group_built = deed.group().is_some_and(|g| GROUP_MASKS[g as usize] & built != 0);
            let buildable = deed.group().is_some_and(|g| whole & (1 << g) != 0) && level != HOTEL;
            if buildable && !mortgaged && me.cash >= deed.house_cost {
                consider(Action::Build(square), false);
            }
            if level > 0 {
                consider(Action::Sell(square), false);
            }
            // A deed of `p`'s (`holdings`): `check_mortgage` and `check_unmortgage` ask no more.
            if !mortgaged && !group_built {
                consider(Action::Mortgage(square), true);
            }
            if mortgaged && me.cash >= deed.unmortgage_cost() {
                consider(Action::Unmortgage(square), true);
            }
            if self.fee_due & (1 << property) != 0 {
                consider(Action::KeepMortgaged(square), false);
            }
        }
        let hotels = self.hotels();
        for group in board::bits(whole as u32) {
            if GROUP_MASKS[group as usize] & hotels != 0 {
                consider(Action::SellDown { group, levels: [0; 3] }, false);
            }
        }
        for offer in self.offers.iter().filter(|o| o.to == p) {
            consider(Action::AcceptTrade { from: offer.from }, false);
            consider(Action::RejectTrade { from: offer.from }, false);
        }
        for claim in self.claims.iter().filter(|c| c.owner == p) {
            consider(Action::ClaimRent(claim.square), true);
        }
    }

    /// [`Game::is_legal`] of a candidate of the enumeration, whose first checks (game over,
    /// seat, bankrupt, chance event) [`Game::visit_legal_actions_where`] made once for all: the
    /// rest of the same check. Checked against the whole [`Game::is_legal`] in debug builds and
    /// in the test mode ([`verify_trusted`]). `free`: no overlay applies (no auction, placement,
    /// debt or fee due), so `check_overlays` would go straight to its last two checks.
    /// `filtered`: the enumeration's filter has made every check of the action's arm of
    /// [`Game::check_free`] (a roll or the end of one's turn at its phase, a claim of one's own,
    /// a mortgage on one's unmortgaged deed in a group without buildings, ...), so outside the
    /// overlays only the time of [`Game::check_own_turn`] is asked; the test mode's comparison
    /// with `is_legal` below catches a filter that falls short of its rule.
    fn candidate_is_legal(&self, p: u8, action: Action, free: bool, filtered: bool) -> bool {
        let legal = match action {
            Action::EndGame => self.is_legal(Move { player: p, action }),
            _ if free && filtered => self.check_own_turn::<Refused>(p, action).is_ok(),
            _ if free => {
                self.check_own_turn::<Refused>(p, action).is_ok() && self.check_free::<Refused>(p, action).is_ok()
            }
            _ => self.check_overlays::<Refused>(p, action).is_ok(),
        };
        if verifying() {
            let m = Move { player: p, action };
            assert_eq!(legal, self.is_legal(m), "the enumeration's check disagrees with is_legal on {m:?}");
        }
        legal
    }

    /// Take the events recorded since the last call (see [`Game::record_events`]).
    pub fn take_events(&mut self) -> Vec<Event> {
        self.log.drain()
    }

    /// Turn event recording on or off (off by default; simulation leaves it off).
    pub fn record_events(&mut self, on: bool) {
        self.log.set_recording(on);
    }

    /// Net worth of every seat.
    pub fn net_worths(&self) -> Vec<u64> {
        self.net_worths_all()[..self.num_players as usize].to_vec()
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<u8> {
        (self.winner != NOBODY).then_some(self.winner)
    }
}
