//! Many games stepped at once for learning agents: integer actions in, observations, masks and
//! rewards out, chance sampled inside, finished games reset on the spot.
//!
//! Each game is stepped by the seat it waits for (any seat: all seats are the agent's, as in
//! self-play). After the agent's action, chance events are resolved with the game's own seeded
//! stream until a seat must decide again. Rent owed to a seat that is not to act is claimed for it
//! at once (by the environment for the agent's seats, by the bots for theirs): under the printed
//! books' rules rent must be claimed in time, and a claim is never a choice worth learning. A
//! game that ends (or reaches `max_steps` agent actions) reports `terminated` (or `truncated`)
//! with its rewards and is replaced by a fresh game in the same step, whose first observation is
//! returned ("same-step" auto-reset).
//!
//! With a learner seat, the bots of the other seats play inside the step, and two rules keep a
//! step short: the learner's game ends for it once it is bankrupt (its loss is certain; the
//! others' game is not played out), and a game is cut (`truncated`) once it has applied
//! `max_inputs` inputs, the limit `simulate` uses (random bots often never end a game). Long
//! loops also check an [`Interrupt`] (Ctrl-C from Python).

use crate::action_space::{self, decode, Decoded, Draft};
use crate::bots;
use crate::interrupt::Interrupt;
use crate::observation;
use crate::play::owed_or_offered;
use crate::policy::Policy;
use crate::pool::{panic_message, Pool};
use lanopoly_engine::state::MAX_PLAYERS;
use lanopoly_engine::{BoardId, Game, Input, Move, Resolver, Rules};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::PoisonError;

mod chunks;
mod save;

pub use chunks::CHUNK;
use chunks::{split, Part, Shares};
pub use save::SAVE_FORMAT;

/// The outputs of one step for all games, row-major (game index first).
pub struct StepOut<'a> {
    /// `n * observation::SIZE`
    pub obs: &'a mut [f32],
    /// `n * action_space::SIZE`
    pub mask: &'a mut [bool],
    /// `n`: the seat each game waits for now.
    pub player: &'a mut [i8],
    /// `n * players`: zero, except when a game ends: +1 to the winner, -1/(players-1) to the others.
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    pub truncated: &'a mut [bool],
}

/// Owned output buffers for [`StepOut`], sized for `n` games of `players` seats.
pub struct StepBuffers {
    pub obs: Vec<f32>,
    pub mask: Vec<bool>,
    pub player: Vec<i8>,
    pub rewards: Vec<f32>,
    pub terminated: Vec<bool>,
    pub truncated: Vec<bool>,
}

impl StepBuffers {
    pub fn new(n: usize, players: usize) -> Self {
        StepBuffers {
            obs: vec![0.0; n * observation::SIZE],
            mask: vec![false; n * action_space::SIZE],
            player: vec![0; n],
            rewards: vec![0.0; n * players],
            terminated: vec![false; n],
            truncated: vec![false; n],
        }
    }

    /// Borrow the buffers as the outputs of a step.
    pub fn view(&mut self) -> StepOut<'_> {
        StepOut {
            obs: &mut self.obs,
            mask: &mut self.mask,
            player: &mut self.player,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
        }
    }
}
/// One game of the batch.
struct Slot {
    game: Game,
    drafts: [Draft; MAX_PLAYERS],
    chance: Resolver,
    /// The opponents' bots and their own random streams (empty without opponents).
    bots: Vec<Option<(Box<dyn Policy>, Resolver)>>,
    steps: u32,
    episode: u64,
    /// What the last row written computed from the game alone, for the next row if the game has
    /// not moved since: a step that only edits a draft changes nothing it depends on.
    kept: Option<Kept>,
}

/// The parts of a row that depend on the game and the seat, not on the seat's draft.
struct Kept {
    /// The game step and the seat they are for.
    step: u32,
    seat: u8,
    /// The moves part of the mask (see [`action_space::moves_mask`]).
    moves: [bool; action_space::DRAFT_START],
    /// Every seat's net worth, for the observation.
    worths: [u64; MAX_PLAYERS],
}

