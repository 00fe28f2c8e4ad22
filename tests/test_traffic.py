"""Traffic sources and loss models end to end. Expected values come from the
sources' definitions (ON-OFF duty cycle, the distributions' CDFs, the BER
formula); the Rust unit tests check the generators themselves."""

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from ccsim import Builder
from ccsim.errors import ScenarioError
from ccsim.studies.base import num
from helpers import single_link


def _ks(x: Any, cdf: Callable[[np.ndarray], np.ndarray]) -> float:
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    f = cdf(x)
    i = np.arange(n)
    return float(max(np.max(f - i / n), np.max((i + 1) / n - f)))


def test_udp_onoff_mean_rate_is_peak_times_duty_cycle() -> None:
    # ON ~ Exp(1 s), OFF ~ Exp(2 s), peak 800 kb/s (100 packets/s of 1000 B),
    # 10^5 s ≈ 33 000 cycles: relative standard error ≈ 0.5 %. Each ON period
    # starts with a packet, so counts run ≈ 0.5 packet per period high (0.5 %).
    sc = single_link(
        duration="100000s",
        rate="10Mbps",
        delay="1ms",
        buffer="100pkt",
        sample_interval="off",
        flows=[dict(app="cbr", rate="800kbps", packet_size="1000B", on="1s", off="2s")],
    )
    u = sc.run().udp.row(0, named=True)
    expected = 800e3 / 8 * 100000 * 1 / (1 + 2)
    assert u["bytes_sent"] == pytest.approx(expected, rel=0.03)
    assert u["pkts_received"] == u["pkts_sent"]  # far below the link rate: nothing dropped


def test_cbr_sends_at_its_rate() -> None:
    sc = single_link(
        duration="10s",
        rate="10Mbps",
        delay="5ms",
        buffer="100pkt",
        flows=[dict(app="cbr", rate="31kbps", packet_size="1500B", start="1s", stop="9s")],
    )
    u = sc.run().udp.row(0, named=True)
    # one packet every 1500·8/31000 s from 1 s until before 9 s
    gap = 1500 * 8 / 31e3
    assert u["pkts_sent"] == math.ceil(8 / gap)


def test_schedule_sends_only_inside_its_on_intervals_and_restarts_after_idle() -> None:
    sc = single_link(
        duration="10s",
        rate="10Mbps",
        delay="10ms",
        buffer="1bdp",
        sample_interval="100ms",
        flows=[dict(app="schedule", on=[["2s", "4s"], ["6s", "8s"]])],
    )
    r = sc.run()
    fs = r.flow_series.sort("time_s")
    t = fs["time_s"].to_numpy()
    d = fs["delivered_bytes"].to_numpy()
    assert d[t < 2.0].max() == 0
    # the window is drained within a few RTTs (20 ms) after each OFF edge
    off1 = d[(t >= 4.3) & (t < 6.0)]
    off2 = d[t >= 8.3]
    assert off1.min() == off1.max() and off2.min() == off2.max()
    assert off2[0] > off1[0] > 0
    # 2 s of silence is longer than the RTO: the second ON restarts the window
    assert r.flows["idle_restarts"][0] == 1


def test_web_sessions_draw_sizes_and_think_times_from_their_distributions() -> None:
    mss = 1448
    sc = (
        Builder(duration="300s", seed=5, sample_interval="off")
        .single_link(rate="100Mbps", delay="2ms", buffer="1bdp")
        .tcp(mss=mss)
        .flows(count=20, app="web", think="0.2s")
        .build()
    )
    tr = sc.run().transfers.sort(["flow", "index"])
    done = tr.filter(pl.col("end_s").is_not_nan())
    assert len(done) > 5000
    # object sizes: Pareto II, mean 12 segments, shape 1.2 (ns-2 WebTraf)
    lam = 12 * mss * 0.2
    n = len(tr)
    assert _ks(tr["bytes"], lambda x: 1 - (1 + x / lam) ** -1.2) < 1.95 / math.sqrt(n)
    # think time = next start − previous end of the same session: Exp(0.2 s)
    gaps: list[float] = []
    for _, g in tr.group_by("flow"):
        s, e = g["start_s"].to_numpy(), g["end_s"].to_numpy()
        gaps.extend(s[1:] - e[:-1])
    assert _ks(np.array(gaps), lambda x: 1 - np.exp(-x / 0.2)) < 1.95 / math.sqrt(len(gaps))


