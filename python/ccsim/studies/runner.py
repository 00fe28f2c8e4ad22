"""Running studies: ``ccsim study list | NAME | all``.

Each study is a module of this package (set-up, figures, claims; see
:mod:`ccsim.studies.base`). :func:`run_study` runs its experiments as
campaigns under ``OUT/MODE/campaigns/`` (resumable: only missing runs are
computed), evaluates every claim, draws the figures and writes the report
(``report.html``, self-contained, and ``report.md``) into ``OUT/MODE/``.
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from .base import MODES, Claim, Study, StudyData, StudyOutcome, Verdict, with_stability
from .counterfactual import answer as counterfactual_answer

if TYPE_CHECKING:
    from ..experiments.sweep import Sweep
    from .kit import Plan

# name -> module (in the order of the index page)
REGISTRY = {
    "red_ecn": ".red_ecn",
    "asymmetric": ".asymmetric",
    "westwood": ".westwood",
    "pacing": ".pacing",
    "initial_window": ".initial_window",
}


class StudyError(ScenarioError):
    """A bad study name, mode or option."""


def get(name: str) -> Study:
    if name not in REGISTRY:
        raise StudyError("study", name, f"one of {', '.join(REGISTRY)} (or 'all', 'list')")
    study: Study = importlib.import_module(REGISTRY[name], __package__).STUDY
    return study


def names() -> list[str]:
    return list(REGISTRY)


def run_study(
    name: str | Study,
    mode: str = "quick",
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    dask: Any = None,
    quiet: bool = True,
) -> StudyOutcome:
    """Run study `name` (a registered name or a Study object) in `mode`
    (smoke, quick, full) into `out` (default results/studies/NAME) and write
    its report."""
    from ..experiments.campaign import open_campaign
    from ..experiments.runner import SweepFailed, run_sweep
    from .report import write_report

    if mode not in MODES:
        raise StudyError("mode", mode, f"one of {', '.join(MODES)}")
    study = name if isinstance(name, Study) else get(name)
    name = study.name
    root = (Path(out) if out is not None else Path("results") / "studies" / name) / mode
    root.mkdir(parents=True, exist_ok=True)
    w0, c0 = time.perf_counter(), _cpu()
    plan = _plan(study, mode)
    exps = study.experiments(plan)
    if plan.experiments is not None:
        exps = [e for e in exps if e.name in plan.experiments]
    campaigns, runs, computed, failed = {}, 0, 0, 0
    for e in exps:
        _retire_stale(root / "campaigns" / e.name, e.sweep)
        try:
            # runs of an older model version are moved to stale/ and recomputed: a study's report
            # always describes the model that wrote it
            rep = run_sweep(e.sweep, root / "campaigns" / e.name, jobs=jobs, dask=dask, quiet=quiet, rerun_stale=True)
        except SweepFailed as err:  # raised again below as this study's error
            rep = err.report
        runs += rep.total
        computed += rep.computed
        failed += len(rep.failed) + len(rep.invalid)
        if not rep.ok:
            first = rep.failed[0]["error"] if rep.failed else rep.invalid[0]
            raise StudyError(
                f"{name}.{e.name}",
                message=(
                    f"study {name}: experiment {e.name}: {len(rep.failed)} runs failed and {len(rep.invalid)} were "
                    f"invalid; first: {first}. Finished runs are kept in {root / 'campaigns' / e.name}"
                ),
            )
        campaigns[e.name] = open_campaign(root / "campaigns" / e.name)
    data = StudyData(mode=mode, plan=plan, campaigns=campaigns)
    verdicts = []
    per_seed: dict[int, StudyData] = {}  # one seed's data, shared by the claims
    for cl in study.claims():
        if plan.claims is not None and cl.id not in plan.claims:
            continue
        data.accessed = set()
        v = cl.evaluate(data)
        if v.claim != cl.id:
            raise RuntimeError(f"study {name}: claim {cl.id} returned a verdict for {v.claim}")
        # the seeds common to the multi-seed experiments this claim read
        seeds = data.seeds(data.accessed)
        if len(seeds) > 1:
            for s in seeds:
                per_seed.setdefault(s, data.for_seed(s))
            v = with_stability(v, {s: _evaluate_or_none(cl, per_seed[s]) for s in seeds})
        v.counterfactual = counterfactual_answer(cl, data, v)
        verdicts.append(v)
    figdir = root / "figures"
    figdir.mkdir(exist_ok=True)
    # a points run holds some experiments only, which the study's figures do not expect
    figures = study.figures(data, figdir) if plan.claims is None else []
    run_cpu = sum(float(c.ok_runs["cpu_s"].fill_null(0.0).sum()) for c in campaigns.values())
    wall = time.perf_counter() - w0
    cpu = _cpu() - c0
    timing = {"wall_s": wall, "cpu_s": cpu, "runs": runs, "computed_now": computed, "run_cpu_s": run_cpu, "jobs": jobs}
    html, md = write_report(study, data, verdicts, figures, timing, root)
    (root / "claims.json").write_text(
        json.dumps(
            [
                {
                    "claim": v.claim,
                    "verdict": v.verdict,
                    "reason": v.reason,
                    "why": v.why,
                    "counterfactual": v.counterfactual,
                    "measured": v.measured,
                    "stability": v.stability,
                }
                for v in verdicts
            ],
            indent=2,
            default=str,
        )
    )
    return StudyOutcome(
        name, study.title, study.cite, mode, root, verdicts, runs, computed, failed, wall, cpu, html, md
    )


def _plan(study: Study, mode: str) -> Plan:
    """The study's plan for `mode`; a points plan must name claims and
    experiments the study has."""
    try:
        plan = study.plan(mode)
    except ValueError:
        if mode != "points":
            raise
        raise StudyError(
            "mode",
            mode,
            f"smoke, quick or full: study {study.name} has no points plan (its full mode is affordable); "
            f"studies with one: {', '.join(with_points())}",
        ) from None
    ids = [c.id for c in study.claims()]
    for field_, names_, known in (
        ("claims", plan.claims, ids),
        ("experiments", plan.experiments, [e.name for e in study.experiments(plan)]),
    ):
        bad = [n for n in names_ or () if n not in known]
        if bad:
            raise StudyError(f"{study.name}.plan({mode!r}).{field_}", ", ".join(bad), f"some of {', '.join(known)}")
    return plan


def with_points() -> list[str]:
    """The studies that have a points plan."""
    out = []
    for n in names():
        try:
            get(n).plan("points")
        except ValueError:
            continue
        out.append(n)
    return out


def _evaluate_or_none(claim: Claim, data: StudyData) -> Verdict | None:
    """A claim evaluated on one seed's results, or None when its rule needs
    cells that seed's results do not have (a lookup that finds nothing)."""
    import polars as pl

    try:
        return claim.evaluate(data)
    except (KeyError, IndexError, ValueError, ZeroDivisionError, pl.exceptions.ColumnNotFoundError):
        return None