/// What makes a fresh game of the batch: the settings every slot shares.
struct Setup {
    players: u8,
    board: BoardId,
    rules: Rules,
    seed: u64,
    /// With opponents: the seat the agent plays, and a bot name for every other seat.
    learner: Option<u8>,
    opponents: Vec<String>,
    /// Inputs (moves and chance outcomes) after which a game is cut.
    max_inputs: u32,
}

impl Setup {
    /// A new game for slot `index`, its `episode`-th, advanced to the first decision (or as
    /// far as it got when `interrupt` fired).
    fn fresh(&self, index: u64, episode: u64, interrupt: &Interrupt<'_>) -> Result<Slot, Stopped> {
        let seed = crate::simulate::game_seed(self.seed ^ episode.wrapping_mul(0x9E37_79B9_7F4A_7C15), index);
        let mut root = Resolver::new(seed);
        let bots = (0..self.players)
            .map(|seat| {
                let stream = Resolver::new(root.next_u64());
                match self.learner {
                    Some(l) if l != seat => {
                        Some((bots::from_spec(&self.opponents[seat as usize]).expect("checked in new"), stream))
                    }
                    _ => None,
                }
            })
            .collect();
        let mut slot = Slot {
            game: Game::new(self.players, self.board, self.rules).expect("checked in new"),
            drafts: [Draft::closed(); MAX_PLAYERS],
            chance: Resolver::new(root.next_u64()),
            bots,
            steps: 0,
            episode,
            kept: None,
        };
        advance(&mut slot, self, interrupt)?;
        Ok(slot)
    }

    /// Is the game over for the agent: ended, or (with a learner) the learner bankrupt?
    fn over(&self, game: &Game) -> bool {
        game.is_over() || self.learner.is_some_and(|l| game.player(l).bankrupt)
    }
}

/// A long loop stopped because its [`Interrupt`] fired.
#[derive(Debug)]
pub struct Stopped;

/// Why a step was stopped part-way (the batch is then poisoned).
pub const INTERRUPTED: &str = "a step was interrupted part-way; reset the VecGame";

/// Inputs after which a game is cut by default: the limit of `simulate`.
pub const MAX_INPUTS: u32 = 1_000_000;

/// The action that leaves a game as it is in a step: its row is written again, with no reward and
/// neither `terminated` nor `truncated` (for a game being reset, or whose agent made an illegal
/// choice that the caller handles).
pub const SKIP: u32 = u32::MAX;

/// A batch of games.
pub struct VecGame {
    slots: Vec<Slot>,
    setup: Setup,
    pub max_steps: u32,
    /// Replace a finished game at once (true, the default) or keep it until [`VecGame::reset`]
    /// (single-game environments that must show the final observation).
    pub autoreset: bool,
    /// The threads a step runs on (the caller and `threads - 1` persistent workers).
    pool: Pool,
    /// Why the games cannot be trusted any more: a step panicked half-way through a game.
    poisoned: Option<String>,
}

impl VecGame {
    pub fn new(n: usize, players: u8, board: BoardId, rules: Rules, seed: u64, max_steps: u32) -> Result<Self, String> {
        Self::with_opponents(n, players, board, rules, seed, max_steps, None, &[])
    }

