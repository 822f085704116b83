//! `Game::visit_legal_actions_where` lists exactly the legal actions its filter accepts, in the
//! order of `legal_actions`, for every seat at every input of random games.

use lanopoly_engine::{Action, BoardId, Game, Move, Resolver, Rules};

#[test]
fn the_filtered_visit_is_the_filtered_legal_list() {
    let filters: [fn(&Action) -> bool; 3] = [
        |a| !matches!(a, Action::Build(_) | Action::Sell(_) | Action::Mortgage(_) | Action::Unmortgage(_)),
        |a| matches!(a, Action::Mortgage(_) | Action::AcceptTrade { .. } | Action::ClaimRent(_)),
        |_| false,
    ];
    let mut compared = 0;
    for seed in 0..6u64 {
        let rules = Rules { round_limit: 25, ..Rules::default() };
        let mut game = Game::new(4, BoardId::Classic, rules).unwrap();
        let mut rng = Resolver::new(seed);
        while !game.is_over() {
            if game.is_chance_node() {
                let o = game.sample_outcome(&mut rng).unwrap();
                game.apply_chance(o).unwrap();
                continue;
            }
            for seat in 0..4u8 {
                let all = game.legal_actions(seat);
                for wanted in filters {
                    let mut seen = Vec::new();
                    game.visit_legal_actions_where(seat, wanted, |a| seen.push(a));
                    let expected: Vec<Action> = all.iter().copied().filter(wanted).collect();
                    assert_eq!(seen, expected, "seat {seat}");
                    compared += expected.len();
                }
            }
            let seat = game.actor().unwrap();
            let actions = game.legal_actions(seat);
            let action = actions[rng.below(actions.len() as u32) as usize];
            game.apply(Move { player: seat, action }).unwrap();
        }
    }
    assert!(compared > 1000, "{compared}");
}
