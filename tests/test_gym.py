"""The Gymnasium environment (ccsim.gym): Gymnasium's own checker, seeded
determinism, vector environments, and the controlled flow held to the rate
the agent sets (an outside reference: below the link's rate nothing queues
or is lost, and the delivery rate is the rate sent)."""

import subprocess
import sys
from pathlib import Path
from typing import Any

import ccsim.gym
import gymnasium
import numpy as np
import polars as pl
import pytest
from ccsim.gym import FEATURES, CongestionControlEnv
from ccsim.studies.base import num
from gymnasium.utils.env_checker import check_env

ROOT = Path(__file__).resolve().parent.parent


def short(**kw: Any) -> CongestionControlEnv:
    sc = ccsim.gym.default_scenario()
    sc["sim"]["duration"] = "5s"
    return CongestionControlEnv(scenario=sc, **kw)


def env_links(env: Any) -> pl.DataFrame:
    """The links table of the environment's finished episode."""
    from ccsim.analysis.results import Result

    return Result(env._scenario, env._sim.finish(), 0, 0).links


def rollout(env: Any, actions: list[Any], seed: int) -> list[Any]:
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for a in actions:
        obs, r, term, trunc, info = env.step(np.array([a], dtype=np.float32))
        out.append((obs, r, info))
        if term or trunc:
            break
    return out


def test_gymnasium_checker_passes() -> None:
    check_env(short())


def test_registered_and_made_by_id() -> None:
    env = gymnasium.make(ccsim.gym.ENV_ID, scenario=ccsim.gym.default_scenario(), history=3)
    assert env.observation_space.shape == (3 * len(FEATURES),)


def test_seeded_episodes_are_identical() -> None:
    acts = list(np.random.default_rng(0).uniform(-3, 3, 80))
    a = rollout(short(), acts, seed=7)
    b = rollout(short(), acts, seed=7)
    assert len(a) == len(b) > 50
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x[0], y[0]) and x[1] == y[1] and x[2] == y[2]


def test_a_constant_rate_below_the_link_is_delivered_without_queue_or_loss() -> None:
    env = short(initial_rate="3Mbps")
    steps = rollout(env, [0.0] * 10_000, seed=1)
    infos = [s[2] for s in steps[1:]]
    late = [i for i in infos if i["now_s"] > 1.0]
    delivered = sum(i["delivered"] for i in late) * 1448 * 8
    span = late[-1]["now_s"] - late[0]["now_s"] + late[0]["interval_s"]
    # the pacing rate counts payload bytes, as Linux's does (tcp_update_skb_after_send
    # spaces departures by skb->len of the data, headers not included)
    assert delivered / span == pytest.approx(3e6, rel=0.02)
    assert sum(i["lost"] for i in infos) == 0
    # No standing queue at a quarter of the link: the most the link ever holds
    # is the first flight (10 segments sent at once, unpaced as Linux's first
    # 10, one of them in service). After it, the feature (mean RTT − smallest
    # RTT) shows at most one burst gap: a delayed ACK may pair the last
    # segment of a 2-segment TSO burst with the first of the next, whose RTT
    # sample then includes the 2·1448 B / 3 Mb/s between them; a standing
    # queue would add to that.
    lk = env_links(env)
    assert num(lk["max_queue_pkts"].max()) <= 10 - 1
    burst_gap = 2 * 1448 * 8 / 3e6
    assert max(i["queue_delay_s"] for i in late) <= burst_gap + 1500 * 8 / 12e6


def test_window_action_scales_the_window() -> None:
    env = short(action="window", initial_window=10)
    env.reset(seed=1)
    _, _, _, _, info = env.step(np.array([4.0], dtype=np.float32))  # × 1.1
    assert info["window"] == 11
    _, _, _, _, info = env.step(np.array([-4.0], dtype=np.float32))  # / 1.1
    assert info["window"] == 10


@pytest.mark.parametrize("vec", [gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv])
def test_vector_envs(vec: type[Any]) -> None:
    envs = vec([lambda: short(history=2) for _ in range(2)])
    obs, _ = envs.reset(seed=[3, 3])
    assert obs.shape == (2, 2 * len(FEATURES))
    for _ in range(5):
        obs, r, term, trunc, info = envs.step(np.zeros((2, 1), dtype=np.float32))
    assert np.array_equal(obs[0], obs[1]) and r[0] == r[1]
    envs.close()


def test_bad_arguments_name_the_argument() -> None:
    with pytest.raises(ccsim.ScenarioError, match="action"):
        short(action="speed")
    with pytest.raises(ccsim.ScenarioError, match="interval"):
        short(interval="xrtt")
    with pytest.raises(ccsim.ScenarioError, match="features"):
        short(features=("nope",))
    with pytest.raises(ccsim.ScenarioError, match="flow"):
        short(flow=3)