    /// Games where the agent plays `learner` and the named bots play the other seats (one name
    /// for all, or one per seat with the learner's entry ignored).
    #[allow(clippy::too_many_arguments)]
    pub fn with_opponents(
        n: usize,
        players: u8,
        board: BoardId,
        rules: Rules,
        seed: u64,
        max_steps: u32,
        learner: Option<u8>,
        opponents: &[String],
    ) -> Result<Self, String> {
        Game::new(players, board, rules).map_err(|e| e.reason)?;
        let opponents: Vec<String> = match (learner, opponents.len()) {
            (None, _) => Vec::new(),
            (Some(l), _) if l >= players => return Err(format!("there is no seat {l}")),
            (Some(_), 1) => vec![opponents[0].clone(); players as usize],
            (Some(_), k) if k == players as usize => opponents.to_vec(),
            (Some(_), k) => return Err(format!("{k} opponent names for {players} seats")),
        };
        for spec in &opponents {
            bots::from_spec(spec)?;
        }
        let setup = Setup { players, board, rules, seed, learner, opponents, max_inputs: MAX_INPUTS };
        let none = Interrupt::none();
        Ok(VecGame {
            slots: (0..n).map(|i| setup.fresh(i as u64, 0, &none).expect("never interrupted")).collect(),
            setup,
            max_steps,
            autoreset: true,
            pool: Pool::new(1),
            poisoned: None,
        })
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn players(&self) -> u8 {
        self.setup.players
    }

    /// Inputs after which a game is cut (reported as truncated): [`MAX_INPUTS`] by default.
    pub fn max_inputs(&self) -> u32 {
        self.setup.max_inputs
    }

    /// Cut games at `max_inputs` inputs (at least 1) from now on, as `simulate` does.
    pub fn set_max_inputs(&mut self, max_inputs: u32) {
        self.setup.max_inputs = max_inputs.max(1);
    }

    /// Threads a step uses.
    pub fn threads(&self) -> usize {
        self.pool.parts()
    }

    /// Step the games on `threads` threads (0 counts as 1): the calling thread and `threads - 1`
    /// persistent workers, each with its own contiguous chunk of the games. The outputs are the
    /// same whatever the count.
    pub fn set_threads(&mut self, threads: usize) {
        if threads.max(1) != self.pool.parts() {
            self.pool = Pool::new(threads.max(1));
        }
    }

    /// Why the batch is unusable, if a step panicked: every later `step` and `observe_all` fails
    /// with this reason until [`VecGame::reset`] starts every game afresh.
    pub fn poisoned(&self) -> Option<&str> {
        self.poisoned.as_deref()
    }

    /// The game in slot `i` (for inspection and tests).
    pub fn game(&self, i: usize) -> &Game {
        &self.slots[i].game
    }

    /// Write the current observation, mask and player of every game (after a reset, say).
    pub fn observe_all(&mut self, out: &mut StepOut<'_>) -> Result<(), String> {
        self.check_health()?;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            write_row(slot, i, out.obs, out.mask, out.player);
        }
        Ok(())
    }

    /// The observation and mask of game `i` as `seat` sees it (any seat, not only the one the
    /// game waits for).
    pub fn view(&self, i: usize, seat: u8, obs: &mut [f32], mask: &mut [bool; action_space::SIZE]) {
        let slot = &self.slots[i];
        observation::observe(&slot.game, seat, &slot.drafts[seat as usize], obs);
        action_space::mask(&slot.game, seat, &slot.drafts[seat as usize], mask);
    }

    /// Replace the games where `which` is true by fresh ones (their next episode) and write their
    /// rows of `obs`, `mask` and `player` (the other rows are left as they are).
    pub fn reset_games(
        &mut self,
        which: &[bool],
        obs: &mut [f32],
        mask: &mut [bool],
        player: &mut [i8],
    ) -> Result<(), String> {
        self.check_health()?;
        if which.len() != self.slots.len() {
            return Err(format!("{} flags for {} games", which.len(), self.slots.len()));
        }
        let none = Interrupt::none();
        for (i, slot) in self.slots.iter_mut().enumerate().filter(|(i, _)| which[*i]) {
            *slot = self.setup.fresh(i as u64, slot.episode + 1, &none).expect("never interrupted");
            write_row(slot, i, obs, mask, player);
        }
        Ok(())
    }

    /// Reset every game to a fresh one (this also clears a poisoned batch).
    pub fn reset(&mut self) {
        self.reset_interruptible(&Interrupt::none()).expect("never interrupted");
    }

