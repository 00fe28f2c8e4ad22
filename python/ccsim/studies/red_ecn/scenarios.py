"""The scenarios of Mišković, Petrović & Trajković 2004: the dumbbell, its
queue disciplines and thresholds, and the constants the claims use."""

from __future__ import annotations

import json
from typing import Any

from ..base import NS2_OF_2004
from ..kit import full_packet_bytes

RATE = 1.5e6  # bottleneck, bit/s
MSS = 1460
# the common [tcp] table and its full data packet on the wire (1460
# payload + 40 TCP/IP header, no timestamps on the 2004 ns-2 stack = 1500)
TCP = {"stack": NS2_OF_2004, "cc": "newreno", "mss": MSS, "rwnd": "10000pkt"}
PKT = full_packet_bytes(TCP)
IDEAL_GEFF = 0.9533  # the paper's ideal GEff
# The CBR rate that leaves exactly the paper's ideal GEff to TCP payload:
# (RATE − cbr) · MSS / PKT = IDEAL_GEFF · RATE.
CBR_BPS = RATE * (1 - IDEAL_GEFF * PKT / MSS)
BDP_PKTS = 10  # the paper's one-way bandwidth × delay
ONE_WAY_MS = 78  # 10 packets · 12 000 bit / 1.5 Mb/s = 80 ms, minus 2 × 1 ms access
DISCIPLINES = ["droptail", "red", "gentle_red", "adaptive_red"]
RED_FAMILY = DISCIPLINES[1:]
NAMES = {"droptail": "DropTail", "red": "RED", "gentle_red": "gentle RED", "adaptive_red": "adaptive RED"}
LINK = "r0->r1"
# The error sweep's bottleneck loss: none, then two-state channels (GOOD and
# BAD mean durations, loss in BAD) from mild to harsh
ERROR_MODELS = [{"kind": "none"}] + [
    {"kind": "two_state", "good": g, "bad": b, "loss_bad": lb, "durations": "exponential"}
    for g, b, lb in (("2s", "20ms", 0.2), ("1s", "50ms", 0.3), ("500ms", "100ms", 0.5))
]


def loss_cell(model: dict[str, Any]) -> str:
    """An error model as a campaign's runs table holds a table-valued axis."""
    return json.dumps(model, sort_keys=True)


def thresholds(ql: int) -> tuple[float, float]:
    """The paper's RED thresholds: (QL/4, 3·QL/4) — QL 4 → (1, 3), QL 36 → (9, 27)."""
    return ql / 4, 3 * ql / 4


# RED as ns-2.27 ran it: w_q automatic (q_weight_ −1, red.cc
# initialize_params; the paper gives no number, only that w_q follows the
# current recommendations) and mark_p_ with the forced drops kept (ns-2's
# use_mark_p_ came in 2005).
RED_NS2_27 = {"ecn": True, "w_q": "auto", "mark_p_forced": True}


def queue_table(kind: str, ql: int, mark_p: float = 0.1) -> str | dict[str, Any]:
    if kind == "droptail":
        return "droptail"
    lo, hi = thresholds(ql)
    return {"kind": kind, "min_th": lo, "max_th": hi, "mark_p": mark_p, **RED_NS2_27}


def _ql(p: dict[str, Any]) -> int:
    return int(str(p["topology.buffer"]).removesuffix("pkt"))


def _queue_from_point(p: dict[str, Any]) -> str | dict[str, Any]:
    return queue_table(p["topology.queue.kind"], _ql(p), p.get("topology.queue.mark_p", 0.1))


def _same_count(p: dict[str, Any]) -> int:
    return int(p["flows[0].count"])


def base_scenario(duration_s: float, sample: str = "100ms") -> dict[str, Any]:
    start = {"dist": "uniform", "min": "0s", "max": "1s"}
    return {
        "sim": {"duration": f"{duration_s:g}s", "seed": 1, "sample_interval": sample},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1.5Mbps",
            "bottleneck_delay": f"{ONE_WAY_MS}ms",
            "access_rate": "10Mbps",
            "access_delay": "1ms",
            "buffer": "36pkt",
            "access_buffer": "50pkt",
            "queue": queue_table("red", 36),
        },
        "tcp": dict(TCP),
        "flows": [
            {"count": 1, "label": "newreno_ecn", "cc": "newreno", "sack": "off", "ecn": True, "start": start},
            {"count": 1, "label": "sack", "cc": "newreno", "sack": "sack1", "ecn": False, "start": start},
            {"count": 1, "label": "cbr", "app": "cbr", "rate": f"{CBR_BPS:.0f}bps", "packet_size": "500B"},
        ],
    }


def red_weight() -> float:
    """RED's w_q on the bottleneck as the core sets it (ns-2.27's automatic
    rule, read from the core, not computed here)."""
    import json

    from ... import _core
    from ...scenario import Scenario

    core = json.loads(Scenario.from_dict(base_scenario(1.0)).to_core_json())
    link = next(lk for lk in core["links"] if lk["queue"].get("kind") == "red")
    return float(json.loads(_core.red_params(json.dumps(link)))["w_q"])
