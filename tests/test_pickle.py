"""Pickling and copying: games (with their chance stream), rules, bots, VecGames and the
environments resume exactly where they were, in this process and in others (multiprocessing
with every start method)."""

from __future__ import annotations

import copy
import multiprocessing
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanopoly import Bot, Game, Rules
from lanopoly.rl import VecGame

SHORT = Rules(round_limit=15)


def step_once(game: Game, choice: int) -> None:
    """One input: the game's own chance draw, or the ``choice``-th legal move."""
    if game.is_chance_node:
        game.resolve_chance()
    else:
        legal = game.legal_actions()
        game.apply(legal[choice % len(legal)])


def played(seed: int, steps: int, players: int = 3) -> Game:
    game = Game(players, rules=SHORT, seed=seed)
    for k in range(steps):
        if game.is_over:
            break
        step_once(game, k * 7 + seed)
    return game


@given(
    seed=st.integers(0, 2**64 - 1),
    before=st.integers(0, 300),
    protocol=st.integers(2, pickle.HIGHEST_PROTOCOL),
    choices=st.lists(st.integers(0, 50), min_size=1, max_size=200),
)
def test_a_pickled_game_goes_on_as_the_original(seed, before, protocol, choices):
    game = played(seed % 1000, before)
    game = Game.from_bytes(game.to_bytes(), names=["a", "b", "c"], seed=seed)  # any chance stream
    back = pickle.loads(pickle.dumps(game, protocol=protocol))
    assert (back.state_hash(), back.names, back.chance_seed) == (game.state_hash(), game.names, game.chance_seed)
    for choice in choices:
        if game.is_over:
            break
        step_once(game, choice)
        step_once(back, choice)
        assert back.state_hash() == game.state_hash()


def test_chance_seed_continues_the_chance_stream():
    game = played(3, 40)
    copy_ = Game.from_bytes(game.to_bytes(), seed=game.chance_seed)
    for _ in range(100):
        step_once(game, 0)
        step_once(copy_, 0)
        assert copy_.state_hash() == game.state_hash()


def test_rules_pickle_and_copy():
    rules = Rules.preset("speed", round_limit=9, free_building=True)
    for other in (pickle.loads(pickle.dumps(rules)), copy.copy(rules), copy.deepcopy(rules)):
        assert other == rules and other.to_dict() == rules.to_dict()


@pytest.mark.parametrize("spec", ["random", "heuristic(jail=stay)", "search(rollouts=2,horizon_rounds=2)"])
def test_a_pickled_bot_chooses_as_the_original(spec):
    """Bots remember things (proposals made, plans, the turn's optional moves): a pickled bot
    keeps its memory and random stream, so the game goes on the same way."""
    steps = 120 if spec.startswith("search") else 400
    game = Game(4, rules=SHORT, seed=8)
    bots = [Bot(spec, seed=seat) for seat in range(4)]

    def play(game: Game, bots: list[Bot], n: int) -> list[bytes]:
        hashes = []
        for _ in range(n):
            if game.is_over:
                break
            if game.is_chance_node:
                game.resolve_chance()
            else:
                seat = game.current_player
                game.apply(bots[seat].choose(game, seat))
            hashes.append(game.state_hash())
        return hashes

    play(game, bots, steps)
    game_copy, bots_copy = pickle.loads(pickle.dumps((game, bots)))
    assert [repr(b) for b in bots_copy] == [repr(b) for b in bots]
    assert play(game_copy, bots_copy, steps) == play(game, bots, steps)


