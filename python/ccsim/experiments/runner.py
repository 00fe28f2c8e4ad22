"""Run a sweep into a campaign folder: validate every point, skip what is
already there, run the rest on an executor, record each outcome as it
arrives. See docs/experiments.md for the semantics."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._spawn import refuse_in_bootstrap
from ..errors import ScenarioError
from . import executors
from .progress import SweepProgress, enabled
from .store import CampaignError, Store, model_tag, ok_entry, params_key, run_id
from .sweep import Point, Sweep, SweepError

if TYPE_CHECKING:
    from ..scenario import Scenario

# a sweep point with its scenario, or the error that refused it (neither: a
# point yielded unresolved)
Resolved = tuple[Point, "Scenario | None", SweepError | None]


@dataclass
class SweepReport:
    total: int = 0
    existing: int = 0  # points already in the campaign (nothing computed)
    computed: int = 0  # runs simulated now
    failed: list[dict[str, Any]] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    sim_s: float = 0.0
    out: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.invalid

    def summary(self) -> str:
        """One line of counts, then the first error of each kind of failure
        (with how many runs failed that way and the point's parameters)."""
        head = (
            f"{self.total} runs: {self.computed} computed, {self.existing} already there, "
            f"{len(self.failed)} failed, {len(self.invalid)} invalid; {self.wall_s:.1f} s wall"
            + (f"; results in {self.out}/" if self.out is not None else "")
        )
        lines = [head]
        kinds: dict[str, list[dict[str, Any]]] = {}
        for e in self.failed:
            kinds.setdefault(e["kind"], []).append(e)
        for kind, es in kinds.items():
            e = es[0]
            params = ", ".join(f"{k}={v!r}" for k, v in e["params"].items())
            lines.append(
                f"  {kind}: {len(es)} run{'s' if len(es) > 1 else ''}; first {e['run_id']} ({params}): "
                f"{e['error'].splitlines()[0] if e['error'] else ''}"
            )
        if self.invalid:
            lines.append(
                f"  invalid: {len(self.invalid)} point{'s' if len(self.invalid) > 1 else ''}; first: {self.invalid[0]}"
            )
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SweepReport {self.summary()}>"

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(self.summary())}</pre>"


class SweepFailed(RuntimeError):
    """A sweep in which some runs failed or some points were invalid (raised
    by :func:`run_sweep` unless ``keep_going=True``). Every finished run is
    in the campaign; ``e.report`` is the :class:`SweepReport`."""

    def __init__(self, report: SweepReport) -> None:
        n = len(report.failed) + len(report.invalid)
        super().__init__(
            f"{n} of {report.total} runs did not produce results (keep_going=True returns the report "
            f"instead of raising; the next call retries them):\n{report.summary()}"
        )
        self.report = report


# Scenarios validation resolved, kept for dispatch so that a small point is
# resolved once (about 1.5 ms of Python each): at most this many flows, UDP
# sources and links in all, so memory stays bounded whatever the sweep's size.
KEEP_ELEMENTS = 50_000
# A point too large to keep whose scenario has at least this many elements
# keeps its run id instead (tens of bytes): resolving it again takes about a
# second for a mix of 15,000 web flows, and a run already stored needs no
# second resolution at all.
LARGE_ELEMENTS = 1_000


class _Kept:
    """Resolved scenarios by point index, within KEEP_ELEMENTS; the run ids
    of large points that did not fit."""

    def __init__(self, backend: str = "sim") -> None:
        self.by_index: dict[int, Any] = {}
        self.rid: dict[int, str] = {}
        self.room = KEEP_ELEMENTS
        self.backend = backend

    def offer(self, index: int, sc: Scenario) -> None:
        n = len(sc.core["flows"]) + len(sc.core["udp"]) + len(sc.core["links"])
        if n <= self.room:
            self.by_index[index] = sc
            self.room -= n
        elif n >= LARGE_ELEMENTS:
            self.rid[index] = run_id(sc.core, self.backend)


