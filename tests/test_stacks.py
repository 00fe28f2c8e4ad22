"""The `linux` and `ns2` stacks: which options they set, that options written
in a scenario override them, and the two growth rules that set them apart
(ns-2 `opencwnd`: one increment per ACK and no cwnd-limited gate; Linux
`tcp_cong_control` / `tcp_is_cwnd_limited`)."""

from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from ccsim.errors import ScenarioError
from ccsim.scenario.tcp_options import STACK_DEFAULTS
from ccsim.studies.base import num
from helpers import single_link


def _tcp(sc: ccsim.Scenario, i: int = 0) -> dict[str, Any]:
    tcp: dict[str, Any] = sc.core["flows"][i]["tcp"]
    return tcp


def test_stack_fills_options_and_explicit_options_win() -> None:
    sc = single_link(duration="1s", tcp=dict(stack="ns2", mss=1460))
    t = _tcp(sc)
    assert t["stack"] == "ns2" and t["rto"] == "ns2" and t["initial_window"] == 2
    assert t["mss"] == 1460  # written, so not the stack's 1000
    # A group's stack overrides the [tcp] table's; the table's explicit
    # options still apply to it.
    sc = single_link(
        duration="1s",
        tcp=dict(stack="ns2", initial_window=4),
        flows=[dict(app="bulk"), dict(app="bulk", stack="linux")],
    )
    a, b = _tcp(sc, 0), _tcp(sc, 1)
    assert (a["rto"], a["initial_window"], a["mss"]) == ("ns2", 4, 1000)
    assert (b["rto"], b["initial_window"], b["mss"]) == ("linux", 4, 1448)


def test_the_core_fills_a_stack_itself() -> None:
    """A scenario handed to the core directly with only some TCP options
    gets the rest from the stack it names (config/tcp.rs)."""
    import json

    from ccsim import _core
    from ccsim.analysis.results import str_cells

    core = single_link(duration="2s").core
    core["flows"][0]["tcp"] = {"stack": "ns2", "cc": "newreno"}
    links = {name: (kind, data) for name, kind, data in _core.run(json.dumps(core))["tables"]["links"]}
    names = str_cells(links["name"][1])
    pkts = np.frombuffer(links["pkts_tx"][1], dtype=np.uint64)
    byts = np.frombuffer(links["bytes_tx"][1], dtype=np.uint64)
    ack = names.index("b->a")
    # ns-2's ACKs carry no timestamps: 40 bytes (the linux stack's are 52).
    assert byts[ack] == 40 * pkts[ack]


def test_bad_stack_is_named() -> None:
    with pytest.raises(ScenarioError, match=r"tcp\.stack.*'linux'.*'ns2'"):
        single_link(duration="1s", tcp=dict(stack="freebsd"))


def test_tahoe_under_the_linux_stack_has_no_sack() -> None:
    t = _tcp(single_link(duration="1s", tcp=dict(cc="tahoe")))
    assert t["sack"] == "off" and t["prr"] is False


def _ca_slope(growth_per: str, delayed_ack: bool) -> float:
    # Congestion avoidance from cwnd 10 on a path it cannot fill (100 Mb/s,
    # RTT 100 ms, BDP 833 segments), no loss: cwnd segments per RTT.
    sc = single_link(
        duration="6s",
        rate="100Mbps",
        delay="50ms",
        buffer="1000pkt",
        sample_interval="100ms",
        tcp=dict(growth_per=growth_per, delayed_ack=delayed_ack, initial_ssthresh=10, sack="off"),
    )
    ts = sc.run().flow_series.filter(pl.col("time_s") >= 1.0)
    t, w = ts["time_s"].to_numpy(), ts["cwnd"].to_numpy()
    rtt = 0.1
    return float(np.polyfit(t, w, 1)[0] * rtt)


@pytest.mark.parametrize("growth_per", ["segment", "ack"])
def test_delayed_acks_halve_per_ack_growth_only(growth_per: str) -> None:
    """RFC 5681 §3.1: counting acked segments, congestion avoidance adds one
    segment per RTT whatever the ACK ratio; ns-2's opencwnd adds 1/cwnd per
    ACK, so with one ACK per two segments it adds half a segment per RTT."""
    every, delayed = _ca_slope(growth_per, False), _ca_slope(growth_per, True)
    assert every == pytest.approx(1.0, rel=0.1)
    want = 1.0 if growth_per == "segment" else 0.5
    assert delayed == pytest.approx(want, rel=0.1), (every, delayed)


@pytest.mark.parametrize("gate", [True, False])
def test_rwnd_limited_flow_grows_cwnd_only_without_the_gate(gate: bool) -> None:
    """A flow held to 20 segments by the receiver's window: Linux's
    tcp_is_cwnd_limited stops growth once cwnd reaches twice the largest
    flight (slow start), ns-2 keeps adding one segment per ACK."""
    sc = single_link(
        duration="5s",
        rate="100Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="100ms",
        tcp=dict(cwnd_limited_gate=gate, rwnd="20pkt", delayed_ack=False, sack="off"),
    )
    cwnd = num(sc.run().flow_series["cwnd"].max())
    if gate:
        assert cwnd <= 2 * 20
    else:
        # 20 ACKs per 20 ms RTT for 5 s: thousands of segments.
        assert cwnd > 1000


