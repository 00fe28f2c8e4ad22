"""Counters that add up: what a link transmitted and what a flow put on the
wire can never exceed the link's capacity over the run (rate × time), and
packets are conserved (offered = transmitted + dropped + still waiting).
Expected values come from the configured rates and durations only."""

from __future__ import annotations

import ccsim
import polars as pl
import pytest
from helpers import single_link


def _overloaded(queue: str = "droptail") -> ccsim.Scenario:
    # 1 Mb/s, 1 s, a 100-segment initial window into a 1000-packet queue:
    # most of the first flight is still waiting when the run ends.
    return single_link(
        duration="1s",
        rate="1Mbps",
        delay="10ms",
        buffer="1000pkt",
        queue=queue,
        sample_interval="50ms",
        tcp={"initial_window": 100, "delayed_ack": False},
    )


@pytest.mark.parametrize("queue", ["droptail", "codel"])
def test_link_counts_what_it_transmitted_not_what_it_admitted(queue: str) -> None:
    r = _overloaded(queue).run()
    fwd = r.links.filter(pl.col("name") == "a->b").row(0, named=True)
    capacity = 1e6 * 1.0 / 8  # bytes in 1 s at 1 Mb/s
    assert fwd["bytes_tx"] <= capacity + 1500, fwd  # at most one packet in progress at the end
    assert fwd["bytes_tx"] >= 0.95 * capacity  # and the link was busy throughout
    assert fwd["utilization"] == pytest.approx(fwd["bytes_tx"] * 8 / 1e6, abs=0.02)
    # conservation: every offered packet was transmitted, dropped, or still waits
    waiting_at_end = fwd["pkts_offered"] - fwd["pkts_tx"] - fwd["drops"]
    assert waiting_at_end >= 0
    if queue == "droptail":
        assert waiting_at_end > 50  # most of the 100-segment flight
    # the series agrees with the capacity at every sample
    s = r.link_series.filter(pl.col("link") == fwd["id"])
    assert (s["bytes_tx"].to_numpy() <= 1e6 / 8 * s["time_s"].to_numpy() + 1500).all()
    assert (s["bytes_tx"].diff().drop_nulls() >= 0).all()


def test_flow_throughput_never_exceeds_its_first_hop() -> None:
    r = _overloaded().run()
    f = r.flows.row(0, named=True)
    assert f["throughput_bps"] <= 1e6 + 1500 * 8, f  # the packet in progress at the end counts whole
    assert f["goodput_bps"] <= f["throughput_bps"]
    assert f["data_pkts_sent"] > 100  # the sender did hand over more than that


def test_flow_throughput_excludes_first_hop_drops() -> None:
    # an 8-packet access queue refuses most of a 100-segment initial window
    sc = single_link(
        duration="1s", rate="1Mbps", delay="10ms", buffer="8pkt", tcp={"initial_window": 100, "delayed_ack": False}
    )
    r = sc.run()
    f = r.flows.row(0, named=True)
    fwd = r.links.filter(pl.col("name") == "a->b").row(0, named=True)
    assert fwd["drops"] > 50
    assert f["throughput_bps"] <= 1e6 + 1500 * 8


def test_repeated_transfers_report_their_minimum_rtt() -> None:
    # Each object of a repeat/web flow opens a new connection (and a new RTT
    # estimator); the flow's rtt_min_s is the smallest sample over all of
    # them: at least the path's propagation RTT (20 ms) plus a full packet's
    # serialization, and defined even when the last connection is idle.
    sc = single_link(
        duration="10s", rate="10Mbps", delay="10ms", buffer="1bdp", flows=[dict(app="repeat", size="50KB", think="1s")]
    )  # ends in a think time
    f = sc.run().flows.row(0, named=True)
    assert f["rtt_samples"] > 0
    assert 0.020 + 1500 * 8 / 10e6 <= f["rtt_min_s"] <= f["rtt_mean_s"]