def _resolved(
    sweep: Sweep,
    kept: _Kept | None = None,
    *,
    keep: bool = False,
    skip: Callable[[int], bool] | None = None,
    points: Iterable[Point] | None = None,
) -> Iterator[Resolved]:
    """(point, scenario or None, error or None) for every point (or those of
    `points`), lazily. In
    an emulation sweep, a point the emulation backend cannot run is invalid
    (the message names each feature). `kept`: scenarios resolved before,
    taken from it (`keep=False`) or offered to it (`keep=True`). A point
    whose index `skip` accepts is yielded unresolved, as (point, None, None)."""
    for pt in sweep.points() if points is None else points:
        if kept is not None and not keep and pt.index in kept.by_index:
            yield pt, kept.by_index.pop(pt.index), None
            continue
        if skip is not None and skip(pt.index):
            yield pt, None, None
            continue
        try:
            sc = pt.scenario(source=f"{sweep.source} point {pt.index + 1}", code=sweep.code)
        except ScenarioError as e:
            yield pt, None, sweep.point_error(pt, e)
            continue
        if sweep.backend == "emulation":
            from ..emulation import check_supported

            bad = check_supported(sc.core, sc.raw)
            if bad:
                yield pt, None, sweep.point_error(pt, ScenarioError("emulation", message="; ".join(bad)))
                continue
        if kept is not None and keep:
            kept.offer(pt.index, sc)
        yield pt, sc, None


class _NoEffect:
    """The sweep's axes must act: before anything runs, an axis that a flow
    group's own setting replaces at every point (`tcp.cc` beside a group's
    `cc`), and two points whose axis values differ but whose resolved
    scenarios are identical, are errors naming the axis. Checked on the
    resolved scenarios (their run ids), so it holds for any setting, not
    only those with a known more specific one. Keeps a run id per point
    (tens of bytes) and point 0's scenario."""

    def __init__(self, sweep: Sweep, kept: _Kept | None = None) -> None:
        self.sweep = sweep
        self.kept = kept
        self.names = [n for n in sweep.axis_names() if n != "seed"]
        self.shadowed: dict[str, list[str] | None] = dict.fromkeys(self.names)
        self.first: dict[str, int] = {}
        self.point0: tuple[Any, Any] | None = None

    def check(self, items: Iterable[Resolved]) -> Iterator[Resolved]:
        for pt, sc, err in items:
            if sc is not None:
                self._see(pt, sc)
            yield pt, sc, err
        self._finish()

    def _see(self, pt: Point, sc: Scenario) -> None:
        from ..scenario.resolve import overridden_by

        if self.point0 is None:
            self.point0 = (pt, sc)
        for n in self.names:
            if self.shadowed[n] != []:
                self.shadowed[n] = overridden_by(pt.raw, n)
        rid = (self.kept.rid.get(pt.index) if self.kept else None) or run_id(sc.core, self.sweep.backend)
        j = self.first.setdefault(rid, pt.index)
        if j == pt.index:
            return
        other = self.sweep.point_at(j)
        differ = [n for n in self.names if other.params.get(n) != pt.params.get(n)]
        if not differ:
            return  # a value listed twice: one run serves both points
        self._refuse_shadowed(pt, sc, differ)
        say = "; ".join(f"{n} = {other.params[n]!r} and {pt.params[n]!r}" for n in differ)
        raise SweepError(
            differ[0],
            message=(
                f"sweep points {j + 1} and {pt.index + 1} of {len(self.sweep)} differ only in {say}, but resolve to "
                f"the identical scenario: {'that axis has' if len(differ) == 1 else 'those axes have'} no effect "
                f"there, so their results would be one run's under two names. Remove the axis, or change what "
                f"replaces it ({_fmt_params(pt.params)})"
            ),
        )

    def _refuse_shadowed(self, pt: Point, sc: Scenario, names: list[str]) -> None:
        from ..errors import ScenarioError
        from ..scenario.resolve import refuse_overridden

        for n in names:
            try:
                refuse_overridden(pt.raw, n, pt.params[n], sc.core, "sweep axis", sc.source, sc.code)
            except ScenarioError as e:
                raise SweepError(n, message=f"{self.sweep.source}: axis {n!r}: {e}") from None

    def _finish(self) -> None:
        if self.point0 is None:
            return
        pt, sc = self.point0
        self._refuse_shadowed(pt, sc, [n for n, s in self.shadowed.items() if s])


