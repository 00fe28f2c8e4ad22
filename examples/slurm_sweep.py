"""Run a sweep on a Slurm cluster with dask-jobqueue (pip install 'ccsim[cluster]').

Each Slurm job starts Dask workers that run ccsim simulations; the results
come back to this process, which alone writes the campaign folder, so the
nodes need ccsim installed but no shared filesystem. Start this script on the
login node (or in a small job of its own):

    python examples/slurm_sweep.py examples/sweep_buffers.toml results/sweep_buffers --jobs 10

For PBS, SGE or LSF use PBSCluster, SGECluster or LSFCluster with the same
arguments. Adjust queue/account/walltime to your site.
"""

from __future__ import annotations

import argparse
import sys


def make_cluster(
    queue: str = "normal",
    cores: int = 32,
    memory: str = "64GB",
    walltime: str = "02:00:00",
    account: str | None = None,
    python: str = sys.executable,
):
    """One Slurm job = one node running `cores` single-threaded Dask workers
    (ccsim runs one simulation per worker and releases the GIL)."""
    from dask_jobqueue import SLURMCluster

    return SLURMCluster(
        queue=queue,
        account=account,
        cores=cores,
        processes=cores,
        memory=memory,
        walltime=walltime,
        python=python,
        # a simulation is one CPU-bound process: keep BLAS from oversubscribing
        job_script_prologue=["export OPENBLAS_NUM_THREADS=1"],
    )


def main() -> int:
    import ccsim
    from dask.distributed import Client

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sweep")
    p.add_argument("out")
    p.add_argument("--jobs", type=int, default=4, help="Slurm jobs (nodes) to request")
    p.add_argument("--queue", default="normal")
    p.add_argument("--timeout", type=float, help="per-run wall-clock limit, seconds")
    a = p.parse_args()
    cluster = make_cluster(queue=a.queue)
    cluster.scale(jobs=a.jobs)
    with Client(cluster) as client:
        # keep_going: return the report (and say what failed below) instead of raising SweepFailed
        rep = ccsim.run_sweep(
            ccsim.Sweep.from_file(a.sweep), a.out, dask=client, timeout_s=a.timeout, quiet=False, keep_going=True
        )
    cluster.close()
    print(rep.summary())
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
