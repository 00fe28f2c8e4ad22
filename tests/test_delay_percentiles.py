"""Per-flow delay percentiles in `flows`: base_rtt_s, qdelay_p50/p95/p99_s
(RTT samples minus the path's base RTT) and owd_p50/p95/p99_s (data
segments from sender to receiver).

Oracles: the base RTT from the link parameters (propagation plus one
1,500-byte segment's and one 52-byte ACK's serialisation per link: 40 bytes
of IPv4 and TCP headers and the 12-byte RFC 7323 timestamp option on an MSS
of 1,448); the exact nearest-rank percentiles of every RTT sample the run
traces (`sim.trace = ["rtt"]`), which the histogram must match within 1/64;
and a flow held to one segment in flight, whose every sample sees no queue."""

from __future__ import annotations

import math
from typing import Any

import ccsim
import numpy as np
import pytest
from ccsim.studies.base import num

DATA, ACK = 1448 + 40 + 12, 40 + 12


def scenario(**over: Any) -> ccsim.Scenario:
    raw = {
        "sim": {"duration": "8s", "seed": 1, "trace": ["rtt"]},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "18ms",
            "access_rate": "1Gbps",
            "access_delay": "1ms",
            "buffer": "1bdp",
        },
        "tcp": {"cc": "cubic", "mss": 1448, "delayed_ack": False},
        "flows": [{"count": 3, "app": "bulk", "stagger": "50ms"}],
    }
    return ccsim.Scenario(raw).with_overrides(over) if over else ccsim.Scenario(raw)


def ser(nbytes: int, bps: float) -> float:
    return math.ceil(nbytes * 8 * 1e12 / bps) / 1e12


FWD = 0.001 + 0.018 + 0.001 + ser(DATA, 1e9) + ser(DATA, 100e6) + ser(DATA, 1e9)
REV = 0.001 + 0.018 + 0.001 + ser(ACK, 1e9) + ser(ACK, 100e6) + ser(ACK, 1e9)


def nearest_rank(x: np.ndarray, p: float) -> float:
    s = np.sort(x)
    return float(s[max(1, math.ceil(p * len(s))) - 1])


def test_the_base_rtt_is_the_paths_propagation_and_serialisation() -> None:
    f = scenario().run().flows
    assert f["base_rtt_s"].to_list() == [pytest.approx(FWD + REV, abs=1e-12)] * 3


def test_one_segment_in_flight_sees_no_queue() -> None:
    # a receive window of one segment: each segment crosses an empty path
    f = scenario(**{"tcp.rwnd": "1pkt"}).run().flows
    for p in ("p50", "p95", "p99"):
        assert f[f"qdelay_{p}_s"].to_list() == [0.0, 0.0, 0.0]
        for v in f[f"owd_{p}_s"].to_list():
            assert v == pytest.approx(FWD, rel=1 / 64)


def test_queueing_delay_percentiles_match_the_traced_rtt_samples() -> None:
    res = scenario().run()
    base = FWD + REV
    tr = res.table("rtt_trace")
    for row in res.flows.iter_rows(named=True):
        q = tr.filter(tr["flow"] == row["id"])["rtt_s"].to_numpy() - base
        assert len(q) == row["rtt_samples"] > 1000
        for p, col in ((0.5, "qdelay_p50_s"), (0.95, "qdelay_p95_s"), (0.99, "qdelay_p99_s")):
            exact = max(nearest_rank(q, p), 0.0)
            assert row[col] == pytest.approx(exact, rel=1 / 64, abs=1e-9), (row["id"], col)
        # a 1-BDP DropTail buffer: a data segment waits at most 40 ms there
        # (its access link adds at most a few serialisations)
        assert FWD <= row["owd_p50_s"] <= row["owd_p95_s"] <= row["owd_p99_s"] <= (FWD + 0.040 + 0.001) * (1 + 1 / 64)
    # and the queue is really there: the shared buffer fills
    assert num(res.flows["qdelay_p95_s"].min()) > 0.01


def test_percentiles_are_nan_without_samples() -> None:
    # a flow that starts after the run's end takes no sample
    raw = scenario().raw
    raw["flows"].append({"count": 1, "app": "bulk", "start": "8s"})
    f = ccsim.Scenario(raw).run().flows
    last = f.row(-1, named=True)
    assert last["rtt_samples"] == 0 and math.isnan(last["qdelay_p95_s"]) and math.isnan(last["owd_p50_s"])