def _algorithm_modules(core: dict[str, Any]) -> dict[str, str | None]:
    """The modules of the Python algorithms a resolved scenario runs, each
    with the file a scenario file's reference loaded it from (a worker
    process loads it from there, `pyalgo.preload`; a Dask executor ships
    the file to its workers)."""
    from .. import pyalgo

    seen: dict[int, None] = {}
    out: dict[str, None] = {}
    for f in core["flows"]:
        t = f["tcp"]
        if id(t) in seen:
            continue
        seen[id(t)] = None
        ext = t.get("cc_external")
        if ext and ":" in ext.get("source", ""):
            out[ext["source"].split(":", 1)[0]] = None
    return pyalgo.module_files(list(out))


def _fmt_params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def validate(sweep: Sweep, *, keep_going: bool = False, kept: _Kept | None = None) -> list[tuple[Any, ...]]:
    """Resolve every point, keeping the invalid ones (and, in `kept`, as
    many resolved scenarios as it has room for): returns [(point, error)];
    without `keep_going`, raise at the first invalid point. An axis with no
    effect (`_NoEffect`) is an error whatever `keep_going` says."""
    bad = []
    for pt, _sc, err in _NoEffect(sweep, kept).check(_resolved(sweep, kept, keep=True)):
        if err is not None:
            if not keep_going:
                raise err from None
            bad.append((pt, err))
    return bad


