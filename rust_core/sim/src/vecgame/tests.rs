//! Tests of the batch: kept rows, refusals, caps, interrupts and panics on any thread count.
use super::{StepBuffers, VecGame, INTERRUPTED};
use crate::action_space::SIZE;
use crate::interrupt::Interrupt;
use crate::policy::Policy;
use lanopoly_engine::{Action, BoardId, Game, Resolver, Rules};

/// A bot with a bug: it panics on its first move.
struct Broken;

impl Policy for Broken {
    fn name(&self) -> &str {
        "broken"
    }

    fn choose(&mut self, _: &Game, _: u8, _: &mut Resolver) -> Action {
        panic!("broken bot")
    }
}

/// Step with the first legal action of every game until `step` fails.
fn step_until_error(v: &mut VecGame, b: &mut StepBuffers) -> String {
    let n = v.len();
    for _ in 0..10_000 {
        let actions: Vec<u32> =
            (0..n).map(|i| b.mask[i * SIZE..(i + 1) * SIZE].iter().position(|&m| m).unwrap() as u32).collect();
        if let Err(why) = v.step(&actions, &mut b.view()) {
            return why;
        }
    }
    panic!("no step failed")
}

/// A random legal action for each game.
fn random_actions(b: &StepBuffers, n: usize, rng: &mut Resolver) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let legal: Vec<usize> = (0..SIZE).filter(|&a| b.mask[i * SIZE + a]).collect();
            legal[rng.below(legal.len() as u32) as usize] as u32
        })
        .collect()
}

fn against_random_bots(n: usize, seed: u64) -> (VecGame, StepBuffers) {
    let opponents = ["random".to_string()];
    let mut v =
        VecGame::with_opponents(n, 4, BoardId::Classic, Rules::default(), seed, 20_000, Some(0), &opponents).unwrap();
    v.autoreset = false;
    let mut b = StepBuffers::new(n, 4);
    v.observe_all(&mut b.view()).unwrap();
    (v, b)
}

#[test]
fn a_game_is_cut_at_max_inputs_and_reported_truncated() {
    let (mut v, mut b) = against_random_bots(4, 1);
    v.set_max_inputs(300);
    let mut rng = Resolver::new(2);
    let mut cut = None;
    for _ in 0..2_000 {
        let actions = random_actions(&b, 4, &mut rng);
        v.step(&actions, &mut b.view()).unwrap();
        if let Some(i) = (0..4).find(|&i| b.truncated[i]) {
            cut = Some(i);
            break;
        }
        assert!(!b.terminated.iter().any(|&t| t), "no game ends within 300 inputs");
    }
    let i = cut.expect("a game was cut");
    assert!(v.game(i).step >= 300 && !v.game(i).is_over(), "cut at the cap, not over");
    let why = v.step(&random_actions(&b, 4, &mut rng), &mut b.view()).unwrap_err();
    assert_eq!(why, format!("game {i} is over: reset it"));
}

#[test]
fn the_learners_bankruptcy_ends_its_game_with_its_loss() {
    let (mut v, mut b) = against_random_bots(8, 3);
    let mut rng = Resolver::new(4);
    let bankrupt = crate::action_space::index_of(
        &Game::new(4, BoardId::Classic, Rules::default()).unwrap(),
        0,
        Action::DeclareBankruptcy,
    )
    .unwrap();
    for _ in 0..50_000 {
        let mut actions = random_actions(&b, 8, &mut rng);
        let declaring: Vec<usize> = (0..8).filter(|&i| b.mask[i * SIZE + bankrupt]).collect();
        for &i in &declaring {
            actions[i] = bankrupt as u32;
        }
        v.step(&actions, &mut b.view()).unwrap();
        for i in declaring {
            let game = v.game(i);
            assert!(b.terminated[i] && !b.truncated[i], "the learner's game ended at once");
            assert!(game.player(0).bankrupt);
            if !game.is_over() {
                assert_eq!(&b.rewards[i * 4..i * 4 + 4], &[-1.0 / 3.0, 0.0, 0.0, 0.0]);
                return;
            }
        }
        if b.terminated.iter().chain(&b.truncated).any(|&end| end) {
            v.reset();
            v.observe_all(&mut b.view()).unwrap();
        }
    }
    panic!("the learner never went bankrupt with bots left in the game");
}

