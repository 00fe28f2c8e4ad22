"""Topology kinds: one module each (single_link, dumbbell, satellite,
wireless, parking_lot, explicit) holding its documented options (`ROWS`),
its builder (`build`: add nodes and links to a `Net`, place every flow and
return the flows' base RTTs), the link `sim.pcap = "bottleneck"` names
(`PCAP_ALIAS`) and its fuzz generator (`fuzz`); common.py what they share.
A new kind is its own module plus one line in `KINDS`. docs/scenario.md
describes each kind."""

from __future__ import annotations

from . import dumbbell, explicit, parking_lot, satellite, single_link, wireless
from .common import (
    BDP_RTT_DOC,
    OPPORTUNITY_BYTES,
    Net,
    bdp_rtt,
    check_shapers,
    link_bits_bound,
    link_capacity_bps,
    resolve_buffers,
    routes,
)

# in the order `ccsim list topology` and docs/scenario.md give them (and the
# fuzz generator draws them)
KINDS = [single_link, dumbbell, parking_lot, wireless, satellite, explicit]

TOPOLOGY_DOC: dict[str, dict[str, str]] = {k.KIND: {**k.ROWS, "bdp_rtt": BDP_RTT_DOC} for k in KINDS}
TOPOLOGY_KINDS: list[str] = [k.KIND for k in KINDS]
TOPOLOGY_KEYS: dict[str, set[str]] = {k.KIND: k.KEYS for k in KINDS}
FLOW_TOPO_KEYS: dict[str, set[str]] = {k.KIND: k.FLOW_KEYS for k in KINDS}
BUILDERS = {k.KIND: k.build for k in KINDS}
PCAP_ALIAS: dict[str, str] = {k.KIND: k.PCAP_ALIAS for k in KINDS if k.PCAP_ALIAS}
TOPOLOGY_FUZZ = {k.KIND: k.fuzz for k in KINDS}
EXPLICIT_LINK_KEYS = explicit.LINK_KEYS

__all__ = [
    "BDP_RTT_DOC",
    "BUILDERS",
    "EXPLICIT_LINK_KEYS",
    "FLOW_TOPO_KEYS",
    "OPPORTUNITY_BYTES",
    "PCAP_ALIAS",
    "TOPOLOGY_DOC",
    "TOPOLOGY_FUZZ",
    "TOPOLOGY_KEYS",
    "TOPOLOGY_KINDS",
    "Net",
    "bdp_rtt",
    "check_shapers",
    "link_bits_bound",
    "link_capacity_bps",
    "resolve_buffers",
    "routes",
]
