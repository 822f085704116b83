//! A turn: rolling, moving, the squares, the cards, jail, and passing play on.
//!
//! Forced consequences run by themselves until the game needs an input again: a chance outcome
//! (dice, a card), a decision (buy or decline), or the end of the move. A move that waits is
//! finished later by [`Game::finish_move`].

use crate::action::{Action, Move, Outcome};
use crate::board::{self, Deck, Square, DEEDS, GO, JAIL, LAYOUT, RAILWAY_MASK, SQUARES, UTILITY_MASK};
use crate::cards::Effect;
use crate::event::{Event, JailExit, Party, Reason};
use crate::rules::RentClaim;
use crate::state::{Claim, Game, Pending, Phase, NOBODY};

impl Game {
    /// The turn player rolls: the dice are the next chance event. Rent claims lapse here.
    #[inline]
    pub(crate) fn roll(&mut self) {
        // Most rolls have no claim open: the list is not walked then.
        if !self.claims.is_empty() {
            self.lapse_claims();
        }
        self.pending = Some(Pending::MoveDice);
    }

    #[inline(never)]
    fn lapse_claims(&mut self) {
        let turn = self.turn;
        let log = &mut self.log;
        self.claims.retain(|c| {
            let keep = c.lapses_at_turn > turn;
            if !keep {
                log.push(Event::RentLapsed { owner: c.owner, payer: c.payer, square: c.square });
            }
            keep
        });
    }

    /// Dice for the turn player's move: doubles, jail attempts, three doubles, movement.
    pub(crate) fn on_move_dice(&mut self, a: u8, b: u8) {
        let p = self.turn_player;
        let double = a == b;
        self.last_dice = (a, b);
        self.log.push(Event::Rolled { player: p, dice: (a, b) });
        if self.player(p).in_jail {
            if double {
                self.leave_jail(p, JailExit::Double);
            } else {
                let attempts = self.player(p).jail_attempts + 1;
                self.player_mut(p).jail_attempts = attempts;
                if attempts < 3 {
                    self.log.push(Event::StayedInJail { player: p, attempts });
                    self.phase = Phase::AfterRoll;
                    return;
                }
                self.charge(p, self.fine_sink(), self.rules.jail_fine, Reason::JailFine);
                self.leave_jail(p, JailExit::ThirdFailure);
            }
            // Leaving jail by the dice never earns another roll.
            self.doubles = 0;
        } else if double {
            self.doubles += 1;
            if self.doubles == 3 {
                self.go_to_jail(p);
                self.phase = Phase::AfterRoll;
                return;
            }
        } else {
            self.doubles = 0;
        }
        self.advance(p, a + b);
    }

    pub(crate) fn leave_jail(&mut self, p: u8, how: JailExit) {
        let player = self.player_mut(p);
        player.in_jail = false;
        player.jail_attempts = 0;
        self.log.push(Event::LeftJail { player: p, how });
    }

    pub(crate) fn go_to_jail(&mut self, p: u8) {
        let player = self.player_mut(p);
        player.position = JAIL;
        player.in_jail = true;
        player.jail_attempts = 0;
        self.doubles = 0;
        self.log.push(Event::WentToJail { player: p });
    }

    /// Move forward by the dice (`steps`), then resolve the square reached.
    fn advance(&mut self, p: u8, steps: u8) {
        let to = (self.player(p).position + steps) % SQUARES as u8;
        self.move_forward_to(p, to, true);
        if self.resolve_square(p) {
            self.finish_move();
        }
    }

    /// Move forward to a square, paying the salary if GO is passed or reached. Stopping exactly
    /// on GO by the dice (`by_dice`) pays double with the "400 on GO" option (004: «quand on
    /// s'arrête pile sur la case Départ»); a card that sends to GO pays what it says.
    #[inline(always)]
    fn move_forward_to(&mut self, p: u8, to: u8, by_dice: bool) {
        let from = self.player(p).position;
        self.player_mut(p).position = to;
        self.log.push(Event::Moved { player: p, from, to });
        if to < from {
            self.log.push(Event::PassedGo { player: p });
            let salary = if by_dice && to == GO && self.rules.double_go_on_landing {
                self.rules.go_salary * 2
            } else {
                self.rules.go_salary
            };
            self.transfer(Party::Bank, Party::Player(p), salary, Reason::Salary);
        }
    }

