"""DCTCP (Linux tcp_dctcp.c, RFC 8257) driven through whole scenarios and
checked against outside facts: the receiver feedback of RFC 8257 §3.2, and
the steady state that Alizadeh et al. derive for N synchronised long flows
behind a step-marking switch ("Data Center TCP", SIGCOMM 2010, §3.3; the
same sawtooth is the starting point of Alizadeh, Javanmard & Prabhakar,
SIGMETRICS 2011)."""

from __future__ import annotations

import math
from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from ccsim import Builder
from ccsim.studies.base import num
from helpers import single_link

# The datacentre link of the analysis: 10 Gb/s, 100 µs base RTT, K = 65
# packets (Alizadeh et al. 2010 §3.3 and §4's 10 Gb/s K = 65).
RATE_BPS = 10e9
BASE_RTT_S = 100e-6
K = 65
WIRE_BYTES = 1448 + 40 + 12  # mss + TCP/IP header + timestamps


def _datacentre(n: int, duration: str = "0.4s") -> ccsim.Scenario:
    return (
        Builder(duration=duration, seed=1, sample_interval="2us", trace=["cc"])
        .dumbbell(
            bottleneck_rate="10Gbps",
            bottleneck_delay="48us",
            access_rate="40Gbps",
            access_delay="1us",  # base RTT 2·(48 + 2·1) µs = 100 µs
            buffer="400pkt",
            queue={"kind": "red", "min_th": K, "max_th": K, "w_q": 1, "ecn": True},
        )
        .tcp(cc="dctcp", min_rto="10ms")
        .flows(count=n, app="bulk")
        .build()
    )


def _analysis(n: int) -> dict[str, float]:
    """Alizadeh et al. 2010 §3.3 for N synchronised flows: W* = (C·RTT + K)/N
    is the window at which the queue reaches K; α solves
    α²(1 − α/4) = (2W* + 1)/(W* + 1)² (≈ √(2/W*)); each flow's sawtooth
    amplitude is D = (W* + 1)·α/2, so the queue swings by A = N·D below
    Q_max = K + N, with period T_C = D round trips (each round trip being
    the base RTT plus the K/C of queueing at the operating point)."""
    c_pkts = RATE_BPS / (8 * WIRE_BYTES)
    w = (c_pkts * BASE_RTT_S + K) / n
    rhs = (2 * w + 1) / (w + 1) ** 2
    lo, hi = 0.0, 1.0
    for _ in range(60):  # bisection: the left side grows on [0, 1]
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid * mid * (1 - mid / 4) < rhs else (lo, mid)
    alpha = (lo + hi) / 2
    d = (w + 1) * alpha / 2
    return {
        "w": w,
        "alpha": alpha,
        "q_max": K + n,
        "amplitude": n * d,
        "period_s": d * (BASE_RTT_S + K / c_pkts),
    }


def _period_s(q: np.ndarray, dt: float) -> float:
    """The queue's period: the first peak of its autocorrelation after the
    first trough."""
    x = q - q.mean()
    m = min(len(x), 50_000)
    ac = np.correlate(x[:m], x[:m], "full")[m - 1 :]
    ac = ac / ac[0]
    i = int(np.argmin(ac[:2000]))
    return (i + int(np.argmax(ac[i : i + 2000]))) * dt


def test_the_analysis_helper_reproduces_the_papers_approximations() -> None:
    # √(2/W*) is the paper's small-α approximation of the cubic above.
    a = _analysis(2)
    assert a["alpha"] == pytest.approx(math.sqrt(2 / a["w"]), rel=0.03)
    # A ≈ ½·√(2N(C·RTT + K)) (the paper's eq. 10 form).
    c_bdp = RATE_BPS / (8 * WIRE_BYTES) * BASE_RTT_S
    assert a["amplitude"] == pytest.approx(0.5 * math.sqrt(2 * 2 * (c_bdp + K)), rel=0.03)


def _cuts(res: ccsim.Result) -> tuple[pl.DataFrame, pl.DataFrame]:
    cc = res.table("cc_state").filter(pl.col("time_s") > 0.1).sort("flow", "time_s")
    return cc, cc.with_columns(pl.col("cwnd").shift(1).over("flow").alias("before")).filter(
        pl.col("cause") == "ecn_reduction"
    )


def test_two_dctcp_flows_cut_at_the_analysed_window_and_hold_the_queue_at_k() -> None:
    # What the analysis predicts from where the queue crosses K alone:
    # windows are cut at W* + 1 (within 3 segments: cwnd is sampled every
    # 2 µs and grows by delayed-ACK credit), the queue peaks at K + N, the
    # link stays busy and nothing is dropped or retransmitted.
    res = _datacentre(2).run()
    th = _analysis(2)
    bott = res.links.filter(pl.col("name") == "r0->r1").row(0, named=True)
    assert bott["drops"] == 0 and bott["losses"] == 0
    assert bott["utilization"] >= 0.95
    assert res.flows["retransmits"].sum() == 0 and res.flows["fast_retransmits"].sum() == 0
    _, cuts = _cuts(res)
    assert len(cuts) > 300
    assert abs(num(cuts["before"].mean()) - (th["w"] + 1)) <= 3
    series = res.link_series.filter((pl.col("link") == bott["id"]) & (pl.col("time_s") > 0.1))
    q_max = float(np.percentile(series["queue_max_pkts"].to_numpy(), 99))
    assert abs(q_max - th["q_max"]) <= 2, (q_max, th)


