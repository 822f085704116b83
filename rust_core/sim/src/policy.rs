//! What a bot is: something that picks a move for the seat the game waits for, and may move out
//! of turn.

use lanopoly_engine::{Action, Game, Move, Resolver};

/// A player that chooses moves through the same API as people: it sees the game (never the
/// future of chance: the resolver it gets is its own, for its own random choices) and returns
/// one move for `seat`, which must be legal (`game.check` accepts it).
pub trait Policy: Send + Sync {
    /// A short name for reports ("random", "heuristic", ...).
    fn name(&self) -> &str;

    /// Choose a move for `seat`, the seat the game waits for now.
    fn choose(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Action;

    /// A move of `seat` out of turn, while the game waits for another seat, or `None` to stay
    /// quiet. Drivers ask it once after every input for each seat still in that is not the one
    /// to act (see [`crate::play::interjections`]). Rent must be claimed before the next rolls
    /// (the printed books), while the payer's turn goes on: the built-in bots claim here what is
    /// owed to them ([`crate::bots::owed_claim`]), and answer a trade offer made to them at once
    /// (as they would on their turn), so that whoever offered hears back before the game moves
    /// on. By default a policy never moves out of turn.
    fn interject(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Option<Action> {
        let _ = (game, seat, rng);
        None
    }

    /// Would [`Policy::choose`] answer exactly `step` now, a plain step of the seat's turn
    /// ([`Game::plain_step`]: its roll, or the end of its turn, with nothing else open), and
    /// would asking it leave the policy as this call leaves it, without a draw from its resolver?
    /// Then drivers apply `step` without asking `choose`, and a turn with nothing to decide is
    /// played in one call ([`Game::play_plain_steps`]). Meant to be much cheaper than `choose`
    /// (a verdict the policy keeps, such as "nothing to build, lift, trade or answer"). By
    /// default `false`: `choose` is asked at every step.
    fn takes_plain_step(&mut self, game: &Game, step: Move) -> bool {
        let _ = (game, step);
        false
    }

    /// Is every move this policy returns (in turn and out of turn) legal on the game it was
    /// given: taken from the engine's own list, or accepted by `Game::is_legal`, or built to the
    /// rules? The drivers (`play`, `VecGame`'s opponents) then apply it with
    /// `Game::apply_trusted`, skipping the engine's second check; debug builds and the test mode
    /// (`lanopoly_engine::verify_trusted`) still check every such move. By default a policy is
    /// not trusted: its moves are checked, and a refused one is replaced by a legal one.
    fn trusted(&self) -> bool {
        false
    }

    /// Does [`Policy::interject`] only ever move while rent is owed to the seat or a trade offer
    /// is made to it (claiming that rent, answering that offer), and otherwise return `None`
    /// without drawing from its resolver? Then drivers ask it only then: not at all while no rent
    /// is owed to anyone and no offer is open, which is after most inputs, and of the seats only
    /// the owners of the rent and the seats offered to. By default a policy may interject
    /// anything.
    fn interjects_only_on_claims_and_offers(&self) -> bool {
        false
    }

    /// Does [`Policy::interject`] claim rent owed to the seat as soon as it may: whenever
    /// [`crate::bots::owed_claim`] gives a claim, return that claim, without a draw from its
    /// resolver and leaving the policy as it was? Then drivers may make such a claim for the seat
    /// without asking it ([`Game::play_plain_steps`]' `claim_for`), when it is the only move the
    /// round of out-of-turn moves would bring (one claim open, no offer). By default `false`.
    ///
    /// [`Game::play_plain_steps`]: lanopoly_engine::Game::play_plain_steps
    fn claims_rent_at_once(&self) -> bool {
        false
    }

    /// A copy of this bot as it is now, for a bot that can be copied (the built-in bots): a
    /// simulation builds its bots from their specs once and copies them for each game, which
    /// plays exactly as bots freshly built from the specs would.
    fn copy(&self) -> Option<Box<dyn Policy>> {
        None
    }

    /// The bot's complete state (parameters and memory) as bytes, so that a game in progress
    /// can be saved and resumed with the same choices (pickling); `None` if it cannot be saved.
    fn save(&self) -> Option<Vec<u8>> {
        None
    }

    /// Take the state `save` gave for a bot of the same kind; refused bytes change nothing.
    fn load(&mut self, state: &[u8]) -> Result<(), String> {
        let _ = state;
        Err(format!("the {} bot cannot be restored", self.name()))
    }
}

/// [`Policy::save`] and [`Policy::load`] for a bot that is plain data (serde, postcard).
macro_rules! saved_as_data {
    () => {
        fn save(&self) -> Option<Vec<u8>> {
            postcard::to_allocvec(self).ok()
        }

        fn load(&mut self, state: &[u8]) -> Result<(), String> {
            *self = postcard::from_bytes(state).map_err(|e| format!("a malformed {} bot state: {e}", self.name()))?;
            Ok(())
        }
    };
}

pub(crate) use saved_as_data;
