"""A small hand-written policy in ccsim's Gymnasium environment that beats a
constant-rate sender on the default scenario (12 Mb/s, 50 ms, 1 BDP buffer):
raise the rate while the RTT stays near its minimum and nothing is lost,
lower it as soon as the queue grows or a packet is lost.

    python examples/gym_policy.py
"""

import ccsim.gym
import gymnasium
import numpy as np
from ccsim.gym import FEATURES


def policy(obs: np.ndarray) -> np.ndarray:
    last = dict(zip(FEATURES, obs[-len(FEATURES) :]))  # the latest interval
    if last["loss_rate"] > 0 or last["latency_ratio"] > 1.10:
        return np.array([-4.0], dtype=np.float32)  # rate / 1.1
    if last["sent_latency_inflation"] > 0.02:
        return np.array([0.0], dtype=np.float32)
    return np.array([2.0], dtype=np.float32)  # rate · 1.05


def episode(act) -> tuple[float, dict]:
    env = gymnasium.make(ccsim.gym.ENV_ID)
    obs, info = env.reset(seed=1)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(act(obs))
        total += reward
        if terminated or truncated:
            return total, info


if __name__ == "__main__":
    constant, _ = episode(lambda obs: np.zeros(1, dtype=np.float32))
    mine, info = episode(policy)
    print(f"constant 3 Mb/s: total reward {constant:.0f}")
    print(f"policy:          total reward {mine:.0f} (final rate {info['rate_bps'] / 1e6:.1f} Mb/s)")
