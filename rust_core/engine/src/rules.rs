//! Rule options and the named presets of RULES.md.
//!
//! The defaults are the official game ("official", the French C1009 book 000); every variant the
//! rulebooks name is an option here, and the presets are combinations of them. The rules are part
//! of the state (and its hash): every peer plays exactly the same game.
//!
//! Options added after games were first recorded (`reshuffle_decks`, `max_players`,
//! `build_in_own_turn`, `shortage_opening_bid`) read, when a recorded rule set lacks them, as the
//! value that plays the game as it was played before they existed ([`Rules::legacy`]): a log
//! saved then replays to the same states and hashes.

use serde::{Deserialize, Serialize};

/// When rent on an owned property is paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RentClaim {
    /// Rent is collected automatically on landing (the Paris app 004).
    Automatic,
    /// The owner must claim it before the next player rolls (Italian 001, Norwegian 003).
    BeforeNextRoll,
    /// The owner must claim it before the second player after the debtor rolls (French C1009
    /// 000, the default).
    BeforeSecondNextRoll,
}

/// Every option of the game. Amounts are in currency units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    pub starting_cash: u32,
    /// Salary for passing or landing on GO.
    pub go_salary: u32,
    /// Stopping exactly on GO by a move of the dice pays twice the salary (house rule "400 on
    /// GO", 004: «quand on s'arrête pile sur la case Départ»); a card that sends to GO pays what
    /// it says.
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
    #[serde(default = "legacy::rent_claim")]
    pub rent_claim: RentClaim,
    /// Title deeds dealt at random to each player at the start, who pays the bank for them.
    pub starting_deeds: u8,
    /// The game ends when this many players are bankrupt and the richest remaining wins; 0 means
    /// play to the last player standing.
    pub end_after_bankruptcies: u8,
    /// The game may be ended by an explicit `EndGame` action (time limit agreed at the start).
    pub timed: bool,
    /// Each pass through a deck is a fresh shuffle. Off (the books): a card drawn goes under the
    /// deck, so once every card has been seen the order repeats (see [`crate::cards`]).
    #[serde(default = "legacy::reshuffle_decks")]
    pub reshuffle_decks: bool,
    /// Most players in a game: 8 (the C1009 box has 8 tokens), 6 for the Paris app 004 and the
    /// Norwegian book 003 («2 à 6 joueurs», «Spillere 2–6»).
    #[serde(default = "legacy::max_players")]
    pub max_players: u8,
    /// Building, selling buildings, mortgaging and lifting mortgages only during one's own turn
    /// (004: «Pendant ton tour, tu peux construire, hypothéquer ou lever une hypothèque»). A
    /// debtor still raises money at any time, and a mortgaged deed just received is lifted or
    /// kept at once.
    #[serde(default = "legacy::build_in_own_turn")]
    pub build_in_own_turn: bool,
    /// In a building-shortage auction the asker leads at this premium (0: it may get the piece
    /// for its price; 10 in the Norwegian book 003: «med bud fra 10»).
    #[serde(default = "legacy::shortage_opening_bid")]
    pub shortage_opening_bid: u32,
}

/// The values of the options that recorded rule sets may lack: the game as it was played before
/// the option existed.
mod legacy {
    use super::RentClaim;

    pub fn rent_claim() -> RentClaim {
        RentClaim::Automatic
    }
    pub fn reshuffle_decks() -> bool {
        true
    }
    pub fn max_players() -> u8 {
        8
    }
    pub fn build_in_own_turn() -> bool {
        false
    }
    pub fn shortage_opening_bid() -> u32 {
        0
    }
}

impl Default for Rules {
    /// The official game: the French C1009 book (000).
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
            rent_claim: RentClaim::BeforeSecondNextRoll,
            starting_deeds: 0,
            end_after_bankruptcies: 0,
            timed: false,
            reshuffle_decks: false,
            max_players: 8,
            build_in_own_turn: false,
            shortage_opening_bid: 0,
        }
    }
}

/// The named presets, in the order they are listed to users.
pub const PRESETS: [&str; 8] = ["official", "paris-app", "it", "no", "paris-quick", "paris-house", "speed", "timed"];

