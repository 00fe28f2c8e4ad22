"""Result tables of an emulated run, in the simulator's column names.

Where a column comes from the kernel, this says how (``TCP_INFO`` fields are
Linux's ``struct tcp_info``; counters from the namespace's ``/proc/net/netstat``):

flows: ``delivered_bytes`` = bytes the sink read; ``goodput_bps`` over the
flow's active time (start to completion, or to the end), as the simulator;
``throughput_bps`` from ``tcpi_bytes_sent`` (retransmissions included);
``data_pkts_sent`` = ``tcpi_data_segs_out``; ``retransmits`` =
``tcpi_total_retrans``; ``timeouts`` = the namespace's ``TcpExtTCPTimeouts``
when the sending host carries one flow (NaN otherwise); ``rtt_min_s`` =
``tcpi_min_rtt``; ``rtt_mean_s`` = mean of the sampled ``tcpi_rtt`` (srtt);
``fct_s`` = sink's last byte − the sender's ``connect()`` call (the SYN);
``fct_data_s`` = sink's last byte − ``connect()`` returning (the first data
byte leaves right after).

flow_series (every ``sim.sample_interval``, from ``TCP_INFO``): ``cwnd``
(``tcpi_snd_cwnd``), ``ssthresh`` (inf while the kernel's is infinite),
``srtt_s``, ``rto_s``, ``inflight_bytes`` ((unacked − sacked − lost +
retrans) × mss, Linux's ``tcp_packets_in_flight``), ``delivered_bytes``
(``tcpi_bytes_acked``), ``snd_una`` (the same in segments), ``bytes_sent``,
``retransmits``, ``ca_state`` (the kernel's ``tcpi_ca_state`` written in
the simulator's code: open and disorder 0, CWR 1, recovery 2, loss 3; see
``KERNEL_CA_STATE``), ``pacing_rate_bps``, ``delivery_rate_bps``;
for a BBR flow also ``bbr_bw_bps``, ``bbr_pacing_gain`` and ``bbr_cwnd_gain``
(``TCP_CC_INFO``, Linux ``bbr_get_info``; NaN for other algorithms).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.results import Result, str_raw
from ..scenario.topologies import link_capacity_bps

INF_SSTHRESH = 0x7FFFFFFF

# enum tcp_ca_state (include/net/tcp.h: Open 0, Disorder 1, CWR 2, Recovery
# 3, Loss 4) to the flow_series code the simulator writes (0 open, 1 CWR,
# 2 recovery, 3 loss): the simulator has no disorder code (a flow with
# duplicate ACKs below the threshold is open there), so disorder reads 0.
KERNEL_CA_STATE = (0, 0, 1, 2, 3)


def _raw(cols: Mapping[str, list[Any] | np.ndarray]) -> list[Any]:
    """Columns in the core's raw form: (name, dtype, bytes, or for
    strings (codes, values): `str_raw`)."""
    out: list[tuple[str, str, tuple[Any, ...] | bytes]] = []
    for name, v in cols.items():
        if isinstance(v, list) and v and isinstance(v[0], str):
            out.append((name, "str", str_raw(v)))
            continue
        a = np.asarray(v)
        if len(a) == 0 or a.dtype.kind == "f":
            out.append((name, "f8", a.astype("f8").tobytes()))
        elif a.dtype.kind == "i" and (a < 0).any():
            out.append((name, "i8", a.astype("i8").tobytes()))
        else:
            out.append((name, "u8", a.astype("u8").tobytes()))
    return out


def build_tables(
    core: dict[str, Any],
    fwd_raw: dict[str, Any],
    agents: dict[tuple[str, int], Any],
    hosts: list[dict[str, Any]],
    *,
    late_setup_ns: int,
    routes: dict[int, tuple[list[int], list[int]]],
    twin_min_rtts: Callable[[], list[float]] | None = None,
    other_cpu: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Turn the forwarder's tables and the agents' JSON into result tables
    and the run's self-validation block."""
    flows = core["flows"]
    nodes = core["nodes"]
    end_s = float(fwd_raw["sim_time_s"])
    f_cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "id",
            "src",
            "dst",
            "cc",
            "kernel_cc",
            "label",
            "start_s",
            "delivered_bytes",
            "goodput_bps",
            "throughput_bps",
            "data_pkts_sent",
            "retransmits",
            "timeouts",
            "rtt_mean_s",
            "rtt_min_s",
            "rtt_base_s",
            "fct_s",
            "fct_data_s",
            "start_late_s",
        )
    }
    s_cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "time_s",
            "flow",
            "cwnd",
            "ssthresh",
            "srtt_s",
            "rto_s",
            "inflight_bytes",
            "delivered_bytes",
            "snd_una",
            "bytes_sent",
            "retransmits",
            "ca_state",
            "pacing_rate_bps",
            "delivery_rate_bps",
            "bbr_bw_bps",
            "bbr_pacing_gain",
            "bbr_cwnd_gain",
        )
    }
    t_cols: dict[str, list[Any]] = {
        k: [] for k in ("flow", "label", "index", "bytes", "start_s", "first_data_s", "end_s", "fct_s", "fct_data_s")
    }
    senders_per_node: dict[int, int] = {}
    for f in flows:
        senders_per_node[f["src"]] = senders_per_node.get(f["src"], 0) + 1
    host_by_node = {h["node"]: h for h in hosts}
    rtt_checks = []
    errors = []
    for i, f in enumerate(flows):
        snd, snk = agents[("send", i)], agents[("sink", i)]
        for who, a in (("sender", snd), ("sink", snk)):
            if a.get("error"):
                errors.append(f"flow {i} {who}: {a['error']}")
        t = f["tcp"]
        start_s = f["start_ps"] * 1e-12
        size = f["app"].get("bytes") if f["app"]["kind"] == "file" else None
        got = int(snk.get("bytes", 0))
        last = snk.get("last_ns")
        done = size is not None and got >= size and last is not None
        syn = snd.get("syn_ns")
        est = snd.get("established_ns")
        fct = (last - syn) * 1e-9 if done and syn is not None else math.nan
        fct_data = (last - est) * 1e-9 if done and est is not None else math.nan
        active = (last * 1e-9 if done else end_s) - start_s
        fin = snd.get("final") or {}
        samples = snd.get("samples", [])
        base = _base_rtt(core, routes[i], t)
        min_rtt = fin.get("min_rtt", 0) * 1e-6 if fin.get("min_rtt") else math.nan
        rtts = [s[1]["rtt"] * 1e-6 for s in samples if s[1]["rtt"]]
        h = host_by_node[nodes[f["src"]]]
        f_cols["id"].append(i)
        f_cols["src"].append(nodes[f["src"]])
        f_cols["dst"].append(nodes[f["dst"]])
        f_cols["cc"].append(t["cc"])
        f_cols["kernel_cc"].append(snd.get("cc", ""))
        f_cols["label"].append(f.get("label", ""))
        f_cols["start_s"].append(start_s)
        f_cols["delivered_bytes"].append(got)
        f_cols["goodput_bps"].append(got * 8 / active if active > 0 else 0.0)
        f_cols["throughput_bps"].append(fin.get("bytes_sent", 0) * 8 / active if active > 0 else 0.0)
        f_cols["data_pkts_sent"].append(fin.get("data_segs_out", 0))
        f_cols["retransmits"].append(fin.get("total_retrans", 0))
        f_cols["timeouts"].append(
            float(h["netstat"].get("TcpExtTCPTimeouts", math.nan)) if senders_per_node[f["src"]] == 1 else math.nan
        )
        f_cols["rtt_mean_s"].append(float(np.mean(rtts)) if rtts else math.nan)
        f_cols["rtt_min_s"].append(min_rtt)
        f_cols["rtt_base_s"].append(base)
        f_cols["fct_s"].append(fct)
        f_cols["fct_data_s"].append(fct_data)
        f_cols["start_late_s"].append(snd.get("start_late_ns", 0) * 1e-9)
        rtt_checks.append((min_rtt, base, *_min_rtt_slack(core, routes[i], t, f, flows)))
        for ts, info in samples:
            s_cols["time_s"].append(ts * 1e-9)
            s_cols["flow"].append(i)
            s_cols["cwnd"].append(info["snd_cwnd"])
            s_cols["ssthresh"].append(math.inf if info["snd_ssthresh"] >= INF_SSTHRESH else float(info["snd_ssthresh"]))
            s_cols["srtt_s"].append(info["rtt"] * 1e-6 if info["rtt"] else math.nan)
            s_cols["rto_s"].append(info["rto"] * 1e-6)
            s_cols["inflight_bytes"].append(
                max(0, info["unacked"] - info["sacked"] - info["lost"] + info["retrans"]) * info["snd_mss"]
            )
            s_cols["delivered_bytes"].append(info["bytes_acked"])
            s_cols["snd_una"].append(info["bytes_acked"] // max(1, info["snd_mss"]))
            s_cols["bytes_sent"].append(info["bytes_sent"])
            s_cols["retransmits"].append(info["total_retrans"])
            s_cols["ca_state"].append(KERNEL_CA_STATE[info["ca_state"]])
            s_cols["pacing_rate_bps"].append(info["pacing_rate"] * 8.0)
            s_cols["delivery_rate_bps"].append(info["delivery_rate"] * 8.0)
            s_cols["bbr_bw_bps"].append(info["bbr_bw"] * 8.0 if "bbr_bw" in info else math.nan)
            s_cols["bbr_pacing_gain"].append(info["bbr_pacing_gain"] / 256 if "bbr_pacing_gain" in info else math.nan)
            s_cols["bbr_cwnd_gain"].append(info["bbr_cwnd_gain"] / 256 if "bbr_cwnd_gain" in info else math.nan)
        if size is not None:
            t_cols["flow"].append(i)
            t_cols["label"].append(f.get("label", ""))
            t_cols["index"].append(0)
            t_cols["bytes"].append(size)
            t_cols["start_s"].append(start_s)
            t_cols["first_data_s"].append(est * 1e-9 if est is not None else math.nan)
            t_cols["end_s"].append(last * 1e-9 if done else math.nan)
            t_cols["fct_s"].append(fct)
            t_cols["fct_data_s"].append(fct_data)
    fw = {name: (dtype, data) for name, dtype, data in fwd_raw["tables"]["forwarder"]}

    def one(name: str) -> float:
        dtype, data = fw[name]
        return float(np.frombuffer(data, dtype=dtype)[0])

    # Lateness is judged up to the last byte of the last transfer (or the
    # end): the connection teardown after it (FIN exchange, agents exiting)
    # cannot change any measured number.
    lt = {name: np.frombuffer(data, dtype=dtype) for name, dtype, data in fwd_raw["tables"].pop("lateness")}
    lasts = [agents[("sink", i)].get("last_ns") for i, f in enumerate(flows) if f["app"]["kind"] == "file"]
    judge_until = end_s
    if lasts and all(x is not None for x in lasts) and len(lasts) == len(flows):
        judge_until = max(lasts) * 1e-9
    late = np.sort(lt["late_s"][lt["time_s"] <= judge_until])

    def q(p: float) -> float:
        return float(late[int(round(p / 100 * (len(late) - 1)))]) if len(late) else math.nan

    unmodelled = int(one("write_errors")) + sum(
        int(h.get("tx_dropped", 0)) + int(h.get("rx_dropped", 0)) for h in hosts
    )
    lat99 = q(99)
    rtt_err = max((abs(m - b) for m, b, *_ in rtt_checks if not math.isnan(m)), default=math.nan)
    problems = []
    if unmodelled:
        problems.append(f"{unmodelled} packets dropped outside the model (TUN queues or writes)")
    if not math.isnan(lat99) and lat99 > LATENESS_MAX_S:
        problems.append(f"forwarder lateness p99 {lat99 * 1e3:.3f} ms > {LATENESS_MAX_S * 1e3:g} ms")
    rtt_problems, twin_judged = judge_min_rtts(rtt_checks, twin_min_rtts)
    problems += rtt_problems
    if late_setup_ns > 0:
        problems.append(f"set-up finished {late_setup_ns / 1e6:.1f} ms after time 0")
    problems += errors
    emu = {
        "backend": "linux-kernel",
        "kernel": os.uname().release,
        "lateness_p50_s": q(50),
        "lateness_p99_s": lat99,
        "lateness_max_s": q(100),
        "lateness_judged_until_s": judge_until,
        "lateness_max_whole_run_s": one("lateness_max_s"),
        "min_rtt_error_max_s": rtt_err,
        "min_rtt_judged_by_twin": twin_judged,
        "unmodelled_drops": unmodelled,
        **(other_cpu or {}),
        "foreign_pkts": int(one("foreign")),
        "unroutable_pkts": int(one("unroutable")),
        "within_envelope": not problems,
        "problems": problems,
    }
    tables = dict(fwd_raw["tables"])
    tables["flows"] = _raw(f_cols)
    tables["flow_series"] = _raw(s_cols)
    tables["transfers"] = _raw(t_cols)
    h_cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "node",
            "namespace",
            "device",
            "addr",
            "tx_dropped",
            "rx_dropped",
            "tcp_timeouts",
            "tcp_retrans_segs",
            "tcp_out_segs",
        )
    }
    for h in hosts:
        for k in ("node", "namespace", "device", "addr"):
            h_cols[k].append(h[k])
        h_cols["tx_dropped"].append(int(h.get("tx_dropped", 0)))
        h_cols["rx_dropped"].append(int(h.get("rx_dropped", 0)))
        h_cols["tcp_timeouts"].append(int(h["netstat"].get("TcpExtTCPTimeouts", 0)))
        h_cols["tcp_retrans_segs"].append(int(h["netstat"].get("TcpRetransSegs", 0)))
        h_cols["tcp_out_segs"].append(int(h["netstat"].get("TcpOutSegs", 0)))
    tables["hosts"] = _raw(h_cols)
    if "wire" in tables:
        tables["seq_trace"] = _raw(_seq_trace(core, tables["wire"], hosts))
    tables["emulation"] = _raw(
        {
            "within_envelope": [int(emu["within_envelope"])],
            "lateness_p50_s": [emu["lateness_p50_s"]],
            "lateness_p99_s": [emu["lateness_p99_s"]],
            "lateness_max_s": [emu["lateness_max_s"]],
            "min_rtt_error_max_s": [emu["min_rtt_error_max_s"]],
            "unmodelled_drops": [emu["unmodelled_drops"]],
            "other_cpu_s": [emu.get("other_cpu_s", math.nan)],
            "other_cpu_share": [emu.get("other_cpu_share", math.nan)],
            "steal_s": [emu.get("steal_s", math.nan)],
            "pinned": [emu.get("pinned", "no")],
            "kernel": [emu["kernel"]],
            "problems": ["; ".join(problems) or "-"],
        }
    )
    raw = {
        "tables": tables,
        "events": 0,
        "sim_time_s": end_s,
        "delivered_data_pkts": int(fwd_raw["delivered_data_pkts"]),
    }
    return raw, emu


