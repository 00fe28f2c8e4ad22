"""Metrics on hand-computed inputs (docs/reference.md R9 for Jain)."""

import math
from typing import Any

import polars as pl
import pytest
from ccsim.analysis import metrics as m


def _fs() -> pl.DataFrame:
    # two flows sampled every second; flow 0 delivers 1000 B/s, flow 1 delivers
    # 0 B/s until t = 2 s and 3000 B/s after; bytes_sent = 1.5 × delivered.
    rows = []
    for t in range(5):
        d0, d1 = 1000 * t, 3000 * max(0, t - 2)
        rows.append((float(t), 0, d0, int(1.5 * d0), 10 * t, t))
        rows.append((float(t), 1, d1, int(1.5 * d1), 20 * t, 2 * t))
    return pl.DataFrame(
        rows, schema=["time_s", "flow", "delivered_bytes", "bytes_sent", "acks_received", "snd_una"], orient="row"
    )


def test_goodput_and_throughput_windows() -> None:
    g = m.goodput(_fs(), 0, 4)
    assert g["goodput_bps"].to_list() == [8000.0, 3000 * 2 * 8 / 4]
    g = m.goodput(_fs(), 2, 4)
    assert g["goodput_bps"].to_list() == [8000.0, 24000.0]
    assert m.throughput(_fs(), 2, 4)["throughput_bps"].to_list() == [12000.0, 36000.0]
    assert m.ack_rate(_fs(), 1, 3)["acks_per_s"].to_list() == [10.0, 20.0]
    with pytest.raises(ValueError, match="window end 3 must be after its start 3"):
        m.goodput(_fs(), 3, 3)


def test_interval_goodput_and_series() -> None:
    iv = m.interval_goodput(_fs(), [0, 2, 4])
    assert iv.filter(pl.col("flow") == 1)["goodput_bps"].to_list() == [0.0, 24000.0]
    gs = m.goodput_series(_fs()).filter(pl.col("flow") == 1)
    assert gs["goodput_bps"].to_list() == [0.0, 0.0, 24000.0, 24000.0]


@pytest.mark.parametrize(
    "x,j", [((1, 1, 1, 1), 1.0), ((1, 0, 0, 0), 0.25), ((1, 2, 3, 4), 0.8333), ((10, 5), 0.9), ((3, 1), 0.8)]
)
def test_jain_reference_vectors(x: tuple[Any, ...], j: float) -> None:
    assert m.jain(x) == pytest.approx(j, abs=5e-5)


def test_jain_degenerate() -> None:
    assert math.isnan(m.jain([])) and math.isnan(m.jain([0, 0]))


def test_geff_drop_percent_ratio() -> None:
    assert m.geff([0.5e6, 0.9e6], 1.5e6) == pytest.approx(1.4 / 1.5)
    assert m.drop_percent(5, 95) == 5.0
    assert math.isnan(m.drop_percent(0, 0))
    assert m.throughput_ratio(2.2e9, 6.84e6) == pytest.approx(321.6, rel=1e-3)
    assert m.throughput_ratio(1, 0) == math.inf


def test_utilization_and_link_drop_percent() -> None:
    links = pl.DataFrame(
        {"id": [0, 1], "name": ["r0->r1", "r1->r0"], "rate_bps": [8000, 8000], "drops": [10, 0], "pkts_tx": [90, 5]}
    )
    ls = pl.DataFrame(
        {"time_s": [0.0, 1.0, 2.0, 0.0, 1.0, 2.0], "link": [0, 0, 0, 1, 1, 1], "bytes_tx": [0, 500, 1500, 0, 0, 100]}
    )
    assert m.utilization(ls, links, "r0->r1", 0, 2) == pytest.approx(1500 * 8 / (8000 * 2))
    assert m.utilization(ls, links, "r0->r1", 1, 2) == pytest.approx(1.0)
    assert m.link_drop_percent(links, "r0->r1") == 10.0
    with pytest.raises(KeyError):
        m.link_drop_percent(links, "nope")


def test_fct_stats() -> None:
    s = m.fct_stats([1.0, 2.0, 3.0, 4.0, float("nan")])
    assert (s["count"], s["unfinished"], s["mean"], s["median"], s["max"]) == (4, 1, 2.5, 2.5, 4.0)
    assert s["p95"] == pytest.approx(3.85)  # linear interpolation between 3 and 4


def test_convergence_time() -> None:
    t = list(range(10))
    x = [0, 50, 150, 90, 105, 100, 98, 102, 100, 100]
    # steady value = mean of the last half (100, 98, 102, 100, 100) = 100;
    # ±10 % holds from t = 3 on (150 at t = 2 is the last sample outside)
    assert m.convergence_time(t, x, band=0.10) == 3.0
    assert m.convergence_time(t, x, band=0.01) == 8.0
    assert math.isnan(m.convergence_time([0, 1, 2, 3], [100, 100, 100, 150], band=0.05))


def test_class_shares() -> None:
    flows = pl.DataFrame({"id": [0, 1], "label": ["web", "hs"]})
    sh = m.class_shares(flows, _fs(), {"web": "web", "hs": "high-speed"}, capacity_bps=40000, t0=2, t1=4)
    assert sh == pytest.approx({"web": 0.2, "high-speed": 0.6, "unused": 0.2})


def test_retransmission_ratio_and_seq_progress() -> None:
    flows = pl.DataFrame({"id": [0, 1], "retransmits": [5, 0], "data_pkts_sent": [100, 0]})
    r = m.retransmission_ratio(flows)["retransmission_ratio"].to_list()
    assert r[0] == 0.05 and r[1] is None
    sp = m.seq_progress(_fs()).filter(pl.col("flow") == 1)
    assert sp["seq_pkts"].to_list() == [0, 2, 4, 6, 8]


def test_metrics_agree_with_the_run_summary() -> None:
    from helpers import single_link

    r = single_link(duration="20s", rate="10Mbps", delay="10ms", sample_interval="1s", flows=[dict(count=2)]).run()
    g = m.goodput(r.flow_series, 0, 20)["goodput_bps"].to_list()
    assert g == pytest.approx(r.flows.sort("id")["goodput_bps"].to_list(), rel=1e-12)
    u = m.utilization(r.link_series, r.links, "a->b", 0, 20)
    assert u == pytest.approx(r.links["utilization"][0], abs=2e-3)  # in-flight serialization at the end
    assert m.geff(g, 10e6) < u
