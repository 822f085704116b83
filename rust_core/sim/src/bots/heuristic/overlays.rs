//! What the heuristic bot does when the game waits for it outside its turn's flow: auctions,
//! buildings won at auction, debts, and mortgaged deeds just received.

use super::*;

impl HeuristicBot {
    /// Bid the minimum while it is below what the lot is worth to the bot; otherwise pass.
    pub(super) fn bid_or_pass(&self, game: &Game, me: u8) -> Option<Action> {
        let auction = game.auction.as_ref()?;
        let Some((min, max)) = game.bid_range(me) else { return Some(Action::Pass) };
        let (limit, value) = match auction.lot {
            Lot::Property(property) => (self.deed_bid_limit(game, me, property), DEEDS[property as usize].price),
            Lot::Building { hotel, .. } => (self.building_bid_limit(game, me, hotel), 0),
        };
        let cap = limit.min(max);
        if min > cap {
            return Some(Action::Pass);
        }
        let raise = (value * self.bid_step_percent / 100).max(1);
        Some(Action::Bid((auction.high_bid + raise).clamp(min, cap)))
    }

    /// Most the bot pays for a deed: its printed price, more if it completes one of the bot's
    /// groups or blocks an opponent's, and never so much that the bot drops below its reserve
    /// (a completing or blocking deed may eat into half the reserve).
    pub(super) fn deed_bid_limit(&self, game: &Game, me: u8, property: u8) -> u32 {
        let price = DEEDS[property as usize].price;
        let cash = game.player(me).cash;
        // Each limit is `value.min(cash - reserve share)`: the value itself when the cash
        // covers it above the largest reserve (no danger worked out).
        let limit = |value: u32, share: fn(u32) -> u32| {
            if value <= cash.saturating_sub(share(self.reserve_ceiling())) {
                value
            } else {
                value.min(cash.saturating_sub(share(self.reserve(game, me))))
            }
        };
        if completes_group(game, me, property) {
            limit(price + self.group_bonus(property), |reserve| reserve / 2)
        } else if blocks_group(game, me, property) {
            limit(price + price / 2, |reserve| reserve / 2)
        } else {
            limit(price, |reserve| reserve)
        }
    }

    /// Most the bot pays on top of the building price for a house or hotel in a shortage: a
    /// share of the rent it adds on the bot's best street for it, within the reserve.
    fn building_bid_limit(&self, game: &Game, me: u8, hotel: bool) -> u32 {
        let gain = buildable_streets(game, me)
            .filter(|&p| (game.level(p) == game.rules.houses_per_hotel) == hotel)
            .map(|p| rent_gain(game, p))
            .max()
            .unwrap_or(0);
        let (cash, share) = (game.player(me).cash, gain * self.shortage_percent / 100);
        if share <= cash.saturating_sub(self.reserve_ceiling()) {
            return share; // within any reserve: no danger worked out
        }
        share.min(cash.saturating_sub(self.reserve(game, me)))
    }
}

/// Place a building won at auction where it adds the most rent.
pub(super) fn best_placement(game: &Game, me: u8) -> Option<Action> {
    game.legal_actions(me)
        .into_iter()
        .filter_map(|a| match a {
            Action::Build(square) => Some((rent_gain(game, board::property_at(square)?), a)),
            _ => None,
        })
        .max_by_key(|&(gain, _)| gain)
        .map(|(_, a)| a)
}

// ---------------------------------------------------------------------------------------------
// Debts and received mortgages

impl HeuristicBot {
    /// Pay the oldest debt as soon as the cash is there; otherwise raise money with the least
    /// loss; give up only when bankruptcy is the legal option left.
    pub(super) fn settle_debt(&self, game: &Game, me: u8) -> Option<Action> {
        let oldest = game.debts.iter().find(|d| d.debtor == me)?;
        if game.player(me).cash >= oldest.amount {
            return Some(Action::PayDebt);
        }
        if !surely_solvent(game, me) && legal(game, me, Action::DeclareBankruptcy) {
            return Some(Action::DeclareBankruptcy);
        }
        raise_money(game, me)
    }

    /// Mortgaged deeds just received: lift the mortgage when cash is plentiful, else keep it
    /// mortgaged (pay the 10 % fee) and lift it later.
    pub(super) fn lift_or_keep(&self, game: &Game, me: u8) -> Option<Action> {
        let property = board::bits(game.fee_due).find(|&p| game.owner(p) == me)?;
        let deed = &DEEDS[property as usize];
        if self.affords(game, me, deed.unmortgage_cost()) {
            Some(Action::Unmortgage(deed.square))
        } else {
            Some(Action::KeepMortgaged(deed.square))
        }
    }
}

