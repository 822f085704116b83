//! Many games stepped at once for learning agents: integer actions in, observations, masks and
//! rewards out, chance sampled inside, finished games reset on the spot.
//!
//! Each game is stepped by the seat it waits for (any seat: all seats are the agent's, as in
//! self-play). After the agent's action, chance events are resolved with the game's own seeded
//! stream until a seat must decide again. A game that ends (or reaches `max_steps` agent actions)
//! reports `terminated` (or `truncated`) with its rewards and is replaced by a fresh game in the
//! same step, whose first observation is returned ("same-step" auto-reset).

use crate::action_space::{self, decode, Decoded, Draft};
use crate::bots;
use crate::observation;
use crate::policy::Policy;
use lanopoly_engine::state::MAX_PLAYERS;
use lanopoly_engine::{BoardId, Game, Input, Move, Resolver, Rules};

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
}

/// A batch of games.
pub struct VecGame {
    slots: Vec<Slot>,
    players: u8,
    board: BoardId,
    rules: Rules,
    seed: u64,
    pub max_steps: u32,
    /// Replace a finished game at once (true, the default) or keep it until [`VecGame::reset`]
    /// (single-game environments that must show the final observation).
    pub autoreset: bool,
    /// With opponents: the seat the agent plays, and a bot name for every other seat.
    learner: Option<u8>,
    opponents: Vec<String>,
    /// Threads a step uses (1, the default: the calling thread only).
    threads: usize,
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
        if let Some(bad) = opponents.iter().find(|name| bots::by_name(name).is_none()) {
            return Err(format!("unknown bot {bad:?}; bots: {}", bots::BOTS.join(", ")));
        }
        let mut v = VecGame {
            slots: Vec::with_capacity(n),
            players,
            board,
            rules,
            seed,
            max_steps,
            autoreset: true,
            learner,
            opponents,
            threads: 1,
        };
        for i in 0..n {
            let slot = v.fresh(i as u64, 0);
            v.slots.push(slot);
        }
        Ok(v)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn players(&self) -> u8 {
        self.players
    }

    /// Threads a step uses.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Step contiguous chunks of the games on up to `threads` threads (0 counts as 1). The
    /// outputs are the same whatever the count.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// A new game for slot `index`, its `episode`-th, advanced to the first decision.
    fn fresh(&self, index: u64, episode: u64) -> Slot {
        let seed = crate::simulate::game_seed(self.seed ^ episode.wrapping_mul(0x9E37_79B9_7F4A_7C15), index);
        let mut root = Resolver::new(seed);
        let bots = (0..self.players)
            .map(|seat| {
                let stream = Resolver::new(root.next_u64());
                match self.learner {
                    Some(l) if l != seat => {
                        Some((bots::by_name(&self.opponents[seat as usize]).expect("checked in new"), stream))
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
        };
        advance(&mut slot);
        slot
    }

    /// The game in slot `i` (for inspection and tests).
    pub fn game(&self, i: usize) -> &Game {
        &self.slots[i].game
    }

    /// Write the current observation, mask and player of every game (after a reset, say).
    pub fn observe_all(&self, out: &mut StepOut<'_>) {
        for (i, slot) in self.slots.iter().enumerate() {
            write_view(slot, i, out);
        }
    }

    /// The observation and mask of game `i` as `seat` sees it (any seat, not only the one the
    /// game waits for).
    pub fn view(&self, i: usize, seat: u8, obs: &mut [f32], mask: &mut [bool; action_space::SIZE]) {
        let slot = &self.slots[i];
        observation::observe(&slot.game, seat, &slot.drafts[seat as usize], obs);
        action_space::mask(&slot.game, seat, &slot.drafts[seat as usize], mask);
    }

    /// Reset every game to a fresh one.
    pub fn reset(&mut self) {
        for i in 0..self.slots.len() {
            let episode = self.slots[i].episode + 1;
            self.slots[i] = self.fresh(i as u64, episode);
        }
    }

    /// Apply one action index in every game (for the seat it waits for) and write the outputs.
    /// An illegal index is an error naming the game (the first such game); games before it have
    /// already moved (with several threads, games of the other threads' chunks may have moved
    /// too). The outputs are the same whatever the thread count.
    pub fn step(&mut self, actions: &[u32], out: &mut StepOut<'_>) -> Result<(), String> {
        let n = self.slots.len();
        if actions.len() != n {
            return Err(format!("{} actions for {} games", actions.len(), n));
        }
        let players = self.players as usize;
        let threads = self.threads.min(n).max(1);
        // `fresh` needs the settings only, not the slots: lend the slots out while stepping.
        let mut slots = std::mem::take(&mut self.slots);
        let env = Env { vec: &*self, players };
        let result = if threads == 1 {
            step_chunk(&env, 0, &mut slots, actions, out.reborrow())
        } else {
            let chunk = n.div_ceil(threads);
            let mut parts = Vec::with_capacity(threads);
            let mut rest = out.reborrow();
            let mut first = 0;
            for (games, acts) in slots.chunks_mut(chunk).zip(actions.chunks(chunk)) {
                let len = games.len();
                let (head, tail) = rest.split_at(len, players);
                parts.push((first, games, acts, head));
                rest = tail;
                first += len;
            }
            let env = &env;
            std::thread::scope(|scope| {
                let mut parts = parts.into_iter();
                let (first0, games0, acts0, out0) = parts.next().expect("at least one chunk");
                let handles: Vec<_> = parts
                    .map(|(first, games, acts, part)| scope.spawn(move || step_chunk(env, first, games, acts, part)))
                    .collect();
                let mine = step_chunk(env, first0, games0, acts0, out0);
                let theirs = handles.into_iter().map(|h| h.join().expect("a stepping thread panicked"));
                std::iter::once(mine).chain(theirs).collect::<Result<Vec<()>, String>>().map(|_| ())
            })
        };
        self.slots = slots;
        result
    }
}

impl StepOut<'_> {
    /// The same buffers, borrowed for a shorter time.
    fn reborrow(&mut self) -> StepOut<'_> {
        StepOut {
            obs: &mut *self.obs,
            mask: &mut *self.mask,
            player: &mut *self.player,
            rewards: &mut *self.rewards,
            terminated: &mut *self.terminated,
            truncated: &mut *self.truncated,
        }
    }

    /// The rows of the first `games` games, and the rest.
    fn split_at<'b>(self, games: usize, players: usize) -> (StepOut<'b>, StepOut<'b>)
    where
        Self: 'b,
    {
        let (obs, obs_rest) = self.obs.split_at_mut(games * observation::SIZE);
        let (mask, mask_rest) = self.mask.split_at_mut(games * action_space::SIZE);
        let (player, player_rest) = self.player.split_at_mut(games);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(games * players);
        let (terminated, terminated_rest) = self.terminated.split_at_mut(games);
        let (truncated, truncated_rest) = self.truncated.split_at_mut(games);
        (
            StepOut { obs, mask, player, rewards, terminated, truncated },
            StepOut {
                obs: obs_rest,
                mask: mask_rest,
                player: player_rest,
                rewards: rewards_rest,
                terminated: terminated_rest,
                truncated: truncated_rest,
            },
        )
    }
}

/// What stepping a game needs besides its slot: the batch's settings (its slots are lent out).
struct Env<'a> {
    vec: &'a VecGame,
    players: usize,
}

