//! Auctions: a declined deed, a bankrupt player's deeds taken by the bank, and the last houses or
//! hotels in a building shortage.
//!
//! Bidding is open: every bidder still in may bid at any time, a bid must beat the current one (the
//! first at least the opening bid) and never exceed what the bidder holds in cash; passing is final.
//! The auction ends when nobody but the leader is still in. While it runs nothing else happens.
//! A shortage auction sells one piece: its requester leads at the premium
//! `shortage_opening_bid` (0, or 10 in the Norwegian book: «med bud fra 10»), the premium is paid
//! on top of the normal building price, and the winner then places the piece.

use crate::board::{self, DEEDS};
use crate::error::{Checked, Refusal, Refused};
use crate::event::{Event, Party, Reason};
use crate::state::{Auction, Game, Lot, Placement, NOBODY};
use crate::{deny, ensure};

impl Game {
    pub(crate) fn start_property_auction(&mut self, property: u8, first: u8, after_landing: bool) {
        self.log.push(Event::AuctionStarted { square: DEEDS[property as usize].square });
        self.auction = Some(Auction {
            lot: Lot::Property(property),
            high_bid: 0,
            high_bidder: NOBODY,
            bidders: self.active_mask(),
            first,
            after_landing,
        });
        self.settle_auction_if_done();
    }

    pub(crate) fn start_shortage_auction(&mut self, requester: u8, square: u8, hotel: bool, able: u8) {
        self.log.push(Event::ShortageAuctionStarted { hotel });
        self.auction = Some(Auction {
            lot: Lot::Building { hotel, requester, square },
            high_bid: self.rules.shortage_opening_bid,
            high_bidder: requester,
            bidders: able,
            first: requester,
            after_landing: false,
        });
    }

    /// Start auctioning the next deed the bank took in a bankruptcy, if any.
    pub(crate) fn start_queued_auction(&mut self) {
        if self.auction.is_some() || self.auction_queue == 0 || self.is_over() {
            return;
        }
        let property = self.auction_queue.trailing_zeros() as u8;
        self.auction_queue &= !(1 << property);
        self.start_property_auction(property, self.turn_player, false);
    }

    /// Lowest bid `p` may make now, and the most it can afford.
    pub fn bid_range(&self, p: u8) -> Option<(u32, u32)> {
        let a = self.auction.as_ref()?;
        if p >= self.num_players || a.bidders & (1 << p) == 0 {
            return None;
        }
        let min = if a.high_bidder == NOBODY || a.high_bid == 0 {
            self.rules.opening_bid.max(a.high_bid + 1)
        } else {
            a.high_bid + 1
        };
        let cash = self.player(p).cash;
        let max = match a.lot {
            Lot::Property(_) => cash,
            Lot::Building { hotel, .. } => cash.saturating_sub(self.cheapest_build(p, hotel)?),
        };
        Some((min, max))
    }

    pub(crate) fn check_bid<R: Refusal>(&self, p: u8, amount: u32) -> Checked<(), R> {
        let Some(a) = &self.auction else { deny!("there is no auction") };
        ensure!(a.bidders & (1 << p) != 0, "you have left this auction");
        ensure!(a.high_bidder != p, "you already lead this auction with {amount}", amount = a.high_bid);
        let Some((min, max)) = self.bid_range(p) else { deny!("you cannot take part in this auction") };
        ensure!(amount >= min, "the lowest bid now is {min}", min = min);
        ensure!(amount <= max, "you can bid at most {max} (your cash)", max = max);
        Ok(())
    }

    pub(crate) fn bid(&mut self, p: u8, amount: u32) {
        let a = self.auction.as_mut().expect("checked");
        a.high_bid = amount;
        a.high_bidder = p;
        self.log.push(Event::Bid { player: p, amount });
        self.settle_auction_if_done();
    }

    pub(crate) fn check_pass<R: Refusal>(&self, p: u8) -> Checked<(), R> {
        let Some(a) = &self.auction else { deny!("there is no auction") };
        ensure!(a.bidders & (1 << p) != 0, "you have already left this auction");
        ensure!(a.high_bidder != p, "you lead this auction: your bid stands");
        Ok(())
    }

    pub(crate) fn pass(&mut self, p: u8) {
        self.auction.as_mut().expect("checked").bidders &= !(1 << p);
        self.log.push(Event::PassedAuction { player: p });
        self.settle_auction_if_done();
    }

    /// End the auction once nobody but the leader is still in.
    pub(crate) fn settle_auction_if_done(&mut self) {
        let a = self.auction.expect("an auction is running");
        let others = if a.high_bidder == NOBODY { a.bidders } else { a.bidders & !(1 << a.high_bidder) };
        if others != 0 {
            return;
        }
        self.auction = None;
        match a.lot {
            Lot::Property(property) => self.settle_property(a, property),
            Lot::Building { hotel, requester, square } => {
                let winner = a.high_bidder;
                self.log.push(Event::ShortageAuctionWon { player: winner, hotel, price: a.high_bid });
                self.transfer(Party::Player(winner), Party::Bank, a.high_bid, Reason::Auction);
                // The asker places on the street it asked for, if it still can after outbidding
                // the others (its limit was its cheapest street); otherwise it chooses, like any
                // winner.
                let on_its_street = matches!(self.check_build::<Refused>(winner, square), Ok(h) if h == hotel);
                if winner == requester && on_its_street {
                    self.place_building(winner, square, hotel);
                } else {
                    self.placing = Some(Placement { player: winner, hotel });
                }
            }
        }
        self.start_queued_auction();
    }

    fn settle_property(&mut self, a: Auction, property: u8) {
        let square = DEEDS[property as usize].square;
        if a.high_bidder == NOBODY {
            self.log.push(Event::AuctionUnsold { square });
        } else {
            let winner = a.high_bidder;
            self.transfer(Party::Player(winner), Party::Bank, a.high_bid, Reason::Auction);
            self.set_owner(property, winner);
            self.log.push(Event::AuctionWon { player: winner, square, price: a.high_bid });
        }
        if a.after_landing {
            self.finish_move();
        }
    }

    /// The winner of a shortage auction places its piece on one of its streets.
    pub(crate) fn check_place<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let placement = self.placing.expect("only called while placing");
        ensure!(placement.player == p, "another player is placing a building");
        let hotel = self.check_build::<R>(p, square)?;
        if hotel != placement.hotel {
            match placement.hotel {
                true => deny!("you won a hotel"),
                false => deny!("you won a house"),
            }
        }
        Ok(())
    }

    pub(crate) fn place_won_building(&mut self, p: u8, square: u8) {
        let hotel = self.placing.take().expect("checked").hotel;
        self.place_building(p, square, hotel);
    }

    /// Deeds in the bankruptcy queue, by square, for display.
    pub fn queued_auction_squares(&self) -> impl Iterator<Item = u8> {
        board::bits(self.auction_queue).map(|p| DEEDS[p as usize].square)
    }
}
