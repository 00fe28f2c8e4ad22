"""Topology builders: each kind of `[topology]` adds its nodes and links to
a `Net`, places every flow (src, dst) and returns the flows' base
(propagation) RTTs; `resolve_buffers` then sizes '…bdp' buffers.
docs/scenario.md describes each kind."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .. import _core
from ..errors import ScenarioError
from ._check import _check_keys, _int, _str
from .linkrates import LinkRate, parse_link_rate
from .netmodels import BYTES_LIMIT, DEFAULT_BUFFER, DEFAULT_QUEUE, _loss, _queue, _reorder, _shaper
from .units import PS_PER_S, Buffer, parse_buffer, parse_time

# Topology builders: kind -> {"option, option": meaning}; flow-group keys
# are listed under "flows:", and "as dumbbell" takes every option (and
# flow key) of the dumbbell. The options a kind accepts are the ones its rows
# name, so its documentation lists every one (the builders resolve them; the
# link directions they build are checked by the core's schemas).
_ROWS: dict[str, dict[str, str]] = {
    "single_link": {
        "rate, delay": "the link a – b (host – switch – host collapsed into one duplex link); rate may be a schedule [[0, '50Mbps'], ['10s', '10Mbps'], ...] (0 = outage)",
        "trace, trace_offset, reverse_trace, reverse_trace_offset": "a mahimahi packet-delivery trace file in place of rate (one ms timestamp per line, 1504 bytes per opportunity, repeating), replayed from trace_offset into it",
        "buffer, queue, loss": "forward direction (buffer default '1bdp', queue default 'droptail')",
        "reverse_rate, reverse_delay, reverse_buffer, reverse_loss": "the b → a direction (default: as forward, no loss)",
        "reorder, reverse_reorder": "netem-like reordering of a direction: {jitter = '2ms'} (extra delay uniform in 0..jitter per packet) and/or {probability = 0.01, delay = '5ms'}; later packets overtake the delayed ones",
        "shaper, reverse_shaper": "a token-bucket shaper in place of the serialising transmitter, as Linux tc on a veth: 'htb' (Mininet's TCLink), 'tbf' or a table {kind, burst, cburst, overhead}; reverse_shaper defaults to shaper (docs/scenario.md)",
        "flows: direction": "'forward' (a → b) or 'reverse'",
    },
    "dumbbell": {
        "bottleneck_rate, bottleneck_delay": "the r0 – r1 link; bottleneck_rate may be a schedule [[0, '50Mbps'], ['10s', '10Mbps'], ...]",
        "trace, trace_offset, reverse_trace, reverse_trace_offset": "a mahimahi trace for the bottleneck's direction(s) in place of its rate (as single_link)",
        "access_rate, access_delay, access_buffer": "the access links (always droptail): every flow's own, or its group's where it says access = 'shared'",
        "buffer, queue, loss, reverse_loss, reverse_bottleneck_rate": "the bottleneck's two directions",
        "reorder, reverse_reorder": "reordering on the bottleneck's two directions (as single_link)",
        "shaper, reverse_shaper": "a token-bucket shaper on the bottleneck's directions (as single_link)",
        "flows: direction, rtt": "'forward'/'reverse'; rtt = a time, a distribution, {spread = [a, b]} or {cycle = [t0, t1, ...]} sets the access delays",
        "flows: access": "'own' (default): each flow has its own access links; 'shared': the group's flows of one RTT share one access-link pair (one host each side), as many web sessions on one client node",
    },
    "parking_lot": {
        "hops, hop_rate, hop_delay": "N router-to-router hops r0 – … – rN",
        "hop_trace, hop_trace_offset": "a mahimahi trace in place of hop_rate, replayed by every hop in both directions from the same offset",
        "access_rate, access_delay, access_buffer, buffer, queue": "access links and hop queues",
        "flows: path": "'through' (all hops), 'cross' (one flow per hop, C1's direction), 'cross_reverse'",
    },
    "wireless": {
        "as dumbbell": "the wired part: every dumbbell option",
        "wireless_rate, wireless_delay, wireless_buffer": "the last hop r1 – mobile, shared by the wireless flows; wireless_rate may be a schedule",
        "wireless_trace, wireless_trace_offset": "a mahimahi trace for the last hop (both directions) in place of wireless_rate",
        "wireless_loss, wireless_reverse_loss": "loss on the last hop (reverse default: the same model, own stream)",
        "flows: path, direction, rtt, access": "path 'wireless' (default: src – r0 – r1 – mobile) or 'wired' (cross/reverse traffic on the dumbbell); direction, rtt and access as dumbbell",
    },
    "satellite": {
        "as dumbbell": "a GEO bottleneck: bottleneck_delay default '275ms'; 'loss' applies to both directions unless reverse_loss is given",
    },
    "explicit": {
        "nodes, links": "[[topology.links]] tables: a, b, rate (or a schedule), trace, trace_offset, delay, buffer, queue, loss, reorder, shaper and reverse_* options",
        "flows: src, dst": "node names",
    },
}

BDP_RTT_DOC = (
    "the RTT that sizes '…bdp' buffers: 'max' (default: the largest base RTT of the flows), 'mean', "
    "or a time (required for '…bdp' buffers in an explicit topology)"
)
TOPOLOGY_DOC: dict[str, dict[str, str]] = {k: {**rows, "bdp_rtt": BDP_RTT_DOC} for k, rows in _ROWS.items()}
TOPOLOGY_KINDS: list[str] = list(TOPOLOGY_DOC)


def _names(rows: dict[str, str], flows: bool) -> set[str]:
    """The options (or, with `flows`, the flow-group keys) the rows name."""
    out: set[str] = set()
    for names in rows:
        if names == "as dumbbell":
            out |= _names(TOPOLOGY_DOC["dumbbell"], flows)
        elif names.startswith("flows: ") == flows:
            out |= {n.strip() for n in names.removeprefix("flows: ").split(",")}
    return out


TOPOLOGY_KEYS: dict[str, set[str]] = {k: {"kind", *_names(rows, False)} for k, rows in TOPOLOGY_DOC.items()}
FLOW_TOPO_KEYS: dict[str, set[str]] = {k: _names(rows, True) for k, rows in TOPOLOGY_DOC.items()}
# An explicit topology's [[topology.links]] table: the ends, and a single
# link's options for its two directions.
EXPLICIT_LINK_KEYS = {"a", "b"} | TOPOLOGY_KEYS["single_link"] - {"kind", "bdp_rtt"}


def link_capacity_bps(link: dict) -> int:
    """A resolved link's capacity, b/s: the one place the Python side asks
    for it (BDP sizing, the memory estimate, the fuzz invariants, the
    emulation's checks), as `LinkCfg::capacity_bps` is on the Rust side. A
    link whose rate varies answers with its nominal rate: a trace's mean, a
    schedule's rate at time 0."""
    return link["rate_bps"]


# the bytes of one delivery opportunity of a trace, the core's (its link
# transmitter spends them; 1500 here used to under-count trace links)
OPPORTUNITY_BYTES: int = _core.TRACE_OPPORTUNITY_BYTES


def link_bits_bound(link: dict, dur_ps: int) -> float:
    """The most bits a resolved link direction can transmit over a run of
    `dur_ps`: its rate × the duration; a schedule's integral; a trace's
    delivery opportunities (OPPORTUNITY_BYTES each) in as many whole periods as can
    overlap the run, wherever its offset starts it."""
    v = link.get("varying") or {}
    if v.get("kind") == "schedule":
        steps = v["steps"] + [[dur_ps, 0]]
        return sum(r * max(0, min(t1, dur_ps) - t0) for (t0, r), (t1, _) in zip(steps, steps[1:])) * 1e-12
    if v.get("kind") == "trace":
        n, period_ms = _trace_shape(v["path"])
        return (dur_ps // (max(1, period_ms) * 10**9) + 2) * n * OPPORTUNITY_BYTES * 8.0
    return link_capacity_bps(link) * dur_ps * 1e-12


@functools.lru_cache(maxsize=64)
def _trace_shape(path: str) -> tuple[int, int]:
    """(delivery opportunities, period in ms) of a trace the scenario already checked."""
    from .. import _core

    n, period_ms, _ = _core.load_trace(path)
    return n, period_ms


def routes(core: dict, pairs: list[tuple[int, int]]) -> list[list[int] | None]:
    """The link paths the core routes along for each (src, dst) node pair of
    a resolved scenario (None where there is none). Only the network is
    handed over: a 15,000-flow scenario's flows are 30 MB of JSON."""
    from .. import _core
    from .._json import core_json

    return _core.routes(core_json({**core, "flows": [], "udp": []}), pairs)


@dataclass
class Net:
    nodes: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    links: list[dict] = field(default_factory=list)
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
        queue: dict | str,
        loss: dict,
        name: str | None = None,
        reorder: dict | None = None,
        shaper: dict | None = None,
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
        a,
        b,
        rate,
        delay,
        buf,
        buf_field,
        queue,
        loss=None,
        *,
        rev_rate=None,
        rev_delay=None,
        rev_buf=None,
        rev_buf_field=None,
        rev_loss=None,
        name=None,
        rev_name=None,
        reorder=None,
        rev_reorder=None,
        shapers=(None, None),
    ):
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
            if buf.amount < max_pkt:
                raise ScenarioError(
                    fld,
                    message=(
                        f"{fld}: {int(buf.amount)} bytes is smaller than one packet ({max_pkt} bytes: mss, headers and options); "
                        f"expected a buffer of at least one packet"
                    ),
                )
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


def bdp_rtt(topo: dict, base_rtts: list[int] | None) -> int | None:
    v = topo.get("bdp_rtt", "max")
    if v in ("max", "mean"):
        if not base_rtts:
            return None
        return max(base_rtts) if v == "max" else round(sum(base_rtts) / len(base_rtts))
    return parse_time("topology.bdp_rtt", v, allow_zero=False)


def _default_buffer(queue: dict) -> str:
    """The buffer a direction gets when the scenario writes none: the
    core's for the queue's kind (`net_schema::default_buffer`)."""
    return DEFAULT_BUFFER[queue["kind"]]


def _shapers(t: dict, where: str, rate: LinkRate, rrate: LinkRate) -> tuple[dict | None, dict | None]:
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


# Topology builders: add nodes/links, place each flow (src, dst) and
# return the flows' base (propagation) RTTs in ps, or None if unknown.


def single_link(t: dict, flows: list[dict], net: Net) -> list[int]:
    _check_keys("topology", t, TOPOLOGY_KEYS["single_link"])
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


def _access_and_buffers(t: dict):
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


def dumbbell(
    t: dict,
    flows: list[dict],
    net: Net,
    *,
    keys: set[str] = TOPOLOGY_KEYS["dumbbell"],
    default_delay: str | None = None,
    loss_both_ways: bool = False,
) -> list[int]:
    _check_keys("topology", t, keys)
    brate = parse_link_rate(t, "topology", "bottleneck_rate", "trace")
    if t.get("bottleneck_delay", default_delay) is None:
        raise ScenarioError(
            "topology.bottleneck_delay", message="topology.bottleneck_delay: missing; expected e.g. '20ms'"
        )
    bdelay = parse_time("topology.bottleneck_delay", t.get("bottleneck_delay", default_delay))
    arate, adelay, buf, abuf, abuf_field, queue = _access_and_buffers(t)
    rrate = parse_link_rate(t, "topology", "reverse_bottleneck_rate", "reverse_trace", default=brate)
    loss = _loss("topology.loss", t.get("loss"))
    rloss = (
        _loss("topology.reverse_loss", t["reverse_loss"])
        if "reverse_loss" in t
        else (loss if loss_both_ways else {"kind": "none"})
    )
    net.duplex(
        "r0",
        "r1",
        brate,
        bdelay,
        buf,
        "topology.buffer",
        queue,
        loss,
        rev_rate=rrate,
        rev_loss=rloss,
        reorder=_reorder("topology.reorder", t.get("reorder")),
        rev_reorder=_reorder("topology.reverse_reorder", t.get("reverse_reorder")),
        shapers=_shapers(t, "topology", brate, rrate),
    )
    wl = None
    if "wireless_rate" in keys:
        wrate = parse_link_rate(t, "topology", "wireless_rate", "wireless_trace")
        wdelay = parse_time("topology.wireless_delay", t.get("wireless_delay"))
        wbuf = parse_buffer("topology.wireless_buffer", t["wireless_buffer"]) if "wireless_buffer" in t else buf
        wloss = _loss("topology.wireless_loss", t.get("wireless_loss"))
        wrloss = (
            _loss("topology.wireless_reverse_loss", t["wireless_reverse_loss"])
            if "wireless_reverse_loss" in t
            else wloss
        )
        net.duplex(
            "r1",
            "mobile",
            wrate,
            wdelay,
            wbuf,
            "topology.wireless_buffer" if "wireless_buffer" in t else "topology.buffer",
            "droptail",
            wloss,
            rev_loss=wrloss,
            name="wireless",
            rev_name="wireless_reverse",
        )
        wl = wdelay
    rtts = []
    # access = 'shared': the hosts of a group's flows, by (group, access delay)
    shared: dict[tuple[int, int], tuple[str, str]] = {}
    for i, f in enumerate(flows):
        w = f["where"]
        d = _str(f"{w}.direction", f["topo"].get("direction", "forward"), ["forward", "reverse"])
        own = _str(f"{w}.access", f["topo"].get("access", "own"), ["own", "shared"]) == "own"
        wireless = (
            wl is not None and _str(f"{w}.path", f["topo"].get("path", "wireless"), ["wireless", "wired"]) == "wireless"
        )
        far = wl if wireless and wl is not None else 0
        acc = adelay
        if "rtt_ps" in f["topo"]:
            rtt = f["topo"]["rtt_ps"]
            if wireless:
                # one access link on the wired side sets the RTT
                acc = rtt // 2 - bdelay - far
            else:
                acc = (rtt // 2 - bdelay) // 2
            if acc < 0:
                raise ScenarioError(
                    f"{w}.rtt",
                    message=(
                        f"{w}.rtt: {rtt / 1e9:g}ms is shorter than the path's fixed round trip "
                        f"({2 * (bdelay + far) / 1e9:g}ms); expected a longer rtt"
                    ),
                )
        if own:
            src, dst = f"src{i}", f"dst{i}"
            built = False
        else:
            # one host pair per access delay of the group, named by the group
            # and the order in which its delays first appear
            key = (f["group"], acc)
            built = key in shared
            if not built:
                k = sum(1 for g, _ in shared if g == f["group"])
                shared[key] = (f"g{f['group']}.src{k}", f"g{f['group']}.dst{k}")
            src, dst = shared[key]
        if wireless:
            left, right = (src, "mobile") if d == "forward" else ("mobile", src)
            if not built:
                net.duplex(src, "r0", arate, acc, abuf, abuf_field, "droptail")
            f["src"], f["dst"] = net.index[left], net.index[right]
            rtts.append(2 * (acc + bdelay + far))
            continue
        left, right = (src, dst) if d == "forward" else (dst, src)
        if not built:
            net.duplex(left, "r0", arate, acc, abuf, abuf_field, "droptail")
            net.duplex("r1", right, arate, acc, abuf, abuf_field, "droptail")
        f["src"], f["dst"] = net.index[src], net.index[dst]
        rtts.append(2 * (bdelay + 2 * acc))
    return rtts


def satellite(t: dict, flows: list[dict], net: Net) -> list[int]:
    """A dumbbell whose bottleneck is a GEO hop (W5 of Grieco & Mascolo 2004): 275 ms
    one way unless given, the loss model on both directions."""
    return dumbbell(t, flows, net, default_delay="275ms", loss_both_ways=True)


def wireless(t: dict, flows: list[dict], net: Net) -> list[int]:
    """A wired dumbbell plus a shared last hop r1 – mobile with its own
    loss model in each direction (W4 of Grieco & Mascolo 2004)."""
    return dumbbell(t, flows, net, keys=TOPOLOGY_KEYS["wireless"])


def parking_lot(t: dict, flows: list[dict], net: Net) -> list[int]:
    _check_keys("topology", t, TOPOLOGY_KEYS["parking_lot"])
    hops = _int("topology.hops", t.get("hops"), lo=1, hi=10_000)
    hrate = parse_link_rate(t, "topology", "hop_rate", "hop_trace")
    hdelay = parse_time("topology.hop_delay", t.get("hop_delay"))
    arate, adelay, buf, abuf, abuf_field, queue = _access_and_buffers(t)
    for k in range(hops):
        net.duplex(f"r{k}", f"r{k + 1}", hrate, hdelay, buf, "topology.buffer", queue)
    # Flow groups with path = "cross" / "cross_reverse" get `count` flows on
    # every hop; expand them now (flow order: group order, then hop).
    expanded: list[tuple[dict, str, int | None]] = []
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


def explicit(t: dict, flows: list[dict], net: Net) -> None:
    _check_keys("topology", t, TOPOLOGY_KEYS["explicit"])
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
        _check_keys(w, l, EXPLICIT_LINK_KEYS)
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
    return None


BUILDERS = {
    "single_link": single_link,
    "dumbbell": dumbbell,
    "satellite": satellite,
    "wireless": wireless,
    "parking_lot": parking_lot,
    "explicit": explicit,
}
