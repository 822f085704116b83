"""Adapters to learning frameworks (optional extras): Gymnasium, PettingZoo and OpenSpiel.

Each module imports its framework only when it is imported itself:
``from lanopoly.envs.gymnasium_env import LanopolyEnv``,
``from lanopoly.envs.pettingzoo_env import env, parallel_env`` and ``lanopoly.envs.openspiel_game``.
``import lanopoly`` registers the Gymnasium environment ("lanopoly/Lanopoly-v1") and the OpenSpiel
game ("python_lanopoly") by name as soon as those frameworks are imported (``registration``).
"""
