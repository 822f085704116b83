//! The heuristic bot's picture of the board: what it reads from who owns what (its deeds, the
//! groups it owns whole, the streets it could trade for), read again only when that changes.
//!
//! A game has about a thousand decisions and a few dozen changes of ownership, so reading the
//! owners once per change instead of once per decision (eight groups scanned for trades at each
//! decision of a trading bot) saves most of that work, and lets most decisions see at once that
//! there is nothing to manage ([`HeuristicBot::play_turn`]). The picture is keyed on the version
//! of the deeds it was read from ([`lanopoly_engine::deeds::Deeds::version`], unique in the
//! process: equal versions, equal owners, whatever game the bot is handed, a search bot's copies
//! or a game loaded from a snapshot alike), and on a copy of the owners, compared only when the
//! version changed (a building or a mortgage changes the version, not the owners).

use super::*;

/// What the bot knows of the owners between two changes of them, for one seat (`me`), with
/// what it was read from: the owner of each deed, the seat, and (for the trade candidates) who
/// is still in. The same owners, seat and players give the same picture.
#[derive(Clone, Debug)]
pub(super) struct Picture {
    /// The version of the deeds it was read from ([`lanopoly_engine::deeds::Deeds::version`]):
    /// while the game's is the same, so are the owners, and nothing is compared.
    version: u64,
    owner: [u8; PROPERTIES],
    me: u8,
    /// Read with the trade candidates: then also keyed on who is still in (`active`).
    trades: bool,
    active: u8,
    /// The deeds of `me` ([`Game::holdings`]).
    pub held: u32,
    /// The colour groups `me` owns whole.
    pub whole: u8,
    /// The trade candidates of `me`, by colour group: the one active opponent holding all the
    /// group's missing streets, and those streets (see [`missing_from_one_opponent`]).
    wants: [(u8, u32); COLOUR_GROUPS],
    wants_len: u8,
}

impl Picture {
    /// Make `kept` the picture of `game` for `me`: kept as it is if the owners are still the
    /// ones it was read from, else read again. A bot that never trades (`trades` false) has no
    /// trade candidates to read, and its picture (its deeds and groups) does not depend on who
    /// is still in: it is checked against the owners alone (28 bytes, a few instructions).
    #[inline]
    pub(super) fn refresh(kept: &mut Option<Picture>, game: &Game, me: u8, trades: bool) {
        let version = game.deeds.version();
        match kept {
            Some(picture)
                if picture.me == me
                    && picture.trades == trades
                    && (!trades || picture.active == game.active_mask()) =>
            {
                // A new version with the same owners (a building, a mortgage): still true.
                if picture.version != version {
                    if picture.owner != *game.deeds.owners() {
                        *picture = Picture::read(game, me, trades);
                    }
                    picture.version = version;
                }
            }
            _ => *kept = Some(Picture::read(game, me, trades)),
        }
    }

    /// Read the owners: the bot's deeds, then its groups (the trade candidates if it `trades`).
    /// Out of line: a few dozen times a game, against a check at every decision.
    #[inline(never)]
    fn read(game: &Game, me: u8, trades: bool) -> Picture {
        let held = game.holdings(me);
        let mut wants = [(NOBODY, 0); COLOUR_GROUPS];
        let mut wants_len = 0;
        let groups = if trades { COLOUR_GROUPS as u8 } else { 0 };
        for group in 0..groups {
            if let Some(want) = missing_from_one_opponent(game, me, held, group) {
                wants[wants_len] = want;
                wants_len += 1;
            }
        }
        Picture {
            version: game.deeds.version(),
            owner: *game.deeds.owners(),
            me,
            trades,
            active: if trades { game.active_mask() } else { 0 },
            held,
            whole: board::whole_groups(held),
            wants,
            wants_len: wants_len as u8,
        }
    }

    /// The trade candidates of `me`, by colour group: (holder, missing streets); none for a bot
    /// that never trades.
    pub(super) fn wants(&self) -> &[(u8, u32)] {
        &self.wants[..self.wants_len as usize]
    }
}

/// If `seat` (holding the deeds in `held`) owns some of `group` and all the rest belongs to one
/// active opponent (at most two streets), that opponent and the mask of the missing streets.
pub(super) fn missing_from_one_opponent(game: &Game, seat: u8, held: u32, group: u8) -> Option<(u8, u32)> {
    let mask = GROUP_MASKS[group as usize];
    let missing = mask & !held;
    if missing == 0 || missing == mask || missing.count_ones() > 2 {
        return None;
    }
    let holder = game.owner(missing.trailing_zeros() as u8);
    let one_holder = board::bits(missing).all(|p| game.owner(p) == holder);
    (holder != NOBODY && holder != seat && one_holder && !game.player(holder).bankrupt).then_some((holder, missing))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play, Streams};
    use lanopoly_engine::{BoardId, Rules};

    /// A picture kept from input to input is the picture read afresh, at every step of full
    /// games with trades, building, mortgages and bankruptcies.
    #[test]
    fn a_kept_picture_is_the_board_read_afresh() {
        for seed in 0..4 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut bots: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            let mut kept: [Option<Picture>; 4] = Default::default();
            play(&mut game, &mut bots, &mut streams, 20_000, |game, _, _| {
                for seat in game.seats() {
                    Picture::refresh(&mut kept[seat as usize], game, seat, true);
                    let picture = kept[seat as usize].as_ref().expect("just refreshed");
                    assert_eq!(picture.held, game.holdings(seat));
                    assert_eq!(picture.whole, board::whole_groups(game.holdings(seat)));
                    let wants: Vec<_> = (0..COLOUR_GROUPS as u8)
                        .filter_map(|g| missing_from_one_opponent(game, seat, game.holdings(seat), g))
                        .collect();
                    assert_eq!(picture.wants(), &wants[..], "seat {seat} at step {}", game.step);
                }
            });
        }
    }
}
