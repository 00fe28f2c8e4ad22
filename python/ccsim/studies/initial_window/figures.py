"""The study's figures; a part of the study class (`InitialWindow` in study.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..base import Figure, StudyData, draw_paper, num, save_figure
from .measures import Measures
from .scenarios import (
    BAND,
    DIP_S,
    LINK_NAME,
    SENSITIVITIES,
    SIZE,
    VARIANTS,
    _iw_grid,
    grid_legend,
)


class Figures(Measures):
    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots

        figs = []
        t, tk = self.fct(data, "iw1"), self.fct(data, "iw1_emu")
        if t is None:
            raise ValueError("initial_window: the iw1 experiment has no runs to draw")
        fig = _iw_grid(
            data.plan.rtt,
            data.plan.rate1,
            data.plan.iw1,
            "FCT from first data byte (s)",
            [(t, "fct_data_s", "-o", "simulated"), (tk, "fct_data_s", "--x", "Linux")],
            3.6,
            7,
        )
        if 100 in data.plan.rtt and 20 in data.plan.iw1:
            # the paper's two FCTs at IW 20, RTT 100 ms, on that row's panels
            row = data.plan.rtt.index(100)
            for ax in fig.axes[row * len(data.plan.rate1) : (row + 1) * len(data.plan.rate1)]:
                draw_paper(ax, self.claim_of("IW1-f"), at=20)
            grid_legend(fig, len(data.plan.rate1), 7)
        figs.append(
            save_figure(
                fig,
                out,
                "iw1_fct.png",
                f"IW1: FCT of a {SIZE:,}-byte transfer against the initial "
                "window (paper Figs. for IW1); solid: simulated, dashed: this machine's kernel.",
            )
        )
        if tk is not None and tk.height:
            j = t.join(tk, on=["cc", "iw", "rtt_ms", "rate"], suffix="_k")
            fig, ax = subplots(figsize=(5.2, 4.6))
            for cc in VARIANTS:
                x = j.filter(pl.col("cc") == cc)
                ax.scatter(x["fct_data_s"], x["fct_data_s_k"], s=14, color=VARIANTS[cc].color, label=VARIANTS[cc].name)
            lim = [0, max(num(j["fct_data_s"].max()), num(j["fct_data_s_k"].max())) * 1.05]
            ax.plot(lim, lim, "k--", lw=0.8, label="equal")
            ax.set_xlabel("simulated FCT (s)")
            ax.set_ylabel("Linux kernel FCT (s)")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
            r = (j["fct_data_s_k"] / j["fct_data_s"]).to_numpy()
            ax.set_title(
                f"IW1 cells: kernel/simulated median {np.median(r):.2f}, "
                f"{np.mean(np.abs(r - 1) <= 0.1):.0%} within 10 %",
                fontsize=9,
            )
            figs.append(
                save_figure(
                    fig,
                    out,
                    "iw1_sim_vs_kernel.png",
                    "IW1: every cell's FCT simulated against "
                    "the same cell on this machine's kernel (mean of the repetitions).",
                )
            )
            j.sort(["cc", "iw", "rtt_ms", "rate"]).write_csv(out / "iw1_sim_vs_kernel.csv")
            figs.append(self._validation_figure(data, out))
        c = self.convergence(data, "iw2")
        ck = self.convergence(data, "iw2_emu")
        rtt2, rate2 = data.plan.rtt2, data.plan.rate2
        fig = _iw_grid(
            rtt2,
            rate2,
            data.plan.iw2,
            "convergence time (s)",
            [(c, "t_conv", "-o", "T_conv"), (c, "t_1s", ":", "T_1s"), (ck, "t_conv", "--x", "Linux T_conv")],
            4.2,
            6,
        )
        figs.append(
            save_figure(
                fig,
                out,
                "iw2_convergence.png",
                "IW2: convergence time against the initial window; "
                f"T_conv: within ±{BAND:.0%} of the second half's mean but for excursions of ≤ {DIP_S} s; T_1s: "
                "every 1-s bin within it; dashed: the kernel (its runs are shorter in quick mode).",
            )
        )
        s = self.goodput_series(data, "iw2")
        sk = self.goodput_series(data, "iw2_emu")
        if s is None:
            raise ValueError("initial_window: the iw2 experiment has no runs to draw")
        rate, r = min(rate2), max(rtt2)
        fig, axes = subplots(1, 3, figsize=(13, 3.4), sharey=True)
        for ax, cc in zip(axes, VARIANTS):
            for n, iw in enumerate(data.plan.iw2):
                x = s.filter(
                    (pl.col("cc") == cc) & (pl.col("iw") == iw) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)
                ).sort("bin")
                ax.plot(x["bin"], x["bps"] / 1e6, color=f"C{n}", lw=0.9, label=f"IW {iw}")
                if sk is not None:
                    y = sk.filter(
                        (pl.col("cc") == cc) & (pl.col("iw") == iw) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)
                    ).sort("bin")
                    if y.height:
                        ax.plot(y["bin"], y["bps"] / 1e6, color=f"C{n}", lw=0.9, ls="--", label=f"IW {iw} Linux")
            ax.set_title(f"{VARIANTS[cc].name}, {rate} Mb/s, RTT {r} ms", fontsize=9)
            ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("goodput, 1-s bins (Mb/s)")
        axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        figs.append(
            save_figure(
                fig,
                out,
                "iw2_throughput.png",
                "IW2: goodput over time (1-s bins) per IW; solid simulated, dashed this machine's kernel.",
            )
        )
        named = [(self.fct(data, e), LINK_NAME[link]) for e, link in SENSITIVITIES["iw1"]]
        named.append((self.fct(data, "iw1_100000"), "100,000 B instead of 102,400 B"))
        others = [(o, title) for o, title in named if o is not None and o.height]
        if not others:
            return figs
        fig, axes = subplots(1, len(others), figsize=(3.6 * len(others), 3.6), squeeze=False)
        for ax, (other, title) in zip(axes[0], others):
            j = t.join(other, on=["cc", "iw", "rtt_ms", "rate"], suffix="_o")
            for cc in VARIANTS:
                x = j.filter(pl.col("cc") == cc)
                ax.scatter(x["fct_data_s"], x["fct_data_s_o"], s=12, color=VARIANTS[cc].color, label=VARIANTS[cc].name)
            lim = [0, max(num(j["fct_data_s"].max()), num(j["fct_data_s_o"].max())) * 1.05]
            ax.plot(lim, lim, "k--", lw=0.8)
            ax.set_title(title, fontsize=9)
            ax.set_xlabel("Mininet's default link: FCT (s)")
            ax.set_ylabel("sensitivity FCT (s)")
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=8)
        figs.append(
            save_figure(
                fig,
                out,
                "iw1_sensitivity.png",
                "IW1 sensitivity (simulated): each panel's set-up against Mininet's default link, FCT "
                "from the first data byte per cell; points off the diagonal are cells the choice changes.",
            )
        )
        return figs

    def _validation_figure(self, data: StudyData, out: Path) -> Figure:
        rows = []
        for exp in ("iw1_emu", "iw2_emu"):
            if exp not in data.campaigns:
                continue
            e = data.campaign(exp).query("SELECT * FROM emulation")
            rows.append(
                (
                    exp,
                    e.height,
                    int(e["within_envelope"].sum()),
                    num(e["lateness_p99_s"].median()) * 1e3,
                    num(e["lateness_max_s"].max()) * 1e3,
                    num(e["min_rtt_error_max_s"].max()) * 1e3,
                    int(e["unmodelled_drops"].sum()),
                    str(e["kernel"][0]),
                )
            )
        from ...analysis.figures import subplots

        fig, ax = subplots(figsize=(10, 1.2 + 0.4 * len(rows)))
        ax.axis("off")
        tab = ax.table(
            cellText=[[r[0], r[1], r[2], f"{r[3]:.3f}", f"{r[4]:.2f}", f"{r[5]:.3f}", r[6], r[7]] for r in rows],
            colLabels=[
                "experiment",
                "runs",
                "within\nenvelope",
                "lateness p99,\nmedian (ms)",
                "worst\nlateness (ms)",
                "worst min-RTT\nerror (ms)",
                "drops outside\nthe model",
                "kernel",
            ],
            loc="center",
        )
        tab.auto_set_font_size(False)
        tab.set_fontsize(8)
        tab.scale(1, 2.0)
        return save_figure(
            fig,
            out,
            "emulation_validation.png",
            "The kernel runs' self-validation "
            "(docs/emulation.md): forwarder lateness, measured minus configured minimum RTT, drops the "
            "model did not decide. Runs outside the envelope are kept and counted here.",
        )
