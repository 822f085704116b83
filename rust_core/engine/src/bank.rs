//! Money: payments, debts, bankruptcy and the end of the game.
//!
//! Every unit moves through [`Game::transfer`], which emits a `Payment` event, so a log accounts
//! for all money. A payment a player cannot meet from cash becomes a [`Debt`]: forced play goes on,
//! and before the next decision the debtor must raise the money (sell, mortgage, trade) and pay,
//! or declare bankruptcy if even that cannot cover it. Debts are settled oldest first.
//!
//! Several creditors at once (e.g. "pay each player 50"): each is a separate debt, in seat order
//! from the debtor. A bankrupt player's assets go to the creditor of its oldest unpaid debt; its
//! other debts are cancelled (RULES.md leaves this choice to the code).
//!
//! When the game ends with debts open (a timed game ended, a speed game's last bankruptcy), they
//! are not forgotten: they stay on record and count in the net worths that name the winner (see
//! `finish_game`). A debtor cannot end a timed game. A bankrupt's debt to the Free
//! Parking jackpot gives its cash to the bank, as any debt not owed to a player does.
//!
//! A player may also resign (leave the game) at any time but a chance event: the bank takes
//! everything as in a bankruptcy to the bank, and debts owed by it or to it lapse. It counts as a
//! bankruptcy for the end of the game (`end_after_bankruptcies`).

use crate::board::{self, Deck, DEEDS};
use crate::error::{Checked, Refusal, Refused};
use crate::event::{Event, Party, Reason};
use crate::state::{Debt, Game, Phase, HOTEL, NOBODY};
use crate::{deny, ensure};

impl Game {
    /// Move money now. The payer must have it (checked by the callers). Inlined: a payment is
    /// a few instructions, its call more.
    #[inline]
    pub(crate) fn transfer(&mut self, from: Party, to: Party, amount: u32, reason: Reason) {
        if amount == 0 {
            return;
        }
        match from {
            Party::Player(p) => self.player_mut(p).cash -= amount,
            Party::Jackpot => self.jackpot -= amount,
            Party::Bank => {}
        }
        match to {
            Party::Player(p) => self.player_mut(p).cash += amount,
            Party::Jackpot => self.jackpot += amount,
            Party::Bank => {}
        }
        self.log.push(Event::Payment { from, to, amount, reason });
    }

    /// Where taxes and fines go: the jackpot if that option is on, else the bank.
    pub(crate) fn fine_sink(&self) -> Party {
        if self.rules.free_parking_jackpot {
            Party::Jackpot
        } else {
            Party::Bank
        }
    }

    /// A payment that falls due: paid now if the debtor has the cash and no older debt,
    /// otherwise recorded as a debt. Inlined (`always`: the hint alone left it out) into the
    /// rent, the taxes and the cards.
    #[inline(always)]
    pub(crate) fn charge(&mut self, debtor: u8, creditor: Party, amount: u32, reason: Reason) {
        if amount == 0 {
            return;
        }
        let has_debt = self.debts.iter().any(|d| d.debtor == debtor);
        if !has_debt && self.player(debtor).cash >= amount {
            self.transfer(Party::Player(debtor), creditor, amount, reason);
        } else {
            self.debts.push(Debt { debtor, creditor, amount, reason });
            self.log.push(Event::DebtOwed { debtor, creditor, amount });
        }
    }

    fn oldest_debt(&self, player: u8) -> Option<usize> {
        self.debts.iter().position(|d| d.debtor == player)
    }

    pub(crate) fn check_pay_debt<R: Refusal>(&self, player: u8) -> Checked<(), R> {
        let Some(i) = self.oldest_debt(player) else { deny!("you owe nothing") };
        let debt = &self.debts[i];
        let cash = self.player(player).cash;
        ensure!(
            cash >= debt.amount,
            "you owe {amount} but have {cash}: sell buildings, mortgage or trade first",
            amount = debt.amount,
            cash = cash
        );
        Ok(())
    }

    pub(crate) fn pay_debt(&mut self, player: u8) {
        let i = self.oldest_debt(player).expect("checked");
        let debt = self.debts.remove(i);
        self.transfer(Party::Player(player), debt.creditor, debt.amount, debt.reason);
    }

