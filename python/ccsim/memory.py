"""How much memory a run's recorded tables will take, estimated before it runs.

The time series grow with samples × (flows + sampled link directions), the
per-packet traces (`sim.trace = ["rtt"]`, `["seq"]`) with the packets the
network can carry. A run whose estimate exceeds the limit is refused with a
`ScenarioError` naming `sim.sample_interval` or `sim.trace` before anything
runs (a 20 GB trace used to end in `MemoryError` after the whole simulation).

The limit is ``CCSIM_MAX_MEMORY`` (bytes, or a size such as ``"8GB"``), or by
default half of this machine's physical memory.

Costs per recorded cell are measured peak resident memory over a whole run
(the core's columns, their copy handed to Python, the DataFrame and the
Parquet write), measured as in docs/reliability.md: about
16 B for a number and 112 B for a string cell (each string becomes its own
Python object).
"""

from __future__ import annotations

import json
import os

from .errors import ScenarioError
from .topologies import link_capacity_bps

NUM_CELL_BYTES = 16
STR_CELL_BYTES = 112
# (numeric columns, string columns) of each recorded table (crates/ccsim-core/src/output.rs).
TABLE_SHAPE = {
    "flow_series": (19, 0),
    "link_series": (14, 0),
    "cc_state": (4, 4),
    "rtt_trace": (3, 0),
    "seq_trace": (3, 1),
    "capture": (18, 2),
}
ENV = "CCSIM_MAX_MEMORY"


def row_bytes(table: str) -> int:
    n, s = TABLE_SHAPE[table]
    return n * NUM_CELL_BYTES + s * STR_CELL_BYTES


def limit_bytes() -> int:
    """The memory a run's tables may take: $CCSIM_MAX_MEMORY or half the physical memory."""
    v = os.environ.get(ENV)
    if v:
        from .units import parse_size

        return parse_size(ENV, v.strip())
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def packet_bound(core: dict) -> int:
    """An upper bound on the data packets the run's TCP flows can deliver:
    each flow is charged to the slowest link of its path, and the flows that
    share that link share its capacity over the run (a file transfer is also
    bounded by its own size)."""
    from . import _core

    flows = core["flows"]
    if not flows:
        return 0
    links = core["links"]
    dur_s = core["duration_ps"] * 1e-12
    pairs = [(f["src"], f["dst"]) for f in flows]
    paths = _core.routes(json.dumps(core), pairs)
    by_link: dict[int, int] = {}
    capped = 0
    for f, path in zip(flows, paths):
        if not path:
            continue
        wire = f["tcp"]["mss"] + f["tcp"]["header_bytes"]
        slow = min(path, key=lambda i: link_capacity_bps(links[i]))
        cap = int(link_capacity_bps(links[slow]) * dur_s / (8 * wire)) + 1
        app = f["app"]
        if app.get("kind") == "file":
            capped += min(cap, app["bytes"] // f["tcp"]["mss"] + 1)
            continue
        by_link[slow] = max(by_link.get(slow, 0), cap)
    return capped + sum(by_link.values())


def estimate_rows(core: dict) -> dict[str, int]:
    """Estimated rows of each recorded table (exact for the series, an upper
    bound for the per-packet traces)."""
    rows: dict[str, int] = {}
    sample = core.get("sample_interval_ps")
    n_flows = len(core["flows"])
    trace = core.get("trace", {})
    if sample:
        samples = core["duration_ps"] // sample + 1
        sl = core.get("sample_links")
        rows["flow_series"] = samples * n_flows
        rows["link_series"] = samples * (len(core["links"]) if sl is None else len(sl))
        if trace.get("cc"):
            rows["cc_state"] = samples * n_flows
    if trace.get("rtt") or trace.get("seq"):
        p = packet_bound(core)
        if trace.get("rtt"):
            rows["rtt_trace"] = p  # at most one RTT sample per delivered segment
        if trace.get("seq"):
            rows["seq_trace"] = 2 * p  # every segment sent and every ACK received
    cap = core.get("capture_links") or []
    if cap:
        # arrivals: at most the link's capacity in packets of the smallest
        # size (a header-only ACK) over the run; drops and losses: taken as
        # as many again (an estimate, not a bound: what a link can be
        # offered is bounded only by what its senders inject)
        smallest = min((f["tcp"]["header_bytes"] for f in core["flows"]), default=28)
        dur_s = core["duration_ps"] * 1e-12
        total = sum(2 * (int(link_capacity_bps(core["links"][i]) * dur_s / (8 * smallest)) + 1) for i in cap)
        rows["capture"] = total
    return rows


def total_bytes(rows: dict[str, int]) -> int:
    """Memory the tables of `estimate_rows` take."""
    return sum(r * row_bytes(t) for t, r in rows.items())


def check(core: dict) -> None:
    """Refuse a scenario whose recorded tables would not fit in memory."""
    rows = estimate_rows(core)
    total = total_bytes(rows)
    lim = limit_bytes()
    if total <= lim:
        return
    parts = sorted(((r * row_bytes(t), t) for t, r in rows.items()), reverse=True)
    big = parts[0][1]
    field = (
        "sim.pcap"
        if big == "capture"
        else "sim.trace"
        if big in ("rtt_trace", "seq_trace", "cc_state")
        else "sim.sample_interval"
    )
    detail = ", ".join(f"{t} {rows[t]:,} rows ≈ {gb(b)}" for b, t in parts if b)
    advice = {
        "sim.pcap": "capture fewer or slower links, or shorten the run",
        "sim.trace": "drop that trace or shorten the run",
    }.get(field, "use a longer interval, 'off', or sim.sample_links = 'shared'")
    raise ScenarioError(
        field,
        message=(
            f"{field}: the recorded tables would need about {gb(total)} of memory ({detail}); the limit is "
            f"{gb(lim)} (${ENV}, default half the physical memory): {advice}"
        ),
    )


def gb(b: int) -> str:
    return f"{b / 1e9:.1f} GB" if b >= 1e8 else f"{b / 1e6:.1f} MB"
