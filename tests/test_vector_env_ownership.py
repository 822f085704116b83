"""``copy=True`` (the default) of the vectorized Gymnasium environment: the caller owns every
array a step or a reset returns, although the environment takes back the large ones (the
observations, masks and final observations) once the caller has let go of them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from lanopoly import Rules

pytest.importorskip("gymnasium", reason="gymnasium is not installed")

from lanopoly.envs.recycle import Recycler
from lanopoly.envs.vector_env import LanopolyVectorEnv

SHORT = Rules(round_limit=8)


def first_legal(info: dict) -> np.ndarray:
    return np.asarray(info["action_mask"].argmax(axis=1))


def test_arrays_the_caller_holds_are_never_written_again():
    """Every step's observations, masks and final observations, held (some only through a view),
    keep the values they had when returned while the environment steps on."""
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT)
    obs, info = envs.reset(seed=7)
    held = [(obs, obs.copy()), (info["action_mask"], info["action_mask"].copy())]
    finals = 0
    for _ in range(300):
        obs, _, _, _, info = envs.step(first_legal(info))
        held.append((obs[1:], obs[1:].copy()))  # only a view of the step's array is kept
        held.append((info["action_mask"], info["action_mask"].copy()))
        if "final_obs" in info:
            finals += 1
            held.append((info["final_obs"], info["final_obs"].copy()))
        del obs
    assert finals > 1
    for array, snapshot in held:
        assert np.array_equal(array, snapshot)


def test_a_taken_back_final_observation_is_zero_outside_the_ended_games():
    """The caller may scribble on an array it then drops: the next final observations made in
    that array are still zero in the rows of the games that did not end."""
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT)
    _, info = envs.reset(seed=8)
    checked = 0
    for _ in range(400):
        *_, info = envs.step(first_legal(info))
        if "final_obs" in info:
            done = info["_final_obs"]
            assert not info["final_obs"][~done].any()
            checked += int((~done).any())
            info["final_obs"][:] = 5.0
            info["action_mask"][:] = 0  # and the masks are rewritten whole
    assert checked > 1


def test_the_recycler_takes_back_only_what_nobody_holds():
    recycler = Recycler((3,), np.float32, keep=3)
    first = recycler.take()
    second = recycler.take()
    assert not np.shares_memory(first, second)
    view = second[1:]
    del second
    assert not np.shares_memory(recycler.take(), view), "a view holds its array"
    address = first.ctypes.data
    del first
    assert recycler.take().ctypes.data == address, "an array nobody holds is taken back"


def test_a_recycler_that_keeps_none_free_makes_new_arrays_and_pickles_empty():
    recycler = Recycler((2,), np.int8, keep=2)
    held = [recycler.take() for _ in range(5)]
    assert len({a.ctypes.data for a in held}) == 5
    assert pickle.loads(pickle.dumps(recycler)).take().shape == (2,)


def test_a_partial_reset_after_steps_shows_the_other_games_as_they_are():
    """With an autoreset the steps write their observations only into the arrays they return:
    a partial reset still shows the other games' current rows, whatever the caller did to them."""
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT)
    _, info = envs.reset(seed=9)
    for _ in range(5):
        obs, *_, info = envs.step(first_legal(info))
    kept = obs.copy()
    obs[:] = 7.0
    which = np.array([True, False, True, False])
    obs, info = envs.reset(options={"reset_mask": which})
    assert np.array_equal(obs[~which], kept[~which])
    assert np.array_equal(info["action_mask"], envs.unwrapped._games.observe()[1].view(np.int8))


def test_the_info_flags_are_the_callers_too():
    """``_action_mask`` and ``_illegal_action`` are the caller's arrays: changing them changes
    nothing in the environment (they were once its own all-games flags, which a reset uses)."""
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT)
    _, info = envs.reset(seed=10)
    info["_action_mask"][:] = False
    *_, info = envs.step(first_legal(info))
    assert info["_action_mask"].all()
    info["_illegal_action"][:] = False
    _, info = envs.reset()
    assert info["_action_mask"].all()
