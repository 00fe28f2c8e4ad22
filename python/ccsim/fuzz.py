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
  an FCT ≥ the one-way propagation delay; cwnd ≥ 1 at every sample;
- determinism: the same scenario and seed give identical flow tables.

``python -m ccsim.fuzz N [--seed S] [--out DIR]`` (``make fuzz``) runs N
cases and writes each failing scenario as a TOML file that reproduces it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import algorithms
from .topologies import link_capacity_bps

QUEUES = ["droptail", "red", "codel", "fq_codel", "pie"]
# every algorithm the core knows, but Tahoe-recovery ones (the generator draws SACK modes)
CCS = [name for name, a in algorithms.specs().items() if a["recovery"] != "tahoe"]


def _rate(rng) -> str:
    return f"{int(rng.choice([1, 2, 5, 10, 20, 50, 100]))}Mbps"


def _loss(rng):
    k = rng.choice(["none", "none", "bernoulli", "gilbert", "ber", "two_state"])
    if k == "two_state":
        return {
            "kind": "two_state",
            "good": str(rng.choice(["50ms", "300ms"])),
            "bad": str(rng.choice(["5ms", "30ms"])),
            "loss_bad": 0.3,
            "durations": str(rng.choice(["fixed", "exponential"])),
        }
    if k == "bernoulli":
        return {"kind": "bernoulli", "p": float(rng.choice([0.001, 0.01, 0.05]))}
    if k == "gilbert":
        return {"kind": "gilbert", "p": 0.01, "r": 0.3, "loss_bad": 0.5}
    if k == "ber":
        return {"kind": "ber", "ber": 1e-6}
    return None


def _flow(rng, topo_kind: str) -> dict:
    app = rng.choice(["bulk", "bulk", "file", "onoff", "repeat", "cbr"])
    f: dict = {"count": int(rng.integers(1, 4))}
    if app == "file":
        f.update(app="file", size=f"{int(rng.choice([10, 50, 200, 1000]))}KB")
    elif app == "onoff":
        f.update(app="onoff", on="200ms", off="200ms")
    elif app == "repeat":
        f.update(app="repeat", size="30KB", think="100ms")
    elif app == "cbr":
        f = {"app": "cbr", "rate": "500kbps", "packet_size": "1000B"}
        return f
    else:
        f["app"] = "bulk"
    if rng.random() < 0.5:
        f["start"] = {"dist": "uniform", "min": "0s", "max": "200ms"}
    if topo_kind != "single_link" and rng.random() < 0.3:
        f["direction"] = "reverse"
    return f


def _tcp(rng) -> dict:
    t: dict = {"cc": str(rng.choice(CCS))}
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
    return t


def generate(rng: np.random.Generator) -> dict:
    """A random valid scenario mapping (units as strings, as in a file)."""
    kind = str(rng.choice(["single_link", "dumbbell", "parking_lot"]))
    q = str(rng.choice(QUEUES))
    queue: dict[str, Any] = {"kind": q}
    if q == "red" and rng.random() < 0.5:
        queue.update(gentle=True)
    if q in ("red", "codel", "pie") and rng.random() < 0.3:
        queue["ecn"] = True
    buffer = str(rng.choice(["5pkt", "20pkt", "0.5bdp", "1bdp", "4bdp"]))
    if kind == "single_link":
        topo: dict = {
            "kind": kind,
            "rate": _rate(rng),
            "delay": f"{int(rng.choice([1, 5, 20, 50]))}ms",
            "buffer": buffer,
            "queue": queue,
        }
        loss = _loss(rng)
        if loss:
            topo["loss"] = loss
        if rng.random() < 0.15:
            topo["reorder"] = {"jitter": "2ms"} if rng.random() < 0.5 else {"probability": 0.02, "delay": "5ms"}
    elif kind == "dumbbell":
        topo = {
            "kind": kind,
            "bottleneck_rate": _rate(rng),
            "bottleneck_delay": f"{int(rng.choice([2, 10, 30]))}ms",
            "access_rate": "1Gbps",
            "access_delay": "1ms",
            "buffer": buffer,
            "queue": queue,
        }
        loss = _loss(rng)
        if loss:
            topo["loss"] = loss
    else:
        topo = {
            "kind": kind,
            "hops": int(rng.integers(2, 4)),
            "hop_rate": _rate(rng),
            "hop_delay": "5ms",
            "access_rate": "1Gbps",
            "access_delay": "1ms",
            "buffer": buffer,
            "queue": queue,
        }
    flows = [_flow(rng, kind) for _ in range(int(rng.integers(1, 3)))]
    if kind == "parking_lot":
        for f in flows:
            f.pop("direction", None)
        if all(f.get("app") == "cbr" for f in flows):
            flows.append({"app": "bulk"})
    if all(f.get("app") == "cbr" for f in flows):
        flows.append({"app": "bulk"})
    return {
        "sim": {
            "duration": f"{float(rng.choice([0.5, 1.0, 2.0, 3.0])):g}s",
            "seed": int(rng.integers(1, 1000)),
            "sample_interval": "50ms",
        },
        "topology": topo,
        "tcp": _tcp(rng),
        "flows": flows,
    }


