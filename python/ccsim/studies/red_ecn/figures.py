"""The study's figures; a part of the study class (`RedEcn` in study.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

from ..base import Figure, StudyData, draw_paper, num, save_figure
from .measures import Measures
from .scenarios import (
    BDP_PKTS,
    DISCIPLINES,
    IDEAL_GEFF,
    NAMES,
    thresholds,
)


class Figures(Measures):
    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots
        from ...experiments.aggregate import aggregate

        figs = []
        per_seed = self.per_run(data, "ql")
        ns = sorted({2 * k for k in data.plan.pairs})
        # coinciding lines stay visible: each discipline its own marker and
        # line style, drawn a little apart along QL
        styles = {d: (mk, ls) for d, mk, ls in zip(DISCIPLINES, "osD^", ("-", "--", "-.", ":"))}
        dodge = {d: (i - (len(DISCIPLINES) - 1) / 2) * 0.6 for i, d in enumerate(DISCIPLINES)}
        how = (
            "Mean over seeds with 95 % Student-t CIs (none with one seed); each discipline its own marker "
            "and line, drawn up to ±0.9 packet apart along QL so equal values stay visible."
        )
        for col, fname, ylabel, cap in (
            (
                "geff",
                "geff_vs_ql.png",
                "GEff, fraction of the link rate",
                "GEff against the queue limit QL (paper Fig. 2a); dashed: the ideal "
                "0.9533, dotted: the BDP (10 packets). " + how,
            ),
            (
                "drop_pct",
                "drop_vs_ql.png",
                "Drop, % of packets at the bottleneck",
                "Drop % at the bottleneck against QL (paper Fig. 2b). " + how,
            ),
        ):
            agg = aggregate(per_seed, ["queue", "ql", "n"], [col], bounds=(0.0, 1.0 if col == "geff" else 100.0))
            fig, axes = subplots(1, len(ns), figsize=(4.2 * len(ns), 3.6), sharey=True, squeeze=False)
            for ax, n in zip(axes[0], ns):
                for d in DISCIPLINES:
                    s = agg.filter((pl.col("queue") == d) & (pl.col("n") == n)).sort("ql")
                    mean = s[f"{col}_mean"].to_numpy()
                    lo = np.nan_to_num(mean - s[f"{col}_ci_lo"].to_numpy())
                    hi = np.nan_to_num(s[f"{col}_ci_hi"].to_numpy() - mean)
                    mk, ls = styles[d]
                    ax.errorbar(
                        s["ql"].to_numpy() + dodge[d],
                        mean,
                        yerr=[lo, hi],
                        marker=mk,
                        ms=4,
                        ls=ls,
                        lw=1.2,
                        capsize=2,
                        mfc="none",
                        label=NAMES[d],
                    )
                if col == "geff":
                    ax.axhline(IDEAL_GEFF, ls="--", color="k", lw=0.8, label="ideal 0.9533 (paper)")
                ax.axvline(BDP_PKTS, ls=":", color="grey", lw=0.8)
                ax.set_title(f"{n} TCP flows + 1 UDP", fontsize=10)
                ax.set_xlabel("QL, packets")
                ax.grid(alpha=0.3)
            axes[0][0].set_ylabel(ylabel)
            axes[0][0].legend(fontsize=7)
            figs.append(save_figure(fig, out, fname, cap))
        for queue, ql, n, fname, cap in (
            (
                "red",
                4,
                2,
                "queue_red_ql4.png",
                "RED queue with QL = 4, 2 flows (paper Fig. 3): instantaneous "
                "(redQ) and average (avgQ) queue; dashed: the RED zone (1, 3).",
            ),
            (
                "adaptive_red",
                36,
                2,
                "queue_ared_ql36.png",
                "Adaptive RED, QL = 36, 2 flows (paper Fig. 5); dashed: the RED zone (9, 27).",
            ),
            (
                "adaptive_red",
                72,
                18,
                "queue_ared_ql72.png",
                "Adaptive RED, QL = 72, 18 flows (paper Fig. 6); dashed: the RED zone (18, 54).",
            ),
        ):
            q = self.queue_trace(data, queue, ql, n)
            fig, ax = subplots(figsize=(8.5, 3.2))
            ax.plot(q["time_s"], q["queue_pkts"], lw=0.5, label="instantaneous (redQ)")
            ax.plot(q["time_s"], q["avg_queue"], lw=1.2, label="average (avgQ)")
            for th in thresholds(ql):
                ax.axhline(th, ls="--", color="k", lw=0.7)
            if (queue, ql, n) == ("adaptive_red", 36, 2):
                draw_paper(ax, self.claim_of("d"), axis="x")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("queue (packets)")
            ax.set_title(f"{NAMES[queue]}, QL = {ql}, {n} TCP flows", fontsize=10)
            ax.legend(fontsize=7, loc="upper right")
            ax.grid(alpha=0.3)
            figs.append(save_figure(fig, out, fname, cap))
        ft = self.flow_trace(data, "red", 4, 2)
        fig, ax = subplots(figsize=(8.5, 3.2))
        for (f, lab), s in ft.group_by(["flow", "label"], maintain_order=True):
            s = s.filter(pl.col("time_s") <= min(10.0, data.plan.series_s))
            ax.step(s["time_s"], s["cwnd"], where="post", lw=0.9, label=f"flow {f} ({lab})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        ax.set_title("cwnd with RED, QL = 4, 2 flows (first 10 s)", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        figs.append(
            save_figure(
                fig,
                out,
                "cwnd_red_ql4.png",
                "Congestion windows of the NewReno+ECN and SACK flows with RED, QL = 4 (paper Fig. 4).",
            )
        )
        fig, ax = subplots(figsize=(8.5, 3.4))
        for d in DISCIPLINES:
            w = self.class_diff(data, d)
            ax.plot(w["t_s"], w["diff_bps"] / 1e3, lw=0.8, label=NAMES[d])
        ax.axhline(0, color="k", lw=0.7)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("NewReno+ECN − SACK goodput (kb/s)")
        ax.set_title(f"Aggregate goodput difference, 18 flows, QL = 36 ({data.plan.bin_s:g} s bins)", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        figs.append(
            save_figure(
                fig,
                out,
                "class_diff.png",
                "Difference of the aggregate goodput of the NewReno+ECN and SACK groups "
                "over time with 18 flows (paper Fig. 7; the paper's queue is not given).",
            )
        )
        pr = (
            self.per_run(data, "mark_p")
            .group_by(["queue", "topology.queue.mark_p"])
            .agg(pl.col("ecn_bps").mean(), pl.col("sack_bps").mean(), pl.col("jain_ecn").mean())
            .sort("topology.queue.mark_p")
        )
        fig, axes = subplots(1, 2, figsize=(10, 3.6))
        for d in ("red", "gentle_red"):
            s = pr.filter(pl.col("queue") == d)
            axes[0].plot(s["topology.queue.mark_p"], s["ecn_bps"] / 1e3, marker="o", label=f"NewReno+ECN, {NAMES[d]}")
            axes[0].plot(
                s["topology.queue.mark_p"], s["sack_bps"] / 1e3, marker="s", ls="--", label=f"SACK, {NAMES[d]}"
            )
            axes[1].plot(s["topology.queue.mark_p"], s["jain_ecn"], marker="o", label=NAMES[d])
        axes[0].set_xlabel("mark_p")
        axes[0].set_ylabel("class goodput (kb/s)")
        axes[1].set_xlabel("mark_p")
        axes[1].set_ylabel("Jain index, NewReno+ECN flows")
        for ax in axes:
            ax.axvline(0.1, ls=":", color="grey", lw=0.8)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "mark_p.png",
                "Raising the ECN marking probability mark_p above max_p = 0.1 (dotted), "
                "18 flows, QL = 36: class goodput and fairness among the ECN flows.",
            )
        )
        pe = self.per_run(data, "errors")
        labels = pe["topology.loss"].unique(maintain_order=True).to_list()
        short = {
            s: ("none" if '"none"' in s else "Good {good}, Bad {bad}, {loss_bad:.0%}".format(**json.loads(s)))
            for s in labels
        }
        # no errors first, then by the loss probability in Bad (the runs come
        # back in no fixed order)
        order = sorted(labels, key=lambda s: (short[s] != "none", short[s] != "none" and json.loads(s)["loss_bad"], s))
        agg = (
            pe.sort("run_id")
            .group_by("topology.loss", maintain_order=True)
            .agg(
                pl.col("ecn_bps").mean(),
                pl.col("sack_bps").mean(),
                pl.col("jain_ecn").mean(),
                pl.col("jain_sack").mean(),
            )
            .sort(pl.col("topology.loss").replace_strict(order, list(range(len(order)))))
        )
        fig, axes = subplots(1, 2, figsize=(10, 3.6))
        x = np.arange(agg.height)
        axes[0].bar(x - 0.2, agg["ecn_bps"] / 1e3, 0.4, label="NewReno+ECN")
        axes[0].bar(x + 0.2, agg["sack_bps"] / 1e3, 0.4, label="SACK")
        axes[1].bar(x - 0.2, agg["jain_ecn"], 0.4, label="NewReno+ECN")
        axes[1].bar(x + 0.2, agg["jain_sack"], 0.4, label="SACK")
        for ax, yl in zip(axes, ("class goodput (kb/s)", "Jain index within the class")):
            ax.set_xticks(x, [short[s] for s in agg["topology.loss"]], fontsize=7, rotation=12)
            ax.set_xlabel("error model on the forward bottleneck")
            ax.set_ylabel(yl)
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3, axis="y")
        top = max(num(agg["ecn_bps"].max()), num(agg["sack_bps"].max()))
        axes[0].set_ylim(0, 1.3 * top / 1e3)  # room for the legend
        axes[1].set_ylim(0, 1.05)
        figs.append(
            save_figure(
                fig,
                out,
                "errors.png",
                "Two-state error model on the forward bottleneck (gentle RED, QL = 36, 18 "
                "flows): class goodput and fairness within each class.",
            )
        )
        return figs
