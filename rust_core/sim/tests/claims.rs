//! The bots claim rent: under the printed books' rules an owner must claim rent before the next
//! rolls, while the payer's turn goes on, so the drivers let the bots move out of turn.

use lanopoly_engine::board::property_at;
use lanopoly_engine::{Action, BoardId, Event, Game, Move, Outcome, Rules, PRESETS};
use lanopoly_sim::bots::{self, HeuristicBot, RandomBot, SearchBot};
use lanopoly_sim::play::{interjections, play, Streams};
use lanopoly_sim::Policy;

/// Three seats under the official rules, seat 0 to play; seat 2 owns Baltic Avenue and seat 0
/// has just landed on it (rent 4 due, to be claimed).
fn rent_due_to_seat_2() -> Game {
    let mut game = Game::new(3, BoardId::Classic, Rules::default()).unwrap();
    for seat in 0..3 {
        let dice = if seat == 0 { Outcome::Dice(6, 6) } else { Outcome::Dice(1, 2) };
        game.apply_chance(dice).unwrap();
    }
    game.set_owner(property_at(3).unwrap(), 2);
    game.apply(Move { player: 0, action: Action::Roll }).unwrap();
    game.apply_chance(Outcome::Dice(1, 2)).unwrap();
    assert_eq!(game.claims.len(), 1);
    assert_eq!(game.actor(), Some(0), "the payer's turn goes on");
    game
}

#[test]
fn every_built_in_bot_claims_its_rent_out_of_turn() {
    let owners: [Box<dyn Policy>; 3] =
        [Box::new(HeuristicBot::default()), Box::new(RandomBot::default()), Box::new(SearchBot::default())];
    for owner in owners {
        let name = owner.name().to_string();
        let mut game = rent_due_to_seat_2();
        let mut policies: Vec<Box<dyn Policy>> = vec![Box::new(RandomBot::default()), Box::new(RandomBot::default())];
        policies.push(owner);
        let mut streams = Streams::new(1, 3);
        let mut seen = Vec::new();
        let applied = interjections(&mut game, &mut policies, &mut streams, 10, |_, input, _| seen.push(input));
        assert_eq!(applied, 1, "{name}");
        assert!(game.claims.is_empty(), "{name}");
        assert_eq!((game.players[0].cash, game.players[2].cash), (1496, 1504), "{name}");
        assert_eq!(game.actor(), Some(0), "{name}: the payer plays on");
    }
}

#[test]
fn a_policy_that_never_interjects_lets_the_rent_lapse_at_the_second_roll() {
    struct Quiet(RandomBot);
    impl Policy for Quiet {
        fn name(&self) -> &str {
            "quiet"
        }
        fn choose(&mut self, game: &Game, seat: u8, rng: &mut lanopoly_engine::Resolver) -> Action {
            self.0.choose(game, seat, rng)
        }
    }
    let mut game = rent_due_to_seat_2();
    let mut policies: Vec<Box<dyn Policy>> =
        (0..3).map(|_| Box::new(Quiet(RandomBot::default())) as Box<dyn Policy>).collect();
    let mut streams = Streams::new(1, 3);
    assert_eq!(interjections(&mut game, &mut policies, &mut streams, 10, |_, _, _| {}), 0);
    assert_eq!(bots::owed_claim(&game, 2), Some(Action::ClaimRent(3)), "still claimable");
}

#[test]
fn bots_playing_the_book_presets_let_no_rent_lapse() {
    for name in PRESETS {
        let rules = Rules { round_limit: 40, ..Rules::preset(name).unwrap() };
        let mut due_in_all = 0;
        for seed in 0..3u64 {
            let mut game = Game::new(4, BoardId::Classic, rules).unwrap();
            game.record_events(true);
            let mut policies: Vec<Box<dyn Policy>> = vec![
                Box::new(HeuristicBot::default()),
                Box::new(RandomBot::default()),
                Box::new(HeuristicBot::default()),
                Box::new(RandomBot::default()),
            ];
            let mut streams = Streams::new(seed, 4);
            play(&mut game, &mut policies, &mut streams, 400_000, |_, _, _| {});
            let events = game.log.pending();
            let due = events.iter().filter(|e| matches!(e, Event::RentDue { .. })).count();
            let lapsed = events.iter().filter(|e| matches!(e, Event::RentLapsed { .. })).count();
            assert!(game.is_over(), "{name} seed {seed}");
            assert_eq!(lapsed, 0, "{name} seed {seed}: {lapsed} of {due} rents lapsed");
            due_in_all += due;
        }
        // Enough rents were due to have been claimed (a game may end early: seed 1 of `official`
        // in round 8, 9 rents due). A random bot ends a timed game at once: end_game is among its
        // legal moves.
        if rules.rent_claim != lanopoly_engine::RentClaim::Automatic && !rules.timed {
            assert!(due_in_all > 30, "{name}: {due_in_all} rents due in three games");
        }
    }
}

#[test]
fn the_first_claim_is_the_first_claim_the_engine_lists() {
    // At every input of games with random bots (debts, auctions, received mortgages, claims left
    // open), for every seat: `Game::first_claim` is the first `ClaimRent` of `legal_actions`.
    let mut claims_seen = 0;
    for name in PRESETS {
        for seed in 0..4 {
            let mut game = Game::new(4, BoardId::Classic, Rules::preset(name).unwrap()).unwrap();
            let mut policies: Vec<Box<dyn Policy>> = (0..4).map(|_| Box::new(RandomBot::default()) as _).collect();
            play(&mut game, &mut policies, &mut Streams::new(seed, 4), 3_000, |game, _, _| {
                for seat in game.seats() {
                    let listed = game.legal_actions(seat).into_iter().find(|a| matches!(a, Action::ClaimRent(_)));
                    assert_eq!(game.first_claim(seat), listed, "{name}, seed {seed}, seat {seat}, step {}", game.step);
                    claims_seen += usize::from(!game.claims.is_empty());
                }
            });
        }
    }
    assert!(claims_seen > 100, "{claims_seen} states with claims");
}

/// Rent still owed to the heuristic bot when its own turn comes (nobody asked it out of turn) is
/// claimed by its `choose` before it rolls.
#[test]
fn the_heuristic_bot_claims_on_its_own_turn_what_it_was_not_asked_out_of_turn() {
    let mut game = Game::new(2, BoardId::Classic, Rules::default()).unwrap();
    game.apply_chance(Outcome::Dice(6, 6)).unwrap();
    game.apply_chance(Outcome::Dice(1, 2)).unwrap();
    game.set_owner(property_at(3).unwrap(), 1);
    game.apply(Move { player: 0, action: Action::Roll }).unwrap();
    game.apply_chance(Outcome::Dice(1, 2)).unwrap();
    game.apply(Move { player: 0, action: Action::EndTurn }).unwrap();
    assert_eq!((game.actor(), game.claims.len()), (Some(1), 1));
    let mut bot = HeuristicBot::default();
    let action = bot.choose(&game, 1, &mut lanopoly_engine::Resolver::new(1));
    assert_eq!(action, Action::ClaimRent(3));
}
