"""Scenarios: parse (TOML / YAML / Python builder), validate, resolve.

A scenario is written as a nested mapping with four sections: ``sim``,
``topology``, ``tcp`` (defaults for every flow) and ``flows`` (a list of flow
groups). TOML files, YAML files and the :class:`Builder` all produce this
mapping, and :class:`Scenario` validates it in one place: every error names
the field, the value and what is accepted; unknown keys are errors. The
validated scenario is then *resolved* into the explicit form the Rust core
runs (nodes, links, flows, every quantity in base units). See
docs/scenario.md for the format.
"""
from __future__ import annotations

import copy
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import _core, algorithms, traffic
from .traffic import per_flow_times
from ._check import _bool, _check_keys, _int, _prob, _str
from .errors import ScenarioError
from .netmodels import CODEL_DOC, LOSS_KINDS, PIE_DOC, QUEUE_KINDS, RED_DOC, _loss, _queue  # noqa: F401 (re-exported)
from .units import PS_PER_S, Buffer, parse_buffer, parse_rate, parse_size, parse_time

# --------------------------------------------------------------------------
# Schema pieces


# TCP options: name -> (default, documentation). The resolver converts them.
TCP_DEFAULTS: dict[str, Any] = {
    "cc": "newreno",
    "cc_preset": None,
    "cc_params": {},
    "mss": 1448,
    "header_bytes": 40,
    "initial_window": 10,
    "initial_ssthresh": "inf",
    "min_rto": "200ms",
    "initial_rto": "1s",
    "max_rto": "60s",
    "clock_granularity": "1ms",
    "max_cwnd": None,
    "rwnd": None,
    "delayed_ack": True,
    "delack_timeout": "200ms",
    "delack_count": 2,
    "handshake": False,
    "dupthresh": 3,
    "abc_limit": 2,
    "sack": "off",
    "sack_blocks": 3,
    "limited_transmit": False,
    "prr": False,
    "timestamps": False,
    "ecn": False,
    "pacing": "off",
    "pacing_ss_ratio": 2.0,
    "pacing_ca_ratio": 1.2,
    "tso": True,
    "min_tso_segs": 2,
    "quickack": 0,
    "idle_restart": True,
}

TCP_DOC: dict[str, str] = {
    "cc": "congestion control: tahoe, reno, newreno, vegas, westwood, westwoodplus, highspeed, scalable, bic, cubic, bbr ('ccsim list cc')",
    "cc_preset": "named parameter set of the algorithm, e.g. 'paper' ('ccsim list cc'); none = defaults",
    "cc_params": "table of algorithm parameters over the preset, e.g. {low_window = 31} ('ccsim list cc')",
    "mss": "maximum segment size, payload bytes",
    "header_bytes": "TCP/IP header bytes on every packet without options; timestamps add 12, SACK blocks 4 + 8 per block",
    "initial_window": "initial cwnd, segments (RFC 6928 / Linux: 10)",
    "initial_ssthresh": "initial ssthresh, segments, or 'inf' (RFC 5681: arbitrarily high)",
    "min_rto": "lower bound on the computed RTO (RFC 6298 says 1s; Linux 200ms)",
    "initial_rto": "RTO before the first RTT sample (RFC 6298: 1s)",
    "max_rto": "upper bound on the RTO, back-off included (RFC 6298: at least 60s)",
    "clock_granularity": "G in RTO = SRTT + max(G, 4·RTTVAR)",
    "max_cwnd": "cap on cwnd in segments (Linux snd_cwnd_clamp); none = no cap",
    "rwnd": "receiver's advertised window: a size ('64KB') or '<n>pkt'; none = unlimited",
    "delayed_ack": "ACK every delack_count segments or after delack_timeout (RFC 5681 §4.2)",
    "delack_timeout": "delayed-ACK timer",
    "delack_count": "full-sized segments per delayed ACK",
    "handshake": "open with SYN / SYN-ACK (one RTT) before data",
    "dupthresh": "duplicate ACKs that trigger fast retransmit (RFC 5681: 3)",
    "abc_limit": "most segments one ACK may add to cwnd in slow start (RFC 3465 L; RFC 5681: 1); 0 = no limit (Linux)",
    "sack": "SACK recovery: 'off' (recovery by cc name), 'rfc6675' (RFC 6675 scoreboard), 'sack1' (ns-2 Agent/TCP/Sack1)",
    "sack_blocks": "most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps; ns-2: 3)",
    "limited_transmit": "RFC 3042: one new segment on each of the first two duplicate ACKs",
    "prr": "RFC 6937 proportional rate reduction in recovery (needs sack = 'rfc6675')",
    "timestamps": "RFC 7323 timestamps: an RTT sample from every ACK, 12 option bytes on every packet",
    "ecn": "RFC 3168 ECN: data is ECT; CE echoed with ECE until CWR; one reduction per window",
    "pacing": "'off', 'linux' (rate = ratio·mss·max(cwnd, in flight)/srtt), 'window' (one segment per srtt/cwnd, ns-2 studies)",
    "pacing_ss_ratio": "Linux pacing ratio while cwnd < ssthresh/2 (tcp_pacing_ss_ratio 200%)",
    "pacing_ca_ratio": "Linux pacing ratio otherwise (tcp_pacing_ca_ratio 120%)",
    "tso": "Linux TSO/GSO autosizing: a Linux-paced flow sends max(min_tso_segs, rate·1 ms/mss) segments per release, ≤ 64 KB (false: one, as ns-3)",
    "min_tso_segs": "fewest segments per paced release (sysctl tcp_min_tso_segs 2; BBR decides its own: 1 below 1.2 Mb/s, else 2)",
    "quickack": "receiver ACKs each of the first n data segments at once (Linux quick-ACK: up to 16)",
    "idle_restart": "restart the window after an idle period longer than the RTO when the application writes again (RFC 2861, Linux tcp_slow_start_after_idle)",
}

