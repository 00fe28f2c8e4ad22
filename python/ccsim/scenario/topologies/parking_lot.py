"""`parking_lot`: N router-to-router hops r0 – … – rN; flows go through
every hop or cross one (Grieco & Mascolo 2004, W3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._check import _check_keys, _int, _str
from ..linkrates import parse_link_rate
from ..units import parse_time
from .common import Net, _access_and_buffers, keys, names
from .draws import rate

if TYPE_CHECKING:
    import numpy as np

KIND = "parking_lot"
ROWS: dict[str, str] = {
    "hops, hop_rate, hop_delay": "N router-to-router hops r0 – … – rN",
    "hop_trace, hop_trace_offset": "a mahimahi trace in place of hop_rate, replayed by every hop in both directions from the same offset",
    "access_rate, access_delay, access_buffer, buffer, queue": "access links and hop queues",
    "flows: path": "'through' (all hops), 'cross' (one flow per hop, C1's direction), 'cross_reverse'",
}
KEYS = keys(ROWS)
FLOW_KEYS = names(ROWS, True)
PCAP_ALIAS = None


def build(t: dict[str, Any], flows: list[dict[str, Any]], net: Net) -> list[int]:
    _check_keys("topology", t, KEYS)
    hops = _int("topology.hops", t.get("hops"), lo=1, hi=10_000)
    hrate = parse_link_rate(t, "topology", "hop_rate", "hop_trace")
    hdelay = parse_time("topology.hop_delay", t.get("hop_delay"))
    arate, adelay, buf, abuf, abuf_field, queue = _access_and_buffers(t)
    for k in range(hops):
        net.duplex(f"r{k}", f"r{k + 1}", hrate, hdelay, buf, "topology.buffer", queue)
    # Flow groups with path = "cross" / "cross_reverse" get `count` flows on
    # every hop; expand them now (flow order: group order, then hop).
    expanded: list[tuple[dict[str, Any], str, int | None]] = []
    for f in flows:
        p = _str(f"{f['where']}.path", f["topo"].get("path", "through"), ["through", "cross", "cross_reverse"])
        if p == "through":
            expanded.append((f, p, None))
        else:
            for hop in range(hops):
                expanded.append((dict(f), p, hop))
    flows[:] = [e[0] for e in expanded]
    rtts = []
    for i, (f, p, h) in enumerate(expanded):
        src, dst = f"src{i}", f"dst{i}"
        if h is None:  # p == "through"
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


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random parking lot for the fuzz generator (tools/fuzz.py)."""
    return {
        "kind": KIND,
        "hops": int(rng.integers(2, 4)),
        "hop_rate": rate(rng),
        "hop_delay": "5ms",
        "access_rate": "1Gbps",
        "access_delay": "1ms",
        "buffer": buffer,
        "queue": queue,
    }
