//! Rule options and the named presets of RULES.md.
//!
//! The defaults are the official game ("official"); every variant the rulebooks name is an option
//! here, and the presets are combinations of them. The rules are part of the state (and its hash):
//! every peer plays exactly the same game.

use serde::{Deserialize, Serialize};

/// When rent on an owned property is paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RentClaim {
    /// Rent is collected automatically on landing (default).
    Automatic,
    /// The owner must claim it before the next player rolls (Italian 001, Norwegian 003).
    BeforeNextRoll,
    /// The owner must claim it before the second player after the debtor rolls (French C1009 000).
    BeforeSecondNextRoll,
}

/// Every option of the game. Amounts are in currency units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    pub starting_cash: u32,
    /// Salary for passing or landing on GO.
    pub go_salary: u32,
    /// Landing exactly on GO pays twice the salary (house rule "400 on GO").
    pub double_go_on_landing: bool,
    /// A declined property is auctioned; off: it stays with the bank.
    pub auctions: bool,
    /// Lowest first bid in an auction (1 in seed 000, 10 in the Italian and Norwegian books).
    pub opening_bid: u32,
    /// Taxes and fines paid to the bank pile up; landing on Free Parking takes them.
    pub free_parking_jackpot: bool,
    /// A jailed owner still collects rent (default) or not.
    pub jailed_owner_collects: bool,
    /// Houses within a colour group must differ by at most one.
    pub even_building: bool,
    /// The bank has only `houses` and `hotels` pieces; off: unlimited.
    pub limited_buildings: bool,
    pub houses: u8,
    pub hotels: u8,
    /// Houses needed on a street (and on every street of its group) before a hotel: 4, or 3 in
    /// the Norwegian speed game.
    pub houses_per_hotel: u8,
    pub jail_fine: u32,
    /// After this many complete rounds the richest player wins; 0 means no limit.
    pub round_limit: u16,
    pub rent_claim: RentClaim,
    /// Title deeds dealt at random to each player at the start, who pays the bank for them.
    pub starting_deeds: u8,
    /// The game ends when this many players are bankrupt and the richest remaining wins; 0 means
    /// play to the last player standing.
    pub end_after_bankruptcies: u8,
    /// The game may be ended by an explicit `EndGame` action (time limit agreed at the start).
    pub timed: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            starting_cash: 1500,
            go_salary: 200,
            double_go_on_landing: false,
            auctions: true,
            opening_bid: 1,
            free_parking_jackpot: false,
            jailed_owner_collects: true,
            even_building: true,
            limited_buildings: true,
            houses: 32,
            hotels: 12,
            houses_per_hotel: 4,
            jail_fine: 50,
            round_limit: 0,
            rent_claim: RentClaim::Automatic,
            starting_deeds: 0,
            end_after_bankruptcies: 0,
            timed: false,
        }
    }
}

/// The named presets, in the order they are listed to users.
pub const PRESETS: [&str; 8] = ["official", "paris-app", "it", "no", "paris-quick", "paris-house", "speed", "timed"];

impl Rules {
    /// The rules of a named preset, or `None` if there is no such preset.
    pub fn preset(name: &str) -> Option<Rules> {
        let official = Rules::default();
        let paris_app = Rules { auctions: false, ..official };
        let rules = match name {
            "official" => official,
            "paris-app" => paris_app,
            "it" | "no" => Rules { opening_bid: 10, ..official },
            "paris-quick" => Rules { round_limit: 25, free_parking_jackpot: true, ..paris_app },
            "paris-house" => {
                Rules { starting_cash: 2000, free_parking_jackpot: true, double_go_on_landing: true, ..paris_app }
            }
            "speed" => {
                Rules { opening_bid: 10, starting_deeds: 2, houses_per_hotel: 3, end_after_bankruptcies: 2, ..official }
            }
            "timed" => Rules { opening_bid: 10, starting_deeds: 2, timed: true, ..official },
            _ => return None,
        };
        Some(rules)
    }

    /// The "free building" option: no even building and unlimited houses and hotels.
    pub fn with_free_building(self) -> Rules {
        Rules { even_building: false, limited_buildings: false, ..self }
    }

    /// Check that the options make a playable game; the error says which option is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=4).contains(&self.houses_per_hotel) {
            return Err("houses_per_hotel must be 1 to 4".into());
        }
        if self.opening_bid == 0 {
            return Err("opening_bid must be at least 1".into());
        }
        if self.starting_deeds > 3 {
            return Err("starting_deeds must be 0 to 3 (28 deeds for up to 8 players)".into());
        }
        if self.starting_cash > 1_000_000 || self.go_salary > 100_000 || self.jail_fine > 100_000 {
            return Err("amounts must stay below 1,000,000".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_exists_and_is_valid() {
        for name in PRESETS {
            let rules = Rules::preset(name).unwrap();
            rules.validate().unwrap();
        }
        assert!(Rules::preset("monopoly-deluxe").is_none());
    }

    #[test]
    fn presets_match_rules_md() {
        let quick = Rules::preset("paris-quick").unwrap();
        assert_eq!((quick.round_limit, quick.free_parking_jackpot, quick.auctions), (25, true, false));
        let house = Rules::preset("paris-house").unwrap();
        assert_eq!(house.starting_cash, 2000);
        assert!(house.double_go_on_landing && house.free_parking_jackpot);
        let speed = Rules::preset("speed").unwrap();
        assert_eq!((speed.starting_deeds, speed.houses_per_hotel, speed.end_after_bankruptcies), (2, 3, 2));
        assert_eq!(Rules::preset("it").unwrap().opening_bid, 10);
    }
}
