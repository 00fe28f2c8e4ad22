"""Command line: ``ccsim run | sweep | study | query | plot-sweep | plot | bench | list``.

Errors print one line (``ccsim: error: ...``) on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from .. import _core
from ..errors import EmulationError, InternalError, ScenarioError
from .cli_figures import _plot_formats, _sweep_plots, cmd_plot, cmd_plot_sweep
from .table import fmt_table as _fmt_table


def _count(v: Any) -> int | str:
    """An integer count, or '-' where the backend could not measure it (NaN)."""
    v = float(v)
    return "-" if math.isnan(v) else int(v)


def _print_summary(res: Any) -> None:
    f = res.columns["flows"]
    rows = []
    for i in range(len(f["id"])):
        fct = float(f["fct_s"][i])
        rows.append(
            [
                int(f["id"][i]),
                f["src"][i],
                f["dst"][i],
                f["cc"][i],
                f"{f['goodput_bps'][i] / 1e6:.3f}",
                f"{f['throughput_bps'][i] / 1e6:.3f}",
                int(f["retransmits"][i]),
                _count(f["timeouts"][i]),
                "-" if math.isnan(fct) else f"{fct:.3f}",
            ]
        )
    print(
        _fmt_table(["flow", "src", "dst", "cc", "goodput_Mbps", "throughput_Mbps", "retx", "timeouts", "fct_s"], rows)
    )
    lk = res.columns["links"]
    idx = [i for i in range(len(lk["name"])) if lk["drops"][i] + lk["losses"][i] > 0 or lk["utilization"][i] > 0.01]
    idx = sorted(idx, key=lambda i: -lk["utilization"][i])[:10]
    print()
    print(
        _fmt_table(
            ["link", "utilization", "drops", "losses", "max_queue_pkts"],
            [
                [
                    lk["name"][i],
                    f"{lk['utilization'][i]:.4f}",
                    int(lk["drops"][i]),
                    int(lk["losses"][i]),
                    int(lk["max_queue_pkts"][i]),
                ]
                for i in idx
            ],
        )
    )
    if getattr(res, "emulation", None) is not None:
        print(
            f"\nemulated {res.sim_time_s:g} s through the kernel's TCP in {res.wall_time_s:.2f} s wall "
            "(timeouts '-': not attributable, the host sends several flows)"
        )
    else:
        print(f"\nsimulated {res.sim_time_s:g} s in {res.wall_time_s:.2f} s wall, {res.events_processed} events")


def _check_out(out: Path) -> None:
    """Refuse an output folder that cannot be written before anything runs
    (a long run must not be lost to it afterwards)."""
    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", str(out), "a folder (a file of that name exists)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError("--out", str(out), f"a folder that can be created ({e.strerror})") from None
    if not os.access(out, os.W_OK):
        raise ScenarioError("--out", str(out), "a writable folder")


ALLOW_CODE_HELP = (
    "let the file's tcp.cc = 'py:MODULE:CLASS' import and run MODULE.py from the file's folder "
    "(only for files you trust)"
)
PIN_HELP = "run the forwarder alone on one CPU and the endpoints on the others (needs two CPUs)"


def cmd_run(a: argparse.Namespace) -> int:
    from ..analysis.results import interruptible, run_scenario
    from ..experiments.progress import RunProgress, enabled
    from ..scenario import Scenario
    from ..scenario.overrides import parse_assignment

    # --set, --seed and --pcap applied together: the scenario is resolved once
    sets = dict(parse_assignment(s) for s in a.set or [])
    if a.seed is not None:
        sets["sim.seed"] = a.seed
    if a.pcap:
        sets["sim.pcap"] = [x.strip() for x in a.pcap.split(",") if x.strip()]
    try:
        sc = Scenario.from_file(a.file, sets, allow_code=a.allow_code)
    except ScenarioError as e:
        if a.pcap and getattr(e, "field", "").startswith("sim.pcap"):
            raise ScenarioError("--pcap", message=f"--pcap:{str(e).split(':', 1)[1]}") from None
        raise
    out = Path(a.out) if a.out else Path("results") / Path(a.file).stem
    if a.no_write and a.out:
        raise ScenarioError(
            "--no-write", message="--no-write: not with --out (one says where to write, the other not to write)"
        )
    formats = _plot_formats(a.plot_format)
    if not a.no_write:
        _check_out(out)
    from .. import memory

    ctl = memory.new_control()
    try:
        with RunProgress(ctl, sc.duration_s, show=enabled(a.json or a.quiet)):
            res = interruptible(lambda: run_scenario(sc, control=ctl), ctl)
    except KeyboardInterrupt:
        res = None
    if res is None:
        print(
            f"ccsim: interrupted at simulated time {ctl.sim_time_s():.3f} s of {sc.duration_s:g} s; "
            + ("nothing was written" if a.no_write else f"nothing was written to {out}/"),
            file=sys.stderr,
        )
        return 130
    if not a.no_write:
        res.write(out)
        if not a.no_plots:
            from ..analysis.plot import plot_dir

            plot_dir(out, formats)
    if a.json:
        print(json.dumps(res.summary_json() | {"out": None if a.no_write else str(out)}))
    elif not a.quiet:
        _print_summary(res)
        print("nothing written (--no-write)" if a.no_write else f"results written to {out}/")
    return 0


def cmd_sweep(a: argparse.Namespace) -> int:
    from ..experiments.runner import SweepFailed, dry_run, run_sweep
    from ..experiments.sweep import Sweep

    sw = Sweep.from_file(a.file, allow_code=a.allow_code)
    out = Path(a.out) if a.out else Path("results") / Path(a.file).stem
    from ..scenario.units import parse_wall_seconds

    timeout = parse_wall_seconds("--timeout", a.timeout) if a.timeout else None  # checked before a dry run too
    if a.dry_run:
        d = dry_run(sw, out)
        status = 2 if d["invalid"] else 0  # a sweep with invalid points would not run as written
        if a.json:
            print(json.dumps(d))
            return status
        about = "about " if d["sampled"] else ""
        print(
            f"{d['runs']} runs ({len(sw.seeds)} seeds × {d['runs'] // len(sw.seeds)} points); "
            f"{about}{d['existing']} already in {out}, {about}{d['to_run']} to run, "
            f"{about}{d['invalid_estimate']} invalid"
            + (f" (judged on an even sample of {d['validated']} runs)" if d["sampled"] else "")
        )
        for e in d["invalid"][:3]:
            print(f"  invalid: {e}")
        if len(d["invalid"]) > 3:
            print(f"  ... and {len(d['invalid']) - 3} more invalid points")
        if d["invalid"]:
            print(
                f"ccsim: {len(d['invalid'])} invalid points: the sweep would refuse them (--keep-going "
                "records them and runs the rest)",
                file=sys.stderr,
            )
        if d["backend"] == "emulation":
            print(f"estimated wall time: {_fmt_dur(d['cpu_s_estimate'])} (real time, one emulated run at a time)")
        elif d["cpu_s_estimate"] is not None:
            rates = d["cpu_s_per_sim_s"]
            print(
                f"estimated CPU time: {_fmt_dur(d['cpu_s_estimate'])} for {d['sim_seconds']:,.0f} simulated s "
                f"({rates[0] * 1e3:.3g}–{rates[-1] * 1e3:.3g} ms of CPU per simulated s in "
                f"{d['calibration_points']} calibration runs); about "
                f"{_fmt_dur(d['cpu_s_estimate'] / _jobs(a))} on {_jobs(a)} cores"
            )
        return status
    import warnings

    from ..experiments.runner import IdenticalSeedsWarning, InertAxisWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdenticalSeedsWarning)  # printed below, with the summary
        warnings.simplefilter("ignore", InertAxisWarning)
        try:
            rep = run_sweep(
                sw,
                out,
                jobs=a.jobs,
                dask=a.dask,
                executor="serial" if a.serial else None,
                timeout_s=timeout,
                rerun_stale=a.rerun_stale,
                keep_going=a.keep_going,
                quiet=a.quiet or a.json,
            )
        except SweepFailed as e:  # reported below, run by run, with the figures of what did finish
            rep = e.report
    figs = []
    if sw.plots and rep.computed + rep.existing > 0:
        figs = _sweep_plots(sw, out, show=not (a.quiet or a.json))
    if a.json:
        print(
            json.dumps(
                {
                    "out": str(out),
                    "total": rep.total,
                    "existing": rep.existing,
                    "computed": rep.computed,
                    "failed": rep.failed,
                    "invalid": rep.invalid,
                    "wall_s": rep.wall_s,
                    "warnings": rep.warnings,
                    "figures": [str(f) for f in figs],
                }
            )
        )
    elif not a.quiet:
        print(
            f"{rep.total} runs: {rep.computed} computed, {rep.existing} already there, "
            f"{len(rep.failed)} failed, {len(rep.invalid)} invalid; {rep.wall_s:.1f} s wall, "
            f"{rep.sim_s / max(rep.wall_s, 1e-9):,.0f} simulated s per s; results in {out}/"
        )
        for f in figs:
            print(f"figure: {f}")
    for w in rep.warnings:
        print(f"ccsim: warning: {w}", file=sys.stderr)
    if rep.failed or rep.invalid:
        print(f"ccsim: {len(rep.failed) + len(rep.invalid)} runs did not produce results:", file=sys.stderr)
        for bad in rep.invalid[:20]:
            print(f"  invalid: {bad}", file=sys.stderr)
        for fail in rep.failed[:20]:
            print(
                f"  {fail['run_id']} ({', '.join(f'{k}={v!r}' for k, v in fail['params'].items())}): {fail['kind']}: "
                f"{fail['error'].splitlines()[0]}",
                file=sys.stderr,
            )
        if len(rep.failed) > 20:
            print(
                f"  ... and {len(rep.failed) - 20} more failed runs (ccsim query {out} "
                "\"SELECT * FROM runs WHERE status <> 'ok'\" lists them)",
                file=sys.stderr,
            )
        return 1
    return 0


def cmd_query(a: argparse.Namespace) -> int:
    from ..experiments.campaign import open_campaign

    c = open_campaign(a.dir)
    df = c.query(a.sql)
    if a.csv:
        sys.stdout.write(df.write_csv())
    elif a.json:
        print(df.write_json())
    else:
        import polars as pl

        with pl.Config(tbl_rows=a.rows, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40):
            print(df)
    return 0


def _jobs(a: argparse.Namespace) -> int:
    from ..experiments.executors import default_jobs

    return a.jobs or default_jobs()


def _fmt_dur(s: float) -> str:
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def cmd_trace(a: argparse.Namespace) -> int:
    from ..scenario.units import parse_time
    from .tracegen import generate

    dur = parse_time("--duration", a.duration, allow_zero=False)
    if dur % 10**9:
        raise ScenarioError("--duration", a.duration, "a whole number of milliseconds, e.g. '60s'")
    params = {
        k: v
        for k, v in (
            ("max_rate", a.max_rate),
            ("sigma", a.sigma),
            ("escape_rate", a.escape_rate),
            ("initial_rate", a.initial_rate),
        )
        if v is not None
    }
    text = generate(a.model, dur // 10**9, a.seed, **params)
    out = Path(a.out)
    if out.exists() and not a.force:
        raise ScenarioError("--out", str(out), "a file that does not exist yet (or --force to replace it)")
    out.write_text(text)
    n = text.count("\n")
    last = int(text.rsplit("\n", 2)[-2])
    print(f"{out}: {n} delivery opportunities over {last} ms, mean {n * 1504 * 8 / last / 1e3:.2f} Mb/s")
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    if a.experiments:
        from ..experiments.overhead import run_all

        print(json.dumps(run_all(quick=a.quick), indent=2))
        return 0
    from .bench import run_bench

    if a.repeat < 1:
        raise ScenarioError("--repeat", a.repeat, "a number of runs ≥ 1")
    if _core.debug_assertions():
        print(
            "ccsim: warning: this core was built with its invariant checks on (make test's build); "
            "the figures below are slower than a release build: run 'make develop' first",
            file=sys.stderr,
        )
    rows = run_bench(repeat=a.repeat, only=a.only)
    if not rows:
        from .bench import SCENARIOS

        raise ScenarioError("--only", a.only, f"a part of a scenario name ({', '.join(SCENARIOS)})")
    if a.json:
        print(json.dumps({"scenarios": rows}))
    else:
        print(
            _fmt_table(
                [
                    "scenario",
                    "delivered_pkts",
                    "events",
                    "cpu_s",
                    "Mpkts_per_cpu_s",
                    "Mevents_per_cpu_s",
                    "cost_vs_newreno",
                ],
                [
                    [
                        r["name"],
                        r["delivered_pkts"],
                        r["events"],
                        f"{r['cpu_s']:.3f}",
                        f"{r['pkts_per_cpu_s'] / 1e6:.2f}",
                        f"{r['events_per_cpu_s'] / 1e6:.2f}",
                        "-" if r["cost_vs_newreno"] is None else f"{r['cost_vs_newreno']:.2f}",
                    ]
                    for r in rows
                ],
            )
        )
    return 0


def cmd_study(a: argparse.Namespace) -> int:
    from .. import studies

    if a.name == "list":
        for n in studies.names():
            st = studies.get(n)
            print(f"{n:12s} {st.title}")
            print(f"{'':12s} {st.reference} ({st.simulator})")
        return 0
    mode = "full" if a.full else "points" if a.points else "smoke" if a.smoke else "quick"
    jobs = a.jobs
    older: dict[str, Path] = {}
    if a.compare_to:
        from ..studies.compare import CompareError, claims_file

        # found before anything runs, so a wrong path costs no run
        try:
            for n in studies.names() if a.name == "all" else [a.name]:
                older[n] = claims_file(Path(a.compare_to), n, mode)
        except CompareError as e:
            print(f"ccsim: error: {e}", file=sys.stderr)
            return 2
    if a.name == "all":
        outs, index = studies.run_all(mode, a.out, jobs=jobs, dask=a.dask, quiet=a.quiet)
    else:
        outs, index = [studies.run_study(a.name, mode, a.out, jobs=jobs, dask=a.dask, quiet=a.quiet)], None
    for o in outs:
        c = o.counts()
        print(
            f"{o.name} ({o.mode}): {c['reproduced']} reproduced, {c['partly']} partly, "
            f"{c['not reproduced']} not reproduced; {o.runs} runs ({o.computed} computed now), "
            f"CPU {o.cpu_s:.1f} s, wall {o.wall_s:.1f} s"
        )
        for v in o.verdicts:
            print(f"  {v.claim:8s} {v.verdict:15s} {v.reason}")
        print(f"  report: {o.report_html}  (Markdown: {o.report_md})")
        if o.name in older:
            from ..studies.compare import compare, load, render

            new = o.out / "claims.json"
            print(render(compare(load(older[o.name]), load(new)), older[o.name], new, len(o.verdicts)))
    if index is not None:
        print(f"index: {index}")
    return 0


def cmd_list(a: argparse.Namespace) -> int:
    from .catalog import catalog

    print(catalog(a.what), end="")
    return 0


def _emu_unavailable() -> str | None:
    from ..emulation import available

    return available()


def cmd_emulate(a: argparse.Namespace) -> int:
    from ..emulation import cleanup_stale, emulate

    why = _emu_unavailable()
    if why:
        print(f"ccsim: {why}", file=sys.stderr)
        return 2
    if a.cleanup:
        removed = cleanup_stale()
        print(f"removed {len(removed)} leftover namespaces/devices" + (": " + " ".join(removed) if removed else ""))
        if not a.file:
            return 0
    if not a.file:
        print("ccsim: error: emulate needs a scenario FILE (or --cleanup alone)", file=sys.stderr)
        return 2
    from ..scenario import Scenario
    from ..scenario.overrides import parse_assignment

    sc = Scenario.from_file(a.file)
    if a.set:
        sc = sc.with_overrides(dict(parse_assignment(s) for s in a.set))
    out = Path(a.out) if a.out else Path("results") / (Path(a.file).stem + "-emu")
    _check_out(out)
    res = emulate(sc, spin_us=a.spin_us, pin=a.pin)
    res.write(out)
    if not a.no_plots:
        from ..analysis.plot import plot_dir

        plot_dir(out, _plot_formats(a.plot_format))
    if a.json:
        print(json.dumps(res.summary_json(), default=str))
    else:
        _print_summary(res)
        from ..emulation.result import envelope_text

        print(envelope_text(res.emulation))
        print(f"results written to {out}/")
    return 0


def cmd_compare(a: argparse.Namespace) -> int:
    from ..emulation.compare import compare, format_report

    why = _emu_unavailable()
    if why:
        print(f"ccsim: {why}", file=sys.stderr)
        return 2
    if a.repeat < 1:
        print(f"ccsim: error: --repeat: must be >= 1 (got {a.repeat})", file=sys.stderr)
        return 2
    from ..scenario import Scenario
    from ..scenario.overrides import parse_assignment

    sc = Scenario.from_file(a.file)
    if a.set:
        sc = sc.with_overrides(dict(parse_assignment(s) for s in a.set))
    out = Path(a.out) if a.out else Path("results") / (Path(a.file).stem + "-compare")
    rep = compare(sc, repeat=a.repeat, out=out, pin=a.pin)
    if a.json:
        print(json.dumps(rep, default=str))
    else:
        print(format_report(rep))
        print(f"results written to {out}/")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with one did-you-mean for a mistyped command or choice."""

    def error(self, message: str) -> NoReturn:
        import re

        from ..errors import suggest

        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            message += suggest(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
        super().error(message)


def _unknown_flags(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """'unrecognized arguments: …' with a did-you-mean for the first
    mistyped flag (from `parser`'s own flags)."""
    from ..errors import suggest

    flags = [o for act in parser._actions for o in act.option_strings if o.startswith("--")]
    first = next((x.split("=", 1)[0] for x in extra if x.startswith("-")), None)
    return f"unrecognized arguments: {' '.join(extra)}" + (suggest(first, flags) if first else "")


def main(argv: list[str] | None = None) -> int:
    rc = _main(argv)
    _leave_no_run_behind(rc)
    return rc


def _from_algorithm(e: BaseException) -> bool:
    """Print an exception a Python algorithm raised (the core's note names
    the hook, flow and time) with the algorithm's own lines only, and say
    whether it was one."""
    import traceback

    notes = [n for n in getattr(e, "__notes__", ()) if n.startswith("ccsim: raised in")]
    if not notes:
        return False
    pkg = str(Path(__file__).resolve().parent.parent)
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not str(Path(f.filename).resolve()).startswith(pkg)]
    print(f"ccsim: error: the Python algorithm raised {type(e).__name__}: {e}", file=sys.stderr)
    print("".join(traceback.format_list(frames)).rstrip(), file=sys.stderr)
    print(notes[0], file=sys.stderr)
    return True


def _leave_no_run_behind(rc: int) -> None:
    """A run's thread still alive here is a Python algorithm's hook blocked
    inside C code that no interruption reached (`results.stop_run`). The
    interpreter's shutdown would stop it by unwinding through the core
    (an abort, exit 134); end the process at once instead, with `rc`."""
    from ..analysis.results import runs_left

    if runs_left():
        print(
            "ccsim: a Python algorithm's hook did not return (it ignores interruptions or is blocked in C code); "
            "stopping the process",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)


def _main(argv: list[str] | None) -> int:
    p = _Parser(prog="ccsim", description="Packet-level simulator for TCP congestion-control research")
    p.add_argument("--version", action="version", version=f"ccsim {_core.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a scenario file")
    r.add_argument("file")
    r.add_argument("--out", help="output folder (default results/<file stem>)")
    r.add_argument("--seed", type=int, help="override sim.seed")
    r.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object instead of tables (results are still written, to --out; its 'out' says where)",
    )
    r.add_argument(
        "--pcap",
        metavar="LINK[,LINK...]",
        help="write a pcap file (headers only, ns timestamps) of each named link direction, e.g. bottleneck or r0->r1",
    )
    r.add_argument("--no-write", action="store_true", help="write no results folder (print only)")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary (errors still print)")
    r.add_argument("--no-plots", action="store_true", help="do not write plots")
    r.add_argument("--plot-format", metavar="FMT", help="png (default), svg, pdf, or a comma list such as png,pdf")
    r.add_argument(
        "--set",
        action="append",
        metavar="PATH=VALUE",
        help="override a scenario value, e.g. --set tcp.cc=cubic --set topology.buffer=2bdp (repeatable)",
    )
    r.add_argument("--allow-code", action="store_true", help=ALLOW_CODE_HELP)
    r.set_defaults(fn=cmd_run)
    sw = sub.add_parser("sweep", help="run a sweep (parameters × seeds) into a campaign folder")
    sw.add_argument("file")
    sw.add_argument("--out", help="campaign folder (default results/<file stem>)")
    sw.add_argument("--jobs", "-j", type=int, help="worker processes (default: every core)")
    sw.add_argument("--serial", action="store_true", help="run in this process, one run at a time")
    sw.add_argument(
        "--dask", metavar="ADDR", help="run on a Dask cluster: tcp://scheduler:8786, or 'local' for a LocalCluster"
    )
    sw.add_argument(
        "--timeout", help="per-run wall-clock limit, e.g. 600 or '10min'; a run past it is recorded as failed"
    )
    sw.add_argument(
        "--dry-run", action="store_true", help="validate, count the runs and estimate the CPU time; run nothing"
    )
    sw.add_argument(
        "--rerun-stale", action="store_true", help="move runs of an older model version to stale/ and recompute them"
    )
    sw.add_argument("--keep-going", action="store_true", help="record invalid points as failed and run the rest")
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary")
    sw.add_argument("--json", action="store_true", help="print one JSON object")
    sw.add_argument("--allow-code", action="store_true", help=ALLOW_CODE_HELP)
    sw.set_defaults(fn=cmd_sweep)
    st = sub.add_parser("study", help="reproduce a published study: claims, figures and a report")
    st.add_argument("name", help="a study name, 'all' (every study and an index page) or 'list'")
    g = st.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="every claim in minutes (default)")
    g.add_argument("--full", action="store_true", help="the paper's durations, sweeps and repetitions")
    g.add_argument(
        "--points",
        action="store_true",
        help="the paper's size for only the claims quick mode leaves short, and only the experiments they read "
        "(the studies whose full mode takes CPU-days)",
    )
    g.add_argument("--smoke", action="store_true", help="toy size in seconds (tests)")
    st.add_argument("--out", help="output folder (default results/studies/NAME, or results/studies for 'all')")
    g2 = st.add_mutually_exclusive_group()
    g2.add_argument("--jobs", "-j", type=int, help="worker processes (default: every core)")
    g2.add_argument("--dask", metavar="ADDR", help="run on a Dask cluster: tcp://scheduler:8786, or 'local'")
    st.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    st.add_argument(
        "--compare-to",
        metavar="OLD",
        help="after the run, list the verdicts and claim numbers that moved since an earlier run of the study: "
        "its results folder (results/studies), the study's folder or its mode folder (holding claims.json)",
    )
    st.set_defaults(fn=cmd_study)
    q = sub.add_parser("query", help="SQL (DuckDB) over a campaign: views runs, flows, links, ...")
    q.add_argument("dir")
    q.add_argument("sql")
    q.add_argument("--csv", action="store_true")
    q.add_argument("--json", action="store_true")
    q.add_argument("--rows", type=int, default=50, help="rows to print (default 50)")
    q.set_defaults(fn=cmd_query)
    ps = sub.add_parser("plot-sweep", help="plot a metric against an axis (mean and 95%% CI over seeds)")
    ps.add_argument("dir")
    ps.add_argument(
        "--kind",
        default="line",
        choices=["line", "tput-delay"],
        help="line (default): --y against --x, mean and CI over seeds; tput-delay: mean throughput per flow "
        "against a delay percentile (--delay), one point per run and --hue value, delay axis inverted "
        "(Pantheon, Copa, Sprout)",
    )
    ps.add_argument("--y", help="'table.column', e.g. flows.goodput_bps, or runs.cpu_s (--kind line)")
    ps.add_argument("--x", help="the axis on the x axis, e.g. topology.buffer (--kind line)")
    ps.add_argument(
        "--delay",
        help="--kind tput-delay: the flows' delay column: owd_p95_s (default), qdelay_p95_s, owd_p50_s, ...",
    )
    ps.add_argument(
        "--hue",
        help="one line per value: an axis (tcp.cc) or a column of y's table (cc, label: "
        "the reduction is then done per value within each run)",
    )
    ps.add_argument("--facet", help="one panel per value: an axis or a column of y's table")
    ps.add_argument(
        "--reduce",
        choices=["mean", "sum", "min", "max", "median", "jain"],
        help="how a run's rows become one value (default mean; --kind line)",
    )
    ps.add_argument("--title")
    ps.add_argument("--xlabel", help="the x axis's label (default: the axis's name)")
    ps.add_argument("--ylabel", help="the y axis's label (default: the metric, its reduction and unit)")
    ps.add_argument(
        "--out",
        help="figure file, .png/.svg/.pdf (default DIR/<y>_vs_<x>[_by_<hue>].png; "
        "an existing file is replaced and the command says so)",
    )
    ps.set_defaults(fn=cmd_plot_sweep)
    pl_ = sub.add_parser("plot", help="write plots (PNG, SVG or PDF) for a results folder")
    pl_.add_argument("dir")
    pl_.add_argument("--format", metavar="FMT", help="png (default), svg, pdf, or a comma list such as png,pdf")
    pl_.set_defaults(fn=cmd_plot)
    tg = sub.add_parser("trace", help="generate a synthetic cellular link trace (mahimahi format)")
    tg.add_argument("action", choices=["generate"])
    tg.add_argument(
        "--model",
        default="sprout",
        help="sprout (Winstein et al. NSDI 2013, the evaluated code's constants) "
        "or sprout-2012-09 (its first commits')",
    )
    tg.add_argument("--duration", default="60s", help="length of the trace (default 60s)")
    tg.add_argument("--seed", type=int, default=1)
    tg.add_argument("--out", required=True, help="trace file to write (not replaced unless --force)")
    tg.add_argument("--force", action="store_true", help="replace --out if it exists")
    tg.add_argument("--max-rate", type=float, help="largest rate, packets/s (sprout: 1000)")
    tg.add_argument("--sigma", type=float, help="Brownian motion of the rate, packets/s per sqrt(s) (sprout: 200)")
    tg.add_argument("--escape-rate", type=float, help="rate of leaving an outage, 1/s (sprout: 1)")
    tg.add_argument("--initial-rate", type=float, help="rate at time 0, packets/s (default: half the largest)")
    tg.set_defaults(fn=cmd_trace)
    b = sub.add_parser("bench", help="run the reference speed scenarios")
    b.add_argument("--json", action="store_true")
    b.add_argument("--repeat", type=int, default=3, help="runs per scenario; the fastest counts")
    b.add_argument("--only", metavar="TEXT", help="only the scenarios whose name contains TEXT, e.g. 10G or bbr")
    b.add_argument(
        "--experiments",
        action="store_true",
        help="measure the sweep machinery instead: overhead per run, speed-up, client memory (minutes)",
    )
    b.add_argument("--quick", action="store_true", help="with --experiments: overhead only, 200 runs")
    b.set_defaults(fn=cmd_bench)
    em = sub.add_parser("emulate", help="run a scenario through the running kernel's TCP (root, TUN; real time)")
    em.add_argument("file", nargs="?")
    em.add_argument("--out", help="output folder (default results/<file stem>-emu)")
    em.add_argument("--json", action="store_true", help="print one JSON object (results are still written to --out)")
    em.add_argument("--no-plots", action="store_true", help="do not write plots")
    em.add_argument("--plot-format", metavar="FMT", help="png (default), svg, pdf, or a comma list")
    em.add_argument("--set", action="append", metavar="PATH=VALUE", help="override a scenario value (repeatable)")
    em.add_argument("--pin", action="store_true", help=PIN_HELP)
    em.add_argument(
        "--spin-us",
        type=float,
        default=200.0,
        help="the forwarder polls without sleeping this long before each packet event (default 200)",
    )
    em.add_argument(
        "--cleanup",
        action="store_true",
        help="remove namespaces and devices left by ccsim runs that are no longer alive",
    )
    em.set_defaults(fn=cmd_emulate)
    cm = sub.add_parser("compare", help="simulate and emulate a scenario; print and plot them side by side")
    cm.add_argument("file")
    cm.add_argument("--repeat", "-n", type=int, default=1, help="repetitions of each backend (seeds seed, seed+1, ...)")
    cm.add_argument("--out", help="output folder (default results/<file stem>-compare)")
    cm.add_argument("--json", action="store_true")
    cm.add_argument("--set", action="append", metavar="PATH=VALUE", help="override a scenario value (repeatable)")
    cm.add_argument("--pin", action="store_true", help=PIN_HELP)
    cm.set_defaults(fn=cmd_compare)
    ls = sub.add_parser("list", help="list algorithms, options, topologies, queues, loss models, traffic")
    ls.add_argument(
        "what", nargs="?", default="all", choices=["all", "cc", "tcp", "topology", "queue", "loss", "traffic"]
    )
    ls.set_defaults(fn=cmd_list)

    a, extra = p.parse_known_args(argv)
    if extra:
        sp = sub.choices[a.cmd]
        sp.error(_unknown_flags(sp, extra))
    # The CLI does no linear algebra: keep OpenBLAS from starting a thread per
    # core on import (it costs ~0.1 CPU-s per process, and sweep workers
    # inherit this setting).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        if getattr(a, "jobs", None) is not None:
            from ..experiments.executors import check_jobs

            check_jobs("--jobs", a.jobs, getattr(a, "dask", None))
        try:
            return int(a.fn(a))
        except Exception as e:
            if not _from_algorithm(e):
                raise
            return 2
    except KeyboardInterrupt:
        print("ccsim: interrupted; finished runs are kept, run the same command to resume", file=sys.stderr)
        return 130
    except ScenarioError as e:
        print(f"ccsim: error: {e}", file=sys.stderr)
        return 2
    except InternalError as e:
        print(f"ccsim: internal error: {e}", file=sys.stderr)
        return 2
    except EmulationError as e:
        print(f"ccsim: emulation failed: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`ccsim list cc | head`): not an error of ours;
        # stop writing, and keep Python from reporting the flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:
        print(f"ccsim: error: {e}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            "ccsim: error: out of memory; record less (a longer sim.sample_interval, fewer sim.trace kinds) or "
            "lower $CCSIM_MAX_MEMORY so that such runs are refused before they start",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