#[test]
fn an_interrupt_stops_a_long_step_and_poisons_the_batch() {
    let (mut v, mut b) = against_random_bots(1, 6);
    v.set_max_inputs(u32::MAX);
    // A bot plays the learner's seat too: the step plays a whole random game.
    v.slots[0].bots[0] = Some((crate::bots::from_spec("random").unwrap(), Resolver::new(6)));
    let hook = || true;
    let interrupt = Interrupt::new(&hook);
    let actions = random_actions(&b, 1, &mut Resolver::new(7));
    let why = v.step_interruptible(&actions, &mut b.view(), &interrupt).unwrap_err();
    assert_eq!(why, INTERRUPTED);
    let played = v.game(0).step;
    assert!(!v.game(0).is_over() && (Interrupt::EVERY..2 * Interrupt::EVERY).contains(&played), "{played}");
    assert_eq!(v.poisoned(), Some(INTERRUPTED));
    v.reset();
    v.observe_all(&mut b.view()).unwrap();
}

#[test]
fn the_kept_parts_match_a_fresh_row_at_every_step() {
    let mut v = VecGame::new(8, 3, BoardId::Classic, Rules::default(), 5, 20_000).unwrap();
    let mut b = StepBuffers::new(8, 3);
    v.observe_all(&mut b.view()).unwrap();
    let mut rng = Resolver::new(9);
    let (mut obs, mut fresh) = (vec![0.0; crate::observation::SIZE], [false; SIZE]);
    for _ in 0..3_000 {
        let actions: Vec<u32> = (0..8)
            .map(|i| {
                let legal: Vec<usize> = (0..SIZE).filter(|&a| b.mask[i * SIZE + a]).collect();
                legal[rng.below(legal.len() as u32) as usize] as u32
            })
            .collect();
        v.step(&actions, &mut b.view()).unwrap();
        for i in 0..8 {
            v.view(i, b.player[i] as u8, &mut obs, &mut fresh);
            assert_eq!(&b.mask[i * SIZE..(i + 1) * SIZE], &fresh[..], "game {i}");
            let row = &b.obs[i * crate::observation::SIZE..(i + 1) * crate::observation::SIZE];
            assert!(row.iter().zip(&obs).all(|(a, b)| a.to_bits() == b.to_bits()), "game {i}");
        }
    }
}

#[test]
fn an_illegal_action_moves_no_game_on_any_thread_count() {
    for threads in [1, 2, 3, 5] {
        let mut v = VecGame::new(20, 4, BoardId::Classic, Rules::default(), 3, 1_000).unwrap();
        v.set_threads(threads);
        let mut b = StepBuffers::new(20, 4);
        v.observe_all(&mut b.view()).unwrap();
        let before: Vec<_> = (0..20).map(|i| v.game(i).state_hash()).collect();
        let rows = b.obs.clone();
        let mut actions: Vec<u32> =
            (0..20).map(|i| b.mask[i * SIZE..(i + 1) * SIZE].iter().position(|&m| m).unwrap() as u32).collect();
        actions[11] = (0..SIZE).find(|&a| !b.mask[11 * SIZE + a]).unwrap() as u32; // illegal
        actions[17] = SIZE as u32; // out of range, after the first illegal one
        let why = v.step(&actions, &mut b.view()).unwrap_err();
        assert!(why.starts_with("game 11: action"), "{why}");
        assert_eq!((0..20).map(|i| v.game(i).state_hash()).collect::<Vec<_>>(), before, "threads {threads}");
        assert!(b.obs == rows, "the outputs were not written");
    }
}

