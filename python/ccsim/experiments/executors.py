"""Executors: who runs the tasks. All three run the same function
(:func:`ccsim.experiments.worker.execute`) and return its outcomes, so results
are the same bytes whichever ran them.

- ``serial``: in this process, one after another.
- ``pool`` (default): long-lived worker processes on this machine. A worker
  that dies (a crash in native code, the OOM killer) costs only its run,
  recorded as failed, and is replaced; a run past its timeout that does not
  stop by itself is killed with its worker.
- ``dask``: a ``dask.distributed`` cluster: an existing scheduler
  (``tcp://host:8786``), or ``local`` for a LocalCluster on this machine.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import sys
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from .._spawn import GUARD_EXIT
from ..errors import ScenarioError
from .worker import execute

# Extra wall time beyond a run's timeout before the pool kills its worker
# (the core stops a cancelled run within milliseconds; this is for a worker
# stuck elsewhere, e.g. encoding a huge table).
KILL_GRACE_S = 10.0

# Wall time the Dask executor waits for a finished run's result to reach the
# client before it records the run as failed. A result is at most a few
# hundred MB of Parquet (the memory guard bounds the tables), seconds over
# any network; a worker that cannot send it in this long is stuck.
FETCH_TIMEOUT_S = 600.0


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Local worker processes per core at most: more only add interpreters that
# wait for a core (each costs about 100 MB).
JOBS_PER_CORE = 4


def check_jobs(field: str, jobs: int | None, dask: object = None) -> None:
    """Refuse a number of workers that cannot be meant: below 1 (nothing
    would run), or, for local processes, more than JOBS_PER_CORE per core.
    `field` is the option as the user wrote it (`--jobs`, `jobs`)."""
    if jobs is None:
        return
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ScenarioError(field, jobs, "a number of worker processes ≥ 1 (or leave it out: one per core)")
    most = JOBS_PER_CORE * default_jobs()
    if not dask and jobs > most:
        raise ScenarioError(
            field, jobs, f"at most {most} worker processes on this machine ({JOBS_PER_CORE} per core); --dask for more"
        )


class Serial:
    name = "serial"

    def map(self, tasks: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for t in tasks:
            yield execute(t)

    def close(self) -> None:
        pass


def guard_message(exitcode: int | None) -> str:
    """Why the pool's workers died while starting, in the user's terms."""
    import sys

    main = getattr(sys.modules.get("__main__"), "__file__", None) or "the main script"
    if exitcode == GUARD_EXIT:
        return (
            f"run_sweep: the worker processes could not start: each one re-imports your script {main} "
            "(Python's 'spawn' start method) and it runs ccsim at import time, so every worker would re-run "
            'your whole script. Your script has no `if __name__ == "__main__":` guard around the code that '
            "runs: put it under one (see docs/experiments.md), or pass jobs=1 to run in this process. "
            "No run was recorded as failed."
        )
    hint = ""
    if main.endswith(".py") and not _has_main_guard(main):
        hint = f' Your script {main} has no `if __name__ == "__main__":` guard; each worker re-imports it.'
    return (
        f"run_sweep: a worker process died while starting (exit code {exitcode}); see its error above, "
        f"on standard error.{hint} Pass jobs=1 to run in this process."
    )


def _has_main_guard(path: str) -> bool:
    """Whether the script has an ``if __name__ == "__main__":`` block."""
    import ast

    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return True  # cannot tell: say nothing
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test):
            return True
    return False


class WorkerStartError(RuntimeError):
    """The pool's workers die before they can run anything (the message says why)."""


_READY = "ready"


def _worker_main(conn: Connection) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the client decides when to stop
    conn.send(_READY)  # started: the main script was imported without stopping this worker
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        out = execute(task)
        from ..analysis.results import runs_left

        if runs_left():  # a hook that no interruption stopped still spins here: retire
            out["retire"] = True
            conn.send(out)
            os._exit(0)
        conn.send(out)


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.task: dict[str, Any] | None = None
        self.started = 0.0
        self.ready = False


