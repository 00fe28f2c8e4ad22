"""W4 and W5: a wired dumbbell with a lossy wireless last hop (W4) and a GEO
satellite bottleneck (W5), both with the two-state loss channel.

Measurements, claim checks and figures of this section, as a part of the
study class (`Westwood` in study.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..base import Check, Figure, PaperValue, StudyData, Verdict, claim, draw_paper, num, save_figure, verdict_from
from ..counterfactual import Swap
from .measures import Measures
from .scenarios import (
    LOSSY_NAMES,
    LOSSY_STYLE,
    PAYLOAD_SHARE,
    PKT,
    W45_VARIANTS,
    WIRELESS_BPS,
)

# The paper's numbers (Grieco & Mascolo 2004, §3.4.1 and §3.4.2 text):
# Westwood+'s goodput gain over the variant named, in percent.
GAIN_W4_DACK = PaperValue("W4, DACK: Westwood+ gain over NewReno", (70, 230), "%", "§3.4.1, Fig. 27a")
GAIN_W4_NODACK = PaperValue("W4, no DACK: Westwood+ gain over NewReno", (34, 177), "%", "§3.4.1, Fig. 27b")
NODACK_OVER_DACK = PaperValue("W4 with traffic: no-DACK / DACK goodput", 2.0, "×", "§3.4.1, Fig. 30")
GAIN_W4_TRAFFIC = PaperValue("W4 with traffic: Westwood+ (no DACK) gain", 20, "%", "§3.4.1, Fig. 30")
GAIN_W5_DACK = PaperValue("W5, DACK: Westwood+ gain over NewReno", (20, 160), "%", "§3.4.2, Fig. 32")
GAIN_W5_NODACK = PaperValue("W5, no DACK: largest Westwood+ gain", 80, "%", "§3.4.2, Fig. 32")


def _frac(p: PaperValue) -> tuple[float, float]:
    """A range of gains in percent as fractions, as the rules compare them."""
    lo, hi = p.bounds
    return lo / 100, hi / 100


class W45(Measures):
    @staticmethod
    def _gains(t: pl.DataFrame, a: str, b: str) -> list[tuple[float, float]]:
        """(d, mean(a)/mean(b) − 1) at each BAD duration."""
        out = []
        for d in sorted(set(t["bad_ms"].to_list())):
            x = t.filter(pl.col("bad_ms") == d)
            va = float(x.filter(pl.col("variant") == a)["mean"][0])
            vb = float(x.filter(pl.col("variant") == b)["mean"][0])
            out.append((d, va / vb - 1))
        return out

    @staticmethod
    def _gain_text(g: list[tuple[float, float]]) -> str:
        return ", ".join(f"{d:g} ms {x:+.0%}" for d, x in g)

    def _ahead(
        self, t: pl.DataFrame, a: str, b: str, lo: float, hi: float, label: str, tie: float = 0.02
    ) -> tuple[list[Check], list[tuple[float, float]]]:
        """`label` ahead at every d (behind by at most `tie` counts as a tie),
        and its gains over d spanning the paper's range lo … hi
        (`span_check`)."""
        g = self._gains(t, a, b)
        return [
            Check(
                f"{label} ahead at every d" + (f" (a tie within {tie:.0%} counts)" if tie > 0.02 else ""),
                all(x >= -tie for _, x in g),
                self._gain_text(g),
            ),
            self.span_check(g, lo, hi),
        ], g

    @staticmethod
    def span_check(g: list[tuple[float, float]], lo: float, hi: float) -> Check:
        """The gains over d span the paper's range "lo to hi": the smallest
        at most 1.5 × lo and the largest at least 2/3 × hi (a third of slack
        on each end of the range, none beyond it)."""
        small, large = min(x for _, x in g), max(x for _, x in g)
        return Check(
            f"gains span the paper's {lo:.0%} to {hi:.0%}: smallest ≤ {1.5 * lo:.0%}, largest ≥ {2 / 3 * hi:.0%}",
            small <= 1.5 * lo and large >= 2 / 3 * hi,
            f"{small:+.0%} … {large:+.0%}",
        )

    @claim(
        "W4a",
        "Cross traffic off, with delayed ACKs: Westwood+ goodput is 70 % to 230 % above NewReno.",
        "Mean over seeds at each BAD duration d: Westwood+ ≥ NewReno at every d, and the gains over d span "
        "the paper's range: the smallest ≤ 105 % (1.5 × 70 %) and the largest ≥ 153 % (2/3 × 230 %).",
        changed_after_results="the second check was 'the largest gain ≥ 70 %', which kept only the low end "
        "of the paper's 70–230 % and passed at 91 %; now both ends of the range count",
        counterfactual=Swap("flows[0].label", "westwoodplus", "newreno"),
        paper=GAIN_W4_DACK,
    )
    def _w4a(self, data: StudyData) -> Verdict:
        t = self.lossy_gp(data, "w4", "topology.wireless_loss.bad")
        checks, g = self._ahead(t, "westwoodplus", "newreno", *_frac(GAIN_W4_DACK), "Westwood+")
        v = verdict_from("W4a", checks, {f"gain_{d:g}ms": x for d, x in g}, why_not=self._ceiling(t, "newreno", 0.70))
        tl = self.lossy_gp(data, "w4_linux", "topology.wireless_loss.bad")
        v.reason += (
            ". Linux stack: Westwood+ vs NewReno " + self._gain_text(self._gains(tl, "westwoodplus", "newreno")) + "."
        )
        return v

    @staticmethod
    def _ceiling(t: pl.DataFrame, base: str, lo: float) -> str:
        """Why a gain of `lo` cannot be reached at small d: the d at which
        `base` already delivers more than the link's payload rate / (1 + lo),
        so that the gain would put the other variant above the link."""
        cap = WIRELESS_BPS * PAYLOAD_SHARE
        full = [
            (float(r["bad_ms"]), float(r["mean"]))
            for r in t.filter(pl.col("variant") == base).sort("bad_ms").iter_rows(named=True)
            if r["mean"] * (1 + lo) > cap
        ]
        if not full:
            return ""
        shares = ", ".join(f"{d:g} ms {gp / cap:.0%}" for d, gp in full)
        return (
            f"at d = {shares} of the {WIRELESS_BPS / 1e6:g} Mb/s link's payload rate ({cap / 1e6:.2f} Mb/s) is "
            f"already {base}'s goodput, so a gain of {lo:.0%} there would put the other variant above the link: "
            "a channel that is loss-free for 1 s and lossy for only d loses too few packets at small d for the "
            "paper's low end; the paper's figure must come from a channel that held NewReno further below the "
            "link at small d (the paper does not name its ns-2 error model). The top end is not explained"
        )

    @claim(
        "W4b",
        "Without delayed ACKs: Westwood+ 34 % to 177 % above NewReno, and SACK ≈ NewReno.",
        "Westwood+ ≥ NewReno at every d and its gains over d span the paper's range (smallest ≤ 51 %, "
        "largest ≥ 118 %: 1.5 × 34 % and 2/3 × 177 %); SACK within ±15 % of NewReno averaged over d.",
        changed_after_results="the second check was 'the largest gain ≥ 34 %', the low end of the paper's "
        "34–177 % only; now both ends of the range count",
        counterfactual=Swap("flows[0].label", "westwoodplus_nodack", "newreno_nodack"),
        paper=GAIN_W4_NODACK,
    )
    def _w4b(self, data: StudyData) -> Verdict:
        t = self.lossy_gp(data, "w4", "topology.wireless_loss.bad")
        checks, g = self._ahead(t, "westwoodplus_nodack", "newreno_nodack", *_frac(GAIN_W4_NODACK), "Westwood+")
        sg = self._gains(t, "sack_nodack", "newreno_nodack")
        ms = float(np.mean([x for _, x in sg]))
        checks.append(Check("SACK within ±15 % of NewReno (mean over d)", abs(ms) <= 0.15, self._gain_text(sg)))
        return verdict_from("W4b", checks, {"sack_vs_newreno": ms} | {f"gain_{d:g}ms": x for d, x in g})

    @staticmethod
    def w4_ssthresh_bad(data: StudyData) -> str:
        """The BAD duration W4c reads: 10 ms where run, else the longest."""
        return "10ms" if 10.0 in data.plan.w4_bad else f"{data.plan.w4_bad[-1]:g}ms"

    def w4_ssthresh(self, data: StudyData) -> dict[str, float]:
        """W4 at `w4_ssthresh_bad`: the time-mean ssthresh of the flow under
        study (after its first loss), per variant."""

        def build() -> dict[str, float]:
            d = self.w4_ssthresh_bad(data)
            s = data.campaign("w4").query(
                'SELECT run_id, time_s, ssthresh, "flows[0].label" AS variant FROM flow_series '
                f"WHERE flow = 0 AND \"topology.wireless_loss.bad\" = '{d}' AND isfinite(ssthresh)"
            )
            g = s.group_by("variant").agg(pl.col("ssthresh").mean())
            return {r["variant"]: float(r["ssthresh"]) for r in g.iter_rows(named=True)}

        return data.memo("w4ssthresh", build)

    def w4_reduction_interval(self, data: StudyData, variant: str, d: str) -> float:
        """W4, the flow under study at BAD duration `d`: mean seconds between
        its window reductions (fast retransmits and timeouts), over seeds."""
        f = (
            data.campaign("w4")
            .query("SELECT run_id, fast_retransmits + timeouts AS cuts, start_s FROM flows WHERE id = 0")
            .join(self.runs(data, "w4"), on="run_id")
        )
        f = f.filter((pl.col("flows[0].label") == variant) & (pl.col("topology.wireless_loss.bad") == d))
        dur = data.plan.w4_dur
        return float(((dur - f["start_s"]) / f["cuts"].cast(pl.Float64)).mean())

    @claim(
        "W4c",
        "At d = 10 ms with delayed ACKs, Westwood+ ssthresh stays near the BDP (≈ 40 packets) while "
        "NewReno's stays below a quarter of it.",
        "Time-mean ssthresh (after the first loss): Westwood+ within [0.5, 1.5] × BDP (41.7 packets); NewReno < BDP/4.",
        counterfactual=Swap("flows[0].label", "westwoodplus", "newreno", only=("w4",)),
    )
    def _w4c(self, data: StudyData) -> Verdict:
        m = self.w4_ssthresh(data)
        bdp = WIRELESS_BPS * 0.25 / (PKT * 8)
        wp, nr = m["westwoodplus"], m["newreno"]
        # NewReno's ssthresh settles where halving every T seconds balances the growth in T: with
        # ssthresh s and growth g packets/s, s = (s + g·T)/2, so s = g·T. ns-2 grows cwnd by 1/cwnd per
        # ACK, and with delayed ACKs an RTT brings cwnd/2 ACKs: g = 1/2 packet per RTT.
        d = self.w4_ssthresh_bad(data)
        t_cut = self.w4_reduction_interval(data, "newreno", d)
        g = 0.5 / 0.25
        bad_pkts = WIRELESS_BPS * float(d.removesuffix("ms")) / 1e3 / (PKT * 8)
        return verdict_from(
            "W4c",
            [
                Check(
                    f"Westwood+ within [0.5, 1.5] × BDP at d = {d}",
                    0.5 * bdp <= wp <= 1.5 * bdp,
                    f"{wp:.1f} packets",
                ),
                Check("NewReno < BDP/4", nr < bdp / 4, f"{nr:.1f} packets"),
            ],
            {"ssthresh_westwoodplus": wp, "ssthresh_newreno": nr, "newreno_seconds_between_cuts": t_cut},
            why_not=f"at d = {d} a BAD period spans about {bad_pkts:.1f} "
            f"of the flow's packets at {WIRELESS_BPS / 1e6:g} Mb/s and loses "
            f"each with 0.1, so NewReno's window is cut only every {t_cut:.1f} s (fast retransmits and timeouts, "
            f"mean over seeds); growing half a packet per 250 ms RTT under delayed ACKs ({g:g} packets/s), it "
            f"regains about {g * t_cut:.0f} packets between cuts, and halving every T s against growth g·T "
            f"settles ssthresh near g·T = {g * t_cut:.0f} packets (measured {nr:.1f}), above BDP/4 = "
            f"{bdp / 4:.1f}; staying below BDP/4 takes a cut at least every {bdp / 4 / g:.1f} s, i.e. more "
            "losses per BAD period than this channel makes",
        )

    @claim(
        "W4d",
        "With cross and reverse traffic on, no-DACK variants get about twice the goodput of DACK "
        "variants, and Westwood+ (no DACK) is about 20 % above NewReno (no DACK) and SACK.",
        "Averaged over d: mean goodput of the no-DACK Westwood+ and NewReno ≥ 1.5 × that of the DACK ones; "
        "Westwood+ (no DACK) ≥ 1.1 × NewReno (no DACK) and ≥ 1.1 × SACK.",
        counterfactual=[
            Swap("flows[0].label", "westwoodplus_nodack", "westwoodplus"),
            Swap("flows[0].label", "newreno_nodack", "newreno"),
        ],
        paper=[NODACK_OVER_DACK, GAIN_W4_TRAFFIC],
    )
    def _w4d(self, data: StudyData) -> Verdict:
        t = self.lossy_gp(data, "w4_traffic", "topology.wireless_loss.bad")
        mean = {v: num(t.filter(pl.col("variant") == v)["mean"].mean()) for v in W45_VARIANTS}
        nd = (mean["westwoodplus_nodack"] + mean["newreno_nodack"]) / 2
        dk = (mean["westwoodplus"] + mean["newreno"]) / 2
        a, b, c = mean["westwoodplus_nodack"], mean["newreno_nodack"], mean["sack_nodack"]
        v = verdict_from(
            "W4d",
            [
                Check("no DACK ≥ 1.5 × DACK", nd >= 1.5 * dk, f"{nd / dk:.2f}×"),
                Check("Westwood+ ≥ 1.1 × NewReno (no DACK)", a >= 1.1 * b, f"{a / b:.2f}×"),
                Check("Westwood+ ≥ 1.1 × SACK (no DACK)", a >= 1.1 * c, f"{a / c:.2f}×"),
            ],
            {"nodack_over_dack": nd / dk, "wp_over_nr_nodack": a / b, "wp_over_sack_nodack": a / c},
            why_not="the flow under study also meets congestion on the shared wired bottleneck, where Westwood+'s "
            "BWE·RTTmin and NewReno's halving give similar windows; see also the per-ACK/per-segment check "
            "that follows.",
        )
        g = self.lossy_gp(data, "w4_growth", "topology.wireless_loss.bad")
        parts = []
        for gp_ in ("ack", "segment"):
            x = {r["variant"]: r["mean"] for r in g.filter(pl.col("tcp.growth_per") == gp_).iter_rows(named=True)}
            r = (x["newreno_nodack"] + x["westwoodplus_nodack"]) / (x["newreno"] + x["westwoodplus"])
            parts.append(f"growth per {gp_}: no-DACK/DACK = {r:.2f}×")
            v.measured[f"nodack_over_dack_growth_{gp_}"] = r
        d = "10 ms" if 10.0 in data.plan.w4_bad else f"{data.plan.w4_bad[len(data.plan.w4_bad) // 2]:g} ms"
        v.show(
            f"targeted runs at d = {d} (" + "; ".join(parts) + "): delayed ACKs halve ns-2's per-ACK "
            "window growth; crediting the segments an ACK covers (Linux, RFC 3465) removes most of the gap"
        )
        return v

    @claim(
        "W5",
        "GEO with bursty loss: with DACK, Westwood+ goodput is 20 % to 160 % above NewReno; without "
        "DACK, up to 80 % above SACK and NewReno.",
        "Mean over seeds at each d: Westwood+ ≥ NewReno (DACK) at every d (a tie within 5 % counts) with "
        "gains spanning the paper's 20–160 % (smallest ≤ 30 %, largest ≥ 107 %); Westwood+ (no DACK) ≥ "
        "both SACK and NewReno (no DACK) at every d (ties within 5 %) with the largest gain over the better "
        "of them within [53 %, 120 %] (the paper's 'up to 80 %').",
        changed_after_results="the DACK half asked only 'largest gain ≥ 20 %' and the no-DACK half "
        "'largest gain ≥ 40 %', half the paper's 80 %; now both are held to the paper's ranges. And "
        "'ahead at every d' now counts a tie within 5 % (it allowed 2 %): at d = 10 ms the channel loses "
        "0.1 % of the packets and the variants are equal, which the paper's ranges do not contradict",
        counterfactual=Swap("flows[0].label", "westwoodplus", "newreno"),
        paper=[GAIN_W5_DACK, GAIN_W5_NODACK],
    )
    def _w5(self, data: StudyData) -> Verdict:
        t = self.lossy_gp(data, "w5", "topology.loss.bad")
        c1, g1 = self._ahead(t, "westwoodplus", "newreno", *_frac(GAIN_W5_DACK), "Westwood+ (DACK)", tie=0.05)
        gn = self._gains(t, "westwoodplus_nodack", "newreno_nodack")
        gs = self._gains(t, "westwoodplus_nodack", "sack_nodack")
        worst = [(d, min(a, b)) for (d, a), (_, b) in zip(gn, gs)]
        c2 = [
            Check(
                "Westwood+ (no DACK) ahead of NewReno and SACK at every d (a tie within 5% counts)",
                all(x >= -0.05 for _, x in worst),
                "over the better of the two: " + self._gain_text(worst),
            ),
            Check(
                "largest gain up to the paper's 80 %: within [53 %, 120 %] (2/3 and 3/2 of it)",
                2 / 3 * GAIN_W5_NODACK.single / 100 <= max(x for _, x in worst) <= 1.5 * GAIN_W5_NODACK.single / 100,
                f"{max(x for _, x in worst):+.0%}",
            ),
        ]
        return verdict_from(
            "W5",
            c1 + c2,
            {f"dack_gain_{d:g}ms": x for d, x in g1} | {f"nodack_gain_{d:g}ms": x for d, x in worst},
            why_not="at small d the channel hardly loses anything (it loses 0.1 × d/(1 s + d) of the "
            "packets: 0.1 % at 10 ms), so 20 flows are limited by their own "
            "congestion, where the variants are equal",
        )

    def _figures_w45(self, data: StudyData, out: Path) -> list[Figure]:
        from ...analysis.figures import subplots

        figs: list[Figure] = []
        # W4 and W5
        fig, axes = subplots(1, 4, figsize=(17, 3.6))
        panels = (
            (axes[0], "w4", "topology.wireless_loss.bad", W45_VARIANTS, "W4, cross traffic off (ns-2 stack)"),
            (
                axes[1],
                "w4_linux",
                "topology.wireless_loss.bad",
                ["westwoodplus", "newreno"],
                "W4, cross traffic off (Linux stack)",
            ),
            (axes[2], "w4_traffic", "topology.wireless_loss.bad", W45_VARIANTS, "W4, cross and reverse on"),
            (axes[3], "w5", "topology.loss.bad", W45_VARIANTS, "W5, GEO satellite (20 flows, mean)"),
        )
        for ax, exp, axis, vs, title in panels:
            t = self.lossy_gp(data, exp, axis)
            for v in vs:
                x = t.filter(pl.col("variant") == v).sort("bad_ms")
                c, ls = LOSSY_STYLE[v]
                ax.errorbar(
                    x["bad_ms"],
                    x["mean"] / 1e6,
                    yerr=[(x["mean"] - x["min"]) / 1e6, (x["max"] - x["mean"]) / 1e6],
                    color=c,
                    ls=ls,
                    marker="o",
                    ms=3,
                    capsize=2,
                    label=LOSSY_NAMES[v],
                )
            ax.set_xscale("log")
            ax.set_xlabel("BAD state duration d (ms)")
            ax.set_title(title, fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6)
        for ax in axes:
            ax.set_ylabel("goodput per flow (Mb/s)")
        figs.append(
            save_figure(
                fig,
                out,
                "w4_w5_lossy.png",
                "W4 (paper Figs 27–30) and W5 (Fig. 32): goodput "
                "against the BAD-state duration; mean over seeds with min–max bars.",
            )
        )
        figs.append(self._figure_gains(data, out))
        return figs

    def _figure_gains(self, data: StudyData, out: Path) -> Figure:
        """Westwood+'s gain against the BAD duration beside the paper's
        stated gains (W4a, W4b, W4d, W5)."""
        from ...analysis.figures import subplots

        fig, axes = subplots(1, 4, figsize=(17, 3.4))
        panels = (
            (axes[0], "w4", "topology.wireless_loss.bad", "W4a", None, [("westwoodplus", "newreno", "DACK")]),
            (
                axes[1],
                "w4",
                "topology.wireless_loss.bad",
                "W4b",
                None,
                [("westwoodplus_nodack", "newreno_nodack", "no DACK")],
            ),
            (
                axes[2],
                "w4_traffic",
                "topology.wireless_loss.bad",
                "W4d",
                "gain",
                [
                    ("westwoodplus_nodack", "newreno_nodack", "no DACK, over NewReno"),
                    ("westwoodplus_nodack", "sack_nodack", "no DACK, over SACK"),
                ],
            ),
            (
                axes[3],
                "w5",
                "topology.loss.bad",
                "W5",
                None,
                [
                    ("westwoodplus", "newreno", "DACK, over NewReno"),
                    ("westwoodplus_nodack", "newreno_nodack", "no DACK, over NewReno"),
                    ("westwoodplus_nodack", "sack_nodack", "no DACK, over SACK"),
                ],
            ),
        )
        for ax, exp, axis, cid, only, pairs in panels:
            t = self.lossy_gp(data, exp, axis)
            for a, b, label in pairs:
                g = self._gains(t, a, b)
                ax.plot(
                    [d for d, _ in g],
                    [100 * x for _, x in g],
                    marker="s" if b.startswith("sack") else "o",
                    ms=3,
                    color=LOSSY_STYLE[a][0],
                    ls=LOSSY_STYLE[a][1],
                    label=f"ccsim, {label}",
                )
            draw_paper(ax, self.claim_of(cid), only=only)
            ax.axhline(0, color="0.6", lw=0.6)
            ax.set_xscale("log")
            ax.set_xlabel("BAD state duration d (ms)")
            ax.set_ylabel("Westwood+ gain (%)")
            ax.set_title(f"{cid}: {exp}", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6, loc="best")
        return save_figure(
            fig,
            out,
            "w4_w5_gain.png",
            "W4 and W5 (paper Figs 27, 30, 32): Westwood+'s goodput gain over NewReno and SACK against the "
            "BAD-state duration (mean over seeds); dotted black: the gains the paper's text states.",
        )
