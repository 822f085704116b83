//! Playing one game with bots: chance from one resolver, each seat's choices from its own.

use crate::interrupt::Interrupt;
use crate::policy::Policy;
use lanopoly_engine::state::{Pending, MAX_PLAYERS};
use lanopoly_engine::{Game, Input, Move, Resolver};

/// Seeds of one game: the chance stream and one stream per seat, all derived from `seed`, so a
/// bot can never see (or steer) the dice.
pub struct Streams {
    pub chance: Resolver,
    pub seats: Vec<Resolver>,
}

impl Streams {
    pub fn new(seed: u64, seats: u8) -> Streams {
        let (chance, seats) = Streams::seeds(seed, seats);
        Streams { chance: Resolver::new(chance), seats: seats.into_iter().map(Resolver::new).collect() }
    }

    /// The seeds of the chance stream and of each seat's stream: a game played elsewhere (from
    /// Python, one step at a time) with these seeds gets the same dice and bot choices.
    pub fn seeds(seed: u64, seats: u8) -> (u64, Vec<u64>) {
        let mut root = Resolver::new(seed);
        let chance = root.next_u64();
        (chance, (0..seats).map(|_| root.next_u64()).collect())
    }
}

/// Play until the game ends or `max_inputs` inputs have been applied. `observe` sees the game
/// after every input, with the input and the chance event that was pending before it. After each
/// input the seats not to act may move out of turn ([`interjections`]). Returns the number of
/// inputs applied.
///
/// Turns go from decision to decision: a move that leads to chance (a roll) is followed at once
/// by every chance event until a player must decide ([`Game::resolve_chance`]), as the
/// step-by-step loop would (nobody may act, nor move out of turn, at a chance node). When the
/// bots move out of turn only for rent and offers, the plain steps of a turn (a roll, the end
/// of the turn) that the turn player takes as they are ([`Policy::takes_plain_step`]) are played
/// in one call without asking its `choose` ([`Game::play_plain_steps`]). A rent claim that the
/// round of out-of-turn moves would bring as its only move (one claim open, no offer, its owner a
/// [`Policy::claims_rent_at_once`] seat) is made for the owner without asking it
/// ([`Game::make_claim_step`]), inside the plain steps or after a decision.
///
/// Sampled outcomes, and the moves of a [`Policy::trusted`] bot, are applied without the engine's
/// second check ([`Game::apply_trusted`]; debug builds and the test mode still check them). A bot
/// that returns an illegal move is a bug: it panics in debug builds, and in release an untrusted
/// bot's seat plays its first legal action instead, so a long simulation is not lost.
pub fn play(
    game: &mut Game,
    policies: &mut [Box<dyn Policy>],
    streams: &mut Streams,
    max_inputs: u32,
    observe: impl FnMut(&Game, Input, Option<Pending>),
) -> u32 {
    play_interruptible(game, policies, streams, max_inputs, &Interrupt::none(), observe)
}

/// [`play`], stopping early (the game left where it is) once `interrupt` fires; it is checked
/// between two decisions once [`Interrupt::EVERY`] inputs have been applied since the last check.
pub fn play_interruptible(
    game: &mut Game,
    policies: &mut [Box<dyn Policy>],
    streams: &mut Streams,
    max_inputs: u32,
    interrupt: &Interrupt<'_>,
    mut observe: impl FnMut(&Game, Input, Option<Pending>),
) -> u32 {
    let mut applied = 0;
    let mut next_check = Interrupt::EVERY - 1;
    // Bots that only claim rent and answer offers out of turn are not asked while nobody is
    // owed any and no offer is open.
    let only_claims_and_offers = policies.iter().all(|p| p.interjects_only_on_claims_and_offers());
    // The seats whose claims the plain steps make for them: when the only out-of-turn move of a
    // round would be such a claim, the round is not asked for.
    let claim_for = if only_claims_and_offers { claims_at_once(policies) } else { 0 };
    let mut tries = Tries::default();
    while applied < max_inputs && !game.is_over() {
        if applied >= next_check {
            next_check = applied + Interrupt::EVERY;
            if interrupt.check() {
                break;
            }
        }
        if only_claims_and_offers && tries.due(game) {
            // At most `Interrupt::EVERY` inputs, so that the interrupt is checked as often.
            let budget = (max_inputs - applied).min(Interrupt::EVERY);
            let agree = |game: &Game, step: Move| {
                let takes = policies[step.player as usize].takes_plain_step(game, step);
                tries.answered(game, step.player, takes);
                takes
            };
            let plain = game.play_plain_steps(&mut streams.chance, budget, claim_for, agree, &mut observe);
            applied += plain;
            if plain > 0 && !(game.claims.is_empty() && game.offers.is_empty()) {
                // Stopped at an open claim or offer: the seats owed or offered are asked now.
                let asked = |game: &Game, seat: u8| owed_or_offered(game, seat);
                applied += interjections_of(game, policies, streams, max_inputs - applied, asked, &mut observe);
                continue;
            }
            if applied >= max_inputs || applied >= next_check || game.is_over() {
                continue; // (the loop's checks)
            }
            // Else the game waits for a decision: asked below.
        }
        if game.is_chance_node() {
            // The start of a game: dealing deeds, rolling for who starts.
            applied += resolve_chance(game, streams, max_inputs - applied, &mut observe);
        } else {
            let Some(seat) = game.actor() else { break };
            let policy = &mut policies[seat as usize];
            let action = policy.choose(game, seat, &mut streams.seats[seat as usize]);
            let m = Move { player: seat, action };
            if policy.trusted() {
                game.apply_trusted(m);
            } else if let Err(e) = game.apply(m) {
                debug_assert!(false, "bot played an illegal move {m:?}: {e}");
                let fallback = game.legal_actions(seat)[0];
                game.apply(Move { player: seat, action: fallback }).expect("a listed action is legal");
            }
            observe(game, Input::Move(m), None);
            applied += 1;
            // A roll's dice and the chance events they lead to (cards, a utility's dice), in one
            // call: nobody may act before they are all resolved.
            if game.is_chance_node() {
                applied += resolve_chance(game, streams, max_inputs - applied, &mut observe);
            }
        }
        if !(only_claims_and_offers && game.claims.is_empty() && game.offers.is_empty()) {
            if applied < max_inputs {
                // The round's only move, when it is a claim made at once: made without the round.
                if let Some(claim) = game.make_claim_step(claim_for) {
                    observe(game, Input::Move(claim), None);
                    applied += 1;
                    continue;
                }
            }
            // Such bots are asked only when rent is owed to them or an offer made to them.
            let asked = |game: &Game, seat: u8| !only_claims_and_offers || owed_or_offered(game, seat);
            applied += interjections_of(game, policies, streams, max_inputs - applied, asked, &mut observe);
        }
    }
    applied
}

