"""Many games of bots at once, in Rust on several threads, with numpy results.

    >>> r = lanopoly.simulate(1000, players=4, policies=["heuristic", "random", "random", "random"], seed=1)
    >>> r.win_rates()            # by seat
    >>> r.landings / r.landings.sum()   # where tokens stop, squares 0..39 and "in jail" (40)

The result is the same for the same seed whatever the number of threads. Built-in bots run
entirely in Rust with the GIL released. A Python policy (an object with ``choose``) may sit at
any seats, built-in bots at the others: the games then run in Python, one step at a time, with
the seeds the Rust run would give them (``_core.simulation_seeds``), so a Python policy that
chooses as a built-in bot does gives exactly the results of the all-Rust run. After every input
each seat not to act is asked once for a move out of turn, as in Rust, if its policy has
``interject`` (``lanopoly.bots.Interjecting``): the built-in bots claim their rent there (under
the printed books' rules rent must be claimed in time), so a policy without it lets the rent owed
to it lapse unless it is to act, and answer the trade offers made to them.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import IO

import numpy as np
import numpy.typing as npt

from lanopoly import _core
from lanopoly._core import Bot, Game, Rules
from lanopoly.bots import Policy
from lanopoly.cluster import simulate_on_ray
from lanopoly.i18n import clock
from lanopoly.types import RawSimulation

IN_JAIL = 40
"""Index of the "in jail" entry of ``landings`` (a player just visiting counts on square 10)."""


@dataclass
class SimulationResult:
    """Per-game arrays (one entry per game, in game order) and the landing counts."""

    winners: npt.NDArray[np.int8]
    """Winning seat, or -1 for a game cut at ``max_inputs``."""
    rounds: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    actions: npt.NDArray[np.int64]
    bankruptcies: npt.NDArray[np.int64]
    net_worths: npt.NDArray[np.int64]
    """Final net worth of each seat: shape (games, players)."""
    truncated: npt.NDArray[np.bool_]
    landings: npt.NDArray[np.int64]
    """41 counts: squares 0..39 after every move roll is resolved, then "in jail"."""

    @property
    def games(self) -> int:
        return len(self.winners)

    def win_rates(self) -> npt.NDArray[np.float64]:
        """Share of games won by each seat."""
        players = self.net_worths.shape[1]
        counts = np.bincount(self.winners[self.winners >= 0], minlength=players)
        return counts / max(self.games, 1)


def _empty() -> RawSimulation:
    return {
        "winners": [],
        "rounds": [],
        "turns": [],
        "actions": [],
        "bankruptcies": [],
        "truncated": [],
        "net_worths": [],
        "landings": [0] * 41,
    }


def _merge(total: RawSimulation, part: RawSimulation) -> None:
    """Append ``part``'s games to ``total``'s and add up the landings."""
    for key in ("winners", "rounds", "turns", "actions", "bankruptcies"):
        total[key].extend(part[key])
    total["truncated"].extend(part["truncated"])
    total["net_worths"].extend(part["net_worths"])
    total["landings"] = [a + b for a, b in zip(total["landings"], part["landings"], strict=True)]


def _result(data: RawSimulation, players: int) -> SimulationResult:
    return SimulationResult(
        winners=np.asarray(data["winners"], dtype=np.int8),
        rounds=np.asarray(data["rounds"], dtype=np.int64),
        turns=np.asarray(data["turns"], dtype=np.int64),
        actions=np.asarray(data["actions"], dtype=np.int64),
        bankruptcies=np.asarray(data["bankruptcies"], dtype=np.int64),
        net_worths=np.asarray(data["net_worths"], dtype=np.int64).reshape(-1, players),
        truncated=np.asarray(data["truncated"], dtype=np.bool_),
        landings=np.asarray(data["landings"], dtype=np.int64),
    )


class _Progress:
    """A one-line progress bar on a terminal, with the time run so far; silent elsewhere. It is
    drawn at the start and redrawn each second while a batch of games runs, so a slow run (long
    games, the search bot) shows it is alive before its first batch ends."""

    TICK = 1.0
    """Seconds between two redraws while a batch runs."""

    def __init__(self, total: int, stream: IO[str] | None) -> None:
        self.total, self.stream, self.done = total, stream, 0
        self.start = time.monotonic()
        self.show()

    def show(self) -> None:
        if self.stream is not None:
            width = 30
            filled = width * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (width - filled)
            elapsed = clock(time.monotonic() - self.start)
            self.stream.write(f"\r  [{bar}] {self.done}/{self.total} games, {elapsed}")
            self.stream.flush()

    def advance(self, n: int) -> None:
        self.done += n
        self.show()

    def wait(self, work: Callable[[], RawSimulation]) -> RawSimulation:
        """``work()``'s result; on a terminal it runs in a daemon thread (the Rust run releases the
        GIL) while the bar is redrawn every :attr:`TICK` seconds. Ctrl-C stops the wait at once
        (signals reach the main thread only: the batch under way ends in the background)."""
        if self.stream is None:
            return work()
        done = threading.Event()
        outcome: list[RawSimulation] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                outcome.append(work())
            except BaseException as e:  # handed to the waiting thread, which raises it
                failure.append(e)
            finally:
                done.set()

        threading.Thread(target=run, name="lanopoly-simulate", daemon=True).start()
        while not done.wait(self.TICK):
            self.show()
        if failure:
            raise failure[0]
        return outcome[0]

    def close(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


def simulate(
    games: int,
    players: int = 4,
    board: str = "classic",
    rules: Rules | None = None,
    policies: list[str | Policy] | str | None = None,
    seed: int = 0,
    threads: int | None = None,
    max_inputs: int = 1_000_000,
    progress: bool | None = None,
    cluster: str | None = None,
) -> SimulationResult:
    """Play ``games`` seeded games and summarise them.

    ``policies``: one bot for every seat, or one per seat: built-in bots by name
    (``lanopoly.bot_names()``) or by spec with parameters (``"heuristic(jail=stay)"``, see
    ``lanopoly.bot_parameters``), or Python objects with ``choose(game, seat, legal)``, alone or
    among built-in bots (those games are stepped from Python, seeded as in Rust: a Python object
    that chooses as a built-in bot does gives the same results). ``seed`` is any integer (taken
    modulo 2**64, as ``Game`` does). ``threads`` defaults to all cores; ``progress`` defaults to
    on when stderr is a terminal. ``cluster="ray"`` plays the games as Ray tasks split by game
    index (built-in bots only; see ``lanopoly.cluster``), with the local run's results.
    """
    seed %= 2**64
    if not 2 <= players <= 8:
        raise ValueError(f"2 to 8 players, not {players}")
    if games < 0:
        raise ValueError("games must be >= 0")
    seats: list[str | Policy] = (
        [policies] * players if isinstance(policies, str) else list(policies or ["random"] * players)
    )
    if len(seats) == 1:
        seats = seats * players
    if len(seats) != players:
        raise ValueError(f"{len(seats)} policies for {players} seats")
    show = sys.stderr.isatty() if progress is None else progress
    bar = _Progress(games, sys.stderr if show else None)
    total = _empty()
    try:
        if cluster is not None:
            if cluster != "ray":
                raise ValueError(f"cluster {cluster!r} is not known; clusters: 'ray'")
            if not all(isinstance(p, str) for p in seats):
                raise ValueError("only built-in bots (names or specs) play on a cluster")
            names = [str(p) for p in seats]

            def part_done(part: RawSimulation) -> None:
                _merge(total, part)
                bar.advance(len(part["winners"]))

            simulate_on_ray(games, players, board, rules, names, seed, max_inputs, part_done)
        elif all(isinstance(p, str) for p in seats):
            names = [str(p) for p in seats]
            chunk = max(1, min(2000, games // 50 or 1))
            for first in range(0, games, chunk):
                n = min(chunk, games - first)
                part = bar.wait(
                    partial(_core.simulate, n, players, board, rules, names, seed, threads, max_inputs, first)
                )
                _merge(total, part)
                bar.advance(n)
        else:
            for index in range(games):
                _merge(total, _play_in_python(index, players, board, rules, seats, seed, max_inputs))
                bar.advance(1)
    finally:
        bar.close()
    return _result(total, players)


def _play_in_python(
    index: int, players: int, board: str, rules: Rules | None, seats: list[str | Policy], seed: int, max_inputs: int
) -> RawSimulation:
    """Game ``index`` stepped from Python: the Python policies as given, built-in bots (by name or
    spec) new for this game, everything seeded as the Rust run seeds it."""
    chance, seat_seeds = _core.simulation_seeds(seed, index, players)
    policies: list[Policy] = [
        Bot(p, seed=seat_seed) if isinstance(p, str) else p for p, seat_seed in zip(seats, seat_seeds, strict=True)
    ]
    game = Game(players, board=board, rules=rules, seed=chance)
    data = _empty()
    actions = 0
    applied = 0
    rolled = False
    while applied < max_inputs and not game.is_over:
        if game.is_chance_node:
            pending_move_roll = _is_move_roll(game)
            game.resolve_chance()
            rolled |= pending_move_roll
        else:
            seat = game.current_player
            assert seat is not None
            game.apply(policies[seat].choose(game, seat, game.legal_actions(seat)))
            actions += 1
        applied += 1
        if rolled and not _card_pending(game):
            mover = game.player(game.turn_player)
            data["landings"][IN_JAIL if mover["in_jail"] else mover["position"]] += 1
            rolled = False
        moved = _interjections(game, policies, max_inputs - applied)
        actions += moved
        applied += moved
    winner = game.winner
    data["winners"].append(-1 if winner is None else winner)
    data["rounds"].append(game.round)
    data["turns"].append(game.turn + 1)
    data["actions"].append(actions)
    data["bankruptcies"].append(sum(game.player(s)["bankrupt"] for s in range(players)))
    data["truncated"].append(not game.is_over)
    data["net_worths"].append([game.net_worth(s) for s in range(players)])
    return data


def _interjections(game: Game, policies: list[Policy], budget: int) -> int:
    """One round of out-of-turn moves after an input, as the Rust run plays them
    (``lanopoly_sim::play::interjections``): each seat still in but the one to act, in seat order
    after it, may move once if its policy has ``interject`` (the built-in bots claim the rent
    owed to them and answer the offers made to them). Returns the number of moves applied."""
    actor = game.current_player
    if game.is_over or actor is None or actor < 0 or budget <= 0:
        return 0
    n = game.num_players
    applied = 0
    for seat in ((actor + d) % n for d in range(1, n)):
        if applied == budget or game.is_over or game.is_chance_node:
            break
        interject = getattr(policies[seat], "interject", None)
        if game.player(seat)["bankrupt"] or interject is None:
            continue
        action = interject(game, seat, game.legal_actions(seat))
        if action is not None:
            game.apply(action)
            applied += 1
    return applied


def _is_move_roll(game: Game) -> bool:
    return bool(game.pending_chance == "move_dice")


def _card_pending(game: Game) -> bool:
    pending = game.pending_chance
    return isinstance(pending, dict) and "card" in pending
