"""A few hundred generated scenarios (ccsim.tools.fuzz) must keep every run
invariant; `make fuzz N=...` runs as many as asked (docs/reliability.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ccsim.scenario import Scenario
from ccsim.tools import fuzz, fuzz_algos


def test_generated_scenarios_keep_every_invariant() -> None:
    n, failures, refused = fuzz.run_cases(300, seed=20261124, determinism_every=10)
    assert n == 300
    assert not failures, "\n".join(f"case {k}: {p}" for k, _, p in failures[:10])
    assert refused < 30  # most draws are valid scenarios


def test_the_checker_catches_broken_invariants() -> None:
    # a doctored result must be reported: the checker is not a no-op
    rng = np.random.default_rng(3)
    raw = fuzz.generate(rng)
    sc = Scenario(raw)
    res = sc.run()
    assert fuzz.check(sc, res) == []
    res.columns["links"]["bytes_tx"] = np.asarray(res.columns["links"]["bytes_tx"]) + 10**12
    res._frames.clear()
    assert any("bytes_tx" in p for p in fuzz.check(sc, res))


def test_the_checker_holds_recorded_rows_to_the_memory_estimate() -> None:
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


def test_the_generator_draws_every_hostile_algorithm_odd_trace_and_queue_edge(tmp_path: Path) -> None:
    """The generator's new draws are really made: every class of
    `fuzz_algos`, every path that is no trace file, and options at the
    edges of each queue discipline (2,000 draws, nothing run)."""
    folder = tmp_path / "traces"
    odd = fuzz.odd_trace_files(folder)
    traces = fuzz.trace_files(folder) + odd
    rng = np.random.default_rng(1)
    seen_cc, seen_trace, seen_edge = set(), set(), set()
    for _ in range(2000):
        raw = fuzz.generate(rng, traces)
        seen_cc.add(raw["tcp"]["cc"].rsplit(":", 1)[-1])
        seen_trace.add(raw["topology"].get("trace"))
        q = raw["topology"].get("queue") or {}
        for opt in q:
            if any(opt in e for e in fuzz.QUEUE_EDGES.get(str(q.get("kind")), [])):
                seen_edge.add((q["kind"], opt))
    assert {c.__name__ for c in fuzz_algos.HOSTILE} <= seen_cc
    assert set(odd) <= seen_trace
    assert {k for k, _ in seen_edge} == set(fuzz.QUEUE_EDGES)


def test_each_hostile_algorithm_ends_as_its_class_allows() -> None:
    """Each class of `fuzz_algos` on one small scenario: the outcome (a run
    that keeps the invariants, an exception noted with its hook, or the
    time limit) is one its class declares, and the two that must misbehave
    here do (the counterfactual: a run of them is not simply 'ok')."""
    outcomes = {}
    for cls in fuzz_algos.HOSTILE:
        raw = {
            "sim": {"duration": "1s", "seed": 3},
            "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
            "tcp": {"cc": f"py:{cls.__module__}:{cls.__name__}"},
            "flows": [{"count": 2}],
        }
        expect = fuzz.py_expect(raw)
        assert expect is not None
        allowed, limit = expect
        sc = Scenario(raw)
        try:
            res = sc.run(timeout=limit or 60)
            assert fuzz.check(sc, res) == [], cls.__name__
            outcomes[cls.__name__] = "ok"
        except TimeoutError:
            outcomes[cls.__name__] = "timeout"
        except Exception as e:  # noqa: BLE001 - the outcome is the point
            assert any(n.startswith("ccsim: raised in") for n in getattr(e, "__notes__", ())), repr(e)
            outcomes[cls.__name__] = "raised"
        assert outcomes[cls.__name__] in allowed, (cls.__name__, outcomes[cls.__name__])
    assert outcomes["FuzzSpin"] == "timeout" and outcomes["FuzzRaise"] == "raised"
    assert outcomes["FuzzReno"] == "ok"