def _sweep_digest(sweep: Sweep) -> str:
    """A digest of every scenario a sweep runs (seeds included)."""
    import hashlib

    from ..experiments.sweep import canonical_json

    h = hashlib.sha256()
    if getattr(sweep, "backend", "sim") != "sim":
        from ..emulation import EMU_VERSION

        h.update(canonical_json({"backend": sweep.backend, "emu_version": EMU_VERSION}).encode())
    for p in sweep.points():
        h.update(canonical_json({"params": dict(p.params.items()), "raw": p.raw}).encode())
    return h.hexdigest()[:16]


def _retire_stale(folder: Path, sweep: Sweep) -> None:
    """A study reads every run of its experiment folders, so runs of an
    earlier plan (another mode's durations, a changed sweep) must not stay
    beside the current ones: if the folder was made for other points, it is
    renamed to FOLDER.stale-<digest> (kept, never deleted) and the
    experiment starts afresh. Re-running the same plan resumes."""
    mark = folder.with_name(f"{folder.name}.points")  # beside the campaign folder, not inside it
    digest = _sweep_digest(sweep)
    old = mark.read_text().strip() if mark.exists() else "unmarked"
    if folder.exists() and old != digest:
        dest = folder.with_name(f"{folder.name}.stale-{old}")
        n = 1
        while dest.exists():
            dest = folder.with_name(f"{folder.name}.stale-{old}-{n}")
            n += 1
        folder.rename(dest)
    folder.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text(digest + "\n")


def _cpu() -> float:
    """User + system CPU seconds of this process and its reaped children (the
    sweep's worker processes once the pool has closed)."""
    import resource

    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def run_all(
    mode: str = "quick",
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    dask: Any = None,
    quiet: bool = True,
    only: list[str] | None = None,
) -> tuple[list[StudyOutcome], Path]:
    """Run every registered study (or `only` those; in mode "points", every
    study that has a points plan) and write an index page linking the
    reports with their claim counts."""
    from .report import write_index

    base = Path(out) if out is not None else Path("results") / "studies"
    # "points" exists for the studies whose full mode is too long to run whole
    every = with_points() if mode == "points" else names()
    outcomes = [run_study(n, mode, base / n, jobs=jobs, dask=dask, quiet=quiet) for n in (only or every)]
    return outcomes, write_index(outcomes, base, mode)


__all__ = ["run_study", "run_all", "get", "names", "with_points", "StudyOutcome", "StudyError", "MODES"]
