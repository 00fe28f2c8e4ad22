"""TCP options of a scenario (the `[tcp]` table and per-group overrides):
defaults, documentation, and their resolution into the core's TCP config.
Every error names the field, the value and what is accepted."""

from __future__ import annotations

import functools
import json
from typing import Any

from . import _core, algorithms
from ._check import _bool, _int, _str
from .errors import ScenarioError
from .units import fmt_time_ps, parse_buffer, parse_size, parse_time

STACKS = ["linux", "ns2"]
RTO_MODELS = ["linux", "rfc6298", "ns2"]
# Options that need the RFC 6675 scoreboard (config/tcp.rs SCOREBOARD_OPTIONS).
SCOREBOARD_OPTIONS = ["prr", "dsack", "rack", "tlp", "undo", "frto"]


def _defaults_from_core(stack: str, cc: str = "newreno") -> dict[str, Any]:
    """The [tcp] options as `stack` sets them, written as a scenario writes
    them, read from the core (`TcpCfg::for_stack` in
    crates/ccsim-core/src/config/tcp.rs, the one place they are written)."""
    out: dict[str, Any] = {}
    for k, v in json.loads(_core.tcp_defaults(stack, cc)).items():
        if k.endswith("_ps"):
            out[k[:-3]] = fmt_time_ps(v)
        elif k == "rwnd_bytes":
            out["rwnd"] = v
        elif k == "initial_ssthresh" and v is None:
            out[k] = "inf"
        else:
            out[k] = v
    return out


