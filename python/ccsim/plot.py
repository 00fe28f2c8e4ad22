"""Plots of a run's time series: cwnd, throughput, sequence progress and queue over time."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .results import read  # noqa: E402


def plot_dir(out_dir: str | Path, max_flows: int = 20) -> list[Path]:
    """Write cwnd.png, throughput.png, seq.png and queue.png into `out_dir` from the
    Parquet files a run wrote there; return the paths written."""
    out = Path(out_dir)
    d = read(out)
    fs, ls, links = d["flow_series"], d["link_series"], d["links"]
    written = []
    if fs.height == 0:
        return written
    flows = sorted(fs["flow"].unique().to_list())[:max_flows]

    def cwnd(s):
        return s["time_s"].to_numpy(), s["cwnd"].to_numpy()

    def goodput(s):
        t = s["time_s"].to_numpy()
        b = s["delivered_bytes"].to_numpy().astype(float)
        return t[1:], np.diff(b) * 8 / np.diff(t) / 1e6

    def seq(s):
        return s["time_s"].to_numpy(), s["snd_una"].to_numpy()

    per_flow = [("cwnd.png", "Congestion window", "cwnd (segments)", cwnd),
                ("throughput.png", "Goodput per sample interval", "goodput (Mb/s)", goodput),
                ("seq.png", "Sequence progress (cumulatively acked segment)", "snd_una (segments)", seq)]
    for fname, title, ylabel, series in per_flow:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for f in flows:
            x, y = series(fs.filter(pl.col("flow") == f))
            if len(x):
                ax.plot(x, y, lw=0.8, label=f"flow {f}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if len(flows) <= 10:
            ax.legend(fontsize=7, ncol=2)
        written.append(_save(fig, out / fname))

    # Queues: the links that ever queued anything (at most 6, busiest first).
    peak = ls.group_by("link").agg(pl.col("queue_pkts").max().alias("peak")).sort("peak", descending=True)
    busy = [r["link"] for r in peak.iter_rows(named=True) if r["peak"] > 0][:6]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    names = dict(zip(links["id"].to_list(), links["name"].to_list()))
    for l in busy:
        s = ls.filter(pl.col("link") == l)
        ax.plot(s["time_s"], s["queue_pkts"], lw=0.8, label=names.get(l, str(l)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title("Queue length (sampled)")
    if busy:
        ax.legend(fontsize=7)
    written.append(_save(fig, out / "queue.png"))
    return written


def _save(fig, path: Path) -> Path:
    tmp = path.with_name("." + path.name + ".tmp.png")
    fig.tight_layout()
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
    return path
