"""A vectorized Gymnasium environment: ``num_envs`` games of ``LanopolyEnv`` stepped at once in
Rust (one ``VecGame``), what ``gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs=...)`` makes.

Each game is the learner's seat against built-in bots, with the single environment's rules:
rewards +1 / -1/(players-1) at the end (the learner's bankruptcy ends its episode), an illegal
action changes nothing and costs ``illegal_penalty`` (``info["illegal_action"]``), ``max_steps``
actions or ``max_inputs`` inputs truncate. The masks are in ``info["action_mask"]`` (int8, one
row per game). ``autoreset_mode`` (``gymnasium.vector.AutoresetMode``):

- ``SAME_STEP`` (default): a game that ends is replaced in the same step; the observation returned
  is the new game's, the last one of the ended game is in ``info["final_obs"]`` (rows where
  ``info["_final_obs"]`` is True; the other rows are zero).
- ``NEXT_STEP``: the step after a game ended starts it afresh (its action is ignored, reward 0).
- ``DISABLED``: an ended game waits for ``reset(options={"reset_mask": mask})``, which restarts
  only the games of the mask; stepping it first raises ``gymnasium.error.ResetNeeded``.

``reward_shaping`` and ``trading`` are the single environment's (shaping: the change of the
learner's share of all net worth, 0 at the end of a game, none on truncation; ``trading=False``:
``Discrete(211)`` per game, no trade composition).

``copy=False`` returns the environment's own arrays, overwritten by the next step (no copy of
the observations per step: the fast path); the default returns copies, as Gymnasium's vector
environments do: arrays the caller owns, never written again while it holds them. The
observations and masks are copied into arrays the caller has let go of when there are such
(``recycle.Recycler``), which spares a fresh multi-megabyte allocation and its page faults per
step, and the final observations are fresh zero pages (``zero_pages``) with only the ended
games' rows written; with an autoreset the step writes its observations straight into the
array it returns. A partial reset (``reset_mask``) after such steps observes every game again.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from lanopoly._core import Rules, VecGame
from lanopoly.envs.recycle import Recycler
from lanopoly.envs.zero_pages import zero_pages
from lanopoly.rl import ACTION_SIZE, OBSERVATION_SIZE, TRADE_ACTIONS_START, net_worth_share

Array = npt.NDArray[Any]


class LanopolyVectorEnv(VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.int64], Array]):
    """``num_envs`` games of the learner against bots, stepped in Rust (see the module docs)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 16,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        opponents: str | list[str] = "heuristic",
        learner: int = 0,
        max_steps: int = 20_000,
        illegal_penalty: float = 0.01,
        max_inputs: int = 1_000_000,
        threads: int = 1,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        copy: bool = True,
        render_mode: str | None = None,
        reward_shaping: float = 0.0,
        trading: bool = True,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r} is not offered: the vector environment does not render")
        self.num_envs, self.copy, self.render_mode = num_envs, copy, render_mode
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.learner, self.max_steps, self.illegal_penalty = learner, max_steps, illegal_penalty
        self.reward_shaping, self.trading = reward_shaping, trading
        self._actions = ACTION_SIZE if trading else TRADE_ACTIONS_START
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        self._settings: dict[str, Any] = {
            "players": players,
            "board": board,
            "rules": rules,
            "max_steps": max_steps,
            "learner": learner,
            "opponents": opponents,
            "threads": threads,
            "max_inputs": max_inputs,
        }
        # Money is scaled by 1/1000 and a decoded state never holds more than 2**30.
        self.single_observation_space = gym.spaces.Box(0.0, 2.0**20, shape=(OBSERVATION_SIZE,), dtype=np.float32)
        self.single_action_space = gym.spaces.Discrete(self._actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        n = num_envs
        self._games = VecGame(n, seed=0, **self._settings)
        self._games.autoreset = False
        self._out = (
            np.zeros((n, OBSERVATION_SIZE), np.float32),
            np.zeros((n, ACTION_SIZE), np.bool_),
            np.zeros(n, np.int8),
            np.zeros((n, players), np.float32),
            np.zeros(n, np.bool_),
            np.zeros(n, np.bool_),
        )
        self._final_obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._had_final = np.zeros(n, np.bool_)
        self._pending = np.zeros(n, np.bool_)  # ended: reset at the next step (NEXT_STEP) or by reset()
        self._illegal_steps = np.zeros(n, np.int64)
        self._all = np.ones(n, np.bool_)
        self._rows = np.arange(n)
        self._potential = np.zeros(n, np.float64)
        # copy=True: the arrays handed out, taken back once the caller holds them no more.
        self._obs_out = Recycler((n, OBSERVATION_SIZE), np.float32)
        self._masks_out = Recycler((n, self._actions), np.int8)
        # With copy=True and an autoreset, a step writes its observations straight into the array
        # it returns (no copy): the env's own observation buffer then misses them until a reset
        # that needs it (a partial one) observes every game again. Without autoreset, partial
        # resets are the normal course: the step writes the buffer and returns a copy.
        self._direct = copy and self.autoreset_mode is not AutoresetMode.DISABLED
        self._stale = False

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Start every game afresh (seeded by ``seed``, one integer for the batch), or only those
        of ``options["reset_mask"]``."""
        if seed is not None and not isinstance(seed, int):
            raise ValueError("seed is one integer for the whole batch (each game is seeded from it and its index)")
        super().reset(seed=seed)
        obs, mask, player = self._out[:3]
        which = None if options is None else options.get("reset_mask")
        if which is not None:
            which = np.asarray(which, dtype=np.bool_)
            if seed is not None:
                raise ValueError("a reset_mask restarts games in their next episode: it takes no seed")
            if self._stale:
                obs[:] = self._games.observe()[0]
            self._games.reset_games(which, out=(obs, mask, player))
        else:
            if seed is not None:
                self._games = VecGame(self.num_envs, seed=seed % 2**64, **self._settings)
                self._games.autoreset = False
            else:
                self._games.reset()
            which = self._all
            obs[:], mask[:], player[:] = self._games.observe()
        self._stale = False
        self._pending[which] = False
        self._illegal_steps[which] = 0
        self._potential = net_worth_share(obs)
        return self._obs(obs), {"action_mask": self._masks(), "_action_mask": self._answer(self._all)}

    def step(
        self, actions: Array
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], Array, Array, dict[str, Any]]:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        obs, mask, player, rewards, terminated, truncated = self._out
        if self._direct:
            obs, self._stale = self._obs_out.take(), True  # every row is written by the step
        skip = self._pending.copy()
        if skip.any():
            if self.autoreset_mode is AutoresetMode.DISABLED:
                raise gym.error.ResetNeeded(
                    f"games {np.flatnonzero(skip).tolist()} have ended: reset(options={{'reset_mask': ...}})"
                )
            self._games.reset_games(skip)  # NEXT_STEP: the step writes their new rows
            self._illegal_steps[skip] = 0
        inside = (actions >= 0) & (actions < self._actions)
        illegal = ~skip & ~(inside & mask[self._rows, np.where(inside, actions, 0)])
        self._games.step(np.where(skip | illegal, -1, actions), out=(obs, mask, player, rewards, terminated, truncated))
        reward = rewards[:, self.learner] - self.illegal_penalty * illegal
        self._illegal_steps += illegal
        truncated |= illegal & (self._illegal_steps >= self.max_steps)
        done = terminated | truncated
        if self.reward_shaping:
            # The potential is 0 once a game is over; a cut or skipped game gets no shaping.
            potential = np.where(terminated, 0.0, np.where(truncated | skip, self._potential, net_worth_share(obs)))
            reward += self.reward_shaping * (potential - self._potential)
        info: dict[str, Any] = {"illegal_action": illegal, "_illegal_action": self._answer(self._all)}
        self._pending[:] = False
        if done.any():
            if self.autoreset_mode is AutoresetMode.SAME_STEP:
                info["final_obs"], info["_final_obs"] = self._final(obs, done), done
                self._games.reset_games(done, out=(obs, mask, player))
                self._illegal_steps[done] = 0
            else:
                self._pending = done.copy()
        if self.reward_shaping:
            self._potential = net_worth_share(obs)  # the rows now: new games' included
        info["action_mask"], info["_action_mask"] = self._masks(), self._answer(self._all)
        return obs if self._direct else self._obs(obs), reward, self._answer(terminated), self._answer(truncated), info

    def _obs(self, obs: Array) -> Array:
        """The observations to return: the buffer itself (``copy=False``) or a copy the caller owns."""
        return self._obs_out.copy_of(obs) if self.copy else obs

    def _final(self, obs: Array, done: Array) -> Array:
        """The final observations of the ``done`` games (their rows of ``obs`` before the reset),
        zero elsewhere: the environment's buffer (``copy=False``) or an array the caller owns."""
        if self.copy:  # zero pages: only the pages of the rows written below are ever touched
            final = zero_pages(self._final_obs.shape, np.float32)
        else:
            final = self._final_obs
            final[self._had_final] = 0.0
            self._had_final = done.copy()
        final[done] = obs[done]
        return final

    def _masks(self) -> Array:
        """The masks as int8 (a view of the bool buffer), without the trade actions if not trading."""
        masks = self._out[1].view(np.int8)[:, : self._actions]
        if self.copy:
            return self._masks_out.copy_of(masks)
        return masks if self.trading else masks.copy()

    def _answer(self, array: Array) -> Array:
        return array.copy() if self.copy else array