    /// Apply the square the player stands on. Returns false if the move now waits for an input
    /// (a card, a buy decision, utility dice); true if it is complete.
    #[inline(always)]
    fn resolve_square(&mut self, p: u8) -> bool {
        let square = self.player(p).position;
        match LAYOUT[square as usize] {
            Square::Go | Square::Jail => true,
            Square::FreeParking => {
                if self.rules.free_parking_jackpot && self.jackpot > 0 {
                    self.transfer(Party::Jackpot, Party::Player(p), self.jackpot, Reason::Jackpot);
                }
                true
            }
            Square::GoToJail => {
                self.go_to_jail(p);
                true
            }
            Square::Tax(amount) => {
                self.charge(p, self.fine_sink(), amount, Reason::Tax);
                true
            }
            Square::Card(deck) => {
                self.pending = Some(Pending::Card(deck));
                false
            }
            Square::Property(property) => {
                let dice = (self.last_dice.0 + self.last_dice.1) as u32;
                self.land_on_property(p, property, |game| game.rent(property, dice))
            }
        }
    }

    /// Landing on a deed: offer it if unowned, else rent (computed by `rent`) to its owner.
    fn land_on_property(&mut self, p: u8, property: u8, rent: impl Fn(&Game) -> u32) -> bool {
        let owner = self.owner(property);
        if owner == NOBODY {
            self.phase = Phase::BuyDecision { property };
            return false;
        }
        if owner != p && self.collects_rent(owner) {
            let amount = rent(self);
            self.rent_due(owner, p, property, amount);
        }
        true
    }

    fn collects_rent(&self, owner: u8) -> bool {
        self.rules.jailed_owner_collects || !self.player(owner).in_jail
    }

    /// Rent falls due: collected now, or recorded for the owner to claim in time (option).
    fn rent_due(&mut self, owner: u8, payer: u8, property: u8, amount: u32) {
        if amount == 0 {
            return;
        }
        let square = DEEDS[property as usize].square;
        let window = match self.rules.rent_claim {
            RentClaim::Automatic => {
                self.charge(payer, Party::Player(owner), amount, Reason::Rent);
                return;
            }
            RentClaim::BeforeNextRoll => 1,
            RentClaim::BeforeSecondNextRoll => 2,
        };
        self.log.push(Event::RentDue { owner, payer, square, amount });
        self.claims.push(Claim { owner, payer, square, amount, lapses_at_turn: self.turn + window });
    }

    /// The owner claims rent still due on one of its squares.
    pub(crate) fn claim_rent(&mut self, owner: u8, square: u8) {
        let i = self.claims.iter().position(|c| c.owner == owner && c.square == square).expect("checked");
        // The last claim (nearly always the only one) is popped: `remove` would call `memmove`
        // for the empty tail.
        let claim = if i + 1 == self.claims.len() { self.claims.pop().expect("found") } else { self.claims.remove(i) };
        self.collect_claim(claim);
    }

    /// A claim taken off the list is paid: its payer is charged its amount for its owner.
    #[inline(always)]
    pub(crate) fn collect_claim(&mut self, claim: Claim) {
        self.charge(claim.payer, Party::Player(claim.owner), claim.amount, Reason::Rent);
    }

    /// The first rent claim `p` may make now: the first `ClaimRent` that [`Game::legal_actions`]
    /// lists for `p`, found without asking [`Game::is_legal`] of each. A claim of one's own is
    /// legal exactly when nothing holds the game ([`Game::claims_may_be_made`]), so the first
    /// one is the answer. Debug builds and the test mode ([`crate::verify_trusted`]) check it
    /// against `is_legal`, as for the moves given to [`Game::apply_trusted`].
    #[inline(always)]
    pub fn first_claim(&self, p: u8) -> Option<Action> {
        let claim = self.claims.iter().find(|c| c.owner == p)?;
        let action = Action::ClaimRent(claim.square);
        self.claims_may_be_made(p, action).then_some(action)
    }

    /// May `p` make a claim of its own now, `action` one of them: the game goes on, `p` is still
    /// in, and no chance event, auction, placement, debt or received mortgage waits. Each test
    /// without a branch of its own (`&`): they are nearly always all true. Debug builds and the
    /// test mode compare the answer with [`Game::is_legal`] of `action`.
    #[inline(always)]
    pub(crate) fn claims_may_be_made(&self, p: u8, action: Action) -> bool {
        let open = (self.phase != Phase::GameOver)
            & (p < self.num_players)
            & self.pending.is_none()
            & self.auction.is_none()
            & self.placing.is_none()
            & (self.debts.len() | self.fee_due as usize == 0)
            && !self.player(p).bankrupt;
        if crate::game::verifying() {
            let legal = self.is_legal(Move { player: p, action });
            assert_eq!(open, legal, "first_claim disagrees with is_legal on {action:?} for seat {p}");
        }
        open
    }

