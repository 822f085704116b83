"""PettingZoo environments: every seat is an agent ("player_0", ...); the AEC ``env()`` and the
``parallel_env()``.

Observations are dicts ``{"observation": float32 vector, "action_mask": int8 vector}`` from the
observing agent's point of view, as in PettingZoo's classic games. Only the agent the game waits
for has legal actions: the others' masks are all zero. Rewards: -1/(players-1) to an agent when
it goes bankrupt (it is terminated then, and leaves the game), +1 to the winner and
-1/(players-1) to the others still in when the game ends; every agent's total is +1 or
-1/(players-1), and they sum to zero. ``max_steps`` actions or ``max_inputs`` inputs truncate
the game. ``reset()`` without a seed continues the environment's own random stream (seeded by
the last ``reset(seed=...)``, or from the operating system).

The game is sequential: at every moment the rules wait for one seat (auction bids and answers to
offers are taken in turn too, so that every game replays exactly), so ``parallel_env()`` is the
turn-based form of PettingZoo's parallel API: every live agent sends an action each step, only
the waited-for agent's is applied (the others', with all-zero masks, are ignored). It suits
frameworks that step all agents at once (RLlib's multi-agent API); it does not let agents act
simultaneously.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from lanopoly._core import Game, Rules, VecGame
from lanopoly.rl import ACTION_SIZE, OBSERVATION_SIZE

Observation = dict[str, npt.NDArray[Any]]


def env(**kwargs: Any) -> AECEnv[str, Observation, int]:
    """The AEC environment with PettingZoo's standard safety wrappers."""
    inner: AECEnv[str, Observation, int] = raw_env(**kwargs)
    inner = wrappers.TerminateIllegalWrapper(inner, illegal_reward=-1)
    inner = wrappers.AssertOutOfBoundsWrapper(inner)
    return wrappers.OrderEnforcingWrapper(inner)


def parallel_env(**kwargs: Any) -> ParallelEnv[str, Observation, int]:
    """The parallel (turn-based) environment; see the module documentation."""
    return ParallelLanopolyEnv(**kwargs)


METADATA: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "lanopoly_v1", "render_fps": 4}


