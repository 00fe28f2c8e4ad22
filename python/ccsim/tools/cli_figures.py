"""The figure commands of the CLI: ``ccsim plot-sweep`` (a metric against
an axis, or the throughput–delay figure), ``ccsim plot`` (a run's figures)
and a sweep file's [[plot]] tables (tools/cli.py dispatches to them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from .table import fmt_table as _fmt_table

if TYPE_CHECKING:
    import polars as pl

    from ..experiments.campaign import Campaign


def _plot_formats(v: str | None) -> tuple[str, ...]:
    """--plot-format / --format: 'png' (default), 'svg', 'pdf' or a comma list."""
    from ..analysis.results import PLOT_FORMATS

    fmts = tuple(x.strip() for x in (v or "png").split(",") if x.strip())
    bad = [f for f in fmts if f not in PLOT_FORMATS]
    if bad or not fmts:
        raise ScenarioError("--format", v, f"one or more of {', '.join(PLOT_FORMATS)}, comma-separated")
    return fmts


def _sweep_plots(sw: Any, out: Path, show: bool) -> list[Path]:
    """Draw the sweep file's [[plot]] figures; with `show`, also print each
    one's numbers (mean and 95 % CI per x and hue)."""
    from ..experiments.aggregate import aggregate, describe_metric
    from ..experiments.campaign import open_campaign, per_run_name

    c = open_campaign(out)
    figs = []
    for p in sw.plots:
        reduce = p.get("reduce", "mean")
        y = per_run_name(p["y"], reduce)
        f = out / p.get("file", f"{y}_vs_{p['x']}.png".replace("/", "_"))
        frame = _sweep_figure(c, p["x"], p["y"], reduce, p.get("hue"), None, f, p.get("title"), overwrite_note=False)
        figs.append(f)
        if show:
            by = [p["x"]] + ([p["hue"]] if p.get("hue") else [])
            m = describe_metric(y, reduce)
            a = aggregate(frame, by, y, bounds=m["bounds"])
            print(f"\n{p.get('title') or m['label']} [{m['label']}; mean and 95% CI over seeds]")
            print(
                _fmt_table(
                    by + ["mean", "95% CI", "n"],
                    [
                        [r[k] for k in by]
                        + [
                            f"{r[y + '_mean'] * m['scale']:.4g}",
                            f"{r[y + '_ci_lo'] * m['scale']:.4g} – {r[y + '_ci_hi'] * m['scale']:.4g}",
                            r[y + "_n"],
                        ]
                        for r in a.iter_rows(named=True)
                    ],
                )
            )
    return figs


def _sweep_figure(
    c: Campaign,
    x: str,
    y: str,
    reduce: str,
    hue: str | None,
    facet: str | None,
    out: Path,
    title: str | None,
    overwrite_note: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> pl.DataFrame:
    """per_run + plot_sweep for the CLI: `hue` and `facet` may be sweep axes
    or columns of y's table (then the reduction is done within each value,
    e.g. per algorithm of a mixed run). Says so when a figure is replaced."""
    from ..errors import suggest
    from ..experiments.aggregate import plot_sweep
    from ..experiments.campaign import per_run_name

    table = y.partition(".")[0]
    by = []
    for role, col in (("--x", x), ("--hue", hue), ("--facet", facet)):
        if col is None or col in c.axes:
            continue
        cols = c.table(table).columns if table != "runs" and table in c.tables() else []
        if role != "--x" and col in cols:
            by.append(col)
            continue
        raise ScenarioError(
            role,
            message=(
                f"{role} {col}: not an axis of this campaign{suggest(col, list(c.axes) + list(cols))}; axes: "
                f"{', '.join(c.axes)}" + (f"; or, for --hue and --facet, a column of {table}" if cols else "")
            ),
        )
    frame = c.per_run(y, reduce, by=by)
    if out.exists() and overwrite_note:
        print(f"ccsim: replacing the existing figure {out}", file=sys.stderr)
    plot_sweep(
        frame,
        x,
        per_run_name(y, reduce),
        hue,
        out=out,
        title=title,
        reduce=reduce,
        facet=facet,
        x_labels=c.axis_companion(x),
        xlabel=xlabel,
        ylabel=ylabel,
    )
    return frame


def cmd_plot_sweep(a: argparse.Namespace) -> int:
    from ..experiments.campaign import open_campaign, per_run_name

    c = open_campaign(a.dir)
    if a.kind == "tput-delay":
        return _tput_delay_figure(c, a)
    for flag, v in (("--y", a.y), ("--x", a.x)):
        if v is None:
            raise ScenarioError(flag, message=f"{flag}: needed by --kind line (or use --kind tput-delay)")
    if a.delay is not None:
        raise ScenarioError("--delay", message="--delay: only with --kind tput-delay (a line figure plots --y)")
    a.reduce = a.reduce or "mean"
    y = per_run_name(a.y, a.reduce)
    stem = f"{y}_vs_{a.x}" + (f"_by_{a.hue}" if a.hue else "") + (f"_per_{a.facet}" if a.facet else "")
    out = Path(a.out) if a.out else Path(a.dir) / (stem.replace("/", "_").replace("(", "_").replace(")", "") + ".png")
    _sweep_figure(c, a.x, a.y, a.reduce, a.hue, a.facet, out, a.title, xlabel=a.xlabel, ylabel=a.ylabel)
    print(out)
    return 0


def _tput_delay_figure(c: Any, a: argparse.Namespace) -> int:
    from ..errors import suggest
    from ..experiments.aggregate import plot_tput_delay, tput_delay_frame

    # every flag the user gives must act: those of the line figure do not here
    for flag, v in (("--x", a.x), ("--y", a.y), ("--reduce", a.reduce), ("--xlabel", a.xlabel), ("--ylabel", a.ylabel)):
        if v is not None:
            raise ScenarioError(
                flag, message=f"{flag}: not with --kind tput-delay (its axes, labels and per-flow means are fixed)"
            )
    a.delay = a.delay or "owd_p95_s"
    hue = a.hue or ("tcp.cc" if "tcp.cc" in c.axes else "cc")
    for role, col in (("--hue", hue), ("--facet", a.facet)):
        if col is None or col in c.axes:
            continue
        cols = c.table("flows").columns
        if col not in cols:
            raise ScenarioError(
                role,
                message=f"{role} {col}: not an axis of this campaign nor a flows column"
                f"{suggest(col, list(c.axes) + list(cols))}; axes: {', '.join(c.axes)}",
            )
    frame = tput_delay_frame(c, hue, a.delay, a.facet)
    stem = f"tput_vs_{a.delay}_by_{hue}" + (f"_per_{a.facet}" if a.facet else "")
    out = Path(a.out) if a.out else Path(a.dir) / (stem.replace("/", "_") + ".png")
    if out.exists():
        print(f"ccsim: replacing the existing figure {out}", file=sys.stderr)
    plot_tput_delay(frame, hue, delay=a.delay, facet=a.facet, out=out, title=a.title)
    print(out)
    return 0


def cmd_plot(a: argparse.Namespace) -> int:
    from ..analysis.plot import plot_dir

    d = Path(a.dir)
    if not (d / "flow_series.parquet").exists():
        raise ScenarioError(
            "DIR",
            message=f"{d}: no results here (flow_series.parquet missing); expected the --out folder of 'ccsim run'",
        )
    for p in plot_dir(d, _plot_formats(a.format)):
        print(p)
    return 0
