"""The end of a game in the console: the winner, final net worths, rent paid and received, and
who held which deed longest, computed from the events the table saw."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from conftest import dice
from lanopoly import Rules, SimpleBot
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.commands import command_for
from lanopoly.console.session import BARS, lead_since, worth_chart
from lanopoly.describe import describe
from lanopoly.i18n import money, t
from screen import Terminal, wait_for
from test_console import _play_through_the_app


def _to_the_end(table: LocalTable) -> None:
    """Play every seat with SimpleBots (the person's seat too)."""
    person = SimpleBot()
    while not table.over:
        if not table.step():
            table.act(person.choose(table.game, table.me, table.game.legal_actions(table.me)))


@pytest.mark.parametrize(("seed", "players", "preset"), [(1, 3, "official"), (2, 4, "speed"), (3, 2, "paris-quick")])
def test_the_summary_matches_the_game(seed, players, preset):
    names = ["ada", "bea", "cy", "dee"][:players]
    table = LocalTable(names, me=0, rules=Rules.preset(preset, round_limit=40), seed=seed)
    _to_the_end(table)
    game, summary = table.game, table.summary()
    assert summary.winner == game.winner is not None
    numbered = [int(m.group(1)) for line in table.lines if (m := re.match(r"-- Round (\d+):", line))]
    assert summary.round == numbered[-1] in (game.round, game.round + 1)  # the log's last round
    for row in summary.standings:
        assert row.net_worth == game.net_worth(row.seat) == game.player(row.seat)["net_worth"]
        assert row.bankrupt == game.player(row.seat)["bankrupt"]
    # Rent only moves between players: what was paid was received.
    paid = sum(r.rent_paid for r in summary.standings)
    assert paid == sum(r.rent_received for r in summary.standings) > 0
    # The holdings followed from the events agree with the owners at the end.
    ledger = table.ledger
    for square in range(40):
        owner = game.square(square).get("owner")
        assert (ledger.holder[square][0] if square in ledger.holder else None) == owner, square
    holdings = ledger.holdings()
    assert all(0 <= turns <= ledger.turns for turns in holdings.values())
    for row in summary.standings:
        if row.longest is not None:
            square, turns = row.longest
            assert turns == max(n for (s, _), n in holdings.items() if s == row.seat) == holdings[(row.seat, square)]
    assert summary.record is not None
    seat, square, turns = summary.record
    assert turns == max(holdings.values()) == holdings[(seat, square)]
    # The log ends with the summary, once.
    lines = table.summary_lines()
    assert table.lines[-len(lines) :] == lines
    assert sum(line.startswith("Game over in round") for line in table.lines) == 1
    assert lines[0] == f"Game over in round {summary.round}: {game.names[game.winner]} wins."
    for rank, row in enumerate(summary.ranked(), 1):
        worth = money("en", "$", row.net_worth)
        if not row.bankrupt:
            assert f"{rank}. {row.name}: net worth {worth}; rent paid ${row.rent_paid}" in "\n".join(lines)


def test_rent_paid_and_received_are_counted_exactly():
    """Scripted: seat 0 buys Baltic Avenue, seat 1 lands on it and pays $4 rent when seat 0
    claims it."""
    table = LocalTable(["ada", "bea"], me=0, seed=0)
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 2))  # to Baltic Avenue
    table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})
    table.act({"type": "roll", "player": 1})
    table.act(dice(1, 2))  # bea lands on Baltic Avenue
    assert [r.rent_paid for r in table.summary().standings] == [0, 0], "not paid until claimed"
    table.act({"type": "claim_rent", "player": 0, "square": 3})
    summary = table.summary()
    assert [r.rent_paid for r in summary.standings] == [0, 4]
    assert [r.rent_received for r in summary.standings] == [4, 0]
    assert summary.standings[0].longest == (3, 1)  # held since the first turn; one more turn started
    assert summary.standings[1].longest is None
    assert summary.record == (0, 3, 1)


