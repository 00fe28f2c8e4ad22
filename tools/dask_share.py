"""A share of `ccsim study pacing --full` on a Dask cluster of separate
processes over TCP, and the full study's wall time projected from it
(docs/performance.md).

    .venv/bin/python tools/dask_share.py [--workers 2] [--tiny 100] [--out DIR]

Starts `dask scheduler` and `dask worker` processes on 127.0.0.1 (as on a
real cluster: the client talks to the scheduler over TCP, the workers run
the simulations and send the tables back), then

1. runs `--tiny` one-second runs of a tiny scenario through it: the time the
   cluster adds to each run (wall × workers − the runs' own CPU time, per
   run);
2. runs one run of every stratum of the full plan (each experiment, and
   each bottleneck rate within it), at the full plan's durations and the
   first seed, all submitted at once: each stratum's CPU time per run;
3. projects the full study: its CPU time (each stratum's runs × the
   sampled run's CPU time) and its wall time on 16, 64 and 256 cores,
   (CPU time + runs × overhead) / cores, never below the longest run.

Prints a Markdown table. One sampled run stands for its stratum's runs,
which differ in variant, buffer, RTT ratio and seed: a rough estimate.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    bindir = Path(sys.executable).parent
    port = free_port()
    addr = f"tcp://127.0.0.1:{port}"
    log = subprocess.DEVNULL
    procs = [
        subprocess.Popen(
            [bindir / "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=log,
            stderr=log,
        )
    ]
    time.sleep(3)
    procs.append(
        subprocess.Popen(
            [bindir / "dask", "worker", addr, "--nworkers", str(workers), "--nthreads", "1", "--no-dashboard"],
            stdout=log,
            stderr=log,
        )
    )
    from dask.distributed import Client

    with Client(addr, timeout="30s") as c:
        c.wait_for_workers(workers, timeout=60)
    return addr, procs


def run_all(sweeps: list[Any], root: Path, addr: str) -> tuple[float, list[dict[str, Any]]]:
    """Run every sweep at once (one thread each, all on the cluster); the
    wall time and each run's row."""
    from ccsim import open_campaign, run_sweep

    errors: list[str] = []

    def one(i: int, sw: Any) -> None:
        try:
            run_sweep(sw, root / f"c{i}", dask=addr)
        except Exception as e:  # noqa: BLE001 - reported below, with the others
            errors.append(f"sweep {i}: {e}")

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i, sw)) for i, sw in enumerate(sweeps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise SystemExit("\n".join(errors))
    rows = []
    for i in range(len(sweeps)):
        rows += open_campaign(root / f"c{i}").ok_runs.to_dicts()
    if len(rows) != sum(len(sw) for sw in sweeps):
        raise SystemExit(f"{len(rows)} of {sum(len(sw) for sw in sweeps)} runs finished")
    return wall, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tiny", type=int, default=100)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--rates", default=None, help="sample only these bottleneck rates (comma-separated)")
    ap.add_argument("--experiments", default=None, help="sample only these experiments (comma-separated)")
    a = ap.parse_args()
    from ccsim import Sweep
    from ccsim.studies.pacing.study import STUDY

    root = a.out or Path(tempfile.mkdtemp(prefix="dask-share-"))
    addr, procs = start_cluster(a.workers)
    try:
        tiny = {
            "sim": {"duration": "1s"},
            "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
            "flows": [{"count": 1, "start": {"dist": "uniform", "min": "0s", "max": "100ms"}}],
        }
        wall, rows = run_all([Sweep(tiny, seeds=list(range(1, a.tiny + 1)))], root / "tiny", addr)
        cpu = sum(r["cpu_s"] for r in rows)
        overhead = (wall * a.workers - cpu) / len(rows)
        print(f"tiny: {len(rows)} runs, wall {wall:.1f} s, their CPU {cpu:.2f} s")
        print(f"cluster time per run: {overhead * 1e3:.0f} ms")

        plan = STUDY.plan("full")
        strata: dict[tuple[str, str], list[Any]] = {}
        for e in STUDY.experiments(plan):
            for p in e.sweep.points():
                key = (e.name, str(p.params.get("topology.bottleneck_rate", "2.5Gbps")))
                if a.rates and key[1] not in a.rates.split(","):
                    continue
                if a.experiments and e.name not in a.experiments.split(","):
                    continue
                strata.setdefault(key, []).append(p)
        sweeps = [Sweep(ps[0].raw, seeds=[ps[0].params["seed"]]) for ps in strata.values()]
        wall, rows = run_all(sweeps, root / "share", addr)
        by_key = {}
        for key, ps in strata.items():
            i = list(strata).index(key)
            r = next(r for r in rows if r["run_id"] in _ids(root / "share" / f"c{i}"))
            by_key[key] = (len(ps), r["cpu_s"], r["sim_time_s"])
        cpu_share = sum(c for _, c, _ in by_key.values())
        print(
            f"\nshare: {len(rows)} runs, wall {wall:.0f} s on {a.workers} workers, their CPU {cpu_share:.0f} s "
            f"(the workers busy with simulation {cpu_share / (wall * a.workers):.0%} of the time)"
        )
        print("\n| experiment | bottleneck | runs in the full plan | CPU s of the sampled run | simulated s |")
        print("|---|---|---|---|---|")
        total = 0.0
        n_total = 0
        longest = 0.0
        for (exp, rate), (n, c, sim) in by_key.items():
            print(f"| {exp} | {rate} | {n} | {c:.1f} | {sim:.0f} |")
            total += n * c
            n_total += n
            longest = max(longest, c)
        print(f"\nfull plan: {n_total} runs, {total / 3600:.1f} CPU-hours; longest run {longest:.0f} s")
        print("\n| cores | projected wall |")
        print("|---|---|")
        for cores in (16, 64, 256):
            w = max((total + n_total * overhead) / cores, longest)
            print(f"| {cores} | {w / 3600:.2f} h |")
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def _ids(path: Path) -> set[str]:
    from ccsim import open_campaign

    return set(open_campaign(path).ok_runs["run_id"].to_list())


if __name__ == "__main__":
    main()
