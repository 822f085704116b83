"""Game logs, replay and determinism, across processes; and the demo command line."""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import lanopoly
from conftest import PYTHON, REPO
from lanopoly import Game, GameLog, ReplayMismatch, Rules, SimpleBot
from lanopoly.__main__ import replay as replay_command
from lanopoly.__main__ import view_replay
from lanopoly.log import LogError


def record(seed: int, players: int = 4, rules: Rules | None = None, board: str = "classic") -> tuple[GameLog, Game]:
    """A bot game to the end, logged the way `lanopoly` (play()) logs it."""
    game = Game(players, board=board, rules=rules, seed=seed)
    log = GameLog.start(game)
    bots = [SimpleBot() for _ in range(players)]
    while not game.is_over:
        if game.is_chance_node:
            action = game.sample_chance()
        else:
            seat = game.current_player
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
        game.apply(action)
        log.record(action, game)
    return log, game


@pytest.fixture(scope="module")
def logged() -> tuple[GameLog, Game]:
    return record(3, rules=Rules(round_limit=15))


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False)


# --- GameLog --------------------------------------------------------------------------------------


PROTOCOL3_GAME = REPO / "tests" / "net" / "data" / "protocol3-game.json"


def test_a_log_saved_before_the_newer_rule_options_replays_with_the_rules_it_recorded():
    """A LAN game saved by protocol 3 (long before issue 16): its rules lack the options added
    since (reshuffle_decks, max_players, ...) and record automatic rent. It replays to every
    recorded hash, its decks reshuffled each pass as then, its states in the first format."""
    log = GameLog.from_json(PROTOCOL3_GAME.read_text(encoding="utf-8"))
    assert "reshuffle_decks" not in log.rules and log.rules["rent_claim"] == "automatic"
    game = log.replay()
    assert game.rules.reshuffle_decks is True and game.rules.max_players == 8
    assert game.to_bytes().startswith(b"lanopoly/s1\x00")
    assert len(log.inputs) == 25


def test_log_records_every_input(logged):
    log, game = logged
    assert log.names == game.names
    assert log.board == "classic"
    assert log.rules == Rules(round_limit=15).to_dict()
    assert len(log.inputs) == len(log.hashes) == game.step
    assert all(len(h) == 32 for h in log.hashes)
    assert log.hashes[-1] == game.state_hash()
    assert game.is_over


def test_log_starts_with_a_new_game():
    game = Game(2, seed=0)
    game.resolve_chance()
    with pytest.raises(ValueError, match="step 0"):
        GameLog.start(game)


def test_replay_reproduces_every_hash(logged):
    log, game = logged
    replayed = log.replay()
    assert replayed.state_hash() == game.state_hash()
    assert replayed.is_over and replayed.winner == game.winner
    # Step by step, too.
    fresh = log.new_game()
    for action, expected in zip(log.inputs, log.hashes, strict=True):
        fresh.apply(action)
        assert fresh.state_hash() == expected


def test_json_form(logged):
    log, _ = logged
    data = json.loads(log.to_json())
    assert data["format"] == 1
    assert data["names"] == log.names
    assert data["board"] == "classic"
    assert len(data["steps"]) == len(log.inputs)
    assert data["steps"][0]["hash"] == log.hashes[0].hex()
    back = GameLog.from_json(log.to_json())
    assert back.hashes == log.hashes
    assert json.dumps(back.inputs) == json.dumps(log.inputs)
    with pytest.raises(ValueError, match="unsupported log format"):
        GameLog.from_json(json.dumps({**data, "format": 2}))


def test_json_round_trip_replays(logged):
    log, game = logged
    back = GameLog.from_json(log.to_json())
    assert back.replay().state_hash() == game.state_hash()


def test_save_and_load_replay(logged, tmp_path):
    log, game = logged
    path = tmp_path / "game.json"
    log.save(path)
    assert not path.with_suffix(".json.tmp").exists()
    loaded = GameLog.load(path)
    assert loaded.hashes == log.hashes
    assert loaded.replay().state_hash() == game.state_hash()


