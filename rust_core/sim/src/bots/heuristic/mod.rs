//! The heuristic bot: a solid player built from the usual advice of the game.
//!
//! It buys sensibly, completes colour groups by trading at a fair price, builds toward three
//! houses, bids up to its valuation in auctions, stays in jail late in the game, raises money
//! with the least loss and claims every rent owed to it, out of turn too. It decides from the visible state only: it never samples or inspects
//! anything that predicts chance (its own resolver is unused: every choice is deterministic).
//!
//! Every move is legal by construction or asked of the engine ([`Game::is_legal`]) before it is
//! returned; debug builds check the final move again and panic on a bot bug, release builds
//! leave that to whoever applies it (`Game::apply` refuses an illegal move, and the drivers then
//! play the first legal action).
//!
//! Reading order: [`HeuristicBot::choose`] (here) dispatches on who the game waits for and why;
//! each situation has its own file: `overlays` (auctions, debts, received mortgages), `turn` (the
//! bot's own turn), `trades` (offers and their value); `reading` has the board-reading helpers
//! they share (danger, rents, groups).

use crate::policy::Policy;
use lanopoly_engine::board::{self, Kind, COLOUR_GROUPS, DEEDS, GROUP_MASKS, PROPERTIES, RAILWAY_MASK, UTILITY_MASK};
use lanopoly_engine::state::Lot;
use lanopoly_engine::{Action, Bundle, Game, Move, Phase, Resolver, HOTEL, NOBODY};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

mod overlays;
mod picture;
mod reading;
mod trades;
mod turn;

use overlays::*;
use picture::*;
use reading::*;

/// What to do when the turn starts in jail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
/// and the group it sold down this turn. The danger caches and the picture of the owners are
/// not saved (`save`): they are read again from the game, the same.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
    /// cost. A [`Memo`] because the deciding helpers see the bot through `&self`.
    #[serde(skip)]
    danger_now: Memo,
    /// The last danger computed and the board it was computed on (its deeds version): rolls,
    /// bids and ends of turn leave the board as it was, and reuse it.
    #[serde(skip)]
    danger_seen: Option<(DangerKey, u32)>,
    /// The bot's picture of the owners (its deeds, whole groups, trade candidates), read again
    /// only when they change.
    #[serde(skip)]
    picture: Option<Picture>,
}

/// A number worked out at most once per decision, through `&self`. A relaxed atomic (one thread
/// decides at a time; it keeps the bot `Sync`): `OnceLock`'s synchronisation cost about 3 % of a
/// heuristic turn. 0 is "not yet"; a value is stored with bit 32 set.
#[derive(Debug, Default)]
struct Memo(AtomicU64);

impl Memo {
    fn get(&self) -> Option<u32> {
        let x = self.0.load(Relaxed);
        (x != 0).then_some(x as u32)
    }

    fn get_or_init(&self, f: impl FnOnce() -> u32) -> u32 {
        self.get().unwrap_or_else(|| {
            let value = f();
            self.0.store(1 << 32 | value as u64, Relaxed);
            value
        })
    }
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo(AtomicU64::new(self.0.load(Relaxed)))
    }
}

/// Everything [`danger`] reads: whose danger, who is still in, and the version of who owns
/// what, the buildings and the mortgages ([`Game::deeds_version`]: equal
/// versions, equal contents, in any game of the process). Equal keys give equal dangers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DangerKey {
    seat: u8,
    active: u8,
    deeds: u64,
}

impl DangerKey {
    fn of(game: &Game, seat: u8) -> DangerKey {
        DangerKey { seat, active: game.active_mask(), deeds: game.deeds_version() }
    }

    /// `*self == DangerKey::of(game, seat)`, who is still in worked out only when the seat and
    /// the deeds' version are the same (about half the calls in `full` find a new version).
    fn is_of(&self, game: &Game, seat: u8) -> bool {
        self.seat == seat && self.deeds == game.deeds_version() && self.active == game.active_mask()
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
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

    crate::policy::saved_as_data!();

    /// Every answer is legal by construction or asked of the engine (see the module docs).
    fn trusted(&self) -> bool {
        true
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        true
    }

    /// `interject` claims first (`owed_claim`), reading nothing of its own.
    fn claims_rent_at_once(&self) -> bool {
        true
    }

    fn copy(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    /// The game waits for `me`: find out why, and answer that situation.
    fn choose(&mut self, game: &Game, me: u8, _rng: &mut Resolver) -> Action {
        self.remember_game(game);
        self.memory.deciding = Some((game.step, me));
        self.memory.danger_now = Memo::default();
        Picture::refresh(&mut self.memory.picture, game, me, self.trade_willingness != 0);
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
        if let Some(value) = self.memory.danger_now.get() {
            self.memory.danger_seen = Some((DangerKey::of(game, me), value));
        }
        // The danger (and the picture) are known to be this board's during the decision only.
        self.memory.deciding = None;
        // Each situation's answer is legal by construction or already asked of the engine, and
        // whoever applies it checks it again (`Game::apply`): a second check here cost about 8 %
        // of a heuristic turn. Debug builds (every test) still check, so a bot bug panics there.
        let action = action.unwrap_or_else(|| fallback(game, me));
        debug_assert!(legal(game, me, action), "the heuristic bot chose an illegal move {action:?} for seat {me}");
        action
    }

    /// A roll or the end of the turn with no housekeeping possible (the picture's fast path),
    /// not in jail: see [`HeuristicBot::plain_step_is_chosen`]. Debug builds ask `choose` of a
    /// copy of the bot and panic if it would have answered otherwise.
    fn takes_plain_step(&mut self, game: &Game, step: Move) -> bool {
        let takes = self.plain_step_is_chosen(game, step);
        debug_assert!(
            !takes || self.clone().choose(game, step.player, &mut Resolver::new(0)) == step.action,
            "the heuristic bot took the plain step {step:?} where it would choose otherwise"
        );
        takes
    }

    /// Out of turn: claim the rent owed to the bot before the window closes, else answer an
    /// offer made to it as on its turn ([`HeuristicBot::answer_offer_out_of_turn`]): whoever
    /// offered hears back at once.
    fn interject(&mut self, game: &Game, me: u8, _rng: &mut Resolver) -> Option<Action> {
        crate::bots::owed_claim(game, me).or_else(|| self.answer_offer_out_of_turn(game, me))
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

#[cfg(test)]
mod cache_tests;
