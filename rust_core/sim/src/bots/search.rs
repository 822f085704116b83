//! The search bot: the heuristic bot, with Monte Carlo rollouts at the decisions that matter.
//!
//! At a searched decision (buy or decline, how far to go in an auction, build now or not, leave
//! jail or roll, accept or reject an offer, make the heuristic's trade proposal or not) the bot
//! lists a few candidates and scores each one by rollouts: it copies the game, plays the
//! candidate, lets [`HeuristicBot`]s play every seat for a bounded horizon, and scores the end
//! from its own seat (a win 1, a loss 0, a game still going its share of the net worth). The best
//! mean wins; every other move is the inner heuristic bot's.
//!
//! It never peeks at the real future: every die and card of a rollout comes from the bot's own
//! resolver (the one `choose` receives), and the real game's chance stream is never touched.
//!
//! How a decision is searched, step by step:
//! 1. Each candidate is a first move and, for the rest of that decision, a rule for the bot's own
//!    seat (an auction limit, or "no more building in this part of the turn").
//! 2. Everything up to the next chance event is deterministic (the heuristic bots never use
//!    randomness), so each candidate is played once up to there. Candidates that reach the same
//!    position are merged (many auction limits give the same result), and a candidate whose
//!    position is the only one left needs no rollout at all.
//! 3. The remaining positions are rolled out with common random numbers: rollout `r` uses the same
//!    seed for every candidate, so that the comparison is not drowned in dice noise.
//! 4. The heuristic bot's own move is kept unless another candidate beats it by more than
//!    `switch_margin` standard errors of the paired differences.
//!
//! A searched auction limit, or the choice to build or not, then holds for the rest of that
//! auction or that part of the turn (the bot does not search again at every bid or house).

use crate::bots::HeuristicBot;
use crate::policy::Policy;
use lanopoly_engine::board::DEEDS;
use lanopoly_engine::state::{Lot, MAX_PLAYERS};
use lanopoly_engine::{Action, Game, Move, Phase, Resolver};
use serde::{Deserialize, Serialize};

/// Which decisions the search bot searches (the others are the heuristic bot's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Searched {
    /// Buy the deed landed on, or decline it (and let it go to auction).
    pub buy: bool,
    /// How far to bid in an auction for a deed.
    pub auction: bool,
    /// Build as the heuristic bot wants now, or not in this part of the turn.
    pub build: bool,
    /// In jail: pay the fine or use a card, or roll for a double.
    pub jail: bool,
    /// Accept or reject a trade offer.
    pub answer: bool,
    /// Make the heuristic bot's trade proposal, or not.
    pub propose: bool,
}

impl Searched {
    pub const ALL: Searched =
        Searched { buy: true, auction: true, build: true, jail: true, answer: true, propose: true };
    pub const NONE: Searched =
        Searched { buy: false, auction: false, build: false, jail: false, answer: false, propose: false };
}

/// The tunable search bot. Build a variant with `SearchBot { rollouts: 64, ..SearchBot::default() }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchBot {
    /// Rollouts per candidate (the same seeds for every candidate of a decision).
    pub rollouts: u32,
    /// A rollout stops after this many complete rounds (and scores the position then).
    pub horizon_rounds: u32,
    /// A rollout also stops after this many inputs (a safety cap).
    pub horizon_inputs: u32,
    /// Which decisions are searched.
    pub searched: Searched,
    /// A candidate replaces the heuristic bot's move only if its mean gain over it (paired,
    /// same seeds) is more than this many standard errors: noise alone should not move the bot
    /// away from a sound default.
    pub switch_margin: f64,
    /// Auction limits tried besides passing and bidding as the heuristic does, in percent of the
    /// deed's printed price.
    pub bid_percents: Vec<u32>,
    /// The player used inside rollouts for every seat and for every decision not searched.
    pub inner: HeuristicBot,
    /// What the bot remembers between calls (opaque).
    pub memory: SearchMemory,
}