    /// [`VecGame::reset`], stopped once `interrupt` fires (the batch is then poisoned).
    pub fn reset_interruptible(&mut self, interrupt: &Interrupt<'_>) -> Result<(), String> {
        self.poisoned = None;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            match self.setup.fresh(i as u64, slot.episode + 1, interrupt) {
                Ok(fresh) => *slot = fresh,
                Err(Stopped) => {
                    self.poisoned = Some(INTERRUPTED.to_string());
                    return Err(INTERRUPTED.to_string());
                }
            }
        }
        Ok(())
    }

    /// Apply one action index in every game (for the seat it waits for) and write the outputs.
    /// Every action is checked before any game moves: an illegal one is an error naming the
    /// first such game, and nothing changes (neither the games nor `out`). [`SKIP`] leaves a game
    /// as it is. The outputs are the same whatever the thread count.
    ///
    /// A panic while stepping a game (a bug) is caught: the step returns it as an error naming
    /// the game, and the batch is poisoned (see [`VecGame::poisoned`]).
    pub fn step(&mut self, actions: &[u32], out: &mut StepOut<'_>) -> Result<(), String> {
        self.step_interruptible(actions, out, &Interrupt::none())
    }

    /// [`VecGame::step`], stopped once `interrupt` fires: the step returns [`INTERRUPTED`] and
    /// the batch is poisoned (some games moved, one perhaps half-way through the bots' moves).
    pub fn step_interruptible(
        &mut self,
        actions: &[u32],
        out: &mut StepOut<'_>,
        interrupt: &Interrupt<'_>,
    ) -> Result<(), String> {
        self.check_health()?;
        let n = self.slots.len();
        if actions.len() != n {
            return Err(format!("{} actions for {} games", actions.len(), n));
        }
        let env = Env {
            setup: &self.setup,
            players: self.setup.players as usize,
            max_steps: self.max_steps,
            autoreset: self.autoreset,
            interrupt,
        };
        for (i, (slot, &index)) in self.slots.iter().zip(actions).enumerate() {
            env.check(i, slot, index as usize)?;
        }
        let parts = split(&mut self.slots, actions, out.reborrow(), CHUNK, env.players);
        let shares = Shares::new(parts.len(), self.pool.parts());
        let tick = || {
            interrupt.check();
        };
        let ran = self.pool.run(
            &|k| {
                while let Some(i) = shares.next(k) {
                    let mut part = parts[i].lock().unwrap_or_else(PoisonError::into_inner);
                    let Part { first, slots, actions, out, result } = &mut *part;
                    *result = step_chunk(&env, *first, slots, actions, out.reborrow());
                }
            },
            Some(&tick),
        );
        let mut failures: Vec<Failure> = parts
            .into_iter()
            .filter_map(|part| part.into_inner().unwrap_or_else(PoisonError::into_inner).result.err())
            .collect();
        // (The pool only reports a panic `step_chunk` did not catch game by game: none expected.)
        failures.extend(ran.err().map(Failure::Panic));
        // A panic anywhere poisons the batch, even if an earlier game refused its action.
        if let Some(Failure::Panic(why)) = failures.iter().find(|f| matches!(f, Failure::Panic(_))) {
            let why = format!("a step panicked ({why}); reset the VecGame");
            self.poisoned = Some(why.clone());
            return Err(why);
        }
        if interrupt.stopped() {
            self.poisoned = Some(INTERRUPTED.to_string());
            return Err(INTERRUPTED.to_string());
        }
        match failures.into_iter().next() {
            Some(Failure::Refused(why)) | Some(Failure::Panic(why)) => Err(why),
            Some(Failure::Interrupted) => Err(INTERRUPTED.to_string()),
            None => Ok(()),
        }
    }

    fn check_health(&self) -> Result<(), String> {
        match &self.poisoned {
            Some(why) => Err(why.clone()),
            None => Ok(()),
        }
    }
}

/// Why a game could not be stepped.
enum Failure {
    /// The action was refused (the game did not move).
    Refused(String),
    /// Stepping panicked (a bug); the game may be half-changed.
    Panic(String),
    /// The interrupt fired; the game may be half-way through the bots' moves.
    Interrupted,
}

/// What stepping a game needs besides its slot: the batch's settings.
struct Env<'a> {
    setup: &'a Setup,
    players: usize,
    max_steps: u32,
    autoreset: bool,
    interrupt: &'a Interrupt<'a>,
}