/// Could `me` surely raise what it owes: its cash and the mortgage value of its unmortgaged
/// deeds cover its debts? Then the engine refuses bankruptcy (it allows it only when the whole
/// liquidation value, buildings at half their cost included, falls short), and is not asked:
/// a debtor was asked at each step of raising money, each time working out that value.
fn surely_solvent(game: &Game, me: u8) -> bool {
    let mortgage_value: u64 =
        board::bits(game.holdings(me) & !game.mortgaged()).map(|p| DEEDS[p as usize].mortgage_value() as u64).sum();
    game.player(me).cash as u64 + mortgage_value >= game.owed_by(me)
}

/// One step toward paying a debt, cheapest loss first: mortgage deeds outside complete groups
/// (they earn little), then sell houses where a level loses the least rent, then mortgage the
/// streets of complete groups. Candidates go in property order, as `legal_actions` lists them
/// (the first of equal losses wins); the engine is asked about them cheapest first, only until
/// one is legal ([`least_legal`]).
fn raise_money(game: &Game, me: u8) -> Option<Action> {
    let held = game.holdings(me);
    let complete = whole_streets(held);
    let mortgage = |in_group: bool| {
        let candidates = board::bits(held & !game.mortgaged())
            .filter(|&p| (complete & 1 << p != 0) == in_group)
            .map(|p| ((income(game, p), DEEDS[p as usize].price), Action::Mortgage(DEEDS[p as usize].square)));
        least_legal(game, me, candidates)
    };
    let sell = || {
        let candidates = board::bits(held)
            .filter(|&p| game.level(p) > 0)
            .map(|p| (rent_loss(game, p), Action::Sell(DEEDS[p as usize].square)));
        least_legal(game, me, candidates)
    };
    mortgage(false).or_else(sell).or_else(|| sell_down_hotels(game, me)).or_else(|| mortgage(true))
}

/// The legal action of least key among `candidates` (at most one per deed), the earliest of
/// equal keys: the same as filtering the legal ones and taking the least, but the engine is
/// asked in order of key and only until one is legal (a debtor's every deed was checked at each
/// step of raising money).
fn least_legal<K: Ord + Copy + Default>(
    game: &Game,
    me: u8,
    candidates: impl Iterator<Item = (K, Action)>,
) -> Option<Action> {
    let mut list = [(K::default(), Action::Pass); PROPERTIES];
    let mut count = 0;
    for candidate in candidates {
        list[count] = candidate;
        count += 1;
    }
    let list = &mut list[..count];
    list.sort_by_key(|&(key, _)| key); // stable: equal keys keep their order
    list.iter().map(|&(_, action)| action).find(|&action| legal(game, me, action))
}

/// Hotels that cannot come down one level (the bank lacks houses): sell the group down to the
/// highest levels the bank's stock allows.
fn sell_down_hotels(game: &Game, me: u8) -> Option<Action> {
    for group in 0..COLOUR_GROUPS as u8 {
        if game.group_owner(group) != Some(me) || !board::group_members(group).any(|p| game.level(p) > 0) {
            continue;
        }
        let members: Vec<u8> = board::group_members(group).collect();
        let current: Vec<u8> = members.iter().map(|&p| game.level(p)).collect();
        let mut best: Option<(u32, Action)> = None;
        for_each_levels(members.len(), |levels| {
            let height: u32 = levels.iter().map(|&l| game.height(l) as u32).sum();
            let lower = levels.iter().zip(&current).all(|(&l, &c)| game.height(l) <= game.height(c));
            let action = Action::SellDown { group, levels };
            if lower && !matches!(best, Some((h, _)) if h >= height) && legal(game, me, action) {
                best = Some((height, action));
            }
        });
        if let Some((_, action)) = best {
            return Some(action);
        }
    }
    None
}

/// Call `f` with every combination of building levels (0..=4 houses or a hotel) for a group of
/// `streets` streets, unused slots 0.
fn for_each_levels(streets: usize, mut f: impl FnMut([u8; 3])) {
    let options = [0, 1, 2, 3, 4, HOTEL];
    let third = if streets == 3 { &options[..] } else { &options[..1] };
    for &a in &options {
        for &b in &options {
            for &c in third {
                f([a, b, c]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play, Streams};
    use lanopoly_engine::{BoardId, Rules};

    /// Whoever is [`surely_solvent`] the engine refuses bankruptcy, at every step of games with
    /// debts (a poor start, dear rents); and some debtors are (else it would save nothing).
    #[test]
    fn a_surely_solvent_debtor_may_not_declare_bankruptcy() {
        let rules = Rules { starting_cash: 600, ..Rules::default() };
        let mut solvent = 0;
        for seed in 0..8 {
            let mut game = Game::new(4, BoardId::Classic, rules).expect("a valid game");
            let mut players: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(HeuristicBot::default()) as _).collect();
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut players, &mut streams, 20_000, |game, _, _| {
                for debt in &game.debts {
                    if surely_solvent(game, debt.debtor) {
                        solvent += 1;
                        assert!(!legal(game, debt.debtor, Action::DeclareBankruptcy), "step {}", game.step);
                    }
                }
            });
        }
        assert!(solvent > 100, "{solvent}");
    }
}
