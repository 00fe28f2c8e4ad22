"""Topology builders: the structure they promise, and behaviour that follows
from it (propagation RTT, multi-bottleneck penalty)."""

from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim import Builder, Scenario
from ccsim.errors import ScenarioError


def test_dumbbell_per_flow_rtt_sets_propagation_delay() -> None:
    # rtt = 60 ms and 120 ms: minimum RTT sample = base RTT + serialization of
    # one 1500-byte data packet on three hops and one 52-byte ACK on three hops
    # (40 bytes of headers + 12 of timestamps, on by default in the Linux stack).
    sc = (
        Builder(duration="10s", sample_interval="off")
        .dumbbell(
            bottleneck_rate="100Mbps", bottleneck_delay="10ms", access_rate="1Gbps", access_delay="1ms", buffer="1bdp"
        )
        .tcp(delayed_ack=False)
        .flows(rtt="60ms", max_cwnd=4)
        .flows(rtt="120ms", max_cwnd=4, direction="reverse")
        .build()
    )
    res = sc.run()
    ser = 1500 * 8 * (2 / 1e9 + 1 / 100e6) + 52 * 8 * (2 / 1e9 + 1 / 100e6)
    got = res.flows["rtt_min_s"].to_list()
    assert got[0] == pytest.approx(0.060 + ser, abs=2e-6)
    assert got[1] == pytest.approx(0.120 + ser, abs=2e-6)
    # the reverse flow's data crosses r1 -> r0
    assert (
        res.links.filter(pl.col("name") == "r1->r0")["bytes_tx"][0]
        > res.links.filter(pl.col("name") == "r0->r1")["bytes_tx"][0] / 2
    )


def test_parking_lot_structure_and_multi_hop_penalty() -> None:
    # 3 hops, one through flow and one cross flow per hop in each direction.
    hops = 3
    sc = (
        Builder(duration="60s", sample_interval="off")
        .parking_lot(
            hops=hops, hop_rate="10Mbps", hop_delay="10ms", access_rate="100Mbps", access_delay="2ms", buffer="50pkt"
        )
        .flows(path="through", label="C1")
        .flows(path="cross", label="fwd")
        .flows(path="cross_reverse", label="rev")
        .build()
    )
    core = sc.core
    assert len(core["flows"]) == 1 + 2 * hops
    assert len(core["nodes"]) == (hops + 1) + 2 * len(core["flows"])
    res = sc.run()
    f = res.flows
    c1 = f.filter(pl.col("label") == "C1")["goodput_bps"][0]
    cross = f.filter(pl.col("label").str.starts_with("fwd"))["goodput_bps"].to_list()
    # Each hop is shared by C1 and one forward cross flow; the through flow
    # sees every hop's losses and a longer RTT, so it gets less than any cross
    # flow (Floyd 1991, "Connections with multiple congested gateways").
    assert all(c1 < x for x in cross), (c1, cross)
    # Every data packet of a cross flow crosses exactly its one hop: the hop's
    # forward link carries C1, its own cross flow and the reverse cross flow's ACKs.
    for h in range(hops):
        assert res.links.filter(pl.col("name") == f"r{h}->r{h + 1}")["pkts_tx"][0] > 0


def _wireless(**kw: Any) -> ccsim.Scenario:
    from ccsim import Builder

    t = dict(
        bottleneck_rate="10Mbps",
        bottleneck_delay="10ms",
        access_rate="100Mbps",
        access_delay="1ms",
        wireless_rate="2Mbps",
        wireless_delay="20ms",
        wireless_loss={"kind": "bernoulli", "p": 0.01},
    )
    t.update(kw)
    return (
        Builder("5s")
        .topology("wireless", **t)
        .flows(count=1, rtt="250ms", label="w")
        .flows(count=2, path="wired", label="cross")
        .flows(count=2, path="wired", direction="reverse", label="rev")
        .build()
    )


def test_wireless_last_hop_carries_the_wireless_flows_only() -> None:
    core = _wireless().core
    links = {l["name"]: l for l in core["links"]}
    ms = 10**9
    # the wireless flow: src0 – r0 (access set by rtt) – r1 – mobile; one-way 125 ms
    assert links["src0->r0"]["delay_ps"] + 10 * ms + 20 * ms == 125 * ms
    assert links["wireless"]["rate_bps"] == 2_000_000 and links["wireless"]["loss"]["kind"] == "bernoulli"
    # the reverse direction gets the same model (its own stream in the core)
    assert links["wireless_reverse"]["loss"] == links["wireless"]["loss"]
    nodes = core["nodes"]
    assert nodes[core["flows"][0]["dst"]] == "mobile"
    assert all(nodes[f["dst"]] != "mobile" and nodes[f["src"]] != "mobile" for f in core["flows"][1:])


def test_wireless_reverse_loss_can_differ_and_errors_name_fields() -> None:
    core = _wireless(wireless_reverse_loss={"kind": "none"}).core
    links = {l["name"]: l for l in core["links"]}
    assert links["wireless_reverse"]["loss"]["kind"] == "none"
    with pytest.raises(ScenarioError, match=r"^topology\.wireless_rate"):
        _wireless(wireless_rate="fast")