/// Step the games `first..first + slots.len()` of the batch; `out` holds their rows only. Stops
/// at the first refused action or panic.
fn step_chunk(
    env: &Env<'_>,
    first: usize,
    slots: &mut [Slot],
    actions: &[u32],
    out: StepOut<'_>,
) -> Result<(), Failure> {
    out.rewards.fill(0.0);
    for (j, (slot, &index)) in slots.iter_mut().zip(actions).enumerate() {
        let i = first + j;
        if index == SKIP {
            (out.terminated[j], out.truncated[j]) = (false, false);
            write_row(slot, j, out.obs, out.mask, out.player);
            continue;
        }
        match catch_unwind(AssertUnwindSafe(|| step_game(env, i, slot, index as usize))) {
            Ok(Ok(())) => {}
            Ok(Err(Failure::Refused(why))) => return Err(Failure::Refused(why)),
            Ok(Err(other)) => return Err(other),
            Err(payload) => return Err(Failure::Panic(format!("game {i}: {}", panic_message(&*payload)))),
        }
        let players = env.players;
        let over = env.setup.over(&slot.game);
        let cut = !over && env.cut(slot);
        out.terminated[j] = over;
        out.truncated[j] = cut;
        if over {
            write_rewards(env.setup.learner, &slot.game, &mut out.rewards[j * players..(j + 1) * players]);
        }
        if (over || cut) && env.autoreset {
            let fresh = catch_unwind(AssertUnwindSafe(|| env.setup.fresh(i as u64, slot.episode + 1, env.interrupt)));
            match fresh {
                Ok(Ok(fresh)) => *slot = fresh,
                Ok(Err(Stopped)) => return Err(Failure::Interrupted),
                Err(payload) => return Err(Failure::Panic(format!("game {i}: {}", panic_message(&*payload)))),
            }
        }
        write_row(slot, j, out.obs, out.mask, out.player);
    }
    Ok(())
}

impl Env<'_> {
    /// Has the game reached a limit: `max_steps` agent actions or `max_inputs` inputs?
    fn cut(&self, slot: &Slot) -> bool {
        slot.steps >= self.max_steps || slot.game.step >= self.setup.max_inputs
    }

    /// Refuse action `index` in game `i` unless it is legal now for the seat the game waits for
    /// (from the row's mask when the slot kept it for this decision: no work at all).
    fn check(&self, i: usize, slot: &Slot, index: usize) -> Result<(), String> {
        if index == SKIP as usize {
            return Ok(());
        }
        if self.setup.over(&slot.game) || self.cut(slot) {
            return Err(format!("game {i} is over: reset it"));
        }
        let seat = slot.game.actor().ok_or_else(|| format!("game {i} waits for nobody"))?;
        let legal = match &slot.kept {
            Some(kept) if index < action_space::DRAFT_START && (kept.step, kept.seat) == (slot.game.step, seat) => {
                kept.moves[index]
            }
            _ => action_space::is_legal(&slot.game, seat, &slot.drafts[seat as usize], index),
        };
        match legal {
            true => Ok(()),
            false => Err(format!("game {i}: action {index} is not legal for seat {seat} now")),
        }
    }
}

/// The rewards of a game that is over for the agent: +1 to the winner and -1/(players-1) to the
/// others; with a learner out before the end, its -1/(players-1) alone (the others' game is not
/// played out).
fn write_rewards(learner: Option<u8>, game: &Game, rewards: &mut [f32]) {
    let players = rewards.len();
    let loss = -1.0 / (players - 1) as f32;
    match (game.winner(), learner) {
        (Some(w), _) => {
            for (p, reward) in rewards.iter_mut().enumerate() {
                *reward = if p == w as usize { 1.0 } else { loss };
            }
        }
        (None, Some(l)) if game.player(l).bankrupt => rewards[l as usize] = loss,
        _ => {}
    }
}

