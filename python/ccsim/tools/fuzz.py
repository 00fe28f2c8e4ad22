"""A seeded scenario generator and the invariants every run must satisfy.

``generate(rng)`` draws a valid scenario across topologies, queue
disciplines, loss models, traffic kinds and TCP options (short runs, so
thousands fit in minutes); ``check(sc, res)`` returns every invariant the
run breaks (an empty list when it holds them all):

- links: bytes transmitted ≤ rate × duration + one packet; DropTail never
  holds more than its limit; offered = transmitted + dropped + still waiting
  (≥ 0 waiting); utilization in [0, 1];
- flows: no NaN goodput or throughput; goodput ≤ throughput (payload is
  part of what went on the wire); a flow's throughput ≤ its first link's
  rate (+ one packet over the flow's active time); the smallest RTT ≥ the propagation RTT of its path;
  an FCT ≥ the one-way propagation delay; cwnd ≥ 1 at every sample (≥ 0
  for a flow that answers ECN as ns-2 does, whose window is 0 after an
  ECN at a window of 1);
- determinism: the same scenario and seed give identical flow tables;
- memory: every table the pre-run estimate bounds (`memory.BOUNDED`) has
  at most the rows `memory.estimate_rows` gives it.

- budgets: a case over BUDGET_S of wall time or over the memory limit
  (MEMORY_BUDGET unless $CCSIM_MAX_MEMORY says otherwise) fails.

``python -m ccsim.tools.fuzz N [--seed S] [--out DIR] [--budget S]`` (``make fuzz``)
runs N cases and writes each failing scenario as a TOML file that
reproduces it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .. import algorithms, memory
from ..scenario.netmodels import QUEUE_KINDS
from ..scenario.topologies import TOPOLOGY_FUZZ, TOPOLOGY_KINDS, link_bits_bound, link_capacity_bps, routes
from . import fuzz_algos
from .fuzz_algos import HOSTILE

# the queue kinds drawn: all but the RED kinds that differ from red and
# adaptive_red only in options they fix, and netem (not drawn yet: the
# generator predates it, and its invariants are not written)
QUEUES = [q for q in QUEUE_KINDS if q not in ("netem", "gentle_red", "feng_red")]
# a case's wall time and memory (the checked build is ~3× slower than release;
# the longest generated case takes a few seconds there)
BUDGET_S = 60.0
MEMORY_BUDGET = "2GB"
KINDS = TOPOLOGY_KINDS
# every algorithm the core knows, but Tahoe-recovery ones (the generator draws SACK modes)
CCS = [name for name, a in algorithms.specs().items() if a["recovery"] != "tahoe"]
# the share of cases that run one of the fixed Python algorithms (`fuzz_algos`)
PY_ALGO_SHARE = 0.02


def _flow(rng: np.random.Generator, topo_kind: str) -> dict[str, Any]:
    app = rng.choice(["bulk", "bulk", "file", "onoff", "repeat", "web", "schedule", "cbr"])
    f: dict[str, Any] = {"count": int(rng.integers(1, 4))}
    if app == "file":
        f.update(app="file", size=f"{int(rng.choice([10, 50, 200, 1000]))}KB")
    elif app == "onoff":
        # ON periods down to the shortest mean accepted (1 µs)
        f.update(app="onoff", on=str(rng.choice(["1us", "3ms", "200ms"])), off="200ms")
    elif app == "repeat":
        f.update(app="repeat", size=str(rng.choice(["1B", "1KB", "30KB"])), think=str(rng.choice(["0s", "100ms"])))
    elif app == "web":
        f.update(app="web", think="200ms")
    elif app == "schedule":
        f.update(app="schedule", on=[["0s", "300ms"], ["600s", "601s"]] if rng.random() < 0.3 else [["100ms", "1s"]])
    elif app == "cbr":
        return {"app": "cbr", "rate": "500kbps", "packet_size": "1000B"}
    else:
        f["app"] = "bulk"
    if rng.random() < 0.5:
        f["start"] = {"dist": "uniform", "min": "0s", "max": "200ms"}
    if topo_kind != "single_link" and rng.random() < 0.3:
        f["direction"] = "reverse"
    return f


def _tcp(rng: np.random.Generator) -> dict[str, Any]:
    t: dict[str, Any] = {"cc": str(rng.choice(CCS))}
    if rng.random() < 0.3:
        t["stack"] = "ns2"
    if rng.random() < 0.5:
        t["sack"] = str(rng.choice(["off", "rfc6675"]))
    if rng.random() < 0.3:
        t["ecn"] = True
    if rng.random() < 0.3 and t.get("stack") != "ns2":
        t["pacing"] = "linux"
    if rng.random() < 0.3:
        t["delayed_ack"] = bool(rng.random() < 0.5)
    if rng.random() < 0.3:
        t["initial_window"] = int(rng.choice([1, 4, 10, 50]))
    if rng.random() < 0.2:
        t["handshake"] = True
    # timers and sizes at or near the bounds the schema accepts
    if rng.random() < 0.1:
        t["min_rto"] = str(rng.choice(["1us", "1ms", "10ms"]))
    if rng.random() < 0.05:
        t["initial_rto"] = str(rng.choice(["1us", "10ms"]))
    if rng.random() < 0.1:
        t["delack_timeout"] = str(rng.choice(["1ps", "1us", "500ms"]))
    if rng.random() < 0.05:
        t["initial_window"] = int(rng.choice([1000, 100_000]))
    if rng.random() < 0.05:
        t["mss"] = int(rng.choice([1, 9000]))
    return t


# Queue options at or near the edges each discipline accepts (a few draws
# are refused, naming the option: near-valid input); one or two per case.
QUEUE_EDGES: dict[str, list[dict[str, Any]]] = {
    "red": [
        {"w_q": "auto"},
        {"w_q": 1.0},
        {"w_q": 1e-6},
        {"max_p": 1.0},
        {"bytes": True, "mean_pktsize": 1},
        {"wait": False},
        {"min_th": 5, "max_th": 5},
        {"ecn": True, "mark_p": 0.5},
        {"ecn": True, "mark_p": 1.0, "mark_p_forced": True},
        {"mark_p": 0.1},  # without ecn: refused by name
    ],
    "adaptive_red": [{"interval": "1ms"}, {"top": 1.0, "bottom": 0.0001}, {"target_delay": "1us"}],
    "codel": [{"target": "1us"}, {"interval": "1ms"}, {"mtu": 64}, {"ecn": True}],
    "fq_codel": [{"quantum": 64}, {"buckets": 1}, {"buckets": 65536}, {"target": "1us", "interval": "1ms"}],
    "pie": [
        {"alpha": 0.0},
        {"beta": 0.0},
        {"mark_ecnth": 1.0, "ecn": True},
        {"derandomize": False},
        {"max_burst": "0s"},
        {"mean_pktsize": 1},
    ],
    "dualpi2": [
        {"coupling": 1},
        {"coupling": 10},
        {"c_protection": 0},
        {"c_protection": 100},
        {"drop_overload": False},
        {"drop_early": True},
        {"ecn_mask": "any_ect"},
        {"step_thresh": "1us", "min_qlen_step": 5},
        {"t_update": "1us"},
    ],
}


def _queue(rng: np.random.Generator) -> dict[str, Any]:
    q = str(rng.choice(QUEUES))
    queue: dict[str, Any] = {"kind": q}
    if q == "red" and rng.random() < 0.5:
        queue.update(gentle=True)
    if q in ("red", "codel", "pie") and rng.random() < 0.3:
        queue["ecn"] = True
    if q == "pie" and rng.random() < 0.3:
        queue["t_update"] = "1us"  # the shortest update period accepted
    edges = QUEUE_EDGES.get(q, [])
    for _ in range(int(rng.integers(0, 3)) if edges else 0):
        queue.update(edges[int(rng.integers(len(edges)))])
    return queue


def trace_files(folder: Path) -> list[str]:
    """Two synthetic cellular traces (`ccsim trace generate`'s model) the
    generator's trace-driven links replay: one longer than any run, one
    short enough to repeat. Written once into `folder`, so a reproducer
    written beside them runs as it is."""
    from .tracegen import generate as trace

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, ms, seed in (("cell-3s.trace", 3000, 1), ("cell-700ms.trace", 700, 2)):
        p = folder / name
        if not p.exists():
            p.write_text(trace("sprout", ms, seed))
        paths.append(str(p.resolve()))
    return paths


def odd_trace_files(folder: Path) -> list[str]:
    """Paths that are no trace file and must be refused, naming the field,
    before anything opens them: a FIFO (opening it would block), /dev/zero
    (a read would never end) and a folder."""
    import os

    folder.mkdir(parents=True, exist_ok=True)
    fifo = folder / "fifo.trace"
    if not fifo.exists():
        os.mkfifo(fifo)
    return [str(fifo.resolve()), "/dev/zero", str(folder.resolve())]


def generate(rng: np.random.Generator, traces: list[str] | None = None) -> dict[str, Any]:
    """A random valid scenario mapping (units as strings, as in a file);
    `traces` (`trace_files`) lets some links replay a delivery trace."""
    kind = str(rng.choice(KINDS))
    queue = _queue(rng)
    buffer = str(rng.choice(["5pkt", "20pkt", "0.5bdp", "1bdp", "4bdp"]))
    topo = TOPOLOGY_FUZZ[kind](rng, buffer, queue, traces or [])
    flows = [_flow(rng, kind) for _ in range(int(rng.integers(1, 3)))]
    if kind in ("parking_lot", "explicit", "wireless"):
        for f in flows:
            f.pop("direction", None)
    if kind == "explicit":
        for f in flows:
            f.update(src=str(rng.choice(["a", "b"])), dst="c")
    if all(f.get("app") == "cbr" for f in flows):
        flows.append({"app": "bulk"} | ({"src": "a", "dst": "c"} if kind == "explicit" else {}))
    sim: dict[str, Any] = {
        "duration": f"{float(rng.choice([0.5, 1.0, 2.0, 3.0])):g}s",
        "seed": int(rng.integers(1, 1000)),
        "sample_interval": "50ms",
    }
    if rng.random() < 0.3:  # the per-packet traces, whose rows the memory estimate bounds
        sim["trace"] = [t for t in ("rtt", "seq", "cc") if rng.random() < 0.5]
    tcp = _tcp(rng)
    if rng.random() < PY_ALGO_SHARE:  # one of the fixed Python algorithms, hostile or not
        cls = HOSTILE[int(rng.integers(len(HOSTILE)))]
        tcp.update(cc=f"py:{cls.__module__}:{cls.__name__}")
        tcp.pop("mss", None)  # a hook per ACK: keep the packet counts of a short run
        if tcp.get("initial_window", 0) >= 1000:
            tcp.pop("initial_window")
        sim["duration"] = "1s"
    return {
        "sim": sim,
        "topology": topo,
        "tcp": tcp,
        "flows": flows,
    }


def py_expect(raw: dict[str, Any]) -> tuple[tuple[str, ...], float | None] | None:
    """For a case running one of `fuzz_algos`' classes: the outcomes its
    class allows and the wall time it is given (None: the case's budget)."""
    cc = raw.get("tcp", {}).get("cc", "")
    if not isinstance(cc, str) or not cc.startswith("py:"):
        return None
    cls = getattr(fuzz_algos, cc.rsplit(":", 1)[1])
    return cls.fuzz_expect, cls.fuzz_timeout_s


def _path_delays(core: dict[str, Any], s: int, d: int) -> tuple[float, list[int]]:
    """Propagation one way along the simulator's route, and the route."""

    r = routes(core, [(s, d)])[0] or []
    return sum(core["links"][i]["delay_ps"] for i in r) * 1e-12, r


def _buffer_bytes(link: dict[str, Any], pkt: int) -> int:
    q = link.get("queue", {})
    if q.get("limit_bytes"):
        return int(q["limit_bytes"])
    return (q.get("limit_pkts") or 0) * pkt


def check(sc: Any, res: Any, again: Any = None) -> list[str]:
    """Every invariant `res` (the run of `sc`) breaks; `again`, a second run
    of the same scenario, is compared for determinism."""
    bad: list[str] = []
    core = sc.core
    dur = sc.duration_s
    lk = res.links
    # the largest packet: a full segment of any flow with up to 40 bytes of
    # TCP options (timestamps add 12), or a CBR datagram
    pkt = max([f["tcp"]["mss"] + f["tcp"]["header_bytes"] + 40 for f in core["flows"]] + [1600])
    for i, row in enumerate(lk.iter_rows(named=True)):
        cap = link_bits_bound(core["links"][i], core["duration_ps"]) / 8 + pkt
        if row["bytes_tx"] > cap:
            bad.append(f"link {row['name']}: bytes_tx {row['bytes_tx']} > capacity {cap:.0f}")
        if row["queue"] == "droptail" and row["limit_pkts"] >= 0 and row["max_queue_pkts"] > row["limit_pkts"]:
            bad.append(f"link {row['name']}: queue {row['max_queue_pkts']} > limit {row['limit_pkts']}")
        if row["pkts_offered"] < row["pkts_tx"] + row["drops"]:
            bad.append(
                f"link {row['name']}: offered {row['pkts_offered']} < tx {row['pkts_tx']} + drops {row['drops']}"
            )
        if not (0.0 <= row["utilization"] <= 1.0 + 1e-9):
            bad.append(f"link {row['name']}: utilization {row['utilization']}")
    node = {n: i for i, n in enumerate(core["nodes"])}
    for row in res.flows.iter_rows(named=True):
        i = row["id"]
        for k in ("goodput_bps", "throughput_bps"):
            if math.isnan(row[k]):
                bad.append(f"flow {i}: {k} is NaN")
        if row["goodput_bps"] > row["throughput_bps"] * (1 + 1e-9) + 1e-6:
            bad.append(f"flow {i}: goodput {row['goodput_bps']:.0f} > throughput {row['throughput_bps']:.0f}")
        fw, route = _path_delays(core, node[row["src"]], node[row["dst"]])
        rv, _ = _path_delays(core, node[row["dst"]], node[row["src"]])
        if route:
            first_link = core["links"][route[0]]
            # the flow's own active time (start to completion for a transfer),
            # as throughput uses; a finished transfer's bytes still queued in
            # its first link at completion (spurious retransmissions) leave
            # after it, so they may add up to that queue's buffer
            active = row["fct_s"] if not math.isnan(row["fct_s"]) else dur - row["start_s"]
            # its rate; under a schedule its highest step's; under a trace
            # the most it delivers in a window of that length
            v = first_link.get("varying") or {}
            steps = v.get("steps", [])
            first = max((r for _, r in steps), default=link_capacity_bps(first_link))
            if v.get("kind") == "trace" and active > 0:
                first = link_bits_bound(first_link, int(active * 1e12)) / active
            slack = pkt + (_buffer_bytes(first_link, pkt) if not math.isnan(row["fct_s"]) else 0)
            if active > 0.05 and row["throughput_bps"] > first + slack * 8 / active:
                bad.append(f"flow {i}: throughput {row['throughput_bps']:.0f} > first link {first}")
        if not math.isnan(row["rtt_min_s"]) and row["rtt_min_s"] < fw + rv - 1e-9:
            bad.append(f"flow {i}: rtt_min {row['rtt_min_s']:.6f} < propagation RTT {fw + rv:.6f}")
        if not math.isnan(row["fct_s"]) and row["fct_s"] < fw - 1e-9:
            bad.append(f"flow {i}: fct {row['fct_s']:.6f} < one-way delay {fw:.6f}")
    fs = res.flow_series
    if fs.height:
        tables = core.get("tcp_tables", [])

        def tcp_of(f: dict[str, Any]) -> dict[str, Any]:
            t = f.get("tcp")
            return tables[t] if isinstance(t, int) else (t or {})

        # ns-2's TcpAgent::ecn sets cwnd_ = int(window()/2): 0 at a window of 1
        ns2_ecn = [
            i for i, f in enumerate(core["flows"]) if tcp_of(f).get("ecn") and tcp_of(f).get("ecn_response") == "ns2"
        ]
        low = fs.filter(pl.col("cwnd") < 1)
        for r in low.filter(~pl.col("flow").is_in(ns2_ecn) | (pl.col("cwnd") < 0)).head(1).iter_rows(named=True):
            bad.append(f"flow {r['flow']}: cwnd {r['cwnd']} < 1 in flow_series")
    est = memory.estimate_rows(core)
    got = memory.measured_rows(res)
    for t in memory.BOUNDED:
        if got.get(t, 0) > est.get(t, 0):
            bad.append(f"table {t}: {got[t]} rows > the memory estimate's bound {est.get(t, 0)}")
    if again is not None and not again.flows.equals(res.flows, null_equal=True):
        bad.append("same scenario and seed gave different flow tables")
    return bad


def run_cases(
    n: int, seed: int = 0, out: Path | None = None, determinism_every: int = 10, budget_s: float = BUDGET_S
) -> tuple[int, list[Any], int]:
    """Run `n` generated cases; return (runs, failures, refused) where a
    failure is (case number, scenario mapping, problems). Draws the scenario
    checks refuse (near-valid ones) count as passing when the error names a
    field; `refused` is their number.

    Time and memory are invariants too: a run past `budget_s` of wall time
    is stopped and fails, and so does one the core stops past the memory
    limit ($CCSIM_MAX_MEMORY, which `main` sets to MEMORY_BUDGET unless
    given): the generator's runs are seconds long and must stay small."""
    import tempfile

    from ..errors import ScenarioError
    from ..scenario import Scenario

    rng = np.random.default_rng(seed)
    failures = []
    refused = 0
    tmp = tempfile.TemporaryDirectory(prefix="ccsim-fuzz-") if out is None else None
    folder = Path(tmp.name if tmp is not None else str(out)) / "traces"
    traces = trace_files(folder) + odd_trace_files(folder)
    for k in range(n):
        raw = generate(rng, traces)
        expect = py_expect(raw)
        try:
            sc = Scenario(raw, source=f"<fuzz {seed}:{k}>")
        except ScenarioError as e:
            # a near-valid draw (e.g. a fraction of a BDP below one packet):
            # refusing it is right if the message names the field
            refused += 1
            if ":" not in str(e) or "Traceback" in str(e):
                failures.append((k, raw, [f"refusal without a field: {e}"]))
            continue
        allowed, limit = expect if expect is not None else (("ok",), None)
        limit = budget_s if limit is None else min(limit, budget_s)
        try:
            res = sc.run(timeout=limit)
            again = sc.run(timeout=limit) if determinism_every and k % determinism_every == 0 else None
            problems = check(sc, res, again)
        except TimeoutError:
            problems = [] if "timeout" in allowed else [f"over its time budget: more than {limit:g} s of wall time"]
        except Exception as e:  # noqa: BLE001 - any exception is a finding
            noted = any(n.startswith("ccsim: raised in") for n in getattr(e, "__notes__", ()))
            problems = [] if "raised" in allowed and noted else [f"{type(e).__name__}: {e}"]
        if problems:
            failures.append((k, raw, problems))
            if out is not None:
                from ..scenario.tomlio import dumps

                out.mkdir(parents=True, exist_ok=True)
                (out / f"case-{seed}-{k}.toml").write_text("# " + "\n# ".join(problems) + "\n" + dumps(raw))
    if tmp is not None:
        tmp.cleanup()
    return n, failures, refused


def _count(v: str) -> int:
    """A whole number ≥ 0 on the command line (argparse reports the error)."""
    if not v.isdigit():
        raise argparse.ArgumentTypeError(f"got {v!r}; expected a whole number ≥ 0")
    return int(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ccsim.tools.fuzz")
    ap.add_argument("n", type=_count, help="cases to run")
    ap.add_argument("--seed", type=_count, default=0, help="a whole number ≥ 0")
    ap.add_argument("--out", default="results/fuzz", help="where failing scenarios are written")
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="wall seconds a case may take (a failure beyond)")
    a = ap.parse_args(argv)
    if not (math.isfinite(a.budget) and a.budget > 0):
        ap.error(f"argument --budget: got {a.budget!r}; expected seconds > 0")
    import os

    os.environ.setdefault("CCSIM_MAX_MEMORY", MEMORY_BUDGET)
    n, failures, refused = run_cases(a.n, a.seed, Path(a.out), budget_s=a.budget)
    print(
        f"{n} cases ({refused} refused with a named field), {len(failures)} failing"
        + (f"; reproducers in {a.out}/" if failures else "")
    )
    for k, _, probs in failures[:20]:
        print(f"  case {k}: {probs[0]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
