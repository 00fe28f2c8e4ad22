"""Links whose rate varies: mahimahi packet-delivery traces (Netravali et
al., USENIX ATC 2015, `mm-link`) and piecewise-constant rate schedules with
outages. The per-opportunity rules of mahimahi's link_queue.cc are worked by
hand in crates/ccsim-core/src/link/trace.rs; here whole scenarios are
checked against the arithmetic of the trace or schedule."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from ccsim import Builder, ScenarioError
from ccsim.studies.base import num
from helpers import plotted_figures
from pytest import MonkeyPatch

PKT = 1500  # bytes on the wire of a CBR packet of packet_size 1500B
OPP_BITS = 1504 * 8  # one mahimahi delivery opportunity (PACKET_SIZE)


def _trace(path: Path, lines: Iterable[int | str]) -> str:
    path.write_text("".join(f"{x}\n" for x in lines))
    return str(path)


def _cbr(
    cbr: str,
    start: str = "0s",
    stop: str = "0.5s",
    duration: str = "3s",
    sample: str = "10ms",
    buffer: str = "1000pkt",
    **link: Any,
) -> ccsim.Result:
    return (
        Builder(duration=duration, seed=1, sample_interval=sample)
        .single_link(delay="10ms", buffer=buffer, **link)
        .flows(count=1, app="cbr", rate=cbr, packet_size="1500B", start=start, stop=stop)
        .build()
        .run()
    )


def _queue(res: ccsim.Result, link: int = 0) -> np.ndarray:
    return res.link_series.filter(pl.col("link") == link)["queue_pkts"].to_numpy().astype(np.int64)


def test_a_constant_trace_is_a_fixed_link_of_its_mean_rate(tmp_path: Path) -> None:
    # One opportunity per millisecond: 1504 B/ms = 12.032 Mb/s. Open loop
    # (CBR at twice that for 0.5 s into a deep buffer) the queue series is
    # the fixed link's to the packet; closed loop (CUBIC, BBR) the goodput is
    # within 0.1 %.
    tr = _trace(tmp_path / "const", range(1, 1001))
    a, b = _cbr("24Mbps", trace=tr), _cbr("24Mbps", rate="12.032Mbps")
    assert np.abs(_queue(a) - _queue(b)).max() <= 1
    assert _queue(a).max() >= 450  # the burst did queue (12 Mb/s excess for 0.5 s ≈ 500)
    assert a.links["rate_bps"][0] == 12_032_000
    for cc in ("cubic", "bbr"):
        g = []
        for link in ({"trace": tr}, {"rate": "12.032Mbps"}):
            res = (
                Builder(duration="20s", seed=1)
                .single_link(delay="20ms", buffer="100pkt", **link)
                .tcp(cc=cc)
                .flows(count=1, app="bulk")
                .build()
                .run()
            )
            g.append(res.flows["goodput_bps"][0])
        assert abs(g[0] - g[1]) / g[1] < 1e-3, (cc, g)


def test_a_bdp_buffer_on_a_trace_link_uses_its_mean_rate(tmp_path: Path) -> None:
    # 12.032 Mb/s × 40 ms / (8 · 1500 B) = 40.1 → 40 packets.
    tr = _trace(tmp_path / "const", range(1, 1001))
    sc = Builder(duration="1s").single_link(delay="20ms", trace=tr, buffer="1bdp").flows(count=1).build()
    assert sc.core["links"][0]["queue"]["limit_pkts"] == 40


def test_goodput_stays_under_a_varying_trace_and_bbr_follows_its_capacity(tmp_path: Path) -> None:
    # 2 s at two opportunities per ms (24.064 Mb/s), 2 s at one per 2 ms
    # (6.016 Mb/s), repeating. Goodput is at most the trace's capacity times
    # the payload share (1448/1500); BBR's delivery-rate estimate is near
    # each phase's capacity by the end of the phase.
    lines = [t for ms in range(1, 2001) for t in (ms, ms)] + list(range(2002, 4001, 2))
    tr = _trace(tmp_path / "step", lines)
    cap = {"hi": 2 * OPP_BITS * 1000, "lo": OPP_BITS * 500}
    mean = (2000 * 2 + 1000) * OPP_BITS / 4.0
    for cc in ("cubic", "bbr"):
        res = (
            Builder(duration="40s", seed=1, sample_interval="100ms")
            .single_link(delay="20ms", buffer="2bdp", trace=tr)
            .tcp(cc=cc)
            .flows(count=1, app="bulk")
            .build()
            .run()
        )
        assert res.links["rate_bps"][0] == int(mean)
        assert res.flows["goodput_bps"][0] <= mean * 1448 / 1500
        assert res.flows["goodput_bps"][0] >= 0.7 * mean * 1448 / 1500, cc
        if cc == "bbr":
            fs = res.flow_series.filter(pl.col("flow") == 0)
            for phase, t0 in (("hi", 1.8), ("lo", 3.8)):
                # the last 0.2 s of each phase, over the last 8 periods
                sel = fs.filter(((pl.col("time_s") % 4.0) >= t0 - 0.001) & ((pl.col("time_s") % 4.0) < t0 + 0.2))
                sel = sel.filter(pl.col("time_s") > 8)
                est = num(sel["delivery_rate_bps"].median()) * 1500 / 1448
                assert 0.75 * cap[phase] <= est <= 1.1 * cap[phase], (phase, est, cap[phase])


def test_a_rate_step_builds_the_queue_at_the_rate_difference() -> None:
    # CBR 30 Mb/s; the link steps from 50 to 10 Mb/s at 1 s: the queue grows
    # by (30 − 10) Mb/s / (8 · 1500 B) = 1666.7 packets per second.
    res = _cbr("30Mbps", stop="2s", duration="2s", sample="100ms", rate=[[0, "50Mbps"], ["1s", "10Mbps"]])
    ls = res.link_series.filter(pl.col("link") == 0)
    q = dict(zip(ls["time_s"].round(3).to_list(), ls["queue_pkts"].to_list()))
    assert q[1.0] <= 1
    for t in (1.1, 1.2, 1.3, 1.5):
        expect = (t - 1.0) * 20e6 / (8 * PKT)
        assert abs(q[t] - expect) <= 2, (t, q[t], expect)
    assert res.links["rate_bps"][0] == 50_000_000


def test_an_outage_holds_packets_and_loses_none_below_the_buffer() -> None:
    # CBR 6 Mb/s; the link is off from 1 s to 2 s: 6e6 / (8 · 1500) = 500
    # packets wait (buffer 1000), none is lost, and the queue drains at the
    # restored 50 Mb/s minus the 6 Mb/s still arriving.
    res = _cbr("6Mbps", stop="3s", duration="3s", sample="50ms", rate=[[0, "50Mbps"], ["1s", 0], ["2s", "50Mbps"]])
    ls = res.link_series.filter(pl.col("link") == 0)
    q = dict(zip(ls["time_s"].round(3).to_list(), ls["queue_pkts"].to_list()))
    assert abs(q[2.0] - 500) <= 2 and abs(q[1.5] - 250) <= 2
    drain = 500 / ((50e6 - 6e6) / (8 * PKT))  # 0.136 s
    assert q[2.2] <= 1 and drain < 0.15  # drained by 2.2 s
    assert res.links["drops"][0] == 0
    assert res.links["pkts_tx"][0] == res.links["pkts_offered"][0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1\n3\n2\n", "line 3: 2 ms is earlier than the line before (3 ms)"),
        ("1\n-2\n", "line 2: '-2' is not a whole, non-negative number of milliseconds"),
        ("1\nabc\n", "line 2: 'abc' is not a whole"),
        ("", "no delivery opportunities"),
        ("0\n0\n", "the last opportunity is at 0 ms"),
        ("1\n\n2\n", "line 2: empty line"),
    ],
)
def test_bad_traces_name_the_field_the_file_the_line_and_the_value(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "bad.trace"
    p.write_text(text)
    with pytest.raises(ScenarioError, match="topology.trace") as e:
        Builder(duration="1s").single_link(delay="10ms", trace=str(p)).flows(count=1).build()
    assert str(p) in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    "link, field, accepted",
    [
        ({"rate": [["1s", "10Mbps"]]}, "topology.rate[0][0]", "0 for the first step"),
        ({"rate": [[0, "10Mbps"], ["1s", 0]]}, "topology.rate[1][1]", "an outage must end"),
        ({"rate": [[0, "10Mbps"], ["2s", "5Mbps"], ["1s", "8Mbps"]]}, "topology.rate[2][0]", "a time after"),
        ({"rate": [[0, 0], ["1s", "8Mbps"]]}, "topology.rate[0][1]", "a rate above 0 at the start"),
        ({"rate": [[0]]}, "topology.rate[0]", "a pair [time, rate]"),
        ({"rate": []}, "topology.rate", "a non-empty list"),
        ({"rate": "10Mbps", "trace_offset": "1s"}, "topology.trace_offset", "given without topology.trace"),
    ],
)
def test_bad_schedules_name_the_field(link: dict[str, Any], field: str, accepted: str) -> None:
    with pytest.raises(ScenarioError) as e:
        Builder(duration="1s").single_link(delay="10ms", **link).flows(count=1).build()
    assert str(e.value).startswith(field) and accepted in str(e.value), str(e.value)


def test_a_trace_and_a_rate_together_and_missing_or_oversized_files_are_refused(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    tr = _trace(tmp_path / "t", range(1, 101))
    with pytest.raises(ScenarioError, match=r"topology.trace: a trace sets the rate; give rate or trace, not both"):
        Builder(duration="1s").single_link(delay="10ms", rate="10Mbps", trace=tr).flows(count=1).build()
    with pytest.raises(ScenarioError, match=r"topology.trace: cannot read trace .*nope"):
        Builder(duration="1s").single_link(delay="10ms", trace=str(tmp_path / "nope")).flows(count=1).build()
    monkeypatch.setenv("CCSIM_MAX_FILE_BYTES", "100")
    with pytest.raises(ScenarioError, match=r"topology.trace: trace .* has \d+ bytes, more than the limit of 100"):
        Builder(duration="1s").single_link(delay="10ms", trace=tr).flows(count=1).build()


def test_a_file_that_is_not_a_trace_is_never_quoted_beyond_a_short_token(tmp_path: Path) -> None:
    # a symlink to a file of secrets: the error shows at most 16 printable
    # characters of the first token, never the line
    secret = tmp_path / "secret"
    secret.write_text("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY hunter2\n")
    link = tmp_path / "link.trace"
    link.symlink_to(secret)
    with pytest.raises(ScenarioError) as e:
        Builder(duration="1s").single_link(delay="10ms", trace=str(link)).flows(count=1).build()
    msg = str(e.value)
    assert "'AWS_SECRET_ACCES…'" in msg and "wJalr" not in msg and "hunter2" not in msg
    # a 10 MB first line gives a short error
    big = tmp_path / "big.trace"
    big.write_text("x" * 10_000_000 + "\n")
    with pytest.raises(ScenarioError) as e:
        Builder(duration="1s").single_link(delay="10ms", trace=str(big)).flows(count=1).build()
    assert len(str(e.value)) < 300


@pytest.mark.parametrize("kind", ["fifo", "dev"])
def test_a_trace_that_is_not_a_regular_file_is_refused_before_it_is_opened(tmp_path: Path, kind: str) -> None:
    import os

    if kind == "fifo":
        p = tmp_path / "pipe.trace"
        os.mkfifo(p)  # opening it for reading would block until a writer came
    else:
        p = tmp_path / "zero.trace"
        p.symlink_to("/dev/zero")  # would read without end
    with pytest.raises(ScenarioError, match=r"topology.trace: .* is not a regular file"):
        Builder(duration="1s").single_link(delay="10ms", trace=str(p)).flows(count=1).build()
    import ccsim

    with pytest.raises(ValueError, match="not a regular file"):
        ccsim._core.load_trace(str(p))


def test_a_trace_path_is_taken_from_the_scenario_files_directory_and_its_content_is_the_identity(
    tmp_path: Path,
) -> None:
    import ccsim

    _trace(tmp_path / "link.trace", range(1, 11))
    f = tmp_path / "s.toml"
    f.write_text(
        '[sim]\nduration = "1s"\n[topology]\nkind = "dumbbell"\ntrace = "link.trace"\ntrace_offset = "3ms"\n'
        'bottleneck_delay = "10ms"\naccess_rate = "1Gbps"\naccess_delay = "1ms"\n[[flows]]\ncount = 1\n'
    )
    sc = ccsim.load(f)
    bott = next(l for l in sc.core["links"] if l["name"] == "r0->r1")
    v = bott["varying"]
    assert v["path"] == str((tmp_path / "link.trace").resolve()) and v["offset_ps"] == 3 * 10**9
    # the reverse direction follows the forward one when it has no trace of its own
    assert next(l for l in sc.core["links"] if l["name"] == "r1->r0")["varying"] == v
    h = v["sha256"]
    _trace(tmp_path / "link.trace", range(1, 12))
    i = sc.core["links"].index(bott)
    assert ccsim.load(f).core["links"][i]["varying"]["sha256"] != h


@pytest.mark.parametrize(
    "queue, buffer",
    [(q, "200pkt") for q in ("droptail", "red", "codel", "fq_codel", "pie", "dualpi2")] + [("droptail", "300KB")],
)
def test_every_queue_discipline_works_in_front_of_a_trace(tmp_path: Path, queue: str, buffer: str) -> None:
    # The 24/6 Mb/s square-wave trace behind each discipline (enqueue-time
    # and dequeue-time ones): goodput within the trace's capacity, and the
    # delay-based AQMs keep the RTT far below DropTail's full buffer.
    lines = [t for ms in range(1, 2001) for t in (ms, ms)] + list(range(2002, 4001, 2))
    tr = _trace(tmp_path / "step", lines)
    mean = (2000 * 2 + 1000) * OPP_BITS / 4.0
    res = (
        Builder(duration="20s", seed=1)
        .single_link(delay="20ms", buffer=buffer, trace=tr, queue=queue)
        .tcp(cc="cubic")
        .flows(count=2, app="bulk")
        .build()
        .run()
    )
    g = res.flows["goodput_bps"].sum()
    assert 0.6 * mean * 1448 / 1500 <= g <= mean * 1448 / 1500, g
    rtt = num(res.flows["rtt_mean_s"].mean())
    if queue in ("codel", "fq_codel", "pie", "dualpi2"):
        assert rtt < 0.12, rtt  # DropTail's 200 packets at 6 Mb/s alone are 0.4 s


def test_access_hop_and_wireless_rates_take_schedules_and_the_last_hop_a_trace(tmp_path: Path) -> None:
    tr = _trace(tmp_path / "const", range(1, 1001))  # 12.032 Mb/s
    common = dict(bottleneck_rate="100Mbps", bottleneck_delay="10ms", access_delay="1ms")
    sc = (
        Builder(duration="10s")
        .topology(
            "wireless", **common, access_rate=[[0, "1Gbps"], ["5s", "2Mbps"]], wireless_delay="5ms", wireless_trace=tr
        )
        .flows(count=1, app="bulk")
        .build()
    )
    links = sc.core["links"]
    mobile = [lk for lk in links if lk["name"].startswith("wireless")]
    assert mobile and all(lk["varying"]["kind"] == "trace" and lk["rate_bps"] == 12_032_000 for lk in mobile)
    access = [lk for lk in links if lk.get("varying", {}).get("kind") == "schedule"]
    assert access and all(lk["rate_bps"] == 10**9 for lk in access)
    res = sc.run()
    # the flow crosses an access link that drops to 2 Mb/s at 5 s and the
    # 12.032 Mb/s last hop: it delivers at most 5 s × 12.032 + 5 s × 2 Mb/s
    g = res.flows["goodput_bps"][0] * 10
    assert g <= (5 * 12.032e6 + 5 * 2e6) * 1448 / 1500
    assert g >= 0.6 * (5 * 12.032e6 + 5 * 2e6) * 1448 / 1500
    pl_ = (
        Builder(duration="2s")
        .topology(
            "parking_lot",
            hops=2,
            hop_rate=[[0, "10Mbps"], ["1s", "5Mbps"]],
            hop_delay="5ms",
            access_rate="1Gbps",
            access_delay="1ms",
        )
        .flows(count=1, app="bulk", path="through")
        .build()
    )
    assert sum(1 for lk in pl_.core["links"] if lk.get("varying", {}).get("kind") == "schedule") == 4


def test_parking_lot_hops_replay_a_trace(tmp_path: Path) -> None:
    """hop_trace: every hop replays the trace, in both directions. With a
    constant trace (one 1504-byte opportunity per millisecond; a waiting
    packet takes the 4 bytes a 1500-byte one leaves) each hop carries
    12.032 Mb/s of wire bytes when busy: the through flow and that hop's
    cross flow together get 12.032 Mb/s × 1448/1500 of payload, less only
    what filling the pipe costs. (Per-flow shares differ from a fixed
    12.032 Mb/s hop's: a packet waits for the next opportunity, so the
    flows' losses fall differently; one flow alone agrees within 0.1 %,
    test_a_constant_trace_is_a_fixed_link_of_its_mean_rate.)"""
    tr = _trace(tmp_path / "const", range(1, 1001))

    def scenario(**hop: Any) -> ccsim.Scenario:
        return (
            Builder(duration="20s", seed=1)
            .topology(
                "parking_lot", hops=2, hop_delay="10ms", access_rate="1Gbps", access_delay="1ms", buffer="60pkt", **hop
            )
            .flows(count=1, path="through")
            .flows(count=1, path="cross")
            .build()
        )

    sc = scenario(hop_trace=tr)
    hops = [lk for lk in sc.core["links"] if lk["name"] in ("r0->r1", "r1->r0", "r1->r2", "r2->r1")]
    assert len(hops) == 4 and all(lk["varying"]["kind"] == "trace" for lk in hops)
    g = sc.run().flows["goodput_bps"].to_numpy()  # through, cross hop 1, cross hop 2
    cap = 12_032_000 * 1448 / 1500
    for hop_total in (g[0] + g[1], g[0] + g[2]):
        assert 0.97 * cap <= hop_total <= 1.001 * cap, (g, cap)
    with pytest.raises(ScenarioError, match="topology.hop_trace: a trace sets the rate"):
        scenario(hop_trace=tr, hop_rate="10Mbps")


def test_a_varying_link_gets_a_capacity_figure_with_queueing_delay(tmp_path: Path) -> None:
    """The figure a researcher reads a varying link by: capacity and carried
    traffic per interval, goodput, and each flow's queueing delay (smoothed
    RTT less its smallest, so the base RTT is out: it starts near 0 and rises
    when the rate steps down under a backlogged flow). A fixed link gets none."""
    from ccsim.analysis import plot

    sc = (
        Builder(duration="6s", seed=1, sample_interval="100ms")
        .single_link(rate=[[0, "20Mbps"], ["3s", "5Mbps"]], delay="20ms", buffer="200pkt")
        .tcp(cc="cubic")
        .flows(count=1, app="bulk")
        .build()
    )
    sc.run().write(tmp_path)
    figs = plotted_figures(tmp_path)
    assert (tmp_path / "capacity.png").exists()
    top, low = figs["capacity"].axes[:2]
    cap = next(line for line in top.get_lines() if str(line.get_label()).endswith("capacity"))
    t, c = np.asarray(cap.get_xdata()), np.asarray(cap.get_ydata())
    assert abs(np.median(c[t <= 3.0]) - 20) < 0.5 and abs(np.median(c[t > 3.1]) - 5) < 0.5
    assert "queueing delay" in low.get_ylabel()
    (delay,) = low.get_lines()
    d, td = np.asarray(delay.get_ydata()), np.asarray(delay.get_xdata())
    assert d.min() >= -1e-6  # never below the flow's smallest RTT
    # at 5 Mb/s a 200-packet buffer holds up to 200 · 1.5 kB · 8 / 5 Mb/s = 480 ms
    assert d[td > 4.0].max() > 100 and d.max() < 480 + 100
    fixed = tmp_path / "fixed"
    Builder(duration="1s", seed=1, sample_interval="100ms").single_link(rate="20Mbps", delay="20ms").flows(
        count=1, app="bulk"
    ).build().run().write(fixed)
    plot.plot_dir(fixed)
    assert not (fixed / "capacity.png").exists()
