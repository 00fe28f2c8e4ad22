"""What a worker does with one run: simulate, encode every table as Parquet
bytes, and hand them back. The client alone writes the campaign folder, so
the result of a run is the same bytes whichever executor ran it (in-process,
a local process pool or a Dask worker on another machine).

A task is a plain dict (picklable, small): ``run_id``, ``core_json`` (the
resolved scenario) and ``timeout_s`` (None: no limit). The time limit is kept
by the core itself (a RunControl cancelled by a timer), so a timed-out run
stops within milliseconds and its worker lives on.
"""

from __future__ import annotations

import time
import traceback
from typing import Any


def execute(task: dict[str, Any]) -> dict[str, Any]:
    from .. import _core, memory
    from ..analysis.results import encode_run

    if task.get("backend") == "emulation":
        return execute_emulated(task)
    run_id = task["run_id"]
    if task.get("py_modules"):
        from .. import pyalgo

        try:
            pyalgo.preload(task["py_modules"])
        except Exception as e:  # noqa: BLE001 - the module's failure is this run's
            return _failed(run_id, "scenario", f"{type(e).__name__}: {str(e)[:300]}")
    from ..analysis.results import LEFT_RUNNING, interruptible

    timeout = task.get("timeout_s")
    ctl = memory.new_control()
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        # in a thread of its own, so that a serial sweep's Ctrl-C and a
        # timeout stop a Python hook that never returns
        raw = interruptible(lambda: _core.run(task["core_json"], ctl), ctl, timeout or None)
    except _core.RunCancelled as e:
        return _failed(
            run_id,
            "timeout",
            f"timed out after {timeout:g} s of wall time (reached {ctl.sim_time_s():.3f} simulated s)"
            + (LEFT_RUNNING if LEFT_RUNNING in str(e) else ""),
        )
    except _core.ScenarioError as e:
        return _failed(run_id, "scenario", str(e))
    except _core.InternalError as e:
        return _failed(run_id, "internal", str(e))
    except Exception as e:  # noqa: BLE001 - anything else is still this run's failure, not the sweep's
        return _failed(run_id, "internal", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}")
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {
        "run_id": run_id,
        "status": "ok",
        **_encoded(encode_run(raw["tables"])),
        "stats": {
            "events": int(raw["events"]),
            "sim_time_s": float(raw["sim_time_s"]),
            "delivered_data_pkts": int(raw["delivered_data_pkts"]),
            "wall_s": wall,
            "cpu_s": cpu,
        },
    }


def execute_emulated(task: dict[str, Any]) -> dict[str, Any]:
    """One run through the kernel's TCP (the emulation backend); the result
    has the simulator's tables plus the emulation's own (TABLES)."""
    from ..analysis.results import encode_run
    from ..emulation import EmulationError, emulate
    from ..errors import ScenarioError
    from ..scenario import Scenario

    run_id = task["run_id"]
    try:
        res = emulate(Scenario(task["raw"], source=task.get("source", "<sweep>")))
    except ScenarioError as e:
        return _failed(run_id, "scenario", str(e))
    except EmulationError as e:
        return _failed(run_id, "emulation", str(e))
    except Exception as e:  # noqa: BLE001 - this run's failure, not the sweep's
        return _failed(run_id, "internal", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}")
    return {
        "run_id": run_id,
        "status": "ok",
        **_encoded(encode_run(res.raw["tables"])),
        "stats": {
            "events": 0,
            "sim_time_s": res.sim_time_s,
            "delivered_data_pkts": res.delivered_data_pkts,
            "wall_s": res.wall_time_s,
            "cpu_s": res.cpu_time_s,
            "within_envelope": bool(res.emulation["within_envelope"]),
        },
    }


def _encoded(run: tuple[dict[str, bytes], dict[str, bytes]]) -> dict[str, Any]:
    """A result's tables: `files` with rows (stored with the run), `empty`
    without (the campaign keeps one copy of each as its schema)."""
    return {"files": run[0], "empty": run[1]}


def _failed(run_id: str, kind: str, error: str) -> dict[str, Any]:
    return {"run_id": run_id, "status": "failed", "kind": kind, "error": error}
