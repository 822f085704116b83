//! A version that names the contents of a game's deeds: who owns each title deed, the buildings
//! on it and its mortgage ([`crate::Game::deeds_version`]).
//!
//! Bots read these at every decision and derive much from them (their deeds, whole groups,
//! danger, trade candidates) that changes only a few dozen times a game. So that they can keep
//! what they derived, every change takes a new version: a number drawn from one process-wide
//! counter, so two games with the same version have the same deeds, whatever games they are (a
//! clone keeps its original's version until either changes). The three fields of [`crate::Game`]
//! are private for that reason: everything, the engine's own rules and the tests that build a
//! position alike, writes them through the setters that take a new version.
//!
//! The version is no part of the state: it is neither encoded (snapshots, the state hash: a
//! decoded state takes a fresh version) nor compared (`PartialEq`: any two are equal). It never
//! reaches game state, so its values (which depend on what else the process did, and on thread
//! scheduling) cannot change a game.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A version of a game's deeds: unique in the process (64 bits: it never wraps).
#[derive(Clone, Copy)]
pub struct DeedsVersion(u64);

/// The last version handed out.
static LAST_VERSION: AtomicU64 = AtomicU64::new(0);

impl DeedsVersion {
    /// A version no other game has had.
    pub(crate) fn fresh() -> DeedsVersion {
        DeedsVersion(LAST_VERSION.fetch_add(1, Relaxed) + 1)
    }

    /// The number: equal numbers, equal deeds.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl Default for DeedsVersion {
    /// A fresh version (what a decoded state takes).
    fn default() -> DeedsVersion {
        DeedsVersion::fresh()
    }
}

impl PartialEq for DeedsVersion {
    /// Always: the version is no part of the state, and two equal states may have two.
    fn eq(&self, _: &DeedsVersion) -> bool {
        true
    }
}

impl Eq for DeedsVersion {}

impl std::fmt::Debug for DeedsVersion {
    /// Nothing of the number: it depends on the process, and a state's debug text should not.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeedsVersion")
    }
}

#[cfg(test)]
mod tests {
    use crate::board::PROPERTIES;
    use crate::{BoardId, Game, Rules, NOBODY};

    #[test]
    fn every_change_of_the_deeds_takes_a_new_version_and_nothing_else_does() {
        let mut game = Game::new(2, BoardId::Classic, Rules::default()).expect("a valid game");
        let mut seen = vec![game.deeds_version()];
        let changes: [&dyn Fn(&mut Game); 4] =
            [&|g| g.set_owner(3, 1), &|g| g.set_level(3, 2), &|g| g.set_mortgaged(1 << 5), &|g| g.set_owner(3, NOBODY)];
        for change in changes {
            change(&mut game);
            assert!(!seen.contains(&game.deeds_version()), "a change kept an old version");
            seen.push(game.deeds_version());
        }
        let before = game.deeds_version();
        game.set_owner(3, NOBODY);
        game.set_level(3, 2);
        game.set_mortgaged(1 << 5);
        game.player_mut(0).cash += 1;
        assert_eq!(game.deeds_version(), before, "setting what is there already is no change");
        assert_eq!(game.clone().deeds_version(), before, "a clone has its original's deeds");
    }

    #[test]
    fn a_decoded_state_is_equal_with_a_version_of_its_own() {
        let mut game = Game::new(2, BoardId::Classic, Rules::default()).expect("a valid game");
        game.set_owner(0, 1);
        let decoded = Game::from_bytes(&game.to_bytes()).expect("a valid state");
        assert_eq!(decoded, game);
        assert_eq!(decoded.owners(), game.owners());
        assert_ne!(decoded.deeds_version(), game.deeds_version());
        assert_eq!(decoded.owners().len(), PROPERTIES);
    }
}
