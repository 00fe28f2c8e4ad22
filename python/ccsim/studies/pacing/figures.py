"""The study's figures; a part of the study class (`Pacing` in study.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..base import Figure, StudyData, fmt, mark_paper, save_figure
from .measures import Measures
from .scenarios import (
    CLASS_COLORS,
    CLASS_ORDER,
    CLASSES,
    HS_RTT_MS,
    LINUX,
    LW38,
    PAPER_P2,
    PRIMARY,
    TABLE2,
    VARIANTS,
    rate_text,
)


class Figures(Measures):
    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots

        figs = []
        rates = data.plan.rates
        # 1. Table 2 beside ours
        fig, ax = subplots(figsize=(11, 1.2 + 0.5 * len(rates)))
        ax.axis("off")
        cols = PRIMARY + [v for v in LW38 + LINUX if v in data.plan.p1_variants]
        cell = [
            [
                f"{fmt(self.eff(data, r, v), 4)}"
                + (f"\n({TABLE2[r][v]:.2f})" if r in TABLE2 and v in TABLE2[r] else "")
                for v in cols
            ]
            for r in rates
        ]
        heads = [VARIANTS[v].name.replace(" (", "\n(").replace(", ", "\n") for v in cols]
        tb = ax.table(
            cellText=cell, rowLabels=[rate_text(r) for r in rates], colLabels=heads, loc="center", cellLoc="center"
        )
        tb.auto_set_font_size(False)
        tb.set_fontsize(8)
        tb.scale(1, 2.2)
        ax.set_title("P1 link efficiency (%): ccsim, with the paper's Table 2 in brackets")
        mark_paper(fig, self.claim_of("P1"))
        figs.append(
            save_figure(
                fig,
                out,
                "p1_table2.png",
                "P1: link efficiency of r0 → r1 over the measurement window, per bottleneck rate and "
                "variant (seed mean); the paper's Table 2 value in brackets. LW 38 and Linux-pacing "
                "columns have no paper value.",
            )
        )
        # 2. P1 efficiency against rate
        fig, ax = subplots(figsize=(7, 4))
        for v in cols:
            ax.plot(
                [r / 1e6 for r in rates],
                [self.eff(data, r, v) for r in rates],
                "o-",
                color=VARIANTS[v].color,
                label=VARIANTS[v].name,
                lw=1.2,
                ms=4,
            )
            if v in PRIMARY:
                ax.plot(
                    [r / 1e6 for r in rates if r in TABLE2],
                    [TABLE2[r][v] for r in rates if r in TABLE2],
                    "x--",
                    color=VARIANTS[v].color,
                    lw=0.8,
                    alpha=0.6,
                )
        mark_paper(fig, self.claim_of("P1"))
        ax.set_xscale("log")
        ax.set_xlabel("bottleneck rate (Mb/s)")
        ax.set_ylabel("link efficiency (%)")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        figs.append(
            save_figure(
                fig,
                out,
                "p1_efficiency.png",
                "P1: efficiency against the bottleneck rate; solid: ccsim, dashed crosses: the paper's Table 2.",
            )
        )
        # 3. P2 ratios
        cells = data.plan.p2_cells
        bufs = sorted({b for _, b in cells}, reverse=True)
        fig, axs = subplots(1, len(bufs), figsize=(4 * len(bufs), 3.8), sharey=True, squeeze=False)
        for ax, b in zip(axs[0], bufs):
            rrs = sorted({r for r, bb in cells if bb == b})
            for v in data.plan.p2_variants + [x for x in LW38 + LINUX if x not in data.plan.p2_variants]:
                ys = [self.ratio(data, v, r, b) for r in rrs]
                if all(math.isnan(y) for y in ys):
                    continue
                ax.plot(rrs, ys, "o-" if v in PRIMARY else "s:", color=VARIANTS[v].color, label=VARIANTS[v].name, ms=4)
            if b == 1.0:
                for v, pv in PAPER_P2.items():
                    ax.plot([6], [pv.value], "*", color=VARIANTS[v].color, ms=12, mec="k", mew=0.5)
                mark_paper(fig, self.claim_of("P2a"))
                mark_paper(fig, self.claim_of("P2b"))
            ax.set_yscale("log")
            ax.set_title(f"buffer {b:.0%} of BDP")
            ax.set_xlabel("RTT ratio (flow 2 / flow 1)")
            ax.grid(alpha=0.3, which="both")
        axs[0][0].set_ylabel("throughput ratio flow 1 / flow 2")
        axs[0][-1].legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "p2_ratios.png",
                f"P2: goodput ratio of the two high-speed flows at {rate_text(data.plan.p2_rate)} "
                "against the RTT ratio, per buffer size (seed mean of goodputs); stars: the paper's "
                "quoted values at RTT ratio 6 and 100 % (HSTCP 140, paced HSTCP 70, STCP 300).",
            )
        )
        # 4. P3 stacked shares
        vs = PRIMARY + LINUX
        fig, axs = subplots(1, len(rates), figsize=(3.4 * len(rates), 4.2), sharey=True, squeeze=False)
        web_alone = self.web_only(data)
        for ax, r in zip(axs[0], rates):
            bottom = np.zeros(len(vs))
            for cls in CLASS_ORDER:
                vals = np.array([self.shares(data, r, v)[cls] for v in vs]) * 100
                vals = np.nan_to_num(vals)
                ax.bar(range(len(vs)), vals, bottom=bottom, color=CLASS_COLORS[cls], edgecolor="k", lw=0.4, label=cls)
                bottom += vals
            if r in web_alone:
                ax.axhline(web_alone[r] * 100, color="teal", ls="--", lw=0.8)
            ax.set_xticks(
                range(len(vs)),
                [VARIANTS[v].name.replace(", Linux pacing", "\n(Linux)") for v in vs],
                rotation=70,
                fontsize=7,
            )
            ax.set_title(rate_text(r))
            ax.set_xlabel("high-speed variant")
        axs[0][0].set_ylabel("share of the link (%)")
        hs, ls = axs[0][0].get_legend_handles_labels()
        axs[0][-1].legend(hs[::-1], ls[::-1], fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        figs.append(
            save_figure(
                fig,
                out,
                "p3_shares.png",
                "P3: share of the forward bottleneck per class (goodput / capacity; overhead = "
                "headers, retransmissions and packets lost downstream; unused = 1 − efficiency), "
                "per variant and rate. Dashed line: the share web sessions take when alone "
                "(calibration).",
            )
        )
        # 5. P3 class time series at 100 Mb/s, HSTCP vs paced HSTCP
        r5 = 100e6 if 100e6 in rates else rates[-1]
        c = data.campaign("p3")
        fig, axs = subplots(1, 2, figsize=(11, 3.6), sharey=True)
        for ax, v in zip(axs, ("hstcp", "hstcp_paced")):
            runs = c.ok_runs.filter(
                (pl.col("flows[0].label") == v) & (pl.col("topology.bottleneck_rate") == rate_text(r5))
            )
            if not runs.height:
                continue
            rid = runs["run_id"][0]
            s = c.query(
                "SELECT s.time_s, CASE WHEN s.flow < 2 THEN 'high-speed' ELSE f.label END AS cls, "
                "sum(s.delivered_bytes)::DOUBLE AS b FROM flow_series s JOIN flows f ON f.run_id = s.run_id "
                f"AND f.id = s.flow WHERE s.run_id = '{rid}' GROUP BY ALL ORDER BY cls, s.time_s"
            )
            for key, g in s.group_by("cls", maintain_order=True):
                t, b = g["time_s"].to_numpy(), g["b"].to_numpy()
                cls = str(key[0])
                name = cls if cls == "high-speed" else CLASSES.get(cls, cls)
                ax.plot(
                    t[1:],
                    np.diff(b) * 8 / np.diff(t) / r5 * 100,
                    label=name,
                    color=CLASS_COLORS.get(name, "k") if name != "high-speed" else "C3",
                    lw=1,
                )
            ax.set_title(f"{VARIANTS[v].name}, {rate_text(r5)}")
            ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
        axs[0].set_ylabel("share of the link per 1 s (%)")
        axs[1].legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "p3_series.png",
                f"P3 at {rate_text(r5)}: each class's goodput per second as a share of the link, "
                "HSTCP and paced HSTCP (first seed).",
            )
        )
        # 6. convergence
        if "conv" in data.campaigns:
            cs = self.conv_series(data)
            fig, ax = subplots(figsize=(7, 4))
            for (v, rtt2), g in cs.group_by(["variant", "rtt2"], maintain_order=True):
                ax.plot(
                    g["T"],
                    g["ratio"],
                    color=VARIANTS[v].color,
                    ls="-" if rtt2 == f"{HS_RTT_MS}ms" else "--",
                    label=f"{VARIANTS[v].name}, RTT {HS_RTT_MS} / {rtt2}",
                )
            ax.set_yscale("log")
            ax.axhspan(0.5, 2, color="0.9")
            ax.set_xlabel("run length T (s)")
            ax.set_ylabel("ratio over [T/2, T]")
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3, which="both")
            figs.append(
                save_figure(
                    fig,
                    out,
                    "convergence.png",
                    f"Convergence at {rate_text(data.plan.p2_rate)}, buffer 100 %: the high-speed "
                    "throughput ratio measured over the second half of a run of length T. Shaded: "
                    "within a factor 2 of 1 (equal RTTs).",
                )
            )
        return figs
