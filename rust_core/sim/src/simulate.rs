//! Many games at once: bots play seeded games on several threads; the report is the same for
//! the same seed whatever the number of threads.
//!
//! Game `i` of a run with seed `s` is seeded from `(s, i)` alone, and threads only decide who
//! plays which game; results are put back in game order and landing counts are sums.

use crate::bots;
use crate::interrupt::Interrupt;
use crate::play::{play_interruptible, Streams};
use crate::policy::Policy;
use crate::pool::Pool;
use lanopoly_engine::state::{Pending, MAX_PLAYERS};
use lanopoly_engine::{BoardId, Game, Input, Resolver, Rules};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

/// Index of the "in jail" entry of the landing counts (squares are 0..40; a player just visiting
/// counts on square 10).
pub const IN_JAIL: usize = 40;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Config {
    pub games: u32,
    /// Index of the first game (to run a long simulation in slices with the same results).
    pub first_game: u64,
    pub players: u8,
    pub board: BoardId,
    pub rules: Rules,
    /// Bot name for each seat, or one name for every seat.
    pub bots: Vec<String>,
    pub seed: u64,
    pub threads: usize,
    /// Inputs after which a game is cut (reported as truncated).
    pub max_inputs: u32,
}

/// How one game went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// None if the game was cut before it ended.
    pub winner: Option<u8>,
    pub rounds: u32,
    pub turns: u32,
    /// Player moves (chance outcomes not counted).
    pub actions: u32,
    pub bankruptcies: u8,
    pub net_worths: Vec<u64>,
    pub truncated: bool,
}

/// The results of a run, in game order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub games: Vec<GameSummary>,
    /// Where tokens stood after each move roll was fully resolved (cards, go to jail): one count
    /// per square, and [`IN_JAIL`] for players in jail.
    pub landings: [u64; 41],
}

/// The seed of game `index` of a run.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut r = Resolver::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    r.next_u64()
}

fn seat_bots(config: &Config) -> Result<Vec<Box<dyn Policy>>, String> {
    let names: Vec<&str> = match config.bots.len() {
        1 => vec![config.bots[0].as_str(); config.players as usize],
        n if n == config.players as usize => config.bots.iter().map(String::as_str).collect(),
        n => return Err(format!("{n} bot names for {} seats", config.players)),
    };
    names.into_iter().map(bots::from_spec).collect()
}

/// The bots of one game: copies of `built` (the seats' bots built from the config once), or
/// built again from the specs for a bot that cannot be copied.
fn fresh_bots(config: &Config, built: &[Box<dyn Policy>]) -> Result<Vec<Box<dyn Policy>>, String> {
    match built.iter().map(|bot| bot.copy()).collect::<Option<Vec<_>>>() {
        Some(copies) => Ok(copies),
        None => seat_bots(config),
    }
}

/// Play one game and add its landings to `landings`.
pub fn play_one(config: &Config, index: u64, landings: &mut [u64; 41]) -> Result<GameSummary, String> {
    play_one_with(config, index, landings, seat_bots(config)?)
}

/// [`play_one`] with these bots instead of the configured ones (one per seat): what a test
/// compares with the configured bots' games, counted the same way.
pub fn play_one_with(
    config: &Config,
    index: u64,
    landings: &mut [u64; 41],
    policies: Vec<Box<dyn Policy>>,
) -> Result<GameSummary, String> {
    play_one_interruptible(config, index, landings, policies, &Interrupt::none())
}

/// [`play_one`] with these bots, left unfinished (and reported as cut) once `interrupt` fires.
fn play_one_interruptible(
    config: &Config,
    index: u64,
    landings: &mut [u64; 41],
    mut policies: Vec<Box<dyn Policy>>,
    interrupt: &Interrupt<'_>,
) -> Result<GameSummary, String> {
    let mut game = Game::new(config.players, config.board, config.rules).map_err(|e| e.reason)?;
    let mut streams = Streams::new(game_seed(config.seed, index), config.players);
    let mut actions = 0;
    let mut rolled = false;
    play_interruptible(&mut game, &mut policies, &mut streams, config.max_inputs, interrupt, |game, input, before| {
        if matches!(input, Input::Move(_)) {
            actions += 1;
        }
        rolled |= before == Some(Pending::MoveDice);
        if rolled && !matches!(game.pending, Some(Pending::Card(_))) {
            let mover = game.player(game.turn_player);
            landings[if mover.in_jail { IN_JAIL } else { mover.position as usize }] += 1;
            rolled = false;
        }
    });
    Ok(GameSummary {
        winner: game.winner(),
        rounds: game.round,
        turns: game.turn + 1,
        actions,
        bankruptcies: game.bankruptcies,
        net_worths: game.net_worths(),
        truncated: !game.is_over(),
    })
}