def _read_only_sweep(sweep: Sweep, out: Path, rep: SweepReport, bad: list[Any], t0: float) -> SweepReport:
    """A sweep over a campaign that cannot be written (read-only media, no
    permission): it succeeds, writing nothing, when every run is already
    there and made by this model; otherwise it stops with one line saying how
    many runs are missing or stale."""
    store = Store(out, readonly=True)
    stale = store.stale_runs()
    missing = 0
    for _pt, sc, err in _resolved(sweep):
        if err is not None or sc is None:
            continue
        if store.has_run(run_id(sc.core, sweep.backend)):
            rep.existing += 1
        else:
            missing += 1
    if missing or stale:
        raise CampaignError(
            str(out),
            message=(
                f"{out}: cannot be written (read-only media or no permission), and "
                + (f"{missing} of its {len(sweep)} runs are not there" if missing else "")
                + (" and " if missing and stale else "")
                + (f"{len(stale)} runs were made by another model version" if stale else "")
                + "; copy the campaign to writable storage to compute them"
            ),
        )
    rep.invalid = [str(err) for _, err in bad]
    rep.warnings.append(f"{out} is read-only: every run was already there; nothing was written")
    rep.wall_s = time.monotonic() - t0
    return rep


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    jobs: int | None = None,
    dask: Any = None,
    executor: str | None = None,
    timeout_s: float | None = None,
    rerun_stale: bool = False,
    keep_going: bool = False,
    quiet: bool = True,
    progress: bool | None = None,
) -> SweepReport:
    """Run `sweep` into the campaign folder `out` and return a report.
    Points already present are not recomputed; failures are recorded in the
    catalogue (they are retried by the next call).

    If any run failed, raise :class:`SweepFailed` (its message is the
    report's summary: counts and the first error of each kind) after every
    other run has finished and been stored. With ``keep_going=True``, invalid
    points are recorded instead of refused up front, and the report is
    returned whatever failed: check ``report.ok``.

    The default executor is a pool of worker processes started with 'spawn':
    each imports your main script again, so a script must keep the code that
    runs under ``if __name__ == "__main__":`` (a worker that meets
    ccsim work while importing stops, and this raises
    :class:`ccsim.experiments.executors.WorkerStartError` saying so).

    Memory stays flat in the number of points: the points are enumerated
    twice (validation, then dispatch), lazily, and only runs in flight are
    held, with the scenarios validation resolved kept for dispatch up to
    `KEEP_ELEMENTS` flows and links in all; the structures that grow are
    a set of hashes of the catalogue's (run, point) keys and the run ids of
    the large points not kept (tens of bytes per point), by which a large
    point already stored is not resolved a second time."""
    refuse_in_bootstrap("run_sweep")
    executors.check_jobs("jobs", jobs, dask)
    t0 = time.monotonic()
    rep = SweepReport(total=len(sweep), out=Path(out))
    kept = _Kept(sweep.backend)
    bad = validate(sweep, keep_going=keep_going, kept=kept)
    if (Path(out) / "campaign.json").exists() and not os.access(out, os.W_OK):
        return _read_only_sweep(sweep, Path(out), rep, bad, t0)
    store = Store(out, create=True)
    try:
        stale = store.stale_runs()
        if stale:
            if not rerun_stale:
                man = store.summary(stale[0])
                raise CampaignError(
                    str(out),
                    message=(
                        f"{out}: holds {len(stale)} runs made by model version {man.get('model_version')} "
                        f"(ccsim {man.get('ccsim_version')}); this is model version {model_tag()['model_version']} "
                        f"(ccsim {model_tag()['ccsim_version']}). Results of different models are never mixed: "
                        "use --rerun-stale to move the old runs to stale/ and recompute, or another --out"
                    ),
                )
            store.move_stale(stale)
        store.repair()
        store.add_sweep(sweep.describe())
        for pt, err in bad:
            store.append(
                {
                    "run_id": None,
                    "params": pt.params,
                    "status": "invalid",
                    "kind": "scenario",
                    "error": str(err),
                    **model_tag(),
                    "finished_unix": time.time(),
                }
            )
            rep.invalid.append(str(err))
        catalogued = {hash((e["run_id"], params_key(e["params"]))) for e in store.entries() if e.get("status") == "ok"}
        n_bad = len(bad)
        del bad

        show = enabled(quiet) if progress is None else progress
        bar = SweepProgress(rep.total - n_bad, show)
        inflight: dict[str, tuple[list[dict[str, Any]], Scenario]] = {}  # run_id -> (points' params, scenario)

        def existing(rid: str, params: dict[str, Any]) -> None:
            rep.existing += 1
            if hash((rid, params_key(params))) not in catalogued:
                store.append(ok_entry(rid, params, store.summary(rid)))
            bar.update(True)

        def known(index: int) -> bool:
            """A large point whose run validation identified is stored or
            in flight: no second resolution."""
            rid = kept.rid.get(index)
            return rid is not None and (rid in inflight or store.has_run(rid))

        def tasks() -> Iterator[dict[str, Any]]:
            for pt, sc, err in _resolved(sweep, kept, skip=known):
                if err is not None:
                    continue
                if sc is None:  # `known`
                    rid = kept.rid.pop(pt.index)
                    if rid in inflight:
                        inflight[rid][0].append(pt.params)
                    else:
                        existing(rid, pt.params)
                    continue
                rid = kept.rid.pop(pt.index, "") or run_id(sc.core, sweep.backend)
                if rid in inflight:  # another point resolved to the same run: record it with that run
                    inflight[rid][0].append(pt.params)
                elif store.has_run(rid):
                    existing(rid, pt.params)
                else:
                    inflight[rid] = ([pt.params], sc)
                    task: dict[str, Any] = {"run_id": rid, "core_json": sc.to_core_json(), "timeout_s": timeout_s}
                    modules = _algorithm_modules(sc.core)
                    if modules:
                        task["py_modules"] = modules
                    if sweep.backend != "sim":
                        task.update(backend=sweep.backend, raw=sc.raw, source=sc.source)
                    yield task

        if sweep.backend == "emulation":
            # The machine is the instrument: one emulated run at a time, in this
            # process (it needs root; docs/emulation.md).
            if dask:
                raise CampaignError(
                    "dask",
                    message="an emulation sweep runs on this machine, one run at a time; "
                    "--dask is not accepted (run the sweep on each machine instead)",
                )
            from ..emulation import available

            why = available()
            if why:
                raise CampaignError("backend", message=f"backend 'emulation': {why}")
            executor, jobs = "serial", 1
        ex = executors.make(executor, jobs, dask)
        try:
            for res in ex.map(tasks()):
                rid = res["run_id"]
                points, sc = inflight.pop(rid)
                if res["status"] == "ok":
                    man = {
                        "run_id": rid,
                        "params": points[0],
                        "seed": sc.seed,
                        **model_tag(),
                        "source": sc.source,
                        "scenario": sc.raw,
                        "resolved": sc.core,
                        "stats": res["stats"],
                        "tables": sorted(res["files"]),  # those with rows
                        "created_unix": time.time(),
                    }
                    store.write_run(rid, res["files"], man, res.get("empty"))
                    for p in points:
                        store.append(ok_entry(rid, p, man))
                    rep.computed += 1
                    rep.sim_s += res["stats"]["sim_time_s"]
                    bar.update(True, res["stats"]["sim_time_s"])
                else:
                    for p in points:
                        entry = {
                            "run_id": rid,
                            "params": p,
                            "status": "failed",
                            "kind": res["kind"],
                            "error": res["error"],
                            **model_tag(),
                            "finished_unix": time.time(),
                        }
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
        if len(sweep) > 1:
            import warnings

            digests = _result_digests(sweep, Store(out, readonly=True), measured=bool(sweep.axes or sweep.zips))
            w = identical_seeds(sweep, Store(out, readonly=True), digests) if len(sweep.seeds) > 1 else None
            if w:
                rep.warnings.append(w)
                warnings.warn(w, IdenticalSeedsWarning, stacklevel=2)
            for w in inert_axes(sweep, Store(out, readonly=True), digests):
                rep.warnings.append(w)
                warnings.warn(w, InertAxisWarning, stacklevel=2)
        if not rep.ok and not keep_going:
            raise SweepFailed(rep)
        return rep
    finally:
        store.close()
        store.release()


