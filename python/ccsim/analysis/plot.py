"""Plots of a run's time series: cwnd, throughput, sequence progress and queue over time.

Every figure names its run (scenario file and seed) in its title. With more
flows than fit as lines (`MANY_FLOWS`), cwnd becomes small multiples and
throughput an aggregate line over a per-flow heat map. The queue figure
shows only links that queued, each as its sampled queue and the largest
queue within each sample interval (`link_series.queue_max_pkts`, so peaks
between samples are not lost), with the legend outside the data.
PNG by default; SVG or PDF on request (`formats`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import FigureBase

from .figures import Figure, subplots
from .results import PLOT_FORMATS, read

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# SVG text stays text (editable, searchable); TrueType fonts in PDFs, as journals ask.
RC: Any = {"svg.fonttype": "none", "pdf.fonttype": 42}  # matplotlib types its keys as literals

# Above this many flows, per-flow lines stop being readable.
MANY_FLOWS = 8
# Small multiples drawn at most (the first flows by id); the rest are named in the title.
MAX_PANELS = 24
MAX_QUEUE_LINKS = 6


def run_label(manifest: dict[str, Any]) -> str:
    """'<scenario file> · seed N' for a figure title."""
    return f"{manifest.get('source', '?')} · seed {manifest.get('seed', '?')}"


def plot_dir(out_dir: str | Path, formats: tuple[str, ...] = ("png",)) -> list[Path]:
    """Write cwnd, throughput, seq and queue figures into `out_dir` (one file
    per figure and format) from the Parquet files a run wrote there; return
    the paths written."""
    for f in formats:
        if f not in PLOT_FORMATS:
            from ..errors import ScenarioError

            raise ScenarioError("--format", f, f"one of {', '.join(PLOT_FORMATS)}")
    with matplotlib.rc_context(RC):
        return _plot_dir(Path(out_dir), formats)


def flow_names(flows: pl.DataFrame) -> dict[int, str]:
    """Flow id -> how a legend names it: 'flow 3 · cubic', plus the group's
    label when the scenario gave one that is not the algorithm's name
    ('flow 3 · cubic · web')."""
    names = {}
    for r in flows.iter_rows(named=True):
        label = r.get("label") or ""
        own = label and not re.fullmatch(r"group\d+", label) and label != r.get("cc")
        names[r["id"]] = f"flow {r['id']} · {r.get('cc', '?')}" + (f" · {label}" if own else "")
    return names


def _plot_dir(out: Path, formats: tuple[str, ...]) -> list[Path]:
    d = read(out)
    fs, ls, links = d["flow_series"], d["link_series"], d["links"]
    label = run_label(d["manifest"])
    names = flow_names(d["flows"]) if "flows" in d else {}
    written: list[Path] = []
    if fs.height == 0:
        return written
    flows = sorted(fs["flow"].unique().to_list())
    per = {f: fs.filter(pl.col("flow") == f).sort("time_s") for f in flows}

    written += _save(_cwnd(per, flows, label, names), out / "cwnd", formats)
    written += _save(_throughput(per, flows, label, names), out / "throughput", formats)
    written += _save(_seq(per, flows, label, names), out / "seq", formats)
    written += _save(_queue(ls, links, label), out / "queue", formats)
    varying = _varying_links(ls)
    if varying:
        rtt_min = dict(zip(d["flows"]["id"].to_list(), d["flows"]["rtt_min_s"].to_list())) if "flows" in d else {}
        fig = _capacity(ls, links, varying, per, flows, label, names, rtt_min)
        written += _save(fig, out / "capacity", formats)
    return written


def _rate_series(s: pl.DataFrame, col: str) -> tuple[np.ndarray, np.ndarray]:
    """Mb/s per sample interval from a cumulative column (bits or bytes)."""
    t = s["time_s"].to_numpy()
    v = s[col].to_numpy().astype(float) * (8.0 if col.endswith("bytes_tx") else 1.0)
    if len(t) < 2:
        return t[:0], v[:0]
    return t[1:], np.diff(v) / np.diff(t) / 1e6


def _varying_links(ls: pl.DataFrame) -> list[int]:
    """Links whose capacity per interval changes (a trace or schedule)."""
    if "offered_bits" not in ls.columns or ls.height == 0:
        return []
    out = []
    for l in sorted(ls["link"].unique().to_list()):
        _, c = _rate_series(ls.filter(pl.col("link") == l).sort("time_s"), "offered_bits")
        if len(c) > 1 and c.max() - c.min() > 1e-3 * max(c.max(), 1e-9):
            out.append(l)
    return out


def _capacity(
    ls: pl.DataFrame,
    links: pl.DataFrame,
    varying: list[int],
    per: dict[Any, pl.DataFrame],
    flows: list[Any],
    label: str,
    names: dict[int, str],
    rtt_min: dict[Any, float] | None = None,
) -> Figure:
    """Links whose rate varies: capacity and what they carried per interval
    with each flow's goodput; below, each flow's queueing delay: its
    smoothed RTT above its smallest RTT sample (`rtt_min`, by flow id; the
    series' smallest when unknown), so the base RTT is taken out."""
    fig, (a1, a2) = subplots(2, 1, figsize=(10, 7), sharex=True, layout="constrained")
    lname = dict(zip(links["id"].to_list(), links["name"].to_list()))
    for l in varying[:MAX_QUEUE_LINKS]:
        s = ls.filter(pl.col("link") == l).sort("time_s")
        a1.step(*_rate_series(s, "offered_bits"), where="pre", lw=1.0, color="0.5", label=f"{lname.get(l, l)} capacity")
        a1.plot(*_rate_series(s, "bytes_tx"), lw=0.8, color="black", label=f"{lname.get(l, l)} carried")
    shown = flows[:MANY_FLOWS]
    for f in shown:
        a1.plot(*_goodput(per[f]), lw=0.8, label=names.get(f, f"flow {f}"))
        s = per[f].drop_nulls("srtt_s").filter(pl.col("srtt_s").is_not_nan())  # no sample yet: NaN
        if s.height == 0:
            continue
        base = (rtt_min or {}).get(f)
        if base is None or not np.isfinite(base):
            base = float(np.min(s["srtt_s"].to_numpy()))
        a2.plot(s["time_s"], (s["srtt_s"] - base) * 1e3, lw=0.8, label=names.get(f, f"flow {f}"))
    a1.set_ylabel("Mb/s per sample interval")
    a2.set_ylabel("queueing delay (ms):\nsmoothed RTT − smallest RTT")
    a2.set_xlabel("time (s)")
    _legend_outside(a1, len(varying[:MAX_QUEUE_LINKS]) * 2 + len(shown))
    _legend_outside(a2, len(shown))
    _title(fig, "Varying link: capacity, carried traffic and goodput; queueing delay", label, len(flows), len(shown))
    return fig


def _title(
    ax_or_fig: Axes | FigureBase, what: str, label: str, n_flows: int | None = None, shown: int | None = None
) -> None:
    extra = ""
    if n_flows is not None and shown is not None and shown < n_flows:
        extra = f" (first {shown} of {n_flows} flows)"
    text = f"{what}{extra}\n{label}"
    if isinstance(ax_or_fig, FigureBase):
        ax_or_fig.suptitle(text, fontsize=10)
    else:
        ax_or_fig.set_title(text, fontsize=10)


def _legend_outside(ax: Axes, n: int) -> None:
    if n:
        ax.legend(
            fontsize=7,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            ncol=1 if n <= 16 else 2,
            frameon=False,
        )


def _goodput(s: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    t = s["time_s"].to_numpy()
    b = s["delivered_bytes"].to_numpy().astype(float)
    if len(t) < 2:
        return t[:0], b[:0]
    return t[1:], np.diff(b) * 8 / np.diff(t) / 1e6


def _cwnd(per: dict[str, Any], flows: list[Any], label: str, names: dict[int, str]) -> Figure:
    if len(flows) <= MANY_FLOWS:
        fig, ax = subplots(figsize=(10, 4.5))
        for f in flows:
            s = per[f]
            ax.plot(s["time_s"], s["cwnd"], lw=0.8, label=names.get(f, f"flow {f}"))
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        _title(ax, "Congestion window", label)
        _legend_outside(ax, len(flows))
        return fig
    shown = flows[:MAX_PANELS]
    cols = 4
    rows = -(-len(shown) // cols)
    fig, axes = subplots(rows, cols, figsize=(12, 1.6 * rows + 1.0), sharex=True, sharey=True, squeeze=False)
    for ax, f in zip(axes.flat, shown):
        s = per[f]
        ax.plot(s["time_s"], s["cwnd"], lw=0.7)
        ax.text(0.02, 0.9, names.get(f, f"flow {f}"), transform=ax.transAxes, fontsize=7, va="top")
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(shown) :]:
        ax.set_visible(False)
    fig.supxlabel("time (s)", fontsize=9)
    fig.supylabel("cwnd (segments)", fontsize=9)
    _title(fig, "Congestion window per flow", label, len(flows), len(shown))
    return fig


def _throughput(per: dict[str, Any], flows: list[Any], label: str, names: dict[int, str]) -> Figure:
    curves = {f: _goodput(per[f]) for f in flows}
    # the aggregate over flows, on the first flow's sample times (every flow is
    # sampled at the same instants; a flow that starts later has fewer rows)
    times = np.unique(np.concatenate([c[0] for c in curves.values()])) if curves else np.array([])
    agg = np.zeros(len(times))
    for t, y in curves.values():
        agg[np.searchsorted(times, t)] += y
    if len(flows) <= MANY_FLOWS:
        fig, ax = subplots(figsize=(10, 4.5))
        for f in flows:
            ax.plot(*curves[f], lw=0.8, label=names.get(f, f"flow {f}"))
        if len(flows) > 1:
            ax.plot(times, agg, lw=1.2, color="black", label="all flows")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("goodput (Mb/s)")
        _title(ax, "Goodput per sample interval", label)
        _legend_outside(ax, len(flows) + (len(flows) > 1))
        return fig
    fig, (a1, a2) = subplots(
        2, 1, figsize=(11, 7), sharex=True, gridspec_kw={"height_ratios": [1, 2]}, layout="constrained"
    )
    a1.plot(times, agg, lw=1.0, color="black")
    a1.set_ylabel("all flows (Mb/s)")
    grid = np.full((len(flows), len(times)), np.nan)
    for i, f in enumerate(flows):
        t, y = curves[f]
        grid[i, np.searchsorted(times, t)] = y
    dt = np.diff(times).min() if len(times) > 1 else 1.0
    extent = (times[0] - dt, times[-1], len(flows) - 0.5, -0.5) if len(times) else None
    im = a2.imshow(grid, aspect="auto", interpolation="nearest", extent=extent, cmap="viridis")
    a2.set_ylabel("flow")
    step = max(1, len(flows) // 12)
    a2.set_yticks(range(0, len(flows), step), [str(flows[i]) for i in range(0, len(flows), step)], fontsize=7)
    a2.set_xlabel("time (s)")
    fig.colorbar(im, ax=a2, label="goodput per flow (Mb/s)", fraction=0.04, pad=0.01)
    _title(fig, f"Goodput per sample interval: aggregate and {len(flows)} flows", label)
    return fig


def _seq(per: dict[str, Any], flows: list[Any], label: str, names: dict[int, str]) -> Figure:
    fig, ax = subplots(figsize=(10, 4.5))
    shown = flows[:MAX_PANELS]
    for f in shown:
        s = per[f]
        ax.plot(s["time_s"], s["snd_una"], lw=0.8, label=names.get(f, f"flow {f}"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("snd_una (segments)")
    _title(ax, "Sequence progress (cumulatively acked segment)", label, len(flows), len(shown))
    _legend_outside(ax, len(shown) if len(shown) <= MANY_FLOWS * 2 else 0)
    return fig


def _queue(ls: pl.DataFrame, links: pl.DataFrame, label: str) -> Figure:
    """The links that queued: at most MAX_QUEUE_LINKS, busiest first; a link
    whose largest queue is below 5 % of the busiest one's (an access link's
    start-up blip beside a bottleneck) is left out and counted in the title."""
    fig, ax = subplots(figsize=(10, 4.5))
    names = dict(zip(links["id"].to_list(), links["name"].to_list()))
    peak_col = "queue_max_pkts" if "queue_max_pkts" in ls.columns else "queue_pkts"
    peaks: list[tuple[int, int]] = []
    if ls.height:
        peak = (
            ls.group_by("link")
            .agg(pl.col(peak_col).max().alias("peak"))
            .sort(["peak", "link"], descending=[True, False])
        )
        peaks = [(r["link"], int(r["peak"])) for r in peak.iter_rows(named=True) if r["peak"] > 0]
    top = peaks[0][1] if peaks else 0
    busy = [l for l, p in peaks if p >= max(1, 0.05 * top)][:MAX_QUEUE_LINKS]
    left = len(peaks) - len(busy)
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, l in enumerate(busy):
        s = ls.filter(pl.col("link") == l).sort("time_s")
        c = colors[k % len(colors)]
        if peak_col == "queue_max_pkts":
            ax.step(s["time_s"], s["queue_max_pkts"], where="pre", lw=0.6, color=c, alpha=0.5)
        ax.plot(s["time_s"], s["queue_pkts"], lw=0.9, color=c, label=names.get(l, str(l)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    if not busy:
        what = "Queue length: no link queued a packet"
    else:
        what = "Queue length (line: at each sample; thin steps: the largest within each interval)"
        if left:
            what += f"; {left} more link(s) below {max(1, int(0.05 * top))} packets not shown"
    _title(ax, what, label)
    _legend_outside(ax, len(busy))
    return fig


def _save(fig: Figure, stem: Path, formats: tuple[str, ...]) -> list[Path]:
    """Write `fig` as stem.<fmt> for each format (to a temporary name, then
    renamed into place)."""
    paths = []
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        tmp = path.with_name("." + path.name + ".tmp." + fmt)
        fig.savefig(tmp, dpi=110, bbox_inches="tight")
        tmp.replace(path)
        paths.append(path)
    return paths
