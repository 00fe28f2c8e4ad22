"""`explicit`: named nodes and `[[topology.links]]` tables, each a duplex
link with a single link's options per direction; flows name their nodes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ScenarioError
from .._check import _check_keys, _str
from ..linkrates import parse_link_rate
from ..netmodels import DEFAULT_QUEUE, _loss, _queue, _reorder
from ..units import parse_buffer, parse_time
from .common import Net, _default_buffer, _shapers, keys, names
from .draws import rate, rate_or_schedule
from .single_link import KEYS as SINGLE_LINK_KEYS

if TYPE_CHECKING:
    import numpy as np

KIND = "explicit"
ROWS: dict[str, str] = {
    "nodes, links": "[[topology.links]] tables: a, b, rate (or a schedule), trace, trace_offset, delay, buffer, queue, loss, reorder, shaper and reverse_* options",
    "flows: src, dst": "node names",
}
KEYS = keys(ROWS)
FLOW_KEYS = names(ROWS, True)
PCAP_ALIAS = None
# a [[topology.links]] table: its ends, and a single link's options for its two directions
LINK_KEYS = {"a", "b"} | SINGLE_LINK_KEYS - {"kind", "bdp_rtt"}


def build(t: dict[str, Any], flows: list[dict[str, Any]], net: Net) -> None:
    _check_keys("topology", t, KEYS)
    nodes = t.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(isinstance(n, str) for n in nodes):
        raise ScenarioError("topology.nodes", nodes, "a non-empty list of node names")
    if len(set(nodes)) != len(nodes):
        raise ScenarioError("topology.nodes", nodes, "node names without duplicates")
    for n in nodes:
        if not n.strip() or "->" in n or "," in n:
            # a link is named "a->b" (results, sim.sample_links, sim.pcap, where
            # "," separates names): "a->b" as a node would make two links share a name
            raise ScenarioError("topology.nodes", n, "a non-empty node name without '->' or ','")
        net.node(n)
    links = t.get("links")
    if not isinstance(links, list) or not links:
        raise ScenarioError("topology.links", links, "a non-empty list of links ([[topology.links]])")
    for i, l in enumerate(links):
        w = f"topology.links[{i}]"
        _check_keys(w, l, LINK_KEYS)
        a = _str(f"{w}.a", l.get("a"), nodes)
        b = _str(f"{w}.b", l.get("b"), nodes)
        if a == b:
            raise ScenarioError(f"{w}.b", b, "a node other than a")
        rate = parse_link_rate(l, w, "rate", "trace")
        rrate = parse_link_rate(l, w, "reverse_rate", "reverse_trace", default=rate)
        delay = parse_time(f"{w}.delay", l.get("delay"))
        queue = _queue(f"{w}.queue", l.get("queue", DEFAULT_QUEUE))
        buf = parse_buffer(f"{w}.buffer", l.get("buffer", _default_buffer(queue)))
        net.duplex(
            a,
            b,
            rate,
            delay,
            buf,
            f"{w}.buffer",
            queue,
            _loss(f"{w}.loss", l.get("loss")),
            rev_rate=rrate,
            rev_delay=parse_time(f"{w}.reverse_delay", l["reverse_delay"]) if "reverse_delay" in l else None,
            rev_buf=parse_buffer(f"{w}.reverse_buffer", l["reverse_buffer"]) if "reverse_buffer" in l else None,
            rev_buf_field=f"{w}.reverse_buffer",
            rev_loss=_loss(f"{w}.reverse_loss", l.get("reverse_loss")),
            reorder=_reorder(f"{w}.reorder", l.get("reorder")),
            rev_reorder=_reorder(f"{w}.reverse_reorder", l.get("reverse_reorder")),
            shapers=_shapers(l, w, rate, rrate),
        )
    for f in flows:
        w = f["where"]
        for k in ("src", "dst"):
            if k not in f["topo"]:
                raise ScenarioError(
                    f"{w}.{k}", message=f"{w}.{k}: missing; flows in an explicit topology name their {k} node"
                )
        f["src"] = net.index[_str(f"{w}.src", f["topo"]["src"], nodes)]
        f["dst"] = net.index[_str(f"{w}.dst", f["topo"]["dst"], nodes)]
        if f["src"] == f["dst"]:
            raise ScenarioError(f"{w}.dst", f["topo"]["dst"], "a node other than src")
    return


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random explicit topology for the fuzz generator (tools/fuzz.py): a
    triangle a – b – c with a direct a – c link and parallel a – b links."""
    link = {"delay": "5ms", "buffer": buffer, "queue": queue}
    return {
        "kind": KIND,
        "nodes": ["a", "b", "c"],
        "bdp_rtt": "20ms",
        "links": [
            dict(link, a="a", b="b", rate=rate_or_schedule(rng)),
            dict(link, a="b", b="c", rate=rate(rng)),
            dict(link, a="a", b="c", rate=rate(rng), delay="30ms"),
            dict(link, a="a", b="b", rate=rate(rng)),
        ],
    }
