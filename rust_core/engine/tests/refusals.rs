//! Every refused input leaves the state unchanged, and says why in a plain sentence.

mod common;
use common::*;

use lanopoly_engine::{Action, Bundle, Game, Move, Outcome, HOTEL};

/// A reason is a plain sentence for a player: not empty, no Rust debug output.
fn assert_sentence(reason: &str, what: &str) {
    assert!(reason.len() >= 8, "{what}: reason too short: {reason:?}");
    for bad in ["{", "}", "::", "Some(", "None", "Pending", "Phase", "Lot"] {
        assert!(!reason.contains(bad), "{what}: reason shows internals ({bad}): {reason:?}");
    }
    let camel = reason.split(|c: char| !c.is_alphanumeric()).any(|w| {
        let mut chars = w.chars();
        chars.next().is_some_and(|c| c.is_uppercase())
            && chars.any(|c| c.is_uppercase())
            && w.chars().any(|c| c.is_lowercase())
    });
    assert!(!camel, "{what}: reason names a Rust type: {reason:?}");
}

fn probes(game: &Game) -> Vec<Action> {
    let mut out = vec![
        Action::Roll,
        Action::PayJailFine,
        Action::UseJailCard,
        Action::Buy,
        Action::Decline,
        Action::Bid(1),
        Action::Bid(100_000),
        Action::Pass,
        Action::EndTurn,
        Action::PayDebt,
        Action::DeclareBankruptcy,
        Action::CancelTrade,
        Action::EndGame,
        Action::AcceptTrade { from: 0 },
        Action::RejectTrade { from: 1 },
        Action::SellDown { group: 7, levels: [0, 0, 0] },
        Action::SellDown { group: 1, levels: [4, 4, 4] },
        Action::ProposeTrade { to: 1, give: Bundle { cash: 5, ..Default::default() }, get: Bundle::default() },
        Action::ProposeTrade {
            to: 0,
            give: Bundle::default(),
            get: Bundle { properties: game.holdings(0), ..Default::default() },
        },
    ];
    for square in [1, 3, 5, 6, 7, 12, 37, 39] {
        out.extend([
            Action::Build(square),
            Action::Sell(square),
            Action::Mortgage(square),
            Action::Unmortgage(square),
            Action::KeepMortgaged(square),
            Action::ClaimRent(square),
        ]);
    }
    out
}

fn sweep(mut game: Game, label: &str) {
    let n = game.num_players;
    for player in 0..n + 1 {
        for action in probes(&game) {
            let m = Move { player, action };
            // The yes/no check (no reason built) always agrees with the full one.
            assert_eq!(game.is_legal(m), game.check(m).is_ok(), "{label}: seat {player} {action:?}");
            if game.check(m).is_ok() {
                continue;
            }
            let what = format!("{label}: seat {player} {action:?}");
            let reason = refused(&mut game, player, action);
            assert_sentence(&reason, &what);
        }
    }
    // Chance outcomes are machine inputs: a refused one must change nothing too.
    for outcome in [
        Outcome::Dice(1, 2),
        Outcome::Dice(3, 1),
        Outcome::Card(0),
        Outcome::Card(16),
        Outcome::Deed(0),
        Outcome::Deed(40),
    ] {
        let mut copy = game.clone();
        let before = copy.state_hash();
        if copy.apply_chance(outcome).is_err() {
            assert_eq!(copy.state_hash(), before, "{label}: refused {outcome:?} changed the state");
        }
    }
}