def test_satellite_is_a_geo_dumbbell_with_loss_both_ways() -> None:
    from ccsim import Builder

    sc = (
        Builder("5s")
        .topology(
            "satellite",
            bottleneck_rate="10Mbps",
            access_rate="100Mbps",
            access_delay="10ms",
            loss={"kind": "bernoulli", "p": 0.001},
        )
        .flows(count=2)
        .build()
    )
    fwd, rev = sc.core["links"][:2]
    assert fwd["delay_ps"] == rev["delay_ps"] == 275 * 10**9
    assert fwd["loss"] == rev["loss"] == {"kind": "bernoulli", "p": 0.001}


def test_sample_links_selects_the_links_of_the_time_series() -> None:
    # 'shared' keeps the two bottleneck directions of a dumbbell (both ends
    # have more than one neighbour) and drops every host's access link; the
    # bottleneck's rows are the same as when every link is sampled.
    def run(sel: Any) -> ccsim.Result:
        sc = (
            Builder(duration="2s", sample_interval="100ms")
            .dumbbell(bottleneck_rate="10Mbps", bottleneck_delay="10ms", access_rate="100Mbps", access_delay="1ms")
            .flows(count=3)
        )
        raw = sc.build().raw
        if sel is not None:
            raw["sim"]["sample_links"] = sel
        from ccsim import run as ccrun

        return ccrun(raw)

    every, shared, named = run(None), run("shared"), run(["r1->r0"])
    names = dict(zip(every.links["id"].to_list(), every.links["name"].to_list()))
    assert sorted({names[i] for i in shared.link_series["link"].unique()}) == ["r0->r1", "r1->r0"]
    assert {names[i] for i in named.link_series["link"].unique()} == {"r1->r0"}
    assert every.link_series["link"].n_unique() == len(names) == 14
    bott = [k for k, v in names.items() if v == "r0->r1"][0]
    assert shared.link_series.filter(pl.col("link") == bott).equals(every.link_series.filter(pl.col("link") == bott))
    with pytest.raises(ScenarioError, match=r"sim.sample_links\[0\].*r0->r1"):
        run(["r0->r9"])
    # a single link with two flows has no such link: 'shared' would record an
    # empty link_series without a word, and is refused instead
    one = {
        "sim": {"duration": "1s", "sample_links": "shared"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
        "flows": [{"count": 2}],
    }
    with pytest.raises(ScenarioError, match=r"^sim.sample_links: 'shared' selects no link here.*\['a->b'\]"):
        Scenario(one)


def _shared_dumbbell(access: str, rtt: str | dict[str, Any]) -> Scenario:
    return Scenario(
        {
            "sim": {"duration": "4s", "sample_interval": "off"},
            "topology": {
                "kind": "dumbbell",
                "bottleneck_rate": "20Mbps",
                "bottleneck_delay": "5ms",
                "access_rate": "1Gbps",
                "access_delay": "1ms",
            },
            "tcp": {"delayed_ack": False},
            "flows": [
                {"count": 6, "access": access, "rtt": rtt, "max_cwnd": 4},
                {"count": 2, "access": access, "direction": "reverse", "max_cwnd": 4},
            ],
        }
    )


def test_shared_access_gives_one_host_pair_per_rtt_of_a_group() -> None:
    """access = 'shared': the group's flows of one RTT share one access-link
    pair. Six flows cycling over two RTTs make two pairs (8 directions), two
    reverse flows at the access delay one pair; with 'own' every flow has
    its own pair. The base RTT each flow measures is the same either way:
    rtt = 2·(bottleneck delay + 2·access delay) plus one 1500-byte packet's
    and one 52-byte ACK's serialisation on three hops."""
    rtt = {"cycle": ["30ms", "50ms"]}
    shared, own = _shared_dumbbell("shared", rtt), _shared_dumbbell("own", rtt)
    assert len(shared.core["links"]) == 2 + 4 * 3
    assert len(own.core["links"]) == 2 + 4 * 8
    ends = [(f["src"], f["dst"]) for f in shared.core["flows"]]
    assert ends[0] == ends[2] == ends[4] and ends[1] == ends[3] == ends[5] and ends[0] != ends[1]
    assert ends[6] == ends[7]
    names = [lk["name"] for lk in shared.core["links"]]
    assert {"g0.src0->r0", "r1->g0.dst0", "g0.src1->r0", "g1.dst0->r0", "r1->g1.src0"} <= set(names)
    ser = 1500 * 8 * (2 / 1e9 + 1 / 20e6) + 52 * 8 * (2 / 1e9 + 1 / 20e6)
    for sc in (shared, own):
        got = sc.run().flows["rtt_min_s"].to_list()
        for j in range(6):
            assert got[j] == pytest.approx((0.030, 0.050)[j % 2] + ser, abs=2e-6)
        for j in (6, 7):
            assert got[j] == pytest.approx(2 * (0.005 + 2 * 0.001) + ser, abs=2e-6)


def test_access_and_cycle_are_checked_by_name() -> None:
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.access: got 'public'; expected one of 'own', 'shared'"):
        _shared_dumbbell("public", "60ms")
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.rtt\.cycle"):
        _shared_dumbbell("shared", {"cycle": []})
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.rtt\.cycle\[1\]"):
        _shared_dumbbell("shared", {"cycle": ["30ms", "fast"]})
    # a topology without access links has no such option
    raw = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "5ms"},
        "flows": [{"access": "shared"}],
    }
    with pytest.raises(ScenarioError, match=r"flows\[0\]"):
        Scenario(raw)
