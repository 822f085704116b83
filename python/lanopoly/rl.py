"""The learning interface: a fixed integer action space, float32 observations, and VecGame.

    >>> from lanopoly.rl import VecGame, ACTION_SIZE, OBSERVATION_SIZE
    >>> v = VecGame(64, players=4, seed=1)          # 64 games, every seat played by the agent
    >>> obs, mask, player = v.reset()               # (64, OBSERVATION_SIZE), (64, ACTION_SIZE), (64,)
    >>> actions = [np.flatnonzero(m)[0] for m in mask]
    >>> obs, mask, player, rewards, terminated, truncated = v.step(np.asarray(actions))

Action indices (version ``ACTION_SPACE_VERSION``; seats relative to the acting seat, properties
0..27 in board order): 0..11 roll, pay jail fine, use jail card, buy, decline, pass, end turn, pay
debt, declare bankruptcy, cancel trade, end game; 11..19 bids (lowest, then 1/4..2 of the lot's
value); 19..47 build, 47..75 sell, 75..103 mortgage, 103..131 unmortgage, 131..159 keep
mortgaged, 159..187 claim rent (by property); 187..195 sell a group down to nothing; 195..203
accept and 203..211 reject the offer of a relative seat; 211..255 compose a trade (start with a
seat, toggle properties, add cash, toggle jail cards, propose, discard); ``ACTION_NAMES`` names
every index. The observation's parts are in ``OBSERVATION_LAYOUT`` (name, start, stop), and
every entry's meaning and bounds in ``OBSERVATION_FIELDS`` (``lanopoly.observation``).

Chance is sampled inside ``step`` with each game's seeded stream; for explicit chance, use
``lanopoly.Game`` (chance nodes are ordinary inputs there).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lanopoly._core import VecGame
from lanopoly.observation import OBSERVATION_FIELDS, ObservationField

ACTION_SIZE: int = VecGame.action_size
OBSERVATION_SIZE: int = VecGame.observation_size
ACTION_SPACE_VERSION: int = VecGame.action_space_version
OBSERVATION_LAYOUT: list[tuple[str, int, int]] = VecGame.observation_layout
ACTION_NAMES: list[str] = VecGame.action_names
"""What each index means (``"roll"``, ``"bid:1/2_value"``, ``"build:39"``, ``"accept_trade:+1"``...)."""
TRADE_ACTIONS_START: int = 211
"""Actions from here compose trades (drafts); the environments' ``trading=False`` leaves them out."""

# The "players" part holds one block per relative seat (slot 0 = the observer), of which entry
# NET_WORTH is the seat's net worth (observation.rs, version ACTION_SPACE_VERSION).
MAX_SEATS = 8
PLAYER_BLOCK = 51
NET_WORTH = 47


def observation_slices() -> dict[str, slice]:
    """Name -> slice of the observation vector."""
    return {name: slice(start, stop) for name, start, stop in OBSERVATION_LAYOUT}


def net_worth_share(obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """The observer's share of all seats' net worth (0..1), from observations (any leading
    shape): the potential of the environments' shaped reward."""
    blocks = obs[..., : MAX_SEATS * PLAYER_BLOCK].reshape(*obs.shape[:-1], MAX_SEATS, PLAYER_BLOCK)
    worths = blocks[..., NET_WORTH].astype(np.float64)
    total = worths.sum(axis=-1)
    share: npt.NDArray[Any] = np.divide(worths[..., 0], total, out=np.zeros_like(total), where=total > 0)
    return share


__all__ = [
    "ACTION_NAMES",
    "ACTION_SIZE",
    "ACTION_SPACE_VERSION",
    "OBSERVATION_FIELDS",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "TRADE_ACTIONS_START",
    "ObservationField",
    "VecGame",
    "net_worth_share",
    "observation_slices",
]