def test_the_screen_shows_the_end_of_a_game_played_through_the_app():
    table = LocalTable(["ada", "dog", "car"], me=0, rules=Rules(round_limit=12), seed=7, lang="fr")
    status = _play_in_french(table)
    assert status == 0
    game = table.game
    assert game.winner is not None
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    assert app.decision() == t("fr", "dec.game_over", winner=game.names[game.winner])
    middle = ["".join(text for _, text in line) for line in app._middle()]
    for rank, row in enumerate(table.summary().ranked()):
        assert middle[rank].startswith(f" {'*' if row.seat == game.winner else ' '}{row.seat + 1} {row.name}")
        assert f"fortune {money('fr', '$', row.net_worth)}" in middle[rank] or row.bankrupt
    assert middle[0].startswith(f" *{game.winner + 1}")
    assert any(line.startswith("Partie terminée au tour") for line in table.lines)
    assert any(line == describe(game, {"type": "game_over", "winner": game.winner}, lang="fr") for line in table.lines)


def _play_in_french(table: LocalTable) -> int:
    """Like test_console's driver: the commands a bot chooses are typed (English command words
    work in every language); the game ends in French and 'quitter' leaves."""
    person = SimpleBot()

    async def session() -> int:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=DummyOutput())
            running = asyncio.create_task(app.run())
            deadline = time.monotonic() + 120
            while not table.over and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
                if not table.my_move:
                    continue
                action = person.choose(table.game, table.me, table.game.legal_actions(table.me))
                command = command_for(action, table.game)
                applied = len(table.record.inputs)
                pipe.send_text(command + "\r")
                while len(table.record.inputs) == applied and time.monotonic() < deadline:
                    await asyncio.sleep(0.001)
            assert table.over
            assert app.decision().startswith("Partie terminée")
            pipe.send_text("quitter\r")
            return await asyncio.wait_for(running, timeout=30)

    return asyncio.run(session())


def test_the_english_driver_still_sees_game_over():
    table = LocalTable(["ada", "dog"], me=0, rules=Rules(round_limit=5), seed=9)
    status, _ = _play_through_the_app(table)
    lines = table.summary_lines()
    assert status == 0 and table.lines[-len(lines) :] == lines
    assert any(line.startswith("Longest holder:") for line in lines)


def test_the_end_shows_net_worth_round_by_round_the_lead_and_the_biggest_rent():
    """Issue 14, "End of game": a chart of each player's net worth by round (one scale for all),
    the round from which the winner led for good, and the largest rent paid, all from the game."""
    table = LocalTable(["ada", "bea", "cy"], me=0, rules=Rules.preset("official", round_limit=40), seed=1)
    _to_the_end(table)
    game, summary = table.game, table.summary()
    assert len(summary.worth) == game.round == 40, "one row for each round begun"
    assert summary.worth[0] == (1500, 1500, 1500), "each round's row is taken as it begins"
    replayed, rents = table.record.new_game(), []
    for action in table.record.inputs:
        for event in replayed.apply(action):
            paid = event["type"] == "payment" and event["reason"] == "rent"
            if paid and isinstance(event["from"], dict) and isinstance(event["to"], dict):
                rents.append(event["amount"])
    assert summary.biggest_rent is not None and summary.biggest_rent[2] == max(rents)
    lines = table.summary_lines()
    top = max(max(row) for row in summary.worth)
    assert f"Net worth round by round ({len(summary.worth)} rounds; a full bar is ${top}):" in lines
    for seat, name in enumerate(game.names):
        assert f"   {name:<3} {worth_chart(summary.worth, seat)}" in lines
    assert game.winner is not None
    since = lead_since(summary.worth, game.winner)
    assert f"{game.names[game.winner]} led for good from round {since}." in lines
    payer, owner, amount, number = summary.biggest_rent
    assert lines[-1] == f"Biggest rent: {game.names[payer]} paid {game.names[owner]} ${amount} in round {number}."


def test_a_chart_row_scales_to_the_top_of_every_row_and_a_lead_is_counted_from_its_last_start():
    worth = [(1500, 1500), (3000, 750), (0, 6000), (6000, 0)]
    assert worth_chart(worth, 0) == BARS[2] + BARS[4] + BARS[0] + BARS[8]
    assert worth_chart(worth, 1) == BARS[2] + BARS[1] + BARS[8] + BARS[0]
    assert lead_since(worth, 0) == 4 and lead_since(worth, 1) is None
    assert lead_since([(5, 5), (6, 5)], 0) == 1, "a tie counts as leading"
    long = [(n, 0) for n in range(1, 121)]  # 120 rounds: two rounds a column
    assert len(worth_chart(long, 0)) == 60 and worth_chart(long, 0)[-1] == BARS[8]
    assert worth_chart([(0, 0)], 0) == ""


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
def test_a_person_out_of_the_game_is_told_so_while_the_others_play_on(lang: str) -> None:
    """Found playing a LAN game as a newcomer: once bankrupt, the screen only said "Waiting for
    bot 2..." while the game went on without the person. It now says they are out, and how to
    leave, in each language."""
    table = LocalTable(["ann", "bea", "cy"], me=0, seed=0, lang=lang)
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 3)):
        table.act(outcome)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    assert app.decision() != t(lang, "dec.out")
    table.act({"type": "resign", "player": 0})
    assert table.game.player(0)["bankrupt"] and not table.game.is_over
    assert app.decision() == t(lang, "dec.out")
    assert app.decision().startswith(
        {"en": "You are out", "fr": "Vous êtes hors jeu", "it": "Sei fuori", "no": "Du er ute"}[lang]
    )


