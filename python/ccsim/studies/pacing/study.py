"""The study: its plan, set-up table and experiments; the measurements are
in measures.py, the claims (statements and rules) in checks.py, the figures
in figures.py."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...experiments.sweep import Sweep
from ...scenario.mixes import background_mix, mix_summary
from ..base import Choice, Experiment, ns2_2004_choice
from ..kit import Plan
from .checks import Checks
from .figures import Figures
from .scenarios import (
    ACCESS_RATE,
    BG_RTT,
    BG_START,
    BOTTLENECK_DELAY,
    HS_RTT_MS,
    LINUX,
    LW38,
    MSS,
    PKT,
    PRIMARY,
    RATES,
    WEB_RTT_CLASSES,
    WEB_SHARE,
    WEB_THINK,
    _variant_derived,
    _web_derived,
    rate_text,
    scenario,
)


@dataclass(frozen=True)
class PacingPlan(Plan):
    rates: list[float]  # P1 and P3 bottleneck rates, b/s
    p1_dur: float  # run lengths, s (each measured over its second half)
    p3_dur: float
    p2_rate: float  # P2's bottleneck rate, b/s
    p2_dur: float
    p2_cells: list[tuple[int, float]]  # P2 (RTT ratio, buffer as a fraction of the BDP)
    p2_variants: list[str]
    p2_extra_cells: list[tuple[int, float]]  # cells for the LW 38 and Linux-pacing columns
    extra_seeds: list[int]  # their seeds
    p1_variants: list[str]
    calib_dur: float  # the web-only calibration runs
    conv_dur: float  # convergence runs (0: none)
    conv_variants: list[str]
    conv_rtt: list[int]  # ms
    p3_seeds: list[int] | None = None  # P3's own seeds (its shares move with the seed); None: `seeds`


class Pacing(Checks, Figures):
    name = "pacing"
    title = "High-speed TCP (HSTCP, STCP, BI-TCP) with and without pacing"
    reference = (
        'Y.-S. Choi, G.-W. Lee, Y.-Z. Cho, T.-M. Han, "Performance enhancement of high-speed TCP '
        'protocols using pacing" (in Korean), Journal of KICS, 2004'
    )
    cite = "Choi, Lee, Cho & Han 2004"
    simulator = "ns-2"
    summary_intro = (
        "ccsim's ns-2 stack reran the paper's dumbbell with its background mix (web sessions, 25 "
        "window-capped TCP flows, long-lived TCP): link efficiency from 20 Mb/s to 2.5 Gb/s, the "
        "throughput ratio of two high-speed flows with different RTTs, and each traffic class's share "
        "of the link, with ns-2 leaky-bucket pacing and, as a second column, Linux pacing."
    )

    def plan(self, mode: str) -> PacingPlan:
        if mode == "smoke":
            return PacingPlan(
                describe="toy size: 20 and 100 Mb/s only (P2 at 100 Mb/s), 6 s runs measured over 3–6 s, "
                "one seed, no convergence runs",
                rates=[20e6, 100e6],
                p1_dur=6.0,
                p3_dur=6.0,
                p2_rate=100e6,
                p2_dur=6.0,
                p2_cells=[(1, 1.0), (6, 1.0), (6, 0.25)],
                p2_variants=PRIMARY,
                p2_extra_cells=[(6, 1.0)],
                extra_seeds=[1],
                p1_variants=PRIMARY + LW38 + LINUX,
                seeds=[1],
                calib_dur=6.0,
                conv_dur=0.0,
                conv_variants=[],
                conv_rtt=[],
            )
        if mode == "quick":
            return PacingPlan(
                describe="runs shortened to 40 s (P1, P3) and 50 s (P2) measured over their second half, one "
                "seed (P3: three, its shares move with the seed); P2 at RTT ratios 1 and 6 (100 %) and "
                "ratio 6 at 50 % and 25 % for the paper's "
                "variants, the LW 38 and Linux-pacing columns on the headline cell (RTT ratio 6, "
                "100 %); convergence runs of 120 s for HSTCP and paced HSTCP at equal RTTs",
                rates=RATES,
                p1_dur=40.0,
                p3_dur=40.0,
                p2_rate=2.5e9,
                p2_dur=50.0,
                p2_cells=[(1, 1.0), (6, 1.0), (6, 0.5), (6, 0.25)],
                p2_variants=PRIMARY,
                p2_extra_cells=[(6, 1.0)],
                extra_seeds=[1],
                p1_variants=PRIMARY + LW38 + LINUX,
                seeds=[1],
                p3_seeds=[1, 2, 3],
                calib_dur=40.0,
                conv_dur=120.0,
                conv_variants=["hstcp", "hstcp_paced"],
                conv_rtt=[40],
            )
        if mode == "full":
            cells = [(r, b) for r in (1, 3, 6) for b in (1.0, 0.5, 0.25)]
            return PacingPlan(
                describe="the paper's 200 s runs measured over 100–200 s, 20 seeds, every P2 cell for the "
                "paper's five variants, the LW 38 and Linux-pacing columns at RTT ratio 6 for every "
                "buffer with 5 seeds; convergence runs of 600 s at RTT ratios 1 and 6",
                rates=RATES,
                p1_dur=200.0,
                p3_dur=200.0,
                p2_rate=2.5e9,
                p2_dur=200.0,
                p2_cells=cells,
                p2_variants=PRIMARY,
                p2_extra_cells=[(6, 1.0), (6, 0.5), (6, 0.25)],
                extra_seeds=[1, 2, 3, 4, 5],
                p1_variants=PRIMARY + LW38 + LINUX,
                seeds=list(range(1, 21)),
                calib_dur=200.0,
                conv_dur=600.0,
                conv_variants=PRIMARY,
                conv_rtt=[40, 240],
            )
        if mode == "points":
            # the full plan's sizes, on fewer points, seeds and experiments
            return replace(
                self.plan("full"),
                describe="the paper's size for the claims quick mode leaves short (P1, P2a–c; P2d reads the same "
                "runs): 200 s runs measured over 100–200 s, two seeds, P1's four rates and P2's RTT-ratio-6 "
                "cells (100, 50, 25 %) for the paper's five variants; no other experiment",
                p2_cells=[(6, 1.0), (6, 0.5), (6, 0.25)],
                p2_extra_cells=[],
                extra_seeds=[],
                p1_variants=PRIMARY,
                seeds=[1, 2],
                conv_dur=0.0,
                conv_variants=[],
                conv_rtt=[],
                claims=("P1", "P2a", "P2b", "P2c", "P2d"),
                experiments=("p1", "p2"),
            )
        raise ValueError(mode)

    def setup_rows(self, plan: PacingPlan) -> list[tuple[str, str]]:
        mix = background_mix(2.5e9, web_share=WEB_SHARE, web_think=WEB_THINK, mss=MSS)
        return [
            (
                "topology",
                f"dumbbell, FIFO DropTail bottleneck r0 → r1 ({BOTTLENECK_DELAY} one way), access links "
                f"{ACCESS_RATE} with per-flow delays setting each flow's RTT; bottleneck buffer = "
                "x × rate × mean base RTT of all flows (x = 1 unless stated)",
            ),
            (
                "high-speed flows",
                f"2 forward flows, RTT {HS_RTT_MS} ms (P2: the second 40/120/240 ms), start "
                "uniform in [0, min(5 s, run/8)]; HSTCP Low_Window 31, High_Window 83000, High_P 1e-7 (and "
                "Low_Window 38); STCP a 0.01, b 0.125, low window 16; BI-TCP Smax 32, Smin 0.01, "
                "β 0.125, low window 14",
            ),
            (
                "pacing",
                "high-speed flows only: ns-2 leaky bucket, one segment every srtt/cwnd (ccsim pacing = "
                "'window'); second column: Linux pacing (rate 1.2 · cwnd · mss / srtt, 2× in slow start, "
                "TSO-sized releases)",
            ),
            (
                "background",
                f"ccsim.background_mix: web sessions (Pareto II objects, mean 12 segments, shape 1.2; "
                f"exponential think {WEB_THINK}; nominal load {WEB_SHARE:.0%} of the link: "
                f"{mix[0]['count']} sessions at 2.5 Gb/s), 25 small TCP flows with cwnd ≤ 64 "
                f"segments, long-lived TCP flows (P1, P2: 4; P3: 2); RTTs uniform in "
                f"[{BG_RTT[0]}, {BG_RTT[1]}], starts uniform in [0, min({BG_START[1]}, run/4)]; "
                f"P1 and P2 in both directions, P3 forward only ({mix_summary(mix)} at 2.5 Gb/s, P2)",
            ),
            (
                "TCP",
                f"ccsim stack ns2-2.27 (ns-2.27's defaults: minrto 1 s, Sack1's duplicate-ACK threshold "
                f"max(3, cwnd/100)), Sack1 recovery for every flow, {MSS}-byte segments + 40 "
                f"header + 10 timestamp bytes (ns-2's ts_option_size_) = {PKT} bytes, no delayed ACKs, "
                "unlimited receiver window; regular TCP = "
                "NewReno window rules with Sack1",
            ),
            ("rates", ", ".join(rate_text(r) for r in plan.rates) + f"; P2 at {rate_text(plan.p2_rate)}"),
            (
                "run length",
                f"P1 {plan.p1_dur:g} s, P2 {plan.p2_dur:g} s, P3 {plan.p3_dur:g} s; measured "
                "over the second half of each run (the paper: 100–200 s of 200 s)",
            ),
            (
                "seeds",
                f"{len(plan.seeds)}, P3 {len(plan.p3_seeds or plan.seeds)} (random RTTs, starts and web "
                "objects; results averaged)",
            ),
            (
                "metrics",
                "efficiency = bytes put on the wire of r0 → r1 over the window / capacity; high-speed "
                "throughput ratio = goodput of flow 1 / flow 2 over the window; class share = class "
                "goodput / capacity, 'overhead' = efficiency − Σ goodput shares (headers, "
                "retransmissions, packets lost later), 'unused' = 1 − efficiency",
            ),
        ]

    def choices(self) -> list[Choice]:
        return [
            ns2_2004_choice("ns-2 version", "ns-2.27 (stack ns2-2.27)", "ns-2.35's defaults"),
            Choice(
                "background RTTs",
                f"uniform in [{BG_RTT[0]}, {BG_RTT[1]}]",
                "the paper says random RTTs without "
                "a range; this keeps the mean (≈ 60 ms) near the high-speed flows' 40 ms",
            ),
            Choice(
                "start times",
                "high-speed flows U[0, min(5 s, run/8)], small and long-lived U[0, min(10 s, "
                "run/4)], web sessions within their first think time",
                "'random start times' without a range; "
                "shorter runs start everything earlier so the measurement window sees every flow",
            ),
            Choice(
                "web load",
                f"nominal {WEB_SHARE:.0%} of the link: sessions = 0.3 · rate / (12 · {MSS} · 8 bit / {WEB_THINK})",
                "the paper: web traffic that alone would take 20–50 % of the link; the "
                "web-only share this produces is measured at every rate and shown in the P3 figure",
            ),
            Choice(
                "web model",
                "ns-2 PagePool/WebTraf example objects: Pareto II, mean 12 segments, shape 1.2; "
                "one connection per object, exponential think time 1 s",
                "the paper names web traffic only",
            ),
            Choice("small TCP", "bulk flows with cwnd ≤ 64 segments (ns-2 maxcwnd_)", "the paper: cwnd capped at 64"),
            Choice(
                "P1 and P2 background direction",
                "web, small and long-lived flows in both directions",
                "P2 says 'both directions'; P1 says 4 long-lived each way, so both ways for all of P1's mix",
            ),
            Choice(
                "P3 background",
                "2 long-lived, 25 small TCP and web, forward only",
                "the paper lists no reverse traffic for P3",
            ),
            Choice(
                "BDP RTT",
                "mean base RTT of all flows (ccsim bdp_rtt = 'mean'; web sessions included)",
                "the paper: 'the mean RTT of the flows'",
            ),
            Choice(
                "access links",
                f"{ACCESS_RATE}, 1 000 000-packet buffers",
                "not given; faster than every bottleneck so only r0 → r1 queues",
            ),
            Choice(
                "web session access links",
                f"{WEB_RTT_CLASSES} RTT classes (the centres of {WEB_RTT_CLASSES} equal parts of "
                f"{BG_RTT[0]}–{BG_RTT[1]}); the sessions of a class share one access-link pair (one client "
                "and one server host)",
                "the paper does not say how its sessions attach; ns-2's web-traffic set-ups put many sessions on "
                "shared client nodes. Earlier versions of this report gave every session its own RTT draw and "
                "four private access-link directions, which made the 2.5 Gb/s runs about 5× slower per packet; "
                "changed for speed, with the verdicts before and after in docs/studies.md",
                after_results=True,
            ),
            Choice(
                "throughput ratio",
                "goodput (in-order payload) of flow 1 / flow 2",
                "throughput in the paper's sense of delivered rate",
            ),
            Choice(
                "regular TCP",
                "NewReno window rules with ns-2 Sack1 recovery, no delayed ACKs",
                "the paper: Sack1 loss recovery; ns-2's default sink ACKs every segment",
            ),
            Choice(
                "Linux pacing column",
                "same stack, pacing = 'linux' (tcp_pacing_ca_ratio 120 %, ss ratio 200 %, TSO autosizing on)",
                "how a Linux sender would pace the same window",
            ),
            Choice(
                "P2 run length (quick)",
                "50 s, measured over the second half",
                "the paper runs 200 s; quick mode first ran P2 shorter and it was set to 50 s after those results "
                "were seen (the high-speed flows had not converged); --full runs the paper's 200 s",
                after_results=True,
            ),
        ]

    # ---- experiments
    def experiments(self, plan: PacingPlan) -> list[Experiment]:
        seeds = plan.seeds
        rates = [rate_text(r) for r in plan.rates]
        exps = []
        calib = Sweep(
            scenario(plan.rates[0], plan.calib_dur, high_speed=False, small=0, long_lived=0, both_ways=False),
            name="pacing.calib",
            grid={"topology.bottleneck_rate": rates, **_web_derived([0])},
            seeds=seeds[:1],
        )
        exps.append(Experiment("calib", "web sessions alone: the share of the link they take", calib))
        p1 = Sweep(
            scenario(plan.rates[0], plan.p1_dur),
            name="pacing.p1",
            grid={
                "topology.bottleneck_rate": rates,
                "flows[0].label": plan.p1_variants,
                **_variant_derived(),
                **_web_derived([2, 5]),
            },
            seeds=seeds,
        )
        exps.append(Experiment("p1", "P1: link efficiency against the bottleneck rate", p1))
        cells = plan.p2_cells
        p2 = Sweep(
            scenario(plan.p2_rate, plan.p2_dur),
            name="pacing.p2",
            zip={
                "flows[1].rtt": [f"{HS_RTT_MS * r}ms" for r, _ in cells],
                "topology.buffer": [f"{b:g}bdp" for _, b in cells],
            },
            grid={"flows[0].label": plan.p2_variants, **_variant_derived()},
            seeds=seeds,
        )
        exps.append(Experiment("p2", "P2: RTT fairness of two high-speed flows", p2))
        if plan.p2_extra_cells:
            ex = plan.p2_extra_cells
            p2x = Sweep(
                scenario(plan.p2_rate, plan.p2_dur),
                name="pacing.p2_extra",
                zip={
                    "flows[1].rtt": [f"{HS_RTT_MS * r}ms" for r, _ in ex],
                    "topology.buffer": [f"{b:g}bdp" for _, b in ex],
                },
                grid={"flows[0].label": LW38 + LINUX, **_variant_derived()},
                seeds=plan.extra_seeds,
            )
            exps.append(Experiment("p2_extra", "P2 headline cell: Low_Window 38 and Linux pacing", p2x))
        p3 = Sweep(
            scenario(plan.rates[0], plan.p3_dur, long_lived=2, both_ways=False),
            name="pacing.p3",
            grid={
                "topology.bottleneck_rate": rates,
                "flows[0].label": PRIMARY + LINUX,
                **_variant_derived(),
                **_web_derived([2]),
            },
            seeds=plan.p3_seeds or seeds,
        )
        exps.append(Experiment("p3", "P3: each class's share of the link", p3))
        if plan.conv_variants:
            conv = Sweep(
                scenario(plan.p2_rate, plan.conv_dur),
                name="pacing.conv",
                grid={
                    "flows[1].rtt": [f"{r}ms" for r in plan.conv_rtt],
                    "flows[0].label": plan.conv_variants,
                    **_variant_derived(),
                },
                seeds=seeds[:1],
            )
            exps.append(Experiment("conv", "convergence: the high-speed ratio against the run length", conv))
        return exps


STUDY = Pacing()