    /// A card was drawn by the turn player: record it, put it under its deck (a "get out of
    /// jail" card is kept instead) and apply its effect.
    pub(crate) fn on_card(&mut self, deck: Deck, card: u8) {
        let p = self.turn_player;
        let reshuffle = self.rules.reshuffle_decks;
        let effect = self.edition().deck(deck)[card as usize].effect;
        let state = &mut self.decks[deck as usize];
        state.draw(card, reshuffle);
        if effect != Effect::GetOutOfJail {
            state.put_under(card, reshuffle);
        }
        self.log.push(Event::CardDrawn { player: p, deck, card });
        if self.apply_card(p, deck, card, effect) {
            self.finish_move();
        }
    }

    /// Returns false if the move now waits for an input.
    fn apply_card(&mut self, p: u8, deck: Deck, card: u8, effect: Effect) -> bool {
        match effect {
            Effect::AdvanceTo(square) => {
                self.move_forward_to(p, square, false);
                return self.resolve_square(p);
            }
            Effect::NearestRailway => {
                let square = board::nearest(self.player(p).position, RAILWAY_MASK);
                self.move_forward_to(p, square, false);
                let property = board::property_at(square).expect("a railway");
                return self.land_on_property(p, property, |game| 2 * game.rent(property, 0));
            }
            Effect::NearestUtility => {
                let square = board::nearest(self.player(p).position, UTILITY_MASK);
                self.move_forward_to(p, square, false);
                let property = board::property_at(square).expect("a utility");
                let owner = self.owner(property);
                let pays = owner != NOBODY && owner != p && !self.is_mortgaged(property);
                if pays && self.collects_rent(owner) {
                    self.pending = Some(Pending::UtilityDice { property });
                    return false;
                }
                return self.land_on_property(p, property, |_| 0);
            }
            Effect::GoBack(steps) => {
                let from = self.player(p).position;
                let to = (from + SQUARES as u8 - steps) % SQUARES as u8;
                self.player_mut(p).position = to;
                self.log.push(Event::Moved { player: p, from, to });
                return self.resolve_square(p);
            }
            Effect::GoToJail => self.go_to_jail(p),
            Effect::GetOutOfJail => {
                self.decks[deck as usize].take(card);
                self.player_mut(p).jail_cards |= 1 << deck as u8;
            }
            Effect::Collect(amount) => self.transfer(Party::Bank, Party::Player(p), amount, Reason::Card),
            Effect::Pay(amount) => self.charge(p, self.fine_sink(), amount, Reason::Card),
            Effect::PayEachPlayer(amount) => {
                for q in self.others_in_seat_order(p) {
                    self.charge(p, Party::Player(q), amount, Reason::Card);
                }
            }
            Effect::CollectFromEachPlayer(amount) => {
                for q in self.others_in_seat_order(p) {
                    self.charge(q, Party::Player(p), amount, Reason::Card);
                }
            }
            Effect::Repairs { house, hotel } => {
                let (houses, hotels) = self.buildings_of(p);
                self.charge(p, self.fine_sink(), houses * house + hotels * hotel, Reason::Card);
            }
        }
        true
    }

    /// The other seats still in the game, in seat order after `p` (no allocation: a card that
    /// makes everyone pay is on the hot path of a simulation).
    fn others_in_seat_order(&self, p: u8) -> impl Iterator<Item = u8> {
        let n = self.num_players;
        let active = self.active_mask();
        (1..n).map(move |d| (p + d) % n).filter(move |&q| active & (1 << q) != 0)
    }

    /// Dice for the rent of a utility reached by a card: ten times the roll.
    pub(crate) fn on_utility_dice(&mut self, property: u8, a: u8, b: u8) {
        let p = self.turn_player;
        self.log.push(Event::Rolled { player: p, dice: (a, b) });
        let owner = self.owner(property);
        self.rent_due(owner, p, property, 10 * (a + b) as u32);
        self.finish_move();
    }

    /// The move is complete: roll again after a double, else the turn may end.
    pub(crate) fn finish_move(&mut self) {
        if self.is_over() {
            return;
        }
        let p = self.turn_player;
        let again = self.doubles > 0 && !self.player(p).in_jail && !self.player(p).bankrupt;
        self.phase = if again { Phase::AwaitRoll } else { Phase::AfterRoll };
    }