#[test]
fn a_panic_in_a_step_poisons_the_batch_until_reset_on_any_thread_count() {
    for threads in [1, 2, 3] {
        let opponents = ["random".to_string()];
        let mut v =
            VecGame::with_opponents(6, 2, BoardId::Classic, Rules::default(), 7, 1_000, Some(0), &opponents).unwrap();
        v.set_threads(threads);
        v.slots[4].bots[1].as_mut().unwrap().0 = Box::new(Broken);
        let mut b = StepBuffers::new(6, 2);
        v.observe_all(&mut b.view()).unwrap();
        let why = step_until_error(&mut v, &mut b);
        assert!(why.contains("game 4: broken bot"), "threads {threads}: {why}");
        assert_eq!(v.poisoned(), Some(why.as_str()));
        assert_eq!(v.len(), 6, "the games are still there");
        // Every later call says so, with the same reason.
        assert_eq!(v.step(&[0; 6], &mut b.view()).unwrap_err(), why);
        assert_eq!(v.observe_all(&mut b.view()).unwrap_err(), why);
        // A reset starts every game afresh (with working bots) and clears the poison.
        v.reset();
        assert_eq!(v.poisoned(), None);
        v.observe_all(&mut b.view()).unwrap();
        for _ in 0..50 {
            let actions: Vec<u32> =
                (0..6).map(|i| b.mask[i * SIZE..(i + 1) * SIZE].iter().position(|&m| m).unwrap() as u32).collect();
            v.step(&actions, &mut b.view()).unwrap();
        }
    }
}

/// Step `v` with random legal actions from `rng` for `steps` steps; every output, bit for bit.
fn play_on(v: &mut VecGame, b: &mut StepBuffers, rng: &mut Resolver, steps: usize) -> Vec<Vec<u32>> {
    let n = v.len();
    let mut outputs = Vec::new();
    for _ in 0..steps {
        let actions = random_actions(b, n, rng);
        v.step(&actions, &mut b.view()).unwrap();
        outputs.push(b.obs.iter().map(|x| x.to_bits()).chain(b.rewards.iter().map(|x| x.to_bits())).collect());
        outputs.push(b.mask.iter().chain(&b.terminated).chain(&b.truncated).map(|&x| x as u32).collect());
    }
    outputs
}

#[test]
fn a_saved_batch_resumes_exactly() {
    let opponents = ["heuristic".to_string(), "random".to_string(), "random".to_string()];
    let batches = [
        VecGame::new(6, 3, BoardId::Classic, Rules::default(), 31, 20_000).unwrap(),
        VecGame::with_opponents(6, 3, BoardId::Paris, Rules::default(), 32, 20_000, Some(1), &opponents).unwrap(),
    ];
    for mut v in batches {
        v.set_threads(2);
        let mut b = StepBuffers::new(6, 3);
        v.observe_all(&mut b.view()).unwrap();
        let mut rng = Resolver::new(33);
        play_on(&mut v, &mut b, &mut rng, 400);
        let saved = v.to_bytes().unwrap();
        let mut back = VecGame::from_bytes(&saved).unwrap();
        assert_eq!(back.to_bytes().unwrap(), saved, "a resumed batch saves the same bytes");
        assert_eq!((back.threads(), back.max_inputs()), (2, v.max_inputs()));
        let mut b2 = StepBuffers::new(6, 3);
        back.observe_all(&mut b2.view()).unwrap();
        assert!(b.obs == b2.obs && b.mask == b2.mask && b.player == b2.player);
        let (mut rng1, mut rng2) = (Resolver::new(34), Resolver::new(34));
        let ahead = play_on(&mut v, &mut b, &mut rng1, 1_500);
        assert!(ahead == play_on(&mut back, &mut b2, &mut rng2, 1_500), "the resumed batch went another way");
        assert!((0..6).all(|i| v.game(i).state_hash() == back.game(i).state_hash()));
    }
}