/// What the search bot remembers between calls: the plans it made, and scratch space (not
/// saved: it is refilled before every use).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SearchMemory {
    /// The plan of the auction under way: (turn, property, highest bid).
    auction_plan: Option<(u32, u8, u32)>,
    /// Whether to build in this part of a turn, as searched at its first build: (turn, phase,
    /// build as the heuristic bot wants).
    build_plan: Option<(u32, Phase, bool)>,
    /// Last `game.turn` seen, to notice a new game.
    last_turn: u32,
    /// Rollout players, reused between rollouts.
    #[serde(skip)]
    seats: Vec<HeuristicBot>,
}

/// The default budget: 16 rollouts of 20 rounds per candidate. Against three heuristic bots
/// (official rules, 150-round cap) it won 37.7 % of 300 games (95 % interval 32.4-43.3 %), at
/// about 0.2 s of one core per game. Twice the rollouts, or 30-round horizons, did not measurably
/// win more; 10-round horizons did clearly worse.
impl Default for SearchBot {
    fn default() -> Self {
        SearchBot {
            rollouts: 16,
            horizon_rounds: 20,
            horizon_inputs: 5_000,
            searched: Searched::ALL,
            switch_margin: 1.0,
            bid_percents: vec![50, 100, 150, 200],
            inner: HeuristicBot::default(),
            memory: SearchMemory::default(),
        }
    }
}

/// What the bot's own seat does differently until the next chance event, for one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Play as the heuristic bot.
    Heuristic,
    /// In the auction of this deed: bid the minimum while it is at most `limit`, else pass.
    Limit { property: u8, limit: u32 },
    /// No building in this turn and phase: play the phase's move instead.
    NoBuild { turn: u32, phase: Phase },
}

/// One candidate of a decision.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// The move to play now (`None`: play what the rule and the heuristic say).
    first: Option<Action>,
    rule: Rule,
}

/// Inputs played deterministically after a candidate before giving up on reaching a chance event.
const PREFIX_INPUTS: u32 = 20_000;

impl Policy for SearchBot {
    fn name(&self) -> &str {
        "search"
    }

    crate::policy::saved_as_data!();

    fn choose(&mut self, game: &Game, me: u8, rng: &mut Resolver) -> Action {
        if game.turn < self.memory.last_turn {
            self.memory.auction_plan = None;
            self.memory.build_plan = None;
        }
        self.memory.last_turn = game.turn;
        let action = self.decide(game, me, rng);
        if game.is_legal(Move { player: me, action }) {
            action
        } else {
            self.inner.choose(game, me, rng)
        }
    }

    /// Out of turn, as the heuristic bot: claim the rent owed; an answer to an offer made to the
    /// bot is searched as on its turn ([`SearchBot::answer`]).
    fn interject(&mut self, game: &Game, me: u8, rng: &mut Resolver) -> Option<Action> {
        match self.inner.interject(game, me, rng)? {
            heuristic @ (Action::AcceptTrade { .. } | Action::RejectTrade { .. }) if self.searched.answer => {
                Some(self.answer(game, me, heuristic, rng))
            }
            action => Some(action),
        }
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        self.inner.interjects_only_on_claims_and_offers()
    }

    /// The inner bot's claims are passed on as they are.
    fn claims_rent_at_once(&self) -> bool {
        self.inner.claims_rent_at_once()
    }

    fn copy(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }
}

