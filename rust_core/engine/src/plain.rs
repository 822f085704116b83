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

    /// The rent claim a seat of `claim_for` (a bit per seat) makes at once, if the game is at
    /// one: exactly one claim open, no offer, its owner not the turn player and in `claim_for`,
    /// and the claim allowed now (nothing holds the game: [`Game::first_claim`], which with one
    /// claim open finds that one). It is the move a driver asking the seats out of turn after
    /// the roll would get from that owner, the only seat owed anything, if the owner claims
    /// whatever it is owed as soon as it may.
    #[inline]
    pub fn claim_step(&self, claim_for: u8) -> Option<Move> {
        if claim_for == 0 || self.claims.len() != 1 || !self.offers.is_empty() {
            return None;
        }
        let claim = &self.claims[0];
        let (owner, action) = (claim.owner, Action::ClaimRent(claim.square));
        if (claim_for >> owner) & 1 == 0 || owner == self.turn_player {
            return None;
        }
        self.claims_may_be_made(owner, action).then_some(Move { player: owner, action })
    }

    /// Make the claim [`Game::claim_step`] gives, if any, as `apply_trusted` would (checked as
    /// it checks in debug builds and the test mode), and return it. The claim is the only one
    /// open: it is taken off the list and paid ([`Game::collect_claim`]) without looking for it
    /// again as [`Game::claim_rent`] does for a claim of any list.
    #[inline]
    pub fn make_claim_step(&mut self, claim_for: u8) -> Option<Move> {
        let step = self.claim_step(claim_for)?;
        if verifying() {
            self.verify_move(step);
        }
        self.step += 1;
        let claim = self.claims.pop().expect("the only claim open");
        debug_assert_eq!((claim.owner, Action::ClaimRent(claim.square)), (step.player, step.action));
        self.collect_claim(claim);
        Some(step)
    }

    /// Play plain steps ([`Game::plain_step`]) while `agree` accepts them, each roll followed by
    /// every chance event it leads to ([`Game::resolve_chance`] from `chance`), at most `budget`
    /// inputs. Stops at the first real decision, at an open rent claim or offer (the other seats
    /// may act out of turn: the caller asks them), at the end of the game, or when `agree` says
    /// the player would do something else. `agree(game, step)` is asked before each step: is
    /// `step` exactly the move its player would choose now? `each` sees the game after every
    /// input, with the input and the chance event it answered. Returns the inputs applied.
    ///
    /// A rent claim of a seat in `claim_for` (a bit per seat: seats that claim what they are owed
    /// as soon as they may, out of turn) does not stop the steps: the claim is made for its
    /// owner ([`Game::claim_step`]) as a move of that seat, and the steps go on.
    pub fn play_plain_steps(
        &mut self,
        chance: &mut Resolver,
        budget: u32,
        claim_for: u8,
        mut agree: impl FnMut(&Game, Move) -> bool,
        mut each: impl FnMut(&Game, Input, Option<Pending>),
    ) -> u32 {
        let mut applied = 0;
        while applied < budget {
            let Some(step) = self.plain_step() else {
                // (Only when the steps stop: nearly always at a claim, in a game with claims.)
                if let Some(claim) = self.make_claim_step(claim_for) {
                    each(self, Input::Move(claim), None);
                    applied += 1;
                    continue;
                }
                break;
            };
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
                0,
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
                !1, // every seat but the owner claims at once: seat 0's claims still stop the steps
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

    /// The claims of a seat that claims at once (`claim_for`) do not stop the plain steps: they
    /// are made for it, as moves of that seat, and the steps go on; the inputs are those of one
    /// at a time, each claim the owner's first claim, the only claim open.
    #[test]
    fn plain_steps_make_the_claims_of_seats_that_claim_at_once() {
        let rules = Rules { rent_claim: RentClaim::BeforeNextRoll, ..Rules::default() };
        let mut claims = 0;
        for seed in 0..20 {
            let mut game = Game::new(4, BoardId::Classic, rules).expect("a valid game");
            for property in 0..PROPERTIES as u8 {
                game.set_owner(property, 0);
            }
            let mut chance = Resolver::new(seed);
            game.resolve_chance(&mut chance, 100, |_, _, _| {});
            let (mut stepped, mut stepped_chance) = (game.clone(), chance.clone());
            let mut seen = Vec::new();
            let applied = game.play_plain_steps(
                &mut chance,
                1000,
                1,
                |_, _| true,
                |game, input, _| seen.push((input, game.state_hash())),
            );
            for (input, hash) in &seen {
                match *input {
                    Input::Move(m) if matches!(m.action, Action::ClaimRent(_)) => {
                        assert_eq!((m.player, stepped.claims.len()), (0, 1), "seed {seed}: the only claim, seat 0's");
                        assert_ne!(stepped.turn_player, 0, "seed {seed}");
                        assert_eq!(stepped.first_claim(0), Some(m.action), "seed {seed}");
                        stepped.apply(m).expect("a claim step is legal");
                        claims += 1;
                    }
                    Input::Move(m) => {
                        assert_eq!(stepped.plain_step(), Some(m), "seed {seed}");
                        stepped.apply(m).expect("a plain step is legal");
                    }
                    Input::Chance(outcome) => {
                        assert_eq!(stepped.sample_outcome(&mut stepped_chance), Some(outcome));
                        stepped.apply_chance(outcome).expect("a sampled outcome");
                    }
                }
                assert_eq!(stepped.state_hash(), *hash, "seed {seed}");
            }
            assert_eq!(stepped, game, "seed {seed}");
            let stopped = game.plain_step().is_none() && game.claim_step(1).is_none();
            assert!(applied == 1000 || stopped, "seed {seed}: stopped at a decision");
        }
        assert!(claims >= 20, "{claims} claims made in 20 games");
    }

    /// No claim is made for the turn player (it is not asked out of turn: it claims on its turn,
    /// as it chooses): seat 0 is owed rent when its turn comes, its claim open, and the claim
    /// step gives nothing even though seat 0 claims at once.
    #[test]
    fn no_claim_step_for_the_turn_player() {
        let mut found = 0;
        for seed in 0..40 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            for property in 0..PROPERTIES as u8 {
                game.set_owner(property, 0);
            }
            let mut chance = Resolver::new(seed);
            game.resolve_chance(&mut chance, 100, |_, _, _| {});
            game.play_plain_steps(&mut chance, 1000, 0, |_, _| true, |_, _, _| {});
            if game.claims.len() != 1 || game.turn_player != 3 || game.phase != crate::state::Phase::AfterRoll {
                continue;
            }
            assert!(game.claim_step(1).is_some(), "seed {seed}: seat 3's turn, seat 0 owed");
            game.apply(crate::Move { player: 3, action: Action::EndTurn }).expect("the end of the turn");
            assert_eq!((game.turn_player, game.claims.len()), (0, 1), "seed {seed}: the claim is still open");
            assert!(game.first_claim(0).is_some(), "seed {seed}: seat 0 may claim it");
            assert_eq!(game.claim_step(1), None, "seed {seed}: not for the turn player");
            found += 1;
        }
        assert!(found >= 3, "{found} games reached seat 0's turn with its claim open");
    }
}
