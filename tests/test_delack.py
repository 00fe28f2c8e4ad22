"""The receiver's ACK timing: Linux's quick-ACK mode and adaptive delayed-ACK
timer (net/ipv4/tcp_input.c tcp_event_data_recv, tcp_incr_quickack;
tcp_output.c tcp_send_delayed_ack; include/net/tcp.h TCP_ATO_MIN = 40 ms,
TCP_DELACK_MAX = 200 ms, TCP_MAX_QUICKACKS = 16) against the fixed timer of
RFC 1122 §4.2.3.2 and ns-2's DelAckSink."""

from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim.studies.base import num
from helpers import single_link

MSS = 1448


def _file(segs: int, extra_bytes: int = 0, **tcp: Any) -> ccsim.Result:
    # The quick-ACK quota and the timers alone: the receive window's raises
    # add immediate ACKs of their own (tests/test_rcvwnd.py).
    tcp.setdefault("rcv_autotune", False)
    sc = single_link(
        duration="3s",
        rate="100Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        trace=["seq"],
        flows=[dict(app="file", size=f"{segs * MSS + extra_bytes}B")],
        tcp=dict(cc="newreno", **tcp),
    )
    return sc.run()


@pytest.mark.parametrize("timer,quick,want", [("linux", 16, 16), ("fixed", 0, 8), ("linux", 4, 4 + 6)])
def test_quickack_quota_acks_the_first_segments_one_by_one(timer: str, quick: int, want: int) -> None:
    """16 full segments: a Linux receiver in quick-ACK mode ACKs each of the
    first `quickack` at once and then every second one (RFC 5681 §4.2);
    without quick-ACK every second one."""
    res = _file(16, delack_timer=timer, quickack=quick)
    assert res.flows["acks_sent"][0] == want


def _last_ack_wait(res: ccsim.Result) -> float:
    """Time from the last data segment's arrival (one-way delay after it was
    sent, plus its serialisation) to the ACK that completes the transfer
    leaving the receiver: the receiver's ACK delay."""
    st = res.table("seq_trace")
    last_send = num(st.filter(pl.col("kind") == "send")["time_s"].max())
    last_ack = num(st.filter(pl.col("kind") == "ack")["time_s"].max())
    # RTT without queueing: 2 × 10 ms plus a 1500- and a 52-byte packet at 100 Mb/s.
    rtt = 0.020 + (1500 + 52) * 8 / 100e6
    return last_ack - last_send - rtt


@pytest.mark.parametrize("timer,want", [("linux", 0.040), ("fixed", 0.200)])
def test_a_lone_last_segment_waits_for_the_delayed_ack_timer(timer: str, want: float) -> None:
    """After the quick-ACK segments, 16 + 11 full segments leave the last one
    alone: its ACK waits for the timer. Linux: ato = TCP_ATO_MIN = 40 ms (the
    segments arrive ≤ 20 ms apart, so ato stays at ato/2 + 20 ms = 40 ms);
    fixed: delack_timeout = 200 ms."""
    res = _file(27, delack_timer=timer, quickack=16 if timer == "linux" else 0, delack_timeout="200ms")
    assert _last_ack_wait(res) == pytest.approx(want, abs=0.002)


@pytest.mark.parametrize("timer,want", [("linux", 0.0), ("fixed", 0.200)])
def test_a_short_last_segment_is_acked_at_once_by_linux(timer: str, want: float) -> None:
    """The same transfer with a 100-byte last segment: Linux marks the ACK
    pushed (tcp_measure_rcv_mss) and sends it when the application reads the
    data (tcp_cleanup_rbuf); a fixed-timer receiver still waits."""
    res = _file(26, extra_bytes=100, delack_timer=timer, quickack=16 if timer == "linux" else 0)
    assert _last_ack_wait(res) == pytest.approx(want, abs=0.002)


@pytest.mark.parametrize("timer,want", [("linux", 2 * (8 + 1)), ("fixed", (8 + 1) + 5)])
def test_quickack_is_granted_again_after_idle(timer: str, want: int) -> None:
    """tcp_event_data_recv re-arms quick-ACK mode when data arrives after a
    gap longer than the RTO. Two ON periods 2 s apart, each sending the
    10-segment initial window; rwnd = 16 segments caps the quota at
    16/2 = 8 (tcp_incr_quickack). Linux: 8 single ACKs and one for the last
    two segments in each period; a receiver whose quota is only granted
    once ACKs the second period's 10 segments in pairs."""
    sc = single_link(
        duration="3s",
        rate="100Mbps",
        delay="10ms",
        buffer="1000pkt",
        sample_interval="off",
        flows=[dict(app="schedule", on=[["0s", "0.0003s"], ["2s", "2.0003s"]])],
        tcp=dict(
            cc="newreno",
            rwnd="16pkt",
            quickack=8 if timer == "fixed" else 16,
            delack_timer=timer,
            rcv_autotune=False,
        ),
    )
    f = sc.run().flows.row(0, named=True)
    assert f["data_pkts_sent"] == 20
    assert f["acks_sent"] == want