def test_the_standings_rank_the_winner_first_then_by_worth_then_the_last_to_go_bankrupt() -> None:
    """A timed game forced to its end by ``endgame``: bea resigns, then dee; ada pays $200 of
    income tax. The standings, in the log and in the board's middle, read in rank order: cy
    (the richest, the winner), ada, then dee (out last) before bea (out first), each numbered by
    rank, not by seat."""
    table = LocalTable(["ada", "bea", "cy", "dee"], me=0, seed=0, rules=Rules.preset("timed", starting_deeds=0))
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 3), dice(1, 4)):
        table.act(outcome)
    table.act({"type": "resign", "player": 1})
    table.act({"type": "resign", "player": 3})
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 3))  # Income Tax: ada $1300, cy $1500

    async def session() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30.0, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            pipe.send_text("endgame\r")
            await wait_for(app.app, lambda lines: "End the game now?" in app.feedback[1])
            pipe.send_text("y\r")
            screen = await wait_for(app.app, lambda lines: table.over and any(" *3 cy" in line for line in lines))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screen

    screen = asyncio.run(session())
    assert table.game.winner == 2
    start = next(i for i, line in enumerate(table.lines) if line.startswith("Game over in round"))
    assert table.lines[start] == "Game over in round 1: cy wins."  # it said "after 0 rounds"
    standings = [line for line in table.lines[start:] if line[:3] in ("1. ", "2. ", "3. ", "4. ")]
    assert standings == [
        "1. cy: net worth $1500; rent paid $0, received $0",
        "2. ada: net worth $1300; rent paid $0, received $0",
        "3. dee: bankrupt; rent paid $0, received $0",
        "4. bea: bankrupt; rent paid $0, received $0",
    ], table.lines[start:]
    panel = [found.group(1) for line in screen if (found := re.search(r" [ *][1-4] (ada|bea|cy|dee) ", line))]
    assert panel == ["cy", "ada", "dee", "bea"], screen


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
@pytest.mark.parametrize(
    ("buys", "decided", "winner"), [(False, "end.tie_order", "ada"), (True, "end.tie_cash", "bea")]
)
def test_a_tied_end_says_what_decided_the_winner(lang: str, buys: bool, decided: str, winner: str) -> None:
    """Found in the tmux runs: a game ending with the players at the same net worth named a winner
    with no word of the tie. One round: ada lands on Just Visiting (or buys Baltic Avenue, $60
    of cash for a $60 deed), bea too; both are worth $1500. With the same cash ada wins as the
    first to play; having bought, she has less cash and bea wins on it. The end screen says so
    under its title."""
    table = LocalTable(["ada", "bea"], me=0, seed=0, rules=Rules(round_limit=1), lang=lang)
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 2) if buys else dice(6, 4))
    if buys:
        table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})
    table.act({"type": "roll", "player": 1})
    table.act(dice(6, 4))
    table.act({"type": "end_turn", "player": 1})
    assert table.game.is_over and table.game.names[table.game.winner] == winner
    worth = money(lang, table.game.currency, 1500)
    cash = money(lang, table.game.currency, table.game.player(table.game.winner)["cash"])
    told = t(lang, decided, worth=worth, cash=cash, others="bea" if winner == "ada" else "ada", winner=winner)

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            lines = await wait_for(app.app, lambda lines: told.split()[0] in "\n".join(lines[13:]))
            pipe.send_text("\x11")
            await asyncio.wait_for(running, 10)
            return lines

    screen = asyncio.run(run())
    log = " ".join(line.strip() for line in screen[13:21])
    assert log.startswith(t(lang, "end.title", round=1, winner=winner) + " " + told), "\n".join(screen)
