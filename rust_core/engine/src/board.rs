//! The board: the 40 squares, the 28 title deeds and their rent tables.
//!
//! Squares, prices, rents and house costs are the same on every edition (see RULES.md, "Boards");
//! only names, currency and the card texts differ, and those live in [`crate::edition`].

/// Number of squares on the board.
pub const SQUARES: usize = 40;
/// Number of title deeds (22 streets, 4 railways, 2 utilities).
pub const PROPERTIES: usize = 28;
/// Number of colour groups of streets.
pub const COLOUR_GROUPS: usize = 8;

pub const GO: u8 = 0;
pub const JAIL: u8 = 10;
pub const FREE_PARKING: u8 = 20;
pub const GO_TO_JAIL: u8 = 30;

/// Which of the two card decks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Deck {
    Chance = 0,
    CommunityChest = 1,
}

/// What a square is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Square {
    Go,
    /// A title deed, by property index (0..28).
    Property(u8),
    Tax(u32),
    Card(Deck),
    Jail,
    FreeParking,
    GoToJail,
}

/// What kind of title deed a property is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A street of colour group 0..8 (brown, light blue, pink, orange, red, yellow, green, dark blue).
    Street(u8),
    Railway,
    Utility,
}

/// One title deed: where it is, what it costs, what it earns.
#[derive(Clone, Copy, Debug)]
pub struct Deed {
    pub square: u8,
    pub kind: Kind,
    pub price: u32,
    /// Street rent unbuilt, then with 1..4 houses, then with a hotel. Unused for railways/utilities.
    pub rents: [u32; 6],
    pub house_cost: u32,
}

impl Deed {
    /// Mortgage value: half the printed price.
    pub const fn mortgage_value(&self) -> u32 {
        self.price / 2
    }

    /// Cost of lifting the mortgage: the value plus 10 %, rounded up to a whole unit.
    pub const fn unmortgage_cost(&self) -> u32 {
        self.mortgage_value() + self.mortgage_interest()
    }

    /// 10 % of the mortgage value, rounded up (the interest and the transfer fee).
    pub const fn mortgage_interest(&self) -> u32 {
        self.mortgage_value().div_ceil(10)
    }

    pub const fn group(&self) -> Option<u8> {
        match self.kind {
            Kind::Street(g) => Some(g),
            _ => None,
        }
    }
}

const fn street(square: u8, group: u8, price: u32, house_cost: u32, rents: [u32; 6]) -> Deed {
    Deed { square, kind: Kind::Street(group), price, rents, house_cost }
}
const fn railway(square: u8) -> Deed {
    Deed { square, kind: Kind::Railway, price: 200, rents: [0; 6], house_cost: 0 }
}
const fn utility(square: u8) -> Deed {
    Deed { square, kind: Kind::Utility, price: 150, rents: [0; 6], house_cost: 0 }
}

/// The 28 title deeds in board order.
pub const DEEDS: [Deed; PROPERTIES] = [
    street(1, 0, 60, 50, [2, 10, 30, 90, 160, 250]),
    street(3, 0, 60, 50, [4, 20, 60, 180, 320, 450]),
    railway(5),
    street(6, 1, 100, 50, [6, 30, 90, 270, 400, 550]),
    street(8, 1, 100, 50, [6, 30, 90, 270, 400, 550]),
    street(9, 1, 120, 50, [8, 40, 100, 300, 450, 600]),
    street(11, 2, 140, 100, [10, 50, 150, 450, 625, 750]),
    utility(12),
    street(13, 2, 140, 100, [10, 50, 150, 450, 625, 750]),
    street(14, 2, 160, 100, [12, 60, 180, 500, 700, 900]),
    railway(15),
    street(16, 3, 180, 100, [14, 70, 200, 550, 750, 950]),
    street(18, 3, 180, 100, [14, 70, 200, 550, 750, 950]),
    street(19, 3, 200, 100, [16, 80, 220, 600, 800, 1000]),
    street(21, 4, 220, 150, [18, 90, 250, 700, 875, 1050]),
    street(23, 4, 220, 150, [18, 90, 250, 700, 875, 1050]),
    street(24, 4, 240, 150, [20, 100, 300, 750, 925, 1100]),
    railway(25),
    street(26, 5, 260, 150, [22, 110, 330, 800, 975, 1150]),
    street(27, 5, 260, 150, [22, 110, 330, 800, 975, 1150]),
    utility(28),
    street(29, 5, 280, 150, [24, 120, 360, 850, 1025, 1200]),
    street(31, 6, 300, 200, [26, 130, 390, 900, 1100, 1275]),
    street(32, 6, 300, 200, [26, 130, 390, 900, 1100, 1275]),
    street(34, 6, 320, 200, [28, 150, 450, 1000, 1200, 1400]),
    railway(35),
    street(37, 7, 350, 200, [35, 175, 500, 1100, 1300, 1500]),
    street(39, 7, 400, 200, [50, 200, 600, 1400, 1700, 2000]),
];

