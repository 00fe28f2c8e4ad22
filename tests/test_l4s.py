"""L4S end to end: TCP Prague (L4STeam tcp_prague.c) with accurate ECN in a
DualPI2 queue (RFC 9332, Linux sch_dualpi2) beside a classic CUBIC flow, and
Prague's RTT independence, each checked against the RFCs' and the draft's
own arithmetic."""

from __future__ import annotations

import functools
from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim import Builder
from ccsim.studies.base import num

MSS = 1448


def _coexistence(preset: str | None, seconds: int = 30, seed: int = 1) -> ccsim.Result:
    prague = {"cc": "prague"} | ({"cc_preset": preset} if preset else {})
    return (
        Builder(duration=f"{seconds}s", seed=seed, sample_interval="100ms", trace=["rtt"])
        .dumbbell(
            bottleneck_rate="100Mbps",
            bottleneck_delay="8ms",
            access_rate="1Gbps",
            access_delay="1ms",  # base RTT 20 ms
            buffer="1000pkt",
            queue="dualpi2",
        )
        .flows(count=1, app="bulk", cc="cubic", label="classic")
        .flows(count=1, app="bulk", label="l4s", **prague)
        .build()
        .run()
    )


def _mean_rtt(res: ccsim.Result, flow: int, after_s: float = 5.0) -> float:
    r = res.table("rtt_trace").filter((pl.col("flow") == flow) & (pl.col("time_s") > after_s))
    return num(r["rtt_s"].mean())


def _window(res: ccsim.Result, flow: int) -> float:
    """Mean window in segments: goodput × RTT / mss."""
    gp = res.flows.filter(pl.col("id") == flow)["goodput_bps"][0]
    return float(gp * _mean_rtt(res, flow) / (8 * MSS))


def test_prague_and_cubic_share_a_dualpi2_queue_as_its_coupling_law_says() -> None:
    # RFC 9332 §2.1: with p_C = (p_L/k)², a Reno-friendly window
    # 1.22/√p_C and a scalable window 2/p_L stand in the ratio
    # W_L/W_C = 2/(1.22·k) = 0.82 at k = 2. The test uses Prague without
    # RTT independence (the draft's DCTCP-like response the law assumes)
    # and allows a factor 1.5 either way: p' moves, so E[1/√p_C] ≠ 1/√E[p_C];
    # CUBIC's Reno-friendly region matches 1.22/√p only on average; a
    # scalable flow cuts at most once per round trip. The law is about
    # averages, so the ratio is the mean over seeds 1–3: one seed is a draw
    # (0.89–1.31 over seeds 1–3 under MODEL_VERSION 18 and 19, with and
    # without the receive-window model). It read seed 1 alone until seed 1
    # gave 1.26 under MODEL_VERSION 19 (1.16 under 18); seeds 1–3 give 1.11
    # and 1.19.
    runs = [_coexistence("rtt_dependent", seed=s) for s in (1, 2, 3)]
    ratios = [_window(r, 1) / _window(r, 0) for r in runs]
    want = 2 / (1.22 * 2)
    assert want / 1.5 <= sum(ratios) / len(ratios) <= want * 1.5, ratios
    res = runs[0]
    # Latency separation: the L queue holds well under its 1 ms step, the
    # C queue near the PI2 target of 15 ms (base RTT taken from the L flow).
    rtt = res.table("rtt_trace").filter(pl.col("time_s") > 5)
    base = num(rtt.filter(pl.col("flow") == 1)["rtt_s"].min())
    l_p99 = num(rtt.filter(pl.col("flow") == 1)["rtt_s"].quantile(0.99)) - base
    c_mean = _mean_rtt(res, 0) - base
    assert l_p99 < 1e-3, l_p99
    assert 0.010 <= c_mean <= 0.020, c_mean
    f = res.flows.sort("id")
    assert f["retransmits"][1] == 0, "the L4S flow loses nothing"
    bott = res.links.filter(pl.col("name") == "r0->r1").row(0, named=True)
    assert bott["utilization"] >= 0.95


def test_default_prague_is_not_starved_nor_starves_cubic() -> None:
    # The module's default RTT independence (target 25 ms) makes the 20 ms
    # Prague flow cut at most once per 25 ms, so its window sits above the
    # coupling law's (docs/model.md gives the numbers). Coexistence, RFC
    # 9330 §4's aim, is what is checked: neither gets less than a quarter.
    res = _coexistence(None)
    gp = res.flows.sort("id")["goodput_bps"].to_list()
    share = [g / sum(gp) for g in gp]
    assert min(share) >= 0.25, share
    assert res.flows.sort("id")["retransmits"][1] == 0


def _two_prague(preset: str | None, rate: str, access: str, buffer: str, **link: Any) -> pl.DataFrame:
    """Per-flow results of two Prague flows at 5 and 50 ms base RTT (each
    flow's own rtt sets its access delays) through a DualPI2 dumbbell, 40 s."""
    prague = {"cc": "prague"} | ({"cc_preset": preset} if preset else {})
    return (
        Builder(duration="40s", seed=1, sample_interval="off")
        .dumbbell(
            bottleneck_rate=rate,
            bottleneck_delay="1ms",
            access_rate=access,
            access_delay="1ms",
            buffer=buffer,
            queue="dualpi2",
            **link,
        )
        .flows(count=1, app="bulk", rtt="5ms", **prague)
        .flows(count=1, app="bulk", rtt="50ms", **prague)
        .build()
        .run()
        .flows.sort("id")
    )