def test_repeat_counts_transfers_and_caps_cwnd() -> None:
    sc = single_link(
        duration="60s",
        rate="10Mbps",
        delay="10ms",
        buffer="1bdp",
        flows=[dict(app="repeat", size="200KB", think="0s", transfers=5, max_cwnd=8)],
    )
    r = sc.run()
    tr = r.transfers
    assert len(tr) == 5 and tr["end_s"].is_not_nan().all()
    assert (tr["bytes"] == 200_000).all()
    assert r.flows["delivered_bytes"][0] == 5 * 200_000
    assert num(r.flow_series["cwnd"].max()) <= 8


def test_spread_rtts_and_drawn_starts() -> None:
    b = (
        Builder(duration="10s", seed=2)
        .dumbbell(bottleneck_rate="10Mbps", bottleneck_delay="5ms", access_rate="100Mbps", access_delay="1ms")
        .flows(count=5, rtt={"spread": ["20ms", "100ms"]}, start={"dist": "uniform", "min": "0s", "max": "1s"})
    )
    core = b.build().core
    # access delay per side = (rtt/2 − bottleneck)/2, so each flow's round trip is its spread value
    ms = 10**9
    by_name = {l["name"]: l["delay_ps"] for l in core["links"]}
    rtts = [2 * (5 * ms + by_name[f"src{i}->r0"] + by_name[f"r1->dst{i}"]) for i in range(5)]
    assert rtts == [20 * ms, 40 * ms, 60 * ms, 80 * ms, 100 * ms]
    starts = [f["start_ps"] for f in core["flows"]]
    assert all(0 <= s <= 10**12 for s in starts) and len(set(starts)) == 5
    assert b.build().core == core  # same seed, same draws


def test_ber_loss_is_larger_for_data_than_for_acks() -> None:
    # Both directions see BER 1e-5: data packets (1500 B) are lost with
    # 1 − (1 − 1e-5)^12000 ≈ 0.113, 52-byte ACKs with ≈ 0.0042. A UDP source
    # in each direction gives enough packets to check the rates to 3 %.
    ber = 1e-5
    sc = single_link(
        duration="2000s",
        rate="100Mbps",
        delay="1ms",
        buffer="1000pkt",
        sample_interval="off",
        loss={"kind": "ber", "ber": ber},
        reverse_loss={"kind": "ber", "ber": ber},
        flows=[
            dict(app="cbr", rate="6Mbps", packet_size="1500B"),
            dict(app="cbr", rate="1Mbps", packet_size="52B", direction="reverse"),
        ],
    )
    u = sc.run().udp.sort("id")
    for row, size in zip(u.iter_rows(named=True), (1500, 52)):
        lost = 1 - row["pkts_received"] / row["pkts_sent"]
        assert lost == pytest.approx(1 - (1 - ber) ** (8 * size), rel=0.03)