/// Step the games `first..first + slots.len()` of the batch; `out` holds their rows only.
fn step_chunk(
    env: &Env<'_>,
    first: usize,
    slots: &mut [Slot],
    actions: &[u32],
    out: StepOut<'_>,
) -> Result<(), String> {
    let players = env.players;
    let max_steps = env.vec.max_steps;
    out.rewards.fill(0.0);
    for (j, (slot, &index)) in slots.iter_mut().zip(actions).enumerate() {
        let i = first + j;
        let index = index as usize;
        if slot.game.is_over() || slot.steps >= max_steps {
            return Err(format!("game {i} is over: reset it"));
        }
        let seat = slot.game.actor().ok_or_else(|| format!("game {i} waits for nobody"))?;
        let illegal = || format!("game {i}: action {index} is not legal for seat {seat} now");
        let draft = &slot.drafts[seat as usize];
        match decode(&slot.game, seat, draft, index) {
            Some(Decoded::Draft(d)) if action_space::may_trade(&slot.game, seat) => slot.drafts[seat as usize] = d,
            Some(Decoded::Move(action)) => {
                // The engine checks the move and changes nothing when it is refused.
                slot.game.apply_input(Input::Move(Move { player: seat, action })).map_err(|_| illegal())?;
                if matches!(action, lanopoly_engine::Action::ProposeTrade { .. }) {
                    slot.drafts[seat as usize] = Draft::closed();
                }
            }
            _ => return Err(illegal()),
        }
        slot.steps += 1;
        advance(slot);
        let over = slot.game.is_over();
        let cut = !over && slot.steps >= max_steps;
        out.terminated[j] = over;
        out.truncated[j] = cut;
        if over {
            if let Some(w) = slot.game.winner() {
                for p in 0..players {
                    out.rewards[j * players + p] = if p == w as usize { 1.0 } else { -1.0 / (players - 1) as f32 };
                }
            }
        }
        if (over || cut) && env.vec.autoreset {
            let episode = slot.episode + 1;
            *slot = env.vec.fresh(i as u64, episode);
        }
        write_row(slot, j, out.obs, out.mask, out.player);
    }
    Ok(())
}

/// Sample chance and let the opponents' bots move until the agent must decide (or the game is
/// over).
fn advance(slot: &mut Slot) {
    loop {
        if slot.game.is_chance_node() {
            let outcome = slot.game.sample_outcome(&mut slot.chance).expect("a chance node has outcomes");
            slot.game.apply_chance(outcome).expect("sampled outcomes are legal");
            continue;
        }
        let Some(seat) = slot.game.actor() else { return };
        let Some((bot, stream)) = slot.bots.get_mut(seat as usize).and_then(Option::as_mut) else { return };
        let action = bot.choose(&slot.game, seat, stream);
        if slot.game.apply_input(Input::Move(Move { player: seat, action })).is_err() {
            // A bot bug must not stall training: play the seat's first legal action instead.
            let fallback = slot.game.legal_actions(seat)[0];
            slot.game.apply_input(Input::Move(Move { player: seat, action: fallback })).expect("listed");
        }
    }
}

fn write_view(slot: &Slot, i: usize, out: &mut StepOut<'_>) {
    write_row(slot, i, out.obs, out.mask, out.player);
}

/// Row `i` of the observation, mask and player outputs for a game.
fn write_row(slot: &Slot, i: usize, obs: &mut [f32], mask: &mut [bool], player: &mut [i8]) {
    let seat = slot.game.actor();
    player[i] = seat.map_or(-1, |s| s as i8);
    let me = seat.unwrap_or(0);
    let obs = &mut obs[i * observation::SIZE..(i + 1) * observation::SIZE];
    observation::observe(&slot.game, me, &slot.drafts[me as usize], obs);
    let mask: &mut [bool; action_space::SIZE] = (&mut mask[i * action_space::SIZE..(i + 1) * action_space::SIZE])
        .try_into()
        .expect("mask row of the right size");
    action_space::mask(&slot.game, me, &slot.drafts[me as usize], mask);
}
