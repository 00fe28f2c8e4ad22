"""`dumbbell`: routers r0 – r1 (the bottleneck) with each flow's hosts on
access links of their own, or its group's where the group says
access = "shared"; a flow group's `rtt` sets its access delays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ScenarioError
from .._check import _check_keys, _str
from ..linkrates import parse_link_rate
from ..netmodels import _loss, _reorder
from ..units import parse_buffer, parse_time
from .common import Net, _access_and_buffers, _shapers, keys, names
from .draws import rate_or_schedule, with_loss, with_trace

if TYPE_CHECKING:
    import numpy as np

KIND = "dumbbell"
ROWS: dict[str, str] = {
    "bottleneck_rate, bottleneck_delay": "the r0 – r1 link; bottleneck_rate may be a schedule [[0, '50Mbps'], ['10s', '10Mbps'], ...]",
    "trace, trace_offset, reverse_trace, reverse_trace_offset": "a mahimahi trace for the bottleneck's direction(s) in place of its rate (as single_link)",
    "access_rate, access_delay, access_buffer": "the access links (always droptail): every flow's own, or its group's where it says access = 'shared'",
    "buffer, queue, loss, reverse_loss, reverse_bottleneck_rate": "the bottleneck's two directions",
    "reorder, reverse_reorder": "reordering on the bottleneck's two directions (as single_link)",
    "shaper, reverse_shaper": "a token-bucket shaper on the bottleneck's directions (as single_link)",
    "flows: direction, rtt": "'forward'/'reverse'; rtt = a time, a distribution, {spread = [a, b]} or {cycle = [t0, t1, ...]} sets the access delays",
    "flows: access": "'own' (default): each flow has its own access links; 'shared': the group's flows of one RTT share one access-link pair (one host each side), as many web sessions on one client node",
}
KEYS = keys(ROWS)
FLOW_KEYS = names(ROWS, True)
PCAP_ALIAS = "r0->r1"


def build(
    t: dict[str, Any],
    flows: list[dict[str, Any]],
    net: Net,
    *,
    keys: set[str] = KEYS,
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


def fuzz(rng: np.random.Generator, buffer: str, queue: dict[str, Any], traces: list[str]) -> dict[str, Any]:
    """A random dumbbell for the fuzz generator (tools/fuzz.py)."""
    topo = fuzz_wired(rng, KIND, buffer, queue)
    with_trace(rng, topo, "bottleneck_rate", traces)
    with_loss(rng, topo)
    return topo


def fuzz_wired(
    rng: np.random.Generator, kind: str, buffer: str, queue: dict[str, Any], *, delay_drawn: bool = False
) -> dict[str, Any]:
    """The bottleneck and access links every dumbbell-like kind draws; with
    `delay_drawn` the bottleneck delay is given only half the time."""
    topo = {
        "kind": kind,
        "bottleneck_rate": rate_or_schedule(rng),
        "access_rate": "1Gbps",
        "access_delay": "1ms",
        "buffer": buffer,
        "queue": queue,
    }
    if not delay_drawn or rng.random() < 0.5:
        topo["bottleneck_delay"] = f"{int(rng.choice([2, 10, 30]))}ms"
    return topo
