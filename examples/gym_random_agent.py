"""A random agent in ccsim's Gymnasium environment (Aurora's observation,
action and reward on a 12 Mb/s, 50 ms link): the smallest loop to start from.

    python examples/gym_random_agent.py
"""

import ccsim.gym  # noqa: F401  (registers ccsim/CongestionControl-v0)
import gymnasium

env = gymnasium.make("ccsim/CongestionControl-v0")
obs, info = env.reset(seed=1)
total, steps = 0.0, 0
while True:
    action = env.np_random.uniform(-1, 1, size=1).astype("float32")  # a in [-1, 1]: rate × 1.025 ... / 1.025
    obs, reward, terminated, truncated, info = env.step(action)
    total, steps = total + reward, steps + 1
    if terminated or truncated:
        break
print(f"{steps} steps, total reward {total:.1f}, last rate {info['rate_bps'] / 1e6:.2f} Mb/s")
