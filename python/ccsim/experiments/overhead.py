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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sweep import Sweep

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import executors

TINY = {
    "sim": {"duration": "10ms", "seed": 1, "sample_interval": "off"},
    "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "1ms", "buffer": "1bdp"},
    "flows": [{"count": 1, "app": "bulk"}],
}
# ~1-2 CPU-s each: 10 flows on a 1 Gb/s dumbbell for 60 s (ccsim bench's case b, longer)
HEAVY = {
    "sim": {"duration": "60s", "seed": 1, "sample_interval": "1s"},
    "topology": {
        "kind": "dumbbell",
        "bottleneck_rate": "1Gbps",
        "bottleneck_delay": "18ms",
        "access_rate": "10Gbps",
        "access_delay": "1ms",
        "buffer": "1bdp",
    },
    "tcp": {"cc": "newreno"},
    "flows": [{"count": 10, "app": "bulk", "start": {"dist": "uniform", "min": "0s", "max": "1s"}}],
}


def _tiny_sweep(n: int) -> Sweep:
    from .sweep import Sweep

    return Sweep(TINY, seeds=n)


def overhead(n: int = 1000, jobs: int | None = None) -> dict[str, Any]:
    import warnings

    from .campaign import open_campaign
    from .runner import IdenticalSeedsWarning, run_sweep

    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        # the seeds are there to make N runs of one deterministic scenario,
        # which is what the warning is about: true and meant here
        warnings.simplefilter("ignore", IdenticalSeedsWarning)
        t0 = time.perf_counter()
        rep = run_sweep(_tiny_sweep(n), Path(d) / "c", jobs=jobs, executor="serial" if jobs == 1 else None)
        wall = time.perf_counter() - t0
        core = float(open_campaign(Path(d) / "c").ok_runs["wall_s"].sum())
    workers = jobs or 1
    return {
        "runs": n,
        "jobs": workers,
        "wall_s": wall,
        "core_wall_s": core,
        "computed": rep.computed,
        "overhead_ms_per_run": (wall * workers - core) / n * 1e3,
    }


def speedup(n: int = 40, jobs: int = 2) -> dict[str, Any]:
    from .runner import run_sweep
    from .sweep import Sweep

    sw = Sweep(HEAVY, seeds=n)
    out = {}
    for name, kw in (
        ("serial", {"executor": "serial"}),
        ("pool", {"jobs": jobs}),
        ("dask_local", {"dask": "local", "jobs": jobs}),
    ):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            rep = run_sweep(sw, Path(d) / "c", **kw)
            out[name] = time.perf_counter() - t0
            assert rep.computed == n, rep
    t0 = time.perf_counter()
    ex = executors.Dask("local", jobs)
    list(
        ex.map(
            iter(
                [
                    {
                        "run_id": "warm",
                        "core_json": Sweep(TINY).points().__next__().scenario().to_core_json(),
                        "timeout_s": None,
                    }
                ]
            )
        )
    )
    ex.close()
    startup = time.perf_counter() - t0
    return {
        "runs": n,
        "jobs": jobs,
        "wall_s": out,
        "dask_local_start_run_one_stop_s": startup,
        "speedup_pool": out["serial"] / out["pool"],
        "speedup_dask_local": out["serial"] / out["dask_local"],
    }


def _memory_child(kind: str, n: int) -> dict[str, Any]:
    import tracemalloc

    from .runner import dry_run, run_sweep

    tracemalloc.start()
    with tempfile.TemporaryDirectory() as d:
        if kind == "dry":
            dry_run(_tiny_sweep(n), Path(d) / "c", samples=1, calibrate_s=0.05)
        else:
            run_sweep(_tiny_sweep(n), Path(d) / "c", jobs=2)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent across exec
    with open("/proc/self/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    return {"peak_rss_mb": hwm / 1024, "python_heap_peak_mb": tracemalloc.get_traced_memory()[1] / 1e6}


def memory() -> dict[str, Any]:
    """Peak RSS and peak Python heap (tracemalloc) of a fresh client process."""
    out = {}
    for kind, n in (("dry", 1000), ("dry", 10000), ("sweep", 100), ("sweep", 1000)):
        r = subprocess.run(
            [sys.executable, "-m", "ccsim.experiments.overhead", "--memory-child", kind, str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        out[f"{kind}_{n}"] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def run_all(quick: bool = False) -> dict[str, Any]:
    res = {
        "overhead_serial": overhead(200 if quick else 1000, jobs=1),
        "overhead_pool": overhead(200 if quick else 1000, jobs=2),
    }
    if not quick:
        res["speedup"] = speedup()
        res["memory"] = memory()
    return res


if __name__ == "__main__":
    if sys.argv[1:2] == ["--memory-child"]:
        print(json.dumps(_memory_child(sys.argv[2], int(sys.argv[3]))))
    elif sys.argv[1:2] == ["--memory"]:
        print(json.dumps(memory(), indent=2))
    else:
        print(json.dumps(run_all(quick="--quick" in sys.argv), indent=2))
