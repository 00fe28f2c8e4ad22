"""Mininet's link: a token-bucket shaper (Linux tc HTB or TBF on a veth, no
serialisation of its own) and netem's queue, whose limit counts the packets
in its delay line. The bucket rules are worked by hand in
crates/ccsim-core/src/link/transmitter.rs (burst, rate over short and long
windows); here whole scenarios are checked against the rate arithmetic,
Little's law and the propagation delay."""

from __future__ import annotations

from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim import Builder, ScenarioError

WIRE = 1500  # bytes of a CBR packet of packet_size 1500B
ETH = 14  # bytes the shaper counts on top (Ethernet header on a veth)


def _cbr(cbr: str, *, duration: str = "3s", stop: str = "2s", **link: Any) -> ccsim.Result:
    return (
        Builder(duration=duration, seed=1, sample_interval="10ms")
        .single_link(**link)
        .flows(count=1, app="cbr", rate=cbr, packet_size="1500B", start="0s", stop=stop)
        .build()
        .run()
    )


def _delivered_rate(res: ccsim.Result, t0: float, t1: float, link: int = 0) -> float:
    """IP bits per second the link sent in (t0, t1] (its bytes_tx counter)."""
    s = res.link_series.filter(pl.col("link") == link).sort("time_s")
    a = s.filter(pl.col("time_s") <= t0)["bytes_tx"][-1]
    b = s.filter(pl.col("time_s") <= t1)["bytes_tx"][-1]
    return float((b - a) * 8 / (t1 - t0))


@pytest.mark.parametrize("kind", ["htb", "tbf"])
def test_a_saturated_shaper_delivers_its_rate_less_the_header_it_counts(kind: str) -> None:
    # CBR at twice the rate into a deep queue: from the moment the queue
    # holds packets the shaper releases 10 Mb/s of 1514-byte frames, i.e.
    # 10 Mb/s × 1500/1514 of IP packets.
    res = _cbr("20Mbps", rate="10Mbps", delay="10ms", shaper=kind, queue="netem", buffer="5000pkt")
    got = _delivered_rate(res, 0.5, 1.5)
    assert got == pytest.approx(10e6 * WIRE / (WIRE + ETH), rel=2e-3)
    assert res.links["drops"][0] == 0


def test_a_shaped_link_adds_the_delay_alone_to_the_round_trip() -> None:
    # A veth behind the shaper has no serialisation: the smallest RTT a
    # sender measures is twice the delay, where the serialising link adds a
    # data packet's and an ACK's transmission at 10 Mb/s.
    def min_rtt(**link: Any) -> float:
        res = (
            Builder(duration="2s", seed=1)
            .single_link(rate="10Mbps", delay="10ms", **link)
            .flows(count=1, app="bulk")
            .build()
            .run()
        )
        return float(res.flows["rtt_min_s"][0])

    assert min_rtt(shaper="htb", queue="netem") == pytest.approx(0.020, abs=1e-9)
    ser = min_rtt(buffer="1000pkt") - 0.020
    assert 1500 * 8 / 10e6 < ser < (1500 + 100) * 8 / 10e6  # data packet + a bare ACK


def test_netems_limit_holds_the_delay_line_by_littles_law() -> None:
    # 9 Mb/s of CBR never queues at 10 Mb/s, but a 50 ms delay line holds
    # 9e6 × 0.05 / 12000 ≈ 37 packets. netem's limit of 20 counts them: by
    # Little's law at most 20 packets per 50 ms get through, 4.8 Mb/s, and
    # the rest are refused; a DropTail of 20 (waiting packets only) refuses
    # none.
    link = {"rate": "10Mbps", "delay": "50ms", "shaper": "htb", "buffer": "20pkt"}
    nm = _cbr("9Mbps", queue="netem", **link)
    assert _delivered_rate(nm, 0.5, 1.5) == pytest.approx(20 * WIRE * 8 / 0.05, rel=0.02)
    assert nm.links["drops"][0] > 0
    dt = _cbr("9Mbps", queue="droptail", **link)
    assert dt.links["drops"][0] == 0
    assert _delivered_rate(dt, 0.5, 1.5) == pytest.approx(9e6, rel=0.01)


def test_a_netem_queue_defaults_to_netems_own_limit() -> None:
    res = _cbr("1Mbps", rate="10Mbps", delay="10ms", queue="netem", duration="0.2s", stop="0.1s")
    assert res.links["queue"][0] == "netem"
    assert res.links["limit_pkts"][0] == 1000  # iproute2 tc/q_netem.c: limit 1000


@pytest.mark.parametrize(
    "link, field, words",
    [
        ({"shaper": "cake"}, "topology.shaper.kind", "'htb', 'tbf'"),
        ({"shaper": {"kind": "tbf", "cburst": "2000B"}}, "topology.shaper.cburst", "accepted keys"),
        ({"shaper": {"kind": "htb", "burst": "0B"}}, "topology.shaper.burst", "at least 1 byte"),
        ({"shaper": {"kind": "htb", "overhead": 5000}}, "topology.shaper.overhead", "1000"),
        ({"shaper": {"kind": "tbf", "burst": "1000B"}}, "topology.shaper.burst", "cannot hold one packet"),
        ({"reverse_shaper": {"kind": "tbf", "burst": "1000B"}}, "topology.reverse_shaper.burst", "one packet"),
        ({"shaper": "htb", "rate": [[0, "10Mbps"], ["1s", "5Mbps"]]}, "topology.shaper", "fixed rate"),
        ({"queue": "netem", "buffer": "100KB"}, "topology.buffer", "counts packets"),
    ],
)
def test_bad_shapers_and_netem_buffers_name_the_field(link: dict[str, Any], field: str, words: str) -> None:
    link = {"rate": "10Mbps", "delay": "10ms", **link}
    with pytest.raises(ScenarioError) as e:
        Builder(duration="1s").single_link(**link).flows(count=1, app="bulk").build()
    assert e.value.field == field
    assert words in str(e.value)


def test_the_dumbbell_bottleneck_and_explicit_links_take_a_shaper() -> None:
    # The shaper sits on the bottleneck (both directions by default); the
    # access links keep serialising.
    res = (
        Builder(duration="3s", seed=1)
        .dumbbell(
            bottleneck_rate="10Mbps",
            bottleneck_delay="10ms",
            access_rate="100Mbps",
            access_delay="1ms",
            shaper="htb",
            queue="netem",
        )
        .flows(count=1, app="cbr", rate="20Mbps", packet_size="1500B", start="0s", stop="2s")
        .build()
    )
    shaped = [lk["name"] for lk in res.core["links"] if lk.get("shaper")]
    assert shaped == ["r0->r1", "r1->r0"]
    bottleneck = [lk["name"] for lk in res.core["links"]].index("r0->r1")
    got = _delivered_rate(res.run(), 0.5, 1.5, link=bottleneck)
    assert got == pytest.approx(10e6 * WIRE / (WIRE + ETH), rel=2e-3)
    ex = (
        Builder(duration="1s")
        .explicit(
            nodes=["a", "b"],
            links=[{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "shaper": "tbf", "reverse_shaper": "htb"}],
            bdp_rtt="10ms",
        )
        .flows(count=1, app="bulk", src="a", dst="b")
        .build()
    )
    assert [lk["shaper"]["rule"] for lk in ex.core["links"]] == ["tbf", "htb"]
