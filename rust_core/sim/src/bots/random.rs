//! The random bot: uniform over the legal actions, with limits that let games end.

use crate::policy::Policy;
use lanopoly_engine::{Action, Game, Resolver};
use serde::{Deserialize, Serialize};

/// Uniform over the legal actions of the moment, bids at a uniform legal amount, except that it
/// takes at most `max_extra` optional actions (build, sell, mortgage, unmortgage, cancel) per
/// turn, after which it only picks among the actions that move the game on. It never proposes
/// trades (proposals are not among the listed legal actions). Out of turn it claims the rent owed
/// to it and answers the offers made to it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RandomBot {
    pub max_extra: u32,
    turn: u32,
    extra: u32,
    /// The legal actions of the decision at hand, in `legal_actions` order: the buffer is kept
    /// from one decision to the next so that deciding allocates nothing (it holds nothing
    /// between decisions, so it is not saved).
    #[serde(skip)]
    legal: Vec<Action>,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot { max_extra: 3, turn: u32::MAX, extra: 0, legal: Vec::new() }
    }
}

fn is_optional(action: &Action) -> bool {
    matches!(
        action,
        Action::Build(_) | Action::Sell(_) | Action::Mortgage(_) | Action::Unmortgage(_) | Action::CancelTrade
    )
}

impl Policy for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    crate::policy::saved_as_data!();

    /// Its moves come from `legal_actions` (bids within `bid_range`), its claims from
    /// [`super::owed_claim`], which asks the engine.
    fn trusted(&self) -> bool {
        true
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        true
    }

    /// `interject` claims first (`owed_claim`), before any draw.
    fn claims_rent_at_once(&self) -> bool {
        true
    }

    fn copy(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    fn choose(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Action {
        if game.turn != self.turn {
            self.turn = game.turn;
            self.extra = 0;
        }
        let mut actions = std::mem::take(&mut self.legal);
        let in_debt = game.debts.iter().any(|d| d.debtor == seat);
        actions.clear();
        if self.extra >= self.max_extra && !in_debt {
            // Only the actions that move the game on, if there is any (their legality alone
            // checked: the optional ones would be dropped); else every legal action.
            game.visit_legal_actions_where(seat, |a| !is_optional(a), |a| actions.push(a));
        }
        if actions.is_empty() {
            legal_actions_into(game, seat, &mut actions);
        }
        let mut action = uniform(&actions, rng);
        if is_optional(&action) {
            self.extra += 1;
        }
        if let Action::Bid(_) = action {
            let (min, max) = game.bid_range(seat).expect("a bid was listed");
            action = Action::Bid(min + rng.below(max - min + 1));
        }
        self.legal = actions;
        action
    }

    /// Claims the rent owed to it, like every built-in bot (no choice worth randomising); else
    /// answers an offer made to it, uniform over the answers allowed now, as `choose` picks.
    fn interject(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Option<Action> {
        super::owed_claim(game, seat).or_else(|| answer_offer(game, seat, rng, &mut self.legal))
    }
}

/// One of `actions`, uniformly.
fn uniform(actions: &[Action], rng: &mut Resolver) -> Action {
    actions[rng.below(actions.len() as u32) as usize]
}

/// An answer (accept or reject, to any offer made to `seat`) among those allowed now, uniformly;
/// `None` without an offer to `seat` or when no answer is allowed now.
fn answer_offer(game: &Game, seat: u8, rng: &mut Resolver, answers: &mut Vec<Action>) -> Option<Action> {
    if !game.offers.iter().any(|o| o.to == seat) {
        return None;
    }
    legal_actions_into(game, seat, answers);
    answers.retain(|a| matches!(a, Action::AcceptTrade { .. } | Action::RejectTrade { .. }));
    (!answers.is_empty()).then(|| uniform(answers, rng))
}

/// `game.legal_actions(seat)`, in its order, into `out` (emptied first), which keeps its memory.
fn legal_actions_into(game: &Game, seat: u8, out: &mut Vec<Action>) {
    out.clear();
    game.visit_legal_actions(seat, |action| out.push(action));
}
