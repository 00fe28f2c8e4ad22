"""How much memory a run's recorded tables will take: estimated before it
runs, and watched while it runs.

The time series grow with samples × (flows + sampled link directions), the
per-packet traces (`sim.trace = ["rtt"]`, `["seq"]`) with the packets the
network can carry, `transfers` and the `completed` rows of `events` with the
transfers the applications can finish. A run whose estimate exceeds the
limit is refused with a `ScenarioError` naming the option that shrinks the
biggest table before anything runs (a 20 GB trace used to end in
`MemoryError` after the whole simulation).

What cannot be bounded usefully before the run (loss events of a flow
whose timer fires every microsecond; the packets the links hold, which the
queue limits bound only loosely: a 10^9-packet "unlimited" access queue
holds what its senders' windows put there) is watched during it: the core counts every growing table's rows and the
packets its links hold at each progress report (about every 16 k events)
and stops the run past the same limit, with the message of `exceeded`
(`RunControl.set_memory_limit`; `new_control` sets it).

The limit is ``CCSIM_MAX_MEMORY`` (bytes, or a size such as ``"8GB"``), or by
default half of what the process may really use: the least of the physical
memory, what its resource limits leave and what its cgroup leaves (`limit`).

Costs per row are the core's (`output::GROWING_TABLES`): measured peak
resident memory over a whole run (the core's columns, their copy handed to
Python, the DataFrame and the Parquet write), measured as in
docs/reliability.md: about 16 B for a number and 112 B for a string cell
(each string becomes its own Python object).
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any

from . import _core
from .errors import ScenarioError
from .scenario.netmodels import dist_min
from .scenario.topologies import link_bits_bound, routes

ENV = "CCSIM_MAX_MEMORY"
# bytes per row of each table that grows with a run, and per packet held
ROW_BYTES: dict[str, int] = dict(_core.growing_tables())


def row_bytes(table: str) -> int:
    return ROW_BYTES[table]


def new_control() -> _core.RunControl:
    """A `_core.RunControl` that stops its run past the memory limit."""
    ctl = _core.RunControl()
    ctl.set_memory_limit(limit_bytes())
    return ctl


class Deadline:
    """Cancel the run control `ctl` after `seconds` of wall time, and again
    every 0.1 s until :meth:`cancel`: each cancel also interrupts a Python
    algorithm's hook running at that moment (`_core.RunInterrupted`), so a
    hook that never returns, or that swallows one interruption, is still
    stopped. The interface of `threading.Timer`."""

    def __init__(self, ctl: _core.RunControl, seconds: float) -> None:
        import threading

        self._done = threading.Event()
        t = threading.Thread(target=self._watch, args=(ctl, seconds), name="ccsim-deadline", daemon=True)
        t.start()

    def _watch(self, ctl: _core.RunControl, seconds: float) -> None:
        if self._done.wait(seconds):
            return
        while True:
            ctl.cancel()
            if self._done.wait(0.1):
                return

    def cancel(self) -> None:
        self._done.set()


def limit_bytes() -> int:
    """The memory a run's tables may take (`limit`)."""
    return limit()[0]


def limit() -> tuple[int, str]:
    """(bytes a run's tables may take, where that figure comes from):
    $CCSIM_MAX_MEMORY if set; else half of the least of what this process
    may really use: the physical memory, the address space and data its
    resource limits leave (`ulimit -v`, `ulimit -d`: the limit less what
    the process already maps) and the memory its cgroup leaves (a
    container's or a batch scheduler's cap, v2 `memory.max` or v1
    `memory.limit_in_bytes`, less what the group uses)."""
    v = os.environ.get(ENV)
    if v:
        from .scenario.units import parse_size

        return parse_size(ENV, v.strip()), f"${ENV}"
    try:
        phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        phys = 16 << 30
    room = [(phys, "the physical memory")]
    room += _rlimit_room()
    cg = _cgroup_room()
    if cg is not None:
        room.append((cg, "the memory the process's cgroup leaves (a container's or scheduler's cap)"))
    left, what = min(room)
    return max(0, left) // 2, f"half of {what}; ${ENV} sets it"


def _rlimit_room() -> list[tuple[int, str]]:
    import resource

    status = _proc_status()
    out = []
    for res, key, name in ((resource.RLIMIT_AS, "VmSize", "ulimit -v"), (resource.RLIMIT_DATA, "VmData", "ulimit -d")):
        soft = resource.getrlimit(res)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            out.append((soft - status.get(key, 0), f"what the process's limit ({name}) leaves"))
    return out


def _proc_status() -> dict[str, int]:
    """/proc/self/status's sizes (bytes); empty where there is none."""
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                k, _, v = line.partition(":")
                if v.strip().endswith(" kB"):
                    out[k] = int(v.split()[0]) * 1024
    except OSError:
        pass
    return out


