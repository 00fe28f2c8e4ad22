"""A few hundred generated scenarios (ccsim.tools.fuzz) must keep every run
invariant; `make fuzz N=...` runs as many as asked (docs/reliability.md)."""

from __future__ import annotations

import numpy as np
from ccsim.scenario import Scenario
from ccsim.tools import fuzz


def test_generated_scenarios_keep_every_invariant():
    n, failures, refused = fuzz.run_cases(300, seed=20261124, determinism_every=10)
    assert n == 300
    assert not failures, "\n".join(f"case {k}: {p}" for k, _, p in failures[:10])
    assert refused < 30  # most draws are valid scenarios


def test_the_checker_catches_broken_invariants():
    # a doctored result must be reported: the checker is not a no-op
    rng = np.random.default_rng(3)
    raw = fuzz.generate(rng)
    sc = Scenario(raw)
    res = sc.run()
    assert fuzz.check(sc, res) == []
    res.columns["links"]["bytes_tx"] = res.columns["links"]["bytes_tx"] + 10**12
    res._frames.clear()
    assert any("bytes_tx" in p for p in fuzz.check(sc, res))


def test_the_checker_holds_recorded_rows_to_the_memory_estimate():
    # a run recording more rows than the pre-run estimate allows is a failure
    from ccsim import memory

    raw = fuzz.generate(np.random.default_rng(5))
    raw["sim"]["trace"] = ["rtt"]
    sc = Scenario(raw)
    res = sc.run()
    assert fuzz.check(sc, res) == []
    bound = memory.estimate_rows(sc.core)["rtt_trace"]
    assert 0 < res.table("rtt_trace").height <= bound
    res.columns["rtt_trace"] = {k: np.resize(np.asarray(v), bound + 1) for k, v in res.columns["rtt_trace"].items()}
    assert any("rtt_trace" in p and "memory estimate" in p for p in fuzz.check(sc, res))