TCP_DOC: dict[str, str] = {
    "stack": "whose TCP the defaults imitate: 'linux' (Linux 6.x) or 'ns2' (ns-2.35); options set explicitly override it (docs/scenario.md)",
    "cc": "congestion control: tahoe, reno, newreno, vegas, westwood, westwoodplus, highspeed, scalable, bic, cubic, bbr ('ccsim list cc')",
    "cc_preset": "named parameter set of the algorithm, e.g. 'paper' ('ccsim list cc'); none = defaults",
    "cc_params": "table of algorithm parameters over the preset, e.g. {low_window = 31} ('ccsim list cc')",
    "mss": "maximum segment size, payload bytes",
    "header_bytes": "TCP/IP header bytes on every packet without options; timestamps add 12, SACK blocks 4 + 8 per block",
    "initial_window": "initial cwnd, segments (RFC 6928 / Linux: 10)",
    "initial_ssthresh": "initial ssthresh, segments, or 'inf' (RFC 5681: arbitrarily high)",
    "rto": "RTO model: 'linux' (RTO = SRTT + rttvar, rttvar ≥ min_rto), 'rfc6298' (max(min_rto, SRTT + max(G, 4·RTTVAR))), 'ns2' (tick-counted, one timed segment per RTT)",
    "min_rto": "lower bound on the RTO (rfc6298: on the RTO; linux: on rttvar, so RTO ≥ SRTT + min_rto; ns2: minrto_, before back-off)",
    "initial_rto": "RTO before the first RTT sample (RFC 6298: 1s)",
    "max_rto": "upper bound on the RTO, back-off included (RFC 6298: at least 60s)",
    "clock_granularity": "rfc6298: G in SRTT + max(G, 4·RTTVAR); linux: the jiffy the RTO is rounded up to; ns2: tcpTick_",
    "max_cwnd": "cap on cwnd in segments (Linux snd_cwnd_clamp); none = no cap",
    "rwnd": "receiver's advertised window: a size ('64KB') or '<n>pkt'; none = unlimited",
    "delayed_ack": "ACK every delack_count segments or after delack_timeout (RFC 5681 §4.2)",
    "delack_timeout": "delayed-ACK timer",
    "delack_count": "full-sized segments per delayed ACK",
    "handshake": "open with SYN / SYN-ACK (one RTT) before data",
    "dupthresh": "duplicate ACKs that trigger fast retransmit (RFC 5681: 3)",
    "abc_limit": "most segments one ACK may add to cwnd in slow start (RFC 3465 L; RFC 5681: 1); 0 = no limit (Linux)",
    "sack": "SACK recovery: 'off' (recovery by cc name), 'rfc6675' (RFC 6675 scoreboard), 'sack1' (ns-2 Agent/TCP/Sack1)",
    "receiver_sack": "the receiver sends SACK blocks when sack is on; false: a sink without SACK (ns-2's plain TCPSink behind a Sack1 sender; a Linux sender would negotiate SACK off instead: set sack = 'off')",
    "sack_blocks": "most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps; ns-2: 3)",
    "growth_per": "what one ACK credits to window growth: 'segment' (the segments it delivered; Linux, RFC 3465) or 'ack' (one, however many it covers; ns-2, so delayed ACKs halve the growth)",
    "ssthresh_base": "what a loss-based reduction of the Reno family halves: 'cwnd' (Linux tcp_reno_ssthresh, ns-2 slowdown) or 'flight' (RFC 5681 eq. 4: FlightSize)",
    "rto_ssthresh": "whether an RTO recomputes ssthresh: 'linux' (not inside a recovery or ECN reduction, nor on a backed-off expiry; tcp_enter_loss) or 'ns2' (on every expiry, fast recovery included; TcpAgent::timeout)",
    "cwnd_limited_gate": "grow the window only while the flow uses it (Linux tcp_is_cwnd_limited); false: on every new ACK (ns-2)",
    "limited_transmit": "RFC 3042: one new segment on each of the first two duplicate ACKs",
    "impatient": "NewReno restarts the RTO timer only on the first partial ACK (RFC 6582 §4 Impatient; ns-2); false: on every partial ACK (Slow-but-Steady; Linux)",
    "prr": "RFC 6937 proportional rate reduction in recovery (needs sack = 'rfc6675')",
    "timestamps": "RFC 7323 timestamps: an RTT sample from every ACK, 12 option bytes on every packet",
    "ecn": "RFC 3168 ECN: data is ECT; CE echoed with ECE until CWR; one reduction per window",
    "pacing": "'off', 'linux' (rate = ratio·mss·max(cwnd, in flight)/srtt), 'window' (one segment per srtt/cwnd, ns-2 studies)",
    "pacing_ss_ratio": "Linux pacing ratio while cwnd < ssthresh/2 (tcp_pacing_ss_ratio 200%)",
    "pacing_ca_ratio": "Linux pacing ratio otherwise (tcp_pacing_ca_ratio 120%)",
    "tso": "Linux TSO/GSO autosizing: a Linux-paced flow sends max(min_tso_segs, rate·1 ms/mss) segments per release, ≤ 64 KB (false: one, as ns-3)",
    "min_tso_segs": "fewest segments per paced release (sysctl tcp_min_tso_segs 2; BBR decides its own: 1 below 1.2 Mb/s, else 2)",
    "quickack": "quick-ACK quota: the receiver ACKs each of the first n data segments at once (Linux: 16, TCP_MAX_QUICKACKS, and at most rwnd/(2·mss); re-armed after an idle gap longer than the RTO with delack_timer = 'linux')",
    "delack_timer": "'linux' (adaptive ato from 40 ms up to delack_timeout, bounded by max(RTT, 40 ms); short segments ACKed at once; quick-ACK re-armed after idle; tcp_event_data_recv / tcp_send_delayed_ack) or 'fixed' (delack_timeout; ns-2 DelAckSink)",
    "dsack": "RFC 2883 D-SACK: the receiver reports a duplicate segment in the first SACK block; the sender uses it for undo and RACK's reordering window (needs sack = 'rfc6675')",
    "rack": "RFC 8985 RACK: a segment sent before one already delivered is lost once RTT + reordering window (min_rtt/4, grown by D-SACKs) have passed; with DupThresh as Linux tcp_recovery = 1 (needs sack = 'rfc6675')",
    "tlp": "RFC 8985 §7 tail loss probe: after 2·SRTT (+ min_rto with one segment out) without an ACK, send new data or the last segment (needs sack = 'rfc6675')",
    "undo": "undo a window reduction that D-SACKs or timestamps prove spurious (Linux tcp_try_undo_*) through the algorithm's undo_cwnd (needs sack = 'rfc6675')",
    "frto": "RFC 5682 F-RTO, SACK-enhanced as Linux: an RTO followed by ACKs of never-retransmitted data is spurious and undone (needs sack = 'rfc6675')",
    "idle_restart": "restart the window after an idle period longer than the RTO when the application writes again (RFC 2861, Linux tcp_slow_start_after_idle)",
}


@functools.cache
def _ordered_defaults(stack: str, cc: str = "newreno") -> dict[str, Any]:
    core = _defaults_from_core(stack, cc)
    if set(core) != set(TCP_DOC):
        raise RuntimeError(f"TCP options of the core and TCP_DOC differ: {sorted(set(core) ^ set(TCP_DOC))}")
    return {k: core[k] for k in TCP_DOC}


# TCP options as written in a scenario, in documentation order, per stack:
# name -> value. The resolver converts them into the core's TCP config.
STACK_DEFAULTS: dict[str, dict[str, Any]] = {s: _ordered_defaults(s) for s in STACKS}
# The default stack's values.
TCP_DEFAULTS: dict[str, Any] = STACK_DEFAULTS["linux"]


