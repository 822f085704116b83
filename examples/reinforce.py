"""REINFORCE in numpy against lanopoly's built-in bots: learning that works out of the box.

A linear softmax policy over the observation (legal actions only, by the action mask) plays seat
0 of ``--envs`` games against three bots in the vector environment (``LanopolyVectorEnv``) with
the shaped reward (``reward_shaping``: the change of the learner's share of all net worth) and
the flat action space without trade composition (``trading=False``). Every finished episode
gives its discounted returns; every ``--batch`` episodes, one Adam step on the policy gradient
with the batch's mean return per step as the baseline.

Then it evaluates the trained policy, the untrained one (its initial weights) and the
uniform-random policy on the same evaluation games (fixed seeds, apart from the training seeds):
win rates against three random bots and against three heuristic bots.

    python examples/reinforce.py --steps 100000 --seed 1

Only numpy and lanopoly (with gymnasium, for the vector environment).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

import lanopoly
from lanopoly.envs.vector_env import LanopolyVectorEnv
from lanopoly.rl import OBSERVATION_SIZE, TRADE_ACTIONS_START, VecGame

ACTIONS = TRADE_ACTIONS_START
"""The flat action space (``trading=False``): every action but trade composition."""
EVALUATION_SEED = 1_000_003
"""Seeds the evaluation games: the same games for every policy, none of them a training game."""
Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[Any]
"""A legality mask: bool (``VecGame``) or int8 (the environments)."""


def rules(round_limit: int) -> lanopoly.Rules:
    """The official rules, with a round limit (the richest seat wins then) so every game ends."""
    return lanopoly.Rules(round_limit=round_limit)


@dataclass
class Policy:
    """A linear softmax policy: ``logits = features(obs) @ weights + bias`` over the legal actions."""

    weights: Floats
    bias: Floats

    @classmethod
    def initial(cls, seed: int, scale: float = 0.01) -> Policy:
        """Small random weights: about the uniform policy over the legal actions."""
        rng = np.random.default_rng(seed)
        weights = rng.normal(0.0, scale, (OBSERVATION_SIZE, ACTIONS)).astype(np.float32)
        return cls(weights, np.zeros(ACTIONS, np.float32))

    def copy(self) -> Policy:
        return Policy(self.weights.copy(), self.bias.copy())

    def probabilities(self, obs: npt.NDArray[np.float32], mask: Mask) -> Floats:
        """Action probabilities per row, 0 where the mask forbids."""
        x = features(obs)
        if len(x) <= 64:  # acting: sum the weight rows of the ~55 nonzero entries (of 975) per row
            rows, cols = np.nonzero(x)
            starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
            logits = np.zeros((len(x), ACTIONS), np.float32)
            logits[rows[starts]] = np.add.reduceat(x[rows, cols, None] * self.weights[cols], starts)
            logits += self.bias
        else:  # a batch of episodes: one matrix product
            logits = x @ self.weights + self.bias
        logits = np.where(mask[:, :ACTIONS] > 0, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return p

    def act(self, obs: npt.NDArray[np.float32], mask: Mask, rng: np.random.Generator) -> Ints:
        """Sample one action per row."""
        return sample(self.probabilities(obs, mask), rng)


def features(obs: npt.NDArray[np.float32]) -> Floats:
    """The observation with money clipped (it is in thousands and has no bound)."""
    return np.minimum(obs, np.float32(4.0))


def sample(p: Floats, rng: np.random.Generator) -> Ints:
    """One index per row of ``p``, drawn with its probabilities."""
    cumulative = p.cumsum(axis=1)
    u = rng.random((p.shape[0], 1)) * cumulative[:, -1:]
    index: Ints = np.minimum((cumulative <= u).sum(axis=1), p.shape[1] - 1).astype(np.int64)
    return index


def uniform(mask: Mask, rng: np.random.Generator) -> Ints:
    """A uniformly random legal action per row."""
    return sample((mask[:, :ACTIONS] > 0).astype(np.float32), rng)


@dataclass
class Adam:
    """Adam on the policy's parameters (gradient ascent)."""

    lr: float
    m: list[Floats] = field(default_factory=list)
    v: list[Floats] = field(default_factory=list)
    t: int = 0

    def step(self, params: list[Floats], grads: list[Floats], b1: float = 0.9, b2: float = 0.999) -> None:
        if not self.m:
            self.m = [np.zeros_like(p) for p in params]
            self.v = [np.zeros_like(p) for p in params]
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p += self.lr * (m / (1 - b1**self.t)) / (np.sqrt(v / (1 - b2**self.t)) + 1e-8)


@dataclass
class Episode:
    """One game's learner steps, kept until it ends."""

    obs: list[npt.NDArray[np.float32]] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


def returns(rewards: list[float], gamma: float) -> Floats:
    """Discounted return from every step."""
    out = np.zeros(len(rewards), np.float32)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def gradient(policy: Policy, episodes: list[Episode], gamma: float) -> tuple[list[Floats], float]:
    """The REINFORCE gradient over finished episodes (per step, mean return as baseline), and
    the episodes' mean undiscounted return."""
    obs = np.concatenate([np.asarray(e.obs) for e in episodes])
    masks = np.concatenate([np.asarray(e.masks) for e in episodes])
    actions = np.concatenate([np.asarray(e.actions) for e in episodes])
    g = np.concatenate([returns(e.rewards, gamma) for e in episodes])
    advantage = (g - g.mean()) / (g.std() + 1e-8)
    p = policy.probabilities(obs, masks)
    p[np.arange(len(actions)), actions] -= 1.0  # -(onehot - p): the gradient of -log pi
    dlogits = -p * advantage[:, None] / len(actions)
    grads = [features(obs).T @ dlogits, dlogits.sum(axis=0)]
    return grads, float(np.mean([sum(e.rewards) for e in episodes]))


