//! Trades between two players: unbuilt deeds, cash and jail cards, at any agreed price.
//!
//! Each player has at most one open offer (a new one replaces it). An offer is checked when made
//! and again when accepted, since the state may have changed in between. A deed of a group with
//! buildings cannot change hands; buildings never do. A mortgaged deed received makes its new
//! owner lift the mortgage or pay the 10 % fee before play goes on.

use crate::action::{Bundle, Offer};
use crate::board::{self, Deck, DEEDS, PROPERTIES};
use crate::error::{Checked, Refusal};
use crate::event::{Event, Party, Reason};
use crate::state::Game;
use crate::{deny, ensure};

impl Game {
    /// Can `p` hand over this bundle now?
    fn check_bundle<R: Refusal>(&self, p: u8, bundle: &Bundle) -> Checked<(), R> {
        ensure!(bundle.properties >> PROPERTIES == 0, "there are only {n} deeds", n = PROPERTIES);
        // The first deed (in board order) not owned by `p`: its owner read deed by deed (a
        // bundle has a few deeds, often none; all the holdings of `p` would cost more).
        if let Some(missing) = board::bits(bundle.properties).find(|&q| self.owner(q) != p) {
            let square = DEEDS[missing as usize].square;
            deny!("seat {seat} does not own {square}", seat = p, square = self.square_name(square));
        }
        for property in board::bits(bundle.properties) {
            let name = || self.square_name(DEEDS[property as usize].square);
            ensure!(
                !self.group_has_buildings(property),
                "the group of {square} has buildings: sell them before trading it",
                square = name()
            );
            ensure!(self.fee_due & (1 << property) == 0, "{square} awaits its lift-or-keep choice", square = name());
        }
        let cash = self.player(p).cash;
        ensure!(bundle.cash <= cash, "seat {seat} has only {cash} in cash", seat = p, cash = cash);
        ensure!(
            bundle.jail_cards & !self.player(p).jail_cards == 0,
            "seat {seat} does not hold that jail card",
            seat = p
        );
        Ok(())
    }

    pub(crate) fn check_offer<R: Refusal>(&self, offer: &Offer) -> Checked<(), R> {
        ensure!(offer.to < self.num_players && offer.to != offer.from, "trade with another seat in the game");
        ensure!(!self.player(offer.to).bankrupt, "that player is bankrupt");
        ensure!(!(offer.give.is_empty() && offer.get.is_empty()), "an offer must give or ask something");
        self.check_bundle::<R>(offer.from, &offer.give)?;
        self.check_bundle::<R>(offer.to, &offer.get)?;
        Ok(())
    }

    pub(crate) fn propose(&mut self, offer: Offer) {
        self.offers.retain(|o| o.from != offer.from);
        self.offers.push(offer);
        self.log.push(Event::TradeProposed { offer });
    }

    fn offer_index(&self, from: u8, to: u8) -> Option<usize> {
        self.offers.iter().position(|o| o.from == from && o.to == to)
    }

    pub(crate) fn check_accept<R: Refusal>(&self, p: u8, from: u8) -> Checked<(), R> {
        let Some(i) = self.offer_index(from, p) else { deny!("seat {seat} has no open offer to you", seat = from) };
        let offer = &self.offers[i];
        self.check_offer::<R>(offer).map_err(|e| e.wrap("the offer no longer holds: {cause}"))
    }

    pub(crate) fn accept(&mut self, p: u8, from: u8) {
        let offer = self.offers.remove(self.offer_index(from, p).expect("checked"));
        self.log.push(Event::TradeAccepted { from, to: p, give: offer.give, get: offer.get });
        self.hand_over(from, p, &offer.give);
        self.hand_over(p, from, &offer.get);
    }

    fn hand_over(&mut self, from: u8, to: u8, bundle: &Bundle) {
        self.transfer(Party::Player(from), Party::Player(to), bundle.cash, Reason::Trade);
        for property in board::bits(bundle.properties) {
            self.set_owner(property, to);
            if self.is_mortgaged(property) {
                self.fee_due |= 1 << property;
            }
            let square = DEEDS[property as usize].square;
            self.log.push(Event::PropertyTransferred { from: Some(from), to: Some(to), square });
        }
        for deck in [Deck::Chance, Deck::CommunityChest] {
            let bit = 1 << deck as u8;
            if bundle.jail_cards & bit != 0 {
                self.player_mut(from).jail_cards &= !bit;
                self.player_mut(to).jail_cards |= bit;
            }
        }
    }

    pub(crate) fn check_reject<R: Refusal>(&self, p: u8, from: u8) -> Checked<(), R> {
        ensure!(self.offer_index(from, p).is_some(), "seat {seat} has no open offer to you", seat = from);
        Ok(())
    }

    pub(crate) fn reject(&mut self, p: u8, from: u8) {
        self.offers.remove(self.offer_index(from, p).expect("checked"));
        self.log.push(Event::TradeRejected { from, to: p });
    }

    pub(crate) fn check_cancel<R: Refusal>(&self, p: u8) -> Checked<(), R> {
        ensure!(self.offers.iter().any(|o| o.from == p), "you have no open offer");
        Ok(())
    }

    pub(crate) fn cancel(&mut self, p: u8) {
        self.offers.retain(|o| o.from != p);
        self.log.push(Event::TradeCancelled { from: p });
    }
}
