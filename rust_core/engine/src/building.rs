//! Houses, hotels and mortgages: what an owner does with its deeds.
//!
//! Building needs the whole colour group, unmortgaged; it goes evenly (a hotel counts as one level
//! above the last house) and draws on the bank's real stock of 32 houses and 12 hotels. Selling
//! goes evenly back down at half price; a hotel comes down to houses only if the bank has them,
//! otherwise the group is sold down at once ([`crate::action::Action::SellDown`]) to a state the
//! stock allows.
//!
//! Building shortage: when a player asks for a piece and the bank has fewer of that piece than
//! there are players able to build one right now (the asker and at least one other), the piece is
//! auctioned among them instead (see [`crate::auction`]). The asker leads at the premium
//! `shortage_opening_bid` (0, or 10 in the Norwegian book), so it must be able to pay that on top
//! of the price to ask.

use crate::board::{self, COLOUR_GROUPS, DEEDS, GROUP_MASKS};
use crate::error::{Checked, Refusal};
use crate::event::{Event, Party, Reason};
use crate::state::{Game, HOTEL};
use crate::{deny, ensure};

impl Game {
    /// The deed on `square`, owned by `p`, or why not.
    pub(crate) fn own_deed<R: Refusal>(&self, p: u8, square: u8) -> Checked<u8, R> {
        ensure!(square < 40, "there is no square {number}", number = square);
        let Some(property) = board::property_at(square) else {
            deny!("{square} is not a property", square = self.square_name(square))
        };
        ensure!(self.owner(property) == p, "you do not own {square}", square = self.square_name(square));
        Ok(property)
    }

