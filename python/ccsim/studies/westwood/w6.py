"""W6: bandwidth estimates at congestion events, and one Westwood+ flow alone
on a 1 Mb/s, 100 ms bottleneck.

Measurements, claim checks and figures of this section, as a part of the
study class (`Westwood` in study.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..base import Check, Figure, PaperValue, StudyData, Verdict, claim, draw_paper, num, save_figure, verdict_from
from ..counterfactual import Swap, TableTest
from .measures import Measures
from .scenarios import (
    MSS,
    PAYLOAD_SHARE,
    VARIANTS,
)


class W6(Measures):
    def w6_events(self, data: StudyData) -> pl.DataFrame:
        def build() -> pl.DataFrame:
            return data.campaign("w6").query(
                'SELECT "flows[0].label" AS variant, flow, time_s, cause, bwe_bps FROM cc_state '
                "WHERE cause IN ('fast_retransmit', 'timeout') AND cc IN ('westwood', 'westwoodplus')"
            )

        return data.memo("w6events", build)

    @claim(
        "W6a",
        "At congestion events Westwood+ estimates sit near the 0.5 Mb/s fair share; the original "
        "Westwood overestimates by up to 100× because of ACK compression.",
        "Bandwidth estimates at fast retransmits and timeouts: Westwood+ median within [0.5, 2] × the fair "
        "share and its 99th percentile ≤ 10×; original Westwood maximum ≥ 10× the fair share.",
        paper=[
            PaperValue("Westwood+ estimates near the fair share", 0.5, "Mb/s", "§2 text, Fig. 1a"),
            PaperValue("original Westwood, up to 100× the fair share", 50.0, "Mb/s", "§2 text, Fig. 1b"),
        ],
        counterfactual=Swap("flows[0].label", "westwoodplus", "westwood"),
    )
    def _w6a(self, data: StudyData) -> Verdict:
        e = self.w6_events(data)
        share = 10e6 / 20
        wp = e.filter(pl.col("variant") == "westwoodplus")["bwe_bps"]
        ow = e.filter(pl.col("variant") == "westwood")["bwe_bps"]
        med, p99, mx = num(wp.median()), num(wp.quantile(0.99)), num(ow.max())
        return verdict_from(
            "W6a",
            [
                Check("Westwood+ median within [0.5, 2] × share", 0.5 <= med / share <= 2, f"{med / share:.2f}×"),
                Check("Westwood+ 99th percentile ≤ 10 × share", p99 / share <= 10, f"{p99 / share:.1f}×"),
                Check("original Westwood max ≥ 10 × share", mx / share >= 10, f"{mx / share:.1f}×"),
            ],
            {
                "wp_median_x": med / share,
                "wp_p99_x": p99 / share,
                "westwood_max_x": mx / share,
                "westwood_median_x": num(ow.median()) / share,
                "events_wp": wp.len(),
                "events_westwood": ow.len(),
            },
        )

    def w6_single_series(self, data: StudyData) -> pl.DataFrame:
        def build() -> pl.DataFrame:
            c = data.campaign("w6_single")
            b = c.query("SELECT time_s, bwe_bps FROM cc_state WHERE cause = 'sample' ORDER BY time_s")
            f = c.query("SELECT time_s, cwnd, srtt_s FROM flow_series WHERE flow = 0 ORDER BY time_s")
            f = f.filter(pl.col("srtt_s").is_finite() & (pl.col("srtt_s") > 0))
            raw = (f["cwnd"].cast(pl.Float64) * MSS * 8 / f["srtt_s"]).to_numpy()
            filt = np.empty_like(raw)
            for i, x in enumerate(raw):
                filt[i] = x if i == 0 else 0.9 * filt[i - 1] + 0.1 * x
            f = f.with_columns(pl.Series("cwnd_rtt_bps", filt))
            return b.join(f.select("time_s", "cwnd_rtt_bps"), on="time_s", how="inner")

        return data.memo("w6single", build)

    @claim(
        "W6b",
        "For one flow on 1 Mb/s, filtering ACKed data (Westwood+) gives an estimate closer to 1 Mb/s "
        "and steadier than filtering cwnd/RTT.",
        "After 10 s: mean |estimate − payload rate| / payload rate and the coefficient of variation both "
        "smaller for the Westwood+ estimate than for the EWMA-filtered cwnd/RTT.",
        counterfactual=TableTest("test_w6b_fails_when_cwnd_over_rtt_is_the_closer_or_steadier_estimate"),
    )
    def _w6b(self, data: StudyData) -> Verdict:
        s = self.w6_single_series(data).filter(pl.col("time_s") > 10.0)
        avail = 1e6 * PAYLOAD_SHARE
        err = {k: num(((s[k] - avail).abs() / avail).mean()) for k in ("bwe_bps", "cwnd_rtt_bps")}
        cv = {k: num(s[k].std()) / num(s[k].mean()) for k in ("bwe_bps", "cwnd_rtt_bps")}
        return verdict_from(
            "W6b",
            [
                Check(
                    "Westwood+ estimate closer to the payload rate",
                    err["bwe_bps"] < err["cwnd_rtt_bps"],
                    f"mean error {err['bwe_bps']:.1%} vs {err['cwnd_rtt_bps']:.1%}",
                ),
                Check(
                    "Westwood+ estimate steadier",
                    cv["bwe_bps"] < cv["cwnd_rtt_bps"],
                    f"CV {cv['bwe_bps']:.3f} vs {cv['cwnd_rtt_bps']:.3f}",
                ),
            ],
            {
                "err_bwe": err["bwe_bps"],
                "err_cwnd_rtt": err["cwnd_rtt_bps"],
                "cv_bwe": cv["bwe_bps"],
                "cv_cwnd_rtt": cv["cwnd_rtt_bps"],
            },
        )

    def _figures_w6(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots

        figs: list[Figure] = []
        p = data.plan
        # W6
        e = self.w6_events(data)
        fig, axes = subplots(1, 3, figsize=(15, 3.4))
        for ax, v in zip(axes[:2], ("westwoodplus", "westwood")):
            x = e.filter(pl.col("variant") == v)
            ax.scatter(x["time_s"], x["bwe_bps"] / 1e6, s=3, color=VARIANTS[v].color)
            draw_paper(ax, self.claim_of("W6a"), only="Westwood+" if v == "westwoodplus" else "original")
            ax.set_yscale("log")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("BWE at congestion (Mb/s)")
            ax.set_title(f"20 {VARIANTS[v].name} flows", fontsize=9)
            ax.legend(fontsize=7)
        s = self.w6_single_series(data)
        axes[2].plot(s["time_s"], s["bwe_bps"] / 1e6, lw=0.8, color="C3", label="Westwood+ (filtered ACKed data)")
        axes[2].plot(s["time_s"], s["cwnd_rtt_bps"] / 1e6, lw=0.8, color="C7", label="filtered cwnd/RTT")
        axes[2].axhline(PAYLOAD_SHARE, color="k", ls=":", lw=0.8)
        axes[2].set_xlim(0, min(200, p.w6_dur))
        axes[2].set_xlabel("time (s)")
        axes[2].set_ylabel("estimate (Mb/s)")
        axes[2].set_title("one Westwood+ flow, 1 Mb/s", fontsize=9)
        axes[2].legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "w6_estimates.png",
                "W6 (paper Figs 1–2): bandwidth estimates at each "
                "fast retransmit or timeout of 20 Westwood+ and 20 original Westwood flows; and one "
                "flow's estimate from ACKed data against the filtered cwnd/RTT (first 200 s).",
            )
        )
        return figs