def test_tampered_hash_is_caught_at_its_step(logged):
    log, _ = logged
    for k in (0, 7, len(log.hashes) // 2, len(log.hashes) - 1):
        bad = GameLog(log.names, log.board, log.rules, list(log.inputs), list(log.hashes))
        bad.hashes[k] = bytes(32)
        with pytest.raises(ReplayMismatch, match=f"^step {k + 1}: state hash differs") as info:
            bad.replay()
        assert info.value.step == k + 1


def test_tampered_dice_are_caught_at_their_step(logged):
    log, _ = logged
    k = next(i for i, a in enumerate(log.inputs) if i > 20 and a["type"] == "dice")
    a, b = log.inputs[k]["dice"]
    other = (1, 2) if (min(a, b), max(a, b)) != (1, 2) else (3, 4)
    bad = GameLog(log.names, log.board, log.rules, list(log.inputs), list(log.hashes))
    bad.inputs[k] = {"type": "dice", "dice": other}
    with pytest.raises(ReplayMismatch) as info:
        bad.replay()
    assert info.value.step == k + 1


def test_refused_input_is_caught_at_its_step(logged):
    log, _ = logged
    bad = GameLog(log.names, log.board, log.rules, list(log.inputs), list(log.hashes))
    bad.inputs[10] = {"type": "roll", "player": 9}
    with pytest.raises(ReplayMismatch, match=r"^step 11: input refused: there is no seat 9$"):
        bad.replay()
    assert issubclass(ReplayMismatch, Exception)


def test_an_input_of_the_wrong_type_is_caught_at_its_step(logged):
    """A tampered log whose input has a field of the wrong type (a TypeError from the engine, not
    an IllegalAction) is a mismatch at its step, as any other refused input."""
    log, _ = logged
    bad = GameLog(log.names, log.board, log.rules, list(log.inputs), list(log.hashes))
    bad.inputs[10] = {"type": "roll", "player": "0"}
    with pytest.raises(ReplayMismatch, match=r"^step 11: input refused: field \"player\" has the wrong type$"):
        bad.replay()


def _damaged(text: str, path: tuple[object, ...], value: object) -> str:
    """``text`` (a log's JSON) with the member at ``path`` replaced by ``value``."""
    data = json.loads(text)
    inner = data
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("names",), ["ann", 7], r'^"names" must be a list of strings$'),
        (("names",), [], r"^its header does not make a game: "),
        (("names",), ["ann", "\x1b]0;PWNED\x07bob"], r'^"names" must be printable'),  # a terminal title change
        (("names",), ["ann", "b\u202eob"], r'^"names" must be printable'),  # a right-to-left override
        (("names",), ["ann\nfake line", "bob"], r'^"names" must be printable'),  # a forged line of output
        (("board",), None, r"^'board' must be a str, not NoneType$"),
        (("rules", "opening_bid"), [1, 2], r'^its header does not make a game: rule option "opening_bid" takes a int'),
        (("rules", "max_players"), 10**6, r"^its header does not make a game: rule option 'max_players' cannot be"),
        (("rules",), "official", r"^'rules' must be a dict, not str$"),
        (("steps",), {}, r"^'steps' must be a list, not dict$"),
        (("steps", 4), 4, r'^step 5 is not \{"input"'),
        (("steps", 4, "hash"), 1.5, r'^step 5 is not \{"input"'),
        (("steps", 4, "hash"), "abc", r'^step 5 is not \{"input"'),
        (("steps", 4, "input"), None, r'^step 5 is not \{"input"'),
        (("table",), [1], r'^"table" must be an object$'),
    ],
)
def test_a_damaged_log_is_refused_with_what_is_wrong(logged, path, value, message):
    """A log is a file anyone may edit: every member is checked when it is read, and a damaged
    one raises LogError (a ValueError) saying what is wrong, never an error from deep inside."""
    text = _damaged(logged[0].to_json(), path, value)
    with pytest.raises(lanopoly.LogError, match=message):
        GameLog.from_json(text)


def test_any_damage_to_a_log_is_a_log_error_or_a_replay_mismatch(logged):
    """Seeded damage to a real log (one to three members replaced by values of other types,
    huge numbers, escapes): reading and replaying it ends in LogError, ReplayMismatch or a
    replay that matches, never another exception (a crash of ``replay``, ``verify`` or the
    start screen, which reads every saved game)."""
    weird = [None, True, -1, 2**70, 1.5, "x", "\x1b]0;t\x07", [], {}, [1, 2], {"type": "roll"}]
    text = logged[0].to_json()
    outcomes = {"LogError": 0, "ReplayMismatch": 0, "replayed": 0}
    for seed in range(300):
        rng = random.Random(seed)
        data = json.loads(text)
        for _ in range(rng.choice([1, 2, 3])):
            path = rng.choice(list(_members(data)))
            _set(data, path, rng.choice(weird))
        try:
            GameLog.from_json(json.dumps(data)).replay()
            outcomes["replayed"] += 1
        except lanopoly.LogError:
            outcomes["LogError"] += 1
        except ReplayMismatch:
            outcomes["ReplayMismatch"] += 1
    assert outcomes["LogError"] > 50 and outcomes["ReplayMismatch"] > 50, outcomes


