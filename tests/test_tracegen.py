"""The synthetic cellular trace generator against Sprout's model (Winstein,
Sivaraman & Balakrishnan, NSDI 2013; constants of github.com/keithw/sprout
src/sprout/receiver.hh): Brownian rate steps of σ·√Δt, outages left at rate
λ_z, Poisson deliveries at the rate; and the command that writes it."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
from ccsim import Builder
from ccsim.tools.tracegen import SproutModel, generate, sprout_path
from conftest import ROOT


def test_the_rate_moves_as_brownian_motion_with_sticky_outages():
    m = SproutModel()
    lam, counts = sprout_path(2_000_000, seed=3, m=m)  # 2000 s, 100,000 ticks
    dt = m.tick_ms / 1000
    # Steps between two ticks with the rate inside (0, max): N(0, σ²Δt).
    a, b = lam[:-1], lam[1:]
    inside = (a > 0) & (b > 0) & (b < m.max_rate) & (a < m.max_rate)
    d = (b - a)[inside]
    assert len(d) > 20_000
    assert abs(d.std() / (m.sigma * math.sqrt(dt)) - 1) < 0.03, d.std()
    assert abs(d.mean()) < 4 * d.std() / math.sqrt(len(d))
    # Outages: each tick left with p = 1 − e^{−λ_z Δt}, so they last Δt/p on
    # average (0.210 s; 1/λ_z = 0.2 s in continuous time).
    zero = np.concatenate([[0], (lam == 0).astype(int), [0]])
    starts, ends = np.flatnonzero(np.diff(zero) == 1), np.flatnonzero(np.diff(zero) == -1)
    runs = (ends - starts) * dt
    p = 1 - math.exp(-m.escape_rate * dt)
    assert len(runs) > 200
    assert abs(runs.mean() / (dt / p) - 1) < 0.15, (runs.mean(), dt / p)
    # Deliveries: Poisson at the rate, per millisecond.
    expected = np.repeat(lam, m.tick_ms).sum() / 1000
    assert abs(counts.sum() - expected) < 5 * math.sqrt(expected)
    assert lam.max() <= m.max_rate and lam.min() == 0


def test_the_same_seed_gives_the_same_trace_and_the_example_trace_is_seed_1():
    a, b, c = generate("sprout", 5000, 7), generate("sprout", 5000, 7), generate("sprout", 5000, 8)
    assert a == b and a != c
    example = (ROOT / "examples" / "traces" / "sprout_seed1_60s.trace").read_text()
    assert example == generate("sprout", 60_000, 1)


def test_the_command_writes_a_trace_a_scenario_loads_and_never_overwrites(tmp_path):
    out = tmp_path / "cell.trace"
    cmd = [sys.executable, "-m", "ccsim", "trace", "generate", "--seed", "2", "--duration", "10s", "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    n = len(out.read_text().splitlines())
    last = int(out.read_text().splitlines()[-1])
    assert f"{n} delivery opportunities over {last} ms" in r.stdout
    sc = Builder(duration="5s").single_link(delay="20ms", trace=str(out)).flows(count=1).build()
    assert sc.core["links"][0]["rate_bps"] == n * 1504 * 8 * 1000 // last
    r2 = subprocess.run(cmd, capture_output=True, text=True)
    assert r2.returncode == 2 and "--force" in r2.stderr
    bad = subprocess.run(
        cmd[:-2] + ["--out", str(tmp_path / "x"), "--duration", "1.5ms"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "whole number of milliseconds" in bad.stderr