/// Apply the agent's action `index` in game `i` and advance to the agent's next decision.
fn step_game(env: &Env<'_>, i: usize, slot: &mut Slot, index: usize) -> Result<(), Failure> {
    if env.setup.over(&slot.game) || env.cut(slot) {
        return Err(Failure::Refused(format!("game {i} is over: reset it")));
    }
    let seat = slot.game.actor().ok_or_else(|| Failure::Refused(format!("game {i} waits for nobody")))?;
    let illegal = || Failure::Refused(format!("game {i}: action {index} is not legal for seat {seat} now"));
    let draft = &slot.drafts[seat as usize];
    match decode(&slot.game, seat, draft, index) {
        Some(Decoded::Draft(d)) if action_space::may_trade(&slot.game, seat) => slot.drafts[seat as usize] = d,
        Some(Decoded::Move(action)) => {
            let m = Move { player: seat, action };
            if vouched_by_kept_mask(slot, seat, index) {
                // The row's mask, made for this very state and seat, lists it: the engine's own
                // enumeration (or check) found it legal, so it is not checked again (except in
                // debug builds and the engine's test mode).
                slot.game.apply_trusted(m);
            } else {
                // The engine checks the move and changes nothing when it is refused.
                slot.game.apply_input(Input::Move(m)).map_err(|_| illegal())?;
            }
            if matches!(action, lanopoly_engine::Action::ProposeTrade { .. }) {
                slot.drafts[seat as usize] = Draft::closed();
            }
        }
        _ => return Err(illegal()),
    }
    slot.steps += 1;
    interject_for_all(slot);
    advance(slot, env.setup, env.interrupt).map_err(|Stopped| Failure::Interrupted)
}

/// Does the mask kept with the slot's last row, made for the game's current state and `seat`,
/// list move index `index` as legal? Then the move `decode` gives for it is legal now: the mask's
/// moves come from the engine's enumeration, or from `is_legal` of that very decoding.
fn vouched_by_kept_mask(slot: &Slot, seat: u8, index: usize) -> bool {
    matches!(&slot.kept, Some(kept) if index < action_space::DRAFT_START
        && (kept.step, kept.seat) == (slot.game.step, seat)
        && kept.moves[index])
}

/// Sample chance and let the opponents' bots move until the agent must decide, the game is over
/// for it, or the game reaches `max_inputs` inputs; checks `interrupt` every
/// [`Interrupt::EVERY`] inputs.
fn advance(slot: &mut Slot, setup: &Setup, interrupt: &Interrupt<'_>) -> Result<(), Stopped> {
    let mut since_check = 0;
    loop {
        if setup.over(&slot.game) || slot.game.step >= setup.max_inputs {
            return Ok(());
        }
        since_check += 1;
        if since_check == Interrupt::EVERY {
            since_check = 0;
            if interrupt.check() {
                return Err(Stopped);
            }
        }
        if slot.game.is_chance_node() {
            // A roll's dice and the chance events they lead to, in one call (nobody moves
            // before they are all resolved, out of turn neither).
            let budget = setup.max_inputs - slot.game.step;
            slot.game.resolve_chance(&mut slot.chance, budget, |_, _, _| {});
            interject_for_all(slot);
            continue;
        }
        let Some(seat) = slot.game.actor() else { return Ok(()) };
        let Some((bot, stream)) = slot.bots.get_mut(seat as usize).and_then(Option::as_mut) else { return Ok(()) };
        let action = bot.choose(&slot.game, seat, stream);
        if bot.trusted() {
            slot.game.apply_trusted(Move { player: seat, action });
        } else if slot.game.apply_input(Input::Move(Move { player: seat, action })).is_err() {
            // A bot bug must not stall training: play the seat's first legal action instead.
            let fallback = slot.game.legal_actions(seat)[0];
            slot.game.apply_input(Input::Move(Move { player: seat, action: fallback })).expect("listed");
        }
        interject_for_all(slot);
    }
}