    pub(crate) fn check_bankruptcy<R: Refusal>(&self, player: u8) -> Checked<(), R> {
        let owed = self.owed_by(player);
        ensure!(owed > 0, "you owe nothing: bankruptcy is only for debts you cannot pay");
        let can_raise = self.liquidation_value(player);
        ensure!(
            can_raise < owed,
            "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead",
            owed = owed,
            can_raise = can_raise
        );
        Ok(())
    }

    /// The player leaves the game; its assets go to the creditor of its oldest debt.
    pub(crate) fn declare_bankruptcy(&mut self, player: u8) {
        let creditor = self.debts[self.oldest_debt(player).expect("checked")].creditor;
        self.debts.retain(|d| d.debtor != player && d.creditor != Party::Player(player));
        self.log.push(Event::Bankrupt { player, creditor });
        match creditor {
            Party::Player(to) => self.surrender_to_player(player, to),
            _ => self.surrender_to_bank(player, Reason::Bankruptcy),
        }
        self.leave_game(player);
    }

    /// Resigning is refused only where it would leave something half done: a bid that leads or a
    /// won building still to place.
    pub(crate) fn check_resign<R: Refusal>(&self, player: u8) -> Checked<(), R> {
        if let Some(a) = &self.auction {
            ensure!(a.high_bidder != player, "you lead this auction: resign once it is over");
        }
        if let Some(placement) = self.placing {
            ensure!(placement.player != player, "place the building you won first, then resign");
        }
        Ok(())
    }

    /// The player leaves the game of its own will: the bank takes everything (and auctions the
    /// deeds), and debts owed by it or to it lapse.
    pub(crate) fn resign(&mut self, player: u8) {
        self.debts.retain(|d| d.debtor != player && d.creditor != Party::Player(player));
        self.log.push(Event::Resigned { player });
        self.surrender_to_bank(player, Reason::Resignation);
        self.leave_game(player);
    }

    /// What every way out of the game shares: offers and rent claims lapse, the seat is out, and
    /// play goes on without it (the turn passes, an auction goes on without it) or the game ends.
    fn leave_game(&mut self, player: u8) {
        self.offers.retain(|o| o.from != player && o.to != player);
        self.claims.retain(|c| c.owner != player && c.payer != player);
        let seat = self.player_mut(player);
        seat.bankrupt = true;
        seat.in_jail = false;
        seat.jail_attempts = 0;
        self.bankruptcies += 1;
        if self.check_game_end() {
            return;
        }
        let turn_ends = self.turn_player == player;
        if let Some(a) = self.auction.as_mut() {
            a.bidders &= !(1 << player);
            a.after_landing &= !turn_ends; // the turn it belonged to is over
        }
        if turn_ends {
            self.pending = None;
            self.next_turn();
        }
        if self.auction.is_some() {
            self.settle_auction_if_done();
        } else {
            self.start_queued_auction();
        }
    }

    /// Buildings go back to the bank at half price (money to the bankrupt, then on), cash, deeds
    /// and jail cards to the creditor, who must lift or keep each mortgaged deed (10 % fee).
    fn surrender_to_player(&mut self, player: u8, to: u8) {
        for p in board::bits(self.holdings(player)) {
            let refund = self.building_cost(p) / 2;
            self.return_buildings(p);
            self.transfer(Party::Bank, Party::Player(player), refund, Reason::Building);
        }
        let cash = self.player(player).cash;
        self.transfer(Party::Player(player), Party::Player(to), cash, Reason::Bankruptcy);
        for p in board::bits(self.holdings(player)) {
            self.set_owner(p, to);
            self.log.push(Event::PropertyTransferred {
                from: Some(player),
                to: Some(to),
                square: DEEDS[p as usize].square,
            });
            if self.is_mortgaged(p) {
                self.fee_due |= 1 << p;
            }
        }
        let cards = self.player(player).jail_cards;
        self.player_mut(player).jail_cards = 0;
        self.player_mut(to).jail_cards |= cards;
    }