class IdenticalSeedsWarning(UserWarning):
    """Several seeds of a sweep point gave the same results: the scenario has
    no random element, so repetitions add no information."""


SEED_HINT = (
    "a seed changes only what is drawn at random; to make repetitions differ, add a random element: "
    'drawn start times (flows start = {dist = "uniform", min = "0s", max = "1s"}), per-flow RTTs '
    'drawn from a distribution (flows rtt = {dist = "uniform", ...}), random loss (topology.loss), '
    "a queue with random drops (RED, PIE) or random traffic (web, onoff, repeat with drawn sizes); "
    "otherwise use seeds = 1"
)


Digests = list[tuple[dict[str, Any], bytes, bytes]]


def _result_digests(sweep: Sweep, store: Store, *, measured: bool = True) -> Digests:
    """(params, digest of the per-flow and per-link tables, digest of their
    measured columns only) of every point of `sweep` with a stored result;
    a run shared by several points is read once. The measured digest leaves
    out the columns that repeat the scenario (the core's *_ECHO_COLUMNS: a
    link's configured limit differs between two values of a buffer axis
    however the runs went); b"" for it when not `measured`."""
    import hashlib

    import pyarrow.parquet as pq

    from .. import _core

    echo = {"flows": set(_core.FLOW_ECHO_COLUMNS), "links": set(_core.LINK_ECHO_COLUMNS)}
    mine = {params_key(pt.params) for pt in sweep.points()}
    by_run: dict[str, tuple[bytes, bytes]] = {}
    out = []
    for e in store.latest().values():
        if e.get("status") != "ok" or params_key(e["params"]) not in mine:
            continue
        rid = e["run_id"]
        if rid not in by_run:
            whole, behaviour = hashlib.sha256(), hashlib.sha256()
            for t in ("flows", "links"):
                f = store.run_dir(rid) / f"{t}.parquet"
                if f.exists():
                    whole.update(f.read_bytes())
                    if not measured:
                        continue
                    table = pq.read_table(f)
                    for name in table.column_names:
                        if name not in echo[t]:
                            behaviour.update(f"{t}.{name}".encode())
                            behaviour.update(repr(table.column(name).to_pylist()).encode())
            by_run[rid] = (whole.digest(), behaviour.digest() if measured else b"")
        out.append((e["params"], *by_run[rid]))
    return out


