"""The claims' checks (P1–P3c): each measures what its claim states and applies
its rule; a part of the study class (`Pacing` in study.py)."""

from __future__ import annotations

import math

import polars as pl

from ..base import Check, StudyData, Verdict, claim, fmt, margin_check, verdict_from
from ..counterfactual import Swap, TableTest
from ..kit import kendall
from .measures import Measures
from .scenarios import (
    PAPER_P2,
    PRIMARY,
    TABLE2,
    TABLE2_VALUES,
    VARIANTS,
    rate_text,
)


class Checks(Measures):
    @claim(
        "P1",
        "Every variant's link efficiency is near 100 % at every rate (Table 2: 92.6–99.99 %) and "
        "pacing does not lower it.",
        "At every rate: each of the five variants' efficiency ≥ 90 %; each paced variant's efficiency is "
        "at most 1 point below its unpaced twin; at least 80 % of our Table 2 cells lie within 3 points "
        "of the paper's.",
        # Its first and last checks hold every variant to thresholds, which
        # an exchange of variants cannot move; the rule is shown on tables
        # where the claim holds and where it does not.
        counterfactual=TableTest("test_p1_fails_when_a_variant_is_inefficient_or_pacing_costs_efficiency"),
        paper=TABLE2_VALUES,
    )
    def _claim_p1(self, data: StudyData) -> Verdict:
        rates = data.plan.rates
        checks, measured = [], {}
        low = [(r, x, self.eff(data, r, x)) for r in rates for x in PRIMARY]
        for r, x, e in low:
            measured[f"eff_{x}_{rate_text(r)}"] = e
        bad = [f"{VARIANTS[x].name} {fmt(e)} % at {rate_text(r)}" for r, x, e in low if not e >= 90]
        checks.append(
            Check(
                "every variant ≥ 90 % at every rate",
                not bad,
                "; ".join(bad) if bad else f"lowest {fmt(min(e for _, _, e in low))} %",
            )
        )
        drops = []
        for r in rates:
            for pv, base in (("hstcp_paced", "hstcp"), ("bic_paced", "bic")):
                d = self.eff(data, r, base) - self.eff(data, r, pv)
                measured[f"pacing_loss_{pv}_{rate_text(r)}"] = d
                if not d <= 1.0:
                    drops.append(f"{VARIANTS[pv].name} {fmt(d, 3)} points below at {rate_text(r)}")
        checks.append(
            Check(
                "pacing costs ≤ 1 point",
                not drops,
                "; ".join(drops)
                if drops
                else "largest loss "
                + fmt(max(measured[k] for k in measured if k.startswith("pacing_loss")), 3)
                + " points",
            )
        )
        cells = [(r, v, self.eff(data, r, v), TABLE2[r][v]) for r in rates if r in TABLE2 for v in PRIMARY]
        near = sum(abs(e - p) <= 3 for _, _, e, p in cells)
        checks.append(
            Check("≥ 80 % of Table 2 cells within 3 points", near >= 0.8 * len(cells), f"{near} of {len(cells)}")
        )
        v = verdict_from("P1", checks, measured)
        if "p1" not in data.campaigns:
            return v
        # the paced cells that fail the first check, measured from their
        # high-speed flows' samples; the smaller pacing costs are not
        st = self.hs_state(data, "p1")
        parts = []
        for r, pv, e in low:
            if e >= 90:
                continue
            fl = st.filter((pl.col("rate") == r) & (pl.col("variant") == pv)).sort("flow")
            if not fl.height:
                continue
            v.measured |= {f"loss_share_{pv}_{rate_text(r)}_flow{f}": s for f, s in zip(fl["flow"], fl["loss_share"])}
            parts.append(
                f"{VARIANTS[pv].name} at {rate_text(r)} ({fmt(e, 3)} %): its flows' first reductions set ssthresh "
                + " and ".join(f"{float(a):,.0f}" for a in fl["first_ssthresh"])
                + ", and over the measurement window they spent "
                + " and ".join(f"{float(a):.0%}" for a in fl["loss_share"])
                + " of the samples in recovery after a timeout, with RTOs backed off to "
                + fmt(float(fl["rto_max"].to_numpy().max()), 3)
                + " s"
            )
        if parts:
            v.reason += (
                ". Measured, for the cells below 90 % only: "
                + "; ".join(parts)
                + ". The other shortfalls (pacing costs of 1–3 points, Table 2's cells) are not explained"
            )
        return v

    @claim(
        "P2a",
        "At RTT ratio 6 with a 100 % buffer HSTCP's throughput ratio is about 140 and paced HSTCP's about 70.",
        "RTT ratio 6, buffer 100 %: HSTCP's ratio within a factor 2 of 140; paced HSTCP's within a factor "
        "2 of 70; paced HSTCP's ratio below HSTCP's.",
        counterfactual=Swap("flows[0].label", "hstcp", "hstcp_paced"),
        paper=[PAPER_P2["hstcp"], PAPER_P2["hstcp_paced"]],
    )
    def _claim_p2a(self, data: StudyData) -> Verdict:
        h, hp = self.ratio(data, "hstcp", 6, 1.0), self.ratio(data, "hstcp_paced", 6, 1.0)
        ph, php = PAPER_P2["hstcp"].single, PAPER_P2["hstcp_paced"].single
        v = verdict_from(
            "P2a",
            [
                Check(f"HSTCP within ×2 of {ph:g}", ph / 2 <= h <= 2 * ph, f"{fmt(h, 3)}"),
                Check(f"paced HSTCP within ×2 of {php:g}", php / 2 <= hp <= 2 * php, f"{fmt(hp, 3)}"),
                Check("pacing lowers the ratio", hp < h, f"{fmt(hp, 3)} vs {fmt(h, 3)}"),
            ],
            {
                "hstcp": h,
                "hstcp_paced": hp,
                "hstcp38": self.ratio(data, "hstcp38", 6, 1.0),
                "hstcp38_paced": self.ratio(data, "hstcp38_paced", 6, 1.0),
                "hstcp_lpaced": self.ratio(data, "hstcp_lpaced", 6, 1.0),
            },
            why_not="the ratio depends on how far the run has converged: the paper's 200 s at 2.5 Gb/s is a few "
            "hundred RTTs of the 240 ms flow",
        )
        conv = {x: self.conv_time(data, x) for x in data.plan.conv_variants}
        if conv:
            v.measured.update({f"converged_after_s_{x}": t for x, t in conv.items()})
            v.show(
                f"convergence (the convergence figure: equal RTTs, {rate_text(data.plan.p2_rate)}, ratio over "
                "[T/2, T] stays within ×2 of 1 from T on): "
                + ", ".join(f"{VARIANTS[x].name} T = {fmt(t, 3)} s" for x, t in conv.items())
                + f"; this mode's P2 runs last {data.plan.p2_dur:g} s"
            )
        return v

    @claim(
        "P2b",
        "STCP is the least fair, about 300 (2.2 Gb/s against 6.84 Mb/s).",
        "RTT ratio 6, buffer 100 %: STCP's ratio is the largest of the five variants and within a factor 2 of 300.",
        counterfactual=Swap("flows[0].label", "stcp", "hstcp_paced"),
        paper=PAPER_P2["stcp"],
    )
    def _claim_p2b(self, data: StudyData) -> Verdict:
        rs = {v: self.ratio(data, v, 6, 1.0) for v in PRIMARY}
        s, ps = rs["stcp"], PAPER_P2["stcp"].single
        return verdict_from(
            "P2b",
            [
                Check(
                    "STCP largest",
                    all(s >= x for v, x in rs.items() if v != "stcp" and not math.isnan(x)),
                    ", ".join(f"{VARIANTS[v].name} {fmt(x, 3)}" for v, x in rs.items()),
                ),
                Check(f"STCP within ×2 of {ps:g}", ps / 2 <= s <= 2 * ps, fmt(s, 3)),
            ],
            {f"ratio_{v}": x for v, x in rs.items()},
            why_not="MIMD growth is RTT-proportional in rate: the 240 ms flow gains 1 % per RTT six times slower, "
            "and the ratio keeps widening with run length",
        )

    def _buffers(self, data: StudyData) -> list[float]:
        return sorted({b for r, b in data.plan.p2_cells if r == 6}, reverse=True)

    @claim(
        "P2c",
        "Smaller buffers make every variant less fair.",
        "RTT ratio 6: for each variant the ratio at 25 % is above the ratio at 100 % (and, where run, "
        "50 % lies between or above 100 %).",
        counterfactual=Swap("topology.buffer", "1bdp", "0.25bdp", only=("p2",)),
    )
    def _claim_p2c(self, data: StudyData) -> Verdict:
        bufs = self._buffers(data)
        checks, measured = [], {}
        for v in PRIMARY:
            rs = [self.ratio(data, v, 6, b) for b in bufs]
            for b, x in zip(bufs, rs):
                measured[f"{v}_{b:g}bdp"] = x
            ok = rs[-1] > rs[0] and all(rs[i] >= rs[0] for i in range(1, len(rs)))
            checks.append(
                Check(
                    f"{VARIANTS[v].name} less fair with smaller buffers",
                    ok,
                    " → ".join(f"{b:.0%} {fmt(x, 3)}" for b, x in zip(bufs, rs)),
                )
            )
        return verdict_from(
            "P2c",
            checks,
            measured,
            why_not="with a smaller buffer both flows lose packets in the same bursts; the "
            "short-RTT flow recovers faster either way, so the ratio need not grow",
        )

    @claim(
        "P2d",
        "Pacing roughly halves the throughput ratio at every buffer size, for HSTCP and BI-TCP.",
        "RTT ratio 6, every buffer run: paced / unpaced ratio in [0.25, 0.75] for HSTCP and for BI-TCP.",
        # Exchanging a variant with its paced twin inverts its quotients;
        # where they lie far outside [0.25, 0.75] either way round (3–70 in
        # quick mode) the exchange moves no check, so the rule is shown on
        # tables where the claim holds and where it does not.
        counterfactual=TableTest("test_p2d_fails_when_pacing_does_not_halve_the_ratio"),
    )
    def _claim_p2d(self, data: StudyData) -> Verdict:
        checks, measured = [], {}
        for b in self._buffers(data):
            for base in ("hstcp", "bic"):
                u, p = self.ratio(data, base, 6, b), self.ratio(data, f"{base}_paced", 6, b)
                q = p / u if u else math.nan
                measured[f"{base}_{b:g}bdp"] = q
                checks.append(
                    Check(
                        f"{VARIANTS[base].name} at {b:.0%}: paced/unpaced in [0.25, 0.75]",
                        0.25 <= q <= 0.75,
                        f"{fmt(p, 3)} / {fmt(u, 3)} = {fmt(q, 3)}",
                    )
                )
        v = verdict_from("P2d", checks, measured)
        if "p2" not in data.campaigns:
            return v
        st = self.hs_state(data, "p2").filter((pl.col("flow") == 1) & (pl.col("rtt_ratio") == 6))
        cells = []
        cuts: dict[str, list[float]] = {"paced": [], "unpaced": []}
        for b in self._buffers(data):
            for base in ("hstcp", "bic"):
                row: dict[str, tuple[float, ...]] = {}
                for x in (base, f"{base}_paced"):
                    at = st.filter((pl.col("variant") == x) & (pl.col("buffer") == b))
                    if at.height:
                        row[x] = tuple(float(at[k].to_numpy().mean()) for k in ("first_ssthresh", "cwnd_max", "cuts"))
                if len(row) < 2:
                    continue
                (fu, mu, cu), (fp, mp, cp) = row[base], row[f"{base}_paced"]
                cuts["paced"].append(cp)
                cuts["unpaced"].append(cu)
                for i, k in enumerate(("first_ssthresh", "cwnd_max", "cuts")):
                    v.measured |= {f"{k}_{x}_{b:g}bdp": w[i] for x, w in row.items()}
                cells.append(
                    f"{VARIANTS[base].name} at {b:.0%}: ssthresh after its first reduction {fp:,.0f} paced against "
                    f"{fu:,.0f} unpaced; over the measurement window its largest window {mp:,.0f} against "
                    f"{mu:,.0f} and {cp:.0f} reductions against {cu:.0f}"
                )
        if cells:
            v.show(
                "the 240 ms flow (the ratio's denominator), from its 1-s samples: "
                + "; ".join(cells)
                + f". Paced, it leaves slow start at a far smaller window and does not regain one in the run "
                "(at small windows HSTCP and BI-TCP add about one segment per 240 ms round trip); its "
                f"reductions over these cells total {sum(cuts['paced']):.0f} against {sum(cuts['unpaced']):.0f} "
                "unpaced. Why a paced long-RTT flow falls to small windows is not yet shown; the authors' "
                "pacer is not part of ns-2, so whether theirs does the same cannot be checked against its code"
            )
        return v

    def _regular(self, data: StudyData, rate: float) -> dict[str, float]:
        return {v: self.shares(data, rate, v)["regular"] for v in PRIMARY}

    @claim(
        "P3a",
        "At 20 Mb/s BI-TCP is the least friendly (low window 14, binary search at small windows).",
        "20 Mb/s: BI-TCP leaves regular TCP (web + small + long-lived) the smallest share of the five variants, "
        "below the next smallest by more than their seeds' spread (the difference of the means exceeds the sum "
        "of their standard errors).",
        changed_after_results="the rank alone passed on a 0.02-point difference, well inside the seeds' "
        "spread; a rank now needs a margin beyond it",
        counterfactual=Swap("flows[0].label", "bic", "hstcp_paced"),
    )
    def _claim_p3a(self, data: StudyData) -> Verdict:
        reg = self._regular(data, 20e6)
        least = min(reg, key=lambda v: reg[v])
        nxt = min((v for v in PRIMARY if v != "bic"), key=lambda v: reg[v])
        runs = self.per_run(data, "p3").filter(pl.col("rate") == 20e6)

        def shares(v: str) -> list[float]:
            r = runs.filter(pl.col("variant") == v)
            return ((r["web"] + r["small TCP"] + r["long-lived TCP"]) / 20e6).to_list()

        return verdict_from(
            "P3a",
            [
                Check(
                    "BI-TCP leaves regular TCP the least",
                    least == "bic",
                    ", ".join(f"{VARIANTS[v].name} {reg[v]:.1%}" for v in PRIMARY),
                ),
                margin_check(
                    f"by more than the seeds' spread (next: {VARIANTS[nxt].name})",
                    shares("bic"),
                    shares(nxt),
                    f"{VARIANTS['bic'].name} {reg['bic']:.2%}, {VARIANTS[nxt].name} {reg[nxt]:.2%}",
                    one_seed=data.seed is not None,
                ),
            ],
            {f"regular_{v}": x for v, x in reg.items()},
            why_not="at 20 Mb/s the 25 small and the long-lived flows take most of the link, the "
            "high-speed flows' windows stay near their low windows (14–31), where all "
            "variants act like Reno",
        )

    @claim(
        "P3b",
        "At 100 Mb/s friendliness ranks paced HSTCP > HSTCP > paced BI-TCP > BI-TCP > STCP; paced "
        "HSTCP leaves regular TCP more than HSTCP with about the same unused share.",
        "100 Mb/s: regular TCP's share orders the variants as the paper (Kendall τ ≥ 0.6); paced HSTCP's "
        "regular share > HSTCP's; their unused shares within 2 points.",
        counterfactual=Swap("flows[0].label", "hstcp_paced", "stcp"),
    )
    def _claim_p3b(self, data: StudyData) -> Verdict:
        order = ["hstcp_paced", "hstcp", "bic_paced", "bic", "stcp"]
        sh = {v: self.shares(data, 100e6, v) for v in order}
        reg = [sh[v]["regular"] for v in order]
        tau = kendall(reg, [5, 4, 3, 2, 1])
        return verdict_from(
            "P3b",
            [
                Check(
                    "paper's order (Kendall τ ≥ 0.6)",
                    tau >= 0.6,
                    f"τ = {fmt(tau, 2)}; " + ", ".join(f"{VARIANTS[v].name} {sh[v]['regular']:.1%}" for v in order),
                ),
                Check(
                    "paced HSTCP leaves regular TCP more than HSTCP",
                    sh["hstcp_paced"]["regular"] > sh["hstcp"]["regular"],
                    f"{sh['hstcp_paced']['regular']:.1%} vs {sh['hstcp']['regular']:.1%}",
                ),
                Check(
                    "unused shares within 2 points",
                    abs(sh["hstcp_paced"]["unused"] - sh["hstcp"]["unused"]) <= 0.02,
                    f"{sh['hstcp_paced']['unused']:.1%} vs {sh['hstcp']['unused']:.1%}",
                ),
            ],
            {f"regular_{v}": sh[v]["regular"] for v in order} | {"tau": tau},
            why_not="the regular flows' share is set mostly by the 25 window-capped flows, whose rate does not "
            "depend on the high-speed variant while the queue is short",
        )

    @claim(
        "P3c",
        "At 500 Mb/s and 2.5 Gb/s regular TCP gets a small share; paced BI-TCP is the friendliest, "
        "paced HSTCP is close to BI-TCP, and STCP is the least friendly.",
        "At 500 Mb/s and 2.5 Gb/s: regular TCP's share < 30 % with every variant; paced BI-TCP leaves "
        "regular TCP the largest share; STCP the smallest; |paced HSTCP − BI-TCP| ≤ |HSTCP − BI-TCP| "
        "(regular share).",
        counterfactual=Swap("flows[0].label", "bic_paced", "stcp"),
    )
    def _claim_p3c(self, data: StudyData) -> Verdict:
        checks, measured = [], {}
        for rate in (500e6, 2.5e9):
            if rate not in data.plan.rates:
                continue
            reg = self._regular(data, rate)
            for v, x in reg.items():
                measured[f"regular_{v}_{rate_text(rate)}"] = x
            txt = ", ".join(f"{VARIANTS[v].name} {reg[v]:.1%}" for v in PRIMARY)
            checks.append(Check(f"{rate_text(rate)}: regular TCP < 30 %", max(reg.values()) < 0.30, txt))
            checks.append(
                Check(f"{rate_text(rate)}: paced BI-TCP friendliest", max(reg, key=lambda k: reg[k]) == "bic_paced", "")
            )
            checks.append(
                Check(f"{rate_text(rate)}: STCP least friendly", min(reg, key=lambda k: reg[k]) == "stcp", "")
            )
            checks.append(
                Check(
                    f"{rate_text(rate)}: paced HSTCP closer to BI-TCP than HSTCP",
                    abs(reg["hstcp_paced"] - reg["bic"]) <= abs(reg["hstcp"] - reg["bic"]),
                    "",
                )
            )
        if not checks:
            checks.append(Check("rates 500 Mb/s and 2.5 Gb/s run", False, "not in this mode"))
        return verdict_from(
            "P3c",
            checks,
            measured,
            why_not="web sessions that alone take 20–50 % of the link (the paper's calibration, "
            "measured here at every rate) keep most of that share against the high-speed "
            "flows, so regular TCP's share cannot be small unless the web load did not grow "
            "with the link in the paper; the ranking among variants is decided by a few "
            "points",
        )