# where the kernel shows the process's cgroups (a test points these at a tree of its own)
PROC_CGROUP = "/proc/self/cgroup"
CGROUP_FS = "/sys/fs/cgroup"


def _cgroup_room() -> int | None:
    """What the process's memory cgroup allows beyond what it uses, or None
    without a limit (v2 `memory.max` − `memory.current`, v1
    `memory.limit_in_bytes` − `memory.usage_in_bytes`)."""
    try:
        with open(PROC_CGROUP) as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, ctrl, path = line.split(":", 2)
        path = path.lstrip("/")
        if ctrl == "":
            files = [(CGROUP_FS, path, "memory.max", "memory.current")]
        elif "memory" in ctrl.split(","):
            files = [
                (os.path.join(CGROUP_FS, "memory"), p, "memory.limit_in_bytes", "memory.usage_in_bytes")
                for p in (path, "")
            ]
        else:
            continue
        for root, p, lim_f, use_f in files:
            try:
                with open(os.path.join(root, p, lim_f)) as fh:
                    lim = fh.read().strip()
                with open(os.path.join(root, p, use_f)) as fh:
                    used = int(fh.read().strip())
            except (OSError, ValueError):
                continue
            if lim == "max" or not lim.isdigit() or int(lim) >= 1 << 60:
                return None
            return int(lim) - used
    return None