SIM_KEYS = {"duration", "seed", "sample_interval", "trace"}
TRACE_KINDS = ["rtt", "seq"]
# Time-series rows (flows + link directions, per sample) a run may record: ~10 GB of memory.
MAX_SERIES_ROWS = 100_000_000
FLOW_COMMON = {"count", "app", "start", "stagger", "label"} | traffic.APP_KEYS
TOPOLOGY_KINDS = ["single_link", "dumbbell", "parking_lot", "wireless", "satellite", "explicit"]
# Topology builders: kind -> {key: meaning}; flow-group keys are listed under "flows:".
TOPOLOGY_DOC: dict[str, dict[str, str]] = {
    "single_link": {
        "rate, delay": "the link a – b (host – switch – host collapsed into one duplex link)",
        "buffer, queue, loss": "forward direction (buffer default '1bdp', queue default 'droptail')",
        "reverse_rate, reverse_delay, reverse_buffer, reverse_loss": "the b → a direction (default: as forward, no loss)",
        "flows: direction": "'forward' (a → b) or 'reverse'",
    },
    "dumbbell": {
        "bottleneck_rate, bottleneck_delay": "the r0 – r1 link",
        "access_rate, access_delay, access_buffer": "every flow's own access links (always droptail)",
        "buffer, queue, loss, reverse_loss, reverse_bottleneck_rate": "the bottleneck's two directions",
        "flows: direction, rtt": "'forward'/'reverse'; rtt = a time, a distribution or {spread = [a, b]} sets the access delays",
    },
    "parking_lot": {
        "hops, hop_rate, hop_delay": "N router-to-router hops r0 – … – rN",
        "access_rate, access_delay, access_buffer, buffer, queue": "access links and hop queues",
        "flows: path": "'through' (all hops), 'cross' (one flow per hop, C1's direction), 'cross_reverse'",
    },
    "wireless": {
        "bottleneck_rate, bottleneck_delay, access_rate, access_delay, buffer, queue": "the wired part, as a dumbbell",
        "wireless_rate, wireless_delay, wireless_buffer": "the last hop r1 – mobile, shared by the wireless flows",
        "wireless_loss, wireless_reverse_loss": "loss on the last hop (reverse default: the same model, own stream)",
        "flows: path, direction, rtt": "path 'wireless' (default: src – r0 – r1 – mobile) or 'wired' (cross/reverse traffic on the dumbbell)",
    },
    "satellite": {
        "as dumbbell": "a GEO bottleneck: bottleneck_delay default '275ms'; 'loss' applies to both directions unless reverse_loss is given",
    },
    "explicit": {
        "nodes, links": "[[topology.links]] tables: a, b, rate, delay, buffer, queue, loss and reverse_* options",
        "bdp_rtt": "RTT that sizes '…bdp' buffers (required for them here)",
        "flows: src, dst": "node names",
    },
}

_SINGLE_KEYS = {"kind", "rate", "delay", "buffer", "queue", "loss", "reverse_rate", "reverse_delay",
                "reverse_buffer", "reverse_loss", "bdp_rtt"}
_DUMBBELL_KEYS = {"kind", "bottleneck_rate", "bottleneck_delay", "access_rate", "access_delay", "buffer",
                  "queue", "access_buffer", "loss", "reverse_loss", "reverse_bottleneck_rate", "bdp_rtt"}
_PARKING_KEYS = {"kind", "hops", "hop_rate", "hop_delay", "access_rate", "access_delay", "buffer", "queue",
                 "access_buffer", "bdp_rtt"}
_EXPLICIT_KEYS = {"kind", "nodes", "links", "bdp_rtt"}
_EXPLICIT_LINK_KEYS = {"a", "b", "rate", "delay", "buffer", "queue", "loss", "reverse_rate", "reverse_delay",
                       "reverse_buffer", "reverse_loss"}
_WIRELESS_KEYS = _DUMBBELL_KEYS | {"wireless_rate", "wireless_delay", "wireless_buffer", "wireless_loss",
                                  "wireless_reverse_loss"}
FLOW_TOPO_KEYS = {
    "single_link": {"direction"},
    "dumbbell": {"direction", "rtt"},
    "satellite": {"direction", "rtt"},
    "wireless": {"direction", "rtt", "path"},
    "parking_lot": {"path"},
    "explicit": {"src", "dst"},
}


# --------------------------------------------------------------------------
# Resolution helpers


