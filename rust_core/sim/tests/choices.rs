//! The bots' choices are pinned: the named workloads (`lanopoly_sim::workload`) play exactly the
//! games recorded here. A change meant to make the engine or a bot faster must keep every
//! digest; a change of the bots' play must say so and record new ones.

use lanopoly_engine::{Action, Game, Resolver};
use lanopoly_sim::bots::{self, HeuristicBot};
use lanopoly_sim::simulate::{play_one_with, simulate, Report};
use lanopoly_sim::workload::{digest, workload};
use lanopoly_sim::Policy;

/// (workload, games, digest of the report), on one thread and on two: `mc` as recorded at commit
/// dbd43ab (before issue 15's speed work; its bot never trades, so answering offers out of turn
/// left it as it was), `full` since the bots answer offers out of turn (issue 14).
const RECORDED: [(&str, u32, u64); 2] = [("mc", 40, 0x24e1_4680_acfa_7378), ("full", 40, FULL_40)];

/// The 40 games of `full` since the bots answer offers made to them at once (issue 14).
const FULL_40: u64 = 0x0890_18d8_8088_cbde;
/// The same games before, when the bots answered offers on their own turn only (dbd43ab).
const FULL_40_ON_THEIR_TURN: u64 = 0x3c8f_ea85_7f09_1c5c;

#[test]
fn the_workloads_play_the_recorded_games() {
    for (name, games, recorded) in RECORDED {
        for threads in [1, 2] {
            let config = workload(name, games).map(|c| lanopoly_sim::simulate::Config { threads, ..c }).unwrap();
            let report = simulate(&config).unwrap();
            assert_eq!(digest(&report), recorded, "workload {name}, {games} games, {threads} threads: {report:?}");
        }
    }
}

#[test]
fn the_mc_workload_is_the_equal_work_of_the_issue() {
    // 100 rounds a game, about 474 rolls (the C++ peer: 99.9 rounds, 473 rolls); nobody builds.
    let report = simulate(&workload("mc", 20).unwrap()).unwrap();
    let rounds: u32 = report.games.iter().map(|g| g.rounds).sum();
    let rolls: u64 = report.landings.iter().sum();
    assert!(rounds >= 20 * 99, "{rounds} rounds");
    assert!((460 * 20..490 * 20).contains(&rolls), "{rolls} rolls");
    assert!(workload("nothing", 1).is_none());
}

/// The default heuristic bot as it was before issue 14: out of turn it only claims rent, and it
/// answers offers on its own turn.
struct AnswersOnItsTurn(HeuristicBot);

impl Policy for AnswersOnItsTurn {
    fn name(&self) -> &str {
        "heuristic answering on its turn"
    }

    fn choose(&mut self, game: &Game, seat: u8, rng: &mut Resolver) -> Action {
        self.0.choose(game, seat, rng)
    }

    fn interject(&mut self, game: &Game, seat: u8, _rng: &mut Resolver) -> Option<Action> {
        bots::owed_claim(game, seat)
    }

    fn trusted(&self) -> bool {
        true
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        true
    }
}

#[test]
fn the_full_games_changed_only_by_answering_offers_at_once() {
    // The `full` games played by bots that answer offers on their turn only are exactly those
    // recorded before: the out-of-turn answers are the only change of the bots' play.
    let config = workload("full", 40).unwrap();
    let mut landings = [0u64; 41];
    let games = (0..u64::from(config.games))
        .map(|index| {
            let policies: Vec<Box<dyn Policy>> = (0..config.players)
                .map(|_| Box::new(AnswersOnItsTurn(HeuristicBot::default())) as Box<dyn Policy>)
                .collect();
            play_one_with(&config, index, &mut landings, policies).unwrap()
        })
        .collect();
    assert_eq!(digest(&Report { games, landings }), FULL_40_ON_THEIR_TURN);
}
