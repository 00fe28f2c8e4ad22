"""`single_link`: hosts a and b on one duplex link (host – switch – host
collapsed), each direction with its own rate, delay, buffer, queue, loss,
reordering and shaper."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._check import _check_keys, _str
from ..linkrates import parse_link_rate
from ..netmodels import DEFAULT_QUEUE, _loss, _queue, _reorder
from ..units import parse_buffer, parse_time
from .common import Net, _default_buffer, _shapers, keys, names
from .draws import rate_or_schedule, with_loss, with_trace

if TYPE_CHECKING:
    import numpy as np

KIND = "single_link"
ROWS: dict[str, str] = {
    "rate, delay": "the link a – b (host – switch – host collapsed into one duplex link); rate may be a schedule [[0, '50Mbps'], ['10s', '10Mbps'], ...] (0 = outage)",
    "trace, trace_offset, reverse_trace, reverse_trace_offset": "a mahimahi packet-delivery trace file in place of rate (one ms timestamp per line, 1504 bytes per opportunity, repeating), replayed from trace_offset into it",
    "buffer, queue, loss": "forward direction (buffer default '1bdp', queue default 'droptail')",
    "reverse_rate, reverse_delay, reverse_buffer, reverse_loss": "the b → a direction (default: as forward, no loss)",
    "reorder, reverse_reorder": "netem-like reordering of a direction: {jitter = '2ms'} (extra delay uniform in 0..jitter per packet) and/or {probability = 0.01, delay = '5ms'}; later packets overtake the delayed ones",
    "shaper, reverse_shaper": "a token-bucket shaper in place of the serialising transmitter, as Linux tc on a veth: 'htb' (Mininet's TCLink), 'tbf' or a table {kind, burst, cburst, overhead}; reverse_shaper defaults to shaper (docs/scenario.md)",
    "flows: direction": "'forward' (a → b) or 'reverse'",
}
KEYS = keys(ROWS)
FLOW_KEYS = names(ROWS, True)
# what `sim.pcap = "bottleneck"` names
PCAP_ALIAS = "a->b"


def build(t: dict[str, Any], flows: list[dict[str, Any]], net: Net) -> list[int]:
    _check_keys("topology", t, KEYS)
    rate = parse_link_rate(t, "topology", "rate", "trace")
    delay = parse_time("topology.delay", t.get("delay"))
    queue = _queue("topology.queue", t.get("queue", DEFAULT_QUEUE))
    buf = parse_buffer("topology.buffer", t.get("buffer", _default_buffer(queue)))
    rrate = parse_link_rate(t, "topology", "reverse_rate", "reverse_trace", default=rate)
    rdelay = parse_time("topology.reverse_delay", t["reverse_delay"]) if "reverse_delay" in t else delay
    rbuf = parse_buffer("topology.reverse_buffer", t["reverse_buffer"]) if "reverse_buffer" in t else buf
    net.duplex(
        "a",
        "b",
        rate,
        delay,
        buf,
        "topology.buffer",
        queue,
        _loss("topology.loss", t.get("loss")),
        rev_rate=rrate,
        rev_delay=rdelay,
        rev_buf=rbuf,
        rev_buf_field="topology.reverse_buffer" if "reverse_buffer" in t else "topology.buffer",
        rev_loss=_loss("topology.reverse_loss", t.get("reverse_loss")),
        reorder=_reorder("topology.reorder", t.get("reorder")),
        rev_reorder=_reorder("topology.reverse_reorder", t.get("reverse_reorder")),
        shapers=_shapers(t, "topology", rate, rrate),
    )
    for f in flows:
        d = _str(f"{f['where']}.direction", f["topo"].get("direction", "forward"), ["forward", "reverse"])
        f["src"], f["dst"] = (0, 1) if d == "forward" else (1, 0)
    return [delay + rdelay] * len(flows)


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random single link for the fuzz generator (tools/fuzz.py)."""
    topo: dict[str, Any] = {
        "kind": KIND,
        "rate": rate_or_schedule(rng),
        "delay": f"{int(rng.choice([1, 5, 20, 50]))}ms",
        "buffer": buffer,
        "queue": queue,
    }
    if rng.random() < 0.15:
        topo["reorder"] = {"jitter": "2ms"} if rng.random() < 0.5 else {"probability": 0.02, "delay": "5ms"}
    with_trace(rng, topo, "rate", traces)
    with_loss(rng, topo)
    return topo
