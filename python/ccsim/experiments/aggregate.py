"""Aggregation over repetitions and the sweep figure.

``aggregate(frame, by, metrics)``: per group, the mean, the sample standard
deviation (n − 1), n, and a two-sided Student-t confidence interval for the
mean, mean ± t(1 − α/2, n − 1) · s / √n (α = 1 − level; NaN when n < 2).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import polars as pl


def t_quantile(p: float, df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(p, df))


def aggregate(frame: pl.DataFrame, by: Sequence[str] | str, metrics: Sequence[str] | str,
              level: float = 0.95) -> pl.DataFrame:
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
        half = pl.Series([q for q in tq], dtype=pl.Float64) * g[f"{m}_std"] / g[f"{m}_n"].cast(pl.Float64).sqrt()
        cols += [(g[f"{m}_mean"] - half).alias(f"{m}_ci_lo"), (g[f"{m}_mean"] + half).alias(f"{m}_ci_hi")]
    return g.with_columns(cols)


def plot_sweep(frame: pl.DataFrame, x: str, y: str, hue: str | None = None, *, out: str | Path | None = None,
               title: str | None = None, level: float = 0.95, ax=None):
    """Draw `y` (mean and CI error bars over repetitions) against axis `x`,
    one line per value of `hue`. Categorical x values (e.g. '1bdp') keep the
    order in which they appear. Writes `out` (PNG) if given; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = [x] + ([hue] if hue else [])
    agg = aggregate(frame, by, [y], level=level)
    # Rates in bit/s are drawn in Mb/s (a display scale; the frame keeps bit/s).
    scale, ylabel = (1e-6, f"{y} (Mb/s)") if y.endswith("_bps") else (1.0, y)
    xs_order = list(dict.fromkeys(frame[x].to_list()))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_order)
    pos = {v: (v if numeric else i) for i, v in enumerate(xs_order)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    else:
        fig = ax.figure
    groups = [(None, agg)] if not hue else [(h, agg.filter(pl.col(hue) == h)) for h in dict.fromkeys(frame[hue].to_list())]
    for h, g in groups:
        g = g.with_columns(pl.col(x).replace_strict(pos, return_dtype=pl.Float64).alias("_pos")).sort("_pos")
        m = g[f"{y}_mean"].to_numpy() * scale
        err = (g[f"{y}_ci_hi"] - g[f"{y}_mean"]).fill_nan(0.0).to_numpy() * scale
        label = None if h is None else f"{hue} = {h}"
        ax.errorbar(g["_pos"].to_numpy(), m, yerr=err, marker="o", capsize=3, label=label)
    if not numeric:
        ax.set_xticks(list(range(len(xs_order))), [str(v) for v in xs_order])
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel)
    nmin = int(agg[f"{y}_n"].min()) if agg.height else 0
    ax.set_title(title or f"{y} vs {x} (mean, {level:.0%} CI over n ≥ {nmin})", fontsize=10)
    ax.grid(alpha=0.3)
    if hue:
        ax.legend(fontsize=8)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=110)
    return fig