impl Rules {
    /// The rules of a named preset, or `None` if there is no such preset.
    ///
    /// The printed books (`official` 000, `it` 001, `no` 003 and its 2001 variants `speed` and
    /// `timed`) make the owner claim rent; the Paris app (004: `paris-app`, `paris-quick`,
    /// `paris-house`) collects it by itself. Every preset puts drawn cards under the deck.
    pub fn preset(name: &str) -> Option<Rules> {
        let official = Rules::default();
        let paris_app = Rules {
            auctions: false,
            rent_claim: RentClaim::Automatic,
            max_players: 6,
            build_in_own_turn: true,
            ..official
        };
        let norwegian = Rules {
            opening_bid: 10,
            rent_claim: RentClaim::BeforeNextRoll,
            max_players: 6,
            shortage_opening_bid: 10,
            ..official
        };
        let rules = match name {
            "official" => official,
            "paris-app" => paris_app,
            "it" => Rules { opening_bid: 10, rent_claim: RentClaim::BeforeNextRoll, ..official },
            "no" => norwegian,
            "paris-quick" => Rules { round_limit: 25, free_parking_jackpot: true, ..paris_app },
            "paris-house" => {
                Rules { starting_cash: 2000, free_parking_jackpot: true, double_go_on_landing: true, ..paris_app }
            }
            "speed" => Rules { starting_deeds: 2, houses_per_hotel: 3, end_after_bankruptcies: 2, ..norwegian },
            "timed" => Rules { starting_deeds: 2, timed: true, ..norwegian },
            _ => return None,
        };
        Some(rules)
    }

    /// The default rules as they were before the options added since existed: automatic rent
    /// and a fresh shuffle each pass. A recorded rule set that lacks an option takes its value
    /// from here.
    pub fn legacy() -> Rules {
        Rules {
            rent_claim: legacy::rent_claim(),
            reshuffle_decks: legacy::reshuffle_decks(),
            max_players: legacy::max_players(),
            build_in_own_turn: legacy::build_in_own_turn(),
            shortage_opening_bid: legacy::shortage_opening_bid(),
            ..Rules::default()
        }
    }

    /// Do the options added since the first state format all have their [`Rules::legacy`]
    /// values? Such rules (and the states that carry them) keep that format's encoding.
    pub fn is_legacy_encodable(&self) -> bool {
        let legacy = Rules::legacy();
        self.reshuffle_decks == legacy.reshuffle_decks
            && self.max_players == legacy.max_players
            && self.build_in_own_turn == legacy.build_in_own_turn
            && self.shortage_opening_bid == legacy.shortage_opening_bid
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
        if !(2..=8).contains(&self.max_players) {
            return Err("max_players must be 2 to 8".into());
        }
        if self.starting_cash > 1_000_000
            || self.go_salary > 100_000
            || self.jail_fine > 100_000
            || self.shortage_opening_bid > 100_000
        {
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

    #[test]
    fn the_books_make_rent_claimed_and_the_app_collects_it() {
        let claim = |name: &str| Rules::preset(name).unwrap().rent_claim;
        assert_eq!(claim("official"), RentClaim::BeforeSecondNextRoll);
        for name in ["it", "no", "speed", "timed"] {
            assert_eq!(claim(name), RentClaim::BeforeNextRoll, "{name}");
        }
        for name in ["paris-app", "paris-quick", "paris-house"] {
            assert_eq!(claim(name), RentClaim::Automatic, "{name}");
        }
        assert!(PRESETS.iter().all(|name| !Rules::preset(name).unwrap().reshuffle_decks));
    }

    #[test]
    fn a_recorded_rule_set_without_the_new_options_plays_as_before() {
        let old = r#"{"starting_cash":1500,"go_salary":200,"double_go_on_landing":false,"auctions":true,
            "opening_bid":1,"free_parking_jackpot":false,"jailed_owner_collects":true,"even_building":true,
            "limited_buildings":true,"houses":32,"hotels":12,"houses_per_hotel":4,"jail_fine":50,
            "round_limit":0,"starting_deeds":0,"end_after_bankruptcies":0,"timed":false}"#;
        let rules: Rules = serde_json::from_str(old).unwrap();
        assert_eq!(rules, Rules::legacy());
        assert!(rules.is_legacy_encodable() && !Rules::default().is_legacy_encodable());
    }
}
