//! Who owns each title deed, the buildings on it and its mortgage, with a version that names
//! those contents.
//!
//! Bots read these at every decision and derive much from them (their deeds, whole groups,
//! danger, trade candidates) that changes only a few dozen times a game. So that they can keep
//! what they derived, every change takes a new [`Deeds::version`]: a number drawn from one
//! process-wide counter, so two `Deeds` with the same version hold the same contents, whatever
//! game they belong to (a clone keeps its original's version until either changes). The fields
//! are private for that reason: everything, the engine's own rules and the tests that build a
//! position alike, writes through the setters.
//!
//! The version is no part of the state: it is neither encoded (snapshots, the state hash: a
//! decoded `Deeds` takes a fresh version) nor compared (`PartialEq`), nor shown (`Debug`). It
//! never reaches game state, so its values (which depend on what else the process did, and on
//! thread scheduling) cannot change a game.

use crate::board::PROPERTIES;
use crate::state::NOBODY;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The owner, buildings and mortgage of every title deed. Encoded exactly as the three fields
/// it replaced in `Game` (postcard writes a struct's fields in order, without a header).
#[derive(Clone, Serialize, Deserialize)]
pub struct Deeds {
    /// Owner seat of each title deed, or [`NOBODY`] for the bank.
    owner: [u8; PROPERTIES],
    /// Buildings on each street: 0..=4 houses, or [`crate::HOTEL`].
    level: [u8; PROPERTIES],
    /// Bit mask of mortgaged title deeds.
    mortgaged: u32,
    #[serde(skip)]
    version: Version,
}

/// A version of the contents of a [`Deeds`]: unique in the process (64 bits: it never wraps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Version(u64);

/// The last version handed out.
static LAST_VERSION: AtomicU64 = AtomicU64::new(0);

impl Default for Version {
    /// A version no other `Deeds` has had.
    fn default() -> Version {
        Version(LAST_VERSION.fetch_add(1, Relaxed) + 1)
    }
}

impl Default for Deeds {
    /// Every deed with the bank, unbuilt and unmortgaged.
    fn default() -> Deeds {
        Deeds { owner: [NOBODY; PROPERTIES], level: [0; PROPERTIES], mortgaged: 0, version: Version::default() }
    }
}

impl PartialEq for Deeds {
    /// The same contents (the version aside: a decoded copy equals its original).
    fn eq(&self, other: &Deeds) -> bool {
        self.owner == other.owner && self.level == other.level && self.mortgaged == other.mortgaged
    }
}

impl Eq for Deeds {}

impl std::fmt::Debug for Deeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deeds")
            .field("owner", &self.owner)
            .field("level", &self.level)
            .field("mortgaged", &self.mortgaged)
            .finish()
    }
}

impl Deeds {
    /// These owners, levels and mortgages, under a new version.
    pub fn new(owner: [u8; PROPERTIES], level: [u8; PROPERTIES], mortgaged: u32) -> Deeds {
        Deeds { owner, level, mortgaged, version: Version::default() }
    }

    /// The owner seat of each deed ([`NOBODY`]: the bank).
    #[inline]
    pub fn owners(&self) -> &[u8; PROPERTIES] {
        &self.owner
    }

    /// The building level of each deed (0..=4 houses, or [`crate::HOTEL`]).
    #[inline]
    pub fn levels(&self) -> &[u8; PROPERTIES] {
        &self.level
    }

    /// The bit mask of mortgaged deeds.
    #[inline]
    pub fn mortgaged(&self) -> u32 {
        self.mortgaged
    }

    /// Names these contents: equal versions, equal contents (see the module docs). Unequal
    /// versions say nothing: the contents may have come back to what they were.
    #[inline]
    pub fn version(&self) -> u64 {
        self.version.0
    }

    /// Give deed `property` to `seat` ([`NOBODY`]: the bank).
    #[inline]
    pub fn set_owner(&mut self, property: u8, seat: u8) {
        if self.owner[property as usize] != seat {
            self.owner[property as usize] = seat;
            self.version = Version::default();
        }
    }

    /// Set the building level of deed `property`.
    #[inline]
    pub fn set_level(&mut self, property: u8, level: u8) {
        if self.level[property as usize] != level {
            self.level[property as usize] = level;
            self.version = Version::default();
        }
    }

    /// Set the mask of mortgaged deeds.
    #[inline]
    pub fn set_mortgaged(&mut self, mask: u32) {
        if self.mortgaged != mask {
            self.mortgaged = mask;
            self.version = Version::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_takes_a_new_version_and_nothing_else_does() {
        let mut deeds = Deeds::default();
        let mut seen = vec![deeds.version()];
        let mut change = |deeds: &mut Deeds, f: &dyn Fn(&mut Deeds)| {
            f(deeds);
            assert!(!seen.contains(&deeds.version()), "a change kept an old version");
            seen.push(deeds.version());
        };
        change(&mut deeds, &|d| d.set_owner(3, 1));
        change(&mut deeds, &|d| d.set_level(3, 2));
        change(&mut deeds, &|d| d.set_mortgaged(1 << 5));
        change(&mut deeds, &|d| d.set_owner(3, NOBODY));
        let before = deeds.version();
        deeds.set_owner(3, NOBODY);
        deeds.set_level(3, 2);
        deeds.set_mortgaged(1 << 5);
        assert_eq!(deeds.version(), before, "setting what is there already is no change");
        assert_eq!(deeds.clone().version(), before, "a clone has its original's contents");
    }

    #[test]
    fn a_decoded_copy_is_equal_with_a_version_of_its_own() {
        let mut deeds = Deeds::default();
        deeds.set_owner(0, 2);
        let bytes = postcard::to_allocvec(&deeds).unwrap();
        let decoded: Deeds = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(decoded, deeds);
        assert_ne!(decoded.version(), deeds.version());
        // The three fields, encoded as before: 28 owners, 28 levels, the mask (a varint).
        assert_eq!(bytes.len(), PROPERTIES * 2 + 1);
    }
}
