"""lanopoly.simulate: parallel bot games from Python, numpy results, the CLI summary."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import lanopoly
import lanopoly.rl
from lanopoly import Bot, Rules, SimpleBot

CAPPED = Rules(round_limit=40)


def test_results_are_numpy_arrays_of_the_right_shape():
    r = lanopoly.simulate(20, players=3, rules=CAPPED, seed=5, threads=2, progress=False)
    assert r.games == 20
    assert r.winners.dtype == np.int8 and r.winners.shape == (20,)
    assert r.net_worths.shape == (20, 3)
    assert r.landings.shape == (41,)
    assert not r.truncated.any()
    assert set(r.winners.tolist()) <= {0, 1, 2}
    assert (r.rounds <= 40).all()
    assert r.win_rates().sum() == pytest.approx(1.0)
    # Every game rolls at least once per turn, so there are at least as many landings as turns
    # minus the turns spent deciding who starts.
    assert r.landings.sum() >= r.turns.sum() - 20


def test_the_same_seed_gives_the_same_games_whatever_the_threads():
    one = lanopoly.simulate(16, rules=CAPPED, seed=11, threads=1, progress=False)
    two = lanopoly.simulate(16, rules=CAPPED, seed=11, threads=2, progress=False)
    for field in ("winners", "rounds", "turns", "actions", "bankruptcies", "net_worths", "landings"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field
    other = lanopoly.simulate(16, rules=CAPPED, seed=12, threads=2, progress=False)
    assert not np.array_equal(one.turns, other.turns)


def test_a_game_cut_at_max_inputs_is_reported_truncated():
    r = lanopoly.simulate(3, rules=Rules(), seed=1, max_inputs=50, progress=False)
    assert r.truncated.all()
    assert (r.winners == -1).all()


def test_python_policies_play_the_same_kind_of_game():
    r = lanopoly.simulate(3, players=2, rules=Rules(round_limit=15), policies=[SimpleBot()], seed=3)
    assert r.games == 3 and not r.truncated.any()
    assert r.landings.sum() > 0


class _AsPython:
    """A Python policy that chooses exactly as a built-in bot does (a new one each game, seeded as
    the Rust run seeds that seat), so that only the path the games take differs."""

    def __init__(self, spec: str, seed: int, players: int, seat: int) -> None:
        self.spec, self.seed, self.players, self.seat = spec, seed, players, seat
        self.game: lanopoly.Game | None = None  # held, so that a new game is a new object
        self.games = 0

    def _bot(self, game: lanopoly.Game) -> Bot:
        if game is not self.game:
            seeds = lanopoly._core.simulation_seeds(self.seed, self.games, self.players)[1]
            self.game, self.bot, self.games = game, Bot(self.spec, seed=seeds[self.seat]), self.games + 1
        return self.bot

    def choose(self, game: lanopoly.Game, seat: int, legal: list[dict[str, object]]) -> dict[str, object]:
        return self._bot(game).choose(game, seat, legal)

    def interject(self, game: lanopoly.Game, seat: int, legal: list[dict[str, object]]) -> dict[str, object] | None:
        return self._bot(game).interject(game, seat, legal)


@pytest.mark.parametrize("spec", ["heuristic", "random"])
def test_a_python_policy_among_built_in_bots_gives_the_all_rust_results(spec: str) -> None:
    seed, games = 5, 12
    rust = lanopoly.simulate(games, policies=[spec, "random", "heuristic", "random"], seed=seed, progress=False)
    mixed = lanopoly.simulate(
        games,
        policies=[_AsPython(spec, seed, 4, 0), "random", "heuristic", "random"],
        seed=seed,
        progress=False,
    )
    for field in ("winners", "rounds", "turns", "actions", "bankruptcies", "net_worths", "truncated", "landings"):
        assert np.array_equal(getattr(rust, field), getattr(mixed, field)), field
    assert len(set(rust.rounds.tolist())) > 1 and rust.landings.sum() > 1000  # real, varied games


def test_a_negative_seed_is_taken_modulo_2_64_as_a_game_takes_it():
    below = lanopoly.simulate(3, rules=CAPPED, seed=-1, progress=False)
    assert np.array_equal(below.turns, lanopoly.simulate(3, rules=CAPPED, seed=2**64 - 1, progress=False).turns)
    assert not np.array_equal(below.turns, lanopoly.simulate(3, rules=CAPPED, seed=1, progress=False).turns)


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="2 to 8 players"):
        lanopoly.simulate(1, players=9)
    with pytest.raises(ValueError, match="policies for 4 seats"):
        lanopoly.simulate(1, policies=["random", "random"])
    with pytest.raises(ValueError, match="unknown bot"):
        lanopoly.simulate(1, policies=["grandmaster"], progress=False)


def _simulate_cli(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """``python -m lanopoly simulate ARGS`` in a separate process."""
    command = [sys.executable, "-m", "lanopoly", "simulate", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=check)


def test_cli_prints_a_summary():
    out = _simulate_cli("30", "--rounds", "30", "--threads", "2", "--seed", "4", check=True).stdout
    assert "30 games, 4 players" in out
    assert "most landed on" in out
    assert out.count("random") == 4


def test_cli_refuses_an_unknown_bot():
    proc = _simulate_cli("3", "--bots", "grandmaster")
    assert proc.returncode == 2
    assert "unknown bot" in proc.stderr


def test_a_built_in_bot_is_a_python_policy():
    game = lanopoly.Game(3, rules=Rules(round_limit=20), seed=2)
    bot = lanopoly.Bot("heuristic")
    assert bot.name == "heuristic"
    while not game.is_over:
        if game.is_chance_node:
            game.resolve_chance()
            continue
        seat = game.current_player
        action = bot.choose(game, seat)
        assert action["player"] == seat
        game.apply(action)  # raises if the bot played an illegal move
    with pytest.raises(ValueError, match="unknown bot"):
        lanopoly.Bot("grandmaster")


def test_a_bot_refuses_to_move_for_a_seat_the_game_does_not_wait_for():
    game = lanopoly.Game(2, seed=0)
    while game.is_chance_node:
        game.resolve_chance()
    other = 1 - game.current_player
    with pytest.raises(ValueError, match=f"does not wait for seat {other}"):
        lanopoly.Bot("random").choose(game, other)


def test_the_heuristic_bot_beats_random_bots_from_python():
    r = lanopoly.simulate(
        200, policies=["heuristic", "random", "random", "random"], rules=Rules(round_limit=200), seed=9, progress=False
    )
    assert r.win_rates()[0] >= 0.9


def test_bots_take_parameters_and_the_jail_strategy_shows_in_the_landings():
    """``heuristic(jail=stay)`` rolls for doubles in jail, ``jail=leave`` pays its way out: the
    same seeded games spend more than twice as many move rolls in jail with the first."""
    from lanopoly.simulate import IN_JAIL

    def in_jail(spec: str) -> float:
        r = lanopoly.simulate(200, policies=spec, seed=1, progress=False)
        return float(r.landings[IN_JAIL] / r.landings.sum())

    stay, leave = in_jail("heuristic(jail=stay)"), in_jail("heuristic(jail=leave)")
    assert stay > 2 * leave > 0, (stay, leave)
    # A spec works wherever a bot name does: Bot, VecGame opponents, the search bot's inner player.
    assert lanopoly.Bot("search(rollouts=2,jail=leave)").name == "search(rollouts=2,jail=leave)"
    lanopoly.rl.VecGame(2, players=2, learner=0, opponents=["heuristic(max_houses=4)"])
    names = [name for name, _ in lanopoly.bot_parameters("search")]
    assert names[:2] == ["rollouts", "horizon_rounds"] and "jail" in names and "max_houses" in names
    (random_parameter,) = lanopoly.bot_parameters("random")
    assert random_parameter == ("max_extra", "optional actions (build, sell, mortgage...) per turn at most")


def test_a_bad_bot_spec_is_refused_saying_why():
    with pytest.raises(ValueError, match='heuristic: max_houses is a whole number from 1 to 4, not "9"'):
        lanopoly.Bot("heuristic(max_houses=9)")
    with pytest.raises(ValueError, match='heuristic has no parameter "greed"; parameters: jail, '):
        lanopoly.simulate(1, policies="heuristic(greed=2)", progress=False)
    with pytest.raises(ValueError, match="unknown bot"):
        lanopoly.bot_parameters("grandmaster")
    proc = _simulate_cli("3", "--bots", "heuristic(jail=never),random")
    assert proc.returncode == 2
    assert 'heuristic: jail is leave, stay or auto, not "never"' in proc.stderr


def test_cli_bot_specs_may_hold_commas():
    bots = "heuristic(jail=stay, max_houses=4),random"
    out = _simulate_cli("20", "--players", "2", "--seed", "3", "--bots", bots, check=True).stdout
    assert "   0  heuristic(jail=stay, max_houses=4)" in out and "   1  random" in out


def test_lanopoly_bots_lists_the_bots_and_their_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    from lanopoly.__main__ import main

    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert [line for line in lines if line and not line.startswith(" ")][:3] == ["random", "heuristic", "search"]
    assert "  jail               leave (at once), stay (roll for a double)" in out
    assert "  rollouts           rollouts per candidate" in out
    assert "  and every heuristic parameter, for the heuristic player it uses" in out
    assert out.count("  max_houses ") == 1  # listed under heuristic only


def test_cli_net_worth_leaves_out_the_games_cut_at_max_inputs_and_says_so():
    # Some of these games are cut at 20,000 inputs: their net worths (huge, or nothing) are left out.
    args = ("12", "--seed", "3", "--max-inputs", "20000", "--threads", "2")
    r = lanopoly.simulate(12, seed=3, max_inputs=20000, progress=False)
    cut = int(r.truncated.sum())
    assert 0 < cut < 12
    out = _simulate_cli(*args, check=True).stdout
    assert f"net worth over the {12 - cut} finished games: {cut} cut at --max-inputs left out" in out
    finished = r.net_worths[~r.truncated]
    for seat in range(4):
        mean, median = finished[:, seat].mean(), np.median(finished[:, seat])
        row = f"   {seat}  random     {r.win_rates()[seat]:6.1%}   {f'{mean:>10,.0f}':>15} {median:>10,.0f}"
        assert row in out.splitlines(), (row, out)


def test_cli_shows_progress_on_a_terminal_from_the_start_and_nothing_on_a_pipe():
    import os
    import pty

    args = [sys.executable, "-m", "lanopoly", "simulate", "3", "--rounds", "20"]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True)
    assert piped.stderr == ""
    main, terminal = pty.openpty()
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=terminal, timeout=60, check=True)
        os.close(terminal)
        shown = b""
        while chunk := _read(main):
            shown += chunk
    finally:
        os.close(main)
    text = shown.decode()
    assert "0/3 games, 0:00" in text  # drawn before the first games end, with the time run so far
    assert "3/3 games" in text
    assert b"3 games, 4 players" in proc.stdout


def _read(fd: int) -> bytes:
    """What is left to read from a pty whose other side is closed (b"" at its end)."""
    import os

    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: the other side is closed and everything was read
        return b""


def test_the_progress_bar_ticks_while_a_batch_of_games_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import threading

    from lanopoly.simulate import _Progress

    class Screen(io.StringIO):
        """A terminal that tells when the bar was drawn three times."""

        drawn = threading.Event()

        def write(self, text: str) -> int:
            if self.getvalue().count("\r") >= 2:
                self.drawn.set()
            return super().write(text)

    monkeypatch.setattr(_Progress, "TICK", 0.01)
    screen = Screen()
    bar = _Progress(5, screen)

    def batch() -> dict[str, int]:  # a batch that ends only once the bar was redrawn meanwhile
        assert screen.drawn.wait(10)
        return {"games": 5}

    assert bar.wait(batch) == {"games": 5}
    assert screen.getvalue().count("0/5 games") >= 3
