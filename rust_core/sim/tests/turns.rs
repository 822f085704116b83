//! Turns in one call: `play` resolves a roll and the chance events it leads to together
//! (`Game::resolve_chance`), and plays the plain steps of a turn that its player takes as they
//! are without asking its `choose` (`Game::play_plain_steps`); the games must be exactly those
//! of one input at a time.

use lanopoly_engine::state::Pending;
use lanopoly_engine::{BoardId, Event, Game, Input, Move, Rules, PRESETS};
use lanopoly_sim::bots::{HeuristicBot, JailStrategy, RandomBot};
use lanopoly_sim::play::{interjections, play, Streams};
use lanopoly_sim::Policy;

/// What a driver saw after one input: the input, the event pending before it and the state's hash.
type Seen = (Input, Option<Pending>, [u8; 32]);

/// The step-by-step driver `play` was before turns in one call: one input per round of the
/// loop, each chance outcome drawn and applied on its own, the seats asked out of turn after each.
fn play_step_by_step(
    game: &mut Game,
    policies: &mut [Box<dyn Policy>],
    streams: &mut Streams,
    max_inputs: u32,
) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut applied = 0;
    while applied < max_inputs && !game.is_over() {
        let before = game.pending;
        let input = if game.is_chance_node() {
            let outcome = game.sample_outcome(&mut streams.chance).expect("a chance node has outcomes");
            game.apply_chance(outcome).expect("a sampled outcome is possible");
            Input::Chance(outcome)
        } else {
            let Some(seat) = game.actor() else { break };
            let action = policies[seat as usize].choose(game, seat, &mut streams.seats[seat as usize]);
            let m = Move { player: seat, action };
            game.apply(m).expect("the built-in bots play legal moves");
            Input::Move(m)
        };
        seen.push((input, before, game.state_hash()));
        applied += 1;
        applied += interjections(game, policies, streams, max_inputs - applied, |game, input, before| {
            seen.push((input, before, game.state_hash()))
        });
    }
    seen
}

/// Two heuristic bots and two random ones (trades, auctions, debts, bankruptcies, jail).
fn bots() -> Vec<Box<dyn Policy>> {
    vec![
        Box::new(HeuristicBot::default()),
        Box::new(RandomBot::default()),
        Box::new(HeuristicBot { trade_willingness: 0, ..HeuristicBot::default() }),
        Box::new(RandomBot::default()),
    ]
}

/// A game of `rules` and `seed`, with its events recorded.
fn new_game(rules: Rules) -> Game {
    let mut game = Game::new(4, BoardId::Classic, rules).expect("a valid game");
    game.record_events(true);
    game
}

#[test]
fn turns_in_one_call_give_the_states_and_events_of_one_input_at_a_time() {
    for name in PRESETS {
        let rules = Rules::preset(name).expect("a preset");
        for seed in 0..6 {
            let max_inputs = 3_000;
            let (mut stepped, mut folded) = (new_game(rules), new_game(rules));
            let want = play_step_by_step(&mut stepped, &mut bots(), &mut Streams::new(seed, 4), max_inputs);
            let mut got = Vec::new();
            let applied =
                play(&mut folded, &mut bots(), &mut Streams::new(seed, 4), max_inputs, |game, input, before| {
                    got.push((input, before, game.state_hash()))
                });
            assert_eq!(applied as usize, want.len(), "{name}, seed {seed}: inputs applied");
            for (k, (want, got)) in want.iter().zip(&got).enumerate() {
                assert_eq!(want, got, "{name}, seed {seed}: input {k}");
            }
            assert_eq!(got.len(), want.len(), "{name}, seed {seed}");
            assert_eq!(folded, stepped, "{name}, seed {seed}: the final states");
            let events: (Vec<Event>, Vec<Event>) = (folded.take_events(), stepped.take_events());
            assert_eq!(events.0, events.1, "{name}, seed {seed}: the events");
        }
    }
}

