"""Synthetic cellular links as mahimahi delivery traces, so tests and
examples need no downloaded data.

The model is Sprout's (Winstein, Sivaraman & Balakrishnan, "Stochastic
forecasts achieve high throughput and low delay over cellular networks",
NSDI 2013, §3.1), with the constants of the authors' code
(github.com/keithw/sprout, src/sprout/receiver.hh and process.cc):

- the link delivers MTU-sized packets as a Poisson process of rate λ
  (packets/s), here one delivery opportunity of 1504 bytes per packet;
- λ moves as Brownian motion, Δλ ~ N(0, σ²·Δt), with σ = 300 packets/s per
  √s (`BROWNIAN_MOTION_RATE`), kept within [0, λ_max = 2000 packets/s]
  (`MAX_ARRIVAL_RATE`; 2000 × 1504 B ≈ 24 Mb/s);
- λ = 0 is an outage, left with probability 1 − e^{−λ_z·Δt} per step,
  λ_z = 5 /s (`OUTAGE_ESCAPE_RATE`): outages last 1/λ_z = 0.2 s on average;
  on leaving, λ takes the positive half of the same Gaussian step.

Sprout's receiver evolves λ every 20 ms (`TICK_LENGTH`) over a discretised
distribution; the generator draws one path of that process with the same
step, λ constant within a step. A draw below 0 enters an outage; a draw
above λ_max is held at λ_max (Sprout's bins end there)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ScenarioError

MODELS = ("sprout",)


@dataclass(frozen=True)
class SproutModel:
    max_rate: float = 2000.0  # packets/s (MAX_ARRIVAL_RATE)
    sigma: float = 300.0  # packets/s per sqrt(s) (BROWNIAN_MOTION_RATE)
    escape_rate: float = 5.0  # 1/s (OUTAGE_ESCAPE_RATE)
    tick_ms: int = 20  # TICK_LENGTH
    initial_rate: float = 1000.0  # packets/s at time 0


def sprout_path(duration_ms: int, seed: int, m: SproutModel = SproutModel()) -> tuple[np.ndarray, np.ndarray]:
    """(λ per tick in packets/s, deliveries per millisecond) of one draw."""
    rng = np.random.Generator(np.random.PCG64(seed))
    ticks = math.ceil(duration_ms / m.tick_ms)
    dt = m.tick_ms / 1000.0
    sd = m.sigma * math.sqrt(dt)
    p_escape = 1.0 - math.exp(-m.escape_rate * dt)
    lam = np.empty(ticks)
    x = min(max(m.initial_rate, 0.0), m.max_rate)
    steps = rng.normal(0.0, sd, ticks)
    escapes = rng.random(ticks)
    for k in range(ticks):
        lam[k] = x
        if x == 0.0:
            x = abs(steps[k]) if escapes[k] < p_escape else 0.0
        else:
            x = x + steps[k]
            x = 0.0 if x <= 0.0 else min(x, m.max_rate)
    per_ms = np.repeat(lam, m.tick_ms)[:duration_ms] / 1000.0
    counts = rng.poisson(per_ms)
    return lam, counts


def to_mahimahi(counts: np.ndarray) -> str:
    """mahimahi's format: the millisecond of each opportunity, one per line
    (ms k for the k-th millisecond, counting from 1)."""
    ms = np.repeat(np.arange(1, len(counts) + 1), counts)
    return "".join(f"{t}\n" for t in ms.tolist())


def generate(model: str, duration_ms: int, seed: int, **params) -> str:
    if model not in MODELS:
        raise ScenarioError("--model", model, f"one of {', '.join(MODELS)}")
    m = SproutModel(**params)
    if m.max_rate <= 0 or m.sigma < 0 or m.escape_rate < 0 or m.tick_ms < 1 or not 0 <= m.initial_rate <= m.max_rate:
        raise ScenarioError(
            "model", str(params), "max_rate > 0, sigma ≥ 0, escape_rate ≥ 0, tick_ms ≥ 1, 0 ≤ initial_rate ≤ max_rate"
        )
    _, counts = sprout_path(duration_ms, seed, m)
    if counts.sum() == 0:
        raise ScenarioError(
            "--duration",
            f"{duration_ms}ms",
            "a duration in which the link delivers something (this seed drew a trace that is all outage)",
        )
    return to_mahimahi(counts)