    /// Play passes to the next seat still in the game; a round ends when it comes back round.
    /// Inlined into the end of a turn, plain or not.
    #[inline]
    pub(crate) fn next_turn(&mut self) {
        let n = self.num_players;
        let mut seat = self.turn_player;
        self.log.push(Event::TurnEnded { player: seat });
        loop {
            seat = (seat + 1) % n;
            if seat == self.starter {
                self.round += 1;
            }
            if !self.player(seat).bankrupt {
                break;
            }
        }
        if self.rules.round_limit > 0 && self.round >= u32::from(self.rules.round_limit) {
            self.finish_game();
            return;
        }
        self.turn_player = seat;
        self.turn += 1;
        self.doubles = 0;
        self.phase = Phase::AwaitRoll;
        self.log.push(Event::TurnStarted { player: seat, round: self.round });
    }

    /// The start of the game: deal deeds (speed / timed), then roll for who starts.
    pub(crate) fn begin(&mut self) {
        if self.rules.starting_deeds > 0 {
            self.phase = Phase::Dealing { seat: 0, dealt: 0 };
            self.pending = Some(Pending::Deed);
        } else {
            self.begin_ordering(self.active_mask());
        }
    }

    fn begin_ordering(&mut self, contenders: u8) {
        let next = contenders.trailing_zeros() as u8;
        self.phase = Phase::Ordering { contenders, next, best: 0, leaders: 0 };
        self.pending = Some(Pending::OrderDice);
    }

    pub(crate) fn on_deed(&mut self, property: u8) {
        let Phase::Dealing { seat, dealt } = self.phase else { unreachable!("checked") };
        self.set_owner(property, seat);
        self.log.push(Event::DeedDealt { player: seat, square: DEEDS[property as usize].square });
        let price = DEEDS[property as usize].price;
        self.charge(seat, Party::Bank, price, Reason::Purchase);
        let (seat, dealt) = if seat + 1 < self.num_players { (seat + 1, dealt) } else { (0, dealt + 1) };
        if dealt < self.rules.starting_deeds {
            self.phase = Phase::Dealing { seat, dealt };
            self.pending = Some(Pending::Deed);
        } else {
            self.begin_ordering(self.active_mask());
        }
    }

    pub(crate) fn on_order_dice(&mut self, a: u8, b: u8) {
        let Phase::Ordering { contenders, next, mut best, mut leaders } = self.phase else { unreachable!("checked") };
        let total = a + b;
        self.log.push(Event::OrderRoll { player: next, total });
        if total > best {
            best = total;
            leaders = 1 << next;
        } else if total == best {
            leaders |= 1 << next;
        }
        let rest = contenders & !((2u16 << next) - 1) as u8;
        if rest != 0 {
            let next = rest.trailing_zeros() as u8;
            self.phase = Phase::Ordering { contenders, next, best, leaders };
            self.pending = Some(Pending::OrderDice);
        } else if leaders.count_ones() > 1 {
            self.begin_ordering(leaders);
        } else {
            let first = leaders.trailing_zeros() as u8;
            self.starter = first;
            self.turn_player = first;
            self.phase = Phase::AwaitRoll;
            self.log.push(Event::FirstPlayer { player: first });
            self.log.push(Event::TurnStarted { player: first, round: 0 });
        }
    }

    /// Apply a chance outcome to the pending chance event (checked by the caller).
    pub(crate) fn on_outcome(&mut self, pending: Pending, outcome: Outcome) {
        self.pending = None;
        match (pending, outcome) {
            (Pending::MoveDice, Outcome::Dice(a, b)) => self.on_move_dice(a, b),
            (Pending::OrderDice, Outcome::Dice(a, b)) => self.on_order_dice(a, b),
            (Pending::UtilityDice { property }, Outcome::Dice(a, b)) => self.on_utility_dice(property, a, b),
            (Pending::Card(deck), Outcome::Card(card)) => self.on_card(deck, card),
            (Pending::Deed, Outcome::Deed(property)) => self.on_deed(property),
            _ => unreachable!("outcome kind checked against the pending event"),
        }
    }

    /// The deed just landed on is bought at its printed price.
    pub(crate) fn buy(&mut self, p: u8, property: u8) {
        let price = DEEDS[property as usize].price;
        self.transfer(Party::Player(p), Party::Bank, price, Reason::Purchase);
        self.set_owner(property, p);
        self.log.push(Event::Bought { player: p, square: DEEDS[property as usize].square });
        self.finish_move();
    }

    /// The deed just landed on is declined: auctioned among everyone still in, or left.
    pub(crate) fn decline(&mut self, p: u8, property: u8) {
        self.log.push(Event::Declined { player: p, square: DEEDS[property as usize].square });
        if self.rules.auctions {
            self.start_property_auction(property, p, true);
        } else {
            self.finish_move();
        }
    }
}