/// When `play` offers the turn player its plain steps ([`Policy::takes_plain_step`]). A player
/// that declined one has something to do (trade candidates, a group to build on) and mostly
/// still has on its next turns: it is offered none for the rest of that turn, and after `d`
/// declines in a row it skips its next `2^(d-1) - 1` turns (at most 7) before it is offered
/// again. Only speed depends on it: a step not offered is asked of `choose`, which answers the
/// same.
#[derive(Default)]
struct Tries {
    /// Per seat: the first turn (`Game::turn`) in which it is offered plain steps again.
    next: [u32; MAX_PLAYERS],
    /// Per seat: 0 after a step taken, else the turns it waits (1, 2, 4, 8) counting this one.
    wait: [u32; MAX_PLAYERS],
}

impl Tries {
    /// Is the turn player offered its plain steps now?
    fn due(&self, game: &Game) -> bool {
        game.turn >= self.next[game.turn_player as usize]
    }

    /// `seat` took (`takes`) or declined a plain step.
    fn answered(&mut self, game: &Game, seat: u8, takes: bool) {
        let s = seat as usize;
        if takes {
            self.wait[s] = 0;
        } else {
            self.wait[s] = (self.wait[s] * 2).clamp(1, 8);
            self.next[s] = game.turn + 1 + (self.wait[s] - 1) * u32::from(game.num_players);
        }
    }
}

/// The seats (a bit per seat) whose policies claim rent as soon as they may
/// ([`Policy::claims_rent_at_once`]).
fn claims_at_once(policies: &[Box<dyn Policy>]) -> u8 {
    policies.iter().enumerate().filter(|(_, p)| p.claims_rent_at_once()).fold(0, |mask, (seat, _)| mask | 1 << seat)
}

/// [`Game::resolve_chance`] from the game's chance stream, each outcome observed as an input.
fn resolve_chance(
    game: &mut Game,
    streams: &mut Streams,
    budget: u32,
    observe: &mut impl FnMut(&Game, Input, Option<Pending>),
) -> u32 {
    game.resolve_chance(&mut streams.chance, budget, |game, outcome, pending| {
        observe(game, Input::Chance(outcome), Some(pending));
    })
}

/// One round of out-of-turn moves after an input: each seat still in but the one the game waits
/// for, in seat order after that one, may move once ([`Policy::interject`]), at most `budget`
/// moves in all. Each move is observed like any input. Nothing is asked at a chance node or once
/// the game is over. A refused interjection is a bot bug: it panics in debug builds and is
/// skipped in release. Returns the number of moves applied.
///
/// One round is enough for what bots do out of turn: a claim comes from the input just applied
/// (a landing), and is claimed at once; so does an offer (a proposal), and it is answered at once.
pub fn interjections(
    game: &mut Game,
    policies: &mut [Box<dyn Policy>],
    streams: &mut Streams,
    budget: u32,
    observe: impl FnMut(&Game, Input, Option<Pending>),
) -> u32 {
    interjections_of(game, policies, streams, budget, |_, _| true, observe)
}

/// Is rent owed to `seat`, or a trade offer made to it? Only then may a bot that
/// [`Policy::interjects_only_on_claims_and_offers`] move out of turn.
pub(crate) fn owed_or_offered(game: &Game, seat: u8) -> bool {
    game.claims.iter().any(|c| c.owner == seat) || game.offers.iter().any(|o| o.to == seat)
}

/// [`interjections`], asking only the seats for which `asked` holds when their time comes.
fn interjections_of(
    game: &mut Game,
    policies: &mut [Box<dyn Policy>],
    streams: &mut Streams,
    budget: u32,
    asked: impl Fn(&Game, u8) -> bool,
    mut observe: impl FnMut(&Game, Input, Option<Pending>),
) -> u32 {
    if game.is_over() || game.is_chance_node() || budget == 0 {
        return 0;
    }
    let n = game.num_players;
    let Some(actor) = game.actor() else { return 0 };
    let mut applied = 0;
    for seat in (1..n).map(|d| (actor + d) % n) {
        if applied == budget || game.is_over() || game.is_chance_node() {
            break;
        }
        if game.player(seat).bankrupt || !asked(game, seat) {
            continue;
        }
        let Some(action) = policies[seat as usize].interject(game, seat, &mut streams.seats[seat as usize]) else {
            continue;
        };
        let m = Move { player: seat, action };
        if policies[seat as usize].trusted() {
            game.apply_trusted(m);
        } else if let Err(e) = game.apply(m) {
            debug_assert!(false, "bot interjected an illegal move {m:?}: {e}");
            continue;
        }
        observe(game, Input::Move(m), None);
        applied += 1;
    }
    applied
}
