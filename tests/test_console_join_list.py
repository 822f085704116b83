"""The join screen's list of lobbies: each name whole when 80 columns hold it (the Italian
"il tavolo di Ana ee01" showed as "il tavolo di Ana e": its disambiguating suffix cut); its
fields in the order a joiner fills them."""

from __future__ import annotations

import asyncio
import dataclasses
import textwrap

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanopoly.console import Setup
from lanopoly.console.bid_clock import timer_text
from lanopoly.console.lobby import JoinScreen, column_widths
from lanopoly.i18n import plural, t
from lanopoly.net.discovery import Lobby
from lanopoly.net.hosting import Joining
from screen import Terminal, wait_for


def _lobby(table: str, address: str = "127.0.0.1", port: int = 40893) -> Lobby:
    return Lobby(
        instance=f"{table}._lanopoly._tcp.local.",
        table=table,
        addresses=(address,),
        port=port,
        version=8,
        game_id="d4d4ec31d32f99c7b6b3779bd7a36c7d",
        seats_taken=1,
        seats_total=4,
        rules="official",
        board="classic",
        state="open",
        fingerprint="b517-2a61-d2a1-19dd",
    )


def test_a_long_lobby_name_is_shown_whole_within_80_columns():
    screen = JoinScreen(Setup(lang="no"), interfaces=["127.0.0.1"], output=DummyOutput())
    lobbies = [_lobby("il tavolo di Ana ee01"), _lobby("ann's table 1a2b", "127.0.0.2", 5000)]
    widths = column_widths(lobbies)
    lines = [screen.lobby_lines(lobby, widths)[0] for lobby in lobbies]
    assert lines[0].startswith("il tavolo di Ana ee01 127.0.0.1:40893"), lines
    assert lines[1].startswith("ann's table 1a2b      127.0.0.2:5000 "), lines
    assert all(len("> " + line) <= 80 for line in lines), lines


def test_a_name_longer_than_80_columns_allow_is_cut_to_fit():
    screen = JoinScreen(Setup(lang="en"), interfaces=["127.0.0.1"], output=DummyOutput())
    lobby = _lobby("x" * 60, "192.168.100.200", 65535)
    line = screen.lobby_lines(lobby, column_widths([lobby]))[0]
    assert line.startswith("x" * 19 + " 192.168.100.200:65535 ") and len("> " + line) <= 80, line


def test_the_pin_comes_first_on_the_join_screen_where_typing_goes_and_tab_goes_on_to_the_address():
    """Typing went to the PIN, shown under the address, while Tab went to the address first: the
    field a joiner fills first (the PIN, the game picked in the list) is now the first one, typing
    goes there, and Tab goes down to the address, as the eye goes. The screen's own application
    (without its lobby browser: no network), at 80x24."""

    async def run() -> tuple[list[str], list[str]]:
        with create_pipe_input() as pipe:
            screen = JoinScreen(Setup(lang="en"), interfaces=["127.0.0.1"], input=pipe, output=Terminal())
            running = asyncio.create_task(screen.app.run_async())
            pipe.send_text("123456")
            typed = await wait_for(screen.app, lambda lines: any("123456" in line for line in lines))
            pipe.send_text("\t127.0.0.1:4000")
            tabbed = await wait_for(screen.app, lambda lines: any("127.0.0.1:4000" in line for line in lines))
            screen.app.exit(result=None)
            await asyncio.wait_for(running, 10)
            return typed, tabbed

    typed, tabbed = asyncio.run(run())
    pin = next(i for i, line in enumerate(typed) if "Game PIN" in line)
    address = next(i for i, line in enumerate(typed) if "or address (host:port)" in line)
    assert pin < address, typed
    assert "123456" in typed[pin], typed
    assert "127.0.0.1:4000" in tabbed[address] and "123456" in tabbed[pin], tabbed


def test_a_joiner_in_a_lobby_sees_the_host_key_the_roster_and_the_bid_timer_whole_at_80_columns():
    """In French at 80x24 the host key's line ("... affiche la m" / "ême)") was cut inside a word,
    and the bid timer, a fifth and sixth row in a window of four, was not shown at all. Each part
    is now wrapped at words and the window grows to hold them. The screen's own application, with
    a joiner as the host's ROSTER left it (no network)."""
    parts = {
        "message": t("fr", "join.waiting", address="192.168.100.200:54321"),
        "key": t("fr", "join.fingerprint", fingerprint="5b93-59da-8cbc-c854"),
        "roster": t("fr", "join.roster", names="Giulia, Paul, Ingrid, Kari, Bjørn, Ola, Per, Anne", taken=8, seats=8),
        "timer": t("fr", "join.bid_timer", timer=timer_text("fr", 30)),
    }
    assert sum(len(textwrap.wrap(p, 79)) for p in parts.values()) > 4, parts  # the case that broke

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = JoinScreen(Setup(lang="fr"), interfaces=["127.0.0.1"], input=pipe, output=Terminal())
            screen.message = ("class:hint", parts["message"])
            screen.joiner = Joining("192.168.100.200", 54321, "Paul", "123456", fingerprint="5b93-59da-8cbc-c854")
            screen.joiner.roster = ["Giulia", "Paul", "Ingrid", "Kari", "Bjørn", "Ola", "Per", "Anne"]
            screen.joiner.bid_timer = 30
            screen.seats = 8
            running = asyncio.create_task(screen.app.run_async())
            lines = await wait_for(screen.app, lambda lines: any("Échap" in line for line in lines))
            screen.app.exit(result=None)
            await asyncio.wait_for(running, 10)
            return lines

    lines = asyncio.run(run())
    shown = " ".join(line.strip() for line in lines)
    for name, text in parts.items():
        assert " ".join(text.split()) in shown, (name, lines)
    assert all(len(line) <= 80 for line in lines), lines


@pytest.mark.parametrize(
    ("lang", "free"), [("en", "3 free"), ("fr", "3 libres"), ("it", "3 liberi"), ("no", "3 ledige")]
)
def test_the_join_list_counts_the_seats_still_free(lang: str, free: str) -> None:
    """Found joining in Norwegian at 80x24: a lobby with 1 of 3 seats taken read "1/3 plasser
    åpent" (1/3 seats open), and "2/3 plasser åpent" once a second person was in. The list says
    how many seats are still free, the number a joiner looks for (one free: the singular)."""
    screen = JoinScreen(Setup(lang=lang), interfaces=["127.0.0.1"], output=DummyOutput())
    lobby = _lobby("il tavolo di Anna b241")
    line = screen.lobby_lines(lobby, column_widths([lobby], lang))[0]
    assert f" {free} " in line and "1/4" not in line and len("> " + line) <= 80, line
    one = plural(lang, "join.free", 1)
    taken = dataclasses.replace(lobby, seats_taken=3)
    assert f" {one} " in screen.lobby_lines(taken, column_widths([taken], lang))[0]
