//! The bots' choices are pinned: the named workloads (`lanopoly_sim::workload`) play exactly the
//! games recorded here. A change meant to make the engine or a bot faster must keep every
//! digest; a change of the bots' play must say so and record new ones.

use lanopoly_sim::simulate::simulate;
use lanopoly_sim::workload::{digest, workload};

/// (workload, games, digest of the report) as recorded at commit dbd43ab (before issue 15's
/// speed work), on one thread and on two.
const RECORDED: [(&str, u32, u64); 2] = [("mc", 40, 0x24e1_4680_acfa_7378), ("full", 40, 0x3c8f_ea85_7f09_1c5c)];

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