def _members(data: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """The path of every member inside ``data`` (a JSON value)."""
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield (*path, key)
        yield from _members(value, (*path, key))


def _set(data: Any, path: tuple[object, ...], value: object) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def test_cli_verify_and_replay_of_a_damaged_log_say_why_in_one_line(tmp_path, logged):
    damaged = tmp_path / "damaged.json"
    damaged.write_text(_damaged(logged[0].to_json(), ("rules", "houses"), None))
    for command, code in (("replay", 2), ("verify", 1)):
        result = run("-m", "lanopoly", command, *(["--verify-only"] if command == "replay" else []), str(damaged))
        assert result.returncode == code, result
        assert "Traceback" not in result.stderr + result.stdout
        assert 'rule option "houses" takes a int, not None' in result.stderr + result.stdout


@pytest.mark.parametrize("verify_only", [True, False], ids=["--verify-only", "viewer"])
def test_replay_of_json_nested_too_deeply_says_so_in_one_line(tmp_path, capsys, verify_only):
    """JSON nested past the decoder's recursion: a clear error and replay's code for an unreadable
    log (2), not a RecursionError traceback; the viewer's path reads the file the same way."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(LogError, match="nested too deeply"):
        GameLog.load(deep)
    code = (
        replay_command(argparse.Namespace(file=str(deep)))
        if verify_only
        else view_replay(argparse.Namespace(file=str(deep)))
    )
    out = capsys.readouterr()
    assert code == 2 and "nested too deeply" in out.err and "Traceback" not in out.err + out.out, out


# --- determinism across processes -----------------------------------------------------------------

FINAL_HASH_SCRIPT = """
import sys
from lanopoly import GameLog
print(GameLog.load(sys.argv[1]).replay().state_hash().hex())
"""

PLAY_SCRIPT = """
from lanopoly import Game, Rules, SimpleBot
game = Game(4, rules=Rules(round_limit=20), seed=77)
bots = [SimpleBot() for _ in range(4)]
while not game.is_over:
    if game.is_chance_node:
        game.resolve_chance()
    else:
        seat = game.current_player
        game.apply(bots[seat].choose(game, seat, game.legal_actions(seat)))
print(game.step, game.state_hash().hex())
"""


def test_same_seed_same_game_in_separate_processes():
    outputs = {run("-c", PLAY_SCRIPT).stdout for _ in range(3)}
    assert len(outputs) == 1
    (out,) = outputs
    assert re.fullmatch(r"\d+ [0-9a-f]{64}\n", out)


def test_saved_log_replays_to_the_same_hash_in_three_processes(logged, tmp_path):
    log, game = logged
    path = tmp_path / "game.json"
    log.save(path)
    expected = game.state_hash().hex()
    for _ in range(3):
        result = run("-m", "lanopoly", "replay", str(path))
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().endswith(f"final hash {expected}")
    script = tmp_path / "final_hash.py"
    script.write_text(FINAL_HASH_SCRIPT)
    result = run(str(script), str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


# --- the demo command -----------------------------------------------------------------------------

WINS = re.compile(r"^(.+) wins after (\d+) rounds \((\d+) steps\)\.$", re.M)


def test_cli_quiet_game():
    result = run("-m", "lanopoly", "--seed", "3", "--quiet")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "lanopoly: dog, top hat, car, battleship on the classic board (official rules)."
    match = WINS.search(result.stdout)
    assert match and match.group(1) in ("dog", "top hat", "car", "battleship")
    assert len([ln for ln in lines if ln.startswith("  ")]) == 4
    # Deterministic for a seed.
    assert run("-m", "lanopoly", "--seed", "3", "--quiet").stdout == result.stdout


def test_cli_eight_players_are_too_many_for_the_paris_app():
    result = run("-m", "lanopoly", "--players", "8", "--rules", "paris-quick", "--seed", "1")
    assert result.returncode == 2
    assert "argument --players: the paris-quick rules seat 2 to 6 players, not 8" in result.stderr


def test_cli_six_players_paris_quick():
    result = run("-m", "lanopoly", "--players", "6", "--board", "paris", "--rules", "paris-quick", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "on the paris board (paris-quick rules)." in result.stdout.splitlines()[0]
    match = WINS.search(result.stdout)
    assert match is not None
    assert int(match.group(2)) <= 25
    assert "€" in result.stdout
    assert "type:" not in result.stdout  # describe() had a sentence for every event


def test_cli_save_then_replay(tmp_path):
    path = tmp_path / "g.json"
    result = run("-m", "lanopoly", "--seed", "5", "--quiet", "--rounds", "10", "--save", str(path))
    assert result.returncode == 0, result.stderr
    assert path.exists()
    assert f"Log saved to {path}" in result.stdout
    replay = run("-m", "lanopoly", "replay", str(path))
    assert replay.returncode == 0, replay.stderr
    assert re.fullmatch(r"\d+ steps replayed, every state hash matches; final hash [0-9a-f]{64}\n", replay.stdout)


def test_cli_replay_of_a_tampered_log_fails(tmp_path, logged):
    log, _ = logged
    bad = GameLog(log.names, log.board, log.rules, list(log.inputs), list(log.hashes))
    bad.hashes[0] = bytes(32)
    path = tmp_path / "bad.json"
    bad.save(path)
    result = run("-m", "lanopoly", "replay", str(path))
    assert result.returncode == 1
    assert result.stderr.startswith("replay failed at step 1:")


def test_cli_rejects_nine_players():
    result = run("-m", "lanopoly", "--players", "9")
    assert result.returncode == 2
    assert "argument --players: 9 is out of range (2 to 8)" in result.stderr
    assert result.stdout == ""
    result = run("-m", "lanopoly", "--players", "1")
    assert result.returncode == 2


def test_cli_rejects_unknown_rules_and_boards():
    assert run("-m", "lanopoly", "--rules", "monopoly").returncode == 2
    assert run("-m", "lanopoly", "--board", "moon").returncode == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rounds", "-3"], "argument --rounds: -3 is out of range (0 to 65535)"),
        (["watch", "--rounds", "70000"], "argument --rounds: 70000 is out of range (0 to 65535)"),
        (["simulate", "0"], "argument games: 0 is out of range (1 to 4294967295)"),
        (["simulate", "ten"], "argument games: not an integer: 'ten'"),
        (["simulate", "10", "--seed", "-1"], "argument --seed: -1 is out of range"),
        (["simulate", "10", "--threads", "0"], "argument --threads: 0 is out of range (1 to 1024)"),
        (["simulate", "10", "--players", "9"], "argument --players: 9 is out of range (2 to 8)"),
        (["simulate", "10", "--max-inputs", "0"], "argument --max-inputs: 0 is out of range"),
        (["host", "--port", "99999"], "argument --port: 99999 is out of range (0 to 65535)"),
        (["host", "--step-timeout", "-1"], "argument --step-timeout: -1 is not a duration (0 or more seconds)"),
        (["host", "--replace-after", "nan"], "argument --replace-after: nan is not a duration"),
        (["list", "--seconds", "soon"], "argument --seconds: not a number of seconds: 'soon'"),
    ],
)
def test_cli_numbers_out_of_range_are_usage_errors_naming_the_option(argv, message, capsys):
    from lanopoly.__main__ import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err


def test_cli_replay_of_a_missing_or_foreign_file_says_so(tmp_path, capsys):
    from lanopoly.__main__ import main

    assert main(["replay", str(tmp_path / "nothing.json")]) == 2
    assert "lanopoly replay: cannot read" in capsys.readouterr().err
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"x": 1}')
    assert main(["replay", str(foreign)]) == 2
    assert "unsupported log format" in capsys.readouterr().err


def test_main_in_process(capsys, tmp_path):
    from lanopoly.__main__ import main

    assert main(["--seed", "2", "--quiet", "--rounds", "3", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert WINS.search(out)
    with pytest.raises(SystemExit) as exit_:  # a usage error, as argparse reports it
        main(["--players", "9"])
    assert exit_.value.code == 2
    assert Path(lanopoly.__file__).parent.name == "lanopoly"