#[test]
fn bad_saved_bytes_are_refused_saying_why() {
    let v = VecGame::new(2, 2, BoardId::Classic, Rules::default(), 1, 100).unwrap();
    let saved = v.to_bytes().unwrap();
    let refusal = |data: &[u8]| VecGame::from_bytes(data).err().expect("refused");
    assert!(refusal(&saved[..saved.len() - 3]).starts_with("malformed VecGame bytes"));
    assert!(refusal(b"junk").starts_with("malformed VecGame bytes"));
    let mut other = saved.clone();
    other[1] ^= 1; // a letter of the format tag
    assert!(refusal(&other).contains("format"));
}

#[test]
fn a_skipped_game_stays_as_it_is_and_a_game_can_be_reset_alone() {
    let (mut v, mut b) = against_random_bots(4, 8);
    let mut rng = Resolver::new(9);
    play_on(&mut v, &mut b, &mut rng, 20);
    let before: Vec<_> = (0..4).map(|i| v.game(i).state_hash()).collect();
    let row =
        |b: &StepBuffers, i: usize| b.obs[i * crate::observation::SIZE..(i + 1) * crate::observation::SIZE].to_vec();
    let kept = row(&b, 2);
    let mut actions = random_actions(&b, 4, &mut rng);
    actions[2] = super::SKIP;
    v.step(&actions, &mut b.view()).unwrap();
    assert_eq!(v.game(2).state_hash(), before[2]);
    assert!(row(&b, 2) == kept && !b.terminated[2] && !b.truncated[2]);
    let moved: Vec<_> = (0..4).map(|i| v.game(i).state_hash()).collect();
    let moved_steps: Vec<_> = (0..4).map(|i| v.game(i).step).collect();
    let (obs, mask, player) = (&mut b.obs, &mut b.mask, &mut b.player);
    v.reset_games(&[false, true, false, false], obs, mask, player).unwrap();
    assert!(v.game(1).step < moved_steps[1], "game 1 started afresh");
    assert!([0, 2, 3].iter().all(|&i| v.game(i).state_hash() == moved[i]));
    let mut fresh = StepBuffers::new(4, 4);
    v.observe_all(&mut fresh.view()).unwrap();
    assert!(fresh.obs == b.obs && fresh.mask == b.mask && fresh.player == b.player, "the rows were written");
}

#[test]
fn rent_owed_to_a_seat_not_to_act_is_claimed_at_once() {
    // Self-play and with bot opponents, under the official rules (claims within two rolls).
    let opponents = ["heuristic".to_string()];
    for learner in [None, Some(1)] {
        let mut v =
            VecGame::with_opponents(6, 3, BoardId::Classic, Rules::default(), 11, 5_000, learner, &opponents).unwrap();
        let mut b = StepBuffers::new(6, 3);
        v.observe_all(&mut b.view()).unwrap();
        let mut rng = Resolver::new(4);
        for _ in 0..2_000 {
            let actions: Vec<u32> = (0..6)
                .map(|i| {
                    let legal: Vec<usize> = (0..SIZE).filter(|&a| b.mask[i * SIZE + a]).collect();
                    legal[rng.below(legal.len() as u32) as usize] as u32
                })
                .collect();
            v.step(&actions, &mut b.view()).unwrap();
            for i in 0..6 {
                let game = v.game(i);
                let overlay =
                    game.auction.is_some() || !game.debts.is_empty() || game.placing.is_some() || game.fee_due != 0;
                if !overlay && !game.is_chance_node() {
                    let actor = game.actor();
                    assert!(game.claims.iter().all(|c| Some(c.owner) == actor), "game {i}: {:?}", game.claims);
                }
            }
        }
    }
}

