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
seat, toggle properties, add cash, toggle jail cards, propose, discard). The observation's parts
are in ``OBSERVATION_LAYOUT`` (name, start, stop); the Rust docs of ``lanopoly-sim``
(``action_space.rs``, ``observation.rs``) describe every entry.

Chance is sampled inside ``step`` with each game's seeded stream; for explicit chance, use
``lanopoly.Game`` (chance nodes are ordinary inputs there).
"""

from __future__ import annotations

from lanopoly._core import VecGame

ACTION_SIZE: int = VecGame.action_size
OBSERVATION_SIZE: int = VecGame.observation_size
ACTION_SPACE_VERSION: int = VecGame.action_space_version
OBSERVATION_LAYOUT: list[tuple[str, int, int]] = VecGame.observation_layout


def observation_slices() -> dict[str, slice]:
    """Name -> slice of the observation vector."""
    return {name: slice(start, stop) for name, start, stop in OBSERVATION_LAYOUT}


__all__ = [
    "ACTION_SIZE",
    "ACTION_SPACE_VERSION",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "VecGame",
    "observation_slices",
]
