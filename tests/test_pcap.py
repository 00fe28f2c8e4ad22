"""pcap export (`sim.pcap`, `ccsim run --pcap`): files an independent reader
(dpkt) parses, with one record per packet that left the link, the
simulator's own sequence numbers and SACK blocks in bytes, and the arrival
times to the nanosecond."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import ccsim
import dpkt
import polars as pl
import pytest
from ccsim import Builder, ScenarioError
from conftest import ROOT
from pytest import MonkeyPatch

MSS = 1448


def _read(path: Path) -> list[Any]:
    out = []
    with open(path, "rb") as f:
        r = dpkt.pcap.Reader(f)
        assert r.datalink() == dpkt.pcap.DLT_RAW or r.datalink() == 101
        for ts, buf in r:
            out.append((ts, dpkt.ip.IP(buf)))
    return out


def _run(tmp_path: Path, **tcp: Any) -> tuple[ccsim.Result, Path]:
    # Two file transfers over a 10 Mb/s bottleneck with a small buffer (so
    # there are drops, retransmissions and SACK blocks), long enough to end:
    # nothing is in flight when the run stops.
    t = {"cc": "cubic", "handshake": True} | tcp
    res = (
        Builder(duration="30s", seed=1, trace=["seq"], pcap=["bottleneck", "r1->r0"])
        .dumbbell(
            bottleneck_rate="10Mbps", bottleneck_delay="10ms", access_rate="100Mbps", access_delay="1ms", buffer="20pkt"
        )
        .tcp(**t)
        .flows(count=2, app="file", size="2MB")
        .build()
        .run()
    )
    out = tmp_path / "r"
    res.write(out)
    return res, out


def test_records_match_the_links_counts_and_the_senders_sequence_trace(tmp_path: Path) -> None:
    res, out = _run(tmp_path)
    fwd, rev = _read(out / "r0-r1.pcap"), _read(out / "r1-r0.pcap")
    links = {r["name"]: r for r in res.links.iter_rows(named=True)}
    assert len(fwd) == links["r0->r1"]["pkts_tx"] - links["r0->r1"]["losses"]
    assert len(rev) == links["r1->r0"]["pkts_tx"] - links["r1->r0"]["losses"]
    assert links["r0->r1"]["drops"] > 0, "the scenario should drop and retransmit"
    # Data segments: the sender's sends and retransmissions, less those the
    # bottleneck (or the access link) dropped, are what crossed r0->r1.
    st = res.table("seq_trace")
    sent = Counter(
        (int(f), int(s) * MSS) for f, k, s in st.select("flow", "kind", "seq").rows() if k in ("send", "rexmit")
    )
    seen: Counter[tuple[int, int]] = Counter()
    for _, ip in fwd:
        tcp = ip.data
        if len(tcp.data) == 0 and ip.len - 4 * ip.hl - 4 * tcp.off > 0:  # headers only: payload by length
            seen[(tcp.sport - 10000, tcp.seq)] += 1
    dropped = sum((sent - seen).values())
    assert not (seen - sent), "every captured segment was sent by the simulator"
    assert dropped == links["r0->r1"]["drops"], (dropped, links["r0->r1"]["drops"])
    # The drops file holds exactly the segments the senders sent that the
    # link did not deliver: the multiset difference, and the link's count.
    drops = _read(out / "r0-r1.drops.pcap")
    assert len(drops) == links["r0->r1"]["drops"] + links["r0->r1"]["losses"]
    in_drops = Counter((ip.data.sport - 10000, ip.data.seq) for _, ip in drops)
    assert in_drops == sent - seen
    assert len(_read(out / "r1-r0.drops.pcap")) == links["r1->r0"]["drops"] + links["r1->r0"]["losses"]
    # ACKs: every ACK number the senders received, in bytes; the one that
    # covers the whole 2 MB file also acknowledges the FIN the last segment
    # carries (pcap.py), so it reads 2,000,000 + 1.
    size = 2_000_000
    acks = Counter(
        (int(f), int(s) * MSS if int(s) * MSS < size else size + 1)
        for f, k, s in st.select("flow", "kind", "seq").rows()
        if k == "ack"
    )
    cap_acks = Counter(
        (ip.data.dport - 10000, ip.data.ack)
        for _, ip in rev
        if ip.data.flags & dpkt.tcp.TH_ACK and not ip.data.flags & dpkt.tcp.TH_SYN
    )
    assert sum((acks - cap_acks).values()) == 0 and sum((cap_acks - acks).values()) == 0


def test_headers_sizes_flags_options_and_times(tmp_path: Path) -> None:
    res, out = _run(tmp_path)
    fwd, rev = _read(out / "r0-r1.pcap"), _read(out / "r1-r0.pcap")
    times = [float(ts) for ts, _ in fwd]
    assert times == sorted(times) and times[0] > 0 and times[-1] <= 30
    # The first packet is flow 0's SYN: it left the sender at 0 and crossed
    # the 100 Mb/s access link (1 ms) and the bottleneck (10 ms): it reaches
    # r1 at 11 ms plus two serializations of its simulated size, 40 header
    # bytes + 12 of timestamps (its pcap length is larger: the MSS, window
    # scale and SACK-permitted options the simulator does not count).
    ts0, syn = fwd[0]
    assert syn.data.flags & dpkt.tcp.TH_SYN
    size = 52
    expect = 0.011 + size * 8 / 100e6 + size * 8 / 10e6
    assert abs(float(ts0) - expect) < 2e-9, (float(ts0), expect)
    # IP total length is the simulated size; data carry mss bytes and the
    # timestamp option (the linux stack's default).
    data = [ip for _, ip in fwd if not ip.data.flags & dpkt.tcp.TH_SYN]
    assert all(ip.len == 1500 for ip in data[:50])
    opts = dpkt.tcp.parse_opts(data[0].data.opts)
    assert any(k == dpkt.tcp.TCP_OPT_TIMESTAMP for k, _ in opts)
    # SACK blocks on the reverse link, in bytes, on segment boundaries.
    sacks = [
        v
        for _, ip in rev
        for k, v in dpkt.tcp.parse_opts(ip.data.opts)
        if k == dpkt.tcp.TCP_OPT_SACK and ip.data.flags & dpkt.tcp.TH_ACK
    ]
    assert sacks, "the drops should give SACK blocks"
    for v in sacks:
        edges = [int.from_bytes(v[i : i + 4], "big") for i in range(0, len(v), 4)]
        assert all(e % MSS == 0 for e in edges) and all(a < b for a, b in zip(edges[::2], edges[1::2]))
    # Addresses are the flows' hosts (node i is 10.(i>>8).(i&255).1), ACKs
    # the other way.
    core = res.scenario.core
    hosts = {(core["flows"][f]["src"], core["flows"][f]["dst"]) for f in range(2)}

    def node(a: bytes) -> int:
        return (a[1] << 8) | a[2]

    assert {(node(ip.src), node(ip.dst)) for ip in data} == hosts
    assert {(node(ip.dst), node(ip.src)) for _, ip in rev} == hosts
    # IPv4 header checksums are valid.
    for _, ip in fwd[:20]:
        raw = bytes(ip)[: 4 * ip.hl]
        s = sum(int.from_bytes(raw[i : i + 2], "big") for i in range(0, len(raw), 2))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        assert s == 0xFFFF


def test_ecn_bits_reach_the_capture(tmp_path: Path) -> None:
    res = (
        Builder(duration="3s", seed=1, pcap=["bottleneck"])
        .dumbbell(
            bottleneck_rate="10Mbps",
            bottleneck_delay="10ms",
            access_rate="100Mbps",
            access_delay="1ms",
            buffer="100pkt",
            queue={"kind": "red", "min_th": 5, "max_th": 5, "w_q": 1, "ecn": True},
        )
        .tcp(cc="dctcp")
        .flows(count=1, app="file", size="1MB")
        .build()
        .run()
    )
    res.write(tmp_path / "e")
    ecn = Counter(ip.tos & 3 for _, ip in _read(tmp_path / "e" / "r0-r1.pcap"))
    marks = res.links.filter(pl.col("name") == "r0->r1")["marks"][0]
    assert ecn[3] == marks > 0 and ecn[2] > 0  # CE as many as the queue marked; ECT(0) the rest


def test_the_cli_option_names_links_and_refuses_unknown_ones(tmp_path: Path) -> None:
    out = tmp_path / "d"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccsim",
            "run",
            str(ROOT / "examples" / "dumbbell.toml"),
            "--set",
            "sim.duration=2s",
            "--pcap",
            "bottleneck",
            "--out",
            str(out),
            "--no-plots",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert len(_read(out / "r0-r1.pcap")) > 1000
    with pytest.raises(ScenarioError, match=r"sim.pcap\[0\]: got 'nope'; expected the name of a link"):
        Builder(duration="1s", pcap=["nope"]).single_link(rate="10Mbps", delay="10ms").flows(count=1).build()


def test_a_capture_that_cannot_fit_in_memory_is_refused_before_the_run(monkeypatch: MonkeyPatch) -> None:
    monkeypatch.setenv("CCSIM_MAX_MEMORY", "100MB")
    with pytest.raises(ScenarioError, match=r"sim.pcap: the recorded tables would need about"):
        Builder(duration="60s", pcap=["bottleneck"]).single_link(rate="10Gbps", delay="10ms").flows(count=1).build()


def test_two_links_whose_names_map_to_one_file_keep_a_file_each(tmp_path: Path) -> None:
    raw = {
        "sim": {"duration": "1s", "pcap": ["a b->c", "a_b->c"]},
        "topology": {
            "kind": "explicit",
            "nodes": ["a b", "a_b", "c"],
            "links": [
                {"a": "a b", "b": "c", "rate": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
                {"a": "a_b", "b": "c", "rate": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
            ],
        },
        "flows": [{"count": 1, "src": "a b", "dst": "c"}, {"count": 1, "src": "a_b", "dst": "c"}],
    }
    from ccsim import Scenario

    res = Scenario(raw).run()
    res.write(tmp_path / "o")
    names = sorted(p.name for p in (tmp_path / "o").glob("a_b-c*.pcap") if "drops" not in p.name)
    assert names == ["a_b-c.link0.pcap", "a_b-c.link2.pcap"]
    a, b = (_read(tmp_path / "o" / n) for n in names)
    assert len(a) > 100 and len(b) > 100 and a != b