#[test]
fn a_budget_that_ends_inside_a_roll_stops_there_as_one_input_at_a_time_would() {
    // Cut games at every input count of their first turns: the cut may fall between a roll and
    // its dice, or between the dice and a card.
    let rules = Rules::default();
    for max_inputs in 1..60 {
        let (mut stepped, mut folded) = (new_game(rules), new_game(rules));
        let want = play_step_by_step(&mut stepped, &mut bots(), &mut Streams::new(7, 4), max_inputs);
        let applied = play(&mut folded, &mut bots(), &mut Streams::new(7, 4), max_inputs, |_, _, _| {});
        assert_eq!((applied as usize, &folded), (want.len(), &stepped), "cut after {max_inputs} inputs");
    }
}

/// A bot that counts the plain steps it takes, and otherwise is `inner`.
struct Counting {
    inner: HeuristicBot,
    taken: std::sync::Arc<std::sync::atomic::AtomicU32>,
}

impl Policy for Counting {
    fn name(&self) -> &str {
        "counting heuristic"
    }

    fn choose(&mut self, game: &Game, seat: u8, rng: &mut lanopoly_engine::Resolver) -> lanopoly_engine::Action {
        self.inner.choose(game, seat, rng)
    }

    fn takes_plain_step(&mut self, game: &Game, step: Move) -> bool {
        let takes = self.inner.takes_plain_step(game, step);
        self.taken.fetch_add(u32::from(takes), std::sync::atomic::Ordering::Relaxed);
        takes
    }

    fn interject(
        &mut self,
        game: &Game,
        seat: u8,
        rng: &mut lanopoly_engine::Resolver,
    ) -> Option<lanopoly_engine::Action> {
        self.inner.interject(game, seat, rng)
    }

    fn trusted(&self) -> bool {
        true
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        true
    }

    fn claims_rent_at_once(&self) -> bool {
        self.inner.claims_rent_at_once()
    }
}

/// Four heuristic bots of different kinds (trading, never trading, jailed late, the `mc` bot):
/// every seat may take plain steps.
fn heuristic_bots(taken: &std::sync::Arc<std::sync::atomic::AtomicU32>) -> Vec<Box<dyn Policy>> {
    let mc: HeuristicBot = HeuristicBot {
        trade_willingness: 0,
        cash_reserve: 0,
        danger_percent: 0,
        max_reserve: 0,
        jail: JailStrategy::LeaveAtOnce,
        rich_cash: 1_000_000,
        ..HeuristicBot::default()
    };
    [
        HeuristicBot::default(),
        HeuristicBot { trade_willingness: 0, ..HeuristicBot::default() },
        HeuristicBot { jail: JailStrategy::StayLate, ..HeuristicBot::default() },
        mc,
    ]
    .into_iter()
    .map(|inner| Box::new(Counting { inner, taken: taken.clone() }) as Box<dyn Policy>)
    .collect()
}

#[test]
fn plain_steps_give_the_states_and_events_of_one_input_at_a_time() {
    for name in PRESETS {
        let rules = Rules::preset(name).expect("a preset");
        for seed in 0..8 {
            let max_inputs = 4_000;
            let taken = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
            let (mut stepped, mut folded) = (new_game(rules), new_game(rules));
            let want =
                play_step_by_step(&mut stepped, &mut heuristic_bots(&taken), &mut Streams::new(seed, 4), max_inputs);
            assert_eq!(taken.load(std::sync::atomic::Ordering::Relaxed), 0, "one input at a time takes none");
            let mut got = Vec::new();
            let mut bots = heuristic_bots(&taken);
            play(&mut folded, &mut bots, &mut Streams::new(seed, 4), max_inputs, |game, input, before| {
                got.push((input, before, game.state_hash()))
            });
            for (k, (want, got)) in want.iter().zip(&got).enumerate() {
                assert_eq!(want, got, "{name}, seed {seed}: input {k}");
            }
            assert_eq!(got.len(), want.len(), "{name}, seed {seed}");
            assert_eq!(folded, stepped, "{name}, seed {seed}: the final states");
            assert_eq!(folded.take_events(), stepped.take_events(), "{name}, seed {seed}: the events");
            assert!(
                taken.load(std::sync::atomic::Ordering::Relaxed) > 20,
                "{name}, seed {seed}: plain steps were taken"
            );
        }
    }
}
