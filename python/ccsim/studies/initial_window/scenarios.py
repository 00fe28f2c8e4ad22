"""The scenarios and constants of the initial-window study, and the helpers
its checks and figures share (FCT lookups, settling times, the grid of
FCT panels)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from ..kit import Variant, variants

MSS = 1448
SIZE = 102_400  # iperf3's "100K" (K = 1024); 100,000 is run as a sensitivity
VARIANTS = variants(
    Variant("cubic", "CUBIC", "C0", {"cc": "cubic", "pacing": "off"}),
    Variant("cubic_paced", "paced CUBIC", "C2", {"cc": "cubic", "pacing": "linux"}),
    Variant("bbr", "BBR", "C3", {"cc": "bbr", "pacing": "linux"}),
)
# what a rule raises when a mode's grid lacks the cells it compares
MISSING = (KeyError, IndexError, ValueError, ZeroDivisionError, pl.exceptions.ColumnNotFoundError)
BAND = 0.10  # convergence band: ±10 % of the mean over the second half
DIP_S = 2  # T_conv ignores excursions from the band of at most this many 1-s bins


# The link of each set-up. "mininet" is the primary: Mininet's
# TCLink(bw=R, delay=D) with its defaults (mininet/link.py, TCIntf.bwCmds and
# delayCmds), on both ends of the link: an HTB class 'rate R burst 15k' (tc's
# cburst 1600 B) with a netem child 'delay D' whose default limit of 1000
# packets counts the packets in its delay line; the veth behind it has no
# serialisation. The sensitivities: the serialising link with a DropTail of
# 1 BDP (this study's set-up before the Mininet link existed), and the
# Mininet shaper with shallow DropTail queues (waiting packets only; a netem
# limit of 10 would count the ~12 packets a 15 ms delay line holds at 10 Mb/s).
LINKS: dict[str, dict[str, Any]] = {
    "mininet": {"shaper": "htb", "queue": "netem", "buffer": "1000pkt"},
    "bdp": {"queue": "droptail", "buffer": "1bdp"},
    "q10": {"shaper": "htb", "queue": "droptail", "buffer": "10pkt"},
    "q025": {"shaper": "htb", "queue": "droptail", "buffer": "0.25bdp"},
}
LINK_NAME = {
    "mininet": "Mininet's default link",
    "bdp": "serialising link, 1-BDP DropTail",
    "q10": "Mininet's shaper, 10-packet DropTail",
    "q025": "Mininet's shaper, 0.25-BDP DropTail",
}
# The sensitivity experiments of each primary experiment, with their link.
SENSITIVITIES: dict[str, list[tuple[str, str]]] = {
    "iw1": [("iw1_bdp", "bdp"), ("iw1_q10", "q10"), ("iw1_q025", "q025")],
    "iw2": [("iw2_bdp", "bdp"), ("iw2_q10", "q10")],
}


def base(duration_s: float, app: dict[str, Any], sample: str, link: str = "mininet") -> dict[str, Any]:
    return {
        "sim": {"duration": f"{duration_s:g}s", "seed": 1, "sample_interval": sample},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "15ms", **LINKS[link]},
        "tcp": {"stack": "linux", "cc": "cubic", "mss": MSS, "initial_window": 10, "handshake": True},
        "flows": [{"count": 1, "label": "cubic", **app}],
    }


def rounds_needed(segments: int, iw: int) -> int:
    """Slow-start rounds (flights) to send `segments` from `iw`, doubling
    per round and without loss."""
    r, sent, w = 0, 0, iw
    while sent < segments:
        sent += w
        w *= 2
        r += 1
    return r


def min_fct_data(segments: int, iw: int, rtt: float) -> float:
    """Lower bound of the FCT from the first data byte: (rounds − 1) RTTs
    and the last flight's one-way trip (serialization left out)."""
    return (rounds_needed(segments, iw) - 1) * rtt + rtt / 2


def _iw_grid(rtts: Any, rates: Any, iws: Any, ylabel: str, lines: Any, width: float, legend_size: float) -> Any:
    """One panel per (RTT, rate): each algorithm's `lines` (table, column,
    style, label) against the initial window on a log axis."""
    from ...analysis.figures import subplots

    fig, axes = subplots(
        len(rtts), len(rates), figsize=(width * len(rates) + 1.2, 3.0 * len(rtts)), squeeze=False, sharex=True
    )
    for i, r in enumerate(rtts):
        for j, rate in enumerate(rates):
            ax = axes[i][j]
            for cc in VARIANTS:
                for table, col, style, label in lines:
                    if table is None:
                        continue
                    x = table.filter((pl.col("cc") == cc) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)).sort(
                        "iw"
                    )
                    if x.height:
                        ax.plot(
                            x["iw"],
                            x[col],
                            style,
                            ms=3,
                            lw=0.8 if style == ":" else 1.2,
                            color=VARIANTS[cc].color,
                            label=f"{VARIANTS[cc].name} {label}",
                        )
            ax.set_xscale("log")
            ax.set_xticks(iws, [str(v) for v in iws])
            ax.set_title(f"RTT {r} ms, {rate} Mb/s", fontsize=9)
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel(ylabel)
            if i == len(rtts) - 1:
                ax.set_xlabel("initial window (segments)")
    grid_legend(fig, len(rates), legend_size)
    return fig


def grid_legend(fig: Any, columns: int, legend_size: float) -> None:
    """One legend right of the top row for every panel's lines (the
    kernel's may be in some panels only); drawn again after more lines."""
    seen: dict[str, Any] = {}
    for ax in fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    fig.axes[columns - 1].legend(
        list(seen.values()), list(seen), fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.02, 1.0)
    )


def _mean(s: pl.Series) -> float:
    v = [x for x in s.to_list() if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.mean(v)) if v else math.nan


def _one(t: pl.DataFrame, col: str = "fct_data_s", **where: Any) -> float:
    x = t
    for k, v in where.items():
        x = x.filter(pl.col(k) == v)
    return float(x[col][0]) if x.height else math.nan


def _settle_robust(t: np.ndarray, r: np.ndarray, steady: float, longest: int = DIP_S) -> float:
    """The first time after which the goodput has entered the band and never
    leaves it for more than `longest` consecutive 1-s bins: a one- or
    two-second dip (a loss recovery, BBR's PROBE_RTT) does not reset it, a
    sustained deviation does. Bins are labelled by their end."""
    if len(r) == 0 or not steady or math.isnan(steady):
        return math.nan
    out = np.abs(r - steady) > BAND * steady
    if out.all():
        return float(t[-1])
    first_in = int(np.argmax(~out))
    settle = float(t[first_in] - 1.0)  # end of the initial approach
    run = 0
    for i in range(first_in, len(r)):
        run = run + 1 if out[i] else 0
        if run > longest:
            settle = float(t[i])
    # a long run still open at the end
    return settle


def _settle(t: np.ndarray, r: np.ndarray, steady: float) -> float:
    """The first time after which `r` stays within ±BAND of `steady`: the
    end of the last bin outside the band (0 if none; NaN without data)."""
    if len(r) == 0 or not steady or math.isnan(steady):
        return math.nan
    out = np.flatnonzero(np.abs(r - steady) > BAND * steady)
    return float(t[out[-1]]) if len(out) else 0.0
