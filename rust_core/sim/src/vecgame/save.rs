//! Saving a batch in progress and resuming it exactly (pickling from Python): every game's state
//! (the engine's canonical bytes, checked again on load), its chance stream, the seats' trade
//! drafts, the opponents' bots with their memory and random streams, and the batch's settings.
//! A resumed batch given the same actions gives the same outputs as the original.

use super::{Setup, Slot, VecGame};
use crate::action_space::Draft;
use crate::bots;
use lanopoly_engine::state::MAX_PLAYERS;
use lanopoly_engine::{BoardId, Game, Resolver, Rules};
use serde::{Deserialize, Serialize};

/// Tag of the encoding, its first field; changes whenever the encoding does.
pub const SAVE_FORMAT: &str = "lanopoly/vecgame/1";

/// A whole batch.
#[derive(Serialize, Deserialize)]
struct Saved {
    format: String,
    players: u8,
    board: BoardId,
    rules: Rules,
    seed: u64,
    learner: Option<u8>,
    opponents: Vec<String>,
    max_inputs: u32,
    max_steps: u32,
    autoreset: bool,
    threads: u32,
    slots: Vec<SavedSlot>,
}

/// One game of the batch.
#[derive(Serialize, Deserialize)]
struct SavedSlot {
    game: Vec<u8>,
    drafts: Vec<Draft>,
    chance: u64,
    /// Each seat's bot (`Policy::save`) and the state of its random stream.
    bots: Vec<Option<(Vec<u8>, u64)>>,
    steps: u32,
    episode: u64,
}

impl VecGame {
    /// The batch as bytes for [`VecGame::from_bytes`]; refused for a poisoned batch (its games
    /// cannot be trusted) or a bot that cannot be saved.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        self.check_health()?;
        let Setup { players, board, rules, seed, learner, ref opponents, max_inputs } = self.setup;
        let slots = self.slots.iter().map(save_slot).collect::<Result<_, _>>()?;
        let saved = Saved {
            format: SAVE_FORMAT.to_string(),
            players,
            board,
            rules,
            seed,
            learner,
            opponents: opponents.clone(),
            max_inputs,
            max_steps: self.max_steps,
            autoreset: self.autoreset,
            threads: self.threads() as u32,
            slots,
        };
        postcard::to_allocvec(&saved).map_err(|e| format!("the VecGame could not be encoded: {e}"))
    }

    /// A batch from [`VecGame::to_bytes`], checked as a new one is (settings, bots) and game by
    /// game (the engine's checks of a decoded state); anything wrong is an error saying what.
    pub fn from_bytes(data: &[u8]) -> Result<VecGame, String> {
        let saved: Saved = postcard::from_bytes(data).map_err(|e| format!("malformed VecGame bytes: {e}"))?;
        if saved.format != SAVE_FORMAT {
            return Err(format!("VecGame bytes of format {:?}, not {SAVE_FORMAT:?}", saved.format));
        }
        let opponents = saved.opponents.clone();
        let (players, board, rules) = (saved.players, saved.board, saved.rules);
        let mut v =
            VecGame::with_opponents(0, players, board, rules, saved.seed, saved.max_steps, saved.learner, &opponents)?;
        v.set_max_inputs(saved.max_inputs);
        v.set_threads(saved.threads as usize);
        v.autoreset = saved.autoreset;
        for (i, slot) in saved.slots.into_iter().enumerate() {
            v.slots.push(load_slot(&v.setup, slot).map_err(|why| format!("game {i}: {why}"))?);
        }
        Ok(v)
    }
}

fn save_slot(slot: &Slot) -> Result<SavedSlot, String> {
    let bots = slot
        .bots
        .iter()
        .map(|seat| match seat {
            None => Ok(None),
            Some((bot, stream)) => match bot.save() {
                Some(state) => Ok(Some((state, stream.state()))),
                None => Err(format!("the {} bot cannot be saved", bot.name())),
            },
        })
        .collect::<Result<_, String>>()?;
    Ok(SavedSlot {
        game: slot.game.to_bytes(),
        drafts: slot.drafts.to_vec(),
        chance: slot.chance.state(),
        bots,
        steps: slot.steps,
        episode: slot.episode,
    })
}

/// A slot from its saved form, checked against the batch's settings.
fn load_slot(setup: &Setup, saved: SavedSlot) -> Result<Slot, String> {
    let game = Game::from_bytes(&saved.game).map_err(|e| e.reason)?;
    if (game.num_players, game.board, game.rules) != (setup.players, setup.board, setup.rules) {
        return Err("the game's seats, board or rules are not the batch's".to_string());
    }
    let drafts: [Draft; MAX_PLAYERS] = saved.drafts.try_into().map_err(|_| "one trade draft per seat")?;
    if drafts.iter().any(|d| d.is_open() && d.to >= setup.players) {
        return Err("a trade draft for a seat that is not there".to_string());
    }
    if saved.bots.len() != setup.players as usize {
        return Err("one bot entry per seat".to_string());
    }
    let bots = saved
        .bots
        .into_iter()
        .enumerate()
        .map(|(seat, bot)| {
            let wanted = setup.learner.is_some_and(|l| l as usize != seat);
            match (bot, wanted) {
                (None, false) => Ok(None),
                (Some((state, stream)), true) => {
                    let mut bot = bots::from_spec(&setup.opponents[seat])?;
                    bot.load(&state)?;
                    Ok(Some((bot, Resolver::new(stream))))
                }
                _ => Err(format!("seat {seat}: a bot where the batch has none, or none where it has one")),
            }
        })
        .collect::<Result<_, String>>()?;
    Ok(Slot {
        game,
        drafts,
        chance: Resolver::new(saved.chance),
        bots,
        steps: saved.steps,
        episode: saved.episode,
        kept: None,
    })
}
