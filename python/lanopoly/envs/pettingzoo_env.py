"""A PettingZoo AEC environment: every seat is an agent ("player_0", ...), one acts at a time.

Observations are dicts ``{"observation": float32 vector, "action_mask": int8 vector}`` from the
observing agent's point of view, as in PettingZoo's classic games. ``reset()`` without a seed
continues the environment's own random stream (seeded by the last ``reset(seed=...)``, or from
the operating system).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from lanopoly._core import Rules, VecGame
from lanopoly.rl import ACTION_SIZE, OBSERVATION_SIZE


def env(**kwargs: Any) -> AECEnv[str, dict[str, Any], int]:
    """The environment with PettingZoo's standard safety wrappers."""
    inner: AECEnv[str, dict[str, Any], int] = raw_env(**kwargs)
    inner = wrappers.TerminateIllegalWrapper(inner, illegal_reward=-1)
    inner = wrappers.AssertOutOfBoundsWrapper(inner)
    return wrappers.OrderEnforcingWrapper(inner)


class raw_env(AECEnv[str, dict[str, Any], int]):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "lanopoly_v1", "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        max_steps: int = 20_000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.players, self.board, self.rules, self.max_steps = players, board, rules, max_steps
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = list(self.possible_agents)
        space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 2.0**20, shape=(OBSERVATION_SIZE,), dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, shape=(ACTION_SIZE,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(ACTION_SIZE) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._games = self._new_games(0)

    def _new_games(self, seed: int) -> VecGame:
        games = VecGame(1, self.players, self.board, self.rules, seed, self.max_steps)
        games.autoreset = False
        return games

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        obs, mask = self._games.view(0, self.possible_agents.index(agent))
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._games = self._new_games(int(self._rng.integers(0, 2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        _, _, player = self._games.observe()
        self.agent_selection = self.possible_agents[int(player[0])]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        _, _, player, rewards, terminated, truncated = self._games.step(np.asarray([action], dtype=np.int64))
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(rewards[0, i])
            self.terminations[a] = bool(terminated[0])
            self.truncations[a] = bool(truncated[0])
        if not (terminated[0] or truncated[0]):
            self.agent_selection = self.possible_agents[int(player[0])]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self._games.game(0)
        return f"round {game.round}, {self.agent_selection} to act"

    def close(self) -> None:
        pass
