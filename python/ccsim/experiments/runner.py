"""Run a sweep into a campaign folder: validate every point, skip what is
already there, run the rest on an executor, record each outcome as it
arrives. See docs/experiments.md for the semantics."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ScenarioError
from . import executors
from .progress import SweepProgress, enabled
from .store import CampaignError, Store, model_tag, ok_entry, params_key, run_id
from .sweep import Sweep, SweepError


@dataclass
class SweepReport:
    total: int = 0
    existing: int = 0          # points already in the campaign (nothing computed)
    computed: int = 0          # runs simulated now
    failed: list[dict] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    sim_s: float = 0.0
    out: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.failed and not self.invalid


def validate(sweep: Sweep, *, keep_going: bool = False, limit: int = 10):
    """Resolve every point. Returns [(point index, run_id, params)] of the
    valid points and the error messages of the invalid ones; without
    `keep_going`, raise at the first invalid point."""
    good, bad = [], []
    for pt in sweep.points():
        try:
            sc = pt.scenario(source=f"{sweep.source} point {pt.index + 1}")
        except ScenarioError as e:
            err = sweep.point_error(pt, e)
            if not keep_going:
                raise err from None
            bad.append((pt, str(err)))
            continue
        good.append((pt.index, run_id(sc.core), pt.params))
    return good, bad


def run_sweep(sweep: Sweep, out: str | Path, *, jobs: int | None = None, dask: str | None = None,
              executor: str | None = None, timeout_s: float | None = None, rerun_stale: bool = False,
              keep_going: bool = False, quiet: bool = True, progress: bool | None = None) -> SweepReport:
    """Run `sweep` into the campaign folder `out` and return a report.
    Points already present are not recomputed; failures are recorded in the
    catalogue and listed in the report (they are retried by the next call)."""
    t0 = time.monotonic()
    rep = SweepReport(total=len(sweep), out=Path(out))
    good, bad = validate(sweep, keep_going=keep_going)
    store = Store(out, create=True)
    stale = store.stale_runs()
    if stale:
        if not rerun_stale:
            man = store.manifest(stale[0])
            raise CampaignError(str(out), message=(
                f"{out}: holds {len(stale)} runs made by model version {man.get('model_version')} "
                f"(ccsim {man.get('ccsim_version')}); this is model version {model_tag()['model_version']} "
                f"(ccsim {model_tag()['ccsim_version']}). Results of different models are never mixed: "
                "use --rerun-stale to move the old runs to stale/ and recompute, or another --out"))
        store.move_stale(stale)
    store.repair()
    store.add_sweep(sweep.describe())
    for pt, err in bad:
        store.append({"run_id": None, "params": pt.params, "status": "invalid", "kind": "scenario", "error": err,
                      **model_tag(), "finished_unix": time.time()})
        rep.invalid.append(err)

    latest = store.latest()
    todo: dict[str, list[tuple[int, dict]]] = {}
    for index, rid, params in good:
        key = (rid, params_key(params))
        if store.has_run(rid):
            rep.existing += 1
            if key not in latest or latest[key].get("status") != "ok":
                store.append(ok_entry(rid, params, store.manifest(rid)))
            continue
        todo.setdefault(rid, []).append((index, params))
    del latest, good

    bar = SweepProgress(len(todo), rep.existing, enabled(quiet) if progress is None else progress)
    pts_by_index = {}

    def tasks():
        # Re-resolve the points to run, lazily (memory stays flat).
        want = {ps[0][0]: rid for rid, ps in todo.items()}
        for pt in sweep.points():
            rid = want.get(pt.index)
            if rid is None:
                continue
            sc = pt.scenario(source=f"{sweep.source} point {pt.index + 1}")
            pts_by_index[rid] = (pt.params, sc)
            yield {"run_id": rid, "core_json": sc.to_core_json(), "timeout_s": timeout_s}

    ex = executors.make(executor, jobs, dask)
    try:
        for res in ex.map(tasks()):
            rid = res["run_id"]
            params, sc = pts_by_index.pop(rid)
            if res["status"] == "ok":
                man = {"run_id": rid, "params": params, "seed": sc.seed, **model_tag(),
                       "source": sc.source, "scenario": sc.raw, "resolved": sc.core, "stats": res["stats"],
                       "tables": sorted(res["files"]), "created_unix": time.time()}
                store.write_run(rid, res["files"], man)
                for _, p in todo[rid]:
                    store.append(ok_entry(rid, p, man))
                rep.computed += 1
                rep.sim_s += res["stats"]["sim_time_s"]
                bar.update(True, res["stats"]["sim_time_s"])
            else:
                for _, p in todo[rid]:
                    entry = {"run_id": rid, "params": p, "status": "failed", "kind": res["kind"],
                             "error": res["error"], **model_tag(), "finished_unix": time.time()}
                    store.append(entry)
                    rep.failed.append(entry)
                bar.update(False)
    finally:
        ex.close()
        bar.close()
        store.close()
        if store.tmp_dir.exists() and not any(store.tmp_dir.iterdir()):
            store.tmp_dir.rmdir()
    rep.wall_s = time.monotonic() - t0
    return rep


def dry_run(sweep: Sweep, out: str | Path | None = None, *, calibrate_s: float = 0.3, samples: int = 3) -> dict:
    """Count the runs, how many already exist in `out`, and estimate the CPU
    time of the rest from short calibration runs of a few points (each
    stopped after `calibrate_s` of wall time: CPU per simulated second times
    the simulated seconds to run)."""
    from .. import _core

    good, bad = validate(sweep, keep_going=True)
    existing = 0
    if out is not None and (Path(out) / "campaign.json").exists():
        st = Store(out)
        existing = sum(1 for _, rid, _ in good if st.has_run(rid))
    n_good = len(good)
    picks = sorted({round(i * (n_good - 1) / max(samples - 1, 1)) for i in range(samples)}) if n_good else []
    pick_idx = {good[i][0] for i in picks}
    del good
    rates, sim_total = [], 0.0
    for pt in sweep.points():
        try:
            sc = pt.scenario()
        except ScenarioError:
            continue
        sim_total += sc.duration_s
        if pt.index in pick_idx:
            import threading

            ctl = _core.RunControl()
            tm = threading.Timer(calibrate_s, ctl.cancel)
            tm.start()
            c0 = time.process_time()
            try:
                _core.run(sc.to_core_json(), ctl)
                reached = sc.duration_s
            except _core.RunCancelled:
                reached = ctl.sim_time_s()
            finally:
                tm.cancel()
            cpu = time.process_time() - c0
            if reached > 0:
                rates.append(cpu / reached)
    frac_todo = (len(sweep) - len(bad) - existing) / max(len(sweep) - len(bad), 1)
    est = None if not rates else sum(rates) / len(rates) * sim_total * frac_todo
    return {"runs": len(sweep), "invalid": [str(e) for _, e in bad], "existing": existing,
            "to_run": len(sweep) - len(bad) - existing, "sim_seconds": sim_total * frac_todo,
            "cpu_s_estimate": est,
            "cpu_s_per_sim_s": sorted(rates), "calibration_points": len(rates)}


def load_sweep(path: str | Path) -> Sweep:
    return Sweep.from_file(path)


__all__ = ["SweepReport", "run_sweep", "dry_run", "validate", "load_sweep", "SweepError", "CampaignError", "json"]