class Pool:
    """A fixed set of worker processes fed one task at a time."""

    name = "pool"

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or default_jobs()
        # 'spawn': a fresh interpreter per worker (forking a process that has
        # started polars' or the progress bar's threads can deadlock).
        self.ctx = mp.get_context("spawn")
        self.workers: list[_Worker] = []

    def _spawn(self) -> _Worker:
        w = _Worker(self.ctx)
        self.workers.append(w)
        return w

    def map(self, tasks: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        import time

        it = iter(tasks)
        exhausted = False
        while len(self.workers) < self.jobs:
            self._spawn()
        idle = list(self.workers)
        busy: list[_Worker] = []

        def feed() -> None:
            nonlocal exhausted
            while idle and not exhausted:
                try:
                    t = next(it)
                except StopIteration:
                    exhausted = True
                    return
                w = idle.pop()
                w.task, w.started = t, time.monotonic()
                w.conn.send(t)
                busy.append(w)

        feed()
        while busy:
            limits = [w.started + t["timeout_s"] + KILL_GRACE_S for w in busy if (t := w.task) and t.get("timeout_s")]
            wait_s = max(0.0, min(limits) - time.monotonic()) if limits else None
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=wait_s)
            now = time.monotonic()
            for w in list(busy):
                out = None
                if w.conn in ready:
                    try:
                        out = w.conn.recv()
                    except (EOFError, OSError):
                        out = None
                if out == _READY:
                    w.ready = True
                    continue
                if out is not None:
                    busy.remove(w)
                    w.task = None
                    if out.pop("retire", False):  # it left a run's thread running, and exits
                        w.proc.join()
                        self.workers.remove(w)
                        w = self._spawn()
                    idle.append(w)
                    yield out
                    continue
                task = w.task
                assert task is not None  # a busy worker holds its task
                dead = not w.proc.is_alive()
                late = task.get("timeout_s") and now > w.started + task["timeout_s"] + KILL_GRACE_S
                if dead and not w.ready:
                    w.proc.join()
                    raise WorkerStartError(guard_message(w.proc.exitcode))
                if dead or late:
                    if late and not dead:
                        w.proc.kill()
                    w.proc.join()
                    busy.remove(w)
                    self.workers.remove(w)
                    rid = task["run_id"]
                    if late:
                        err = f"timed out after {task['timeout_s']:g} s and did not stop; its worker process was killed"
                        kind = "timeout"
                    else:
                        err = f"worker process died (exit code {w.proc.exitcode}) while running it"
                        kind = "crash"
                    idle.append(self._spawn())
                    yield {"run_id": rid, "status": "failed", "kind": kind, "error": err}
            feed()

    def close(self) -> None:
        """End every worker. One still running a task (the sweep was
        interrupted or failed: nobody will read its result) is killed at
        once; an idle one is asked to exit and, with the others, given one
        shared grace of 2 s."""
        import time

        for w in self.workers:
            if w.task is not None:
                w.proc.kill()
                continue
            with contextlib.suppress(BrokenPipeError, OSError):
                w.conn.send(None)
        end = time.monotonic() + 2
        for w in self.workers:
            w.proc.join(timeout=max(0.0, end - time.monotonic()))
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join()
        self.workers = []


