"""Rent owed to the person, one key away: under the printed books' rules rent is collected only
if the owner claims it before it lapses, so the hint line says who owes what, how to claim it and
before whose roll; F6 or a bare ``claim`` collects the oldest. Driven through the real
application at 80x24, the scene set by scripted dice as a bot's moves would set it.

ada (the person), bea and cy (bots, pausing 30 seconds after each move); bea starts. Round 1:
bea buys Baltic Avenue, cy pays the Income Tax, ada buys Connecticut Avenue. Round 2: bea lands
on Connecticut Avenue (rent $8 owed to ada), then, in the two-claims scene, cy too.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from conftest import dice
from lanopoly import Rules
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.claims import claim_hint
from lanopoly.console.commands import parse
from lanopoly.i18n import money, t
from screen import Terminal, screen_lines, wait_for
from test_console_lan import _drawn, _two_tables, _until

PAUSE = 30.0  # seconds a bot waits after each move: longer than the test
F6 = "\x1b[17~"
CONNECTICUT = 9
TEST_SERVICE_TYPE = f"_lanopoly-c{os.getpid() % 100000}._tcp.local."


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The LAN test listens and advertises on loopback only, under a type of this process."""
    monkeypatch.setenv("LANOPOLY_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("LANOPOLY_SERVICE_TYPE", TEST_SERVICE_TYPE)
    yield


def _table(lang: str = "en", rules: Rules | None = None, both: bool = False) -> LocalTable:
    """The scene above, stopped with bea (or, with ``both``, cy) on Connecticut Avenue, to end
    the turn: the bot does so at once when the application starts."""
    board = "paris" if lang == "fr" else "classic"
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=0, lang=lang, board=board, rules=rules)
    for outcome in (dice(1, 2), dice(6, 6), dice(1, 3)):
        table.act(outcome)
    turns = [(1, dice(1, 2), True), (2, dice(1, 3), False), (0, dice(4, 5), True), (1, dice(2, 4), False)]
    if both:
        turns.append((2, dice(1, 4), False))
    for n, (seat, outcome, buy) in enumerate(turns):
        if n:
            table.act({"type": "end_turn", "player": turns[n - 1][0]})
        table.act({"type": "roll", "player": seat})
        table.act(outcome)
        if buy:
            table.act({"type": "buy", "player": seat})
    assert table.game.square(CONNECTICUT)["owner"] == 0
    assert [(c["owner"], c["square"], c["amount"]) for c in table.game.claims] == [(0, CONNECTICUT, 8)] * (1 + both)
    return table


def _cash(table: LocalTable) -> list[int]:
    return [table.game.player(seat)["cash"] for seat in range(3)]


def _bottom(lines: list[str], rows: int = 2) -> str:
    """The last ``rows`` rows of the screen (the hint line, wrapped), as one text."""
    return " ".join(line.strip() for line in lines[-rows:] if line.strip())


Scene = Callable[[ConsoleApp, PipeInput], Awaitable[None]]


def _run(table: LocalTable, scene: Scene, delay: float = PAUSE) -> None:
    """Run the application on ``table`` at 80x24 with bots moving every ``delay`` seconds, play
    ``scene``, then quit."""

    async def session() -> None:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=delay, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            await scene(app, pipe)
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0

    asyncio.run(session())


def test_f6_claims_the_rent_the_hint_line_tells_with_its_deadline():
    """Rent due before the next roll: bea owes ada $8; the line says so and that it lapses when
    cy rolls (bea has ended her turn). F6 collects it and the line goes back to the commands."""
    table = _table(rules=Rules(rent_claim="before_next_roll"))
    before = _cash(table)

    async def scene(app: ConsoleApp, pipe: PipeInput) -> None:
        told = "bea owes you $8 for Connecticut Avenue: press F6 or type 'claim' (before cy rolls)"
        lines = await wait_for(app.app, lambda lines: _bottom(lines) == told)
        assert _bottom(lines) == told, lines[-3:]
        assert table.game.turn_player == 2 and table.game.claims != []
        pipe.send_text(F6)
        lines = await wait_for(app.app, lambda lines: not table.game.claims and "you can:" in lines[-1])
        assert table.game.claims == []
        assert _cash(table) == [before[0] + 8, before[1] - 8, before[2]]
        assert "ada claims" not in _bottom(lines) and lines[-1].startswith("you can:"), lines[-3:]
        assert "owes you" not in "\n".join(lines)

    _run(table, scene)


