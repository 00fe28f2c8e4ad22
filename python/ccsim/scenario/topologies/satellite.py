"""`satellite`: a dumbbell whose bottleneck is a GEO hop (Grieco & Mascolo
2004, W5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .common import Net
from .draws import with_loss
from .dumbbell import FLOW_KEYS as DUMBBELL_FLOW_KEYS
from .dumbbell import KEYS as DUMBBELL_KEYS
from .dumbbell import build as build_dumbbell
from .dumbbell import fuzz_wired

if TYPE_CHECKING:
    import numpy as np

KIND = "satellite"
ROWS: dict[str, str] = {
    "as dumbbell": "a GEO bottleneck: bottleneck_delay default '275ms'; 'loss' applies to both directions unless reverse_loss is given",
}
KEYS = DUMBBELL_KEYS
FLOW_KEYS = DUMBBELL_FLOW_KEYS
PCAP_ALIAS = "r0->r1"


def build(t: dict[str, Any], flows: list[dict[str, Any]], net: Net) -> list[int]:
    """A dumbbell whose bottleneck is a GEO hop (W5 of Grieco & Mascolo 2004): 275 ms
    one way unless given, the loss model on both directions."""
    return build_dumbbell(t, flows, net, default_delay="275ms", loss_both_ways=True)


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random satellite dumbbell for the fuzz generator (tools/fuzz.py)."""
    topo = fuzz_wired(rng, KIND, buffer, queue, delay_drawn=True)
    with_loss(rng, topo)
    return topo
