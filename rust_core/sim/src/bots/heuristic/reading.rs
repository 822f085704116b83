//! Reading the board for the heuristic bot: the danger it runs, rents, and who holds which groups.

use super::*;

/// The highest rent an opponent can charge the bot on one landing now (utilities at a roll of 7).
///
/// The same value as the largest [`Game::rent`] over the opponents' deeds (a test checks it),
/// read from the mask of all their deeds at once (the bot's largest cost was a pass over each
/// opponent's streets): a railway's or utility's rent depends only on how many of them its owner
/// holds, a built street's is read street by street (few are built), and among the unbuilt
/// streets the one of highest index earns the most ([`UNBUILT_RENT_GROWS`]), doubled when its
/// group has one owner.
pub(super) fn danger(game: &Game, me: u8) -> u32 {
    // (The order of the unbuilt rents is checked when this compiles.)
    #[allow(clippy::let_unit_value)]
    let () = UNBUILT_RENT_GROWS;
    // The deeds of the active opponents: owned, not by the bot, not by a bankrupt seat.
    let mut theirs = ALL_DEEDS & !game.holdings(NOBODY) & !game.holdings(me);
    for seat in game.seats().filter(|&s| s != me && game.player(s).bankrupt) {
        theirs &= !game.holdings(seat);
    }
    let earning = theirs & !game.mortgaged();
    let mut worst = 0;
    let held_by = |p: u8, among: u32| board::bits(among).filter(move |&q| game.owner(q) == game.owner(p));
    for p in board::bits(earning & RAILWAY_MASK) {
        worst = worst.max(board::RAILWAY_RENT[held_by(p, RAILWAY_MASK).count()]);
    }
    for p in board::bits(earning & UTILITY_MASK) {
        worst = worst.max(board::UTILITY_FACTOR[held_by(p, UTILITY_MASK).count()] * 7);
    }
    let streets = earning & STREETS;
    let built = streets & game.built();
    for p in board::bits(built) {
        worst = worst.max(DEEDS[p as usize].rents[game.level(p) as usize]);
    }
    // The opponents' streets whose whole group one of them holds (mortgaged ones included).
    let mut whole = 0;
    for (g, &group) in GROUP_MASKS.iter().enumerate() {
        if theirs & group == group && game.group_owner(g as u8).is_some() {
            whole |= group;
        }
    }
    let highest_rent = |unbuilt: u32| match unbuilt {
        0 => 0,
        m => DEEDS[31 - m.leading_zeros() as usize].rents[0],
    };
    let unbuilt = streets & !built;
    worst.max(highest_rent(unbuilt & whole) * 2).max(highest_rent(unbuilt & !whole))
}

/// Every deed.
pub(super) const ALL_DEEDS: u32 = (1 << PROPERTIES) - 1;

/// The unbuilt rent never falls from one street to the next in board order, so the highest
/// unbuilt rent among some streets is that of the last of them ([`danger`] relies on it; the
/// build fails if the deeds ever break it).
const UNBUILT_RENT_GROWS: () = {
    let mut last = 0;
    let mut p = 0;
    while p < PROPERTIES {
        if STREETS & 1 << p != 0 {
            assert!(DEEDS[p].rents[0] >= last, "danger: the unbuilt rents must not fall in board order");
            last = DEEDS[p].rents[0];
        }
        p += 1;
    }
};

/// The streets (the deeds of the colour groups).
const STREETS: u32 = {
    let mut streets = 0;
    let mut g = 0;
    while g < GROUP_MASKS.len() {
        streets |= GROUP_MASKS[g];
        g += 1;
    }
    streets
};

/// Rent the deed earns on one landing now (utilities at a roll of 7).
pub(super) fn income(game: &Game, property: u8) -> u32 {
    game.rent(property, 7)
}

/// Does buying `property` give `me` its whole colour group?
pub(super) fn completes_group(game: &Game, me: u8, property: u8) -> bool {
    let Some(group) = DEEDS[property as usize].group() else { return false };
    board::group_members(group).all(|p| p == property || game.owner(p) == me)
}