/// The kept mask vouches for a move (applied without the engine's check) only on the state and
/// seat it was made for: once the game has moved, or for another seat, a move it listed (the
/// roll, illegal once rolled) is not vouched for.
#[test]
fn a_kept_mask_vouches_only_for_its_own_state_and_seat() {
    use super::{vouched_by_kept_mask, write_row};
    use lanopoly_engine::{Move, Phase};
    let (mut v, mut b) = against_random_bots(1, 3);
    let mut rng = Resolver::new(4);
    // Play on until the learner (seat 0) is to roll.
    for _ in 0..1_000 {
        let game = &v.slots[0].game;
        if game.actor() == Some(0) && game.phase == Phase::AwaitRoll && game.debts.is_empty() {
            break;
        }
        let actions = random_actions(&b, 1, &mut rng);
        v.step(&actions, &mut b.view()).unwrap();
    }
    let slot = &mut v.slots[0];
    assert_eq!((slot.game.actor(), slot.game.phase), (Some(0), Phase::AwaitRoll), "the learner is to roll");
    let mut row = StepBuffers::new(1, 4);
    let view = row.view();
    write_row(slot, 0, view.obs, view.mask, view.player);
    assert!(vouched_by_kept_mask(slot, 0, 0), "the roll, listed for this very state");
    assert!(!vouched_by_kept_mask(slot, 1, 0), "not for another seat");
    slot.game.apply_trusted(Move { player: 0, action: Action::Roll });
    assert!(!vouched_by_kept_mask(slot, 0, 0), "not once the game has moved (the roll is no longer legal)");
}

/// A bot that moves out of turn only for claims and offers but never claims: rent owed to it
/// stays open.
#[derive(Clone)]
struct NeverClaims;

impl Policy for NeverClaims {
    fn name(&self) -> &str {
        "never claims"
    }

    fn choose(&mut self, game: &Game, seat: u8, _: &mut Resolver) -> Action {
        game.legal_actions(seat)[0]
    }

    fn interjects_only_on_claims_and_offers(&self) -> bool {
        true
    }
}

/// The round after an input makes a claim without asking the owner only when the owner claims
/// at once (`Policy::claims_rent_at_once`): an opponent that never claims keeps its claim open,
/// one that claims at once (the heuristic bot) has it made.
#[test]
fn a_claim_is_made_at_once_only_for_a_seat_that_claims_at_once() {
    let opponents = ["heuristic".to_string()];
    let mut made = [0, 0];
    for never in [false, true] {
        for seed in 0..20 {
            let mut v =
                VecGame::with_opponents(1, 2, BoardId::Classic, Rules::default(), seed, 5_000, Some(0), &opponents)
                    .unwrap();
            let slot = &mut v.slots[0];
            if never {
                slot.bots[1].as_mut().expect("seat 1's bot").0 = Box::new(NeverClaims);
            }
            let game = &mut slot.game;
            for property in 0..lanopoly_engine::board::PROPERTIES as u8 {
                game.set_owner(property, 1);
            }
            game.resolve_chance(&mut slot.chance, 100, |_, _, _| {});
            // Seat 0 (the learner) rolls until a claim of seat 1 opens.
            let mut steps = 0;
            while game.claims.is_empty() && steps < 50 && !game.is_over() {
                let Some(step) = game.plain_step().filter(|s| s.player == 0) else { break };
                game.apply(step).unwrap();
                game.resolve_chance(&mut slot.chance, 100, |_, _, _| {});
                steps += 1;
            }
            if game.claims.len() != 1 || game.turn_player != 0 {
                continue;
            }
            super::interject_for_all(slot);
            made[usize::from(never)] += usize::from(slot.game.claims.is_empty());
            if never {
                assert_eq!(slot.game.claims.len(), 1, "seed {seed}: a claim made for a seat that never claims");
            }
        }
    }
    assert!(made[0] >= 5, "{} claims made for the heuristic bot", made[0]);
}
