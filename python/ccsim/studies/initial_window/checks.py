"""The claims' checks (IW1a–IW2c): each measures what its claim states and applies
its rule; a part of the study class (`InitialWindow` in study.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl

from ..base import Check, PaperValue, StudyData, Verdict, claim, num, verdict_from
from ..counterfactual import Swap, TableTest
from .measures import Measures
from .scenarios import (
    LINK_NAME,
    MISSING,
    MSS,
    SENSITIVITIES,
    SIZE,
    _mean,
    _one,
    min_fct_data,
    rounds_needed,
)

# The paper's FCTs at IW 20, RTT 100 ms (its text on Fig. 2b), seconds.
PAPER_IW1F = {
    "cubic_paced": PaperValue("paced CUBIC's FCT at IW 20, RTT 100 ms", 0.1, "s", "text on Fig. 2"),
    "bbr": PaperValue("BBR's FCT at IW 20, RTT 100 ms", 0.2, "s", "text on Fig. 2"),
}

# what a claim's rule gives for one table: its checks and the numbers it read
Outcome = tuple[list[Check], dict[str, Any]]


class Checks(Measures):
    def _both(
        self,
        data: StudyData,
        claim: str,
        exp: str,
        fn: Callable[[pl.DataFrame], Outcome],
        why_not: str = "",
        kernel_exp: str | None = None,
    ) -> Verdict:
        t = (self.fct if exp.startswith("iw1") else self.convergence)(data, exp)
        checks: list[Check]
        meas: dict[str, Any]
        if t is None:
            checks, meas = [Check("the experiment is in this mode's plan", False, f"missing: {exp}")], {}
        else:
            try:
                checks, meas = fn(t)
            except MISSING as e:
                checks, meas = [Check("the rule's cells are in this mode's grid", False, f"missing: {e}")], {}
        v = verdict_from(claim, checks, meas, why_not=why_not)
        self._sensitivities(data, exp, fn, v)
        tk = (self.fct if exp.startswith("iw1") else self.convergence)(data, kernel_exp) if kernel_exp else None
        if tk is None or tk.height == 0:
            why = data.plan.emulation or "not in this mode's kernel grid"
            v.reason += f". Kernel: not run ({why})."
            return v
        try:
            kc, km = fn(tk)
        except MISSING as e:
            v.reason += f". Kernel: the rule needs cells the kernel grid of this mode does not have ({e})."
            return v

        def mark(c: Check) -> str:
            # a check on cells this mode's kernel grid does not have cannot be judged
            return "–" if "nan" in c.detail.lower() else ("✓" if c.ok else "✗")

        v.reason += ". Kernel: " + "; ".join(f"{mark(c)} {c.what}" + (f" ({c.detail})" if c.detail else "") for c in kc)
        v.measured |= {f"kernel_{k}": x for k, x in km.items()}
        return v

    def _sensitivities(self, data: StudyData, exp: str, fn: Callable[[pl.DataFrame], Outcome], v: Verdict) -> None:
        """The claim's checks on each sensitivity set-up of `exp`, appended
        to the verdict's reason (the verdict itself is the primary's)."""
        for sexp, link in SENSITIVITIES.get(exp, []):
            t = (self.fct if exp.startswith("iw1") else self.convergence)(data, sexp)
            if t is None or t.height == 0:
                continue
            try:
                sc, sm = fn(t)
            except MISSING:
                continue
            held = sum(c.ok for c in sc)
            v.reason += (
                f". Sensitivity ({LINK_NAME[link]}): {held} of {len(sc)} checks hold ("
                + "; ".join(f"{'✓' if c.ok else '✗'} {c.what}" + (f" ({c.detail})" if c.detail else "") for c in sc)
                + ")"
            )
            v.measured |= {f"{link}_{k}": x for k, x in sm.items()}

    @claim(
        "IW1-a",
        "CUBIC's FCT falls as IW grows, but past a threshold it rises again (at 10 Mb/s IW 50 is slower than IW 20).",
        "CUBIC, FCT from the first data byte: the mean over RTTs and rates falls from IW 1 to 2 to 4 to 10; "
        "at 10 Mb/s, IW 50 is slower than IW 20 at both RTTs.",
        counterfactual=Swap("tcp.initial_window", 1, 10),
    )
    def _iw1a(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            cu = t.filter(pl.col("cc") == "cubic")
            m = {iw: _mean(cu.filter(pl.col("iw") == iw)["fct_data_s"]) for iw in (1, 2, 4, 10)}
            slow = [(r, _one(cu, iw=50, rtt_ms=r, rate=10), _one(cu, iw=20, rtt_ms=r, rate=10)) for r in (30, 100)]
            chk = [
                Check(
                    "falls IW 1 → 2 → 4 → 10",
                    m[1] > m[2] > m[4] > m[10],
                    " > ".join(f"{m[i]:.3f}" for i in (1, 2, 4, 10)),
                ),
                Check(
                    "10 Mb/s: IW 50 slower than IW 20 at both RTTs",
                    all(a > b for _, a, b in slow),
                    ", ".join(f"{r} ms: {a:.3f} vs {b:.3f} s" for r, a, b in slow),
                ),
            ]
            return chk, {
                **{f"fct_iw{k}": v for k, v in m.items()},
                **{f"fct_10M_{r}ms_iw50": a for r, a, _ in slow},
                **{f"fct_10M_{r}ms_iw20": b for r, _, b in slow},
            }

        return self._both(
            data,
            "IW1-a",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
        )

    @claim(
        "IW1-b",
        "FCT grows with RTT.",
        "In every (algorithm, IW, rate) cell the FCT at RTT 100 ms exceeds the FCT at 30 ms.",
        counterfactual=Swap("topology.delay", "15ms", "50ms"),
    )
    def _iw1b(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            w = t.pivot(on="rtt_ms", index=["cc", "iw", "rate"], values="fct_data_s")
            ok = (w["100.0"] > w["30.0"]).to_list()
            return [Check("FCT(100 ms) > FCT(30 ms) in every cell", all(ok), f"{sum(ok)} of {len(ok)} cells")], {
                "cells_longer_at_100ms": sum(ok),
                "cells": len(ok),
            }

        return self._both(data, "IW1-b", "iw1", rule, kernel_exp="iw1_emu")

    @claim(
        "IW1-c",
        "The rate barely matters for 100 KB.",
        "Median over (algorithm, IW, RTT) cells of (max − min)/min of the FCT across the rates ≤ 20 %.",
        counterfactual=TableTest("test_iw1c_fails_when_the_rate_sets_the_flow_completion_time"),
    )
    def _iw1c(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            g = t.group_by(["cc", "iw", "rtt_ms"]).agg(
                ((pl.col("fct_data_s").max() - pl.col("fct_data_s").min()) / pl.col("fct_data_s").min()).alias("spread")
            )
            med = num(g["spread"].median())
            return [Check("median spread across rates ≤ 20 %", med <= 0.20, f"{med:.1%}")], {"median_rate_spread": med}

        return self._both(
            data,
            "IW1-c",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
            why_not="at 10 Mb/s serializing 71 packets takes 85 ms, comparable with the 30 ms RTT",
        )

    @claim(
        "IW1-d",
        "Pacing lowers CUBIC's FCT, most at high RTT.",
        "Mean over cells: paced CUBIC's FCT < CUBIC's; at 100 ms its mean relative reduction is positive "
        "and larger than at 30 ms.",
        changed_after_results="the second check was corrected after the kernel column ran: it had "
        "counted a smaller slowdown at 100 ms than at 30 ms as 'a larger reduction'",
        counterfactual=Swap("flows[0].label", "cubic", "cubic_paced"),
    )
    def _iw1d(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            w = t.pivot(on="cc", index=["iw", "rtt_ms", "rate"], values="fct_data_s")
            red = 1 - w["cubic_paced"] / w["cubic"]
            w = w.with_columns(red.alias("red"))
            r30, r100 = _mean(w.filter(pl.col("rtt_ms") == 30)["red"]), _mean(w.filter(pl.col("rtt_ms") == 100)["red"])
            mp, mc = _mean(w["cubic_paced"]), _mean(w["cubic"])
            return [
                Check("paced CUBIC faster on average", mp < mc, f"{mp:.3f} vs {mc:.3f} s"),
                Check(
                    "a reduction at 100 ms, larger than at 30 ms", r100 > max(r30, 0.0), f"{r100:+.1%} vs {r30:+.1%}"
                ),
            ], {"fct_paced": mp, "fct_cubic": mc, "reduction_30ms": r30, "reduction_100ms": r100}

        return self._both(
            data,
            "IW1-d",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
            why_not="Linux pacing sends a slow-start flight at 2·cwnd/srtt (over half an RTT) while the shaper "
            "spreads an unpaced flight by itself, so where nothing is lost the two finish within a few per "
            "cent of each other, and netem's 1000-packet limit loses nothing; pacing pays where the unpaced "
            "burst overflows the queue: with a 10-packet queue (sensitivity) paced CUBIC is faster, most at "
            "100 ms, as the paper says",
        )

    @claim(
        "IW1-e",
        "BBR is almost insensitive to IW and RTT and mostly faster than CUBIC, most of all at small IW.",
        "BBR's spread across IW ((max − min)/min per RTT and rate, averaged) is below CUBIC's; BBR's FCT at "
        "100 ms is ≤ 1.5 × its FCT at 30 ms (mean over cells); BBR is faster than CUBIC in at least half "
        "the cells; CUBIC/BBR is larger at IW ≤ 4 than at IW ≥ 20.",
        counterfactual=Swap("flows[0].label", "bbr", "cubic"),
    )
    def _iw1e(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            # rows in a fixed order: the means below sum them, and the report must not change in
            # its last digit from one invocation to the next
            sp = (
                t.group_by(["cc", "rtt_ms", "rate"])
                .agg(
                    ((pl.col("fct_data_s").max() - pl.col("fct_data_s").min()) / pl.col("fct_data_s").min()).alias("s")
                )
                .sort(["cc", "rtt_ms", "rate"])
            )
            s_bbr, s_cu = _mean(sp.filter(pl.col("cc") == "bbr")["s"]), _mean(sp.filter(pl.col("cc") == "cubic")["s"])
            b = t.filter(pl.col("cc") == "bbr")
            rr = _mean(b.filter(pl.col("rtt_ms") == 100)["fct_data_s"]) / _mean(
                b.filter(pl.col("rtt_ms") == 30)["fct_data_s"]
            )
            w = (
                t.pivot(on="cc", index=["iw", "rtt_ms", "rate"], values="fct_data_s")
                .with_columns((pl.col("cubic") / pl.col("bbr")).alias("adv"))
                .sort(["iw", "rtt_ms", "rate"])
            )
            faster = num((w["bbr"] < w["cubic"]).mean())
            lo, hi = _mean(w.filter(pl.col("iw") <= 4)["adv"]), _mean(w.filter(pl.col("iw") >= 20)["adv"])
            return [
                Check("less sensitive to IW than CUBIC", s_bbr < s_cu, f"spread {s_bbr:.1%} vs {s_cu:.1%}"),
                Check("FCT(100 ms) ≤ 1.5 × FCT(30 ms)", rr <= 1.5, f"× {rr:.2f}"),
                Check("faster than CUBIC in ≥ half the cells", faster >= 0.5, f"{faster:.0%}"),
                Check("advantage larger at IW ≤ 4 than IW ≥ 20", lo > hi, f"CUBIC/BBR {lo:.2f} vs {hi:.2f}"),
            ], {
                "iw_spread_bbr": s_bbr,
                "iw_spread_cubic": s_cu,
                "bbr_rtt_ratio": rr,
                "bbr_faster_share": faster,
                "cubic_over_bbr_small_iw": lo,
                "cubic_over_bbr_large_iw": hi,
            }

        return self._both(
            data,
            "IW1-e",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
            why_not="no algorithm can be insensitive to RTT on a 71-segment transfer: it needs "
            "several round trips whatever the window rule; and BBR starts from the same IW and "
            "its STARTUP (pacing gain 2/ln 2 on the delivery rate it has measured) opens no "
            "faster than slow start in the first rounds, so it does not beat CUBIC without loss",
        )

    @claim(
        "IW1-f",
        "At IW 20 and RTT 100 ms paced CUBIC (≈ 0.1 s) beats BBR (≈ 0.2 s).",
        "At IW 20, RTT 100 ms, mean over rates: paced CUBIC's FCT < BBR's; paced CUBIC's FCT within 25 % "
        "of 0.1 s; BBR's within 25 % of 0.2 s.",
        paper=[PAPER_IW1F["cubic_paced"], PAPER_IW1F["bbr"]],
        counterfactual=Swap("flows[0].label", "cubic_paced", "bbr"),
    )
    def _iw1f(self, data: StudyData) -> Verdict:
        rtt = 0.1
        bound = min_fct_data(math.ceil(SIZE / MSS), 20, rtt)

        def rule(t: pl.DataFrame) -> Outcome:
            p = _mean(
                t.filter((pl.col("cc") == "cubic_paced") & (pl.col("iw") == 20) & (pl.col("rtt_ms") == 100))[
                    "fct_data_s"
                ]
            )
            b = _mean(
                t.filter((pl.col("cc") == "bbr") & (pl.col("iw") == 20) & (pl.col("rtt_ms") == 100))["fct_data_s"]
            )
            pp, pb = PAPER_IW1F["cubic_paced"].single, PAPER_IW1F["bbr"].single
            return [
                Check("paced CUBIC faster than BBR", p < b, f"{p:.3f} vs {b:.3f} s"),
                Check(f"paced CUBIC ≈ {pp:g} s (±25 %)", abs(p / pp - 1) <= 0.25, f"{p:.3f} s"),
                Check(f"BBR ≈ {pb:g} s (±25 %)", abs(b / pb - 1) <= 0.25, f"{b:.3f} s"),
            ], {"fct_paced_iw20_100ms": p, "fct_bbr_iw20_100ms": b, "lower_bound_s": bound}

        return self._both(
            data,
            "IW1-f",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
            why_not=(
                f"≈ 0.1 s is physically impossible: {math.ceil(SIZE / MSS)} segments from IW 20 need "
                f"{rounds_needed(math.ceil(SIZE / MSS), 20)} flights (20 + 40 + 11), i.e. at least "
                f"2 RTT + RTT/2 = {bound:.2f} s from the first data byte ({bound + rtt:.2f} s with the "
                "handshake) at RTT 100 ms; the paper probably timed something else, such as the "
                "sender's socket writes (iperf3 reports when the data is handed to the kernel)"
            ),
        )

    @claim(
        "IW2-a",
        "CUBIC's convergence time falls with IW and rate and grows with RTT, except IW 50 / RTT "
        "100 ms / 10 Mb/s, slower than IW 10.",
        "CUBIC, T_conv: mean over (RTT, rate) at IW 1 > at IW 10; mean over (IW, RTT) at 10 Mb/s > at "
        "100 Mb/s; mean over (IW, rate) at 100 ms > at 30 ms; at 10 Mb/s, 100 ms: IW 50 > IW 10.",
        counterfactual=Swap("tcp.initial_window", 1, 10),
    )
    def _iw2a(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            cu = t.filter(pl.col("cc") == "cubic")

            def by(col: str, v: int) -> float:
                return _mean(cu.filter(pl.col(col) == v)["t_conv"])

            iw1, iw10 = by("iw", 1), by("iw", 10)
            r10, r100 = by("rate", 10), by("rate", 100)
            t30, t100 = by("rtt_ms", 30), by("rtt_ms", 100)
            e50, e10 = _one(cu, "t_conv", iw=50, rtt_ms=100, rate=10), _one(cu, "t_conv", iw=10, rtt_ms=100, rate=10)
            return [
                Check("falls with IW (IW 1 > IW 10)", iw1 > iw10, f"{iw1:.1f} vs {iw10:.1f} s"),
                Check("falls with rate", r10 > r100, f"10 Mb/s {r10:.1f} vs 100 Mb/s {r100:.1f} s"),
                Check("grows with RTT", t100 > t30, f"100 ms {t100:.1f} vs 30 ms {t30:.1f} s"),
                Check("10 Mb/s, 100 ms: IW 50 slower than IW 10", e50 > e10, f"{e50:.1f} vs {e10:.1f} s"),
            ], {
                "t_iw1": iw1,
                "t_iw10": iw10,
                "t_10M": r10,
                "t_100M": r100,
                "t_30ms": t30,
                "t_100ms": t100,
                "t_iw50_100ms_10M": e50,
                "t_iw10_100ms_10M": e10,
            }

        return self._both(data, "IW2-a", "iw2", rule, kernel_exp="iw2_emu", why_not=self._iw2_why(data))

    @claim(
        "IW2-b",
        "Paced CUBIC mostly converges faster, but at RTT 100 ms a higher rate makes it slower.",
        "T_conv: paced CUBIC < CUBIC in at least half the cells; at 100 ms, paced CUBIC's mean over IW at "
        "100 Mb/s > at 10 Mb/s.",
        counterfactual=Swap("topology.rate", "10Mbps", "100Mbps"),
    )
    def _iw2b(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            w = t.pivot(on="cc", index=["iw", "rtt_ms", "rate"], values="t_conv")
            share = num((w["cubic_paced"] < w["cubic"]).mean())
            p = t.filter((pl.col("cc") == "cubic_paced") & (pl.col("rtt_ms") == 100))
            a, b = _mean(p.filter(pl.col("rate") == 100)["t_conv"]), _mean(p.filter(pl.col("rate") == 10)["t_conv"])
            return [
                Check("paced faster in ≥ half the cells", share >= 0.5, f"{share:.0%}"),
                Check("100 ms: slower at 100 Mb/s than at 10 Mb/s", a > b, f"{a:.1f} vs {b:.1f} s"),
            ], {"paced_faster_share": share, "paced_100ms_100M": a, "paced_100ms_10M": b}

        return self._both(data, "IW2-b", "iw2", rule, kernel_exp="iw2_emu", why_not=self._iw2_why(data))

    @claim(
        "IW2-c",
        "BBR converges steadily, almost independent of IW; faster at a higher rate, slower at a higher RTT.",
        "BBR, T_conv: (max − min) across IW ≤ 25 % of the mean, averaged over (RTT, rate); mean at 100 Mb/s "
        "< at 10 Mb/s; mean at 100 ms > at 30 ms.",
        counterfactual=Swap("topology.rate", "10Mbps", "100Mbps"),
    )
    def _iw2c(self, data: StudyData) -> Verdict:
        def rule(t: pl.DataFrame) -> Outcome:
            b = t.filter(pl.col("cc") == "bbr")
            sp = _mean(
                b.group_by(["rtt_ms", "rate"]).agg(
                    ((pl.col("t_conv").max() - pl.col("t_conv").min()) / pl.col("t_conv").mean()).alias("s")
                )["s"]
            )
            r10, r100 = (
                _mean(b.filter(pl.col("rate") == 10)["t_conv"]),
                _mean(b.filter(pl.col("rate") == 100)["t_conv"]),
            )
            t30, t100 = (
                _mean(b.filter(pl.col("rtt_ms") == 30)["t_conv"]),
                _mean(b.filter(pl.col("rtt_ms") == 100)["t_conv"]),
            )
            return [
                Check("independent of IW (spread ≤ 25 %)", sp <= 0.25, f"{sp:.0%}"),
                Check("faster at 100 Mb/s", r100 < r10, f"{r100:.1f} vs {r10:.1f} s"),
                Check("slower at 100 ms", t100 > t30, f"{t100:.1f} vs {t30:.1f} s"),
            ], {"bbr_iw_spread": sp, "t_10M": r10, "t_100M": r100, "t_30ms": t30, "t_100ms": t100}

        return self._both(data, "IW2-c", "iw2", rule, kernel_exp="iw2_emu", why_not=self._iw2_why(data))

    def _iw2_why(self, data: StudyData) -> str:
        c = self.convergence(data, "iw2")
        if c is None:
            return ""
        by_rate = {r: num(c.filter(pl.col("rate") == r)["t_conv"].mean()) for r in sorted(set(c["rate"]))}
        return (
            "on Mininet's default link netem's 1000-packet limit is many BDPs at 10 Mb/s (1.2 s of queue): "
            "CUBIC fills it, loses a burst and recovers over seconds, and the in-order goodput swings after "
            "each recovery (the kernel's does the same), so at 10 Mb/s the goodput never stays in the band: "
            "mean T_conv "
            + ", ".join(f"{t:.0f} s at {r} Mb/s" for r, t in by_rate.items())
            + f" (cells {num(c['t_conv'].min()):.0f}–{num(c['t_conv'].max()):.0f} s); these orderings then follow the "
            "queue, not the initial window. The 10-packet-queue sensitivity spreads T_conv over tens of seconds "
            "as the paper's plots do"
        )
