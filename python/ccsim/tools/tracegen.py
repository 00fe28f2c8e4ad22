"""Synthetic cellular links as mahimahi delivery traces, so tests and
examples need no downloaded data.

The model is Sprout's (Winstein, Sivaraman & Balakrishnan, "Stochastic
forecasts achieve high throughput and low delay over cellular networks",
NSDI 2013, §3.1), with the constants of the authors' code as evaluated:
github.com/keithw/sprout, tag `evaluated-final` (commit 0f14b4ef, 2013-02-19;
the same at `evaluated` and on master), src/sprout/receiver.hh:

- the link delivers MTU-sized packets as a Poisson process of rate λ
  (packets/s), here one delivery opportunity of 1504 bytes per packet;
- λ moves as Brownian motion, Δλ ~ N(0, σ²·Δt), with σ = 200 packets/s per
  √s (`BROWNIAN_MOTION_RATE`), kept within [0, λ_max = 1000 packets/s]
  (`MAX_ARRIVAL_RATE`; 1000 × 1504 B ≈ 12 Mb/s);
- λ = 0 is an outage, left with probability 1 − e^{−λ_z·Δt} per step,
  λ_z = 1 /s (`OUTAGE_ESCAPE_RATE`): outages last 1/λ_z = 1 s on average;
  on leaving, λ takes the positive half of the same Gaussian step.

Sprout's receiver evolves λ every 20 ms (`TICK_LENGTH`) over a discretised
distribution; the generator draws one path of that process with the same
step, λ constant within a step, starting from λ_max/2. A draw below 0
enters an outage; a draw above λ_max is held at λ_max (Sprout's bins end
there). `--model sprout-2012-09` keeps the constants of the repository's
first commits (2000, 300 and 5; 46237b0 to 66be829, September 2012), which
the evaluation did not use."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ScenarioError


@dataclass(frozen=True)
class SproutModel:
    max_rate: float = 1000.0  # packets/s (MAX_ARRIVAL_RATE)
    sigma: float = 200.0  # packets/s per sqrt(s) (BROWNIAN_MOTION_RATE)
    escape_rate: float = 1.0  # 1/s (OUTAGE_ESCAPE_RATE)
    tick_ms: int = 20  # TICK_LENGTH
    initial_rate: float = 500.0  # packets/s at time 0: half of max_rate


# The presets: the evaluated code's constants, and the first commits'.
PRESETS: dict[str, SproutModel] = {
    "sprout": SproutModel(),
    "sprout-2012-09": SproutModel(max_rate=2000.0, sigma=300.0, escape_rate=5.0, initial_rate=1000.0),
}
MODELS = tuple(PRESETS)
# The longest trace drawn: 3 hours (the arrays are per millisecond; a
# mahimahi trace repeats, so a longer link needs no longer file).
MAX_DURATION_MS = 3 * 3600 * 1000
# What the CLI calls each parameter, for errors in the user's words.
FLAGS = {"max_rate": "--max-rate", "sigma": "--sigma", "escape_rate": "--escape-rate", "initial_rate": "--initial-rate"}


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


def generate(model: str, duration_ms: int, seed: int, **params: Any) -> str:
    """A trace of `model` (a preset name) with some parameters replaced;
    every bad value is refused naming its flag, and a trace larger than a
    scenario may read (`max_file_bytes`) is refused before it is drawn."""
    import dataclasses

    from ..scenario._check import max_file_bytes

    if model not in MODELS:
        raise ScenarioError("--model", model, f"one of {', '.join(MODELS)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ScenarioError("--seed", seed, "a whole number from 0 to 2^64 − 1")
    if not 1 <= duration_ms <= MAX_DURATION_MS:
        raise ScenarioError("--duration", f"{duration_ms}ms", f"a duration up to {MAX_DURATION_MS // 3_600_000} h")
    for k, v in params.items():
        if k not in FLAGS:
            raise ScenarioError(k, message=f"{k}: not a parameter of the model; expected one of {', '.join(FLAGS)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ScenarioError(FLAGS[k], v, "a finite number")
    m = dataclasses.replace(PRESETS[model], **params)
    if "max_rate" in params and "initial_rate" not in params:
        m = dataclasses.replace(m, initial_rate=m.max_rate / 2)
    for k, ok, want in (
        ("max_rate", m.max_rate > 0, "a rate above 0 (packets/s)"),
        ("sigma", m.sigma >= 0, "≥ 0 (packets/s per √s)"),
        ("escape_rate", m.escape_rate >= 0, "≥ 0 (per second)"),
        ("initial_rate", 0 <= m.initial_rate <= m.max_rate, f"between 0 and the largest rate, {m.max_rate:g}"),
    ):
        if not ok:
            raise ScenarioError(FLAGS[k], getattr(m, k), want)
    # one line per opportunity, at most max_rate of them per second
    worst = m.max_rate * duration_ms / 1000 * (len(str(duration_ms)) + 1)
    if worst > max_file_bytes():
        raise ScenarioError(
            "--duration",
            message=(
                f"--duration: {duration_ms / 1000:g} s at up to {m.max_rate:g} packets/s could write "
                f"{worst / 1e6:.0f} MB, more than a scenario reads ({max_file_bytes() / 1e6:.0f} MB, "
                "CCSIM_MAX_FILE_BYTES); a trace repeats, so a shorter one serves a longer run"
            ),
        )
    _, counts = sprout_path(duration_ms, seed, m)
    if counts.sum() == 0:
        raise ScenarioError(
            "--duration",
            f"{duration_ms}ms",
            "a duration in which the link delivers something (this seed drew a trace that is all outage)",
        )
    return to_mahimahi(counts)