fn scenarios() -> Vec<(&'static str, Game)> {
    let mut out = Vec::new();
    let mut g = official(3);
    give(&mut g, 0, &[37, 39, 5]);
    set_level(&mut g, 37, HOTEL);
    set_level(&mut g, 39, HOTEL);
    give(&mut g, 1, &[1, 3, 12]);
    out.push(("await roll", g.clone()));
    let mut b = g.clone();
    land(&mut b, 0, 1, 2);
    out.push(("after roll", b));
    let mut b = g.clone();
    land(&mut b, 4, 4, 5); // 13 States Avenue: buy decision
    out.push(("buy decision", b.clone()));
    act(&mut b, 0, Action::Decline);
    out.push(("auction", b));
    let mut b = g.clone();
    land(&mut b, 0, 3, 4);
    out.push(("card pending", b.clone()));
    draw(&mut b, 5);
    out.push(("utility dice pending", b));
    let mut b = g.clone();
    set_cash(&mut b, 0, 10);
    land(&mut b, 0, 1, 3);
    out.push(("debt", b));
    let mut b = g.clone();
    jail(&mut b, 0);
    out.push(("in jail", b));
    let mut b = g.clone();
    set_mortgaged(&mut b, 12);
    act(
        &mut b,
        1,
        Action::ProposeTrade {
            to: 2,
            give: Bundle { properties: 1 << prop(12), ..Default::default() },
            get: Bundle::default(),
        },
    );
    act(&mut b, 2, Action::AcceptTrade { from: 1 });
    out.push(("fee due", b));
    // Shortage: one house left, seats 0 and 1 both able to build.
    let mut b = official(2);
    give(&mut b, 0, &[6, 8, 9]);
    give(&mut b, 1, &[11, 13, 14, 1, 3, 16, 18, 19, 21, 23, 24]);
    for sq in [1, 3, 16, 18, 19, 21, 23] {
        set_level(&mut b, sq, 4);
    }
    set_level(&mut b, 24, 3);
    act(&mut b, 0, Action::Build(6));
    assert!(b.auction.is_some());
    out.push(("shortage auction", b.clone()));
    act(&mut b, 1, Action::Bid(5));
    act(&mut b, 0, Action::Pass);
    assert!(b.placing.is_some());
    out.push(("placing", b));
    let mut b = official(2);
    set_cash(&mut b, 0, 10);
    land(&mut b, 0, 1, 3);
    act(&mut b, 0, Action::DeclareBankruptcy);
    out.push(("game over", b));
    out.push(("ordering", Game::new(2, lanopoly_engine::BoardId::Classic, Default::default()).unwrap()));
    out.push(("dealing", Game::new(2, lanopoly_engine::BoardId::Classic, preset("speed")).unwrap()));
    out
}

#[test]
fn refused_inputs_change_nothing_and_say_why_in_plain_words() {
    for (label, game) in scenarios() {
        sweep(game, label);
    }
}

/// A trusted move skips the check only where nothing checks it: with the test mode on (and in
/// every debug build) a refused one panics instead of being played.
#[test]
#[should_panic(expected = "a trusted move was refused")]
fn a_trusted_illegal_move_panics_in_the_test_mode() {
    lanopoly_engine::verify_trusted(true);
    let mut game = official(2);
    let seat = game.actor().unwrap();
    game.apply_trusted(Move { player: 1 - seat, action: Action::Roll });
}

#[test]
#[should_panic(expected = "a trusted chance outcome was refused")]
fn a_trusted_impossible_outcome_panics_in_the_test_mode() {
    lanopoly_engine::verify_trusted(true);
    let mut game = official(2);
    let seat = game.actor().unwrap();
    game.apply(Move { player: seat, action: Action::Roll }).unwrap();
    game.apply_chance_trusted(Outcome::Dice(7, 7));
}

#[test]
fn a_trusted_legal_move_plays_as_a_checked_one() {
    let mut checked = official(2);
    let mut trusted = checked.clone();
    let seat = checked.actor().unwrap();
    checked.apply(Move { player: seat, action: Action::Roll }).unwrap();
    trusted.apply_trusted(Move { player: seat, action: Action::Roll });
    checked.apply_chance(Outcome::Dice(2, 5)).unwrap();
    trusted.apply_chance_trusted(Outcome::Dice(2, 5));
    assert_eq!(trusted.state_hash(), checked.state_hash());
}
