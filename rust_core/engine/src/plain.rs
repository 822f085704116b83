//! Plain steps: a turn with nothing to decide, played in one call.
//!
//! Most of a simulated game is the turn player rolling, the dice and what they force, and the
//! end of the turn: no choice at all for a player with nothing to build, lift, trade or answer.
//! [`Game::plain_step`] says when the game is at such a step (only the turn player may act, and
//! only rolling or ending the turn is in question), and [`Game::play_plain_steps`] plays them
//! one after another, with the chance events between them, for as long as the players agree
//! that the step is what they would choose. The inputs are the ones a driver asking the player
//! at each step would apply, in the same order, through the same rule functions: the state and
//! events are the step-by-step ones.

use crate::action::{Action, Input, Move};
use crate::chance::Resolver;
use crate::game::verifying;
use crate::state::{Game, Pending, Phase};

impl Game {
    /// The plain step the game waits for, if it waits for one: the turn player's roll
    /// (`Action::Roll` at the start of a move, jailed or not) or the end of its turn
    /// (`Action::EndTurn`), with no overlay (chance, auction, placement, debt, received
    /// mortgage) and no rent claim or trade offer open, so that nobody else may want to act.
    /// The move is legal (the engine's own): [`Game::apply_trusted`] may apply it.
    pub fn plain_step(&self) -> Option<Move> {
        let action = match self.phase {
            Phase::AwaitRoll => Action::Roll,
            Phase::AfterRoll => Action::EndTurn,
            _ => return None,
        };
        // Each test without a branch of its own (`&`, `|`): they are nearly always all true,
        // and one branch on them all is cheaper than seven.
        let quiet = self.pending.is_none()
            & self.auction.is_none()
            & self.placing.is_none()
            & (self.debts.len() | self.claims.len() | self.offers.len() | self.fee_due as usize == 0);
        quiet.then_some(Move { player: self.turn_player, action })
    }

    /// Apply a plain step [`Game::plain_step`] just gave: a roll or the end of the turn, legal by
    /// construction, so carried out at once ([`Game::roll`], [`Game::next_turn`], what `perform`
    /// does for them) without the check and the dispatch over every action of
    /// [`Game::apply_trusted`]. Checked as `apply_trusted` checks in debug builds and the test mode.
    #[inline]
    fn apply_plain_step(&mut self, step: Move) {
        if verifying() {
            self.verify_move(step);
        }
        self.step += 1;
        match step.action {
            Action::Roll => self.roll(),
            Action::EndTurn => self.next_turn(),
            _ => unreachable!("a plain step is a roll or the end of the turn"),
        }
    }

    /// Play plain steps ([`Game::plain_step`]) while `agree` accepts them, each roll followed by
    /// every chance event it leads to ([`Game::resolve_chance`] from `chance`), at most `budget`
    /// inputs. Stops at the first real decision, at an open rent claim or offer (the other seats
    /// may act out of turn: the caller asks them), at the end of the game, or when `agree` says
    /// the player would do something else. `agree(game, step)` is asked before each step: is
    /// `step` exactly the move its player would choose now? `each` sees the game after every
    /// input, with the input and the chance event it answered. Returns the inputs applied.
    pub fn play_plain_steps(
        &mut self,
        chance: &mut Resolver,
        budget: u32,
        mut agree: impl FnMut(&Game, Move) -> bool,
        mut each: impl FnMut(&Game, Input, Option<Pending>),
    ) -> u32 {
        let mut applied = 0;
        while applied < budget {
            let Some(step) = self.plain_step() else { break };
            if !agree(self, step) {
                break;
            }
            self.apply_plain_step(step);
            each(self, Input::Move(step), None);
            applied += 1;
            if self.pending.is_some() {
                applied += self.resolve_chance(chance, budget - applied, |game, outcome, pending| {
                    each(game, Input::Chance(outcome), Some(pending))
                });
            }
        }
        applied
    }
}

#[cfg(test)]
mod tests {
    use crate::board::PROPERTIES;
    use crate::rules::RentClaim;
    use crate::{Action, BoardId, Game, Input, Resolver, Rules};

    /// Plain steps played with a player who always agrees are the moves and outcomes of playing
    /// `Roll` and `EndTurn` one at a time, and stop at the first decision.
    #[test]
    fn plain_steps_are_the_rolls_and_ends_of_turn_one_at_a_time() {
        for seed in 0..20 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut chance = Resolver::new(seed);
            game.resolve_chance(&mut chance, 100, |_, _, _| {});
            let (mut stepped, mut stepped_chance) = (game.clone(), chance.clone());
            let mut seen = Vec::new();
            let applied = game.play_plain_steps(
                &mut chance,
                1000,
                |_, _| true,
                |game, input, _| seen.push((input, game.state_hash())),
            );
            assert_eq!(applied as usize, seen.len());
            for (input, hash) in &seen {
                match *input {
                    Input::Move(m) => {
                        assert!(matches!(m.action, Action::Roll | Action::EndTurn));
                        assert_eq!(stepped.actor(), Some(m.player));
                        stepped.apply(m).expect("a plain step is legal");
                    }
                    Input::Chance(outcome) => {
                        assert_eq!(stepped.sample_outcome(&mut stepped_chance), Some(outcome));
                        stepped.apply_chance(outcome).expect("a sampled outcome");
                    }
                }
                assert_eq!(stepped.state_hash(), *hash);
            }
            assert_eq!(stepped, game, "seed {seed}");
            // It stopped where the game is not at a plain step: a decision, or the end.
            assert!(applied > 0 && game.plain_step().is_none(), "seed {seed}: {applied} inputs");
        }
    }

    /// Plain steps stop at an open rent claim: the owner may claim out of turn, so no step is
    /// offered while one is open. Seat 0 holds every deed and rent is claimed (not collected
    /// by itself), so the first landing of another seat on a deed opens a claim.
    #[test]
    fn plain_steps_stop_at_an_open_rent_claim() {
        let rules = Rules { rent_claim: RentClaim::BeforeNextRoll, ..Rules::default() };
        let mut stopped_at_claims = 0;
        for seed in 0..20 {
            let mut game = Game::new(4, BoardId::Classic, rules).expect("a valid game");
            for property in 0..PROPERTIES as u8 {
                game.set_owner(property, 0);
            }
            let mut chance = Resolver::new(seed);
            game.resolve_chance(&mut chance, 100, |_, _, _| {});
            game.play_plain_steps(
                &mut chance,
                1000,
                |game, step| {
                    assert!(game.claims.is_empty(), "seed {seed}: {step:?} offered with a claim open");
                    true
                },
                |_, _, _| {},
            );
            if !game.claims.is_empty() {
                assert_eq!(game.plain_step(), None, "seed {seed}");
                stopped_at_claims += 1;
            }
        }
        assert!(stopped_at_claims >= 10, "{stopped_at_claims} of 20 games stopped at a claim");
    }
}