def for_group(where: str, tcp_sec: dict, group: dict) -> dict:
    """The core's TCP config of one flow group: the stack's values (the
    group's `stack`, else the [tcp] table's, else linux), then the [tcp]
    table's options, then the group's own."""
    if "stack" in group:
        stack = _str(f"{where}.stack", group["stack"], STACKS)
    else:
        stack = _str("tcp.stack", tcp_sec.get("stack", "linux"), STACKS)
    cc_v, cc_f = (group["cc"], f"{where}.cc") if "cc" in group else (tcp_sec.get("cc", "newreno"), "tcp.cc")
    cc = _str(cc_f, cc_v, list(_core.algorithms()))
    base = {k: (v, f"tcp.{k} ({stack} stack default)") for k, v in _ordered_defaults(stack, cc).items()}
    opts = merge(where, group, merge("tcp", tcp_sec, base))
    for k in SCOREBOARD_OPTIONS:
        if k not in group and k not in tcp_sec and opts["sack"][0] != "rfc6675":
            # The stack's value applies only where the recovery has the
            # scoreboard it works on (as deserialize_with_stack in config/tcp.rs).
            opts[k] = (False, opts[k][1])
    return resolve(opts)


def merge(where: str, d: dict, base: dict) -> dict:
    """Overlay options `d` (written at `where`) on `base`, a mapping of
    option -> (raw value, field it came from)."""
    out = dict(base)
    for k, v in d.items():
        out[k] = (v, f"{where}.{k}")
    return out


def resolve(opts: dict) -> dict:
    """Turn option -> (raw value, field) into the core's TCP config."""
    names = list(_core.algorithms())
    out: dict = {}
    for k, (v, f) in opts.items():
        if k == "cc":
            out["cc"] = _str(f, v, names)
        elif k == "stack":
            out["stack"] = _str(f, v, STACKS)
        elif k == "rto":
            out["rto"] = _str(f, v, RTO_MODELS)
        elif k in ("cc_preset", "cc_params"):
            pass  # checked below, once cc is known
        elif k == "mss":
            out["mss"] = _int(f, v, lo=1, hi=65495)
        elif k == "header_bytes":
            out["header_bytes"] = _int(f, v, lo=0, hi=1000)
        elif k == "initial_window":
            out["initial_window"] = _int(f, v, lo=1, hi=_core.MAX_INITIAL_WINDOW)
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
        elif k == "growth_per":
            out["growth_per"] = _str(f, v, ["segment", "ack"])
        elif k == "ssthresh_base":
            out["ssthresh_base"] = _str(f, v, ["cwnd", "flight"])
        elif k == "rto_ssthresh":
            out["rto_ssthresh"] = _str(f, v, ["linux", "ns2"])
        elif k in (
            "limited_transmit",
            "impatient",
            "prr",
            "timestamps",
            "ecn",
            "tso",
            "idle_restart",
            "cwnd_limited_gate",
            "receiver_sack",
            "dsack",
            "rack",
            "tlp",
            "undo",
            "frto",
        ):
            out[k] = _bool(f, v)
        elif k == "pacing":
            out["pacing"] = _str(f, v, ["off", "linux", "window"])
        elif k in ("pacing_ss_ratio", "pacing_ca_ratio"):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < float(v) <= 100):
                raise ScenarioError(f, v, "a ratio in (0, 100], e.g. 2.0 for 200%")
            out[k] = float(v)
        elif k == "delack_timer":
            out["delack_timer"] = _str(f, v, ["linux", "fixed"])
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
        raise ScenarioError(
            opts["sack_blocks"][1], out["sack_blocks"], "at most 3 SACK blocks with timestamps (40 option bytes)"
        )
    for k in SCOREBOARD_OPTIONS:
        if out[k] and out["sack"] != "rfc6675":
            raise ScenarioError(
                opts[k][1], True, f"{k} = true only with sack = 'rfc6675' (it works on the SACK scoreboard)"
            )
    if out["sack"] != "off" and algorithms.specs()[out["cc"]]["recovery"] == "tahoe":
        raise ScenarioError(
            opts["sack"][1], out["sack"], f"sack = 'off' with {out['cc']} (Tahoe recovery has no fast recovery)"
        )
    if out["max_rto_ps"] < out["min_rto_ps"]:
        raise ScenarioError(opts["max_rto"][1], message=f"{opts['max_rto'][1]}: must be ≥ min_rto")
    return out


def wire_bytes(tcp: dict) -> int:
    """Bytes of a full-sized data packet: mss + headers (+12 with timestamps)."""
    return tcp["mss"] + tcp["header_bytes"] + (12 if tcp["timestamps"] else 0)
