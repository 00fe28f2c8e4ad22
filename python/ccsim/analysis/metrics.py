"""Metrics the studies report, computed from a run's result tables.

Every function is pure: it takes tables (polars DataFrames as returned by
:class:`ccsim.analysis.results.Result`) or plain numbers and returns numbers or a new
table. Rates are in bit/s, times in seconds.

Windowed rates use the sampled counters of ``flow_series`` / ``link_series``
(``sim.sample_interval``): the value of a counter at time t is its last
sample at or before t, so window edges should fall on sample times.

Definitions (as the reproduced studies use them):

- goodput: application bytes delivered in order to the receiver per second
  (headers and retransmissions excluded); throughput: bytes the sender put
  on the wire per second (headers and retransmissions included);
- Jain's fairness index J = (Σx)² / (n·Σx²);
- GEff = Σ goodput / capacity;
- drop % = drops / (packets sent into the queue + drops) · 100.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

import numpy as np
import polars as pl

_EPS = 1e-9  # seconds: tolerance when matching window edges to sample times


def _at(series: pl.DataFrame, key: str, column: str, t: float) -> pl.DataFrame:
    """Per `key`, the last sampled value of `column` at or before t."""
    return (
        series.filter(pl.col("time_s") <= t + _EPS)
        .sort("time_s")
        .group_by(key, maintain_order=True)
        .agg(pl.col(column).last().alias(column), pl.col("time_s").last().alias("at_s"))
    )


def _window_rate(
    series: pl.DataFrame, key: str, column: str, t0: float, t1: float, scale: float, name: str
) -> pl.DataFrame:
    if not t1 > t0:
        raise ValueError(f"window end {t1} must be after its start {t0}")
    a = _at(series, key, column, t0).rename({column: "v0", "at_s": "t0_s"})
    b = _at(series, key, column, t1).rename({column: "v1", "at_s": "t1_s"})
    j = b.join(a, on=key, how="left").with_columns(pl.col("v0").fill_null(0), pl.col("t0_s").fill_null(0.0))
    return j.with_columns(((pl.col("v1") - pl.col("v0")) * scale / (t1 - t0)).alias(name)).select(key, name).sort(key)


def _span(series: pl.DataFrame, t0: float | None, t1: float | None) -> tuple[float, float]:
    lo = 0.0 if t0 is None else t0
    hi = float(cast(float, series["time_s"].max())) if t1 is None else t1
    return lo, hi


def goodput(flow_series: pl.DataFrame, t0: float | None = None, t1: float | None = None) -> pl.DataFrame:
    """Goodput of every flow over [t0, t1] (default: the whole sampled run):
    Δ delivered application bytes · 8 / (t1 − t0). Columns flow, goodput_bps."""
    lo, hi = _span(flow_series, t0, t1)
    return _window_rate(flow_series, "flow", "delivered_bytes", lo, hi, 8.0, "goodput_bps")


def throughput(flow_series: pl.DataFrame, t0: float | None = None, t1: float | None = None) -> pl.DataFrame:
    """Sender throughput of every flow over [t0, t1]: Δ data bytes on the wire
    (headers and retransmissions included) · 8 / (t1 − t0)."""
    lo, hi = _span(flow_series, t0, t1)
    return _window_rate(flow_series, "flow", "bytes_sent", lo, hi, 8.0, "throughput_bps")


def interval_goodput(flow_series: pl.DataFrame, edges: Sequence[float]) -> pl.DataFrame:
    """Goodput of every flow in consecutive intervals [edges[i], edges[i+1]]
    (e.g. Grieco & Mascolo 2004's [0, 250, 500, 750, 1000] s). Columns flow, interval,
    t0_s, t1_s, goodput_bps."""
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"edges must be at least two increasing times, got {list(edges)}")
    parts = [
        goodput(flow_series, a, b).with_columns(
            pl.lit(i).alias("interval"), pl.lit(float(a)).alias("t0_s"), pl.lit(float(b)).alias("t1_s")
        )
        for i, (a, b) in enumerate(zip(edges, edges[1:]))
    ]
    return pl.concat(parts).select("flow", "interval", "t0_s", "t1_s", "goodput_bps")


def goodput_series(flow_series: pl.DataFrame) -> pl.DataFrame:
    """Goodput of every flow in each sampling interval: columns flow, time_s
    (interval end), goodput_bps — throughput-over-time plots."""
    return (
        flow_series.sort("time_s")
        .with_columns(
            (
                pl.col("delivered_bytes").cast(pl.Float64).diff().over("flow")
                * 8.0
                / pl.col("time_s").diff().over("flow")
            ).alias("goodput_bps")
        )
        .drop_nulls("goodput_bps")
        .select("flow", "time_s", "goodput_bps")
    )


def jain(xs: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²), in [1/n, 1]; NaN for no values
    or all zeros."""
    x = np.asarray(list(xs), dtype=float)
    if x.size == 0 or not np.any(x):
        return math.nan
    return float(x.sum() ** 2 / (x.size * np.square(x).sum()))


def geff(goodputs_bps: Iterable[float], capacity_bps: float) -> float:
    """Goodput efficiency Σ goodput / capacity (Mišković, Petrović & Trajković 2004; ideal 0.9533 for
    1460-byte payloads in 1500-byte packets beside its CBR flow)."""
    if capacity_bps <= 0:
        raise ValueError(f"capacity must be > 0, got {capacity_bps}")
    return float(sum(goodputs_bps)) / capacity_bps


def drop_percent(drops: float, packets_in: float) -> float:
    """Drop % = drops / (packets sent into the queue + drops) · 100, where
    packets_in counts the packets the queue accepted (links table: pkts_tx)."""
    total = packets_in + drops
    return 100.0 * drops / total if total > 0 else math.nan


def link_drop_percent(links: pl.DataFrame, link: str) -> float:
    """Drop % of the named link direction from the links table."""
    row = links.filter(pl.col("name") == link)
    if row.height != 1:
        raise KeyError(f"no link named {link!r}; links: {', '.join(links['name'])}")
    r = row.row(0, named=True)
    return drop_percent(r["drops"], r["pkts_tx"])


def utilization(
    link_series: pl.DataFrame, links: pl.DataFrame, link: str, t0: float | None = None, t1: float | None = None
) -> float:
    """Share of the named link direction's capacity used over [t0, t1]:
    Δ bytes transmitted · 8 / (rate · (t1 − t0))."""
    row = links.filter(pl.col("name") == link)
    if row.height != 1:
        raise KeyError(f"no link named {link!r}; links: {', '.join(links['name'])}")
    lid, rate = row["id"][0], row["rate_bps"][0]
    s = link_series.filter(pl.col("link") == lid)
    lo, hi = _span(s, t0, t1)
    r = _window_rate(s, "link", "bytes_tx", lo, hi, 8.0, "bps")
    return float(r["bps"][0]) / float(rate)


def fct_stats(fct_s: Iterable[float]) -> dict[str, float]:
    """Flow completion time statistics over finished transfers (NaN =
    unfinished, counted apart): count, unfinished, mean, median, p95, p99, max."""
    x = np.asarray(list(fct_s), dtype=float)
    done = x[~np.isnan(x)]
    out = {"count": int(done.size), "unfinished": int(x.size - done.size)}
    if done.size == 0:
        return out | dict.fromkeys(("mean", "median", "p95", "p99", "max"), math.nan)
    return out | {
        "mean": float(done.mean()),
        "median": float(np.median(done)),
        "p95": float(np.percentile(done, 95)),
        "p99": float(np.percentile(done, 99)),
        "max": float(done.max()),
    }


def convergence_time(t: Sequence[float], x: Sequence[float], band: float = 0.10, reference: str = "last_half") -> float:
    """Time after which `x` stays within ±band of its steady value.

    The steady value is the mean of `x` over the second half of the samples
    (``reference = 'last_half'``, the definition reported by study 3). The
    result is the first sample time t_k such that every sample from k on lies
    in [v·(1 − band), v·(1 + band)]; NaN when even the last sample is outside
    (the series never settles)."""
    tt, xx = np.asarray(t, dtype=float), np.asarray(x, dtype=float)
    if tt.size != xx.size or tt.size == 0:
        raise ValueError("t and x must be non-empty and of equal length")
    if reference != "last_half":
        raise ValueError(f"unknown reference {reference!r}; accepted: 'last_half'")
    v = xx[tt.size // 2 :].mean()
    inside = np.abs(xx - v) <= band * abs(v)
    if not inside[-1]:
        return math.nan
    outside = np.flatnonzero(~inside)
    k = 0 if outside.size == 0 else outside[-1] + 1
    return float(tt[k])


def throughput_ratio(a: float, b: float) -> float:
    """Ratio a / b of two flows' rates (the RTT-fairness metric of Choi, Lee, Cho & Han 2004);
    inf when b is 0 and a is not."""
    if b == 0:
        return math.inf if a > 0 else math.nan
    return a / b


def class_shares(
    flows: pl.DataFrame,
    flow_series: pl.DataFrame,
    classes: Mapping[str, str],
    capacity_bps: float,
    t0: float | None = None,
    t1: float | None = None,
) -> dict[str, float]:
    """Share of a bottleneck's capacity each traffic class used over [t0, t1]
    (Choi, Lee, Cho & Han 2004, Fig. 5): goodput of the flows whose label maps to the class,
    over capacity; 'unused' = 1 − Σ shares. `classes` maps flow labels to
    class names (e.g. {'web': 'web', 'small': 'small TCP', 'hs': 'high-speed'});
    flows with unmapped labels are left out."""
    g = goodput(flow_series, t0, t1).join(flows.select(pl.col("id").alias("flow"), "label"), on="flow")
    out: dict[str, float] = {}
    for lab, cls in classes.items():
        out[cls] = out.get(cls, 0.0) + float(g.filter(pl.col("label") == lab)["goodput_bps"].sum()) / capacity_bps
    out["unused"] = 1.0 - sum(out.values())
    return out


def ack_rate(flow_series: pl.DataFrame, t0: float | None = None, t1: float | None = None) -> pl.DataFrame:
    """ACKs each sender received per second over [t0, t1] (the ACK
    throughput of the reverse path of Lee, Seo & Park). Columns flow, acks_per_s."""
    lo, hi = _span(flow_series, t0, t1)
    return _window_rate(flow_series, "flow", "acks_received", lo, hi, 1.0, "acks_per_s")


def retransmission_ratio(flows: pl.DataFrame) -> pl.DataFrame:
    """Retransmitted data packets / data packets sent, per flow."""
    return flows.select(
        pl.col("id").alias("flow"),
        pl.when(pl.col("data_pkts_sent") > 0)
        .then(pl.col("retransmits") / pl.col("data_pkts_sent"))
        .otherwise(None)
        .alias("retransmission_ratio"),
    )


def seq_progress(flow_series: pl.DataFrame) -> pl.DataFrame:
    """Sequence-number progress: the highest cumulatively acknowledged
    segment (snd_una, in packets) of every flow over time (Grieco & Mascolo 2004, W2).
    For repeating apps snd_una restarts with each connection."""
    return flow_series.select("flow", "time_s", pl.col("snd_una").alias("seq_pkts")).sort(["flow", "time_s"])


_CLASS_COLUMNS = {
    "goodput": ("delivered_bytes", 8.0, "goodput_bps"),
    "throughput": ("bytes_sent", 8.0, "throughput_bps"),
    "acks": ("acks_received", 1.0, "acks_per_s"),
}


def class_rates(
    flows: pl.DataFrame, flow_series: pl.DataFrame, t0: float | None = None, t1: float | None = None
) -> pl.DataFrame:
    """Per traffic class (flow `label`) over [t0, t1]: flows, goodput_bps,
    throughput_bps and acks_per_s summed over the class's flows."""
    lab = flows.select(pl.col("id").alias("flow"), "label")
    parts = []
    for col, scale, name in _CLASS_COLUMNS.values():
        lo, hi = _span(flow_series, t0, t1)
        parts.append(_window_rate(flow_series, "flow", col, lo, hi, scale, name))
    per = parts[0].join(parts[1], on="flow").join(parts[2], on="flow").join(lab, on="flow")
    return (
        per.group_by("label", maintain_order=True)
        .agg(
            pl.len().alias("flows"),
            pl.col("goodput_bps").sum(),
            pl.col("throughput_bps").sum(),
            pl.col("acks_per_s").sum(),
        )
        .sort("label")
    )


def class_series(
    flows: pl.DataFrame, flow_series: pl.DataFrame, what: str = "goodput", width: float = 1.0
) -> pl.DataFrame:
    """A class's rate over time in bins of `width` seconds (class shares as
    Choi, Lee, Cho & Han 2004 draw them; ACKs per second of Lee, Seo & Park):
    `what` is 'goodput' (bit/s), 'throughput' (bit/s) or 'acks' (ACKs the
    class's senders received per second — the ACKs that crossed the reverse
    path). Columns label, t_s (bin end), value. A counter's value at a bin
    edge is its last sample at or before the edge, so `width` should be a
    multiple of the sample interval."""
    if what not in _CLASS_COLUMNS:
        raise ValueError(f"what: got {what!r}; expected one of {', '.join(_CLASS_COLUMNS)}")
    if not width > 0:
        raise ValueError(f"width: got {width!r}; expected a bin width in seconds > 0")
    col, scale, _ = _CLASS_COLUMNS[what]
    per = binned_rate(flow_series, "flow", col, width, scale)
    per = per.join(flows.select(pl.col("id").alias("flow"), "label"), on="flow")
    return per.group_by(["label", "t_s"]).agg(pl.col("rate").sum().alias("value")).sort(["label", "t_s"])


def binned_rate(series: pl.DataFrame, key: str, column: str, width: float, scale: float = 8.0) -> pl.DataFrame:
    """Rate of the cumulative counter `column` per `key` in consecutive bins
    of `width` seconds from 0: columns key, t_s (bin end), rate = Δcounter ·
    scale / width. The counter at a bin edge is its last sample at or before
    the edge (0 before the first sample)."""
    if not width > 0:
        raise ValueError(f"width: got {width!r}; expected a bin width in seconds > 0")
    s = series.sort("time_s")
    nb = int(math.floor(float(cast(float, s["time_s"].max())) / width + 1e-9)) if s.height else 0
    ends = [width * (i + 1) for i in range(nb)]
    edges = pl.DataFrame({"_t": [t + _EPS for t in ends]})
    out = []
    for (k,), g in s.group_by([key], maintain_order=True):
        at = edges.join_asof(g.select(pl.col("time_s").alias("_t"), column), on="_t", strategy="backward")
        v = at[column].cast(pl.Float64).fill_null(0.0)
        out.append(pl.DataFrame({key: [k] * nb, "t_s": ends, "rate": (v - v.shift(1, fill_value=0.0)) * scale / width}))
    if not out:
        return pl.DataFrame(schema={key: series.schema[key], "t_s": pl.Float64, "rate": pl.Float64})
    return pl.concat(out)
