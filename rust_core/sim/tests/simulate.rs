//! The simulation driver: same results whatever the thread count, landing counts that agree
//! with a step-by-step replay of the same games.

use lanopoly_engine::state::Pending;
use lanopoly_engine::{BoardId, Event, Game, Input, Rules};
use lanopoly_sim::bots;
use lanopoly_sim::interrupt::Interrupt;
use lanopoly_sim::play::{play, Streams};
use lanopoly_sim::simulate::{game_seed, play_one, simulate, simulate_interruptible, Config, INTERRUPTED, IN_JAIL};
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

fn config(games: u32, threads: usize) -> Config {
    Config {
        games,
        first_game: 0,
        players: 4,
        board: BoardId::Classic,
        rules: Rules { round_limit: 60, ..Rules::default() },
        bots: vec!["random".into()],
        seed: 2026,
        threads,
        max_inputs: 200_000,
    }
}

#[test]
fn the_report_does_not_depend_on_the_thread_count() {
    let one = simulate(&config(24, 1)).unwrap();
    assert_eq!(one.games.len(), 24);
    assert_eq!(simulate(&config(24, 2)).unwrap(), one);
    assert_eq!(simulate(&config(24, 5)).unwrap(), one);
    let slices = [0u64, 10, 20].map(|first| {
        let games = if first == 20 { 4 } else { 10 };
        simulate(&Config { first_game: first, games, ..config(games, 2) }).unwrap()
    });
    let joined: Vec<_> = slices.iter().flat_map(|r| r.games.clone()).collect();
    assert_eq!(joined, one.games, "a run in slices gives the same games");
}

#[test]
fn games_end_and_are_summarised() {
    let report = simulate(&config(12, 2)).unwrap();
    for g in &report.games {
        assert!(!g.truncated);
        assert!(g.winner.is_some());
        assert!(g.rounds <= 60);
        assert_eq!(g.net_worths.len(), 4);
        let winner = g.winner.unwrap() as usize;
        if g.bankruptcies < 3 {
            assert!(g.net_worths.iter().all(|&w| w <= g.net_worths[winner]));
        }
    }
}

#[test]
fn landing_counts_match_a_step_by_step_replay() {
    let cfg = config(6, 1);
    for index in 0..6u64 {
        // The driver's count for this game alone.
        let mut counted = [0u64; 41];
        play_one(&cfg, index, &mut counted).unwrap();

        // Record the same game's inputs, then replay them with events on and count independently:
        // every move roll lands exactly once, jail entries and failed jail rolls count "in jail".
        let mut game = Game::new(4, BoardId::Classic, cfg.rules).unwrap();
        let mut policies: Vec<_> = (0..4).map(|_| bots::by_name("random").unwrap()).collect();
        let mut streams = Streams::new(game_seed(cfg.seed, index), 4);
        let mut inputs = Vec::new();
        play(&mut game, &mut policies, &mut streams, cfg.max_inputs, |_, input, _| inputs.push(input));

        let mut replay = Game::new(4, BoardId::Classic, cfg.rules).unwrap();
        replay.record_events(true);
        let (mut move_rolls, mut jailed) = (0u64, 0u64);
        for input in inputs {
            if matches!(input, Input::Chance(_)) && replay.pending == Some(Pending::MoveDice) {
                move_rolls += 1;
            }
            replay.apply_input(input).unwrap();
            for e in replay.take_events() {
                if matches!(e, Event::WentToJail { .. } | Event::StayedInJail { .. }) {
                    jailed += 1;
                }
            }
        }
        assert_eq!(replay.state_hash(), game.state_hash());
        assert_eq!(counted.iter().sum::<u64>(), move_rolls, "game {index}: one landing per move roll");
        assert_eq!(counted[IN_JAIL], jailed, "game {index}: jail entries and stays");
        assert_eq!(counted[30], 0, "nobody stays on Go To Jail");
    }
}

#[test]
fn bad_configurations_are_refused() {
    assert!(simulate(&Config { players: 9, ..config(1, 1) }).unwrap_err().contains("players"));
    let unknown = simulate(&Config { bots: vec!["grandmaster".into()], ..config(1, 1) }).unwrap_err();
    assert!(unknown.contains("unknown bot"), "{unknown}");
    let count = simulate(&Config { bots: vec!["random".into(); 3], ..config(1, 1) }).unwrap_err();
    assert!(count.contains("3 bot names for 4 seats"), "{count}");
}

#[test]
fn an_interrupt_stops_a_simulation_on_every_thread() {
    for threads in [1, 2] {
        let calls = AtomicU32::new(0);
        let hook = || calls.fetch_add(1, SeqCst) >= 3;
        let interrupt = Interrupt::new(&hook);
        // Far too many games to finish: the run ends because the hook said so.
        let big = Config { games: u32::MAX, rules: Rules::default(), max_inputs: u32::MAX, ..config(0, threads) };
        assert_eq!(simulate_interruptible(&big, &interrupt).unwrap_err(), INTERRUPTED);
        assert!(interrupt.stopped() && calls.load(SeqCst) == 4, "threads {threads}");
    }
}
