"""`ccsim bench --experiments`: what the sweep machinery costs
(docs/performance.md, "Experiments").

1. Overhead per run: a sweep of N tiny runs (a 10 ms simulation), serial and
   on the process pool; overhead = (sweep wall time × workers − Σ run wall
   time inside the core) / N: validation, task hand-off, Parquet encoding,
   the atomic write and the catalogue line.
2. Speed-up: the same 40-run sweep of ~1–2 CPU-s runs serially, on the
   process pool and on a Dask LocalCluster.
3. Client memory: peak RSS of a fresh process doing a dry run of 1,000 and
   10,000 points, and real sweeps of 100 and 1,000 tiny runs.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TINY = {
    "sim": {"duration": "10ms", "seed": 1, "sample_interval": "off"},
    "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "1ms", "buffer": "1bdp"},
    "flows": [{"count": 1, "app": "bulk"}],
}
# ~1-2 CPU-s each: 10 flows on a 1 Gb/s dumbbell for 60 s (ccsim bench's case b, longer)
HEAVY = {
    "sim": {"duration": "60s", "seed": 1, "sample_interval": "1s"},
    "topology": {"kind": "dumbbell", "bottleneck_rate": "1Gbps", "bottleneck_delay": "18ms", "access_rate": "10Gbps",
                 "access_delay": "1ms", "buffer": "1bdp"},
    "tcp": {"cc": "newreno"},
    "flows": [{"count": 10, "app": "bulk", "start": {"dist": "uniform", "min": "0s", "max": "1s"}}],
}


def _tiny_sweep(n: int):
    from .sweep import Sweep

    return Sweep(TINY, seeds=n)


def overhead(n: int = 1000, jobs: int | None = None) -> dict:
    from .campaign import open_campaign
    from .runner import run_sweep

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        rep = run_sweep(_tiny_sweep(n), Path(d) / "c", jobs=jobs, executor="serial" if jobs == 1 else None)
        wall = time.perf_counter() - t0
        core = open_campaign(Path(d) / "c").ok_runs["wall_s"].sum()
    workers = jobs or 1
    return {"runs": n, "jobs": workers, "wall_s": wall, "core_wall_s": core, "computed": rep.computed,
            "overhead_ms_per_run": (wall * workers - core) / n * 1e3}


def speedup(n: int = 40, jobs: int = 2) -> dict:
    from .runner import run_sweep
    from .sweep import Sweep

    sw = Sweep(HEAVY, seeds=n)
    out = {}
    for name, kw in (("serial", {"executor": "serial"}), ("pool", {"jobs": jobs}), ("dask_local", {"dask": "local", "jobs": jobs})):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            rep = run_sweep(sw, Path(d) / "c", **kw)
            out[name] = time.perf_counter() - t0
            assert rep.computed == n, rep
    from .campaign import open_campaign  # noqa: F401

    return {"runs": n, "jobs": jobs, "wall_s": out,
            "speedup_pool": out["serial"] / out["pool"], "speedup_dask_local": out["serial"] / out["dask_local"]}


_MEM = """
import resource, sys, tempfile, json
from pathlib import Path
from ccsim.experiments.bench import _tiny_sweep
from ccsim.experiments.runner import dry_run, run_sweep
kind, n = sys.argv[1], int(sys.argv[2])
with tempfile.TemporaryDirectory() as d:
    if kind == "dry":
        dry_run(_tiny_sweep(n), Path(d) / "c", samples=1, calibrate_s=0.05)
    else:
        run_sweep(_tiny_sweep(n), Path(d) / "c", jobs=2)
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def memory() -> dict:
    out = {}
    for kind, n in (("dry", 1000), ("dry", 10000), ("sweep", 100), ("sweep", 1000)):
        r = subprocess.run([sys.executable, "-c", _MEM, kind, str(n)], capture_output=True, text=True, check=True)
        out[f"{kind}_{n}_maxrss_mb"] = int(r.stdout.strip().splitlines()[-1]) / 1024
    return out


def run_all(quick: bool = False) -> dict:
    res = {"overhead_serial": overhead(200 if quick else 1000, jobs=1),
           "overhead_pool": overhead(200 if quick else 1000, jobs=2)}
    if not quick:
        res["speedup"] = speedup()
        res["memory"] = memory()
    return res


if __name__ == "__main__":
    print(json.dumps(run_all(quick="--quick" in sys.argv), indent=2))
