"""`wireless`: a wired dumbbell plus a shared last hop r1 – mobile with its
own loss model in each direction (Grieco & Mascolo 2004, W4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .common import Net, keys, names
from .draws import rate
from .dumbbell import FLOW_KEYS as DUMBBELL_FLOW_KEYS
from .dumbbell import KEYS as DUMBBELL_KEYS
from .dumbbell import build as build_dumbbell
from .dumbbell import fuzz_wired

if TYPE_CHECKING:
    import numpy as np

KIND = "wireless"
ROWS: dict[str, str] = {
    "as dumbbell": "the wired part: every dumbbell option",
    "wireless_rate, wireless_delay, wireless_buffer": "the last hop r1 – mobile, shared by the wireless flows; wireless_rate may be a schedule",
    "wireless_trace, wireless_trace_offset": "a mahimahi trace for the last hop (both directions) in place of wireless_rate",
    "wireless_loss, wireless_reverse_loss": "loss on the last hop (reverse default: the same model, own stream)",
    "flows: path, direction, rtt, access": "path 'wireless' (default: src – r0 – r1 – mobile) or 'wired' (cross/reverse traffic on the dumbbell); direction, rtt and access as dumbbell",
}
KEYS = DUMBBELL_KEYS | keys(ROWS)
FLOW_KEYS = DUMBBELL_FLOW_KEYS | names(ROWS, True)
PCAP_ALIAS = "r0->r1"


def build(t: dict[str, Any], flows: list[dict[str, Any]], net: Net) -> list[int]:
    """A wired dumbbell plus a shared last hop r1 – mobile with its own
    loss model in each direction (W4 of Grieco & Mascolo 2004)."""
    return build_dumbbell(t, flows, net, keys=KEYS)


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random wireless dumbbell for the fuzz generator (tools/fuzz.py)."""
    topo = fuzz_wired(rng, KIND, buffer, queue)
    topo.update(wireless_rate=rate(rng), wireless_delay="2ms", wireless_buffer="50pkt")
    if rng.random() < 0.5:
        topo["wireless_loss"] = {"kind": "bernoulli", "p": 0.01}
    return topo
