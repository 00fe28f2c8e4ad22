"""Behaviour tests for the algorithms without a closed-form response
function, each against what its source says it does:

- Vegas keeps between α and β of its own segments queued at the bottleneck
  (Brakmo & Peterson 1995; Linux tcp_vegas.c: diff = cwnd·(rtt − base)/base);
- BBR keeps the bottleneck busy with a queue under one BDP, cycles its pacing
  gain through 5/4, 3/4 and 1, and enters PROBE_RTT (cwnd 4) about every 10 s
  (Cardwell et al. 2016; Linux tcp_bbr.c);
- Westwood+ sets ssthresh ≈ BWE·RTTmin after a loss (Grieco & Mascolo 2004),
  where Reno would halve;
- every algorithm is usable by name, repeats exactly with the same seed, and
  every preset runs.
"""

import json
from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from ccsim import _core
from ccsim.studies.base import num
from helpers import dumbbell

MSS = 1448
PKT = MSS + 40


def bottleneck(res: ccsim.Result) -> dict[str, Any]:
    return res.links.filter(pl.col("name") == "r0->r1").row(0, named=True)


@pytest.mark.parametrize("preset,alpha,beta", [(None, 2, 4), ("paper", 1, 3)])
@pytest.mark.parametrize("n", [1, 3])
def test_vegas_queues_between_alpha_and_beta_per_flow(preset: str | None, alpha: int, beta: int, n: int) -> None:
    # 10 Mb/s, 40 ms base RTT, a buffer far above what Vegas needs.
    # Linux (default preset): diff = floor(cwnd·(rtt − base)/base), so it
    # holds while the backlog is in [alpha, beta + 1); the time-average
    # waiting queue per flow must lie there (less up to half a packet for the
    # one in service). ns-2 (paper preset): diff = round(cwnd·(rtt −
    # base)/rtt) with the round's mean RTT, which equals the backlog the RTTs
    # see; it holds in [alpha − ½, beta + ½), so the backlog measured from the
    # mean RTT must lie there.
    res = dumbbell(
        n=n,
        duration="60s",
        rate="10Mbps",
        buffer="4bdp",
        sample_interval="10ms",
        tcp=dict(cc="vegas", cc_preset=preset, delayed_ack=False),
    ).run()
    b = bottleneck(res)
    if preset is None:
        q = res.link_series.filter((pl.col("link") == b["id"]) & (pl.col("time_s") >= 20))["queue_pkts"].to_numpy()
        per_flow = q.mean() / n
        assert alpha - 0.5 <= per_flow <= beta + 1, f"mean queue {q.mean():.2f} pkts for {n} flows"
    else:
        f = res.flows
        backlog = num((f["rtt_mean_s"] - f["rtt_min_s"]).mean()) * 10e6 / (PKT * 8)
        assert alpha - 0.5 <= backlog / n < beta + 0.5, f"backlog from RTTs {backlog:.2f} pkts for {n} flows"
    assert b["drops"] == 0
    assert b["utilization"] > 0.95


def test_bbr_full_link_small_queue_gain_cycle_and_probe_rtt() -> None:
    # One BBR flow, 50 Mb/s, 40 ms base RTT, a deep buffer (4 BDP) that a
    # loss-based flow would fill.
    rate, rtt = 50e6, 0.040
    res = dumbbell(
        n=1, duration="35s", rate="50Mbps", buffer="4bdp", sample_interval="5ms", tcp=dict(cc="bbr", sack="rfc6675")
    ).run()
    b = bottleneck(res)
    assert b["utilization"] > 0.90, b["utilization"]
    bdp_pkts = rate * rtt / 8 / PKT
    q = res.link_series.filter((pl.col("link") == b["id"]) & (pl.col("time_s") >= 5))["queue_pkts"].to_numpy()
    assert q.mean() < bdp_pkts, f"mean queue {q.mean():.1f} vs BDP {bdp_pkts:.1f} pkts"
    assert b["drops"] == 0 or b["drops"] < 0.01 * b["pkts_tx"]

    fs = res.flow_series.filter(pl.col("time_s") >= 3).sort("time_s")
    # Pacing gain = pacing rate / (BtlBw · 0.99); BtlBw in payload bytes is
    # the link rate times MSS/packet size.
    btl = rate * MSS / PKT
    gain = fs["pacing_rate_bps"].to_numpy() / (btl * 0.99)
    for g in (1.25, 0.75, 1.0):
        share = np.mean(np.abs(gain - g) < 0.03)
        assert share > 0.03, f"gain {g} seen in {share:.1%} of samples"
    # 6/8 of PROBE_BW time at gain 1.
    assert np.mean(np.abs(gain - 1.0) < 0.03) > 0.5


def test_bbr_probe_rtt_every_ten_seconds() -> None:
    # A lone BBR flow empties the queue in each 3/4 phase, sees RTprop again
    # (Linux accepts an equal sample) and never needs PROBE_RTT. Two flows
    # keep a standing queue (each caps inflight at 2 BDP of its own
    # estimate), so RTprop expires and each flow drains to cwnd 4 every
    # 10 s + 200 ms.
    res = dumbbell(
        n=2, duration="45s", rate="50Mbps", buffer="4bdp", sample_interval="5ms", tcp=dict(cc="bbr", sack="rfc6675")
    ).run()
    fs = res.flow_series.filter((pl.col("flow") == 0) & (pl.col("time_s") >= 1)).sort("time_s")
    t = fs["time_s"].to_numpy()
    low = fs["cwnd"].to_numpy() <= 4
    starts = t[1:][low[1:] & ~low[:-1]]
    assert len(starts) >= 2, starts
    gaps = np.diff(starts)
    assert np.all((gaps > 9.8) & (gaps < 10.8)), gaps
    ends = t[1:][~low[1:] & low[:-1]]
    stay = ends[: len(starts)] - starts[: len(ends)]
    assert np.all((stay >= 0.19) & (stay < 0.35)), stay