/// Railway rent by number of railways the owner has (1..=4).
pub const RAILWAY_RENT: [u32; 5] = [0, 25, 50, 100, 200];
/// Utility rent multiplier of the dice by number of utilities owned (1..=2).
pub const UTILITY_FACTOR: [u32; 3] = [0, 4, 10];

/// The 40 squares in board order.
pub const LAYOUT: [Square; SQUARES] = {
    let mut squares = [Square::FreeParking; SQUARES];
    let mut i = 0;
    while i < PROPERTIES {
        squares[DEEDS[i].square as usize] = Square::Property(i as u8);
        i += 1;
    }
    squares[0] = Square::Go;
    squares[2] = Square::Card(Deck::CommunityChest);
    squares[4] = Square::Tax(200);
    squares[7] = Square::Card(Deck::Chance);
    squares[10] = Square::Jail;
    squares[17] = Square::Card(Deck::CommunityChest);
    squares[20] = Square::FreeParking;
    squares[22] = Square::Card(Deck::Chance);
    squares[30] = Square::GoToJail;
    squares[33] = Square::Card(Deck::CommunityChest);
    squares[36] = Square::Card(Deck::Chance);
    squares[38] = Square::Tax(100);
    squares
};

/// Property index of the deed on `square`, if it has one.
pub const fn property_at(square: u8) -> Option<u8> {
    match LAYOUT[square as usize] {
        Square::Property(p) => Some(p),
        _ => None,
    }
}

/// Bit mask (over property indices) of the streets of each colour group.
pub const GROUP_MASKS: [u32; COLOUR_GROUPS] = {
    let mut masks = [0u32; COLOUR_GROUPS];
    let mut i = 0;
    while i < PROPERTIES {
        if let Kind::Street(g) = DEEDS[i].kind {
            masks[g as usize] |= 1 << i;
        }
        i += 1;
    }
    masks
};

/// Bit mask of the four railways.
pub const RAILWAY_MASK: u32 = kind_mask(Kind::Railway);
/// Bit mask of the two utilities.
pub const UTILITY_MASK: u32 = kind_mask(Kind::Utility);

const fn kind_mask(kind: Kind) -> u32 {
    let mut mask = 0u32;
    let mut i = 0;
    while i < PROPERTIES {
        let same = matches!((DEEDS[i].kind, kind), (Kind::Railway, Kind::Railway) | (Kind::Utility, Kind::Utility));
        if same {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

/// The streets of one colour group, as property indices, in board order.
pub fn group_members(group: u8) -> impl Iterator<Item = u8> {
    bits(GROUP_MASKS[group as usize])
}

/// The colour groups a set of deeds (a bit mask) holds whole: bit g for group g.
pub fn whole_groups(deeds: u32) -> u8 {
    let mut groups = 0u8;
    for (g, &members) in GROUP_MASKS.iter().enumerate() {
        if deeds & members == members {
            groups |= 1 << g;
        }
    }
    groups
}

/// Iterate over the set bits of a mask, lowest first.
pub fn bits(mut mask: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        Some(i)
    })
}

/// The first square of the given kind strictly ahead of `from`, going round the board.
pub fn nearest(from: u8, mask: u32) -> u8 {
    (1..=SQUARES as u8)
        .map(|d| (from + d) % SQUARES as u8)
        .find(|&s| property_at(s).is_some_and(|p| mask & (1 << p) != 0))
        .expect("the board has at least one square of each kind")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_has_the_classic_counts() {
        let count = |f: &dyn Fn(&Square) -> bool| LAYOUT.iter().filter(|s| f(s)).count();
        assert_eq!(count(&|s| matches!(s, Square::Property(_))), 28);
        assert_eq!(count(&|s| matches!(s, Square::Card(Deck::Chance))), 3);
        assert_eq!(count(&|s| matches!(s, Square::Card(Deck::CommunityChest))), 3);
        assert_eq!(count(&|s| matches!(s, Square::Tax(_))), 2);
        assert_eq!(GROUP_MASKS.iter().map(|m| m.count_ones()).sum::<u32>(), 22);
        assert_eq!(RAILWAY_MASK.count_ones(), 4);
        assert_eq!(UTILITY_MASK.count_ones(), 2);
    }

    #[test]
    fn mortgage_figures() {
        let boardwalk = DEEDS[27];
        assert_eq!(boardwalk.mortgage_value(), 200);
        assert_eq!(boardwalk.unmortgage_cost(), 220);
        // Mediterranean: value 30, +10 % = 3.
        assert_eq!(DEEDS[0].unmortgage_cost(), 33);
        // Oriental: value 50 -> 55; St. Charles: 70 -> 77; Kentucky 110 -> 121.
        assert_eq!(DEEDS[3].unmortgage_cost(), 55);
        assert_eq!(DEEDS[6].unmortgage_cost(), 77);
        assert_eq!(DEEDS[14].unmortgage_cost(), 121);
    }

    #[test]
    fn nearest_wraps_around() {
        assert_eq!(nearest(7, RAILWAY_MASK), 15);
        assert_eq!(nearest(36, RAILWAY_MASK), 5);
        assert_eq!(nearest(22, UTILITY_MASK), 28);
        assert_eq!(nearest(36, UTILITY_MASK), 12);
    }
}