def _seq_trace(core: dict[str, Any], wire_raw: list[Any], hosts: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The simulator's `seq_trace` (time_s, flow, kind, seq in segments) from
    the forwarder's wire trace: data segments as the sender's TUN device
    handed them over (`send`, or `rexmit` for a sequence number seen
    before), cumulative ACKs as delivered to the sender. Flow i is the
    connection to the sink's port 5001 + i; sequence numbers are relative
    to the SYN's (initial sequence number + 1 is byte 0)."""
    from .netns import PORT0

    w = {name: np.frombuffer(data, dtype=dtype) for name, dtype, data in wire_raw}
    out: dict[str, list[Any]] = {"time_s": [], "flow": [], "kind": [], "seq": []}
    rows = []
    for i, f in enumerate(core["flows"]):
        mss = f["tcp"]["mss"]
        port = PORT0 + i
        syn = np.flatnonzero((w["dport"] == port) & (w["out"] == 0) & ((w["tcp_flags"] & 0x02) != 0))
        if len(syn) == 0:
            continue
        isn = int(w["tcp_seq"][syn[0]])
        seen: set[int] = set()
        for k in range(len(w["time_s"])):
            flags = int(w["tcp_flags"][k])
            if flags & 0x02:
                continue
            if w["dport"][k] == port and w["out"][k] == 0 and w["payload"][k] > 0:
                seg = ((int(w["tcp_seq"][k]) - isn - 1) % (1 << 32)) // mss
                rows.append((float(w["time_s"][k]), i, "rexmit" if seg in seen else "send", seg))
                seen.add(seg)
            elif w["sport"][k] == port and w["out"][k] == 1 and flags & 0x10:
                acked = (int(w["tcp_ack"][k]) - isn - 1) % (1 << 32)
                rows.append((float(w["time_s"][k]), i, "ack", -(-acked // mss)))
    rows.sort(key=lambda r: (r[0], r[1]))
    for t, i, kind, seq in rows:
        out["time_s"].append(t)
        out["flow"].append(i)
        out["kind"].append(kind)
        out["seq"].append(seq)
    return out


LATENESS_MAX_S = 0.5e-3  # the envelope's bound on forwarder lateness (p99)
MIN_RTT_TOL_S = 0.5e-3  # the envelope's bound on a flow's min RTT above what the model says


def _min_rtt_slack(
    core: dict[str, Any],
    route: tuple[list[int], list[int]],
    t: dict[str, Any],
    flow: dict[str, Any],
    flows: list[dict[str, Any]],
) -> tuple[float, bool]:
    """How far above the configured minimum a flow's min RTT may lie, and
    whether no other flow started before it (its handshake met an idle
    path). The slack is the envelope's 0.5 ms, plus, when any other flow
    has started by then, one full packet in service on every serialising
    link of its path (its SYN or SYN-ACK can find another flow's packet on
    the wire: 0.6 ms at 20 Mb/s)."""
    first = not any(g["start_ps"] < flow["start_ps"] for g in flows)
    if not any(g is not flow and g["start_ps"] <= flow["start_ps"] for g in flows):
        return MIN_RTT_TOL_S, first
    from .netns import kernel_packet_bytes

    pkt = kernel_packet_bytes(t)
    links = core["links"]
    fwd, rev = route
    ser = sum(0.0 if links[i].get("shaper") else pkt * 8 / link_capacity_bps(links[i]) for i in [*fwd, *rev])
    return MIN_RTT_TOL_S + ser, first


def judge_min_rtts(
    checks: list[tuple[float, float, float, bool]], twin_min_rtts: Callable[[], list[float]] | None
) -> tuple[list[str], list[int]]:
    """The min-RTT check, per flow, from (measured, configured, slack):
    below the configured minimum by more than the tolerance is always wrong
    (no packet crosses faster than the model's propagation); above it by
    more than `slack` is wrong for a flow that no flow started before,
    since its handshake met an idle path. A flow that started after others
    may meet their standing queue, so it is judged against the simulator's
    twin of the same scenario and seed (`twin_min_rtts`, run only when
    needed): wrong only if above both the configured minimum and the
    twin's min RTT by more than the slack. `checks` holds per flow
    (measured, configured, slack, no flow started before it). Returns the
    problems and the flows judged by the twin."""
    problems, by_twin = [], []
    twin: list[float] | None = None
    for i, (m, base, slack, first) in enumerate(checks):
        if math.isnan(m):
            continue
        if m < base - MIN_RTT_TOL_S:
            problems.append(
                f"flow {i}: min RTT {m * 1e3:.3f} ms is below the configured {base * 1e3:.3f} ms "
                f"by more than {MIN_RTT_TOL_S * 1e3:g} ms"
            )
            continue
        if m <= base + slack:
            continue
        if first or twin_min_rtts is None:
            problems.append(
                f"flow {i}: min RTT {m * 1e3:.3f} ms exceeds the configured {base * 1e3:.3f} ms by more than "
                f"{slack * 1e3:.3f} ms"
            )
            continue
        if twin is None:
            twin = twin_min_rtts()
        by_twin.append(i)
        ref = max(base, twin[i])
        if m > ref + slack:
            problems.append(
                f"flow {i}: min RTT {m * 1e3:.3f} ms exceeds both the configured {base * 1e3:.3f} ms and the "
                f"simulator's twin {twin[i] * 1e3:.3f} ms by more than {slack * 1e3:.3f} ms"
            )
    return problems, by_twin


def envelope_text(e: dict[str, Any]) -> str:
    """One line on an emulated run's self-check, for the CLI and compare."""
    ok = (
        "within the emulation envelope"
        if e["within_envelope"]
        else "OUTSIDE the emulation envelope: " + "; ".join(e["problems"])
    )
    other = ""
    if "other_cpu_s" in e:
        other = (
            f"; CPU taken by others {e['other_cpu_s']:.2f} s ({e['other_cpu_share']:.0%} of the machine), "
            f"stolen by the hypervisor {e['steal_s']:.2f} s ({e['steal_share']:.0%})"
        )
    if e.get("pinned", "no") != "no":
        other += f"; {e['pinned']}"
    return (
        f"forwarder lateness p50 {e['lateness_p50_s'] * 1e3:.3f} ms, p99 {e['lateness_p99_s'] * 1e3:.3f} ms, "
        f"max {e['lateness_max_s'] * 1e3:.3f} ms; min-RTT error {e['min_rtt_error_max_s'] * 1e3:.3f} ms; "
        f"drops outside the model {e['unmodelled_drops']}{other}; {ok}"
    )


def _base_rtt(core: dict[str, Any], route: tuple[list[int], list[int]], t: dict[str, Any]) -> float:
    """The smallest RTT the sender can measure: propagation both ways plus
    the serialization of the SYN out and the SYN-ACK back. Linux takes its
    first RTT sample from the handshake (``tcp_clean_rtx_queue`` on the
    SYN), and the SYN is smaller than any data packet, so this sample is the
    connection's minimum on an idle path. The SYN carries MSS (4), SACK
    permitted with timestamps (12) and window scale (4) options: 60 bytes with
    timestamps, 52 without (Linux ``tcp_syn_options``). A shaped link
    (``shaper``) has no serialization: its packets cross a veth at once."""
    syn = 60 if t["timestamps"] else 52
    links = core["links"]
    fwd, rev = route

    def one_way(lk: dict[str, Any]) -> float:
        return float(lk["delay_ps"] * 1e-12 + (0.0 if lk.get("shaper") else syn * 8 / link_capacity_bps(lk)))

    return sum(one_way(links[i]) for i in [*fwd, *rev])


class EmuResult(Result):
    """An emulated run: the simulator's tables plus `forwarder` and `hosts`,
    and the self-validation block `emulation`."""

    def __init__(
        self, scenario: Any, raw: dict[str, Any], wall_time_s: float, cpu_time_s: float, emulation: dict[str, Any]
    ) -> None:
        super().__init__(scenario, raw, wall_time_s, cpu_time_s)
        self.emulation = emulation

    def manifest(self) -> dict[str, Any]:
        m = super().manifest()
        m["backend"] = "emulation"
        m["emulation"] = self.emulation
        return m

    def _has_capture(self) -> bool:
        return "capture_raw" in self.columns

    def _write_link_pcap(self, path: Path, link: int | list[int]) -> None:
        """The captured link's packets (or a pair's, in time order) with the
        kernel's own headers."""
        from ..analysis.pcap import write_raw

        write_raw(path, self.columns["capture_raw"], link)

    def _write_link_drops(self, path: Path, link: int) -> bool:
        """The forwarder records arrivals only: no drops file."""
        return False

    def summary_json(self) -> dict[str, Any]:
        f = self.flows
        d = {
            "flows": [
                {
                    "id": int(r["id"]),
                    "src": r["src"],
                    "dst": r["dst"],
                    "cc": r["cc"],
                    "kernel_cc": r["kernel_cc"],
                    "goodput_bps": r["goodput_bps"],
                    "throughput_bps": r["throughput_bps"],
                    "retransmits": int(r["retransmits"]),
                    "timeouts": None if math.isnan(r["timeouts"]) else int(r["timeouts"]),
                    "fct_s": None if math.isnan(r["fct_s"]) else r["fct_s"],
                    "rtt_min_s": None if math.isnan(r["rtt_min_s"]) else r["rtt_min_s"],
                }
                for r in f.iter_rows(named=True)
            ],
            "links": [
                {
                    "name": r["name"],
                    "drops": int(r["drops"]),
                    "losses": int(r["losses"]),
                    "utilization": r["utilization"],
                }
                for r in self.links.iter_rows(named=True)
            ],
            "sim_time_s": self.sim_time_s,
            "wall_time_s": self.wall_time_s,
        }
        d["backend"] = "emulation"
        d["emulation"] = self.emulation
        return d