impl SearchBot {
    fn decide(&mut self, game: &Game, me: u8, rng: &mut Resolver) -> Action {
        if game.legal_actions(me).len() <= 1 && game.auction.is_none() {
            return self.inner.choose(game, me, rng);
        }
        if let Some(auction) = game.auction {
            if let (true, Lot::Property(property)) = (self.searched.auction, auction.lot) {
                return self.bid(game, me, property, rng);
            }
            return self.inner.choose(game, me, rng);
        }
        let heuristic = self.inner.choose(game, me, rng);
        let overlay = game.placing.is_some() || game.debts.iter().any(|d| d.debtor == me) || game.fee_due != 0;
        if overlay {
            return heuristic;
        }
        let mut candidates: Vec<Candidate> = Vec::with_capacity(4);
        let plain = |a: Action| Candidate { first: Some(a), rule: Rule::Heuristic };
        match heuristic {
            Action::Build(_) => {
                match self.memory.build_plan {
                    Some((turn, phase, build)) if turn == game.turn && phase == game.phase => {
                        return if build { heuristic } else { phase_move(game, me).unwrap_or(heuristic) };
                    }
                    _ => {}
                }
                if !self.searched.build {
                    return heuristic;
                }
                let Some(instead) = phase_move(game, me) else { return heuristic };
                candidates.push(plain(heuristic));
                candidates.push(Candidate {
                    first: Some(instead),
                    rule: Rule::NoBuild { turn: game.turn, phase: game.phase },
                });
            }
            Action::Buy | Action::Decline | Action::Mortgage(_)
                if self.searched.buy && matches!(game.phase, Phase::BuyDecision { .. }) =>
            {
                candidates.push(plain(heuristic));
                for a in [Action::Buy, Action::Decline] {
                    if a != heuristic && legal(game, me, a) {
                        candidates.push(plain(a));
                    }
                }
            }
            Action::Roll | Action::PayJailFine | Action::UseJailCard
                if self.searched.jail && game.player(me).in_jail && game.phase == Phase::AwaitRoll =>
            {
                candidates.push(plain(heuristic));
                for a in [Action::Roll, Action::PayJailFine, Action::UseJailCard] {
                    if a != heuristic && legal(game, me, a) {
                        candidates.push(plain(a));
                    }
                }
            }
            Action::AcceptTrade { .. } | Action::RejectTrade { .. } if self.searched.answer => {
                return self.answer(game, me, heuristic, rng);
            }
            Action::ProposeTrade { .. } if self.searched.propose => {
                // The inner bot has noted the proposal: asked again this turn, it moves on.
                candidates.push(plain(heuristic));
                candidates.push(Candidate { first: None, rule: Rule::Heuristic });
            }
            _ => return heuristic,
        }
        let best = self.search(game, me, &candidates, rng);
        let chosen = candidates[best];
        if let Action::Build(_) = heuristic {
            self.memory.build_plan = Some((game.turn, game.phase, chosen.rule == Rule::Heuristic));
        }
        match chosen.first {
            Some(a) => a,
            // Not proposing: the inner bot has noted this turn's proposal and moves on.
            None => self.decide(game, me, rng),
        }
    }

    /// The answer to an offer, on the bot's turn or out of turn: the heuristic bot's answer
    /// (`heuristic`, accept or reject) unless the other one does clearly better in rollouts.
    fn answer(&mut self, game: &Game, me: u8, heuristic: Action, rng: &mut Resolver) -> Action {
        let (Action::AcceptTrade { from } | Action::RejectTrade { from }) = heuristic else { return heuristic };
        let mut candidates = vec![Candidate { first: Some(heuristic), rule: Rule::Heuristic }];
        for a in [Action::AcceptTrade { from }, Action::RejectTrade { from }] {
            if a != heuristic && legal(game, me, a) {
                candidates.push(Candidate { first: Some(a), rule: Rule::Heuristic });
            }
        }
        let best = self.search(game, me, &candidates, rng);
        candidates[best].first.unwrap_or(heuristic)
    }

    /// In an auction for a deed: search a limit the first time, then bid up to it.
    fn bid(&mut self, game: &Game, me: u8, property: u8, rng: &mut Resolver) -> Action {
        let Some((min, max)) = game.bid_range(me) else { return Action::Pass };
        let limit = match self.memory.auction_plan {
            Some((turn, p, limit)) if turn == game.turn && p == property => limit,
            _ => {
                let price = DEEDS[property as usize].price;
                let mut candidates = Vec::with_capacity(self.bid_percents.len() + 2);
                candidates.push(Candidate { first: None, rule: Rule::Heuristic });
                candidates.push(Candidate { first: None, rule: Rule::Limit { property, limit: 0 } });
                for &percent in &self.bid_percents {
                    let limit = (price * percent / 100).min(max);
                    if limit >= min {
                        candidates.push(Candidate { first: None, rule: Rule::Limit { property, limit } });
                    }
                }
                let best = self.search(game, me, &candidates, rng);
                let limit = match candidates[best].rule {
                    Rule::Limit { limit, .. } => limit,
                    // Bidding as the heuristic does: follow it for this auction.
                    _ => u32::MAX,
                };
                self.memory.auction_plan = Some((game.turn, property, limit));
                limit
            }
        };
        if limit == u32::MAX {
            return self.inner.choose(game, me, rng);
        }
        if min <= limit.min(max) {
            Action::Bid(min)
        } else {
            Action::Pass
        }
    }

