//! The heuristic bot's picture of the board: what it reads from who owns what (its deeds, the
//! groups it owns whole, the streets it could trade for), read again only when that changes.
//!
//! A game has about a thousand decisions and a few dozen changes of ownership, so reading the
//! owners once per change instead of once per decision (eight groups scanned for trades at each
//! decision of a trading bot) saves most of that work, and lets most decisions see at once that
//! there is nothing to manage ([`HeuristicBot::play_turn`]). The picture is keyed on the version
//! of the deeds it was read from ([`Game::deeds_version`], unique in the
//! process: equal versions, equal owners, whatever game the bot is handed, a search bot's copies
//! or a game loaded from a snapshot alike), and on a copy of the owners, compared only when the
//! version changed (a building or a mortgage changes the version, not the owners).

use super::*;

/// What the bot knows of the owners between two changes of them, for one seat (`me`), with
/// what it was read from: the owner of each deed, the seat, and (for the trade candidates) who
/// is still in. The same owners, seat and players give the same picture.
#[derive(Clone, Debug)]
pub(super) struct Picture {
    /// The version of the deeds it was read from ([`Game::deeds_version`]):
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
    /// Indexed by group; `wanted` has bit g set where group g has one.
    wants: [(u8, u32); COLOUR_GROUPS],
    wanted: u8,
}

impl Picture {
    /// Make `kept` the picture of `game` for `me`: kept as it is while the deeds' version is
    /// the one it was read from, or the owners still are; else updated (the groups of the deeds
    /// that changed hands) or read again (another seat, other players still in). A bot that
    /// never trades (`trades` false) has no trade candidates to read, and its picture (its deeds
    /// and groups) does not depend on who is still in.
    #[inline]
    pub(super) fn refresh(kept: &mut Option<Picture>, game: &Game, me: u8, trades: bool) {
        let version = game.deeds_version();
        match kept {
            Some(picture)
                if picture.me == me
                    && picture.trades == trades
                    && (!trades || picture.active == game.active_mask()) =>
            {
                // A new version with the same owners (a building, a mortgage): still true;
                // else only the groups of the deeds that changed hands are read again.
                if picture.version != version {
                    // (A bot that never trades reads all again: its deeds and groups only.)
                    let changed = match trades {
                        true => game.owners_changed_since(&picture.owner),
                        false if picture.owner != *game.owners() => ALL_DEEDS,
                        false => 0,
                    };
                    if changed != 0 {
                        picture.update(game, changed);
                    }
                    picture.version = version;
                }
            }
            _ => *kept = Some(Picture::read(game, me, trades)),
        }
    }

    /// Is this the picture `refresh` would keep as it is: read for `me` (with the trade
    /// candidates if `trades`) from the very deeds of `game` (the same version), and, for a
    /// trading bot, the same players still in? Then its deeds and groups are `game`'s.
    #[inline]
    pub(super) fn is_current(&self, game: &Game, me: u8, trades: bool) -> bool {
        self.version == game.deeds_version()
            && self.me == me
            && self.trades == trades
            && (!trades || self.active == game.active_mask())
    }

    /// Read the owners: the bot's deeds, then its groups (the trade candidates if it `trades`).
    /// Out of line: once a game, or when the seat or the players still in change.
    #[inline(never)]
    fn read(game: &Game, me: u8, trades: bool) -> Picture {
        let mut picture = Picture {
            version: game.deeds_version(),
            owner: [NOBODY; PROPERTIES],
            me,
            trades,
            active: if trades { game.active_mask() } else { 0 },
            held: 0,
            whole: 0,
            wants: [(NOBODY, 0); COLOUR_GROUPS],
            wanted: 0,
        };
        picture.update(game, ALL_DEEDS);
        picture
    }

    /// Read again what the owners of the deeds in `changed` tell: the bot's deeds and groups,
    /// and the trade candidates of the groups of those deeds (a candidate depends only on the
    /// owners of its group's streets, and on who is still in, which the picture is keyed on).
    /// Out of line: a few dozen times a game, against a check at every decision.
    #[inline(never)]
    fn update(&mut self, game: &Game, changed: u32) {
        self.owner = *game.owners();
        let held = game.holdings(self.me);
        if held != self.held {
            // (Mostly another seat's deeds changed hands: the bot's groups are as they were.)
            self.held = held;
            self.whole = board::whole_groups(held);
        }
        if !self.trades {
            return;
        }
        for (group, &mask) in (0..).zip(GROUP_MASKS.iter()) {
            if mask & changed != 0 {
                match missing_from_one_opponent(game, self.me, self.held, group) {
                    Some(want) => {
                        self.wants[group as usize] = want;
                        self.wanted |= 1 << group;
                    }
                    None => self.wanted &= !(1 << group),
                }
            }
        }
    }

    /// The trade candidates of `me`, by colour group in group order: (holder, missing streets);
    /// none for a bot that never trades.
    pub(super) fn wants(&self) -> impl Iterator<Item = (u8, u32)> + '_ {
        board::bits(self.wanted as u32).map(|g| self.wants[g as usize])
    }

    /// Has `me` any trade candidate?
    pub(super) fn has_wants(&self) -> bool {
        self.wanted != 0
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
                    assert_eq!(picture.wants().collect::<Vec<_>>(), wants, "seat {seat} at step {}", game.step);
                }
            });
        }
    }
}
