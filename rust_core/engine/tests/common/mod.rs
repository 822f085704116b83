//! Helpers shared by the engine's integration tests: scripted games and random playouts.
#![allow(dead_code)]

use lanopoly_engine::board::{property_at, DEEDS};
use lanopoly_engine::{Action, BoardId, Event, Game, Input, Move, Outcome, Party, Resolver, Rules};

/// A game whose order roll is scripted so that seat 0 starts.
pub fn started(players: u8, rules: Rules) -> Game {
    let mut game = Game::new(players, BoardId::Classic, rules).unwrap();
    game.record_events(true);
    assert!(game.is_chance_node());
    for seat in 0..players {
        let dice = if seat == 0 { Outcome::Dice(6, 6) } else { Outcome::Dice(1, 2) };
        game.apply_chance(dice).unwrap();
    }
    assert_eq!(game.actor(), Some(0));
    game.take_events();
    game
}

pub fn official(players: u8) -> Game {
    started(players, Rules::default())
}

/// The official rules with rent collected on landing (option `rent_claim`, the Paris app's way):
/// for tests about what rent or a debt comes to, not about claiming it.
pub fn automatic_rent() -> Rules {
    Rules { rent_claim: lanopoly_engine::RentClaim::Automatic, ..Rules::default() }
}

/// [`official`] with [`automatic_rent`].
pub fn auto_rent(players: u8) -> Game {
    started(players, automatic_rent())
}

/// Apply a move that must be legal.
pub fn act(game: &mut Game, player: u8, action: Action) {
    if let Err(e) = game.apply(Move { player, action }) {
        panic!("seat {player} {action:?} refused: {e}");
    }
}

/// Apply a move that must be refused, and check nothing changed.
pub fn refused(game: &mut Game, player: u8, action: Action) -> String {
    let before = game.state_hash();
    let err = game.apply(Move { player, action }).expect_err("should be refused");
    assert_eq!(game.state_hash(), before, "a refused move changed the state");
    err.reason
}

/// The turn player rolls these dice.
pub fn roll(game: &mut Game, a: u8, b: u8) {
    let p = game.turn_player;
    act(game, p, Action::Roll);
    game.apply_chance(Outcome::Dice(a.min(b), a.max(b))).unwrap();
}

/// Draw this card (index in the edition's deck table) at a pending card draw.
pub fn draw(game: &mut Game, card: u8) {
    game.apply_chance(Outcome::Card(card)).unwrap();
}

/// Property index of the deed on a square.
pub fn prop(square: u8) -> usize {
    property_at(square).unwrap() as usize
}

/// Hand deeds (by square) to a seat directly, as a test set-up.
pub fn give(game: &mut Game, seat: u8, squares: &[u8]) {
    for &s in squares {
        game.set_owner(prop(s) as u8, seat);
    }
}

pub fn cash(game: &Game, seat: u8) -> u32 {
    game.players[seat as usize].cash
}

pub fn set_cash(game: &mut Game, seat: u8, amount: u32) {
    game.players[seat as usize].cash = amount;
}

/// Place a seat on a square (no salary, nothing resolved): a test set-up.
pub fn put(game: &mut Game, seat: u8, square: u8) {
    game.players[seat as usize].position = square;
}

pub fn price(square: u8) -> u32 {
    DEEDS[prop(square)].price
}

/// Net money that left the bank (and jackpot) according to the Payment events.
pub fn bank_outflow(events: &[Event]) -> i64 {
    let mut net = 0i64;
    for e in events {
        if let Event::Payment { from, to, amount, .. } = e {
            let outside = |p: &Party| matches!(p, Party::Bank);
            if outside(from) {
                net += *amount as i64;
            }
            if outside(to) {
                net -= *amount as i64;
            }
        }
    }
    net
}

/// A random legal input: the engine's random policy, plus now and then a random trade proposal
/// and, rarely, a random seat resigning (neither is listed among the legal actions).
pub fn random_input(game: &Game, rng: &mut Resolver) -> Option<Input> {
    if !game.is_over() && rng.below(500) == 0 {
        let player = rng.below(game.num_players as u32) as u8;
        let resign = Move { player, action: Action::Resign };
        if game.check(resign).is_ok() {
            return Some(Input::Move(resign));
        }
    }
    if !game.is_over() && !game.is_chance_node() && rng.below(8) == 0 {
        let player = game.actor().expect("someone must act");
        let to = rng.below(game.num_players as u32) as u8;
        let pick = |mask: u32, r: &mut Resolver| {
            if mask == 0 {
                0
            } else {
                1 << lanopoly_engine::board::bits(mask).nth(r.below(mask.count_ones()) as usize).unwrap()
            }
        };
        let give = lanopoly_engine::Bundle {
            properties: pick(game.holdings(player), rng),
            cash: rng.below(100),
            jail_cards: game.players[player as usize].jail_cards & 1,
        };
        let get =
            lanopoly_engine::Bundle { properties: pick(game.holdings(to), rng), cash: rng.below(50), jail_cards: 0 };
        let offer = Action::ProposeTrade { to, give, get };
        if game.check(Move { player, action: offer }).is_ok() {
            return Some(Input::Move(Move { player, action: offer }));
        }
    }
    let input = lanopoly_engine::bot::random_input(game, rng);
    assert!(input.is_some() || game.is_over(), "nobody can act in {game:?}");
    input
}