class Dask:
    """Tasks on a dask.distributed cluster. Workers return the results to the
    client (no shared filesystem needed); the client writes them."""

    name = "dask"

    def __init__(self, address: Any, jobs: int | None = None, fetch_timeout_s: float | None = None) -> None:
        import uuid

        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            from ..errors import ScenarioError

            raise ScenarioError(
                "--dask",
                address,
                "a Dask installation: pip install 'ccsim[cluster]' (dask, distributed, dask-jobqueue)",
            ) from None

        self.token = uuid.uuid4().hex[:12]
        self.fetch_timeout_s = FETCH_TIMEOUT_S if fetch_timeout_s is None else fetch_timeout_s
        self.cluster = None
        self.own_client = True
        if not isinstance(address, str):  # a dask.distributed.Client the caller made (and will close)
            self.client, self.own_client = address, False
        elif address == "local":
            self.cluster = LocalCluster(
                n_workers=jobs or default_jobs(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout="10s")
            except (OSError, ValueError, TypeError) as e:  # unreachable, or not an address ('bogus')
                from ..errors import ScenarioError

                raise ScenarioError(
                    "--dask",
                    message=(
                        f"--dask: cannot reach the Dask scheduler at {address!r} ({e}); expected tcp://host:8786 "
                        "of a running scheduler, or 'local'"
                    ),
                ) from None
        self.jobs = max(1, sum(self.client.nthreads().values()))
        self.shipped: set[str] = set()

    def map(self, tasks: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        from dask.distributed import as_completed

        it = iter(tasks)
        window = 2 * self.jobs  # tasks in flight: keeps the client's memory flat
        ac = as_completed()
        run_of: dict[str, str] = {}  # task key -> run id
        n = 0

        def submit(t: dict[str, Any]) -> None:
            nonlocal n
            for m in t.get("py_modules", ()):
                self._ship(m)
            # keys unique to this executor: two sweeps (two clients) may hold
            # the same run, and one releasing its key must not touch the other's
            key = f"ccsim-{self.token}-{n}-{t['run_id']}"
            run_of[key] = t["run_id"]
            ac.add(self.client.submit(execute, t, pure=False, key=key))
            n += 1

        for t in it:
            submit(t)
            if n >= window:
                break
        for fut in ac:
            out = self._fetch(fut, run_of.pop(fut.key))
            yield out
            nxt = next(it, None)
            if nxt is not None:
                submit(nxt)

    def _ship(self, module: str) -> None:
        """Upload the file of a Python algorithm's module to every worker
        (once), so workers that do not have it can import it; a module that
        is not a single file (a package, __main__) cannot be shipped, and
        the error says what to do instead."""
        if module in self.shipped:
            return
        import importlib

        path = getattr(sys.modules.get(module) or importlib.import_module(module), "__file__", None)
        if module == "__main__" or "." in module or not path or not path.endswith(".py"):
            raise ScenarioError(
                "--dask",
                message=(
                    f"--dask: the Python algorithm's module {module!r} cannot be sent to the workers (only a single "
                    f".py file can); move the class into a module file of its own, or install its package on "
                    f"every worker (pip install, or PYTHONPATH in the workers' environment)"
                ),
            )
        self.client.upload_file(os.fspath(path))
        self.shipped.add(module)

    def _fetch(self, fut: Any, run_id: str) -> dict[str, Any]:
        """The finished task's outcome; a task that failed on the cluster,
        or whose result cannot be fetched within `fetch_timeout_s`, is this
        run's failure (never a hang of the sweep)."""
        try:
            out: dict[str, Any] = fut.result(timeout=self.fetch_timeout_s)
            return out
        except TimeoutError:
            err = (
                f"Dask: the run finished on a worker but its result could not be fetched within "
                f"{self.fetch_timeout_s:g} s (worker unresponsive or unreachable); run the sweep again to retry it"
            )
            fut.cancel()
            return {"run_id": run_id, "status": "failed", "kind": "crash", "error": err}
        except Exception as e:  # noqa: BLE001 - a lost worker is this run's failure
            return {
                "run_id": run_id,
                "status": "failed",
                "kind": "crash",
                "error": f"Dask task failed: {type(e).__name__}: {e}",
            }
        finally:
            fut.release()

    def close(self) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make(executor: str | None = None, jobs: int | None = None, dask: Any = None) -> Serial | Pool | Dask:
    if dask:
        return Dask(dask, jobs)
    if executor == "serial" or jobs == 1:
        return Serial()
    return Pool(jobs)