@functools.cache
def _rtt_pair(preset: str | None) -> tuple[float, float]:
    gp = _two_prague(preset, "100Mbps", "1Gbps", "1000pkt")["goodput_bps"].to_list()
    return gp[0], gp[1]


def _ratio(preset: str | None) -> float:
    short, long = _rtt_pair(preset)
    return short / long


def test_rtt_independence_narrows_the_rate_gap_between_5ms_and_50ms_flows() -> None:
    # Two Prague flows in the L queue at 5 and 50 ms: RTT independence (the
    # module's 'rate' heuristic, target 25 ms) slows the 5 ms flow's growth
    # to (5/25)² per round trip and its cuts to one per 25 ms, so the rate
    # ratio must fall by more than half of the RTT-dependent one.
    assert _ratio(None) < _ratio("rtt_dependent") / 2


def _prague_alone(preset: str | None, rtt_ms: int, n: int) -> dict[str, Any]:
    """One Prague flow of base RTT `rtt_ms` on a 1 Gb/s DualPI2 link it never
    fills, every n-th of its ECN-capable packets marked whatever the queue
    (the `ce_every` marker), 40 s: its per-flow results."""
    prague = {"cc": "prague"} | ({"cc_preset": preset} if preset else {})
    return (
        Builder(duration="40s", seed=1, sample_interval="off")
        .single_link(
            rate="1Gbps",
            delay=f"{rtt_ms / 2}ms",
            buffer="2000pkt",
            queue="dualpi2",
            loss={"kind": "ce_every", "n": n},
        )
        .flows(count=1, app="bulk", **prague)
        .build()
        .run()
        .flows.row(0, named=True)
    )


@functools.cache
def _fixed_p_pair(preset: str | None, n: int) -> tuple[float, float, float]:
    """Windows (segments) of Prague flows at 5 and 50 ms at a marking
    probability p = 1/n, each on its own marker (the premise of the 1/RTT
    law: the same p for both, marks spread evenly over each flow's
    packets); and the ratio of their rates.

    Each flow has its own link because one marker counting both flows'
    packets does not give that premise: with RTT independence on, the 50 ms
    flow's marks then fell in some of its round trips and not in others
    (0.94 % of its packets marked, yet it held W = 328 under MODEL_VERSION 18
    and 400 under 19 against the law's 200, since a round without a mark
    has no cut). This set-up replaced the shared one after that was seen;
    its results are the same under both model versions."""
    f = [_prague_alone(preset, rtt, n) for rtt in (5, 50)]
    w = [x["goodput_bps"] * x["rtt_mean_s"] / (8 * MSS) for x in f]
    assert sum(x["retransmits"] for x in f) == 0  # nothing but the marker acts
    for x in f:
        assert x["ce_received"] * n == pytest.approx(x["data_pkts_sent"], rel=0.01)
    return w[0], w[1], f[0]["goodput_bps"] / f[1]["goodput_bps"]


@pytest.mark.parametrize("n", [50, 100])
def test_rtt_ratios_follow_the_one_over_rtt_law_at_a_fixed_marking_probability(n: int) -> None:
    # A scalable flow that grows by one segment per round trip and cuts
    # W·p/2 once per round trip at marking probability p holds W = 2/p
    # whatever its RTT, so rates go as 1/RTT: 50/5 = 10 (RFC 9332 §2.1's
    # scalable window; draft-briscoe-iccrg-prague-congestion-control). With
    # RTT independence the 5 ms flow acts as one at the 25 ms target: 50/25
    # = 2. Bands: W within 25 % of 2/p, ratios within 25 % of 10 and 50 %
    # of 2. Under the L queue's step marking alone the premise fails (the
    # short flow cuts once per 4 of its round trips; docs/model.md), and so
    # does the law there; and at p = 1/20 (W = 40) the 50 ms flow cuts in
    # only 72 % of its round trips and holds W = 72 (docs/model.md).
    w_short, w_long, ratio = _fixed_p_pair("rtt_dependent", n)
    assert 0.75 * 2 * n <= w_short <= 1.25 * 2 * n, w_short
    assert 0.75 * 2 * n <= w_long <= 1.25 * 2 * n, w_long
    assert 8 <= ratio <= 12.5, ratio
    ratio = _fixed_p_pair(None, n)[2]
    assert 2 / 1.5 <= ratio <= 2 * 1.5, ratio


@pytest.mark.parametrize("field", ["ecn", "ecn_codepoint"])
def test_prague_turns_on_ect1_and_accecn_itself(field: str) -> None:

    sc = (
        Builder(duration="1s", seed=1, sample_interval="off")
        .single_link(rate="10Mbps", delay="10ms", buffer="100pkt", queue="dualpi2")
        .tcp(cc="prague")
        .flows(count=1, app="bulk")
        .build()
    )
    tcp = sc.core["flows"][0]["tcp"]
    assert {"ecn": True, "ecn_codepoint": "ect1"}[field] == tcp[field]
    assert tcp["ecn_feedback"] == "accecn"