@dataclass
class _Net:
    nodes: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    links: list[dict] = field(default_factory=list)
    # (link index, Buffer, field name) whose limit depends on the BDP RTT
    pending_buffers: list[tuple[int, Buffer, str]] = field(default_factory=list)

    def node(self, name: str) -> int:
        if name not in self.index:
            self.index[name] = len(self.nodes)
            self.nodes.append(name)
        return self.index[name]

    def add(self, a: str, b: str, rate: int, delay: int, buf: Buffer, buf_field: str, queue: dict | str,
            loss: dict, name: str | None = None) -> int:
        ia, ib = self.node(a), self.node(b)
        self.links.append({
            "name": name or f"{a}->{b}", "from": ia, "to": ib, "rate_bps": rate, "delay_ps": delay,
            "queue": dict(queue) if isinstance(queue, dict) else {"kind": queue}, "loss": loss,
        })
        i = len(self.links) - 1
        self.pending_buffers.append((i, buf, buf_field))
        return i

    def duplex(self, a, b, rate, delay, buf, buf_field, queue, loss=None, *, rev_rate=None, rev_delay=None,
               rev_buf=None, rev_buf_field=None, rev_loss=None, name=None, rev_name=None):
        f = self.add(a, b, rate, delay, buf, buf_field, queue, loss or {"kind": "none"}, name)
        r = self.add(b, a, rev_rate or rate, delay if rev_delay is None else rev_delay, rev_buf or buf,
                     rev_buf_field or buf_field, queue, rev_loss or {"kind": "none"}, rev_name)
        return f, r


def _wire_bytes(tcp: dict) -> int:
    """Bytes of a full-sized data packet: mss + headers (+12 with timestamps)."""
    return tcp["mss"] + tcp["header_bytes"] + (12 if tcp["timestamps"] else 0)


def _resolve_buffers(net: _Net, bdp_rtt_ps: int | None, pkt_bytes: int, max_pkt: int, rtt_field: str) -> None:
    for i, buf, fld in net.pending_buffers:
        link = net.links[i]
        q = link["queue"]
        if buf.kind == "pkt":
            q["limit_pkts"] = int(buf.amount)
        elif buf.kind == "bytes":
            if q["kind"] in ("codel", "fq_codel"):
                raise ScenarioError(fld, message=(
                    f"{fld}: {q['kind']}'s limit counts packets; expected a buffer in packets or BDPs ('1000pkt', '2bdp'), "
                    f"got {int(buf.amount)} bytes"))
            if buf.amount < max_pkt:
                raise ScenarioError(fld, message=(
                    f"{fld}: {int(buf.amount)} bytes is smaller than one packet ({max_pkt} bytes = mss + header_bytes); "
                    f"expected a buffer of at least one packet"))
            q["limit_bytes"] = int(buf.amount)
        else:
            if bdp_rtt_ps is None:
                raise ScenarioError(rtt_field, message=(
                    f"{rtt_field}: needed to size '{buf.amount:g}bdp' buffers in an explicit topology; "
                    "expected a time such as '40ms'"))
            bdp_bytes = link["rate_bps"] * bdp_rtt_ps / 8 / PS_PER_S
            pkts = round(buf.amount * bdp_bytes / pkt_bytes)
            if pkts < 1:
                raise ScenarioError(fld, message=(
                    f"{fld}: '{buf.amount:g}bdp' is {buf.amount * bdp_bytes:.0f} bytes on link {link['name']}, "
                    f"less than one {pkt_bytes}-byte packet; expected a buffer of at least one packet"))
            q["limit_pkts"] = int(pkts)


# --------------------------------------------------------------------------
# The scenario