/// Like [`started`], on any board.
pub fn started_on(board: BoardId, players: u8, rules: Rules) -> Game {
    let mut game = Game::new(players, board, rules).unwrap();
    game.record_events(true);
    for seat in 0..players {
        let dice = if seat == 0 { Outcome::Dice(6, 6) } else { Outcome::Dice(1, 2) };
        game.apply_chance(dice).unwrap();
    }
    assert_eq!(game.actor(), Some(0));
    game.take_events();
    game
}

/// The rules of a named preset.
pub fn preset(name: &str) -> Rules {
    Rules::preset(name).unwrap_or_else(|| panic!("no preset {name}"))
}

/// A game whose starting deeds (speed / timed) are dealt in this order (squares; seat 0, 1, ...
/// round and round), then seat 0 wins the order roll.
pub fn dealt(players: u8, rules: Rules, deeds: &[u8]) -> Game {
    let mut game = Game::new(players, BoardId::Classic, rules).unwrap();
    game.record_events(true);
    for &square in deeds {
        game.apply_chance(Outcome::Deed(property_at(square).unwrap())).unwrap();
    }
    for seat in 0..players {
        let dice = if seat == 0 { Outcome::Dice(6, 6) } else { Outcome::Dice(1, 2) };
        game.apply_chance(dice).unwrap();
    }
    assert_eq!(game.actor(), Some(0));
    game.take_events();
    game
}

/// Set the buildings on a street (0..=4 houses or HOTEL), keeping the bank's stock consistent:
/// a test set-up.
pub fn set_level(game: &mut Game, square: u8, level: u8) {
    let p = prop(square);
    let old = game.level(p as u8);
    if game.rules.limited_buildings {
        if old == lanopoly_engine::HOTEL {
            game.hotels_left += 1;
        } else {
            game.houses_left += old;
        }
        if level == lanopoly_engine::HOTEL {
            game.hotels_left -= 1;
        } else {
            game.houses_left -= level;
        }
    }
    game.set_level(p as u8, level);
}

/// Mortgage a deed directly (no money moves): a test set-up.
pub fn set_mortgaged(game: &mut Game, square: u8) {
    game.set_mortgaged(game.mortgaged() | 1 << prop(square));
}

pub fn level(game: &Game, square: u8) -> u8 {
    game.level(prop(square) as u8)
}

pub fn owner(game: &Game, square: u8) -> u8 {
    game.owner(prop(square) as u8)
}

pub fn pos(game: &Game, seat: u8) -> u8 {
    game.players[seat as usize].position
}

pub fn in_jail(game: &Game, seat: u8) -> bool {
    game.players[seat as usize].in_jail
}

/// Put a seat in jail as if it had been sent there earlier: a test set-up.
pub fn jail(game: &mut Game, seat: u8) {
    game.players[seat as usize].position = 10;
    game.players[seat as usize].in_jail = true;
}

/// The turn player ends its turn.
pub fn end_turn(game: &mut Game) {
    let p = game.turn_player;
    act(game, p, Action::EndTurn);
}

/// The turn player (not in jail) plays a turn that changes nothing but its position: from Jail
/// (just visiting) it rolls 4 + 6 to Free Parking, then ends its turn.
pub fn idle_turn(game: &mut Game) {
    let p = game.turn_player;
    assert!(!game.players[p as usize].in_jail);
    put(game, p, 10);
    roll(game, 4, 6);
    assert_eq!(game.players[p as usize].position, 20);
    end_turn(game);
}

/// The turn player moves from `from` by the dice: a test set-up followed by a real roll.
pub fn land(game: &mut Game, from: u8, a: u8, b: u8) {
    let p = game.turn_player;
    put(game, p, from);
    roll(game, a, b);
}

/// The reason an outcome is refused (and check that nothing changed).
pub fn refused_outcome(game: &mut Game, outcome: Outcome) -> String {
    let before = game.state_hash();
    let err = game.apply_chance(outcome).expect_err("outcome should be refused");
    assert_eq!(game.state_hash(), before, "a refused outcome changed the state");
    err.reason
}
