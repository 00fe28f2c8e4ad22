"""Aggregation over repetitions and the sweep figure.

``aggregate(frame, by, metrics)``: per group, the mean, the sample standard
deviation (n − 1), n, and a two-sided Student-t confidence interval for the
mean, mean ± t(1 − α/2, n − 1) · s / √n (α = 1 − level; NaN when n < 2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .campaign import Campaign


def t_quantile(p: float, df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(p, df))


def aggregate(
    frame: pl.DataFrame,
    by: Sequence[str] | str,
    metrics: Sequence[str] | str,
    level: float = 0.95,
    bounds: tuple[float | None, float | None] | None = None,
) -> pl.DataFrame:
    """Per group of `by`: the mean, standard deviation, n and the Student-t
    CI of each metric. With `bounds` (lo, hi; None for no bound), the CI is
    clipped to the values the metric can take (a Jain index to [0, 1]) and a
    column `<metric>_ci_clipped` says where that happened."""
    by = [by] if isinstance(by, str) else list(by)
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not 0 < level < 1:
        raise ValueError(f"level: got {level!r}; expected a confidence level in (0, 1), e.g. 0.95")
    for c in by + metrics:
        if c not in frame.columns:
            raise ValueError(f"{c!r}: not a column of the frame; columns: {', '.join(frame.columns)}")
    aggs = []
    for m in metrics:
        v = pl.col(m).cast(pl.Float64)
        aggs += [v.mean().alias(f"{m}_mean"), v.std(ddof=1).alias(f"{m}_std"), v.count().alias(f"{m}_n")]
    g = frame.group_by(by, maintain_order=True).agg(aggs) if by else frame.select(aggs)
    cols = []
    for m in metrics:
        ns = g[f"{m}_n"].to_list()
        tq = [t_quantile(1 - (1 - level) / 2, n - 1) if n and n >= 2 else math.nan for n in ns]
        half = pl.Series(list(tq), dtype=pl.Float64) * g[f"{m}_std"] / g[f"{m}_n"].cast(pl.Float64).sqrt()
        lo, hi = (g[f"{m}_mean"] - half).to_numpy().astype(float), (g[f"{m}_mean"] + half).to_numpy().astype(float)
        if bounds is not None:
            with np.errstate(invalid="ignore"):  # NaN (n < 2) stays NaN
                nl = np.maximum(lo, bounds[0]) if bounds[0] is not None else lo
                nh = np.minimum(hi, bounds[1]) if bounds[1] is not None else hi
                cols.append(pl.Series(f"{m}_ci_clipped", (nl > lo) | (nh < hi)))
            lo, hi = nl, nh
        cols += [pl.Series(f"{m}_ci_lo", lo), pl.Series(f"{m}_ci_hi", hi)]
    return g.with_columns(cols)


# Metric words for figure labels: a table column's name -> (what it is,
# unit after display scaling, display scale, bounds of the per-run value).
_TABLE_WORDS = {
    "flows": ("flows", "flow"),
    "links": ("links", "link"),
    "transfers": ("transfers", "transfer"),
    "udp": ("UDP sources", "UDP source"),
}
_UNITS = (("_bps", "Mb/s", 1e-6), ("_bytes", "bytes", 1.0), ("_pkts", "packets", 1.0), ("_s", "s", 1.0))
_NAMES = {
    "goodput": "goodput",
    "throughput": "throughput",
    "fct": "flow completion time",
    "fct_data": "completion time from the first data byte",
    "rtt_mean": "mean RTT",
    "rtt_min": "minimum RTT",
    "utilization": "utilization",
    "max_queue": "largest queue",
    "retransmits": "retransmissions",
    "timeouts": "timeouts",
    "drops": "drops",
    "cpu": "CPU time",
    "wall": "wall time",
    "sim_time": "simulated time",
}


def describe_metric(y: str, reduce: str | None = None) -> dict[str, Any]:
    """How to show a per-run metric 'table.column' (reduced over the table's
    rows by `reduce`): a human label with its unit and reduction, the
    display scale (bit/s are drawn in Mb/s) and the bounds its values and
    confidence intervals cannot leave."""
    inner = y
    if "(" in y and y.endswith(")"):  # 'jain(flows.goodput_bps)'
        reduce, inner = y.split("(", 1)[0], y.split("(", 1)[1][:-1]
    if "." not in inner:  # a column of the user's own frame: its own name
        return {"label": y, "unit": "", "scale": 1.0, "bounds": (None, None)}
    table, _, col = inner.partition(".")
    unit, scale, stem = "", 1.0, col
    for suffix, u, sc in _UNITS:
        if col.endswith(suffix):
            unit, scale, stem = u, sc, col[: -len(suffix)]
            break
    what = _NAMES.get(stem, stem.replace("_", " "))
    many, one = _TABLE_WORDS.get(table, (table, table))
    bounds = (0.0, 1.0) if stem == "utilization" else (0.0, None)
    if table == "runs":
        label = what
    elif reduce == "jain":
        label, unit, scale, bounds = f"Jain's fairness index of {what} over {many}", "", 1.0, (0.0, 1.0)
    elif reduce == "sum":
        label = f"total {what} over {many}"
    elif reduce == "mean":
        label = f"mean {what} per {one}"
    elif reduce in ("median", "min", "max"):
        word = {"median": "median", "min": "smallest", "max": "largest"}[reduce]
        label = f"{word} {what} among {many}"
    else:
        label = f"{what} ({table})"
    return {"label": label + (f", {unit}" if unit else ""), "unit": unit, "scale": scale, "bounds": bounds}


def plot_sweep(
    frame: pl.DataFrame,
    x: str,
    y: str,
    hue: str | None = None,
    *,
    out: str | Path | None = None,
    title: str | None = None,
    level: float = 0.95,
    ax: Axes | None = None,
    reduce: str | None = None,
    facet: str | None = None,
    overwrite: bool = True,
    x_labels: dict[str, Any] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """Draw `y` (mean and CI error bars over repetitions) against `x`, one
    line per value of `hue`, one panel per value of `facet`. `x`, `hue` and
    `facet` are columns of `frame`: sweep axes, or table columns kept by
    ``Campaign.per_run(..., by=[...])`` (e.g. the flows' 'cc' or 'label').
    Categorical x values (e.g. '1bdp') keep the order in which they appear.
    The y label says what was reduced and how (`reduce`, as given to
    per_run) and its unit; a confidence interval is the Student-t one of
    :func:`aggregate`, clipped to the metric's bounds (a Jain index stays in
    [0, 1], a rate ≥ 0) and the title says when one was clipped. Writes
    `out` (PNG, SVG or PDF by its suffix) if given; `x_labels` adds a
    second line to string x ticks (``Campaign.axis_companion``: a buffer's
    packets under '1bdp'); `xlabel` and `ylabel` replace the axis labels
    (default: the x column's name, the metric described with its unit);
    with ``overwrite=False``
    an existing file is an error. Returns the matplotlib Figure (not
    registered with pyplot: no backend is chosen and nothing needs closing)."""
    from ..analysis.figures import subplots
    from ..errors import suggest

    for role, col in (("x", x), ("y", y), ("hue", hue), ("facet", facet)):
        if col is not None and col not in frame.columns:
            raise ValueError(
                f"{role} = {col!r}: not a column of the frame; columns: "
                f"{', '.join(frame.columns)}{suggest(col, frame.columns)}"
            )
    if out is not None and not overwrite and Path(out).exists():
        raise FileExistsError(f"{out}: exists; choose another file name or pass overwrite=True")
    m = describe_metric(y, reduce)
    lo_b, hi_b = m["bounds"]
    by = [x] + ([hue] if hue else []) + ([facet] if facet else [])
    agg = aggregate(frame, by, [y], level=level, bounds=m["bounds"])
    clipped = bool(agg[f"{y}_ci_clipped"].any()) if agg.height else False
    xs_order = list(dict.fromkeys(frame[x].to_list()))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_order)
    pos = {v: (v if numeric else i) for i, v in enumerate(xs_order)}
    panels = [None] if not facet else list(dict.fromkeys(frame[facet].to_list()))
    fig: Figure
    if ax is None:
        fig, axes = subplots(
            1,
            len(panels),
            figsize=(6.4 if len(panels) == 1 else 3.6 * len(panels) + 0.8, 4.2),
            sharey=True,
            squeeze=False,
        )
        axes = list(axes[0])
    else:
        if facet:
            raise ValueError("facet: draws several panels; not with ax=")
        root = ax.get_figure(root=True)  # of a subfigure's axes too: the figure that lays out and saves
        if root is None:
            raise ValueError("ax: an Axes that belongs to no figure")
        fig, axes = root, [ax]
    hues = [None] if not hue else list(dict.fromkeys(frame[hue].to_list()))
    colors = {h: f"C{i % 10}" for i, h in enumerate(hues)}
    for a, pan in zip(axes, panels):
        sub = agg if pan is None or facet is None else agg.filter(pl.col(facet) == pan)
        for h in hues:
            g = sub if h is None or hue is None else sub.filter(pl.col(hue) == h)
            if g.height == 0:
                continue
            g = g.with_columns(pl.col(x).replace_strict(pos, return_dtype=pl.Float64).alias("_pos")).sort("_pos")
            if not numeric and len(hues) > 1:  # dodge the lines of a categorical x so error bars do not overlap
                g = g.with_columns(pl.col("_pos") + 0.12 * (hues.index(h) - (len(hues) - 1) / 2) / (len(hues) - 1))
            mean = g[f"{y}_mean"].to_numpy() * m["scale"]
            lo_err = (g[f"{y}_mean"] - g[f"{y}_ci_lo"]).fill_nan(0.0).fill_null(0.0).to_numpy() * m["scale"]
            hi_err = (g[f"{y}_ci_hi"] - g[f"{y}_mean"]).fill_nan(0.0).fill_null(0.0).to_numpy() * m["scale"]
            a.errorbar(
                g["_pos"].to_numpy(),
                mean,
                yerr=[lo_err, hi_err],
                marker="o",
                capsize=3,
                color=colors[h],
                label=None if h is None else str(h),
            )
        if not numeric:
            a.set_xticks(
                list(range(len(xs_order))),
                [str(v) + (f"\n{x_labels[v]}" if x_labels and v in x_labels else "") for v in xs_order],
            )
        a.set_xlabel(x if xlabel is None else xlabel)
        if pan is not None:
            a.set_title(f"{facet} = {pan}", fontsize=9)
        a.grid(alpha=0.3)
        if hi_b is not None:  # no tick above a bound the metric cannot pass (the lower end is left to the data)
            lo_y, hi_y = a.get_ylim()
            a.set_ylim(lo_y, min(hi_y, hi_b + 0.02 * (hi_b - (lo_b or 0.0))))
    axes[0].set_ylabel(m["label"] if ylabel is None else ylabel)
    nmin = int(cast(int, agg[f"{y}_n"].min())) if agg.height else 0
    nmax = int(cast(int, agg[f"{y}_n"].max())) if agg.height else 0
    ns = f"n = {nmin}" if nmin == nmax else f"n = {nmin}–{nmax}"
    note = f"mean and {level:.0%} Student-t CI over {ns} runs" if nmin >= 2 else "one run per point, no CI"
    if clipped:
        note += f", CI clipped to [{lo_b:g}, {'∞' if hi_b is None else f'{hi_b:g}'}]"
    (fig.suptitle if facet else axes[0].set_title)(
        f"{title}\n({note})"
        if title
        else f"{m['label'] if ylabel is None else ylabel} against {x if xlabel is None else xlabel}\n({note})",
        fontsize=10,
    )
    if hue:
        axes[-1].legend(
            title=hue, fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
        )
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=150, bbox_inches="tight")
    return fig


# ------------------------------------------------------------- throughput–delay

TPUT = "flows.goodput_bps"
DELAYS = ("owd_p95_s", "qdelay_p95_s", "owd_p50_s", "qdelay_p50_s", "owd_p99_s", "qdelay_p99_s", "rtt_mean_s")


def tput_delay_frame(
    campaign: str | Path | Campaign, hue: str, delay: str = "owd_p95_s", facet: str | None = None
) -> pl.DataFrame:
    """One row per run and value of `hue` (a sweep axis such as 'tcp.cc', or
    a flows column such as 'cc' or 'label' for algorithms sharing a run):
    the mean per-flow goodput and the mean per-flow `delay` percentile
    ('flows.goodput_bps', 'flows.<delay>'), with the run's axes."""
    from .campaign import Campaign, open_campaign

    c = campaign if isinstance(campaign, Campaign) else open_campaign(campaign)
    if delay not in DELAYS:
        from ..errors import ScenarioError

        raise ScenarioError("delay", delay, f"one of {', '.join(DELAYS)}")
    by = [col for col in (hue, facet) if col is not None and col not in c.axes]
    t = c.per_run(TPUT, "mean", by=by)
    d = c.per_run(f"flows.{delay}", "mean", by=by)
    keys = [k for k in t.columns if k != TPUT]
    return t.join(d, on=keys, how="inner", maintain_order="left")


def plot_tput_delay(
    data: str | Path | Campaign | pl.DataFrame,
    hue: str = "tcp.cc",
    *,
    delay: str = "owd_p95_s",
    facet: str | None = None,
    out: str | Path | None = None,
    title: str | None = None,
    level: float = 0.95,
    overwrite: bool = True,
) -> Figure:
    """The throughput–delay figure of Pantheon (Yan et al., USENIX ATC 2018)
    and of the Sprout and Copa papers: mean per-flow throughput (Mb/s)
    against a per-flow delay percentile (ms, the 95th one-way delay by
    default), one small point per run and value of `hue`, and per value the
    mean of its runs with its Student-t CI in both directions (as
    :func:`aggregate`). The delay axis is inverted as those papers draw it:
    better is up and to the right. `data` is a campaign (folder or
    :class:`Campaign`) or a frame from :func:`tput_delay_frame`; `facet`
    draws one panel per value of another axis. Returns the Figure."""
    from ..analysis.figures import subplots
    from .campaign import Campaign

    frame = tput_delay_frame(data, hue, delay, facet) if isinstance(data, (str, Path, Campaign)) else data
    dcol = f"flows.{delay}"
    for role, col in (("hue", hue), ("facet", facet), ("throughput", TPUT), ("delay", dcol)):
        if col is not None and col not in frame.columns:
            raise ValueError(f"{role} = {col!r}: not a column of the frame; columns: {', '.join(frame.columns)}")
    if out is not None and not overwrite and Path(out).exists():
        raise FileExistsError(f"{out}: exists; choose another file name or pass overwrite=True")
    panels = [None] if not facet else list(dict.fromkeys(frame[facet].to_list()))
    fig, axes = subplots(
        1, len(panels), figsize=(6.4 if len(panels) == 1 else 4.2 * len(panels) + 1.2, 4.6), sharey=True, squeeze=False
    )
    hues = list(dict.fromkeys(frame[hue].to_list()))
    word = {"owd": "one-way delay", "qdelay": "queueing delay", "rtt": "RTT"}[delay.split("_")[0]]
    pct = delay.split("_")[1] if delay.split("_")[1].startswith("p") else "mean"
    xlabel = f"{pct[1:]}th percentile {word}, ms" if pct != "mean" else f"mean {word}, ms"
    for a, pan in zip(list(axes[0]), panels):
        sub = frame if pan is None or facet is None else frame.filter(pl.col(facet) == pan)
        agg = aggregate(sub, [hue], [TPUT, dcol], level=level, bounds=(0.0, None))
        for i, h in enumerate(hues):
            color = f"C{i % 10}"
            pts = sub.filter(pl.col(hue) == h)
            if pts.height == 0:
                continue
            a.scatter(pts[dcol].to_numpy() * 1e3, pts[TPUT].to_numpy() / 1e6, s=12, alpha=0.45, color=color)
            g = agg.filter(pl.col(hue) == h).row(0, named=True)
            xm, ym = g[f"{dcol}_mean"] * 1e3, g[f"{TPUT}_mean"] / 1e6

            def err(lo: float, hi: float, m: float, k: float) -> list[list[float]] | None:
                return [[max(m - lo * k, 0.0)], [max(hi * k - m, 0.0)]] if not math.isnan(lo) else None

            a.errorbar(
                [xm],
                [ym],
                xerr=err(g[f"{dcol}_ci_lo"], g[f"{dcol}_ci_hi"], xm, 1e3),
                yerr=err(g[f"{TPUT}_ci_lo"], g[f"{TPUT}_ci_hi"], ym, 1e-6),
                marker="o",
                markersize=7,
                capsize=3,
                color=color,
                label=f"{h} (n = {pts.height})",
            )
        a.invert_xaxis()
        a.set_xlabel(xlabel)
        a.grid(alpha=0.3)
        if pan is not None:
            a.set_title(f"{facet} = {pan}", fontsize=9)
    axes[0][0].set_ylabel("mean throughput per flow, Mb/s")
    note = (
        f"per flow, averaged over a run's flows; small points: runs; large: mean and {level:.0%} Student-t CI "
        "(clipped at 0); delay axis inverted (better: up and right)"
    )
    (fig.suptitle if facet else axes[0][0].set_title)(f"{title}\n({note})" if title else note, fontsize=9)
    axes[0][-1].legend(
        title=hue, fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
    )
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=150, bbox_inches="tight")
    return fig
