"""Every call that plays bots returns: an input cap with a truncation signal, the learner's
bankruptcy ending its episode, and Ctrl-C stopping long Rust loops.

A call that hangs would hang the suite, so those checks run in a child process with a timeout.
"""

from __future__ import annotations

import subprocess
import textwrap

import numpy as np

from conftest import PYTHON
from lanopoly.rl import VecGame

# Issue 17's reproduction: random masked actions against random bots; in episode 7 the learner
# declares bankruptcy and the step used to play the bots' endless game out.
ISSUE_17_EPISODES = """
import numpy as np
from lanopoly.envs.gymnasium_env import LanopolyEnv

env = LanopolyEnv(opponents="random")
rng = np.random.default_rng(0)
for episode in range(8):
    env.reset(seed=episode)
    done = False
    while not done:
        action = rng.choice(np.flatnonzero(env.action_masks()))
        _, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    print(episode, action, reward, terminated, truncated)
"""


def run_child(code: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run Python code in a child process; a hang fails the test after ``timeout`` seconds."""
    try:
        return subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"the child did not finish in {timeout} s (a call hangs)") from e


def test_the_learners_bankruptcy_ends_its_episode_at_once():
    lines = run_child(ISSUE_17_EPISODES, timeout=120).stdout.splitlines()
    assert len(lines) == 8
    episode, action, reward, terminated, truncated = lines[7].split()
    assert episode == "7"
    assert action == "8", "the learner declared bankruptcy (action 8) last"
    assert (np.float32(reward), terminated, truncated) == (np.float32(-1 / 3), "True", "False")


def test_a_game_is_cut_at_max_inputs_with_a_truncation_signal():
    v = VecGame(4, players=4, seed=1, learner=0, opponents=["random"], max_inputs=300)
    assert v.max_inputs == 300
    v.autoreset = False
    _, mask, _ = v.reset()
    rng = np.random.default_rng(2)
    for _ in range(2_000):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        _, mask, _, rewards, terminated, truncated = v.step(actions)
        if truncated.any():
            break
        assert not terminated.any(), "no game ends within 300 inputs"
    cut = int(np.flatnonzero(truncated)[0])
    game = v.game(cut)
    assert game.step >= 300 and not game.is_over
    assert not rewards[cut].any()


def test_ctrl_c_stops_a_simulation_at_once():
    """SIGINT while ``simulate`` runs far too many games in Rust (GIL released, two threads)
    raises KeyboardInterrupt promptly; it used to be ignored until the run ended."""
    code = textwrap.dedent(
        """
        import os, signal, threading, time
        from lanopoly import _core

        # Python's own Ctrl-C handler, even if this process started with SIGINT ignored (as a
        # background job of a shell does).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sent = []
        def interrupt():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        threading.Timer(0.5, interrupt).start()
        try:
            _core.simulate(2**31, players=4, bots=["random"], threads=2, max_inputs=2**32 - 1)
        except KeyboardInterrupt:
            print(time.monotonic() - sent[0])
        """
    )
    latency = float(run_child(code, timeout=60).stdout)
    # Measured about 10 ms (the check runs every few thousand inputs and every 10 ms of waiting);
    # the bound leaves room for a loaded, shared machine.
    assert latency < 1.0, f"KeyboardInterrupt came {latency:.3f} s after SIGINT"