def packet_bound(core: dict[str, Any], transfers: int) -> int:
    """An upper bound on the distinct data segments the run's TCP flows can
    deliver: each flow is charged to the slowest link of its path, and the
    flows that share that link share its capacity over the run, in full
    segments (a file transfer is also bounded by its own size); each of
    the `transfers` (`transfer_bound`) may end in one short segment."""
    flows = core["flows"]
    if not flows:
        return 0
    links = core["links"]
    dur_ps = core["duration_ps"]
    pairs = [(f["src"], f["dst"]) for f in flows]
    paths = routes(core, pairs)
    by_link: dict[int, int] = {}
    capped = 0
    for f, path in zip(flows, paths):
        if not path:
            continue
        wire = f["tcp"]["mss"] + f["tcp"]["header_bytes"]
        slow = min(path, key=lambda i: link_bits_bound(links[i], dur_ps))
        cap = int(link_bits_bound(links[slow], dur_ps) / (8 * wire)) + 1
        app = f["app"]
        if app.get("kind") == "file":
            capped += min(cap, app["bytes"] // f["tcp"]["mss"] + 1)
            continue
        by_link[slow] = max(by_link.get(slow, 0), cap)
    return capped + sum(by_link.values()) + transfers


# Chance, per flow, that its exponential think times let it finish more
# transfers than `poisson_ceiling` allows: with a million flows, one in 10^9
# runs would be stopped by the core's count during the run instead of being
# refused before it.
THINK_TAIL = 1e-15


@functools.lru_cache(maxsize=4096)  # flows of one distribution share their μ: one search per run
def poisson_ceiling(mu: float, delta: float = THINK_TAIL) -> int:
    """The smallest k with P(N ≥ k) ≤ `delta` for N ~ Poisson(`mu`), by the
    Chernoff bound P(N ≥ k) ≤ e^−μ (eμ/k)^k (k > μ), which falls with k.
    Not scipy's exact `poisson.isf`: every scenario's resolution runs this,
    and importing scipy.stats takes about 2 s here."""
    if mu <= 0:
        return 0
    log_delta = math.log(delta)

    def log_tail(k: int) -> float:
        return -mu + k * (1.0 + math.log(mu / k))

    lo, hi = math.floor(mu), max(2, 2 * math.ceil(mu))
    while log_tail(hi) > log_delta:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # log_tail(hi) ≤ log_delta < log_tail(lo) (or lo ≤ μ)
        mid = (lo + hi) // 2
        if mid > mu and log_tail(mid) <= log_delta:
            hi = mid
        else:
            lo = mid
    return hi


def transfer_bound(core: dict[str, Any]) -> int:
    """Transfers the run's applications can finish (rows of `transfers`).
    A file is one (a row from its start); a repeated transfer (repeat, web)
    ends when its last byte reaches the receiver and the next one starts
    a think time later, so each needs at least its path's one-way delay
    plus the shortest think time its distribution draws (one more row for
    the transfer in progress at the end); with exponential think times,
    the transfers after the first need a think time each, so they are at
    most the events of a Poisson process over the run, which exceed
    `poisson_ceiling` with a chance of at most `THINK_TAIL` (a bound
    except for that chance: with a think time that may be 0, the rule
    above allowed a transfer per one-way delay, 40 times the pacing
    study's real count at 2.5 Gb/s); and each needs
    at least one packet of one link of its path, whose capacity the flows
    charged to it share (each flow is charged to the link with the smallest
    capacity per crossing flow; the groups partition the flows, so the sum
    of their caps bounds the total); `transfers` caps each flow."""
    flows = core["flows"]
    links = core["links"]
    if not flows:
        return 0
    dur_ps = core["duration_ps"]
    files = sum(1 for f in flows if f["app"].get("kind") == "file")
    # only repeating flows are routed (a 100,000-flow bulk run asks nothing)
    rep = [f for f in flows if f["app"].get("kind") == "repeat"]
    paths = routes(core, [(f["src"], f["dst"]) for f in rep]) if rep else []
    crossing: dict[int, int] = {}  # link -> repeating flows whose data cross it
    for path in paths:
        for j in path or []:
            crossing[j] = crossing.get(j, 0) + 1
    share = {j: link_bits_bound(links[j], dur_ps) / n for j, n in crossing.items()}  # link -> bits per crossing flow
    charged: dict[int, int] = {}  # slowest link -> transfers of the flows charged to it
    packets: dict[int, int] = {}  # slowest link -> most packets it can carry
    for f, fwd in zip(rep, paths):
        app = f["app"]
        if not fwd:
            continue
        one_way = sum(links[j]["delay_ps"] for j in fwd)
        per_flow = dur_ps // max(1, one_way + int(dist_min(app["think"]))) + 1
        if app["think"]["kind"] == "exponential":
            per_flow = min(per_flow, 1 + poisson_ceiling(dur_ps / app["think"]["mean"]))
        if app.get("count") is not None:
            per_flow = min(per_flow, app["count"])
        wire = f["tcp"]["header_bytes"] + min(max(1, int(dist_min(app["size"]))), f["tcp"]["mss"])
        # charged to the link of its path with the smallest share per flow
        slow = min(fwd, key=share.__getitem__)
        cap = int(link_bits_bound(links[slow], dur_ps) / (8 * wire)) + 1
        packets[slow] = max(packets.get(slow, 0), cap)
        charged[slow] = charged.get(slow, 0) + per_flow
    return files + sum(min(c, packets[j]) for j, c in charged.items())


# The tables `estimate_rows` bounds from above (the fuzz generator checks
# every case's rows against it: `ccsim.tools.fuzz.check`); the others it only
# estimates and the core's count during the run guards.
BOUNDED = ("flow_series", "link_series", "rtt_trace", "transfers", "events")


def estimate_rows(core: dict[str, Any]) -> dict[str, int]:
    """Estimated rows of each recorded table: exact for the series, upper
    bounds for the tables in BOUNDED (for `events`, its `completed` rows),
    estimates for `seq_trace` and `capture` (every segment sent counts,
    and what a sender offers a link is bounded only by its window) and
    for `cc_state` (its periodic samples; a row per congestion event
    comes on top, counted during the run like the loss events)."""
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
    tr = transfer_bound(core)
    if trace.get("rtt") or trace.get("seq"):
        p = packet_bound(core, tr)
        if trace.get("rtt"):
            # at most one RTT sample per ACK of new data (each needs a newly
            # delivered segment), and one per connection's handshake
            handshakes = tr + n_flows if any(f["tcp"].get("handshake") for f in core["flows"]) else 0
            rows["rtt_trace"] = p + handshakes
        if trace.get("seq"):
            rows["seq_trace"] = 2 * p  # every segment sent and every ACK received
    if tr:
        rows["transfers"] = tr
        rows["events"] = tr  # one 'completed' row each; loss events are watched during the run
    if core.get("capture_links"):
        rows["capture"] = capture_rows(core)
    return rows


def capture_rows(core: dict[str, Any]) -> int:
    """Rows of the `capture` table (`sim.pcap`): per captured link
    direction, the data packets its capacity carries in the smallest data
    packet that crosses it (a TCP flow's full segment, a UDP source's
    datagram), plus the ACKs that cross it, at most one per data segment
    their flows' receivers can get (each flow charged to the slowest link
    of its data path, the flows sharing that link sharing it, as
    `packet_bound`) and at most the direction's capacity in ACKs; drops
    and losses taken as as many again (an estimate: what a link is offered
    is bounded only by what its senders inject). It used to charge the
    whole capacity in header-only packets, 37 times a data link's real
    count: a 60 s capture of a 100 Mb/s bottleneck was refused as 19 GB."""
    links, flows, dur_ps = core["links"], core["flows"], core["duration_ps"]
    fwd = [p or [] for p in routes(core, [(f["src"], f["dst"]) for f in flows])] if flows else []
    back = [p or [] for p in routes(core, [(f["dst"], f["src"]) for f in flows])] if flows else []
    udp = core.get("udp") or []
    udp_paths = [p or [] for p in routes(core, [(u["src"], u["dst"]) for u in udp])] if udp else []
    total = 0
    for i in core["capture_links"]:
        bits = link_bits_bound(links[i], dur_ps)
        sizes = [f["tcp"]["mss"] + f["tcp"]["header_bytes"] for f, p in zip(flows, fwd) if i in p]
        sizes += [u["size"] for u, p in zip(udp, udp_paths) if i in p]
        data = int(bits / (8 * min(sizes))) + 1 if sizes else 0
        by_slow: dict[int, int] = {}
        ack = None
        for f, p, q in zip(flows, fwd, back):
            if i not in q or not p:
                continue
            ack = min(ack or f["tcp"]["header_bytes"], f["tcp"]["header_bytes"])
            slow = min(p, key=lambda k: link_bits_bound(links[k], dur_ps))
            segs = int(link_bits_bound(links[slow], dur_ps) / (8 * (f["tcp"]["mss"] + f["tcp"]["header_bytes"]))) + 1
            by_slow[slow] = max(by_slow.get(slow, 0), segs)
        acks = min(sum(by_slow.values()), int(bits / (8 * ack)) + 1) if ack else 0
        total += 2 * (data + acks)
    return total


def measured_rows(res: Any) -> dict[str, int]:
    """The rows a finished run recorded in each table `estimate_rows`
    covers (for `events`, its `completed` rows)."""
    rows = {}
    for t, cols in res.columns.items():
        if t == "events":
            rows[t] = sum(1 for k in cols["kind"] if k == "completed")
        elif t in ROW_BYTES and cols:
            rows[t] = len(next(iter(cols.values())))
    return rows


def total_bytes(rows: dict[str, int]) -> int:
    """Memory the tables of `estimate_rows` take."""
    return sum(r * row_bytes(t) for t, r in rows.items())


def check(core: dict[str, Any]) -> None:
    """Refuse a scenario whose recorded tables would not fit in memory."""
    rows = estimate_rows(core)
    lim = limit_bytes()
    if total_bytes(rows) > lim:
        raise ScenarioError(_field(rows), message=_message(rows, lim, "would need about {} of memory"))


def exceeded(rows: dict[str, int], limit: int, sim_time_s: float) -> str:
    """The message of a run the core stopped past the memory limit (called
    by the core), with the rows it had recorded by then."""
    return _message(rows, limit, f"took {{}} of memory by simulated time {sim_time_s:.3f} s, where the run was stopped")


# the option that shrinks each table (the biggest table's is named)
_FIELD = {
    "capture": "sim.pcap",
    "rtt_trace": "sim.trace",
    "seq_trace": "sim.trace",
    "cc_state": "sim.trace",
    "transfers": "flows",
    "events": "flows",
    "packets_held": "topology",
}
_ADVICE = {
    "capture": "capture fewer or slower links, or shorten the run",
    "rtt_trace": "drop that trace or shorten the run",
    "seq_trace": "drop that trace or shorten the run",
    "cc_state": "drop that trace or shorten the run",
    "transfers": "fewer or longer transfers (size, think, transfers), or a shorter run",
    "events": (
        "a row per finished transfer, recovery and timeout: fewer or longer transfers, RTO bounds "
        "(tcp.min_rto, tcp.max_rto) far above a microsecond, or a shorter run"
    ),
    "packets_held": "smaller buffers, or fewer packets in flight",
}


def _biggest(rows: dict[str, int]) -> str:
    return max(rows, key=lambda t: rows[t] * row_bytes(t))


def _field(rows: dict[str, int]) -> str:
    return _FIELD.get(_biggest(rows), "sim.sample_interval")


def _message(rows: dict[str, int], lim: int, verb: str) -> str:
    """`verb` holds '{}' for the amount."""
    total = total_bytes(rows)
    field = _field(rows)
    parts = sorted(((r * row_bytes(t), t) for t, r in rows.items()), reverse=True)
    detail = ", ".join(f"{t} {rows[t]:,} rows ≈ {gb(b)}" for b, t in parts if b)
    advice = _ADVICE.get(_biggest(rows), "use a longer interval, 'off', or sim.sample_links = 'shared'")
    return (
        f"{field}: the recorded tables {verb.format(gb(total))} ({detail}); the limit is "
        f"{gb(lim)} ({limit()[1]}): {advice}"
    )


def gb(b: int) -> str:
    return f"{b / 1e9:.1f} GB" if b >= 1e8 else f"{b / 1e6:.1f} MB"
