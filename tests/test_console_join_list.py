"""The join screen's list of lobbies: each name whole when 80 columns hold it (the Italian
"il tavolo di Ana ee01" showed as "il tavolo di Ana e": its disambiguating suffix cut)."""

from __future__ import annotations

from prompt_toolkit.output import DummyOutput

from lanopoly.console import Setup
from lanopoly.console.lobby import JoinScreen, column_widths
from lanopoly.net.discovery import Lobby


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
