"""Options of the main command typed before a subcommand reach it: ``lanopoly --lang it host``
opened an English lobby for a player named "dog", because argparse let ``host``'s own defaults
overwrite what had been typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanopoly.__main__ import parse


def test_options_before_a_lan_command_are_not_lost():
    args = parse(["--name", "Ana", "--lang", "it", "--difficulty", "hard", "host"])
    assert (args.name, args.lang, args.difficulty) == ("Ana", "it", "hard")
    joined = parse(["--lang", "no", "join", "127.0.0.1:5000", "--pin", "123456"])
    assert (joined.lang, joined.target) == ("no", "127.0.0.1:5000")


def test_a_value_keeps_the_subcommands_type():
    args = parse(["--save", "game.json", "--players", "3", "--rules", "speed", "host"])
    assert (args.save, args.players, args.rules) == (Path("game.json"), 3, "speed")


def test_an_option_typed_after_the_subcommand_still_wins():
    assert parse(["--lang", "it", "host", "--lang", "fr"]).lang == "fr"
    assert parse(["--name", "Ana", "host", "--name", "Bo"]).name == "Bo"


def test_a_value_that_is_the_subcommands_name_is_not_taken_for_it():
    assert parse(["--name", "host", "host"]).name == "host"
    assert parse(["--name", "join", "join", "x", "--pin", "1"]).name == "join"


@pytest.mark.parametrize("command", [["replay", "f.json"], ["continue"], ["resume", "f.json"]])
def test_every_subcommand_with_its_own_language_option(command):
    assert parse(["--lang", "fr", *command]).lang == "fr"


def test_without_options_the_subcommands_defaults_stay():
    args = parse(["host"])
    assert (args.name, args.lang, args.players, args.rules, args.difficulty) == (None, None, 4, "official", "normal")
