//! The bots answer a trade offer made to them at once, out of turn, with the judgement they use on
//! their turn: whoever offered (a person, a bot, a LAN peer's player) hears back before the game
//! moves on, not when the bot's own turn comes.

use lanopoly_engine::board::property_at;
use lanopoly_engine::{Action, BoardId, Bundle, Game, Input, Move, Outcome, Resolver, Rules};
use lanopoly_sim::bots::{HeuristicBot, RandomBot, SearchBot};
use lanopoly_sim::play::{interjections, play, Streams};
use lanopoly_sim::Policy;

/// Baltic Avenue's property index.
fn baltic() -> u8 {
    property_at(3).unwrap()
}

/// Three seats under the official rules, `first` to play (before its roll); seat 2 owns Baltic
/// Avenue.
fn seat_2_owns_baltic(first: u8) -> Game {
    let mut game = Game::new(3, BoardId::Classic, Rules::default()).unwrap();
    for seat in 0..3 {
        let dice = if seat == first { Outcome::Dice(6, 6) } else { Outcome::Dice(1, 2) };
        game.apply_chance(dice).unwrap();
    }
    game.set_owner(baltic(), 2);
    assert_eq!(game.actor(), Some(first));
    game
}

/// Seat 0 offers seat 2 `cash` for Baltic Avenue.
fn offer_for_baltic(game: &mut Game, cash: u32) {
    let get = Bundle { properties: 1 << baltic(), ..Bundle::default() };
    let give = Bundle { cash, ..Bundle::default() };
    game.apply(Move { player: 0, action: Action::ProposeTrade { to: 2, give, get } }).unwrap();
}

fn built_in_bots() -> [Box<dyn Policy>; 3] {
    [Box::new(HeuristicBot::default()), Box::new(RandomBot::default()), Box::new(SearchBot::default())]
}

#[test]
fn every_built_in_bot_answers_an_offer_out_of_turn_at_once() {
    for cash in [1, 400] {
        for bot in built_in_bots() {
            let name = bot.name().to_string();
            let mut game = seat_2_owns_baltic(0);
            offer_for_baltic(&mut game, cash);
            let mut policies: Vec<Box<dyn Policy>> =
                vec![Box::new(RandomBot::default()), Box::new(RandomBot::default())];
            policies.push(bot);
            let mut streams = Streams::new(1, 3);
            let mut seen = Vec::new();
            let applied = interjections(&mut game, &mut policies, &mut streams, 10, |_, input, _| seen.push(input));
            assert_eq!(applied, 1, "{name}, ${cash}");
            let Input::Move(Move {
                player: 2,
                action: Action::AcceptTrade { from: 0 } | Action::RejectTrade { from: 0 },
            }) = seen[0]
            else {
                panic!("{name}, ${cash}: {seen:?}");
            };
            assert!(game.offers.is_empty(), "{name}, ${cash}");
            assert_eq!(game.actor(), Some(0), "{name}, ${cash}: the offerer plays on");
            if name == "heuristic" {
                // $400 for a $60 street is accepted, $1 is not.
                assert_eq!(game.owner(baltic()) == 0, cash == 400, "heuristic, ${cash}");
            }
        }
    }
}

#[test]
fn the_heuristic_bot_answers_out_of_turn_as_it_does_on_its_turn() {
    let (mut accepted, mut rejected) = (0, 0);
    for cash in (0..=200).step_by(5) {
        let mut out_of_turn = seat_2_owns_baltic(0);
        offer_for_baltic(&mut out_of_turn, cash);
        let mut on_turn = seat_2_owns_baltic(2);
        offer_for_baltic(&mut on_turn, cash);
        let mut bot = HeuristicBot::default();
        let mut rng = Resolver::new(0);
        let answer = bot.interject(&out_of_turn, 2, &mut rng);
        assert_eq!(answer, Some(bot.choose(&on_turn, 2, &mut rng)), "${cash}");
        match answer {
            Some(Action::AcceptTrade { from: 0 }) => accepted += 1,
            Some(Action::RejectTrade { from: 0 }) => rejected += 1,
            other => panic!("${cash}: {other:?}"),
        }
    }
    assert!(accepted > 0 && rejected > 0, "{accepted} accepted, {rejected} rejected");
}

#[test]
fn the_heuristic_bot_reads_the_board_afresh_to_answer_out_of_turn() {
    // The bot last decided when it held both brown streets; now it holds Baltic Avenue alone, and
    // $150 for it is a good price (it would not be for a street of a whole group).
    let mut bot = HeuristicBot::default();
    let mut rng = Resolver::new(0);
    let mut before = seat_2_owns_baltic(2);
    before.set_owner(property_at(1).unwrap(), 2);
    bot.choose(&before, 2, &mut rng);
    let mut now = seat_2_owns_baltic(0);
    offer_for_baltic(&mut now, 150);
    assert_eq!(bot.interject(&now, 2, &mut rng), Some(Action::AcceptTrade { from: 0 }));
}

#[test]
fn out_of_turn_no_answer_is_given_while_none_is_allowed() {
    // Seat 1 declines Oriental Avenue: an auction runs, and nobody may answer an offer during it.
    let mut game = seat_2_owns_baltic(1);
    offer_for_baltic(&mut game, 400);
    game.apply(Move { player: 1, action: Action::Roll }).unwrap();
    game.apply_chance(Outcome::Dice(2, 4)).unwrap();
    game.apply(Move { player: 1, action: Action::Decline }).unwrap();
    assert!(game.auction.is_some());
    for mut bot in built_in_bots() {
        assert_eq!(bot.interject(&game, 2, &mut Resolver::new(0)), None, "{}", bot.name());
    }
}

#[test]
fn in_bot_games_every_offer_is_answered_by_the_next_input() {
    // Four heuristic bots propose trades to each other; each offer is answered right after it is
    // made (its target is never the seat to act then: the proposer is).
    let (mut offers, mut answered) = (0, 0);
    for seed in 0..8 {
        let mut game = Game::new(4, BoardId::Classic, Rules::default()).unwrap();
        let mut policies: Vec<Box<dyn Policy>> =
            (0..4).map(|_| Box::new(HeuristicBot::default()) as Box<dyn Policy>).collect();
        let mut streams = Streams::new(seed, 4);
        let mut open: Option<u8> = None;
        play(&mut game, &mut policies, &mut streams, 200_000, |_, input, _| {
            if let Some(to) = open.take() {
                let Input::Move(Move { player, action: Action::AcceptTrade { .. } | Action::RejectTrade { .. } }) =
                    input
                else {
                    panic!("seed {seed}: the offer to seat {to} was not answered at once: {input:?}");
                };
                assert_eq!(player, to, "seed {seed}");
                answered += 1;
            }
            if let Input::Move(Move { action: Action::ProposeTrade { to, .. }, .. }) = input {
                offers += 1;
                open = Some(to);
            }
        });
        assert!(game.is_over(), "seed {seed}");
    }
    assert!(offers > 10, "{offers} offers");
    assert_eq!(answered, offers);
}
