"""What every topology kind shares: the `Net` its builder adds nodes and
links to, the link facts the front end reads (capacity, the bits a link can
carry), buffers sized in BDPs, shapers, and the access-link options of the
dumbbell-like and parking-lot kinds."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ... import _core
from ...errors import ScenarioError
from ..linkrates import LinkRate, parse_link_rate
from ..netmodels import BYTES_LIMIT, DEFAULT_BUFFER, DEFAULT_QUEUE, _queue, _shaper
from ..units import PS_PER_S, Buffer, parse_buffer, parse_time

BDP_RTT_DOC = (
    "the RTT that sizes '…bdp' buffers: 'max' (default: the largest base RTT of the flows), 'mean', "
    "or a time (required for '…bdp' buffers in an explicit topology)"
)


def names(rows: dict[str, str], flows: bool) -> set[str]:
    """The options (or, with `flows`, the flow-group keys) a kind's doc rows
    name ("as dumbbell" rows are the caller's to expand)."""
    out: set[str] = set()
    for row in rows:
        if row != "as dumbbell" and row.startswith("flows: ") == flows:
            out |= {n.strip() for n in row.removeprefix("flows: ").split(",")}
    return out


def keys(rows: dict[str, str]) -> set[str]:
    """The `[topology]` keys of a kind whose doc rows are `rows`."""
    return {"kind", "bdp_rtt", *names(rows, False)}


def link_capacity_bps(link: dict[str, Any]) -> int:
    """A resolved link's capacity, b/s: the one place the Python side asks
    for it (BDP sizing, the memory estimate, the fuzz invariants, the
    emulation's checks), as `LinkCfg::capacity_bps` is on the Rust side. A
    link whose rate varies answers with its nominal rate: a trace's mean, a
    schedule's rate at time 0."""
    return int(link["rate_bps"])


# the bytes of one delivery opportunity of a trace, the core's (its link
# transmitter spends them; 1500 here used to under-count trace links)
OPPORTUNITY_BYTES: int = _core.TRACE_OPPORTUNITY_BYTES


def link_bits_bound(link: dict[str, Any], dur_ps: int) -> float:
    """The most bits a resolved link direction can transmit over a run of
    `dur_ps`: its rate × the duration; a schedule's integral; a trace's
    delivery opportunities (OPPORTUNITY_BYTES each) in as many whole periods as can
    overlap the run, wherever its offset starts it."""
    v = link.get("varying") or {}
    if v.get("kind") == "schedule":
        steps = v["steps"] + [[dur_ps, 0]]
        return float(sum(r * max(0, min(t1, dur_ps) - t0) for (t0, r), (t1, _) in zip(steps, steps[1:])) * 1e-12)
    if v.get("kind") == "trace":
        n, period_ms = _trace_shape(v["path"])
        return (dur_ps // (max(1, period_ms) * 10**9) + 2) * n * OPPORTUNITY_BYTES * 8.0
    return link_capacity_bps(link) * dur_ps * 1e-12


@functools.lru_cache(maxsize=64)
def _trace_shape(path: str) -> tuple[int, int]:
    """(delivery opportunities, period in ms) of a trace the scenario already checked."""
    n, period_ms, _ = _core.load_trace(path)
    return n, period_ms


def routes(core: dict[str, Any], pairs: list[tuple[int, int]]) -> list[list[int] | None]:
    """The link paths the core routes along for each (src, dst) node pair of
    a resolved scenario (None where there is none). Only the network is
    handed over: a 15,000-flow scenario's flows are 30 MB of JSON."""
    from ..._json import core_json

    return _core.routes(core_json({**core, "flows": [], "udp": []}), pairs)


@dataclass
class Net:
    nodes: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    links: list[dict[str, Any]] = field(default_factory=list)
    # link names given so far, and the next k to try for a repeated name
    taken: set[str] = field(default_factory=set)
    next_k: dict[str, int] = field(default_factory=dict)
    # (link index, Buffer, field name) whose limit depends on the BDP RTT
    pending_buffers: list[tuple[int, Buffer, str]] = field(default_factory=list)

    def node(self, name: str) -> int:
        if name not in self.index:
            self.index[name] = len(self.nodes)
            self.nodes.append(name)
        return self.index[name]

    def _fresh_name(self, name: str) -> str:
        """`name`, or `name#k` for the k-th link of that name (parallel links
        between the same two nodes), so that every link direction has its own
        row in the results and `sim.sample_links`/`sim.pcap` can name it.
        O(1) per link: a scenario may have 30,000 of them."""
        if name not in self.taken:
            self.taken.add(name)
            return name
        k = self.next_k.get(name, 2)
        while f"{name}#{k}" in self.taken:
            k += 1
        self.next_k[name] = k + 1
        fresh = f"{name}#{k}"
        self.taken.add(fresh)
        return fresh

    def add(
        self,
        a: str,
        b: str,
        rate: int | LinkRate,
        delay: int,
        buf: Buffer,
        buf_field: str,
        queue: dict[str, Any] | str,
        loss: dict[str, Any],
        name: str | None = None,
        reorder: dict[str, Any] | None = None,
        shaper: dict[str, Any] | None = None,
    ) -> int:
        ia, ib = self.node(a), self.node(b)
        link = {"name": self._fresh_name(name or f"{a}->{b}"), "from": ia, "to": ib}
        if isinstance(rate, LinkRate):
            link["rate_bps"] = rate.bps
            if rate.varying is not None:
                link["varying"] = rate.varying
        else:
            link["rate_bps"] = rate
        link["delay_ps"] = delay
        link["queue"] = dict(queue) if isinstance(queue, dict) else {"kind": queue}
        link["loss"] = loss
        self.links.append(link)
        if reorder:
            self.links[-1]["reorder"] = reorder
        if shaper:
            self.links[-1]["shaper"] = shaper
        i = len(self.links) - 1
        self.pending_buffers.append((i, buf, buf_field))
        return i

    def duplex(
        self,
        a: str,
        b: str,
        rate: Any,
        delay: Any,
        buf: Any,
        buf_field: str,
        queue: Any,
        loss: Any = None,
        *,
        rev_rate: Any = None,
        rev_delay: Any = None,
        rev_buf: Any = None,
        rev_buf_field: str | None = None,
        rev_loss: Any = None,
        name: str | None = None,
        rev_name: str | None = None,
        reorder: Any = None,
        rev_reorder: Any = None,
        shapers: tuple[Any, Any] = (None, None),
    ) -> Any:
        f = self.add(a, b, rate, delay, buf, buf_field, queue, loss or {"kind": "none"}, name, reorder, shapers[0])
        r = self.add(
            b,
            a,
            rev_rate or rate,
            delay if rev_delay is None else rev_delay,
            rev_buf or buf,
            rev_buf_field or buf_field,
            queue,
            rev_loss or {"kind": "none"},
            rev_name,
            rev_reorder,
            shapers[1],
        )
        return f, r


def resolve_buffers(net: Net, bdp_rtt_ps: int | None, pkt_bytes: int, max_pkt: int, rtt_field: str) -> None:
    for i, buf, fld in net.pending_buffers:
        link = net.links[i]
        q = link["queue"]
        if buf.kind == "pkt":
            q["limit_pkts"] = int(buf.amount)
        elif buf.kind == "bytes":
            if q["kind"] not in BYTES_LIMIT:
                raise ScenarioError(
                    fld,
                    message=(
                        f"{fld}: {q['kind']}'s limit counts packets; expected a buffer in packets or BDPs ('1000pkt', '2bdp'), "
                        f"got {int(buf.amount)} bytes"
                    ),
                )
            why = _core.buffer_refusal(int(buf.amount), max_pkt)
            if why is not None:
                raise ScenarioError(fld, message=f"{fld}: {why}")
            q["limit_bytes"] = int(buf.amount)
        else:
            if bdp_rtt_ps is None:
                raise ScenarioError(
                    rtt_field,
                    message=(
                        f"{rtt_field}: needed to size '{buf.amount:g}bdp' buffers in an explicit topology; "
                        "expected a time such as '40ms'"
                    ),
                )
            bdp_bytes = link_capacity_bps(link) * bdp_rtt_ps / 8 / PS_PER_S
            pkts = round(buf.amount * bdp_bytes / pkt_bytes)
            if pkts < 1:
                raise ScenarioError(
                    fld,
                    message=(
                        f"{fld}: '{buf.amount:g}bdp' is {buf.amount * bdp_bytes:.0f} bytes on link {link['name']}, "
                        f"less than one {pkt_bytes}-byte packet; expected a buffer of at least one packet"
                    ),
                )
            q["limit_pkts"] = int(pkts)


def bdp_rtt(topo: dict[str, Any], base_rtts: list[int] | None) -> int | None:
    v = topo.get("bdp_rtt", "max")
    if v in ("max", "mean"):
        if not base_rtts:
            return None
        return max(base_rtts) if v == "max" else round(sum(base_rtts) / len(base_rtts))
    return parse_time("topology.bdp_rtt", v, allow_zero=False)


def _default_buffer(queue: dict[str, Any]) -> str:
    """The buffer a direction gets when the scenario writes none: the
    core's for the queue's kind (`QueueKind::DEFAULT_BUFFER`)."""
    return DEFAULT_BUFFER[queue["kind"]]


def _shapers(
    t: dict[str, Any], where: str, rate: LinkRate, rrate: LinkRate
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The (forward, reverse) shapers of a duplex link: `shaper`, and
    `reverse_shaper` defaulting to it (Mininet's TCLink shapes both ends)."""
    out = []
    for key, r in (("shaper", rate), ("reverse_shaper", rrate)):
        v = t.get(key, t.get("shaper") if key == "reverse_shaper" else None)
        field = f"{where}.{key}" if key in t else f"{where}.shaper"
        sh = _shaper(field, v)
        if sh is not None and r.varying is not None:
            raise ScenarioError(
                field, message=f"{field}: a shaper runs at a fixed rate; it cannot shape a trace or a rate schedule"
            )
        if sh is not None:
            sh["_field"] = field  # for check_shapers' error; removed there
        out.append(sh)
    return out[0], out[1]


def check_shapers(net: Net, max_pkt: int) -> None:
    """A TBF shaper must hold one whole packet (Linux's tbf drops a packet
    larger than its bucket)."""
    for link in net.links:
        sh = link.get("shaper")
        if not sh:
            continue
        field = sh.pop("_field") + ".burst"
        if sh["rule"] == "tbf" and sh["burst_bytes"] < max_pkt + sh["overhead_bytes"]:
            raise ScenarioError(
                field,
                message=(
                    f"{field}: {sh['burst_bytes']} bytes cannot hold one packet ({max_pkt} bytes + "
                    f"{sh['overhead_bytes']} of overhead; Linux's tbf drops such packets); expected a larger burst"
                ),
            )


def _access_and_buffers(t: dict[str, Any]) -> tuple[Any, Any, Any, Any, str, Any]:
    """The options dumbbell-like and parking-lot topologies share: access
    links (rate, delay, buffer and the field it came from), the router
    buffer and the router queue discipline."""
    for k, example in (("access_rate", "1Gbps"), ("access_delay", "1ms")):
        if k not in t:
            raise ScenarioError(f"topology.{k}", message=f"topology.{k}: missing; expected e.g. {example!r}")
    arate = parse_link_rate(t, "topology", "access_rate")
    adelay = parse_time("topology.access_delay", t.get("access_delay"))
    queue = _queue("topology.queue", t.get("queue", DEFAULT_QUEUE))
    buf = parse_buffer("topology.buffer", t.get("buffer", _default_buffer(queue)))
    abuf = parse_buffer("topology.access_buffer", t["access_buffer"]) if "access_buffer" in t else buf
    abuf_field = "topology.access_buffer" if "access_buffer" in t else "topology.buffer"
    return arate, adelay, buf, abuf, abuf_field, queue
