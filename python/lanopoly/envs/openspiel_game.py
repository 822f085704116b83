"""An OpenSpiel game ("python_lanopoly"): explicit chance nodes, the integer action space.

    import pyspiel
    import lanopoly.envs.openspiel_game  # registers the game
    game = pyspiel.load_game("python_lanopoly", {"players": 4, "round_limit": 40})

Decision actions are the indices of ``lanopoly.rl`` (0..211: trade composition is not offered
here, offers from others can still be accepted or rejected). Chance actions: dice as the index
among the 21 unordered pairs (1,1), (1,2), ... (6,6); cards by their index in the deck table;
dealt deeds by property index. Returns: +1 to the winner, -1/(players-1) to the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from lanopoly._core import Game, Rules
from lanopoly.rl import ACTION_SIZE, OBSERVATION_SIZE
from lanopoly.types import ChanceOutcome

DICE = [(a, b) for a in range(1, 7) for b in range(a, 7)]
MAX_CHANCE_OUTCOMES = 28  # dealt deeds; dice have 21, cards 16
DEED_SQUARES = [
    1,
    3,
    5,
    6,
    8,
    9,
    11,
    12,
    13,
    14,
    15,
    16,
    18,
    19,
    21,
    23,
    24,
    25,
    26,
    27,
    28,
    29,
    31,
    32,
    34,
    35,
    37,
    39,
]

_GAME_TYPE = pyspiel.GameType(
    short_name="python_lanopoly",
    long_name="lanopoly (property trading)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 4, "round_limit": 0, "board": "classic"},
)


def _chance_id(outcome: ChanceOutcome) -> int:
    if outcome["type"] == "dice":
        low, high = outcome["dice"]
        return DICE.index((low, high))
    if outcome["type"] == "card":
        return outcome["card"]
    return DEED_SQUARES.index(outcome["square"])


def _chance_outcome(state: Game, action: int) -> ChanceOutcome:
    for outcome, _ in state.chance_outcomes():
        if _chance_id(outcome) == action:
            return outcome
    raise ValueError(f"chance action {action} is not possible now")


class LanopolyGame(pyspiel.Game):
    """The game: its parameters and sizes."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_GAME_TYPE.parameter_specification, **(params or {})}
        self.players = int(params["players"])
        self.board = str(params["board"])
        self.rules = Rules(round_limit=int(params["round_limit"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_SIZE,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=100_000,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> LanopolyState:
        return LanopolyState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LanopolyObserver:
        return LanopolyObserver()


class LanopolyState(pyspiel.State):
    """One state: a ``lanopoly.Game`` underneath."""

    def __init__(self, game: LanopolyGame) -> None:
        super().__init__(game)
        self.inner = Game(game.players, board=game.board, rules=game.rules, seed=0)

    def current_player(self) -> int:
        if self.inner.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.inner.is_chance_node:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.inner.current_player
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.inner.action_mask(player))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(_chance_id(o), p) for o, p in self.inner.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        if self.inner.is_chance_node:
            self.inner.apply(_chance_outcome(self.inner, action))
        else:
            seat = self.inner.current_player
            assert seat is not None
            self.inner.apply(self.inner.action_from_index(seat, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return str(_chance_outcome(self.inner, action))
        try:
            return str(self.inner.action_from_index(player, action))
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return bool(self.inner.is_over)

    def returns(self) -> list[float]:
        n = self.inner.num_players
        winner = self.inner.winner
        if winner is None:
            return [0.0] * n
        return [1.0 if p == winner else -1.0 / (n - 1) for p in range(n)]

    def __str__(self) -> str:
        return f"step {self.inner.step}, round {self.inner.round}, waiting for {self.current_player()}"


class LanopolyObserver:
    """The observation of ``lanopoly.rl`` from a player's point of view, as a tensor and a string."""

    def __init__(self) -> None:
        self.tensor = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: LanopolyState, player: int) -> None:
        self.tensor[:] = state.inner.observation(player)

    def string_from(self, state: LanopolyState, player: int) -> str:
        p = state.inner.player(player)
        return f"p{player} cash={p['cash']} pos={p['position']} step={state.inner.step}"


pyspiel.register_game(_GAME_TYPE, LanopolyGame)