def test_two_claims_show_how_many_and_the_oldest_and_a_bare_claim_collects_it():
    """Official rules (before the second next roll): bea and cy both owe ada $8; the line says two
    and shows bea's, which lapses when ada rolls. A bare 'claim' takes bea's, then cy's (before
    bea rolls), then says nothing is owed and changes nothing."""
    table = _table(both=True)
    before = _cash(table)

    async def scene(app: ConsoleApp, pipe: PipeInput) -> None:
        told = "2 rents owed to you; oldest: bea, $8 for Connecticut Avenue: F6 or 'claim' (before you roll)"
        lines = await wait_for(app.app, lambda lines: _bottom(lines) == told)
        assert _bottom(lines) == told, lines[-3:]
        assert table.my_move, "cy has ended the turn: ada is to roll"
        pipe.send_text("claim\r")
        told = "cy owes you $8 for Connecticut Avenue: press F6 or type 'claim' (before bea rolls)"
        lines = await wait_for(app.app, lambda lines: _bottom(lines) == told)
        assert _bottom(lines) == told, lines[-3:]
        assert _cash(table) == [before[0] + 8, before[1] - 8, before[2]]
        pipe.send_text("claim\r")
        lines = await wait_for(app.app, lambda lines: lines[-1].startswith("you can:"))
        assert _cash(table) == [before[0] + 16, before[1] - 8, before[2] - 8]
        assert table.game.claims == []
        hash_before = table.game.state_hash()
        pipe.send_text("claim\r")
        lines = await wait_for(app.app, lambda lines: any("no rent to claim" in line for line in lines))
        assert "no rent to claim: nobody owes you rent now" in lines
        assert table.game.state_hash() == hash_before

    _run(table, scene)


def test_claim_with_a_property_still_works():
    table = _table()
    before = _cash(table)

    async def scene(app: ConsoleApp, pipe: PipeInput) -> None:
        await wait_for(app.app, lambda lines: "owes you" in _bottom(lines))
        pipe.send_text("claim connecticut\r")
        await wait_for(app.app, lambda lines: not table.game.claims)
        assert _cash(table) == [before[0] + 8, before[1] - 8, before[2]]

    _run(table, scene)


def test_the_claim_line_in_french_and_norwegian():
    """On the Paris board in French, F6 claims; in Norwegian, the bare word 'krev' does."""
    table = _table("fr")
    before = _cash(table)
    square = table.game.square(CONNECTICUT)["name"]

    async def in_french(app: ConsoleApp, pipe: PipeInput) -> None:
        told = f"bea vous doit 8 € pour {square} : F6 ou tapez « réclamer » (avant votre lancer)"
        lines = await wait_for(app.app, lambda lines: _bottom(lines) == told)
        assert _bottom(lines) == told, lines[-3:]
        pipe.send_text(F6)
        lines = await wait_for(app.app, lambda lines: lines[-1].startswith("possible :"))
        assert _cash(table) == [before[0] + 8, before[1] - 8, before[2]]
        assert lines[-1].startswith("possible :")

    _run(table, in_french)

    table = _table("no")
    before = _cash(table)

    async def in_norwegian(app: ConsoleApp, pipe: PipeInput) -> None:
        told = "bea skylder deg 8 $ for Connecticut Avenue: trykk F6 eller skriv 'krev' (før du kaster)"
        lines = await wait_for(app.app, lambda lines: _bottom(lines) == told)
        assert _bottom(lines) == told, lines[-3:]
        pipe.send_text("krev\r")
        lines = await wait_for(app.app, lambda lines: lines[-1].startswith("du kan:"))
        assert _cash(table) == [before[0] + 8, before[1] - 8, before[2]]
        assert screen_lines(app.app)[-1].startswith("du kan:")

    _run(table, in_norwegian)


def test_f6_claims_out_of_turn_in_a_lan_game():
    """On the LAN a claim is an out-of-turn move: ann (host, with a bot) and bob (a joiner, French)
    play until rent is owed to bob while a person is to move; bob's console, at 80x24, tells it on
    the hint line, F6 sends the claim, both peers play it and bob's line clears."""

    async def run() -> None:
        host, guest = await _two_tables(3)
        tables = (host, guest)
        try:

            def owed_to_bob() -> bool:
                """A claim of bob's that its payer can pay in cash, so its result is exact."""
                persons = host.waiting_for_you or guest.waiting_for_you
                game = guest.game
                return persons and any(
                    c["owner"] == guest.me and game.player(c["payer"])["cash"] >= c["amount"] for c in game.claims
                )

            await _until(owed_to_bob, tables, 60)
            game = guest.game
            claim = next(
                c for c in game.claims if c["owner"] == guest.me and game.player(c["payer"])["cash"] >= c["amount"]
            )
            payer, owner = claim["payer"], claim["owner"]
            cash = {seat: game.player(seat)["cash"] for seat in (payer, owner)}
            with create_pipe_input() as pipe:
                app = ConsoleApp(guest, delay=0, input=pipe, output=Terminal())
                running = asyncio.create_task(app.run())
                told = t(
                    "fr",
                    "claim.one",
                    payer=game.names[payer],
                    amount=money("fr", game.currency, claim["amount"]),
                    square=game.square(claim["square"])["name"],
                    button="F6",
                    word="réclamer",
                    deadline=_deadline(game, claim),
                )
                await _drawn(app.app, lambda: _bottom(screen_lines(app.app)) == told)
                step = game.step
                pipe.send_text(F6)

                def claimed() -> bool:
                    return all(claim not in table.game.claims for table in tables)

                await _until(claimed, tables, 20, play=False)
                sent = {"type": "claim_rent", "player": owner, "square": claim["square"]}
                assert sent in guest.core.log.inputs[step:], guest.core.log.inputs[step:]
                assert {seat: game.player(seat)["cash"] for seat in (payer, owner)} == {
                    payer: cash[payer] - claim["amount"],
                    owner: cash[owner] + claim["amount"],
                }
                await _drawn(app.app, lambda: screen_lines(app.app)[-1].startswith("possible :"))
                assert host.game.state_hash() == guest.game.state_hash()
                pipe.send_text("quit\ry\r")  # leaving a LAN game is asked first
                assert await asyncio.wait_for(running, 30) == 0
        finally:
            for table in tables:
                await table.close()

    asyncio.run(asyncio.wait_for(run(), 120))