    pub fn square_name(&self, square: u8) -> &'static str {
        self.edition().squares.get(square as usize).copied().unwrap_or("?")
    }

    fn group_heights(&self, group: u8) -> impl Iterator<Item = u8> + '_ {
        board::group_members(group).map(move |q| self.height(self.level(q)))
    }

    /// Can `p` add a level on `square`? Returns whether the new piece is a hotel.
    pub(crate) fn check_build<R: Refusal>(&self, p: u8, square: u8) -> Checked<bool, R> {
        let property = self.own_deed::<R>(p, square)?;
        let name = self.square_name(square);
        let Some(group) = DEEDS[property as usize].group() else {
            deny!("{square} is not a street: railways and utilities carry no buildings", square = name)
        };
        ensure!(
            self.group_owner(group) == Some(p),
            "you need the whole colour group of {square} to build",
            square = name
        );
        ensure!(
            GROUP_MASKS[group as usize] & self.mortgaged() == 0,
            "a street of this group is mortgaged: lift it first"
        );
        let level = self.level(property);
        ensure!(level != HOTEL, "{square} already has a hotel", square = name);
        let hotel = level == self.rules.houses_per_hotel;
        if self.rules.even_building {
            let lowest = self.group_heights(group).min().unwrap_or(0);
            ensure!(
                level == lowest,
                "build evenly: another street of the group has fewer buildings than {square}",
                square = name
            );
        }
        let cost = DEEDS[property as usize].house_cost;
        ensure!(
            self.player(p).cash >= cost,
            "a building on {square} costs {cost}; you have {cash}",
            square = name,
            cost = cost,
            cash = self.player(p).cash
        );
        if self.rules.limited_buildings {
            if hotel {
                ensure!(self.hotels_left > 0, "the bank has no hotels left");
            } else {
                ensure!(self.houses_left > 0, "the bank has no houses left");
            }
        }
        Ok(hotel)
    }

    /// Seats that could build a piece of this kind right now (only the turn player when building
    /// waits for one's own turn: no one else wants the piece then).
    pub(crate) fn able_to_build(&self, hotel: bool) -> u8 {
        self.active()
            .filter(|&q| self.may_manage_now(q) && self.cheapest_build(q, hotel).is_some())
            .fold(0, |m, q| m | 1 << q)
    }

    /// The cheapest building of this kind `q` could place now, if any: the least house cost of
    /// the streets where [`Game::check_build`] allows a piece of this kind. Its conditions are
    /// read group by group, not asked street by street (about 130 instructions each, 1,200 a
    /// call, at every bid of a shortage auction and for every seat at a build in a short bank):
    /// a group `q` holds whole with no street mortgaged, a street without a hotel whose next
    /// piece is of this kind, at the group's lowest height when building goes evenly, within
    /// the cash, and a piece of the kind left in the bank. A test compares it with the street by
    /// street answer.
    pub(crate) fn cheapest_build(&self, q: u8, hotel: bool) -> Option<u32> {
        let stock = if hotel { self.hotels_left } else { self.houses_left };
        if self.rules.limited_buildings && stock == 0 {
            return None;
        }
        let (cash, mortgaged) = (self.player(q).cash, self.mortgaged());
        let mut cheapest = None;
        for g in board::bits(board::whole_groups(self.holdings(q)) as u32) {
            if GROUP_MASKS[g as usize] & mortgaged != 0 {
                continue;
            }
            let lowest = self.group_heights(g).min().unwrap_or(0);
            for p in board::group_members(g) {
                let level = self.level(p);
                let cost = DEEDS[p as usize].house_cost;
                if level != HOTEL
                    && (level == self.rules.houses_per_hotel) == hotel
                    && (!self.rules.even_building || level == lowest)
                    && cash >= cost
                    && !matches!(cheapest, Some(c) if c <= cost)
                {
                    cheapest = Some(cost);
                }
            }
        }
        cheapest
    }

    /// The seats that want a piece of this kind with `p` when the bank has too few for them all
    /// (the bidders of a shortage auction), or `None` if `p` can simply have one.
    pub(crate) fn shortage(&self, p: u8, hotel: bool) -> Option<u8> {
        let stock = if hotel { self.hotels_left } else { self.houses_left };
        // A shortage needs fewer pieces than players; only then is it worth asking who could build.
        if !self.rules.limited_buildings || stock >= self.num_players {
            return None;
        }
        let able = self.able_to_build(hotel);
        (able & !(1 << p) != 0 && able.count_ones() > stock as u32).then_some(able)
    }

    /// A building asked for outside a placement: besides [`Game::check_build`], in a shortage the
    /// asker must be able to pay the opening premium on top of the price (option
    /// `shortage_opening_bid`).
    pub(crate) fn check_build_request<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let hotel = self.check_build::<R>(p, square)?;
        let premium = self.rules.shortage_opening_bid;
        if premium > 0 && self.shortage(p, hotel).is_some() {
            let cost = DEEDS[board::property_at(square).expect("checked") as usize].house_cost + premium;
            let cash = self.player(p).cash;
            ensure!(
                cash >= cost,
                "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; you have {cash}",
                amount = premium,
                cost = cost,
                square = self.square_name(square),
                cash = cash
            );
        }
        Ok(())
    }

    /// Ask the bank for a piece: placed at once, or auctioned if the bank is short.
    pub(crate) fn build(&mut self, p: u8, square: u8, hotel: bool) {
        match self.shortage(p, hotel) {
            Some(able) => self.start_shortage_auction(p, square, hotel, able),
            None => self.place_building(p, square, hotel),
        }
    }

    /// Put a house or hotel on a street, paying the bank (checked by the caller).
    pub(crate) fn place_building(&mut self, p: u8, square: u8, hotel: bool) {
        let property = board::property_at(square).expect("checked");
        self.transfer(Party::Player(p), Party::Bank, DEEDS[property as usize].house_cost, Reason::Building);
        let level = self.level(property);
        if hotel {
            if self.rules.limited_buildings {
                self.hotels_left -= 1;
                self.houses_left += level;
            }
            self.set_level(property, HOTEL);
        } else {
            if self.rules.limited_buildings {
                self.houses_left -= 1;
            }
            self.set_level(property, level + 1);
        }
        self.log.push(Event::Built { player: p, square, level: self.level(property) });
    }

    pub(crate) fn check_sell<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let property = self.own_deed::<R>(p, square)?;
        let name = self.square_name(square);
        let level = self.level(property);
        ensure!(level > 0, "{square} has no buildings", square = name);
        let group = DEEDS[property as usize].group().expect("only streets are built on");
        if self.rules.even_building {
            let highest = self.group_heights(group).max().unwrap_or(0);
            ensure!(
                self.height(level) == highest,
                "sell evenly: another street of the group has more buildings than {square}",
                square = name
            );
        }
        if level == HOTEL && self.rules.limited_buildings {
            let need = self.rules.houses_per_hotel;
            ensure!(
                self.houses_left >= need,
                "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: sell the group down instead",
                houses = self.houses_left,
                need = need,
                square = name
            );
        }
        Ok(())
    }

    /// Sell one level on a street at half its price (a hotel comes down to houses).
    pub(crate) fn sell(&mut self, p: u8, square: u8) {
        let property = board::property_at(square).expect("checked");
        let level = self.level(property);
        let new_level = if level == HOTEL { self.rules.houses_per_hotel } else { level - 1 };
        if self.rules.limited_buildings {
            if level == HOTEL {
                self.hotels_left += 1;
                self.houses_left -= new_level;
            } else {
                self.houses_left += 1;
            }
        }
        self.set_level(property, new_level);
        self.transfer(Party::Bank, Party::Player(p), DEEDS[property as usize].house_cost / 2, Reason::Building);
        self.log.push(Event::SoldBuilding { player: p, square, level: new_level });
    }

    pub(crate) fn check_sell_down<R: Refusal>(&self, p: u8, group: u8, levels: [u8; 3]) -> Checked<(), R> {
        ensure!((group as usize) < COLOUR_GROUPS, "there is no colour group {group}", group = group);
        ensure!(self.group_owner(group) == Some(p), "you do not own the whole group");
        let members: Vec<u8> = board::group_members(group).collect();
        ensure!(levels[members.len()..].iter().all(|&l| l == 0), "this group has only {n} streets", n = members.len());
        let hph = self.rules.houses_per_hotel;
        let (mut changed, mut houses_now, mut houses_after) = (false, 0u32, 0u32);
        let mut heights = Vec::with_capacity(3);
        for (&q, &new) in members.iter().zip(&levels) {
            let old = self.level(q);
            ensure!(
                new <= hph || new == HOTEL,
                "a street holds 0 to {houses} houses or a hotel ({hotel})",
                houses = hph,
                hotel = HOTEL
            );
            ensure!(self.height(new) <= self.height(old), "selling down cannot add buildings");
            changed |= new != old;
            houses_now += if old == HOTEL { 0 } else { old as u32 };
            houses_after += if new == HOTEL { 0 } else { new as u32 };
            heights.push(self.height(new));
        }
        ensure!(changed, "nothing to sell");
        if self.rules.even_building {
            let (lo, hi) = (heights.iter().min().unwrap(), heights.iter().max().unwrap());
            ensure!(hi - lo <= 1, "the group must stay even: levels may differ by one at most");
        }
        if self.rules.limited_buildings && houses_after > houses_now {
            let need = houses_after - houses_now;
            ensure!(
                need <= self.houses_left as u32,
                "the bank has {houses} houses; this needs {need}",
                houses = self.houses_left,
                need = need
            );
        }
        Ok(())
    }

    /// Sell a group down to the given levels at once, at half the price of what is removed.
    pub(crate) fn sell_down(&mut self, p: u8, group: u8, levels: [u8; 3]) {
        let (mut refund, mut houses, mut hotels) = (0, self.houses_left as i32, self.hotels_left);
        let houses_in = |level: u8| if level == HOTEL { 0 } else { level as i32 };
        for (q, new) in board::group_members(group).zip(levels) {
            let old = self.level(q);
            if old == new {
                continue;
            }
            houses += houses_in(old) - houses_in(new);
            hotels += (old == HOTEL) as u8;
            refund += (self.height(old) - self.height(new)) as u32 * DEEDS[q as usize].house_cost / 2;
            self.set_level(q, new);
            self.log.push(Event::SoldBuilding { player: p, square: DEEDS[q as usize].square, level: new });
        }
        if self.rules.limited_buildings {
            self.houses_left = houses as u8;
            self.hotels_left = hotels;
        }
        self.transfer(Party::Bank, Party::Player(p), refund, Reason::Building);
    }

    pub(crate) fn check_mortgage<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let property = self.own_deed::<R>(p, square)?;
        let name = self.square_name(square);
        ensure!(!self.is_mortgaged(property), "{square} is already mortgaged", square = name);
        ensure!(
            !self.group_has_buildings(property),
            "sell the buildings of the group of {square} first",
            square = name
        );
        Ok(())
    }

    pub(crate) fn mortgage(&mut self, p: u8, square: u8) {
        let property = board::property_at(square).expect("checked");
        self.set_mortgaged(self.mortgaged() | 1 << property);
        let value = DEEDS[property as usize].mortgage_value();
        self.transfer(Party::Bank, Party::Player(p), value, Reason::Mortgage);
        self.log.push(Event::Mortgaged { player: p, square });
    }

    pub(crate) fn check_unmortgage<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let property = self.own_deed::<R>(p, square)?;
        let name = self.square_name(square);
        ensure!(self.is_mortgaged(property), "{square} is not mortgaged", square = name);
        let cost = DEEDS[property as usize].unmortgage_cost();
        ensure!(
            self.player(p).cash >= cost,
            "lifting the mortgage on {square} costs {cost}; you have {cash}",
            square = name,
            cost = cost,
            cash = self.player(p).cash
        );
        Ok(())
    }

    /// Lift a mortgage: value + 10 %. For a deed just received, this settles the transfer fee too.
    pub(crate) fn unmortgage(&mut self, p: u8, square: u8) {
        let property = board::property_at(square).expect("checked");
        self.set_mortgaged(self.mortgaged() & !(1 << property));
        self.fee_due &= !(1 << property);
        let cost = DEEDS[property as usize].unmortgage_cost();
        self.transfer(Party::Player(p), Party::Bank, cost, Reason::Unmortgage);
        self.log.push(Event::Unmortgaged { player: p, square });
    }

    pub(crate) fn check_keep_mortgaged<R: Refusal>(&self, p: u8, square: u8) -> Checked<(), R> {
        let property = self.own_deed::<R>(p, square)?;
        ensure!(
            self.fee_due & (1 << property) != 0,
            "{square} was not just received mortgaged",
            square = self.square_name(square)
        );
        Ok(())
    }

    /// Keep a mortgaged deed just received mortgaged: pay the 10 % fee now.
    pub(crate) fn keep_mortgaged(&mut self, p: u8, square: u8) {
        let property = board::property_at(square).expect("checked");
        self.fee_due &= !(1 << property);
        self.log.push(Event::KeptMortgaged { player: p, square });
        let fee = DEEDS[property as usize].mortgage_interest();
        self.charge(p, Party::Bank, fee, Reason::TransferFee);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::PROPERTIES;
    use crate::error::Refused;
    use crate::{BoardId, Rules, NOBODY};

    /// [`Game::cheapest_build`] read group by group gives the answer of asking
    /// [`Game::check_build`] about each street of the seat's whole groups, on random owners
    /// (groups often held whole), buildings, mortgages, cash and bank stock, with and without
    /// even building and a limited bank.
    #[test]
    fn the_cheapest_build_is_the_one_check_build_allows() {
        let mut x = 0x51AF_D7ED_558C_CD1Bu64;
        let mut next = |below: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % below
        };
        let (mut some, mut none) = ([0; 2], 0);
        for round in 0..4000 {
            let rules = Rules { even_building: round % 4 != 0, limited_buildings: round % 3 != 0, ..Rules::default() };
            let mut game = Game::blank(4, BoardId::Classic, rules);
            for g in 0..COLOUR_GROUPS as u8 {
                let whole = next(2) == 0;
                let seat = next(4) as u8;
                for p in board::group_members(g) {
                    game.set_owner(p, if whole { seat } else { [0, 1, 2, 3, NOBODY][next(5) as usize] });
                    game.set_level(p, [0, 1, 2, 3, 4, HOTEL, 0, 2][next(8) as usize]);
                }
            }
            for p in 0..PROPERTIES as u8 {
                if DEEDS[p as usize].group().is_none() {
                    game.set_owner(p, [0, 1, 2, 3, NOBODY][next(5) as usize]);
                }
            }
            game.set_mortgaged((0..PROPERTIES).filter(|_| next(12) == 0).fold(0, |m, p| m | 1 << p));
            game.houses_left = next(4) as u8;
            game.hotels_left = next(3) as u8;
            for seat in 0..4u8 {
                game.players[seat as usize].cash = next(450) as u32;
                for hotel in [false, true] {
                    let by_street = (0..PROPERTIES as u8)
                        .filter(|&p| game.owner(p) == seat)
                        .filter(|&p| {
                            matches!(game.check_build::<Refused>(seat, DEEDS[p as usize].square), Ok(h) if h == hotel)
                        })
                        .map(|p| DEEDS[p as usize].house_cost)
                        .min();
                    assert_eq!(
                        game.cheapest_build(seat, hotel),
                        by_street,
                        "seat {seat}, hotel {hotel}, round {round}"
                    );
                    match by_street {
                        Some(_) => some[hotel as usize] += 1,
                        None if board::whole_groups(game.holdings(seat)) != 0 => none += 1,
                        None => {}
                    }
                }
            }
        }
        assert!(some[0] > 1000 && some[1] > 300 && none > 1000, "{some:?} {none}");
    }
}
