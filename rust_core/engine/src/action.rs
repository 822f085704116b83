//! What players can do and what chance can bring: every input of the game is one of these.

use serde::{Deserialize, Serialize};

/// What a player offers or asks for in a trade: unbuilt title deeds, cash and jail cards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bundle {
    /// Bit mask over property indices (0..28).
    pub properties: u32,
    pub cash: u32,
    /// Bit 0: the Chance "get out of jail" card, bit 1: the Community Chest one.
    pub jail_cards: u8,
}

impl Bundle {
    pub fn is_empty(&self) -> bool {
        self.properties == 0 && self.cash == 0 && self.jail_cards == 0
    }
}

/// A trade proposal from one player to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Offer {
    pub from: u8,
    pub to: u8,
    /// What `from` gives.
    pub give: Bundle,
    /// What `from` asks of `to`.
    pub get: Bundle,
}

/// A decision of one player. Squares are board squares 0..40.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Roll the dice (in jail: try for a double).
    Roll,
    /// In jail, before rolling: pay the fine.
    PayJailFine,
    /// In jail, before rolling: use a "get out of jail" card.
    UseJailCard,
    /// Buy the unowned property just landed on at its printed price.
    Buy,
    /// Do not buy it (it is auctioned if auctions are on).
    Decline,
    /// Bid this amount in the running auction.
    Bid(u32),
    /// Leave the running auction.
    Pass,
    /// Add a house (or the hotel) to a street.
    Build(u8),
    /// Sell one level of building on a street back to the bank at half price.
    Sell(u8),
    /// Sell the buildings of a colour group down to the given levels (street order, 5 = hotel),
    /// at once: the way to break down hotels when the bank lacks houses.
    SellDown {
        group: u8,
        levels: [u8; 3],
    },
    Mortgage(u8),
    /// Lift a mortgage (value + 10 %).
    Unmortgage(u8),
    /// Keep a mortgaged property just received mortgaged, paying the 10 % fee.
    KeepMortgaged(u8),
    ProposeTrade {
        to: u8,
        give: Bundle,
        get: Bundle,
    },
    /// Accept the open offer that `from` made to this player.
    AcceptTrade {
        from: u8,
    },
    RejectTrade {
        from: u8,
    },
    /// Withdraw this player's own open offer.
    CancelTrade,
    /// Pay the oldest debt of this player in full.
    PayDebt,
    /// Give up: only when even selling and mortgaging everything cannot cover the debts.
    DeclareBankruptcy,
    /// Claim rent owed for landing on this player's property (option "rent must be claimed").
    ClaimRent(u8),
    EndTurn,
    /// End a timed game now: the richest player wins (only with the `timed` option).
    EndGame,
    /// Leave the game, at any time but a chance event: the bank takes everything, as in a
    /// bankruptcy to the bank. Never listed by `legal_actions` (bots and agents must not draw it
    /// by chance); a LAN game plays it for a peer the others voted out.
    Resign,
}

/// An action together with the seat that takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    pub player: u8,
    pub action: Action,
}

/// The result of a chance event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// Two dice, smaller first (the 21 unordered outcomes).
    Dice(u8, u8),
    /// A card of the deck being drawn from, by its index in the edition's table.
    Card(u8),
    /// A title deed dealt at the start (speed and timed variants), by property index.
    Deed(u8),
}

/// Any input to the game: a player's move or a chance outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Input {
    Move(Move),
    Chance(Outcome),
}
