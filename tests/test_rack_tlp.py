"""Loss recovery as a current Linux sender runs it (the `linux` stack): RACK
and TLP (RFC 8985), D-SACK (RFC 2883), undo and F-RTO (RFC 5682), and the
netem-like reordering link model they are tested with. Expected values come
from the RFCs' rules: RACK finds a lost retransmission one round trip after
it was sent, where RFC 6675 alone must wait for the RTO; a probe 2·SRTT
after the last ACK repairs a tail loss; a D-SACK shows a retransmission was
not needed. The step-by-step rules are Rust unit tests (tcp/tests.rs)."""

from typing import Any

import ccsim
import polars as pl
import pytest
from helpers import single_link

RATE, DELAY = "20Mbps", "30ms"
RTT = 0.060
MIN_RTO = 0.200


def _file(segs: int, drop: list[int] | None, trace: list[str] | None = None, **tcp: Any) -> ccsim.Result:
    sc = single_link(
        duration="5s",
        rate=RATE,
        delay=DELAY,
        buffer="100pkt",
        loss={"kind": "scripted", "drop": drop} if drop else None,
        trace=trace,
        tcp=dict(cc="newreno", **tcp),
        flows=[dict(app="file", size=f"{segs * 1448}B")],
    )
    return sc.run()


def _retransmission_index(segs: int, first: int) -> int:
    """Which data packet on the link is the first retransmission after
    packet `first` is dropped (the runs are identical up to it)."""
    st = _file(segs, [first], trace=["seq"]).table("seq_trace").filter(pl.col("kind") != "ack")
    return st["kind"].to_list().index("rexmit") + 1


def _repaired_at(res: ccsim.Result, seq: int) -> float:
    """When the cumulative ACK first passed segment `seq`."""
    st = res.table("seq_trace")
    return float(st.filter((pl.col("kind") == "ack") & (pl.col("seq") > seq))["time_s"][0])


def test_a_lost_retransmission_is_repaired_in_one_round_trip_with_rack() -> None:
    """RFC 8985 §3.3: once a segment sent after the retransmission is SACKed,
    the retransmission is lost (the window is 0 in recovery), about one RTT
    after it went, and goes again. Without RACK nothing reveals the loss but
    the RTO, at least min_rto later. Packet 20 is segment 19."""
    r = _retransmission_index(60, 20)
    runs = {}
    for rack in (True, False):
        once = _file(60, [20], trace=["seq"], rack=rack)
        twice = _file(60, [20, r], trace=["seq"], rack=rack)
        runs[rack] = (twice.flows.row(0, named=True), _repaired_at(twice, 19) - _repaired_at(once, 19))
    f, extra = runs[True]
    assert (f["timeouts"], f["retransmits"], f["lost_retransmits"]) == (0, 2, 1)
    assert 0.8 * RTT <= extra <= 2 * RTT, extra
    g, extra = runs[False]
    assert g["timeouts"] == 1 and g["lost_retransmits"] == 0
    assert extra >= MIN_RTO


def _tail(n: int, k: int, **tcp: Any) -> dict[str, Any]:
    """A transfer of n segments whose last k data packets are dropped."""
    st = _file(n, None, trace=["seq"]).table("seq_trace").filter(pl.col("kind") != "ack")
    return _file(n, list(range(st.height - k + 1, st.height + 1)), **tcp).flows.row(0, named=True)


def test_a_lost_last_segment_is_probed_not_timed_out() -> None:
    """Linux tcp_schedule_loss_probe: with one segment out the probe waits
    2·SRTT + min_rto (the peer may delay its ACK), capped by the RTO, so a
    lone lost last segment is repaired by a probe at the RTO's time: same
    completion, but no timeout (no window collapse, no back-off)."""
    tlp, rto = _tail(40, 1), _tail(40, 1, tlp=False)
    assert (tlp["tlp_probes"], tlp["timeouts"], tlp["retransmits"]) == (1, 0, 1)
    assert (rto["tlp_probes"], rto["timeouts"]) == (0, 1)
    assert tlp["fct_s"] == pytest.approx(rto["fct_s"], abs=0.005)


def test_a_lost_tail_of_two_costs_a_probe_timeout_not_an_rto() -> None:
    """RFC 8985 §7: with two segments out the probe goes 2·SRTT + 2 ms after
    the last ACK and resends the last segment; its SACK lets RACK mark the
    other lost once the reordering window has passed (min_rtt/4: fewer than
    DupThresh segments are SACKed), and one more round trip repairs it. The
    RTO alternative waits at least SRTT + min_rto and then goes back to a
    window of one."""
    clean = _file(40, None).flows.row(0, named=True)
    tlp, rto = _tail(40, 2), _tail(40, 2, tlp=False)
    assert (tlp["tlp_probes"], tlp["timeouts"], tlp["retransmits"]) == (1, 0, 2)
    srtt = tlp["rtt_mean_s"]
    extra = tlp["fct_s"] - clean["fct_s"]
    assert 2 * srtt <= extra <= 2 * srtt + 0.002 + 2 * RTT + RTT / 4, (extra, srtt)
    assert rto["timeouts"] == 1
    assert rto["fct_s"] - clean["fct_s"] >= srtt + MIN_RTO