def test_two_state_channel_loss_equals_share_of_time_in_bad() -> None:
    # Grieco & Mascolo 2004's channel: Good 1 s, Bad d = 50 ms (both fixed), next state Bad
    # with probability 0.5 at every state end; loss 0.1 in Bad. Share of time in
    # Bad = 0.5·d / (0.5·1 s + 0.5·d).
    loss = {
        "kind": "two_state",
        "good": "1s",
        "bad": "50ms",
        "loss_bad": 0.1,
        "to_bad_after_good": 0.5,
        "to_bad_after_bad": 0.5,
    }
    sc = single_link(
        duration="20000s",
        rate="100Mbps",
        delay="1ms",
        buffer="1000pkt",
        sample_interval="off",
        loss=loss,
        flows=[dict(app="cbr", rate="4Mbps", packet_size="500B")],
    )
    u = sc.run().udp.row(0, named=True)
    lost = 1 - u["pkts_received"] / u["pkts_sent"]
    assert lost == pytest.approx(0.1 * 0.05 / 1.05, rel=0.03)


@pytest.mark.parametrize(
    "flow,field",
    [
        (dict(app="onoff", on="1s"), "flows[0].off"),
        (dict(app="cbr"), "flows[0].rate"),
        (dict(app="cbr", rate="1Mbps", on="1s"), "flows[0].off"),
        (dict(app="bulk", size="1KB"), "flows[0].size"),
        (dict(app="schedule", on=[["5s", "2s"]]), "flows[0].on[0]"),
        (dict(app="schedule", on=[["1s", "3s"], ["2s", "4s"]]), "flows[0].on[1]"),
        (dict(app="repeat", size={"dist": "pareto", "mean": "10KB", "shape": 1.0}), "flows[0].size.shape"),
        (dict(app="web", think={"dist": "gamma", "mean": "1s"}), "flows[0].think.dist"),
        (dict(app="repeat", size="10KB", transfers=0), "flows[0].transfers"),
        (dict(app="bulk", start={"dist": "uniform", "min": "2s", "max": "1s"}), "flows[0].start.max"),
    ],
)
def test_bad_traffic_options_name_the_field(flow: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        single_link(duration="10s", flows=[flow])
    assert str(e.value).startswith(field), str(e.value)


@pytest.mark.parametrize(
    "loss,field",
    [
        ({"kind": "ber"}, "topology.loss.ber"),
        ({"kind": "ber", "ber": 2}, "topology.loss.ber"),
        ({"kind": "gilbert", "p": 0.1}, "topology.loss.r"),
        ({"kind": "gilbert", "p": 0, "r": 0}, "topology.loss.r"),
        ({"kind": "two_state", "good": "1s", "bad": "0s", "loss_bad": 0.1}, "topology.loss.bad"),
        ({"kind": "two_state", "good": "1s", "bad": "1s"}, "topology.loss.loss_bad"),
        (
            {"kind": "two_state", "good": "1s", "bad": "1s", "loss_bad": 0.1, "durations": "weibull"},
            "topology.loss.durations",
        ),
        # 1 ns states would make the channel step a billion times per simulated second
        ({"kind": "two_state", "good": "1ns", "bad": "1ns", "loss_bad": 0.1}, "topology.loss.good"),
        (
            {
                "kind": "two_state",
                "good": "1s",
                "bad": {"dist": "uniform", "min": "0.1us", "max": "1us"},
                "loss_bad": 0.1,
            },
            "topology.loss.bad",
        ),
    ],
)
def test_bad_loss_options_name_the_field(loss: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        single_link(duration="10s", loss=loss)
    assert str(e.value).startswith(field), str(e.value)


def test_background_mix_groups_counts_and_caps() -> None:
    # Groups, counts and the nominal web load: sessions = share · rate / (12 · mss · 8 / think).
    from ccsim import background_mix

    g = background_mix(
        "100Mbps", web_share=0.3, web_think="1s", mss=1000, both_ways=True, tcp={"cc": "newreno", "sack": "sack1"}
    )
    assert [x["label"] for x in g] == ["web", "small", "long", "web_rev", "small_rev", "long_rev"]
    assert g[0]["count"] == round(0.3 * 100e6 / (12 * 1000 * 8 / 1.0)) == 312
    assert all(x["sack"] == "sack1" for x in g) and g[1]["max_cwnd"] == 64 and g[1]["count"] == 25
    assert [x["label"] for x in background_mix(20e6, web_share=0, long_lived=0, both_ways=False)] == ["small"]
    with pytest.raises(ScenarioError, match="background_mix.web_share"):
        background_mix("1Gbps", web_share=1.5)
    with pytest.raises(ScenarioError, match=r"background_mix.rtt"):
        background_mix("1Gbps", rtt=("100ms", "20ms"))


def test_background_mix_runs_with_capped_small_flows_and_random_rtts() -> None:
    # Whole behaviour on an uncongested 1 Gb/s dumbbell: each small flow's
    # goodput is bounded by 64 segments per RTT (its cwnd cap); RTTs fall in
    # the drawn range; web sessions complete objects and are, together, below
    # their nominal load (transfer time adds to the think time).
    import ccsim
    from ccsim import background_mix

    flows = background_mix(
        "1Gbps",
        web_share=0.05,
        small=5,
        long_lived=0,
        both_ways=False,
        rtt=("20ms", "60ms"),
        start=("0s", "1s"),
        mss=1000,
    )
    sc = {
        "sim": {"duration": "20s", "sample_interval": "1s", "sample_links": "shared"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1Gbps",
            "bottleneck_delay": "5ms",
            "access_rate": "10Gbps",
            "access_delay": "1ms",
            "buffer": "1bdp",
        },
        "tcp": {"stack": "ns2", "mss": 1000},
        "flows": flows,
    }
    r = ccsim.run(sc)
    f = r.flows
    small = f.filter(pl.col("label") == "small")
    for row in small.iter_rows(named=True):
        assert 0.020 < row["rtt_min_s"] < 0.0605
        cap = 64 * 1000 * 8 / row["rtt_min_s"]
        assert 0 < row["goodput_bps"] <= cap * 1.001
    web = f.filter(pl.col("label") == "web")
    nominal = web.height * 12 * 1000 * 8 / 1.0
    assert web.height == round(0.05 * 1e9 / 96000)
    assert r.transfers.height > web.height  # sessions fetch several objects each
    assert 0 < web["goodput_bps"].sum() < nominal


def test_python_checks_every_application_option_by_the_cores_schema() -> None:
    """The walk of test_queues over the applications (config/app_schema.rs
    APPS): each option's out-of-kind value is refused under the field the
    user wrote, each required option is named when missing, and the rules
    between options the core applies name the user's option too."""
    import json

    from ccsim import _core
    from ccsim.scenario import traffic

    bad: dict[str, Callable[[dict[str, Any]], Any]] = {
        "size": lambda k: "0B" if k["hi"] > 65_535 else "70000B",
        "rate": lambda k: "0bps",
        "size_dist": lambda k: {"dist": "uniform", "min": "0B", "max": "1KB"},
        "time_dist": lambda k: "500ns" if k["min_mean_ps"] else "-1s",
        "intervals": lambda k: [["2s", "3s"], ["1s", "4s"]],
        "int_or_none": lambda k: 0,
        "choice": lambda k: "sometimes",
        "bool": lambda k: "yes",
        "time": lambda k: "0s",
    }
    good = {"size": "10KB", "on": "1s", "off": "1s", "rate": "1Mbps"}
    walked = 0
    for app, spec in traffic.APP_SCHEMA.items():
        base: dict[str, Any] = {"app": app, **{k: good[k] for k in spec["required"]}}
        if app == "schedule":
            base["on"] = [["1s", "2s"]]
        resolved = traffic.app("flows[0]", base, 1448)
        assert resolved["kind"] == spec["core"]
        assert _core.check_app(json.dumps(resolved)) is None
        for o in spec["options"]:
            v = bad[o["kind"]["type"]](o["kind"])
            with pytest.raises(ScenarioError) as e:
                traffic.app("flows[0]", {**base, o["name"]: v}, 1448)
            named = f"flows[0].{o['name']}"  # or a part of it: .mean, [1]
            assert e.value.field.startswith(named) and e.value.field[len(named) :][:1] in ("", ".", "["), (
                app,
                o["name"],
                str(e.value),
            )
            walked += 1
        for k in spec["required"]:
            with pytest.raises(ScenarioError) as e:
                traffic.app("flows[0]", {x: y for x, y in base.items() if x != k}, 1448)
            assert e.value.field == f"flows[0].{k}" and "missing" in str(e.value)
    assert walked >= 15
    # rules between options, applied by the core, named as the user wrote them
    with pytest.raises(ScenarioError) as e:
        traffic.app("f", {"app": "cbr", "rate": "9Tbps"}, 1448)
    assert e.value.field == "f.rate" and "1 ns" in str(e.value) and "9Tbps" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        traffic.app("f", {"app": "cbr", "rate": "1Mbps", "on": "1s"}, 1448)
    assert e.value.field == "f.off" and "missing" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        traffic.app("f", {"app": "onoff", "on": "100ns", "off": "1s"}, 1448)
    assert e.value.field == "f.on" and "1 µs" in str(e.value)
    # web's default object sizes: ns-2 WebTraf's Pareto II, mean 12 segments, shape 1.2
    web = traffic.app("f", {"app": "web"}, 1000)
    assert web["size"] == {"kind": "pareto2", "mean": 12_000.0, "shape": 1.2}
    assert web["think"] == {"kind": "exponential", "mean": 15e12}


def test_background_mix_rtt_classes_share_access_links_and_keep_the_range() -> None:
    """web_rtt_classes = n: the web sessions take the centres of n equal
    parts of the RTT range in turn (their mean is the range's mean, as the
    uniform draw's) and the sessions of a class share one access-link pair;
    small and long-lived flows keep their own draws and links."""
    from ccsim import background_mix

    g = background_mix("100Mbps", rtt=("20ms", "100ms"), both_ways=False, web_rtt_classes=16)
    web, small = g[0], g[1]
    assert web["access"] == "shared" and "access" not in small
    cyc = [float(x.removesuffix("ms")) for x in web["rtt"]["cycle"]]
    assert cyc == [20 + (k + 0.5) * 5 for k in range(16)]
    assert sum(cyc) / len(cyc) == pytest.approx(60.0)
    assert small["rtt"] == {"dist": "uniform", "min": "20ms", "max": "100ms"}
    assert "access" not in background_mix("100Mbps")[0]
    with pytest.raises(ScenarioError, match="background_mix.web_rtt_classes"):
        background_mix("100Mbps", web_rtt_classes=-1)


def test_per_flow_draws_follow_their_distributions_through_the_core() -> None:
    # per-flow times drawn from a distribution table: the front end's
    # uniforms through the core's quantile formulas (rng::Dist::quantile).
    # Medians from the closed forms: exponential mean·ln 2, Pareto I
    # x_m·2^(1/a) with x_m = mean·(a − 1)/a, uniform (min + max)/2.
    from ccsim.scenario.traffic import per_flow_times

    rng = np.random.default_rng(3)
    n = 40_000
    exp = per_flow_times("start", {"dist": "exponential", "mean": "1s"}, n, rng)
    assert abs(np.median(exp) / 1e12 / math.log(2) - 1) < 0.02
    par = per_flow_times("start", {"dist": "pareto", "mean": "1s", "shape": 2.5}, n, rng)
    xm = 1.0 * 1.5 / 2.5
    assert min(par) >= round(xm * 1e12) - 1
    assert abs(np.median(par) / 1e12 / (xm * 2 ** (1 / 2.5)) - 1) < 0.02
    uni = per_flow_times("rtt", {"dist": "uniform", "min": "20ms", "max": "100ms"}, n, rng)
    assert abs(np.median(uni) / 1e9 / 60 - 1) < 0.02