    /// The index of the best candidate by mean rollout score (the first on ties).
    fn search(&mut self, game: &Game, me: u8, candidates: &[Candidate], rng: &mut Resolver) -> usize {
        // Play each candidate up to the next chance event, and merge equal positions.
        let mut positions: Vec<(Game, Vec<HeuristicBot>)> = Vec::with_capacity(candidates.len());
        let mut position_of: Vec<usize> = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            let (g, bots) = self.prefix(game, me, candidate);
            match positions.iter().position(|(p, _)| same_position(p, &g)) {
                Some(i) => position_of.push(i),
                None => {
                    position_of.push(positions.len());
                    positions.push((g, bots));
                }
            }
        }
        if positions.len() == 1 {
            return 0;
        }
        // Paired differences with the first candidate (the heuristic bot's move): their sums and
        // sums of squares.
        let n = positions.len();
        let mut sums = vec![0.0f64; 2 * n];
        let mut scores = vec![0.0f64; n];
        for _ in 0..self.rollouts {
            let seed = rng.next_u64();
            for (i, (g, bots)) in positions.iter().enumerate() {
                scores[i] = self.rollout(g, bots, me, seed);
            }
            for i in 1..n {
                let d = scores[i] - scores[0];
                sums[2 * i] += d;
                sums[2 * i + 1] += d * d;
            }
        }
        // Leave the heuristic's move only for a candidate clearly better: its mean gain must
        // exceed `switch_margin` standard errors.
        let r = f64::from(self.rollouts.max(2));
        let mut best = (0usize, 0.0f64);
        for i in 1..n {
            let mean = sums[2 * i] / r;
            let var = (sums[2 * i + 1] / r - mean * mean).max(0.0) * r / (r - 1.0);
            let se = (var / r).sqrt();
            if mean > self.switch_margin * se && mean > best.1 {
                best = (i, mean);
            }
        }
        position_of.iter().position(|&p| p == best.0).unwrap_or(0)
    }

    /// Play a candidate up to the next chance event (or the end of the game); returns the position
    /// and the rollout players as they are then.
    fn prefix(&self, game: &Game, me: u8, candidate: &Candidate) -> (Game, Vec<HeuristicBot>) {
        let mut g = game.clone();
        g.record_events(false);
        let mut bots: Vec<HeuristicBot> =
            (0..g.num_players).map(|s| if s == me { self.inner.clone() } else { HeuristicBot::default() }).collect();
        let mut unused = Resolver::new(0);
        if let Some(action) = candidate.first {
            apply_or_fallback(&mut g, me, action);
        }
        let mut inputs = 0;
        while !g.is_chance_node() && !g.is_over() && inputs < PREFIX_INPUTS {
            let Some(seat) = g.actor() else { break };
            let ruled = if seat == me { own_move(&g, me, candidate.rule) } else { None };
            let action = match ruled {
                Some(a) => a,
                None => {
                    let a = bots[seat as usize].choose(&g, seat, &mut unused);
                    match candidate.rule {
                        Rule::NoBuild { turn, phase } if seat == me && matches!(a, Action::Build(_)) => {
                            if g.turn == turn && g.phase == phase && g.placing.is_none() {
                                phase_move(&g, me).unwrap_or(a)
                            } else {
                                a
                            }
                        }
                        _ => a,
                    }
                }
            };
            apply_or_fallback(&mut g, seat, action);
            claim_owed_rent(&mut g);
            inputs += 1;
        }
        (g, bots)
    }

    /// Play on from a position with heuristic players for every seat and chance from `seed`, up
    /// to the horizon; the score of the end from `me`'s seat.
    fn rollout(&mut self, start: &Game, bots: &[HeuristicBot], me: u8, seed: u64) -> f64 {
        let mut g = start.clone();
        refill(&mut self.memory.seats, bots);
        let mut chance = Resolver::new(seed);
        let mut unused = Resolver::new(seed);
        let end_round = start.round + self.horizon_rounds;
        let mut inputs = 0;
        while !g.is_over() && g.round < end_round && inputs < self.horizon_inputs {
            if g.is_chance_node() {
                let outcome = g.sample_outcome(&mut chance).expect("a chance node has outcomes");
                g.apply_chance(outcome).expect("sampled outcomes are legal");
            } else {
                let Some(seat) = g.actor() else { break };
                let action = self.memory.seats[seat as usize].choose(&g, seat, &mut unused);
                apply_or_fallback(&mut g, seat, action);
                claim_owed_rent(&mut g);
            }
            inputs += 1;
        }
        score(&g, me)
    }
}