def _reordering(**tcp: Any) -> ccsim.Result:
    # 1 % of the data packets held 2.1 ms, 3.5 packet times at 20 Mb/s, so
    # three later segments overtake each: three SACKs, DupThresh's trigger.
    # The receiver window keeps the queue below the buffer: no losses.
    sc = single_link(
        duration="30s",
        rate=RATE,
        delay=DELAY,
        buffer="200pkt",
        reorder={"probability": 0.01, "delay": "2.1ms"},
        tcp=dict(cc="newreno", rwnd="150pkt", **tcp),
    )
    return sc.run()


def test_rack_tolerates_reordering_that_fools_dupthresh() -> None:
    """Every held packet is a spurious fast retransmit for DupThresh 3. RACK
    (reordering window min_rtt/4 = 15 ms once reordering has been seen, RFC
    8985 §6.2) retransmits at most the first: before any reordering has been
    seen its window is 0 with three segments SACKed, as Linux's."""
    rack = _reordering()
    dup = _reordering(rack=False)
    f, g = rack.flows.row(0, named=True), dup.flows.row(0, named=True)
    held = dup.links.row(0, named=True)["reordered"]
    assert held > 100
    assert rack.links.row(0, named=True)["drops"] == dup.links.row(0, named=True)["drops"] == 0
    assert f["retransmits"] <= 1 and f["reorder_seen"] > 0
    # DupThresh: about one spurious retransmission per held packet, each
    # answered by a D-SACK (the receiver had the original) and undone.
    assert g["retransmits"] >= 0.9 * held, (g["retransmits"], held)
    # (the last retransmission or its D-SACK may still be on its way when
    # the run ends)
    assert g["retransmits"] - 1 <= g["dup_segs_received"] <= g["retransmits"]
    assert g["dup_segs_received"] - 1 <= g["dsacks_received"] <= g["dup_segs_received"]
    assert g["undos"] >= 0.9 * g["fast_retransmits"]


def test_undo_keeps_the_window_through_spurious_retransmits() -> None:
    """Without undo each spurious fast retransmit halves the window for
    good; with D-SACK undo (Linux tcp_try_undo_dsack) the window comes back
    and the flow keeps the link busy."""
    with_undo = _reordering(rack=False).flows.row(0, named=True)
    without = _reordering(rack=False, undo=False).flows.row(0, named=True)
    assert without["undos"] == 0
    assert with_undo["goodput_bps"] > 0.9 * 20e6 * 1448 / 1500
    assert without["goodput_bps"] < 0.5 * with_undo["goodput_bps"]


def test_reordering_delivers_everything_and_is_deterministic() -> None:
    """Held packets come out again: a transfer over a reordering link
    completes with every byte delivered, and the same seed repeats it."""
    size = 3000 * 1448

    def run() -> ccsim.Result:
        sc = single_link(
            duration="10s",
            rate=RATE,
            delay=DELAY,
            buffer="200pkt",
            reorder={"jitter": "1ms", "probability": 0.02, "delay": "4ms"},
            tcp=dict(cc="cubic"),
            flows=[dict(app="file", size=f"{size}B")],
        )
        return sc.run()

    a, b = run(), run()
    f = a.flows.row(0, named=True)
    assert f["delivered_bytes"] == size and f["fct_s"] == f["fct_s"]
    assert a.links.row(0, named=True)["reordered"] > 0
    assert a.flows.equals(b.flows) and a.links.equals(b.links)


def test_jitter_reorders_and_rack_adapts() -> None:
    """Uniform jitter of 3 ms (5 packet times) reorders constantly; RACK's
    window (min_rtt/4 = 15 ms) covers it, so retransmissions stay rare,
    while DupThresh retransmits spuriously again and again."""

    def run(**tcp: Any) -> dict[str, Any]:
        sc = single_link(
            duration="20s",
            rate=RATE,
            delay=DELAY,
            buffer="200pkt",
            reorder={"jitter": "3ms"},
            tcp=dict(cc="cubic", rwnd="150pkt", **tcp),
        )
        return sc.run().flows.row(0, named=True)

    rack, dup = run(), run(rack=False)
    assert rack["pkts_dropped"] == dup["pkts_dropped"] == 0
    assert rack["retransmits"] <= 2
    assert dup["retransmits"] >= 50 * max(rack["retransmits"], 1)


def test_reorder_errors_name_the_field() -> None:
    from ccsim.errors import ScenarioError

    with pytest.raises(ScenarioError, match=r"topology\.reorder\.probability"):
        single_link(reorder={"probability": 1.5, "delay": "1ms"})
    with pytest.raises(ScenarioError, match=r"topology\.reorder\.delay"):
        single_link(reorder={"probability": 0.1})
    with pytest.raises(ScenarioError, match=r"topology\.reorder"):
        single_link(reorder={"jiter": "1ms"})
    with pytest.raises(ScenarioError, match=r"tcp\.rack"):
        single_link(tcp=dict(sack="off", rack=True))