    /// The bank takes everything, cancels the mortgages and auctions each deed; jail cards go
    /// back under their decks.
    fn surrender_to_bank(&mut self, player: u8, reason: Reason) {
        let cash = self.player(player).cash;
        self.transfer(Party::Player(player), Party::Bank, cash, reason);
        let holdings = self.holdings(player);
        for p in board::bits(holdings) {
            self.return_buildings(p);
            self.set_owner(p, NOBODY);
            self.set_mortgaged(self.mortgaged() & !(1 << p));
            self.fee_due &= !(1 << p);
            let square = DEEDS[p as usize].square;
            self.log.push(Event::PropertyTransferred { from: Some(player), to: None, square });
        }
        if self.rules.auctions {
            self.auction_queue |= holdings;
        }
        for deck in [Deck::Chance, Deck::CommunityChest] {
            if self.player(player).jail_cards & (1 << deck as u8) != 0 {
                self.return_jail_card(player, deck);
            }
        }
    }

    /// Put the buildings of a street back into the bank's stock (no money moves).
    pub(crate) fn return_buildings(&mut self, property: u8) {
        let level = self.level(property);
        if self.rules.limited_buildings {
            if level == HOTEL {
                self.hotels_left += 1;
            } else {
                self.houses_left += level;
            }
        }
        self.set_level(property, 0);
    }

    /// A used or surrendered jail card goes back under its own deck (at the bottom).
    pub(crate) fn return_jail_card(&mut self, player: u8, deck: Deck) {
        self.player_mut(player).jail_cards &= !(1 << deck as u8);
        let card = self.jail_card_index(deck);
        self.decks[deck as usize].give_back(card, self.rules.reshuffle_decks);
    }

    /// Index of the "get out of jail" card in a deck of this edition.
    pub(crate) fn jail_card_index(&self, deck: Deck) -> u8 {
        let cards = self.edition().deck(deck);
        cards.iter().position(|c| c.effect == crate::cards::Effect::GetOutOfJail).expect("every deck has one") as u8
    }

    /// End the game if its end condition holds; returns whether it ended.
    pub(crate) fn check_game_end(&mut self) -> bool {
        let left = self.active().count();
        let by_bankruptcies =
            self.rules.end_after_bankruptcies > 0 && self.bankruptcies >= self.rules.end_after_bankruptcies;
        if left <= 1 || by_bankruptcies {
            self.finish_game();
            true
        } else {
            false
        }
    }

    /// The game is over: what is under way is wound up (`wind_up`), then the richest
    /// active player wins (the only one, if one is left). Net worth counts the debts still owed
    /// (see [`Game::net_worth`]). Ties go to more cash, then to the earlier seat in play order.
    pub(crate) fn finish_game(&mut self) {
        self.wind_up();
        let n = self.num_players;
        let starter = self.starter;
        let worths = self.net_worths_all();
        let winner = self
            .active()
            .max_by_key(|&p| (worths[p as usize], self.player(p).cash, n - (p + n - starter) % n))
            .unwrap_or(NOBODY);
        self.winner = winner;
        self.phase = Phase::GameOver;
        self.pending = None;
        self.claims.clear();
        self.offers.clear();
        self.log.push(Event::GameOver { winner });
    }

    /// Before the richest is named (a timed game ended, the round limit, the last bankruptcy of
    /// a speed game), nothing owed may escape the count: a running auction is closed at its
    /// leading bid as if everyone else had passed (the deeds the bank still had to auction stay
    /// with it), a won house or hotel is placed on its winner's cheapest street, a mortgaged deed
    /// just received is kept mortgaged and its 10 % fee charged. A debt that cash cannot cover
    /// stays on record, counted against its debtor (and for a seat it is owed to). Unclaimed rent
    /// and open offers lapse.
    fn wind_up(&mut self) {
        self.auction_queue = 0;
        if let Some(mut a) = self.auction {
            a.bidders &= if a.high_bidder == NOBODY { 0 } else { 1 << a.high_bidder };
            self.auction = Some(a);
            self.settle_auction_if_done();
        }
        if let Some(placement) = self.placing.take() {
            let hotel = placement.hotel;
            let cheapest = board::bits(self.holdings(placement.player))
                .map(|p| DEEDS[p as usize].square)
                .filter(|&s| matches!(self.check_build::<Refused>(placement.player, s), Ok(h) if h == hotel))
                .min_by_key(|&s| (DEEDS[board::property_at(s).expect("a deed") as usize].house_cost, s));
            if let Some(square) = cheapest {
                self.place_building(placement.player, square, hotel);
            }
        }
        for property in board::bits(self.fee_due) {
            self.keep_mortgaged(self.owner(property), DEEDS[property as usize].square);
        }
    }
}
