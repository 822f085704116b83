"""A Gymnasium environment: the agent plays one seat, built-in bots play the others.

``action_masks()`` gives the legal actions (for masked PPO, e.g. sb3-contrib's MaskablePPO); the
mask is also in ``info["action_mask"]``, as int8 (what ``Discrete.sample(mask=...)`` takes).
Reward: +1 for a win, -1/(players-1) for a loss, at the end of the game (the learner's bankruptcy
ends its episode: the bots do not play the rest out); 0 otherwise. An illegal action changes
nothing and costs ``illegal_penalty`` (``info["illegal_action"]`` is True); ``max_steps``
actions, legal or not, truncate an episode, and so does a game that reaches ``max_inputs`` inputs
(moves and chance outcomes, the bots' too: the limit of ``lanopoly.simulate``), so that a step
always returns. Stepping an episode that has ended raises ``gymnasium.error.ResetNeeded``.

Learning out of the box: ``reward_shaping=c`` adds ``c`` times the change of the learner's share
of all net worth at every step (``lanopoly.rl.net_worth_share``; a potential that is 0 once the
game is over, so it changes the learning signal, not which policy is best), and
``trading=False`` is the flat action space without trade composition (``Discrete(211)``: the
learner can still accept or reject offers).

``import lanopoly`` registers ``"lanopoly/Lanopoly-v1"`` with Gymnasium (see
``lanopoly.envs.registration``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from lanopoly._core import IllegalAction, Rules, VecGame
from lanopoly.envs.registration import register_gymnasium
from lanopoly.rl import ACTION_SIZE, OBSERVATION_SIZE, TRADE_ACTIONS_START, net_worth_share


class LanopolyEnv(gym.Env[npt.NDArray[np.float32], np.int64]):
    """One game; the learner's seat against bots (``opponents``: "heuristic", "random", "search",
    or specs such as "heuristic(jail=stay)")."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (gymnasium's declaration)

    def __init__(
        self,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        opponents: str | list[str] = "heuristic",
        learner: int = 0,
        max_steps: int = 20_000,
        render_mode: str | None = None,
        illegal_penalty: float = 0.01,
        max_inputs: int = 1_000_000,
        reward_shaping: float = 0.0,
        trading: bool = True,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            offered = self.metadata["render_modes"]
            raise ValueError(f"render_mode {render_mode!r} is not offered; render modes: {offered}")
        self.players, self.board, self.rules = players, board, rules
        self.illegal_penalty = illegal_penalty
        self._steps = 0
        self.opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        self.learner, self.max_steps, self.max_inputs = learner, max_steps, max_inputs
        self.render_mode = render_mode
        self.reward_shaping, self.trading = reward_shaping, trading
        self._actions = ACTION_SIZE if trading else TRADE_ACTIONS_START
        # Money is scaled by 1/1000 and a decoded state never holds more than 2**30.
        self.observation_space = gym.spaces.Box(0.0, 2.0**20, shape=(OBSERVATION_SIZE,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(self._actions)
        self._games = self._new_games(0)
        self._mask = np.zeros(self._actions, dtype=np.int8)
        self._ended = False
        self._potential = 0.0

    def _new_games(self, seed: int) -> VecGame:
        games = VecGame(
            1,
            self.players,
            self.board,
            self.rules,
            seed,
            self.max_steps,
            self.learner,
            self.opponents,
            max_inputs=self.max_inputs,
        )
        games.autoreset = False
        return games

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        self._games = self._new_games(int(self.np_random.integers(0, 2**63)))
        self._steps, self._ended = 0, False
        obs, mask, _ = self._games.observe()
        self._obs, self._mask = obs[0], mask[0, : self._actions].astype(np.int8)
        self._potential = float(net_worth_share(self._obs))
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, action: np.int64 | int) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if self._ended:
            raise gym.error.ResetNeeded("the episode has ended: call reset() before step()")
        self._steps += 1
        cut = self._steps >= self.max_steps
        if not 0 <= int(action) < self._actions or not self._mask[int(action)]:
            info = {"action_mask": self._mask.copy(), "illegal_action": True}
            self._ended = cut
            return self._obs.copy(), -self.illegal_penalty, False, cut, info
        try:
            obs, mask, _, rewards, terminated, truncated = self._games.step(np.asarray([int(action)], dtype=np.int64))
        except IllegalAction as e:  # the mask said legal: a bug, not the agent's fault
            raise RuntimeError(f"masked-legal action {action} refused: {e}") from e
        self._obs, self._mask = obs[0], mask[0, : self._actions].astype(np.int8)
        info = {"action_mask": self._mask.copy(), "illegal_action": False}
        done = bool(terminated[0])
        cut = bool(truncated[0]) or (cut and not done)
        self._ended = done or cut
        reward = float(rewards[0, self.learner])
        if self.reward_shaping:
            # The potential is 0 once the game is over; a cut game keeps its last one (no shaping).
            potential = 0.0 if done else self._potential if cut else float(net_worth_share(self._obs))
            reward += self.reward_shaping * (potential - self._potential)
            self._potential = potential
        return self._obs.copy(), reward, done, cut, info

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal actions now (1 = legal), as int8."""
        return self._mask.copy()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self._games.game(0)
        lines = [f"round {game.round}, waiting for seat {game.current_player}"]
        for seat in range(game.num_players):
            p = game.player(seat)
            lines.append(f"  seat {seat}: cash {p['cash']}, {len(p['properties'])} deeds, bankrupt={p['bankrupt']}")
        return "\n".join(lines)


register_gymnasium()
