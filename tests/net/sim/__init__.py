"""Deterministic network simulation of protocol 8 sessions (FoundationDB/TigerBeetle style).

Peers' session cores (``lanopoly.net.core``) are joined by a simulated network driven by one
seeded RNG: message delays, link breaks, kills and restarts from the journal, people thinking,
and misbehaving peers. Invariants are checked after every event; a failing game prints its seed,
and ``run_game(seed)`` replays it exactly.
"""