def identical_seeds(sweep: Sweep, store: Store, digests_of: Digests | None = None) -> str | None:
    """A warning when some sweep point gave byte-identical per-flow and
    per-link tables for every one of its seeds (None otherwise). Judged from
    the results, not from a list of random features: exact, and it cannot
    fall behind the scenario format."""
    digests: dict[str, list[bytes]] = {}
    for params, d, _ in _result_digests(sweep, store) if digests_of is None else digests_of:
        key = params_key({k: v for k, v in params.items() if k != "seed"})
        digests.setdefault(key, []).append(d)
    judged = [k for k, ds in digests.items() if len(ds) >= 2]
    same = [k for k in judged if len(set(digests[k])) == 1]
    if not same:
        return None
    who = "every point" if len(same) == len(judged) else f"{len(same)} of {len(judged)} points"
    where = "" if sweep.source.startswith("<") else f"{sweep.source}: "
    return (
        f"{where}{who} gave identical results for each of its {len(sweep.seeds)} seeds, so their "
        f"confidence intervals have zero width and say nothing about variability: {SEED_HINT}"
    )


class InertAxisWarning(UserWarning):
    """Every value of a sweep axis gave byte-identical results at every
    other point: the setting did not act on these runs."""


def inert_axes(sweep: Sweep, store: Store, digests_of: Digests | None = None) -> list[str]:
    """One warning per axis (a zip group counts as one) whose different
    values gave byte-identical per-flow and per-link tables at every
    combination of the other axes and the seed where at least two of its
    values ran: e.g. a RED mark_p that the average queue never reaches. The
    axis changed the scenario (the run ids differ) but not the results."""
    digests = _result_digests(sweep, store) if digests_of is None else digests_of
    units = [[a] for a in sweep.axes] + [list(z) for z in sweep.zips]
    out = []
    for unit in units:
        rest_names = [n for n in sweep.axis_names() if n not in unit and n not in sweep.derived]
        groups: dict[str, dict[str, bytes]] = {}
        for params, _, d in digests:
            rest = params_key({n: params.get(n) for n in rest_names})
            groups.setdefault(rest, {})[params_key({n: params.get(n) for n in unit})] = d
        judged = [g for g in groups.values() if len(g) >= 2]
        if not judged or any(len(set(g.values())) > 1 for g in judged):
            continue
        name = " + ".join(unit)
        values = [list(z.values()) for z in sweep.zips if list(z) == unit]
        shown = sweep.axes[unit[0]] if len(unit) == 1 else list(zip(*values[0]))
        where = "" if sweep.source.startswith("<") else f"{sweep.source}: "
        out.append(
            f"{where}axis {name}: its values {', '.join(map(repr, shown))} gave byte-identical per-flow and "
            f"per-link results at {_each(len(judged))} of the other axes and seeds, so the "
            "setting did not act on these runs (e.g. a RED threshold the queue never reaches); a comparison "
            "across this axis shows nothing"
        )
    return out