def test_westwoodplus_sets_ssthresh_to_bwe_times_rttmin() -> None:
    # One flow, 10 Mb/s, 100 ms base RTT, buffer 0.5 BDP: the link stays
    # busy, so BWE ≈ the link's payload rate and BWE·RTTmin ≈ one BDP. Reno
    # would set (BDP + buffer)/2 = 0.75 BDP.
    rate, rtt = 10e6, 0.100
    bdp = rate * MSS / PKT / 8 * rtt / MSS
    out = {}
    for cc in ("westwoodplus", "newreno"):
        sc = (
            ccsim.Builder(duration="120s", seed=1, sample_interval="50ms")
            .dumbbell(
                bottleneck_rate="10Mbps",
                bottleneck_delay="48ms",
                access_rate="1Gbps",
                access_delay="0.5ms",
                buffer="0.5bdp",
            )
            .tcp(cc=cc)
            .flows(count=1, app="bulk")
            .build()
        )
        res = sc.run()
        ev = res.events.filter((pl.col("kind") == "recovery_end") & (pl.col("time_s") > 20))
        assert ev.height >= 5
        fs = res.flow_series.sort("time_s")
        vals = []
        for t in ev["time_s"].to_list():
            row = fs.filter(pl.col("time_s") >= t + 0.05).head(1)
            vals.append(row["ssthresh"][0])
        out[cc] = float(np.median(vals))
    assert abs(out["westwoodplus"] - bdp) / bdp < 0.15, (out, bdp)
    assert abs(out["newreno"] - 0.75 * bdp) / bdp < 0.15, (out, bdp)


ALL = [
    "tahoe",
    "reno",
    "newreno",
    "vegas",
    "westwood",
    "westwoodplus",
    "highspeed",
    "scalable",
    "bic",
    "cubic",
    "bbr",
    "bbr3",
    "dctcp",
    "prague",
    "copa",
]


def test_every_algorithm_is_known_by_its_linux_name() -> None:
    assert sorted(_core.algorithms()) == sorted(ALL)


@pytest.mark.parametrize("cc", ALL)
def test_every_algorithm_runs_conserves_and_repeats(cc: str) -> None:
    sack = "off" if cc == "tahoe" else "rfc6675"
    sc = dumbbell(n=4, duration="8s", rate="20Mbps", buffer="0.5bdp", tcp=dict(cc=cc, sack=sack))
    a, b = sc.run(), sc.run()
    assert a.flows.equals(b.flows) and a.flow_series.equals(b.flow_series)
    assert bottleneck(a)["utilization"] > 0.5
    assert set(a.flows["cc"].to_list()) == {cc}


def test_every_preset_runs() -> None:
    specs = json.loads(_core.algorithm_specs())
    for a in specs:
        for p in a["presets"]:
            sc = dumbbell(n=2, duration="3s", rate="10Mbps", tcp=dict(cc=a["name"], cc_preset=p["name"]))
            res = sc.run()
            assert (res.flows["goodput_bps"] > 1e6).all(), (a["name"], p["name"])


def test_params_override_preset_and_bad_params_name_the_field() -> None:
    sc = dumbbell(
        n=1, duration="2s", rate="10Mbps", tcp=dict(cc="highspeed", cc_preset="choi2004", cc_params={"low_window": 38})
    )
    assert sc.run().flows.height == 1
    with pytest.raises(
        ccsim.ScenarioError,
        match=r"tcp\.cc_params\.low_window: got 40\.5; expected a whole number in \[2, 1000000000\]",
    ):
        dumbbell(n=1, tcp=dict(cc="highspeed", cc_params={"low_window": 40.5}))
    with pytest.raises(
        ccsim.ScenarioError, match=r"tcp\.cc_params\.nope: unknown parameter of cubic; accepted: variant"
    ):
        dumbbell(n=1, tcp=dict(cc="cubic", cc_params={"nope": 1}))
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc_preset: got 'paper'; expected a preset of cubic"):
        dumbbell(n=1, tcp=dict(cc="cubic", cc_preset="paper"))
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc_params\.slow_start: got 'fast'; expected one of 'hystart'"):
        dumbbell(n=1, tcp=dict(cc="cubic", cc_params={"slow_start": "fast"}))
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc_params\.tso: got 1; expected true or false"):
        dumbbell(n=1, tcp=dict(cc="bbr", cc_params={"tso": 1}))
    # cc_preset = "none" is the documented way to write "the defaults" (also for an algorithm without presets)
    for cc in ("westwoodplus", "newreno"):
        a = dumbbell(n=1, duration="3s", rate="10Mbps", tcp=dict(cc=cc)).run().flows
        b = dumbbell(n=1, duration="3s", rate="10Mbps", tcp=dict(cc=cc, cc_preset="none")).run().flows
        assert a["delivered_bytes"].to_list() == b["delivered_bytes"].to_list()
        assert a["delivered_bytes"][0] > 0