/// Make `seats` a copy of `from`, reusing its allocations.
fn refill(seats: &mut Vec<HeuristicBot>, from: &[HeuristicBot]) {
    seats.truncate(from.len());
    for (seat, bot) in seats.iter_mut().zip(from) {
        seat.clone_from(bot);
    }
    let have = seats.len();
    seats.extend_from_slice(&from[have..]);
}

/// What a rule makes the bot's seat play now, if it decides this move.
fn own_move(game: &Game, me: u8, rule: Rule) -> Option<Action> {
    match rule {
        Rule::Limit { property, limit } => {
            let auction = game.auction.as_ref()?;
            if auction.lot != Lot::Property(property) {
                return None;
            }
            let Some((min, max)) = game.bid_range(me) else { return Some(Action::Pass) };
            Some(if min <= limit.min(max) { Action::Bid(min) } else { Action::Pass })
        }
        _ => None,
    }
}

/// The move that goes on with the turn instead of building: roll, end the turn, or answer the
/// buy decision by the cash at hand.
fn phase_move(game: &Game, me: u8) -> Option<Action> {
    let action = match game.phase {
        Phase::AwaitRoll => Action::Roll,
        Phase::AfterRoll => Action::EndTurn,
        Phase::BuyDecision { property } => {
            if game.player(me).cash >= DEEDS[property as usize].price {
                Action::Buy
            } else {
                Action::Decline
            }
        }
        _ => return None,
    };
    legal(game, me, action).then_some(action)
}

fn legal(game: &Game, me: u8, action: Action) -> bool {
    game.is_legal(Move { player: me, action })
}

/// In a rollout every seat claims the rent owed to it at once, as the heuristic bots do out of
/// turn ([`crate::bots::owed_claim`]).
fn claim_owed_rent(game: &mut Game) {
    if game.claims.is_empty() || game.is_chance_node() || game.is_over() {
        return;
    }
    for seat in 0..game.num_players {
        if let Some(action) = crate::bots::owed_claim(game, seat) {
            game.apply(Move { player: seat, action }).expect("owed_claim checks the claim");
        }
    }
}

/// Apply a move; a refused one (a bot bug) is replaced by the seat's first legal move.
fn apply_or_fallback(game: &mut Game, seat: u8, action: Action) {
    if game.apply(Move { player: seat, action }).is_err() {
        let fallback = game.legal_actions(seat)[0];
        game.apply(Move { player: seat, action: fallback }).expect("a listed action is legal");
    }
}

/// Equal positions up to the count of inputs that led to them.
fn same_position(a: &Game, b: &Game) -> bool {
    if a.step == b.step {
        return a == b;
    }
    let mut a = a.clone();
    a.step = b.step;
    a == *b
}

/// The value of a position for `me`: 1 for a win, 0 for a loss, else the seat's share of the net
/// worth of the players still in.
fn score(game: &Game, me: u8) -> f64 {
    if game.is_over() {
        return if game.winner() == Some(me) { 1.0 } else { 0.0 };
    }
    if game.player(me).bankrupt {
        return 0.0;
    }
    let mut total = 0u64;
    let mut mine = 0u64;
    for seat in 0..game.num_players.min(MAX_PLAYERS as u8) {
        let worth = game.net_worth(seat);
        total += worth;
        if seat == me {
            mine = worth;
        }
    }
    if total == 0 {
        0.0
    } else {
        mine as f64 / total as f64
    }
}