/// Would `property` otherwise complete the group of one opponent (who owns all its other streets)?
pub(super) fn blocks_group(game: &Game, me: u8, property: u8) -> bool {
    let Some(group) = DEEDS[property as usize].group() else { return false };
    let mut others = board::group_members(group).filter(|&p| p != property).map(|p| game.owner(p));
    let first = others.next().unwrap_or(NOBODY);
    first != NOBODY && first != me && others.all(|o| o == first)
}

/// Is `property` a street of a group that one player owns whole?
pub(super) fn in_complete_group(game: &Game, property: u8) -> bool {
    DEEDS[property as usize].group().is_some_and(|g| game.group_owner(g).is_some())
}

/// The streets of the colour groups the deeds `held` hold whole: for a deed of a seat holding
/// `held`, [`in_complete_group`] is its bit here (its group has one owner if and only if that
/// seat holds the whole group), read once for all the seat's deeds.
pub(super) fn whole_streets(held: u32) -> u32 {
    GROUP_MASKS.iter().fold(0, |streets, &group| if held & group == group { streets | group } else { streets })
}

/// Streets of the bot's complete groups.
pub(super) fn buildable_streets(game: &Game, me: u8) -> impl Iterator<Item = u8> + '_ {
    board::bits(game.holdings(me)).filter(move |&p| {
        matches!(DEEDS[p as usize].kind, Kind::Street(g) if game.group_owner(g) == Some(me)) && game.level(p) != HOTEL
    })
}

/// Rent added by one more building level on a street (from the double unbuilt rent for 0).
pub(super) fn rent_gain(game: &Game, property: u8) -> u32 {
    let deed = &DEEDS[property as usize];
    let level = game.level(property);
    if level == HOTEL {
        return 0;
    }
    let now = if level == 0 { deed.rents[0] * 2 } else { deed.rents[level as usize] };
    let next =
        if level == game.rules.houses_per_hotel { deed.rents[HOTEL as usize] } else { deed.rents[level as usize + 1] };
    next.saturating_sub(now)
}

/// Rent lost by selling one building level on a street.
pub(super) fn rent_loss(game: &Game, property: u8) -> u32 {
    let deed = &DEEDS[property as usize];
    let level = game.level(property);
    let below = if level == HOTEL { game.rules.houses_per_hotel } else { level.saturating_sub(1) };
    let below_rent = if below == 0 { deed.rents[0] * 2 } else { deed.rents[below as usize] };
    deed.rents[level as usize].saturating_sub(below_rent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play, Streams};
    use lanopoly_engine::{BoardId, Rules};

    /// For every deed of every seat, `whole_streets` of the seat's deeds tells what
    /// `in_complete_group` tells, at every step of full games (groups completed by purchases,
    /// trades and bankruptcies); and some deeds are in complete groups, some not.
    #[test]
    fn whole_streets_tell_the_complete_groups_of_ones_deeds() {
        let mut counts = [0u32; 2];
        for seed in 0..4 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut bots: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut bots, &mut streams, 20_000, |game, _, _| {
                for seat in game.seats() {
                    let held = game.holdings(seat);
                    for p in board::bits(held) {
                        let complete = in_complete_group(game, p);
                        assert_eq!(whole_streets(held) & 1 << p != 0, complete, "seat {seat}, deed {p}");
                        counts[complete as usize] += 1;
                    }
                }
            });
        }
        assert!(counts.iter().all(|&n| n > 1000), "{counts:?}");
    }

    /// The danger as first written: the largest rent of any active opponent's deed.
    fn danger_by_rent(game: &Game, me: u8) -> u32 {
        (0..PROPERTIES as u8)
            .filter(|&p| {
                let owner = game.owner(p);
                owner != NOBODY && owner != me && !game.player(owner).bankrupt
            })
            .map(|p| game.rent(p, 7))
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn danger_is_the_highest_rent_of_an_opponent() {
        for seed in 0..6 {
            let mut game = Game::new(4, BoardId::Classic, Rules::default()).expect("a valid game");
            let mut bots: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut bots, &mut streams, 20_000, |game, _, _| {
                for seat in game.seats() {
                    assert_eq!(danger(game, seat), danger_by_rent(game, seat), "seat {seat} at step {}", game.step);
                }
            });
        }
    }
}