/// What one thread played: (game index, summary) pairs and its landing counts, or the first
/// game it could not play (index, why).
type ThreadReport = Result<(Vec<(u64, GameSummary)>, [u64; 41]), (u64, String)>;

/// Why a simulation stopped before the end, as [`simulate_interruptible`] reports it.
pub const INTERRUPTED: &str = "the simulation was interrupted";

/// Run the simulation on `config.threads` threads.
pub fn simulate(config: &Config) -> Result<Report, String> {
    simulate_interruptible(config, &Interrupt::none())
}

/// Run the simulation on `config.threads` threads (the calling thread and `threads - 1`
/// workers); once `interrupt` fires, stop within a few thousand inputs and return
/// [`INTERRUPTED`].
///
/// The threads take the games one at a time, in order, from a shared counter, so a thread whose
/// CPU is slower (or busy elsewhere) plays fewer of them and none waits idle for the other.
/// Which thread plays a game never reaches the report: each game is seeded by its index alone,
/// the summaries are sorted by index and the landing counts summed; if games fail, the one with
/// the lowest index is reported (every game below it was taken, and played, before it).
pub fn simulate_interruptible(config: &Config, interrupt: &Interrupt<'_>) -> Result<Report, String> {
    if !(2..=MAX_PLAYERS as u8).contains(&config.players) {
        return Err(format!("2 to {MAX_PLAYERS} players, not {}", config.players));
    }
    // The specs are read once; each game plays copies (parsing them took 2-3 % of an MC-equal
    // game).
    let built = seat_bots(config)?;
    let threads = config.threads.clamp(1, config.games.max(1) as usize);
    let next = AtomicU64::new(0);
    let parts: Vec<Mutex<ThreadReport>> = (0..threads).map(|_| Mutex::new(Ok((Vec::new(), [0; 41])))).collect();
    let task = |k: usize| {
        let mut part = parts[k].lock().unwrap_or_else(PoisonError::into_inner);
        let Ok((games, landings)) = &mut *part else { return };
        while !interrupt.check() {
            let i = next.fetch_add(1, Relaxed);
            if i >= config.games as u64 {
                return;
            }
            let index = config.first_game + i;
            let played = fresh_bots(config, &built)
                .and_then(|policies| play_one_interruptible(config, index, landings, policies, interrupt));
            match played {
                Ok(summary) => games.push((index, summary)),
                Err(why) => {
                    *part = Err((index, why));
                    return;
                }
            }
        }
    };
    let tick = || {
        interrupt.check();
    };
    Pool::new(threads).run(&task, Some(&tick)).map_err(|why| format!("a simulation thread panicked: {why}"))?;
    if interrupt.stopped() {
        return Err(INTERRUPTED.to_string());
    }
    let per_thread: Vec<ThreadReport> =
        parts.into_iter().map(|part| part.into_inner().unwrap_or_else(PoisonError::into_inner)).collect();
    if let Some((_, why)) = per_thread.iter().filter_map(|part| part.as_ref().err()).min_by_key(|(index, _)| *index) {
        return Err(why.clone());
    }
    let mut games = Vec::with_capacity(config.games as usize);
    let mut landings = [0u64; 41];
    for (part_games, part_landings) in per_thread.into_iter().flatten() {
        games.extend(part_games);
        for (total, n) in landings.iter_mut().zip(part_landings) {
            *total += n;
        }
    }
    games.sort_by_key(|(index, _)| *index);
    Ok(Report { games: games.into_iter().map(|(_, g)| g).collect(), landings })
}
