"""lanopoly: the property-trading board game, on a fast deterministic rules engine.

The rules live in a Rust core (``lanopoly._core``); this package re-exports it and adds what is
easier in Python: readable event descriptions, game logs that replay and verify, and simple bots.

    >>> import lanopoly
    >>> game = lanopoly.Game(["Ada", "Brian"], seed=1)
    >>> while game.is_chance_node:        # roll for who starts
    ...     _ = game.resolve_chance()
    >>> game.legal_actions()[0]["type"]
    'roll'
"""

from lanopoly._core import (
    CHANCE,
    STATE_FORMAT,
    Bot,
    DecodeError,
    Game,
    IllegalAction,
    Rules,
    boards,
    bot_parameters,
    square_names,
)
from lanopoly._core import bots as bot_names
from lanopoly.bots import Policy, SimpleBot
from lanopoly.describe import describe
from lanopoly.envs.registration import register_when_imported
from lanopoly.log import GameLog, LogError, ReplayMismatch
from lanopoly.simulate import SimulationResult, simulate

IllegalAction.__module__ = "lanopoly"
DecodeError.__module__ = "lanopoly"

# Gymnasium's "lanopoly/Lanopoly-v1" and OpenSpiel's "python_lanopoly", once those are imported.
register_when_imported()

__all__ = [
    "CHANCE",
    "STATE_FORMAT",
    "Bot",
    "DecodeError",
    "Game",
    "GameLog",
    "IllegalAction",
    "LogError",
    "Policy",
    "ReplayMismatch",
    "Rules",
    "SimpleBot",
    "SimulationResult",
    "boards",
    "bot_names",
    "bot_parameters",
    "describe",
    "simulate",
    "square_names",
]