def _each(n: int) -> str:
    return "the one combination" if n == 1 else f"each of the {n} combinations"


# A dry run validates at most this many points; a larger sweep is sampled
# evenly (10^6 seeds are counted and estimated in seconds, not expanded).
DRY_RUN_POINTS = 2000


def dry_run(
    sweep: Sweep,
    out: str | Path | None = None,
    *,
    calibrate_s: float = 0.3,
    samples: int = 3,
    max_points: int = DRY_RUN_POINTS,
) -> dict[str, Any]:
    """Count the runs, how many already exist in `out`, and estimate the CPU
    time of the rest from short calibration runs of `samples` points still to
    run (spread over the sweep; each stopped after `calibrate_s` of wall
    time): the mean CPU per simulated second times the simulated seconds to run.
    A sweep of more than `max_points` points is judged on an even sample of
    that many (`sampled`, `validated`): its counts and time are the sample's
    scaled to the sweep, its invalid points those the sample met."""
    from .. import _core

    n = len(sweep)
    sampled = n > max_points
    order = sorted({round(i * (n - 1) / (max_points - 1)) for i in range(max_points)}) if sampled else list(range(n))
    m = len(order)
    picks = {order[round(i * (m - 1) / max(samples - 1, 1))] for i in range(samples)}
    st = Store(out, readonly=True) if out is not None and (Path(out) / "campaign.json").exists() else None
    bad, existing, rates, sim_total, owed = [], 0, [], 0.0, 0
    pts = (sweep.point_at(i) for i in order) if sampled else None
    for pt, sc, err in _NoEffect(sweep).check(_resolved(sweep, points=pts)):
        owed += pt.index in picks  # a calibration is due; done on the next point still to run
        if err is not None:
            bad.append((pt, err))
            continue
        assert sc is not None  # without `skip`, a point comes resolved or with its error
        if st is not None and st.has_run(run_id(sc.core, sweep.backend)):
            existing += 1
            continue
        sim_total += sc.duration_s
        if owed and sweep.backend == "sim":
            from ..analysis.results import interruptible

            owed -= 1
            ctl = _core.RunControl()
            c0 = time.process_time()
            try:
                # a thread of its own: a Python hook that never returns is stopped too
                interruptible(functools.partial(_core.run, sc.to_core_json(), ctl), ctl, calibrate_s)
                reached = sc.duration_s
            except _core.RunCancelled:
                reached = ctl.sim_time_s()
            cpu = time.process_time() - c0
            if reached > 0:
                rates.append(cpu / reached)
    scale = n / m
    sim_total *= scale
    existing_n, bad_n = round(existing * scale), round(len(bad) * scale)
    est = None if not rates else sum(rates) / len(rates) * sim_total
    if sweep.backend == "emulation":
        # real time: each run lasts its duration (file transfers stop early)
        # plus about a second of namespace set-up
        est = sim_total + 1.0 * (n - bad_n - existing_n)
    return {
        "runs": n,
        "invalid": [str(e) for _, e in bad],
        "invalid_estimate": bad_n,
        "existing": existing_n,
        "backend": sweep.backend,
        "to_run": n - bad_n - existing_n,
        "sim_seconds": sim_total,
        "cpu_s_estimate": est,
        "cpu_s_per_sim_s": sorted(rates),
        "calibration_points": len(rates),
        "sampled": sampled,
        "validated": m,
    }


__all__ = [
    "SweepReport",
    "SweepFailed",
    "IdenticalSeedsWarning",
    "InertAxisWarning",
    "run_sweep",
    "dry_run",
    "validate",
    "SweepError",
    "CampaignError",
]