def train(
    steps: int,
    seed: int,
    envs: int = 32,
    lr: float = 0.05,
    batch: int = 8,
    gamma: float = 0.995,
    shaping: float = 1.0,
    opponents: str = "random",
    round_limit: int = 150,
    log: Callable[[str], None] = print,
) -> tuple[Policy, Policy]:
    """Train for ``steps`` learner steps (all games together); returns (untrained, trained)."""
    env = LanopolyVectorEnv(
        envs, opponents=opponents, trading=False, reward_shaping=shaping, rules=rules(round_limit), copy=False
    )
    rng = np.random.default_rng(seed)
    untrained = Policy.initial(seed)
    policy, adam = untrained.copy(), Adam(lr)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"]
    running = [Episode() for _ in range(envs)]
    done_episodes: list[Episode] = []
    wins, ended, updates, start, taken = 0, 0, 0, time.monotonic(), 0
    while taken < steps:
        actions = policy.act(obs, mask, rng)
        for i, e in enumerate(running):
            e.obs.append(obs[i].copy())
            e.masks.append(mask[i].copy())
            e.actions.append(int(actions[i]))
        obs, reward, terminated, truncated, info = env.step(actions)
        mask = info["action_mask"]
        taken += envs
        for i, e in enumerate(running):
            e.rewards.append(float(reward[i]))
        for i in np.flatnonzero(terminated | truncated).tolist():
            done_episodes.append(running[i])
            running[i] = Episode()
            ended += 1
            wins += bool(terminated[i] and reward[i] > 0)  # a win's terminal reward is +1
        if len(done_episodes) >= batch:
            grads, mean_return = gradient(policy, done_episodes, gamma)
            adam.step([policy.weights, policy.bias], grads)
            done_episodes, updates = [], updates + 1
            if updates % 10 == 0:
                rate = taken / (time.monotonic() - start)
                log(
                    f"steps {taken:>9,}  episodes {ended:>6,}  wins {wins / max(ended, 1):5.1%}  "
                    f"mean return {mean_return:+.3f}  ({rate:,.0f} steps/s)"
                )
                wins, ended = 0, 0
    return untrained, policy


Chooser = Callable[[npt.NDArray[np.float32], Mask, np.random.Generator], Ints]


def evaluate(choose: Chooser, opponents: str, games: int, round_limit: int = 150, max_steps: int = 5_000) -> float:
    """Win rate of a policy in seat 0 against three ``opponents`` over the evaluation games
    (the same games, bots' choices and chance for every policy that plays the same moves)."""
    vec = VecGame(
        games,
        rules=rules(round_limit),
        seed=EVALUATION_SEED,
        learner=0,
        opponents=[opponents],
        max_steps=max_steps,
    )
    vec.autoreset = False
    obs, mask, _ = vec.reset()
    rng = np.random.default_rng(EVALUATION_SEED)
    live = np.ones(games, np.bool_)
    won = np.zeros(games, np.bool_)
    actions = np.full(games, -1, np.int64)  # -1: a finished game stays as it is
    while live.any():
        actions[live] = choose(obs[live], mask[live], rng)
        obs, mask, _, rewards, terminated, truncated = vec.step(actions)
        won |= live & terminated & (rewards[:, 0] > 0)
        live &= ~(terminated | truncated)
        actions[~live] = -1
    return float(won.mean())


def report(policies: dict[str, Chooser], games: int, round_limit: int) -> dict[str, dict[str, float]]:
    """Win rates of each policy against random and against heuristic bots."""
    table = {
        name: {opp: evaluate(choose, opp, games, round_limit) for opp in ("random", "heuristic")}
        for name, choose in policies.items()
    }
    print(f"win rate over {games} evaluation games (seat 0 of 4, {round_limit}-round limit):")
    print(f"  {'policy':<10} {'vs 3 random':>12} {'vs 3 heuristic':>15}")
    for name, rates in table.items():
        print(f"  {name:<10} {rates['random']:>12.1%} {rates['heuristic']:>15.1%}")
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps, all games together")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--envs", type=int, default=32, help="games played at once")
    parser.add_argument("--lr", type=float, default=0.05, help="Adam's learning rate (0: no learning)")
    parser.add_argument("--batch", type=int, default=8, help="episodes per update")
    parser.add_argument("--shaping", type=float, default=1.0, help="reward_shaping of the environment")
    parser.add_argument("--opponents", default="random", help="the bots trained against")
    parser.add_argument("--round-limit", type=int, default=150, help="rounds after which the richest wins")
    parser.add_argument("--eval-games", type=int, default=200, help="evaluation games per opponent kind")
    args = parser.parse_args(argv)
    untrained, trained = train(
        args.steps,
        args.seed,
        envs=args.envs,
        lr=args.lr,
        batch=args.batch,
        shaping=args.shaping,
        opponents=args.opponents,
        round_limit=args.round_limit,
    )
    report(
        {"trained": trained.act, "untrained": untrained.act, "uniform": lambda obs, mask, rng: uniform(mask, rng)},
        args.eval_games,
        args.round_limit,
    )


if __name__ == "__main__":
    main()
