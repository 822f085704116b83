//! Property tests over random legal games: invariants hold at every step.

mod common;

use common::*;
use lanopoly_engine::{Action, BoardId, Game, Input, Move, Resolver, Rules, PRESETS};
use proptest::prelude::*;

const PROBES: [Action; 11] = [
    Action::Roll,
    Action::Resign,
    Action::Buy,
    Action::EndTurn,
    Action::PayDebt,
    Action::DeclareBankruptcy,
    Action::Build(39),
    Action::Sell(1),
    Action::Mortgage(5),
    Action::Unmortgage(12),
    Action::Bid(1),
];

/// `legal_actions` lists exactly the listable moves that `check` accepts, for every seat.
fn assert_legal_actions_complete(game: &Game) {
    for player in 0..game.num_players {
        let listed = game.legal_actions(player);
        let mut candidates = vec![
            Action::Roll,
            Action::PayJailFine,
            Action::UseJailCard,
            Action::Buy,
            Action::Decline,
            Action::Pass,
            Action::EndTurn,
            Action::PayDebt,
            Action::DeclareBankruptcy,
            Action::CancelTrade,
            Action::EndGame,
        ];
        for square in 0..40 {
            candidates.extend([
                Action::Build(square),
                Action::Sell(square),
                Action::Mortgage(square),
                Action::Unmortgage(square),
                Action::KeepMortgaged(square),
                Action::ClaimRent(square),
            ]);
        }
        for from in 0..game.num_players {
            candidates.extend([Action::AcceptTrade { from }, Action::RejectTrade { from }]);
        }
        for action in candidates {
            let legal = game.check(Move { player, action }).is_ok();
            assert_eq!(legal, listed.contains(&action), "seat {player} {action:?}: check says {legal}");
        }
        if let Some((min, max)) = game.bid_range(player) {
            let can_bid = game.check(Move { player, action: Action::Bid(min) }).is_ok();
            assert_eq!(can_bid, listed.contains(&Action::Bid(min)));
            assert!(!can_bid || game.check(Move { player, action: Action::Bid(max) }).is_ok());
            assert!(game.check(Move { player, action: Action::Bid(max + 1) }).is_err());
        }
    }
}

/// The bit-mask shortcuts agree with the deed-by-deed answers they stand for.
fn assert_masks_agree(game: &Game) {
    let hotels = (0..28u8).filter(|&p| game.level(p) == 5).fold(0u32, |m, p| m | 1 << p);
    let built = (0..28u8).filter(|&p| game.level(p) > 0).fold(0u32, |m, p| m | 1 << p);
    assert_eq!(game.hotels(), hotels);
    assert_eq!(game.built(), built);
    let worths = game.net_worths_all();
    for seat in 0..game.num_players {
        assert_eq!(worths[seat as usize], game.net_worth(seat), "net worth of seat {seat}");
        let whole = lanopoly_engine::board::whole_groups(game.holdings(seat));
        for group in 0..8u8 {
            assert_eq!(whole & (1 << group) != 0, game.group_owner(group) == Some(seat), "group {group}, seat {seat}");
        }
    }
}

/// Play a random game to its end (round limits guarantee one) checking invariants at each step.
fn check_random_game(seed: u64, players: u8, preset: &str) -> Vec<(Input, [u8; 32])> {
    check_random_game_with(seed, players, Rules::preset(preset).unwrap())
}

fn check_random_game_with(seed: u64, players: u8, mut rules: Rules) -> Vec<(Input, [u8; 32])> {
    if rules.round_limit == 0 {
        rules.round_limit = 20;
    }
    let board = if seed.is_multiple_of(2) { BoardId::Classic } else { BoardId::Paris };
    let players = players.min(rules.max_players);
    let mut game = Game::new(players, board, rules).unwrap();
    game.record_events(true);
    let mut rng = Resolver::new(seed);
    let mut money = game.money_in_play() as i64 - common::bank_outflow(&game.take_events());
    let mut trace = Vec::new();
    for _ in 0..200_000 {
        let Some(input) = random_input(&game, &mut rng) else { break };
        if game.step.is_multiple_of(5) {
            assert_legal_actions_complete(&game);
            assert_masks_agree(&game);
        }
        // A random move that the rules refuse changes nothing.
        let probe =
            Move { player: rng.below(players as u32) as u8, action: PROBES[rng.below(PROBES.len() as u32) as usize] };
        let mut copy = game.clone();
        if copy.apply(probe).is_err() {
            assert_eq!(copy.state_hash(), game.state_hash(), "refused {probe:?} changed the state");
        }
        if let Err(e) = game.apply_input(input) {
            panic!("{input:?} listed as legal but refused: {e}\n{game:?}");
        }
        let events = game.take_events();
        money += common::bank_outflow(&events);
        game.validate().unwrap();
        assert_eq!(game.money_in_play() as i64, money, "money not conserved after {input:?}");
        let again = Game::from_bytes(&game.to_bytes()).unwrap();
        assert_eq!(again.state_hash(), game.state_hash());
        trace.push((input, game.state_hash()));
    }
    assert!(game.is_over(), "a game with a round limit must end");
    trace
}

#[test]
fn every_preset_plays_random_games_to_the_end() {
    for (i, preset) in PRESETS.iter().enumerate() {
        for seed in 0..6u64 {
            check_random_game(seed * 31 + i as u64, 2 + (seed % 7) as u8, preset);
        }
    }
}

#[test]
fn the_options_of_the_first_state_format_play_random_games_to_the_end() {
    // Decks reshuffled each pass and automatic rent (format s1), and each of them alone.
    let variants = [
        Rules::legacy(),
        Rules { reshuffle_decks: true, ..Rules::default() },
        Rules { rent_claim: lanopoly_engine::RentClaim::Automatic, ..Rules::default() },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        for seed in 0..4u64 {
            check_random_game_with(seed * 17 + i as u64, 2 + (seed % 7) as u8, rules);
        }
    }
}

#[test]
fn replaying_a_log_reproduces_every_hash() {
    let trace = check_random_game(99, 4, "official");
    let mut game = Game::new(4, BoardId::Paris, Rules { round_limit: 20, ..Rules::default() }).unwrap();
    for (input, hash) in trace {
        game.apply_input(input).unwrap();
        assert_eq!(game.state_hash(), hash);
    }
}

proptest! {
    // A fixed seed: CI runs the same cases every time (a red run must mean a real regression).
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261130),
        ..ProptestConfig::default()
    })]
    #[test]
    fn random_games_keep_the_invariants(seed in any::<u64>(), players in 2u8..=8, preset in 0usize..PRESETS.len()) {
        check_random_game(seed, players, PRESETS[preset]);
    }
}