/// After an input, every seat not to act claims the rent owed to it: the opponents' bots by their
/// own [`Policy::interject`], the agent's seats by the environment (a claim never costs; the agent
/// acts only when the game waits for it, and rent must be claimed before the next rolls). The
/// opponents' bots also answer there the offers made to them (the agent's among them) at once;
/// the agent answers those made to it when the game waits for it. A bot that
/// [`Policy::interjects_only_on_claims_and_offers`] is asked only when rent is owed to it or an
/// offer made to it, as `play` does (it would answer `None` otherwise, drawing nothing).
fn interject_for_all(slot: &mut Slot) {
    let game = &mut slot.game;
    if (game.claims.is_empty() && game.offers.is_empty()) || game.is_chance_node() || game.is_over() {
        return;
    }
    if claimed_at_once(slot) {
        return;
    }
    let game = &mut slot.game;
    let Some(actor) = game.actor() else { return };
    let n = game.num_players;
    for seat in (1..n).map(|d| (actor + d) % n) {
        // The environment's claims for the agent are asked of the engine (`owed_claim`).
        let (action, trusted) = match slot.bots.get_mut(seat as usize).and_then(Option::as_mut) {
            Some((bot, _)) if bot.interjects_only_on_claims_and_offers() && !owed_or_offered(game, seat) => continue,
            Some((bot, stream)) => (bot.interject(game, seat, stream), bot.trusted()),
            None => (bots::owed_claim(game, seat), true),
        };
        match action {
            Some(action) if trusted => game.apply_trusted(Move { player: seat, action }),
            Some(action) => {
                // A bot's refused interjection is a bot bug: skipped, training goes on.
                let _ = game.apply_input(Input::Move(Move { player: seat, action }));
            }
            None => {}
        }
    }
}

/// When the only move of [`interject_for_all`]'s round would be a claim made at once (one claim
/// open, no offer, every opponent's bot moving out of turn only for claims and offers, the owner
/// the agent or a bot that [`Policy::claims_rent_at_once`]), make it without the round
/// ([`Game::make_claim_step`]) and say so.
fn claimed_at_once(slot: &mut Slot) -> bool {
    let game = &slot.game;
    if game.claims.len() != 1 || !game.offers.is_empty() {
        return false;
    }
    let mut claim_for = 0u8;
    for seat in 0..game.num_players {
        match slot.bots.get(seat as usize).and_then(Option::as_ref) {
            None => claim_for |= 1 << seat,
            Some((bot, _)) if !bot.interjects_only_on_claims_and_offers() => return false,
            Some((bot, _)) => claim_for |= u8::from(bot.claims_rent_at_once()) << seat,
        }
    }
    slot.game.make_claim_step(claim_for).is_some()
}

/// Row `i` of the observation, mask and player outputs for a game.
fn write_row(slot: &mut Slot, i: usize, obs: &mut [f32], mask: &mut [bool], player: &mut [i8]) {
    let seat = slot.game.actor();
    player[i] = seat.map_or(-1, |s| s as i8);
    let me = seat.unwrap_or(0);
    let game = &slot.game;
    let kept = match &mut slot.kept {
        Some(kept) if (kept.step, kept.seat) == (game.step, me) => kept,
        stale => {
            // Filled in place: the struct is a few hundred bytes, not worth moving around.
            let kept = stale.get_or_insert(Kept {
                step: 0,
                seat: 0,
                moves: [false; action_space::DRAFT_START],
                worths: [0; MAX_PLAYERS],
            });
            (kept.step, kept.seat, kept.worths) = (game.step, me, game.net_worths_all());
            action_space::moves_mask(game, me, &mut kept.moves);
            kept
        }
    };
    let draft = &slot.drafts[me as usize];
    let obs = &mut obs[i * observation::SIZE..(i + 1) * observation::SIZE];
    observation::observe_with(game, me, draft, &kept.worths, obs);
    let (moves, drafts) =
        mask[i * action_space::SIZE..(i + 1) * action_space::SIZE].split_at_mut(action_space::DRAFT_START);
    moves.copy_from_slice(&kept.moves);
    action_space::drafts_mask(game, me, draft, drafts);
}

#[cfg(test)]
mod tests;