def test_the_example_policy_beats_a_constant_rate_sender() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "gym_policy.py")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    totals = [float(line.split("total reward")[1].split()[0]) for line in p.stdout.splitlines()]
    assert totals[1] > 1.5 * totals[0]


def test_random_agent_example_runs() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "gym_random_agent.py")], capture_output=True, text=True)
    assert p.returncode == 0 and "steps, total reward" in p.stdout, p.stderr


def test_zero_intervals_and_bad_step_counts_are_refused() -> None:
    for kw in ({"interval": "0ms"}, {"first_interval": "0s"}, {"interval": "0rtt"}):
        with pytest.raises(ccsim.ScenarioError, match=next(iter(kw))):
            short(**kw)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ccsim.ScenarioError, match="max_steps"):
            short(max_steps=bad)


def test_an_action_beyond_the_bound_is_clipped_to_it() -> None:
    # bound 4 at α = 0.025: one step changes the rate by at most 10 %
    env = short(action_bound=4.0, initial_rate="3Mbps")
    env.reset(seed=1)
    _, _, _, _, info = env.step(np.array([1e6], dtype=np.float32))
    assert info["rate_bps"] == pytest.approx(3e6 * 1.1)
    _, _, _, _, info = env.step(np.array([-1e6], dtype=np.float32))
    assert info["rate_bps"] == pytest.approx(3e6)


def test_aurora_randomised_links_and_a_step_count_episode() -> None:
    """Aurora's training set-up (PCC-RL network_sim.py): every reset draws a
    link within the ranges; the episode ends after max_steps (400 there)."""
    env = CongestionControlEnv(randomize_link=True, max_steps=50)
    lo, hi = ccsim.gym.AURORA_LINK_RANGES["rate_pps"], ccsim.gym.AURORA_LINK_RANGES["delay_s"]
    links = []
    for seed in (1, 2, 3):
        _, info = env.reset(seed=seed)
        lk = info["link"]
        links.append(lk)
        assert lo[0] * 1500 * 8 <= lk["rate_bps"] <= lo[1] * 1500 * 8
        assert hi[0] <= lk["delay_s"] <= hi[1]
        assert 2 <= lk["buffer_pkts"] <= 1 + int(np.exp(8.0)) and 0 <= lk["loss"] <= 0.05
        assert 0.3 * lk["rate_bps"] <= lk["initial_rate_bps"] <= 1.5 * lk["rate_bps"]
        # the run really has that link: a slow constant rate is delivered
        # after RTT = 2 · delay and loses about the drawn share
        n, truncated = 0, False
        while not truncated:
            _, _, terminated, truncated, step = env.step(np.array([0.0], dtype=np.float32))
            n += 1
            assert not terminated
        assert n == 50
    assert len({lk["rate_bps"] for lk in links}) == 3
    _, again = env.reset(seed=2)
    assert again["link"] == links[1]
    with pytest.raises(ccsim.ScenarioError, match="randomize_link"):
        CongestionControlEnv(scenario=ccsim.gym.default_scenario(), randomize_link=True)
    with pytest.raises(ccsim.ScenarioError, match="randomize_link.loss"):
        CongestionControlEnv(randomize_link={"loss": (0.2, 0.1)})


def test_an_aurora_link_draw_gives_its_rtt_and_loss() -> None:
    # a drawn link with no loss range and a fixed delay: the smallest RTT is
    # 2 · delay plus one packet's serialisation; with loss fixed at 5 % the
    # lost share of a long episode is near 1 − 0.95 (a data packet's chance)
    env = CongestionControlEnv(
        randomize_link={"delay_s": (0.1, 0.1), "loss": (0.0, 0.0), "initial_rate_share": (0.3, 0.3)},
        max_steps=60,
    )
    _, info = env.reset(seed=4)
    ser = 1500 * 8 / info["link"]["rate_bps"]
    rtts = []
    for _ in range(60):
        _, _, _, _, mi = env.step(np.array([0.0], dtype=np.float32))
        if mi["rtt_min_s"] > 0:
            rtts.append(mi["rtt_min_s"])
    assert min(rtts) == pytest.approx(0.2 + ser, abs=ser)
    env = CongestionControlEnv(randomize_link={"loss": (0.05, 0.05), "initial_rate_share": (0.3, 0.3)}, max_steps=300)
    env.reset(seed=5)
    lost = delivered = 0
    for _ in range(300):
        _, _, _, _, mi = env.step(np.array([0.0], dtype=np.float32))
        lost += mi["lost"]
        delivered += mi["delivered"]
    assert lost / (lost + delivered) == pytest.approx(0.05, abs=0.02)
