"""W7: one flow with Bernoulli loss against the analytic models of the
paper's section 2.3.

Measurements, claim checks and figures of this section, as a part of the
study class (`Westwood` in study.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..base import Check, Figure, StudyData, Verdict, claim, save_figure, verdict_from
from ..counterfactual import Swap
from .measures import Measures
from .scenarios import (
    MSS,
    PAYLOAD_SHARE,
    VARIANTS,
)
from .stats import ols


class W7(Measures):
    def w7_points(self, data: StudyData) -> pl.DataFrame:
        def build() -> pl.DataFrame:
            f = data.campaign("w7").query(
                'SELECT run_id, goodput_bps, rtt_mean_s, rtt_min_s, "flows[0].label" AS variant, '
                '"topology.loss.p" AS p FROM flows WHERE id = 0 ORDER BY run_id'
                # a fixed row order: the fit's sums, and so its last digits, do not depend on the scan
            )
            return f.with_columns(
                (pl.col("rtt_mean_s") - pl.col("rtt_min_s")).alias("tq_s"),
                (pl.col("goodput_bps") / (8 * MSS)).alias("pkts"),
                (pl.col("goodput_bps") <= 0.9 * 10e6 * PAYLOAD_SHARE).alias("loss_limited"),
            )

        return data.memo("w7points", build)

    def w7_fit(self, data: StudyData, variant: str) -> dict[str, Any]:
        x = self.w7_points(data).filter((pl.col("variant") == variant) & pl.col("loss_limited") & (pl.col("tq_s") > 0))
        names = ["RTT", "p"] if variant == "reno" else ["RTT", "Tq", "p"]
        cols = {"RTT": "rtt_mean_s", "Tq": "tq_s", "p": "p"}
        X = np.column_stack([np.ones(x.height)] + [np.log(x[cols[n]].to_numpy()) for n in names])
        y = np.log(x["pkts"].to_numpy())
        return {"names": names, **ols(X, y), "n": x.height}

    def _w7(self, data: StudyData, cid: str, variant: str, model: dict[str, float]) -> Verdict:
        f = self.w7_fit(data, variant)
        if f["n"] <= len(f["names"]) + 1:
            return verdict_from(
                cid, [Check("enough loss-limited points to fit", False, f"{f['n']} points")], {"points": f["n"]}
            )
        checks: list[Check] = []
        meas: dict[str, Any] = {"points": f["n"], "r2": f["r2"]}
        for i, n in enumerate(f["names"], start=1):
            b, se = f["beta"][i], f["se"][i]
            meas[f"exp_{n}"] = b
            checks.append(
                Check(
                    f"exponent of {n} within 0.15 of {model[n]:g}",
                    abs(b - model[n]) <= 0.15,
                    f"{b:+.3f} ± {1.96 * se:.3f} (95 % CI)",
                )
            )
        return verdict_from(cid, checks, meas)

    @claim(
        "W7a",
        "Reno throughput ∝ 1/(RTT·√p).",
        "Least squares of log(goodput) on log(mean RTT) and log(p) over the loss-limited Reno points: "
        "exponents within 0.15 of −1 and −0.5.",
        counterfactual=Swap("flows[0].label", "reno", "westwoodplus"),
    )
    def _w7a(self, data: StudyData) -> Verdict:
        return self._w7(data, "W7a", "reno", {"RTT": -1.0, "p": -0.5})

    @claim(
        "W7b",
        "Westwood+ throughput ∝ 1/√(RTT·Tq·p) (Tq the mean queueing time).",
        "Least squares of log(goodput) on log(mean RTT), log(Tq) and log(p) over the loss-limited "
        "Westwood+ points: each exponent within 0.15 of −0.5.",
        counterfactual=Swap("flows[0].label", "westwoodplus", "reno"),
    )
    def _w7b(self, data: StudyData) -> Verdict:
        return self._w7(data, "W7b", "westwoodplus", {"RTT": -0.5, "Tq": -0.5, "p": -0.5})

    def _figures_w7(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots

        figs: list[Figure] = []
        # W7
        pts = self.w7_points(data)
        fig, axes = subplots(1, 2, figsize=(10, 3.8))
        for ax, v, model in ((axes[0], "reno", "1/(RTT·√p)"), (axes[1], "westwoodplus", "1/√(RTT·Tq·p)")):
            x = pts.filter(pl.col("variant") == v)
            if v == "reno":
                pred = 1 / (x["rtt_mean_s"] * x["p"].sqrt())
            else:
                pred = 1 / (x["rtt_mean_s"] * x["tq_s"].clip(1e-6, None) * x["p"]).sqrt()
            ll = x["loss_limited"].to_numpy()
            ax.scatter(
                pred.to_numpy()[ll], x["pkts"].to_numpy()[ll], s=12, color=VARIANTS[v].color, label="loss-limited"
            )
            ax.scatter(
                pred.to_numpy()[~ll],
                x["pkts"].to_numpy()[~ll],
                s=12,
                facecolors="none",
                edgecolors="0.5",
                label="link-limited (left out)",
            )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(f"model {model}")
            ax.set_ylabel("goodput (packets/s)")
            f = self.w7_fit(data, v)
            ax.set_title(
                f"{VARIANTS[v].name}: fitted exponents "
                + ", ".join(f"{n} {b:+.2f}" for n, b in zip(f["names"], f["beta"][1:])),
                fontsize=8,
            )
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "w7_models.png",
                "W7: goodput against the analytic models (section 2.3), "
                "log–log; a slope of 1 means the model's proportionality holds.",
            )
        )
        return figs