def run_vecgame(v: VecGame, mask: np.ndarray, seed: int, steps: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    outputs = []
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, mask, player, rewards, terminated, truncated = v.step(actions)
        outputs += [obs, player, rewards, terminated, truncated]
    return outputs


@given(seed=st.integers(0, 2**32), before=st.integers(0, 400), learner=st.sampled_from([None, 0, 2]))
def test_a_pickled_vecgame_goes_on_as_the_original(seed, before, learner):
    opponents = ["heuristic", "random", "heuristic"] if learner is not None else None
    v = VecGame(4, players=3, rules=SHORT, seed=seed, learner=learner, opponents=opponents)
    _, mask, _ = v.reset()
    run_vecgame(v, mask, seed, before)
    back = pickle.loads(pickle.dumps(v))
    assert back.to_bytes() == v.to_bytes()
    obs, mask, player = v.observe()
    assert all(np.array_equal(a, b) for a, b in zip((obs, mask, player), back.observe(), strict=True))
    ahead, resumed = run_vecgame(v, mask, seed + 1, 200), run_vecgame(back, mask, seed + 1, 200)
    assert all(np.array_equal(a, b) for a, b in zip(ahead, resumed, strict=True))
    assert [v.game(i).state_hash() for i in range(4)] == [back.game(i).state_hash() for i in range(4)]


def test_gymnasium_env_pickles_and_deep_copies_mid_episode():
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from lanopoly.envs.gymnasium_env import LanopolyEnv

    env = LanopolyEnv(players=3, rules=SHORT, opponents=["random", "heuristic", "random"])
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(150):
        env.step(rng.choice(np.flatnonzero(env.action_masks())))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for _ in range(300):
        action = rng.choice(np.flatnonzero(env.action_masks()))
        expected = env.step(action)
        for other in copies:
            got = other.step(action)
            assert np.array_equal(got[0], expected[0]) and got[1:4] == expected[1:4]
        if expected[2] or expected[3]:
            break


def test_pettingzoo_env_pickles_mid_game():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from lanopoly.envs.pettingzoo_env import env as make_env

    env = make_env(players=3, rules=SHORT)
    env.reset(seed=5)
    rng = np.random.default_rng(5)

    def act(env) -> None:
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    for _ in range(100):
        act(env)
    other = pickle.loads(pickle.dumps(env))
    for _ in range(200):
        if not env.agents:
            break
        assert other.agent_selection == env.agent_selection
        obs, *rest = env.last()
        got, *got_rest = other.last()
        assert np.array_equal(obs["observation"], got["observation"]) and rest[:3] == got_rest[:3]
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        other.step(action)


# --- other processes ------------------------------------------------------------------------------


def finish(job: tuple[Game, list[Bot]]) -> tuple[bytes, Game]:
    """Play a game to its end with its bots (in a worker process); return its hash and itself."""
    game, bots = job
    while not game.is_over:
        if game.is_chance_node:
            game.resolve_chance()
        else:
            seat = game.current_player
            game.apply(bots[seat].choose(game, seat))
    return game.state_hash(), game


def step_batch(v: VecGame) -> bytes:
    """One step of a batch (in a worker process), then the batch as bytes."""
    v.step(np.argmax(v.observe()[1], axis=1))
    return v.to_bytes()


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_process_pool_plays_games_with_every_start_method(method):
    jobs = [(played(seed, 30, players=4), [Bot("heuristic", seed=s) for s in range(4)]) for seed in range(4)]
    local = [finish(copy.deepcopy(job))[0] for job in jobs]
    batch = VecGame(3, players=2, rules=SHORT, seed=9)
    with multiprocessing.get_context(method).Pool(2) as pool:
        remote = pool.map(finish, jobs)
        batches = pool.map(step_batch, [batch, batch])
    assert [h for h, _ in remote] == local
    assert all(game.state_hash() == h and game.is_over for h, game in remote), "the games came back"
    assert batches[0] == batches[1] == step_batch(batch)


def test_async_vector_env_runs_under_spawn():
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    import lanopoly.envs.gymnasium_env  # noqa: F401 (registers the environment)

    envs = gymnasium.make_vec(
        "lanopoly/Lanopoly-v1",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
        players=3,
        rules=SHORT,
    )
    try:
        _, infos = envs.reset(seed=1)
        for _ in range(20):
            actions = np.array([np.flatnonzero(mask)[0] for mask in infos["action_mask"]])
            _, _, _, _, infos = envs.step(actions)
    finally:
        envs.close()
