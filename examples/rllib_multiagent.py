"""PPO on lanopoly under RLlib's multi-agent API: the PettingZoo parallel environment, wrapped by
RLlib's own ``ParallelPettingZooEnv``, every seat an agent.

Seat 0 ("player_0") is played by the policy ``learner``, which PPO trains; the other seats by
``opponent``, a policy of the same shape that is never trained (a fixed random policy over the
legal moves: its initial weights). Both see the action mask: the observation is renamed to the form
RLlib's action-masking models take (``{"observations": ..., "action_mask": ...}``, the mask as
float32), and the models add log(mask) to their logits, so no illegal move is ever sampled. Games
are short (``--rounds``: the richest seat wins after that many rounds). Each training iteration
prints the learner's mean episode return (+1 for a win, -1/(players-1) for a loss; RLlib's mean
over the recent episodes), the opponents', and the episodes that ended and the steps sampled in
the iteration.

    pip install "ray[rllib]" torch
    python examples/rllib_multiagent.py --iterations 5

runs on RLlib's new API stack (RLModules, torch only: RLlib's ``ActionMaskingTorchRLModule``).
Without torch, RLlib's old API stack on TensorFlow 2 (its ``ActionMaskModel``) runs the same
training:

    pip install "ray[rllib]" tensorflow-cpu tf-keras
    python examples/rllib_multiagent.py --framework tf2 --iterations 5

(the example sets ``TF_USE_LEGACY_KERAS=1``: RLlib's TF models are Keras 2 models).

Two CPUs are enough (``--cpus``): one sampling worker, the learner in the driver.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseParallelWrapper

from lanopoly import Rules
from lanopoly.envs.pettingzoo_env import ParallelLanopolyEnv
from lanopoly.rl import ACTION_SIZE

LEARNER, OPPONENT = "learner", "opponent"


class MaskedObservations(BaseParallelWrapper):  # type: ignore[misc]
    """Lanopoly's parallel environment with observations as RLlib's action-masking models read
    them: ``{"observations": float32 vector, "action_mask": float32 0/1 vector}``."""

    def __init__(self, env: ParallelLanopolyEnv) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        assert isinstance(inner, gymnasium.spaces.Dict)
        self._space = gymnasium.spaces.Dict(
            {
                "observations": inner["observation"],
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, shape=(ACTION_SIZE,), dtype=np.float32),
            }
        )

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._space

    @staticmethod
    def _converted(observations: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {
            agent: {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}
            for agent, o in observations.items()
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._converted(observations), infos

    def step(self, actions: dict[str, int]) -> tuple[Any, Any, Any, Any, Any]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return self._converted(observations), rewards, terminations, truncations, infos


def make_env(config: dict[str, Any]) -> Any:
    """The RLlib environment: lanopoly's parallel env, masked, in RLlib's ``ParallelPettingZooEnv``."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    rules = Rules(round_limit=int(config.get("rounds", 10)))
    inner = ParallelLanopolyEnv(players=int(config.get("players", 2)), rules=rules, max_steps=5_000)
    return ParallelPettingZooEnv(MaskedObservations(inner))


def policy_of(agent_id: str, *args: Any, **kwargs: Any) -> str:
    """Seat 0 learns; the others are the untrained opponent."""
    return LEARNER if agent_id == "player_0" else OPPONENT


def config_for(args: argparse.Namespace) -> Any:
    """PPO's configuration: the new API stack with torch, or the old one with TF2."""
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment("lanopoly", env_config={"players": args.players, "rounds": args.rounds})
        # One sampling worker, in its own process, sending 200 steps at a time (a slow sample on a
        # busy machine would otherwise time out and leave an iteration without samples).
        .env_runners(num_env_runners=1, rollout_fragment_length=200, sample_timeout_s=600)
        # No KL penalty: the masked logits (log 0 = the lowest float) make it non-finite.
        .training(train_batch_size=args.batch, lr=3e-4, gamma=0.995, entropy_coeff=0.01, kl_coeff=0.0)
        .debugging(seed=args.seed)
    )
    if args.framework == "torch":
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

        module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [128, 128]})
        return (
            config.framework("torch")
            .training(minibatch_size=256, num_epochs=4)
            .multi_agent(policies={LEARNER, OPPONENT}, policy_mapping_fn=policy_of, policies_to_train=[LEARNER])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module, OPPONENT: module}))
        )
    from ray.rllib.examples._old_api_stack.models.action_mask_model import ActionMaskModel
    from ray.rllib.models import ModelCatalog

    ModelCatalog.register_custom_model("lanopoly_masked", ActionMaskModel)
    return (
        config.api_stack(enable_rl_module_and_learner=False, enable_env_runner_and_connector_v2=False)
        .framework("tf2", eager_tracing=True)
        .training(
            minibatch_size=256, num_epochs=4, model={"custom_model": "lanopoly_masked", "fcnet_hiddens": [128, 128]}
        )
        .multi_agent(policies={LEARNER, OPPONENT}, policy_mapping_fn=policy_of, policies_to_train=[LEARNER])
    )


def returns(result: dict[str, Any]) -> tuple[float, float, int, int]:
    """The learner's and the opponents' mean episode return, the episodes and the env steps of one
    iteration's result (the new stack and the old one name them differently)."""
    runners = result.get("env_runners", {})
    per_policy = runners.get("module_episode_returns_mean") or runners.get("policy_reward_mean") or {}
    episodes = runners.get("num_episodes", runners.get("episodes_this_iter", 0))
    steps = runners.get("num_env_steps_sampled") or result.get("num_env_steps_sampled_this_iter", 0)
    nan = float("nan")  # no episode has ended yet
    return float(per_policy.get(LEARNER, nan)), float(per_policy.get(OPPONENT, nan)), int(episodes), int(steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--framework", choices=["torch", "tf2"], default="torch")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10, help="round limit of each game")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.framework == "tf2":
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # RLlib's TF models are Keras 2 models

    import ray
    from ray.tune.registry import register_env

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    register_env("lanopoly", make_env)
    algo = config_for(args).build_algo()
    start = time.monotonic()
    for iteration in range(1, args.iterations + 1):
        learner, opponent, episodes, steps = returns(algo.train())
        print(
            f"iteration {iteration}: learner return {learner:+.3f}, opponent return {opponent:+.3f}, "
            f"{episodes} episodes, {steps} steps, {time.monotonic() - start:.0f} s",
            flush=True,
        )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
