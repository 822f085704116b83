"""Adapters to learning frameworks (optional extras): Gymnasium and PettingZoo.

Import the one you need; each imports its framework only when used:
``from lanopoly.envs.gymnasium_env import LanopolyEnv`` or
``from lanopoly.envs.pettingzoo_env import env``.
"""