def _path_delays(core: dict, s: int, d: int) -> tuple[float, list[int]]:
    """Propagation one way along the simulator's route, and the route."""
    import json

    from . import _core

    r = _core.routes(json.dumps(core), [(s, d)])[0] or []
    return sum(core["links"][i]["delay_ps"] for i in r) * 1e-12, r


def check(sc, res, again=None) -> list[str]:
    """Every invariant `res` (the run of `sc`) breaks; `again`, a second run
    of the same scenario, is compared for determinism."""
    bad: list[str] = []
    core = sc.core
    dur = sc.duration_s
    lk = res.links
    for row in lk.iter_rows(named=True):
        cap = row["rate_bps"] * dur / 8 + 1600
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
            first = link_capacity_bps(core["links"][route[0]])
            # the flow's own active time (start to completion for a transfer), as throughput uses
            active = row["fct_s"] if not math.isnan(row["fct_s"]) else dur - row["start_s"]
            if active > 0.05 and row["throughput_bps"] > first + 1600 * 8 / active:
                bad.append(f"flow {i}: throughput {row['throughput_bps']:.0f} > first link {first}")
        if not math.isnan(row["rtt_min_s"]) and row["rtt_min_s"] < fw + rv - 1e-9:
            bad.append(f"flow {i}: rtt_min {row['rtt_min_s']:.6f} < propagation RTT {fw + rv:.6f}")
        if not math.isnan(row["fct_s"]) and row["fct_s"] < fw - 1e-9:
            bad.append(f"flow {i}: fct {row['fct_s']:.6f} < one-way delay {fw:.6f}")
    fs = res.flow_series
    if fs.height and int(fs["cwnd"].min()) < 1:
        bad.append(f"cwnd {int(fs['cwnd'].min())} < 1 in flow_series")
    if again is not None and not again.flows.equals(res.flows, null_equal=True):
        bad.append("same scenario and seed gave different flow tables")
    return bad


def run_cases(n: int, seed: int = 0, out: Path | None = None, determinism_every: int = 10) -> tuple[int, list, int]:
    """Run `n` generated cases; return (runs, failures, refused) where a
    failure is (case number, scenario mapping, problems). Draws the scenario
    checks refuse (near-valid ones) count as passing when the error names a
    field; `refused` is their number."""
    from .errors import ScenarioError
    from .scenario import Scenario

    rng = np.random.default_rng(seed)
    failures = []
    refused = 0
    for k in range(n):
        raw = generate(rng)
        try:
            sc = Scenario(raw, source=f"<fuzz {seed}:{k}>")
        except ScenarioError as e:
            # a near-valid draw (e.g. a fraction of a BDP below one packet):
            # refusing it is right if the message names the field
            refused += 1
            if ":" not in str(e) or "Traceback" in str(e):
                failures.append((k, raw, [f"refusal without a field: {e}"]))
            continue
        try:
            res = sc.run()
            again = sc.run() if determinism_every and k % determinism_every == 0 else None
            problems = check(sc, res, again)
        except Exception as e:  # noqa: BLE001 - any exception is a finding
            problems = [f"{type(e).__name__}: {e}"]
        if problems:
            failures.append((k, raw, problems))
            if out is not None:
                from .tomlio import dumps

                out.mkdir(parents=True, exist_ok=True)
                (out / f"case-{seed}-{k}.toml").write_text("# " + "\n# ".join(problems) + "\n" + dumps(raw))
    return n, failures, refused


def _count(v: str) -> int:
    """A whole number ≥ 0 on the command line (argparse reports the error)."""
    if not v.isdigit():
        raise argparse.ArgumentTypeError(f"got {v!r}; expected a whole number ≥ 0")
    return int(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ccsim.fuzz")
    ap.add_argument("n", type=_count, help="cases to run")
    ap.add_argument("--seed", type=_count, default=0, help="a whole number ≥ 0")
    ap.add_argument("--out", default="results/fuzz", help="where failing scenarios are written")
    a = ap.parse_args(argv)
    n, failures, refused = run_cases(a.n, a.seed, Path(a.out))
    print(
        f"{n} cases ({refused} refused with a named field), {len(failures)} failing"
        + (f"; reproducers in {a.out}/" if failures else "")
    )
    for k, _, probs in failures[:20]:
        print(f"  case {k}: {probs[0]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