def test_stack_defaults_are_what_the_table_says() -> None:
    """Spot checks of the values docs/scenario.md's Stacks table cites, one
    per source: ns-default.tcl (ns-2.35) and Linux 6.x."""
    ns, lx = STACK_DEFAULTS["ns2"], STACK_DEFAULTS["linux"]
    assert (ns["mss"], ns["initial_window"], ns["initial_rto"], ns["clock_granularity"]) == (1000, 2, "3s", "10ms")
    assert (lx["initial_window"], lx["max_rto"], lx["sack"], lx["timestamps"]) == (10, "120s", "rfc6675", True)


def _first_fr(res: ccsim.Result) -> dict[str, Any]:
    cs = res.table("cc_state")
    return cs.filter(pl.col("cause") == "fast_retransmit").row(0, named=True)


@pytest.mark.parametrize("base", ["cwnd", "flight"])
def test_reno_ssthresh_halves_cwnd_or_flightsize(base: str) -> None:
    """A flow held to 20 segments in flight by the receiver's window, whose
    cwnd has grown past that (slow start keeps growing while cwnd < 2 × the
    largest flight, Linux tcp_is_cwnd_limited): Linux tcp_reno_ssthresh and
    ns-2 slowdown halve cwnd, RFC 5681 eq. 4 halves FlightSize (20)."""
    sc = single_link(
        duration="3s",
        rate="100Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        loss={"kind": "scripted", "drop": [200]},
        trace=["cc"],
        tcp=dict(cc="newreno", rwnd="20pkt", delayed_ack=False, sack="off", ssthresh_base=base),
    )
    res = sc.run()
    fr = res.events.filter(pl.col("kind") == "fast_retransmit").row(0, named=True)
    cwnd_before = int(fr["value"])
    assert cwnd_before > 20  # the premise: cwnd above what is in flight
    want = max(cwnd_before // 2, 2) if base == "cwnd" else 20 // 2
    assert _first_fr(res)["ssthresh"] == want


def _rexmit_packet_number(res: ccsim.Result, seq: int) -> int:
    """1-based number, among the data packets the sender put on the wire,
    of the first retransmission of `seq` (what a scripted drop counts)."""
    st = res.table("seq_trace").filter(pl.col("kind") != "ack").with_row_index("n", offset=1)
    return int(st.filter((pl.col("kind") == "rexmit") & (pl.col("seq") == seq))["n"][0])


@pytest.mark.parametrize("rule", ["linux", "ns2"])
def test_rto_inside_newreno_recovery(rule: str) -> None:
    """Packet 200 is lost and so is its fast retransmission: NewReno
    without SACK can only repair that by the RTO, which fires during the
    recovery. Linux tcp_enter_loss keeps the recovery's ssthresh; ns-2
    TcpAgent::timeout halves window() again, and that window is inflated by
    one segment per duplicate ACK (RFC 5681 §3.2 step 4: ssthresh + 3 at the
    third, + 1 for each further one), so ssthresh rises."""
    tcp = dict(cc="newreno", delayed_ack=False, sack="off", rto_ssthresh=rule, initial_ssthresh=60, rwnd="100pkt")
    first = single_link(
        duration="3s",
        rate="10Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        loss={"kind": "scripted", "drop": [200]},
        trace=["seq"],
        tcp=tcp,
    ).run()
    hole = 199  # 0-based segment number of packet 200 (no retransmission before it)
    n = _rexmit_packet_number(first, hole)
    res = single_link(
        duration="3s",
        rate="10Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        loss={"kind": "scripted", "drop": [200, n]},
        trace=["seq", "cc"],
        tcp=tcp,
    ).run()
    cs = res.table("cc_state")
    fr = cs.filter(pl.col("cause") == "fast_retransmit").row(0, named=True)
    to = cs.filter(pl.col("cause") == "timeout").row(0, named=True)
    assert fr["time_s"] < to["time_s"]
    if rule == "linux":
        assert to["ssthresh"] == fr["ssthresh"]
    else:
        acks = res.table("seq_trace").filter(
            (pl.col("kind") == "ack") & (pl.col("seq") == hole) & (pl.col("time_s") < to["time_s"])
        )
        dupacks = acks.height - 1  # the first ACK for `hole` is not a duplicate
        inflated = fr["ssthresh"] + 3 + (dupacks - 3)
        assert to["ssthresh"] == max(inflated // 2, 2)
        assert to["ssthresh"] > fr["ssthresh"]


@pytest.mark.parametrize("receiver_sack", [True, False])
def test_sack1_sender_with_a_sink_that_sends_no_sack_blocks(receiver_sack: bool) -> None:
    """Three segments of one window lost (packets 200, 203, 206). ns-2's
    Sack1 retransmits the holes below the highest SACKed segment
    (ScoreBoard::GetNextRetran), so with SACK blocks all three are repaired
    in one recovery; behind a plain TCPSink its scoreboard stays empty, the
    first hole is resent by the fast retransmit and the others only by the
    retransmission timer. The sink's ACKs then carry no SACK option."""
    sc = single_link(
        duration="5s",
        rate="10Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        loss={"kind": "scripted", "drop": [200, 203, 206]},
        tcp=dict(stack="ns2", sack="sack1", receiver_sack=receiver_sack, rwnd="64pkt"),
    )
    res = sc.run()
    f = res.flows.row(0, named=True)
    links = res.links
    ack = links.filter(pl.col("name") == "b->a").row(0, named=True)
    if receiver_sack:
        assert (f["timeouts"], f["retransmits"]) == (0, 3)
        assert ack["bytes_tx"] > 40 * ack["pkts_tx"]  # SACK options on some ACKs
    else:
        assert f["timeouts"] >= 1
        assert ack["bytes_tx"] == 40 * ack["pkts_tx"]
