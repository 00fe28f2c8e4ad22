"""What each mode of the Westwood study runs: every section's run length,
seeds and sweep points, typed (`kit.Plan`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..kit import Plan


@dataclass(frozen=True)
class WestwoodPlan(Plan):
    """Each section's run length (s), seeds and sweep points; `seeds` is
    every seed some section runs (the report's "seeds" line)."""

    w1_dur: float  # W1 run length, s
    w1_seeds: list[int]
    w2_dur: float
    w2_ms: list[int]  # W2 flow counts M
    w2_seeds: list[int]
    w3_dur: float
    w3_hops: list[int]  # W3 parking-lot hops N
    w4_dur: float
    w4_bad: list[float]  # W4 Bad-state durations d, ms
    w4_seeds: list[int]
    w5_dur: float
    w5_bad: list[float]  # W5 Bad-state durations d, ms
    w5_seeds: list[int]
    w6_dur: float
    w7_dur: float
    w7_rtts: list[int]  # W7 base RTTs, ms
    w7_ps: list[float]  # W7 loss probabilities
    w7_seeds: list[int]


def _plan(**kw: Any) -> WestwoodPlan:
    """A plan whose `seeds` are every seed some section runs."""
    seeds = sorted({s for k, v in kw.items() if k.endswith("_seeds") for s in v})
    return WestwoodPlan(seeds=seeds, **kw)


PLANS = {
    "smoke": _plan(
        describe="toy durations (W1 100 s, others 40–60 s), one seed, two points per sweep",
        w1_dur=100.0,
        w1_seeds=[1],
        w2_dur=60.0,
        w2_ms=[10, 20],
        w2_seeds=[1],
        w3_dur=60.0,
        w3_hops=[1, 2],
        w4_dur=60.0,
        w4_bad=[1.0, 10.0],
        w4_seeds=[1],
        w5_dur=60.0,
        w5_bad=[100.0],
        w5_seeds=[1],
        w6_dur=60.0,
        w7_dur=60.0,
        w7_rtts=[40, 160],
        w7_ps=[0.005, 0.02],
        w7_seeds=[1],
    ),
    "quick": _plan(
        describe="W1, W2, W4–W6 at the paper's 1000 s; W3 and W7 300 s; fewer seeds (W1, W2, W5 and "
        "W7 3, W4 5) and fewer points (W3 N = 1, 2, 3, 5, 7, 10; W4 d = 0.1 … 100 ms in 6 "
        "steps; W5 d = 10 ms … 1 s in 4)",
        w1_dur=1000.0,
        w1_seeds=[1, 2, 3],
        w2_dur=1000.0,
        w2_ms=[10, 20, 40, 60, 100, 150, 200],
        w2_seeds=[1, 2, 3],
        w3_dur=300.0,
        w3_hops=[1, 2, 3, 5, 7, 10],
        w4_dur=1000.0,
        w4_bad=[0.1, 1.0, 3.0, 10.0, 30.0, 100.0],
        w4_seeds=[1, 2, 3, 4, 5],
        w5_dur=1000.0,
        w5_bad=[10.0, 100.0, 300.0, 1000.0],
        w5_seeds=[1, 2, 3],
        w6_dur=1000.0,
        w7_dur=300.0,
        w7_rtts=[40, 80, 160],
        w7_ps=[0.002, 0.005, 0.01, 0.02, 0.04],
        w7_seeds=[1, 2, 3],
    ),
    "full": _plan(
        describe="the paper's 1000 s everywhere, 10 seeds where the paper has them (W1 repetitions, "
        "W4, W5), W2 3 seeds, W3 N = 1 … 10",
        w1_dur=1000.0,
        w1_seeds=list(range(1, 11)),
        w2_dur=1000.0,
        w2_ms=[10, 20, 30, 40, 60, 80, 100, 150, 200],
        w2_seeds=[1, 2, 3],
        w3_dur=1000.0,
        w3_hops=list(range(1, 11)),
        w4_dur=1000.0,
        w4_bad=[0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0],
        w4_seeds=list(range(1, 11)),
        w5_dur=1000.0,
        w5_bad=[1.0, 10.0, 100.0, 300.0, 1000.0],
        w5_seeds=list(range(1, 11)),
        w6_dur=1000.0,
        w7_dur=1000.0,
        w7_rtts=[40, 80, 160],
        w7_ps=[0.002, 0.005, 0.01, 0.02, 0.04],
        w7_seeds=[1, 2, 3],
    ),
}