# The analysis's α, cut depth D and period T_C assume one instant cut per
# sawtooth. The linux stack reduces as Linux 6.x does (PRR over a round
# in CWR, and a new reduction when the ACK that ends CWR carries ECE,
# checked against the kernel with Reno+ECN: tests/test_ecn_kernel.py),
# and its DCTCP then cuts in consecutive rounds while the queue stays
# above K. Measured at MODEL_VERSION 18 (docs/model.md, DCTCP row): α
# 0.125 against 0.166 (N = 2) and 0.28 against 0.37 (N = 10), D 4.05
# against 6.2 segments per cut, the cut spacing 0.94 ms against 1.11 ms,
# and the queue's 99th-percentile peak 78 against K + N = 75 at N = 10.
# Whether the kernel's DCTCP does the same is not yet shown: this
# kernel has no tcp_dctcp. Strict: the test fails if the model starts
# to agree.
@pytest.mark.xfail(
    strict=True,
    reason="the analysis assumes an instant cut per sawtooth; Linux's CWR reduces by PRR and cuts again while marked",
)
def test_dctcp_alpha_depth_and_period_as_the_analysis_of_an_instant_cut() -> None:
    res = _datacentre(2).run()
    th = _analysis(2)
    _, cuts = _cuts(res)
    ok_alpha = cuts["alpha"].mean() == pytest.approx(th["alpha"], rel=0.15)
    d = (cuts["before"].cast(pl.Float64) - cuts["ssthresh"]).mean()
    ok_d = d == pytest.approx((th["w"] + 1) * th["alpha"] / 2, rel=0.20)
    gaps = cuts.group_by("flow").agg(pl.col("time_s").diff().mean())["time_s"]
    ok_gap = all(g == pytest.approx(th["period_s"], rel=0.15) for g in gaps)
    res10 = _datacentre(10).run()
    th10 = _analysis(10)
    bott = res10.links.filter(pl.col("name") == "r0->r1").row(0, named=True)
    series = res10.link_series.filter((pl.col("link") == bott["id"]) & (pl.col("time_s") > 0.1))
    q_max = float(np.percentile(series["queue_max_pkts"].to_numpy(), 99))
    cc10 = res10.table("cc_state").filter(pl.col("time_s") > 0.1)
    ok_10 = abs(q_max - th10["q_max"]) <= 3 and cc10["alpha"].mean() == pytest.approx(th10["alpha"], rel=0.15)
    assert ok_alpha and ok_d and ok_gap and ok_10, (cuts["alpha"].mean(), d, list(gaps), q_max)


def test_ten_dctcp_flows_keep_full_utilisation_without_drops_and_share_evenly() -> None:
    # Ten flows do not stay synchronised; full use of the link and no drop
    # with a buffer of about 6·K hold whatever the cut's shape.
    res = _datacentre(10).run()
    bott = res.links.filter(pl.col("name") == "r0->r1").row(0, named=True)
    assert bott["drops"] == 0 and bott["utilization"] >= 0.95
    gp = res.flows["goodput_bps"].to_numpy()
    assert gp.min() / gp.max() > 0.8  # DCTCP flows of one RTT share evenly


def _scripted(feedback: str) -> ccsim.Result:
    return single_link(
        duration="2s",
        rate="10Mbps",
        delay="10ms",
        buffer="200pkt",
        loss={"kind": "ce_scripted", "mark": [100, 105, 106, 300]},
        sample_interval="off",
        tcp=dict(cc="dctcp", ecn_feedback=feedback, max_cwnd=40),
    ).run()


def test_dctcp_feedback_reports_exactly_the_marked_segments() -> None:
    # RFC 8257 §3.2: ECE follows each segment's CE state, and a change of
    # state flushes the delayed ACK first, so the segments the sender counts
    # as delivered under ECE are exactly the CE-marked ones; RFC 3168's latch
    # (ECE until CWR) also covers unmarked segments sent before the CWR.
    dctcp = _scripted("dctcp").flows.row(0, named=True)
    assert dctcp["ce_received"] == 4
    assert dctcp["delivered_ce"] == 4
    classic = _scripted("classic").flows.row(0, named=True)
    assert classic["ce_received"] == 4
    assert classic["delivered_ce"] > 4
    for f in (dctcp, classic):
        assert f["retransmits"] == 0


def test_an_algorithm_that_needs_ecn_turns_it_on_and_refuses_it_off() -> None:
    sc = single_link(duration="1s", sample_interval="off", tcp=dict(cc="dctcp"))
    tcp = sc.core["flows"][0]["tcp"]
    assert (tcp["ecn"], tcp["ecn_codepoint"], tcp["ecn_feedback"]) == (True, "ect0", "dctcp")
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.ecn.*cc = 'dctcp'.*reno"):
        single_link(duration="1s", tcp=dict(cc="dctcp", ecn=False))
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.ecn_feedback.*'classic', 'dctcp'"):
        single_link(duration="1s", tcp=dict(cc="dctcp", ecn_feedback="accurate"))


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ({"gentle": True}, "queue.gentle", "step marking"),
        ({"mark_p": 1.0}, "queue.mark_p", "step marking"),
    ],
)
def test_step_marking_refuses_settings_it_would_ignore(extra: dict[str, Any], field: str, words: str) -> None:
    queue = {"kind": "red", "min_th": 20, "max_th": 20, "w_q": 1, "ecn": True, **extra}
    with pytest.raises(ccsim.ScenarioError, match=rf"{field}.*{words}"):
        single_link(duration="1s", tcp=dict(cc="dctcp"), queue=queue).run()