def _deadline(game: Any, claim: dict[str, Any]) -> str:
    """The deadline in French words, from the engine's own counting of turns (independent of the
    console's): the player of turn ``lapses_at_turn``, play passing to the seats still in."""
    seat, turn = game.turn_player, game.turn
    while turn < claim["lapses_at_turn"]:
        seat = next(s % 3 for s in range(seat + 1, seat + 4) if not game.player(s % 3)["bankrupt"])
        turn += 1
    return t("fr", "claim.before_you") if seat == claim["owner"] else t("fr", "claim.before", player=game.names[seat])


def test_a_claim_already_sent_is_passed_over_by_the_line_and_a_bare_claim():
    """On the LAN a claim sent out of turn waits for a step: meanwhile the line shows the next
    rent owed, and a bare 'claim' (F6) sends the next one, not the same again. Both rents here
    are on Connecticut Avenue: a claim names the square, the engine takes the oldest on it."""
    table = _table(both=True)
    game = table.game
    one = {"type": "claim_rent", "player": 0, "square": CONNECTICUT}
    assert claim_hint(game, 0, "en", [one]) == (
        "cy owes you $8 for Connecticut Avenue: press F6 or type 'claim' (before bea rolls)"
    )
    assert claim_hint(game, 0, "en", [one, one]) is None
    assert parse(game, 0, "claim", sent=[one]) == one
    table.act(one)  # the first is played: bea's; cy's is left
    assert [c["payer"] for c in game.claims] == [2]
    assert claim_hint(game, 0, "en", [one]) is None
    assert claim_hint(game, 0, "en", []) is not None


def _run_fast(table: LocalTable, scene: Scene, wait: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``_run``, with bots that move every hundredth of a second and wait ``wait`` seconds
    before a roll that would end a claim owed to the person."""
    import lanopoly.console.app as console_app

    monkeypatch.setattr(console_app, "CLAIM_WAIT", wait)
    _run(table, scene, delay=0.01)


def test_the_bots_wait_before_the_roll_that_would_end_the_persons_claim(monkeypatch: pytest.MonkeyPatch):
    """Bots move every few tenths of a second: cy's roll would end bea's debt to ada about a
    second after it was told. The bots wait (here for good) before that roll, so the person has
    time to read the line and press F6."""
    table = _table(rules=Rules(rent_claim="before_next_roll"))
    before = _cash(table)

    async def scene(app: ConsoleApp, pipe: PipeInput) -> None:
        await wait_for(app.app, lambda lines: "press F6" in _bottom(lines))
        step = table.game.step
        await asyncio.sleep(0.5)  # fifty bot moves' time: without the wait cy would have rolled
        assert table.game.step == step and table.game.claims != [], table.lines[-3:]
        pipe.send_text(F6)
        await wait_for(app.app, lambda lines: not table.game.claims)
        assert _cash(table)[:2] == [before[0] + 8, before[1] - 8]

    _run_fast(table, scene, 60.0, monkeypatch)


def test_a_claim_not_made_in_the_wait_lapses_and_the_game_goes_on(monkeypatch: pytest.MonkeyPatch):
    """The wait is bounded: a person who does not claim loses the rent, as the rules say, and
    the log tells it."""
    table = _table(rules=Rules(rent_claim="before_next_roll"))
    before = _cash(table)

    async def scene(app: ConsoleApp, pipe: PipeInput) -> None:
        await wait_for(app.app, lambda lines: any("did not claim" in line for line in table.lines))
        assert "ada did not claim the rent for Connecticut Avenue in time." in table.lines
        assert not table.game.claims and _cash(table)[:2] == before[:2]  # nothing paid since

    _run_fast(table, scene, 0.2, monkeypatch)
