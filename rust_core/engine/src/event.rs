//! Events: what an input made happen, for logs, user interfaces and tests.
//!
//! Recording is optional: batch simulation turns it off and pays nothing for it.

use crate::action::{Bundle, Offer};
use crate::board::Deck;
use serde::{Deserialize, Serialize};

/// Who pays or is paid. The bank never runs out of money.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    Bank,
    /// The Free Parking jackpot (option), fed by taxes and fines.
    Jackpot,
    Player(u8),
}

/// Why money moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    StartingCash,
    Salary,
    Purchase,
    Auction,
    Rent,
    Tax,
    Card,
    JailFine,
    Building,
    Mortgage,
    Unmortgage,
    TransferFee,
    Trade,
    Bankruptcy,
    Resignation,
    Jackpot,
}

/// How a player left jail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JailExit {
    Fine,
    Card,
    Double,
    /// Third failed roll: fine paid, move by that roll.
    ThirdFailure,
}

/// One thing that happened. Serialized as a flat map with a `type` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Money moved: every unit has a source and a sink.
    Payment {
        from: Party,
        to: Party,
        amount: u32,
        reason: Reason,
    },
    OrderRoll {
        player: u8,
        total: u8,
    },
    FirstPlayer {
        player: u8,
    },
    DeedDealt {
        player: u8,
        square: u8,
    },
    Rolled {
        player: u8,
        dice: (u8, u8),
    },
    Moved {
        player: u8,
        from: u8,
        to: u8,
    },
    PassedGo {
        player: u8,
    },
    CardDrawn {
        player: u8,
        deck: Deck,
        card: u8,
    },
    WentToJail {
        player: u8,
    },
    LeftJail {
        player: u8,
        how: JailExit,
    },
    StayedInJail {
        player: u8,
        attempts: u8,
    },
    Bought {
        player: u8,
        square: u8,
    },
    Declined {
        player: u8,
        square: u8,
    },
    AuctionStarted {
        square: u8,
    },
    ShortageAuctionStarted {
        hotel: bool,
    },
    Bid {
        player: u8,
        amount: u32,
    },
    PassedAuction {
        player: u8,
    },
    AuctionWon {
        player: u8,
        square: u8,
        price: u32,
    },
    ShortageAuctionWon {
        player: u8,
        hotel: bool,
        price: u32,
    },
    AuctionUnsold {
        square: u8,
    },
    Built {
        player: u8,
        square: u8,
        level: u8,
    },
    SoldBuilding {
        player: u8,
        square: u8,
        level: u8,
    },
    Mortgaged {
        player: u8,
        square: u8,
    },
    Unmortgaged {
        player: u8,
        square: u8,
    },
    KeptMortgaged {
        player: u8,
        square: u8,
    },
    RentDue {
        owner: u8,
        payer: u8,
        square: u8,
        amount: u32,
    },
    RentLapsed {
        owner: u8,
        payer: u8,
        square: u8,
    },
    DebtOwed {
        debtor: u8,
        creditor: Party,
        amount: u32,
    },
    TradeProposed {
        offer: Offer,
    },
    TradeAccepted {
        from: u8,
        to: u8,
        give: Bundle,
        get: Bundle,
    },
    TradeRejected {
        from: u8,
        to: u8,
    },
    TradeCancelled {
        from: u8,
    },
    PropertyTransferred {
        from: Option<u8>,
        to: Option<u8>,
        square: u8,
    },
    Bankrupt {
        player: u8,
        creditor: Party,
    },
    /// The player left the game of its own will (or on the others' vote); the bank took everything.
    Resigned {
        player: u8,
    },
    TurnEnded {
        player: u8,
    },
    TurnStarted {
        player: u8,
        round: u32,
    },
    GameOver {
        winner: u8,
    },
}

/// Where events go while an input is applied: a buffer, or nowhere.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    recording: bool,
    events: Vec<Event>,
}

impl EventLog {
    pub fn recording() -> Self {
        EventLog { recording: true, events: Vec::new() }
    }

    #[inline]
    pub fn push(&mut self, event: Event) {
        if self.recording {
            self.events.push(event);
        }
    }

    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
        if !on {
            self.events.clear();
        }
    }

    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// Take the events recorded since the last call.
    pub fn drain(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The events recorded since the last drain, without taking them.
    pub fn pending(&self) -> &[Event] {
        &self.events
    }

    pub fn truncate(&mut self, len: usize) {
        self.events.truncate(len);
    }
}

impl PartialEq for EventLog {
    /// Two games are equal whatever they recorded.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for EventLog {}