class Scenario:
    """A validated scenario. Build with :meth:`from_file`, :meth:`from_toml`,
    :meth:`from_yaml`, :meth:`from_dict` or :class:`Builder`."""

    def __init__(self, raw: dict, *, source: str = "<dict>"):
        self.raw = copy.deepcopy(raw)
        self.source = source
        self.core = self._resolve(self.raw)

    # ---- constructors
    @classmethod
    def from_dict(cls, d: dict, source: str = "<dict>") -> "Scenario":
        return cls(d, source=source)

    @classmethod
    def from_toml(cls, text: str, source: str = "<toml>") -> "Scenario":
        return cls(parse_toml(text, source), source=source)

    @classmethod
    def from_yaml(cls, text: str, source: str = "<yaml>") -> "Scenario":
        return cls(parse_yaml(text, source), source=source)

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        return cls(read_mapping(path), source=str(path))

    def with_seed(self, seed: int) -> "Scenario":
        raw = copy.deepcopy(self.raw)
        raw.setdefault("sim", {})["seed"] = seed
        return Scenario(raw, source=self.source)

    @property
    def seed(self) -> int:
        return self.core["seed"]

    @property
    def duration_s(self) -> float:
        return self.core["duration_ps"] / PS_PER_S

    def to_toml(self) -> str:
        """The scenario as TOML text that loads and runs identically."""
        from .tomlio import scenario_to_toml

        return scenario_to_toml(self)

    def with_overrides(self, assignments: dict) -> "Scenario":
        """A new scenario with dotted-path overrides applied ({'tcp.cc': 'cubic'})."""
        from .overrides import apply

        return Scenario(apply(self.raw, assignments), source=self.source)

    def to_core_json(self) -> str:
        return json.dumps(self.core)

    def run(self, seed: int | None = None):
        """Run the scenario and return a :class:`ccsim.results.Result`."""
        from .results import run_scenario

        sc = self if seed is None else self.with_seed(seed)
        return run_scenario(sc)

    # ---- validation and resolution
    def _resolve(self, raw: dict) -> dict:
        _check_keys("", raw, {"sim", "topology", "tcp", "flows"})
        for sec in ("sim", "topology", "flows"):
            if sec not in raw:
                raise ScenarioError(sec, message=f"{sec}: missing section; a scenario needs [sim], [topology] and [[flows]]")
        sim = raw["sim"]
        _check_keys("sim", sim, SIM_KEYS)
        if "duration" not in sim:
            raise ScenarioError("sim.duration", message="sim.duration: missing; expected a time such as '60s'")
        duration = parse_time("sim.duration", sim["duration"], allow_zero=False)
        seed = _int("sim.seed", sim.get("seed", 1), lo=0, hi=2**64 - 1)
        trace = sim.get("trace", [])
        if not isinstance(trace, list) or any(t not in TRACE_KINDS for t in trace):
            raise ScenarioError("sim.trace", trace, f"a list of per-packet traces from {TRACE_KINDS}")
        si = sim.get("sample_interval", "100ms")
        sample = None if si == "off" else parse_time("sim.sample_interval", si, allow_zero=False)

        tcp_sec = raw.get("tcp", {})
        _check_keys("tcp", tcp_sec, set(TCP_DEFAULTS))
        tcp_base = self._tcp_merge("tcp", tcp_sec, {k: (v, f"tcp.{k} (default)") for k, v in TCP_DEFAULTS.items()})
        tcp_defaults = self._tcp_resolve(tcp_base)
        topo = raw["topology"]
        if not isinstance(topo, dict):
            raise ScenarioError("topology", topo, "a table with a 'kind' key")
        kind = _str("topology.kind", topo.get("kind"), TOPOLOGY_KINDS)
        groups = raw["flows"]
        if not isinstance(groups, list) or not groups:
            raise ScenarioError("flows", groups, "a non-empty list of flow groups ([[flows]])")

        # Expand flow groups into single flows (topology placement comes later).
        flows: list[dict] = []
        extra_keys = FLOW_TOPO_KEYS[kind]
        for gi, g in enumerate(groups):
            where = f"flows[{gi}]"
            _check_keys(where, g, FLOW_COMMON | extra_keys | set(TCP_DEFAULTS))
            count = _int(f"{where}.count", g.get("count", 1), lo=1, hi=1_000_000)
            start_v = g.get("start", "0s")
            stagger = parse_time(f"{where}.stagger", g.get("stagger", "0s"))
            if isinstance(start_v, dict) and "stagger" in g:
                raise ScenarioError(f"{where}.stagger", message=(
                    f"{where}.stagger: not allowed with a drawn or spread start; expected one of start = <dist> or stagger"))
            rng = np.random.default_rng([seed, gi, 1])
            starts = per_flow_times(f"{where}.start", start_v, count, rng)
            if not isinstance(start_v, dict):
                starts = [starts[0] + j * stagger for j in range(count)]
            label = _str(f"{where}.label", g.get("label", f"group{gi}"))
            tcp_over = {k: g[k] for k in TCP_DEFAULTS if k in g}
            tcp = self._tcp_resolve(self._tcp_merge(where, tcp_over, tcp_base)) if tcp_over else dict(tcp_defaults)
            appcfg = traffic.app(where, g, tcp["mss"])
            topo_opts = {k: g[k] for k in extra_keys if k in g}
            rtts = None
            if "rtt" in topo_opts:
                rtts = per_flow_times(f"{where}.rtt", topo_opts["rtt"], count,
                                      np.random.default_rng([seed, gi, 2]), allow_zero=False)
            for j in range(count):
                st = starts[j]
                if st > duration:
                    raise ScenarioError(f"{where}.start", message=(
                        f"{where}.start: flow {j} of this group would start at {st / PS_PER_S:g}s, after the "
                        f"end of the run ({duration / PS_PER_S:g}s); expected every start ≤ sim.duration"))
                topo_j = dict(topo_opts)
                if rtts is not None:
                    topo_j["rtt_ps"] = rtts[j]
                flows.append({"group": gi, "where": where, "start_ps": st, "app": appcfg, "tcp": tcp,
                              "label": label, "topo": topo_j})

        pkt_default = _wire_bytes(tcp_defaults)
        max_pkt = max(_wire_bytes(f["tcp"]) for f in flows)
        net = _Net()
        builder = {"single_link": self._single_link, "dumbbell": self._dumbbell, "satellite": self._satellite,
                   "wireless": self._wireless, "parking_lot": self._parking_lot, "explicit": self._explicit}[kind]
        base_rtts = builder(topo, flows, net)
        bdp_rtt = self._bdp_rtt(topo, base_rtts)
        _resolve_buffers(net, bdp_rtt, pkt_default, max_pkt, "topology.bdp_rtt")
        if sample is not None:
            rows = (duration // sample + 1) * (len(flows) + len(net.links))
            if rows > MAX_SERIES_ROWS:
                raise ScenarioError("sim.sample_interval", message=(
                    f"sim.sample_interval: {si!r} over {duration / PS_PER_S:g}s gives {rows:,} time-series rows "
                    f"({len(flows)} flows + {len(net.links)} link directions); expected at most "
                    f"{MAX_SERIES_ROWS:,}: use a longer interval or 'off'"))
        core_flows = [{"src": f["src"], "dst": f["dst"], "start_ps": f["start_ps"], "app": f["app"],
                       "tcp": f["tcp"], "label": f["label"]} for f in flows if f["app"]["kind"] != "udp"]
        udp = [{"src": f["src"], "dst": f["dst"], "start_ps": f["start_ps"], "label": f["label"],
                **{k: v for k, v in f["app"].items() if k != "kind"}} for f in flows if f["app"]["kind"] == "udp"]
        return {"duration_ps": duration, "seed": seed, "sample_interval_ps": sample, "nodes": net.nodes,
                "links": net.links, "flows": core_flows, "udp": udp, "trace": {k: k in trace for k in TRACE_KINDS}}

    @staticmethod
    def _tcp_merge(where: str, d: dict, base: dict) -> dict:
        """Overlay options `d` (written at `where`) on `base`, a mapping of
        option -> (raw value, field it came from)."""
        out = dict(base)
        for k, v in d.items():
            out[k] = (v, f"{where}.{k}")
        return out

    @staticmethod
    def _tcp_resolve(opts: dict) -> dict:
        """Turn option -> (raw value, field) into the core's TCP config."""
        names = list(_core.algorithms())
        out: dict = {}
        for k, (v, f) in opts.items():
            if k == "cc":
                out["cc"] = _str(f, v, names)
            elif k in ("cc_preset", "cc_params"):
                pass  # checked below, once cc is known
            elif k == "mss":
                out["mss"] = _int(f, v, lo=1, hi=65495)
            elif k == "header_bytes":
                out["header_bytes"] = _int(f, v, lo=0, hi=1000)
            elif k == "initial_window":
                out["initial_window"] = _int(f, v, lo=1, hi=10**9)
            elif k == "initial_ssthresh":
                out["initial_ssthresh"] = None if v == "inf" else _int(f, v, lo=2, hi=2**32 - 2)
            elif k in ("min_rto", "initial_rto", "max_rto"):
                out[f"{k}_ps"] = parse_time(f, v, allow_zero=False)
            elif k == "clock_granularity":
                out["clock_granularity_ps"] = parse_time(f, v)
            elif k == "max_cwnd":
                out["max_cwnd"] = None if v is None or v == "none" else _int(f, v, lo=1, hi=2**32 - 1)
            elif k == "delayed_ack":
                out["delayed_ack"] = _bool(f, v)
            elif k == "delack_timeout":
                out["delack_timeout_ps"] = parse_time(f, v, allow_zero=False)
            elif k == "delack_count":
                out["delack_count"] = _int(f, v, lo=1, hi=1000)
            elif k == "handshake":
                out["handshake"] = _bool(f, v)
            elif k == "dupthresh":
                out["dupthresh"] = _int(f, v, lo=1, hi=1000)
            elif k == "abc_limit":
                out["abc_limit"] = _int(f, v, lo=0, hi=2**32 - 1)
            elif k == "sack":
                out["sack"] = _str(f, v, ["off", "rfc6675", "sack1"])
            elif k == "sack_blocks":
                out["sack_blocks"] = _int(f, v, lo=1, hi=4)
            elif k in ("limited_transmit", "prr", "timestamps", "ecn", "tso", "idle_restart"):
                out[k] = _bool(f, v)
            elif k == "pacing":
                out["pacing"] = _str(f, v, ["off", "linux", "window"])
            elif k in ("pacing_ss_ratio", "pacing_ca_ratio"):
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < float(v) <= 100):
                    raise ScenarioError(f, v, "a ratio in (0, 100], e.g. 2.0 for 200%")
                out[k] = float(v)
            elif k == "quickack":
                out["quickack"] = _int(f, v, lo=0, hi=2**32 - 1)
            elif k == "min_tso_segs":
                out["min_tso_segs"] = _int(f, v, lo=1, hi=255)
        (pv, pf), (mv, mf) = opts["cc_preset"], opts["cc_params"]
        out["cc_preset"], out["cc_params"] = algorithms.check(out["cc"], pv, pf, mv, mf)
        v, f = opts["rwnd"]
        if v is None or v == "none":
            out["rwnd_bytes"] = None
        elif isinstance(v, str) and v.strip().endswith(("pkt", "pkts")):
            out["rwnd_bytes"] = int(parse_buffer(f, v).amount) * out["mss"]
        else:
            out["rwnd_bytes"] = parse_size(f, v)
            if out["rwnd_bytes"] < out["mss"]:
                raise ScenarioError(f, v, f"a window of at least one segment ({out['mss']} bytes)")
        if out["timestamps"] and out["sack_blocks"] > 3:
            raise ScenarioError(opts["sack_blocks"][1], out["sack_blocks"],
                                "at most 3 SACK blocks with timestamps (40 option bytes)")
        if out["prr"] and out["sack"] != "rfc6675":
            raise ScenarioError(opts["prr"][1], True, "prr = true only with sack = 'rfc6675' (PRR counts from the SACK scoreboard)")
        if out["sack"] != "off" and out["cc"] == "tahoe":
            raise ScenarioError(opts["sack"][1], out["sack"], "sack = 'off' with tahoe (Tahoe has no fast recovery)")
        if out["max_rto_ps"] < out["min_rto_ps"]:
            raise ScenarioError(opts["max_rto"][1], message=f"{opts['max_rto'][1]}: must be ≥ min_rto")
        return out

    def _bdp_rtt(self, topo: dict, base_rtts: list[int] | None) -> int | None:
        v = topo.get("bdp_rtt", "max")
        if v in ("max", "mean"):
            if not base_rtts:
                return None
            return max(base_rtts) if v == "max" else round(sum(base_rtts) / len(base_rtts))
        return parse_time("topology.bdp_rtt", v, allow_zero=False)

    # ---- topology builders: add nodes/links, place each flow (src, dst) and
    # return the flows' base (propagation) RTTs in ps, or None if unknown.
    def _single_link(self, t: dict, flows: list[dict], net: _Net) -> list[int]:
        _check_keys("topology", t, _SINGLE_KEYS)
        rate = parse_rate("topology.rate", t.get("rate"))
        delay = parse_time("topology.delay", t.get("delay"))
        buf = parse_buffer("topology.buffer", t.get("buffer", "1bdp"))
        queue = _queue("topology.queue", t.get("queue", "droptail"))
        rrate = parse_rate("topology.reverse_rate", t["reverse_rate"]) if "reverse_rate" in t else rate
        rdelay = parse_time("topology.reverse_delay", t["reverse_delay"]) if "reverse_delay" in t else delay
        rbuf = parse_buffer("topology.reverse_buffer", t["reverse_buffer"]) if "reverse_buffer" in t else buf
        net.duplex("a", "b", rate, delay, buf, "topology.buffer", queue, _loss("topology.loss", t.get("loss")),
                   rev_rate=rrate, rev_delay=rdelay, rev_buf=rbuf,
                   rev_buf_field="topology.reverse_buffer" if "reverse_buffer" in t else "topology.buffer",
                   rev_loss=_loss("topology.reverse_loss", t.get("reverse_loss")))
        for f in flows:
            d = _str(f"{f['where']}.direction", f["topo"].get("direction", "forward"), ["forward", "reverse"])
            f["src"], f["dst"] = (0, 1) if d == "forward" else (1, 0)
        return [delay + rdelay] * len(flows)

    def _dumbbell(self, t: dict, flows: list[dict], net: _Net, *, keys: set[str] = _DUMBBELL_KEYS,
                  default_delay: str | None = None, loss_both_ways: bool = False) -> list[int]:
        _check_keys("topology", t, keys)
        brate = parse_rate("topology.bottleneck_rate", t.get("bottleneck_rate"))
        bdelay = parse_time("topology.bottleneck_delay", t.get("bottleneck_delay", default_delay))
        arate = parse_rate("topology.access_rate", t.get("access_rate"))
        adelay = parse_time("topology.access_delay", t.get("access_delay"))
        buf = parse_buffer("topology.buffer", t.get("buffer", "1bdp"))
        abuf = parse_buffer("topology.access_buffer", t["access_buffer"]) if "access_buffer" in t else buf
        abuf_field = "topology.access_buffer" if "access_buffer" in t else "topology.buffer"
        queue = _queue("topology.queue", t.get("queue", "droptail"))
        rrate = parse_rate("topology.reverse_bottleneck_rate", t["reverse_bottleneck_rate"]) \
            if "reverse_bottleneck_rate" in t else brate
        loss = _loss("topology.loss", t.get("loss"))
        rloss = _loss("topology.reverse_loss", t["reverse_loss"]) if "reverse_loss" in t \
            else (loss if loss_both_ways else {"kind": "none"})
        net.duplex("r0", "r1", brate, bdelay, buf, "topology.buffer", queue, loss, rev_rate=rrate, rev_loss=rloss)
        wl = None
        if "wireless_rate" in keys:
            wrate = parse_rate("topology.wireless_rate", t.get("wireless_rate"))
            wdelay = parse_time("topology.wireless_delay", t.get("wireless_delay"))
            wbuf = parse_buffer("topology.wireless_buffer", t["wireless_buffer"]) if "wireless_buffer" in t else buf
            wloss = _loss("topology.wireless_loss", t.get("wireless_loss"))
            wrloss = _loss("topology.wireless_reverse_loss", t["wireless_reverse_loss"]) \
                if "wireless_reverse_loss" in t else wloss
            net.duplex("r1", "mobile", wrate, wdelay, wbuf,
                       "topology.wireless_buffer" if "wireless_buffer" in t else "topology.buffer",
                       "droptail", wloss, rev_loss=wrloss, name="wireless", rev_name="wireless_reverse")
            wl = wdelay
        rtts = []
        for i, f in enumerate(flows):
            w = f["where"]
            d = _str(f"{w}.direction", f["topo"].get("direction", "forward"), ["forward", "reverse"])
            wireless = wl is not None and _str(f"{w}.path", f["topo"].get("path", "wireless"),
                                                ["wireless", "wired"]) == "wireless"
            far = wl if wireless else 0
            acc = adelay
            if "rtt_ps" in f["topo"]:
                rtt = f["topo"]["rtt_ps"]
                if wireless:
                    # one access link on the wired side sets the RTT
                    acc = rtt // 2 - bdelay - far
                else:
                    acc = (rtt // 2 - bdelay) // 2
                if acc < 0:
                    raise ScenarioError(f"{w}.rtt", message=(
                        f"{w}.rtt: {rtt / 1e9:g}ms is shorter than the path's fixed round trip "
                        f"({2 * (bdelay + far) / 1e9:g}ms); expected a longer rtt"))
            src, dst = f"src{i}", f"dst{i}"
            if wireless:
                left, right = (src, "mobile") if d == "forward" else ("mobile", src)
                net.duplex(src, "r0", arate, acc, abuf, abuf_field, "droptail")
                f["src"], f["dst"] = net.index[left], net.index[right]
                rtts.append(2 * (acc + bdelay + far))
                continue
            left, right = (src, dst) if d == "forward" else (dst, src)
            net.duplex(left, "r0", arate, acc, abuf, abuf_field, "droptail")
            net.duplex("r1", right, arate, acc, abuf, abuf_field, "droptail")
            f["src"], f["dst"] = net.index[src], net.index[dst]
            rtts.append(2 * (bdelay + 2 * acc))
        return rtts

    def _satellite(self, t: dict, flows: list[dict], net: _Net) -> list[int]:
        """A dumbbell whose bottleneck is a GEO hop (W5 of seed 000): 275 ms
        one way unless given, the loss model on both directions."""
        return self._dumbbell(t, flows, net, default_delay="275ms", loss_both_ways=True)

    def _wireless(self, t: dict, flows: list[dict], net: _Net) -> list[int]:
        """A wired dumbbell plus a shared last hop r1 – mobile with its own
        loss model in each direction (W4 of seed 000)."""
        return self._dumbbell(t, flows, net, keys=_WIRELESS_KEYS)

    def _parking_lot(self, t: dict, flows: list[dict], net: _Net) -> list[int]:
        _check_keys("topology", t, _PARKING_KEYS)
        hops = _int("topology.hops", t.get("hops"), lo=1, hi=10_000)
        hrate = parse_rate("topology.hop_rate", t.get("hop_rate"))
        hdelay = parse_time("topology.hop_delay", t.get("hop_delay"))
        arate = parse_rate("topology.access_rate", t.get("access_rate"))
        adelay = parse_time("topology.access_delay", t.get("access_delay"))
        buf = parse_buffer("topology.buffer", t.get("buffer", "1bdp"))
        abuf = parse_buffer("topology.access_buffer", t["access_buffer"]) if "access_buffer" in t else buf
        abuf_field = "topology.access_buffer" if "access_buffer" in t else "topology.buffer"
        queue = _queue("topology.queue", t.get("queue", "droptail"))
        for h in range(hops):
            net.duplex(f"r{h}", f"r{h + 1}", hrate, hdelay, buf, "topology.buffer", queue)
        # Flow groups with path = "cross" / "cross_reverse" get `count` flows on
        # every hop; expand them now (flow order: group order, then hop).
        expanded = []
        for f in flows:
            p = _str(f"{f['where']}.path", f["topo"].get("path", "through"), ["through", "cross", "cross_reverse"])
            if p == "through":
                expanded.append((f, p, None))
            else:
                for h in range(hops):
                    expanded.append((dict(f), p, h))
        flows[:] = [e[0] for e in expanded]
        rtts = []
        for i, (f, p, h) in enumerate(expanded):
            src, dst = f"src{i}", f"dst{i}"
            if p == "through":
                a, b, nh = "r0", f"r{hops}", hops
            elif p == "cross":
                a, b, nh = f"r{h}", f"r{h + 1}", 1
            else:
                a, b, nh = f"r{h + 1}", f"r{h}", 1
            net.duplex(src, a, arate, adelay, abuf, abuf_field, "droptail")
            net.duplex(b, dst, arate, adelay, abuf, abuf_field, "droptail")
            f["src"], f["dst"] = net.index[src], net.index[dst]
            f["label"] = f["label"] if h is None else f"{f['label']}.hop{h + 1}"
            rtts.append(2 * (2 * adelay + nh * hdelay))
        return rtts

    def _explicit(self, t: dict, flows: list[dict], net: _Net) -> None:
        _check_keys("topology", t, _EXPLICIT_KEYS)
        nodes = t.get("nodes")
        if not isinstance(nodes, list) or not nodes or not all(isinstance(n, str) for n in nodes):
            raise ScenarioError("topology.nodes", nodes, "a non-empty list of node names")
        if len(set(nodes)) != len(nodes):
            raise ScenarioError("topology.nodes", nodes, "node names without duplicates")
        for n in nodes:
            net.node(n)
        links = t.get("links")
        if not isinstance(links, list) or not links:
            raise ScenarioError("topology.links", links, "a non-empty list of links ([[topology.links]])")
        for i, l in enumerate(links):
            w = f"topology.links[{i}]"
            _check_keys(w, l, _EXPLICIT_LINK_KEYS)
            a = _str(f"{w}.a", l.get("a"), nodes)
            b = _str(f"{w}.b", l.get("b"), nodes)
            if a == b:
                raise ScenarioError(f"{w}.b", b, "a node other than a")
            rate = parse_rate(f"{w}.rate", l.get("rate"))
            delay = parse_time(f"{w}.delay", l.get("delay"))
            buf = parse_buffer(f"{w}.buffer", l.get("buffer", "1bdp"))
            queue = _queue(f"{w}.queue", l.get("queue", "droptail"))
            net.duplex(a, b, rate, delay, buf, f"{w}.buffer", queue, _loss(f"{w}.loss", l.get("loss")),
                       rev_rate=parse_rate(f"{w}.reverse_rate", l["reverse_rate"]) if "reverse_rate" in l else None,
                       rev_delay=parse_time(f"{w}.reverse_delay", l["reverse_delay"]) if "reverse_delay" in l else None,
                       rev_buf=parse_buffer(f"{w}.reverse_buffer", l["reverse_buffer"]) if "reverse_buffer" in l else None,
                       rev_buf_field=f"{w}.reverse_buffer",
                       rev_loss=_loss(f"{w}.reverse_loss", l.get("reverse_loss")))
        for f in flows:
            w = f["where"]
            for k in ("src", "dst"):
                if k not in f["topo"]:
                    raise ScenarioError(f"{w}.{k}", message=f"{w}.{k}: missing; flows in an explicit topology name their {k} node")
            f["src"] = net.index[_str(f"{w}.src", f["topo"]["src"], nodes)]
            f["dst"] = net.index[_str(f"{w}.dst", f["topo"]["dst"], nodes)]
            if f["src"] == f["dst"]:
                raise ScenarioError(f"{w}.dst", f["topo"]["dst"], "a node other than src")
        return None


# --------------------------------------------------------------------------
# Python builder


class Builder:
    """Build a scenario in Python; produces the same mapping a TOML file does
    and validates it through :class:`Scenario`.

    >>> sc = (Builder(duration="60s", seed=1)
    ...       .dumbbell(bottleneck_rate="100Mbps", bottleneck_delay="18ms",
    ...                 access_rate="1Gbps", access_delay="1ms", buffer="1bdp")
    ...       .tcp(cc="newreno", mss=1448)
    ...       .flows(count=10, app="bulk", stagger="10ms")
    ...       .build())
    """

    def __init__(self, duration: str, seed: int = 1, sample_interval: str | None = None):
        self._d: dict = {"sim": {"duration": duration, "seed": seed}, "tcp": {}, "flows": []}
        if sample_interval is not None:
            self._d["sim"]["sample_interval"] = sample_interval

    def topology(self, kind: str, **kw) -> "Builder":
        self._d["topology"] = {"kind": kind, **kw}
        return self

    def single_link(self, **kw) -> "Builder":
        return self.topology("single_link", **kw)

    def dumbbell(self, **kw) -> "Builder":
        return self.topology("dumbbell", **kw)

    def parking_lot(self, **kw) -> "Builder":
        return self.topology("parking_lot", **kw)

    def explicit(self, nodes: list[str], links: list[dict], **kw) -> "Builder":
        return self.topology("explicit", nodes=nodes, links=links, **kw)

    def tcp(self, **kw) -> "Builder":
        self._d["tcp"].update(kw)
        return self

    def flows(self, **kw) -> "Builder":
        self._d["flows"].append(kw)
        return self

    def to_dict(self) -> dict:
        return copy.deepcopy(self._d)

    def build(self) -> Scenario:
        return Scenario(self.to_dict(), source="<builder>")


def parse_toml(text: str, source: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(source, message=f"{source}: malformed TOML: {e}") from None


def parse_yaml(text: str, source: str) -> dict:
    import yaml

    try:
        d = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ScenarioError(source, message=f"{source}: malformed YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(d, dict):
        raise ScenarioError(source, message=f"{source}: expected a mapping at the top level")
    return d


def read_text(path: str | Path, what: str = "scenario file") -> str:
    p = Path(path)
    try:
        return p.read_text()
    except OSError as e:
        raise ScenarioError(str(p), message=f"{p}: cannot read {what}: {e.strerror}") from None


def read_mapping(path: str | Path) -> dict:
    """A scenario file (.toml, .yaml, .yml) as its unvalidated mapping."""
    p = Path(path)
    if p.suffix not in (".toml", ".yaml", ".yml"):
        raise ScenarioError(str(p), message=f"{p}: unknown scenario file type {p.suffix!r}; expected .toml, .yaml or .yml")
    text = read_text(p)
    return parse_yaml(text, str(p)) if p.suffix in (".yaml", ".yml") else parse_toml(text, str(p))


def load(path: str | Path) -> Scenario:
    """Load and validate a scenario file (.toml, .yaml, .yml)."""
    return Scenario.from_file(path)


def _isfinite(x: float) -> bool:
    return math.isfinite(x)