class _Table:
    """One game in a VecGame (so that trade drafts work), shared by both environments: its
    spaces, its seeding, the agents' observations, and who has left."""

    def __init__(
        self,
        players: int,
        board: str,
        rules: Rules | None,
        max_steps: int,
        max_inputs: int,
        render_mode: str | None,
    ) -> None:
        if render_mode is not None and render_mode not in METADATA["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not offered; render modes: {METADATA['render_modes']}")
        self.players, self.board, self.rules = players, board, rules
        self.max_steps, self.max_inputs, self.render_mode = max_steps, max_inputs, render_mode
        self.agents = [f"player_{i}" for i in range(players)]
        self.loss = -1.0 / (players - 1)
        space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 2.0**20, shape=(OBSERVATION_SIZE,), dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, shape=(ACTION_SIZE,), dtype=np.int8),
            }
        )
        self.observation_spaces: dict[str, gymnasium.spaces.Space[Any]] = dict.fromkeys(self.agents, space)
        self.action_spaces: dict[str, gymnasium.spaces.Space[Any]] = {
            a: gymnasium.spaces.Discrete(ACTION_SIZE) for a in self.agents
        }
        self.rng = np.random.default_rng()
        self.games = self.new_games(0)
        self.out: set[int] = set()

    def new_games(self, seed: int) -> VecGame:
        games = VecGame(1, self.players, self.board, self.rules, seed, self.max_steps, max_inputs=self.max_inputs)
        games.autoreset = False
        return games

    def reset(self, seed: int | None) -> int:
        """A new game (seeded from ``seed``, or from the stream the last seed started); returns
        the seat to act."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.games = self.new_games(int(self.rng.integers(0, 2**63)))
        self.out = set()
        return int(self.games.observe()[2][0])

    def observe(self, seat: int, acting: bool) -> Observation:
        obs, mask = self.games.view(0, seat)
        return {"observation": obs, "action_mask": mask.astype(np.int8) if acting else np.zeros(ACTION_SIZE, np.int8)}

    def step(self, action: int) -> tuple[int, dict[int, float], bool, bool]:
        """Apply the waited-for seat's action: (seat to act next, -1 if none; rewards by seat for
        the seats still in before the step; game over; cut). Seats that went bankrupt are added to
        ``out``."""
        _, _, player, rewards, terminated, truncated = self.games.step(np.asarray([action], dtype=np.int64))
        game = self.games.game(0)
        before = set(range(self.players)) - self.out
        gone = {seat for seat in before if game.player(seat)["bankrupt"]}
        if terminated[0]:
            paid = {seat: float(rewards[0, seat]) for seat in before}
        else:
            paid = {seat: (self.loss if seat in gone else 0.0) for seat in before}
        self.out |= gone
        return int(player[0]), paid, bool(terminated[0]), bool(truncated[0])

    def game(self) -> Game:
        return self.games.game(0)

    def render(self, waiting: str) -> str | None:
        """The game in a line: returned ("ansi"), printed ("human") or nothing (no render mode)."""
        if self.render_mode is None:
            return None
        text = f"round {self.game().round}, {waiting} to act"
        if self.render_mode == "human":
            print(text)
            return None
        return text


class raw_env(AECEnv[str, Observation, int]):
    metadata: ClassVar[dict[str, Any]] = {**METADATA, "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        max_steps: int = 20_000,
        render_mode: str | None = None,
        max_inputs: int = 1_000_000,
    ) -> None:
        super().__init__()
        self._table = _Table(players, board, rules, max_steps, max_inputs, render_mode)
        self.render_mode = render_mode
        self.possible_agents = list(self._table.agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = self._table.observation_spaces
        self.action_spaces = self._table.action_spaces

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Observation:
        seat = self.possible_agents.index(agent)
        done = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        return self._table.observe(seat, agent == self.agent_selection and not done)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seat = self._table.reset(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        seat, paid, over, cut = self._table.step(action)
        for s, reward in paid.items():
            a = self.possible_agents[s]
            self.rewards[a] = reward
            self.terminations[a] = over or s in self._table.out
            self.truncations[a] = cut and not self.terminations[a]
        if not (over or cut):
            self.agent_selection = self.possible_agents[seat]
            self._deads_step_first()  # a bankrupt agent is stepped out before play goes on
        self._accumulate_rewards()

    def render(self) -> str | None:
        return self._table.render(self.agent_selection)

    def close(self) -> None:
        pass


class ParallelLanopolyEnv(ParallelEnv[str, Observation, int]):
    """The turn-based parallel environment (see the module documentation). An illegal action of
    the agent to act changes nothing and costs it ``illegal_penalty`` (``info["illegal_action"]``)."""

    metadata: ClassVar[dict[str, Any]] = {**METADATA, "name": "lanopoly_parallel_v1"}

    def __init__(
        self,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        max_steps: int = 20_000,
        render_mode: str | None = None,
        max_inputs: int = 1_000_000,
        illegal_penalty: float = 0.01,
    ) -> None:
        self._table = _Table(players, board, rules, max_steps, max_inputs, render_mode)
        self.render_mode, self.illegal_penalty = render_mode, illegal_penalty
        self.possible_agents = list(self._table.agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = self._table.observation_spaces
        self.action_spaces = self._table.action_spaces
        self._acting = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def _observations(self) -> dict[str, Observation]:
        return {a: self._table.observe(self.possible_agents.index(a), self._is_acting(a)) for a in self.agents}

    def _is_acting(self, agent: str) -> bool:
        return self._acting >= 0 and agent == self.possible_agents[self._acting]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._acting = self._table.reset(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        acting = self.possible_agents[self._acting]
        if acting not in actions:
            raise KeyError(f"no action for {acting}, the agent the game waits for")
        action = int(actions[acting])
        rewards = dict.fromkeys(self.agents, 0.0)
        terminations = dict.fromkeys(self.agents, False)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, dict[str, Any]] = {a: {"illegal_action": False} for a in self.agents}
        _, mask = self._table.games.view(0, self._acting)
        if not 0 <= action < ACTION_SIZE or not mask[action]:
            rewards[acting] = -self.illegal_penalty
            infos[acting]["illegal_action"] = True
            return self._observations(), rewards, terminations, truncations, infos
        self._acting, paid, over, cut = self._table.step(action)
        for seat, reward in paid.items():
            agent = self.possible_agents[seat]
            rewards[agent] = reward
            terminations[agent] = over or seat in self._table.out
            truncations[agent] = cut and not terminations[agent]
        observations = self._observations()
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self._table.render(self.possible_agents[self._acting] if self._acting >= 0 else "nobody")

    def close(self) -> None:
        pass
