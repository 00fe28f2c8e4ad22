"""High-speed TCP with and without pacing: Choi, Lee, Cho & Han 2004 (ns-2), P1–P3.

Y.-S. Choi, G.-W. Lee, Y.-Z. Cho, T.-M. Han, "Performance enhancement of
high-speed TCP protocols using pacing" (in Korean), Journal of the Korean
Institute of Communications and Information Sciences (KICS), 2004. Two
high-speed flows (HighSpeed TCP, Scalable TCP or BI-TCP, with and without
pacing) share a FIFO DropTail dumbbell with a background of web sessions, 25
"small" TCP flows capped at 64 packets and 2–4 long-lived TCP flows, each
with random RTTs and start times. ns-2 Sack1 recovery, 1000-byte segments,
timestamps; the buffer is 100 % of the bandwidth × mean-RTT product unless
stated; 200 s runs measured over 100–200 s, 20 repetitions.

- P1: link efficiency at 20 Mb/s … 2.5 Gb/s (the paper's Table 2);
- P2: the throughput ratio of two high-speed flows with RTT 40 ms and
  40/120/240 ms at 2.5 Gb/s, buffers of 100/50/25 % of the BDP (Fig. 4);
- P3: the share of the link each traffic class gets (Fig. 5).

The paper's pacing is ns-2's leaky bucket: one segment every srtt/cwnd
(ccsim `pacing = "window"`). Linux's pacing (`pacing = "linux"`: rate =
1.2·cwnd·mss/srtt in avoidance, 2× in slow start, TSO-sized releases) is a
second column for the paced variants. HighSpeed TCP runs with Low_Window 31
(the paper's text; preset `choi2004`) and again with 38 (its Table 1; preset
`ns2`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..experiments.sweep import Sweep
from ..mixes import background_mix, mix_summary, web_sessions
from .base import Check, Choice, Claim, Experiment, Figure, Study, StudyData, fmt, save_figure, verdict_from

MSS = 1000
PKT = MSS + 40 + 12  # payload + TCP/IP header + timestamp option
HS_RTT_MS = 40
BOTTLENECK_DELAY = "5ms"
ACCESS_RATE = "10Gbps"
WEB_SHARE = 0.3  # nominal web load (the paper: 20–50 % of the link alone)
WEB_THINK = "1s"
BG_RTT = ("20ms", "100ms")
BG_START = ("0s", "10s")
FWD, REV = "r0->r1", "r1->r0"
RATES = [20e6, 100e6, 500e6, 2.5e9]
REGULAR = {"cc": "newreno", "sack": "sack1"}  # ns-2 Agent/TCP/Sack1 (Reno window, SACK recovery)

# variant -> (cc, cc_preset, pacing)
VARIANTS = {
    "hstcp": ("highspeed", "choi2004", "off"),
    "hstcp_paced": ("highspeed", "choi2004", "window"),
    "bic": ("bic", "paper", "off"),
    "bic_paced": ("bic", "paper", "window"),
    "stcp": ("scalable", "paper", "off"),
    "hstcp38": ("highspeed", "ns2", "off"),
    "hstcp38_paced": ("highspeed", "ns2", "window"),
    "hstcp_lpaced": ("highspeed", "choi2004", "linux"),
    "bic_lpaced": ("bic", "paper", "linux"),
}
PRIMARY = ["hstcp", "hstcp_paced", "bic", "bic_paced", "stcp"]
LW38 = ["hstcp38", "hstcp38_paced"]
LINUX = ["hstcp_lpaced", "bic_lpaced"]
NAMES = {
    "hstcp": "HSTCP",
    "hstcp_paced": "paced HSTCP",
    "bic": "BI-TCP",
    "bic_paced": "paced BI-TCP",
    "stcp": "STCP",
    "hstcp38": "HSTCP (LW 38)",
    "hstcp38_paced": "paced HSTCP (LW 38)",
    "hstcp_lpaced": "HSTCP, Linux pacing",
    "bic_lpaced": "BI-TCP, Linux pacing",
}
COLORS = {
    "hstcp": "C0",
    "hstcp_paced": "C9",
    "bic": "C3",
    "bic_paced": "C1",
    "stcp": "C2",
    "hstcp38": "C4",
    "hstcp38_paced": "C6",
    "hstcp_lpaced": "C5",
    "bic_lpaced": "C8",
}
UNPACED = {
    "hstcp_paced": "hstcp",
    "bic_paced": "bic",
    "hstcp38_paced": "hstcp38",
    "hstcp_lpaced": "hstcp",
    "bic_lpaced": "bic",
}

# The paper's Table 2: link efficiency (%) per bottleneck rate and variant.
TABLE2 = {
    20e6: {"hstcp": 93.59, "hstcp_paced": 93.98, "bic": 96.28, "bic_paced": 96.48, "stcp": 96.01},
    100e6: {"hstcp": 92.60, "hstcp_paced": 93.39, "bic": 98.54, "bic_paced": 98.36, "stcp": 98.98},
    500e6: {"hstcp": 97.93, "hstcp_paced": 97.77, "bic": 99.89, "bic_paced": 99.76, "stcp": 99.81},
    2.5e9: {"hstcp": 99.98, "hstcp_paced": 99.94, "bic": 99.97, "bic_paced": 99.98, "stcp": 99.99},
}
# The paper's Fig. 4 values quoted in its text (RTT ratio 6, buffer 100 %).
PAPER_P2 = {"hstcp": 140.0, "hstcp_paced": 70.0, "stcp": 300.0}
CLASSES = {"web": "web", "small": "small TCP", "long": "long-lived TCP"}
CLASS_ORDER = ["web", "small TCP", "long-lived TCP", "high-speed", "overhead", "unused"]
CLASS_COLORS = {
    "web": "#8dd3c7",
    "small TCP": "#ffffb3",
    "long-lived TCP": "#bebada",
    "high-speed": "#fb8072",
    "overhead": "#bbbbbb",
    "unused": "#ffffff",
}


def rate_text(bps: float) -> str:
    return f"{bps / 1e9:g}Gbps" if bps >= 1e9 else f"{bps / 1e6:g}Mbps"


def variant_options(variant: str) -> dict:
    """The high-speed flows' TCP options of a variant."""
    cc, preset, pacing = VARIANTS[variant]
    return {"cc": cc, "cc_preset": preset, "pacing": pacing, "sack": "sack1"}


def scenario(
    rate_bps: float,
    dur: float,
    *,
    rtt2_ms: float = HS_RTT_MS,
    buffer: float = 1.0,
    long_lived: int = 4,
    both_ways: bool = True,
    variant: str = "hstcp",
    web: bool = True,
    high_speed: bool = True,
    small: int = 25,
    sample: str = "1s",
) -> dict:
    """Two high-speed flows (RTT 40 ms and `rtt2_ms`) over a dumbbell at
    `rate_bps` with the background mix; `buffer` in BDPs of the flows' mean
    RTT. Flow groups: 0, 1 the high-speed flows (labels: the variant and
    variant + '#2'), then the mix (web, small, long[, web_rev, small_rev,
    long_rev])."""
    flows = []
    if high_speed:
        o = variant_options(variant)
        hs_start = {"dist": "uniform", "min": "0s", "max": f"{min(5.0, dur / 8):g}s"}
        flows = [
            {"label": variant, "rtt": f"{HS_RTT_MS}ms", "start": hs_start, **o},
            {"label": f"{variant}#2", "rtt": f"{rtt2_ms:g}ms", "start": hs_start, **o},
        ]
    flows += background_mix(
        rate_bps,
        web_share=WEB_SHARE if web else 0.0,
        web_think=WEB_THINK,
        small=small,
        long_lived=long_lived,
        both_ways=both_ways,
        rtt=BG_RTT,
        start=(BG_START[0], f"{min(10.0, dur / 4):g}s"),
        mss=MSS,
        tcp=REGULAR,
    )
    return {
        "sim": {"duration": f"{dur:g}s", "seed": 1, "sample_interval": sample, "sample_links": [FWD, REV]},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": rate_text(rate_bps),
            "bottleneck_delay": BOTTLENECK_DELAY,
            "access_rate": ACCESS_RATE,
            "access_delay": "1ms",
            "buffer": f"{buffer:g}bdp",
            "bdp_rtt": "mean",
            "access_buffer": "1000000pkt",
        },
        "tcp": {"stack": "ns2", "mss": MSS, "timestamps": True, "delayed_ack": False, "rwnd": "none"},
        "flows": flows,
    }


def _rate_of(p: dict) -> float:
    from ..units import parse_rate

    return float(parse_rate("rate", p["topology.bottleneck_rate"]))


def _web_count(p: dict) -> int:
    return web_sessions(_rate_of(p), WEB_SHARE, MSS, 1.0)


def _variant_derived() -> dict:
    """Derived sweep entries: flows[1] copies the variant of flows[0]."""
    d = {"flows[1].label": lambda p: f"{p['flows[0].label']}#2"}
    for k in ("cc", "cc_preset", "pacing"):
        for g in (0, 1):
            d[f"flows[{g}].{k}"] = (lambda key: lambda p: variant_options(p["flows[0].label"])[key])(k)
    return d


def _web_derived(groups: list[int]) -> dict:
    return {f"flows[{g}].count": _web_count for g in groups}


class Pacing(Study):
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

    def plan(self, mode: str) -> dict:
        if mode == "smoke":
            return {
                "describe": "toy size: 20 and 100 Mb/s only (P2 at 100 Mb/s), 6 s runs measured over 3–6 s, "
                "one seed, no convergence runs",
                "rates": [20e6, 100e6],
                "p1_dur": 6.0,
                "p3_dur": 6.0,
                "p2_rate": 100e6,
                "p2_dur": 6.0,
                "p2_cells": [(1, 1.0), (6, 1.0), (6, 0.25)],
                "p2_variants": PRIMARY,
                "p2_extra_cells": [(6, 1.0)],
                "extra_seeds": [1],
                "p1_variants": PRIMARY + LW38 + LINUX,
                "seeds": [1],
                "calib_dur": 6.0,
                "conv_dur": 0.0,
                "conv_variants": [],
                "conv_rtt": [],
            }
        if mode == "quick":
            return {
                "describe": "runs shortened to 40 s (P1, P3) and 50 s (P2) measured over their second half, one "
                "seed; P2 at RTT ratios 1 and 6 (100 %) and ratio 6 at 50 % and 25 % for the paper's "
                "variants, the LW 38 and Linux-pacing columns on the headline cell (RTT ratio 6, "
                "100 %); convergence runs of 120 s for HSTCP and paced HSTCP at equal RTTs",
                "rates": RATES,
                "p1_dur": 40.0,
                "p3_dur": 40.0,
                "p2_rate": 2.5e9,
                "p2_dur": 50.0,
                "p2_cells": [(1, 1.0), (6, 1.0), (6, 0.5), (6, 0.25)],
                "p2_variants": PRIMARY,
                "p2_extra_cells": [(6, 1.0)],
                "extra_seeds": [1],
                "p1_variants": PRIMARY + LW38 + LINUX,
                "seeds": [1],
                "calib_dur": 40.0,
                "conv_dur": 120.0,
                "conv_variants": ["hstcp", "hstcp_paced"],
                "conv_rtt": [40],
            }
        if mode == "full":
            cells = [(r, b) for r in (1, 3, 6) for b in (1.0, 0.5, 0.25)]
            return {
                "describe": "the paper's 200 s runs measured over 100–200 s, 20 seeds, every P2 cell for the "
                "paper's five variants, the LW 38 and Linux-pacing columns at RTT ratio 6 for every "
                "buffer with 5 seeds; convergence runs of 600 s at RTT ratios 1 and 6",
                "rates": RATES,
                "p1_dur": 200.0,
                "p3_dur": 200.0,
                "p2_rate": 2.5e9,
                "p2_dur": 200.0,
                "p2_cells": cells,
                "p2_variants": PRIMARY,
                "p2_extra_cells": [(6, 1.0), (6, 0.5), (6, 0.25)],
                "extra_seeds": [1, 2, 3, 4, 5],
                "p1_variants": PRIMARY + LW38 + LINUX,
                "seeds": list(range(1, 21)),
                "calib_dur": 200.0,
                "conv_dur": 600.0,
                "conv_variants": PRIMARY,
                "conv_rtt": [40, 240],
            }
        raise ValueError(mode)

    def setup_rows(self, plan: dict) -> list[tuple[str, str]]:
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
                f"ccsim stack ns2 (ns-2.35 defaults), Sack1 recovery for every flow, {MSS}-byte segments + 40 "
                "header + 12 timestamp bytes, no delayed ACKs, unlimited receiver window; regular TCP = "
                "NewReno window rules with Sack1",
            ),
            ("rates", ", ".join(rate_text(r) for r in plan["rates"]) + f"; P2 at {rate_text(plan['p2_rate'])}"),
            (
                "run length",
                f"P1 {plan['p1_dur']:g} s, P2 {plan['p2_dur']:g} s, P3 {plan['p3_dur']:g} s; measured "
                "over the second half of each run (the paper: 100–200 s of 200 s)",
            ),
            ("seeds", f"{len(plan['seeds'])} (random RTTs, starts and web objects; results averaged)"),
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
        ]

    # ---- experiments
    def experiments(self, plan: dict) -> list[Experiment]:
        seeds = plan["seeds"]
        rates = [rate_text(r) for r in plan["rates"]]
        exps = []
        calib = Sweep(
            scenario(plan["rates"][0], plan["calib_dur"], high_speed=False, small=0, long_lived=0, both_ways=False),
            name="pacing.calib",
            grid={"topology.bottleneck_rate": rates, **_web_derived([0])},
            seeds=seeds[:1],
        )
        exps.append(Experiment("calib", "web sessions alone: the share of the link they take", calib))
        p1 = Sweep(
            scenario(plan["rates"][0], plan["p1_dur"]),
            name="pacing.p1",
            grid={
                "topology.bottleneck_rate": rates,
                "flows[0].label": plan["p1_variants"],
                **_variant_derived(),
                **_web_derived([2, 5]),
            },
            seeds=seeds,
        )
        exps.append(Experiment("p1", "P1: link efficiency against the bottleneck rate", p1))
        cells = plan["p2_cells"]
        p2 = Sweep(
            scenario(plan["p2_rate"], plan["p2_dur"]),
            name="pacing.p2",
            zip={
                "flows[1].rtt": [f"{HS_RTT_MS * r}ms" for r, _ in cells],
                "topology.buffer": [f"{b:g}bdp" for _, b in cells],
            },
            grid={"flows[0].label": plan["p2_variants"], **_variant_derived()},
            seeds=seeds,
        )
        exps.append(Experiment("p2", "P2: RTT fairness of two high-speed flows", p2))
        if plan["p2_extra_cells"]:
            ex = plan["p2_extra_cells"]
            p2x = Sweep(
                scenario(plan["p2_rate"], plan["p2_dur"]),
                name="pacing.p2_extra",
                zip={
                    "flows[1].rtt": [f"{HS_RTT_MS * r}ms" for r, _ in ex],
                    "topology.buffer": [f"{b:g}bdp" for _, b in ex],
                },
                grid={"flows[0].label": LW38 + LINUX, **_variant_derived()},
                seeds=plan["extra_seeds"],
            )
            exps.append(Experiment("p2_extra", "P2 headline cell: Low_Window 38 and Linux pacing", p2x))
        p3 = Sweep(
            scenario(plan["rates"][0], plan["p3_dur"], long_lived=2, both_ways=False),
            name="pacing.p3",
            grid={
                "topology.bottleneck_rate": rates,
                "flows[0].label": PRIMARY + LINUX,
                **_variant_derived(),
                **_web_derived([2]),
            },
            seeds=seeds,
        )
        exps.append(Experiment("p3", "P3: each class's share of the link", p3))
        if plan["conv_variants"]:
            conv = Sweep(
                scenario(plan["p2_rate"], plan["conv_dur"]),
                name="pacing.conv",
                grid={
                    "flows[1].rtt": [f"{r}ms" for r in plan["conv_rtt"]],
                    "flows[0].label": plan["conv_variants"],
                    **_variant_derived(),
                },
                seeds=seeds[:1],
            )
            exps.append(Experiment("conv", "convergence: the high-speed ratio against the run length", conv))
        return exps

    # ---- measurements
    @staticmethod
    def window(data: StudyData, exp: str) -> tuple[float, float]:
        dur = {
            "calib": "calib_dur",
            "p1": "p1_dur",
            "p2": "p2_dur",
            "p2_extra": "p2_dur",
            "p3": "p3_dur",
            "conv": "conv_dur",
        }[exp]
        d = float(data.plan[dur])
        return d / 2, d

    def per_run(self, data: StudyData, exp: str) -> pl.DataFrame:
        """One row per run: its axes, the efficiency of r0 → r1 over the
        window, the goodput of each high-speed flow and of each forward class."""

        def build():
            c = data.campaign(exp)
            t0, t1 = self.window(data, exp)
            cap = c.query(f"SELECT run_id, id AS link, rate_bps FROM links WHERE name = '{FWD}'")
            ls = c.query(
                "SELECT s.run_id, s.time_s, (s.bytes_tx - s.queue_bytes)::DOUBLE AS wire FROM link_series s "
                f"JOIN links l ON l.run_id = s.run_id AND l.id = s.link WHERE l.name = '{FWD}' "
                f"AND (abs(s.time_s - {t0}) < 1e-9 OR abs(s.time_s - {t1}) < 1e-9)"
            )
            fs = c.query(
                "SELECT s.run_id, s.time_s, CASE WHEN s.flow < 2 AND f.label NOT IN "
                "('web','small','long','web_rev','small_rev','long_rev') THEN 'hs' || s.flow::VARCHAR "
                "ELSE f.label END AS cls, sum(s.delivered_bytes)::DOUBLE AS bytes FROM flow_series s "
                "JOIN flows f ON f.run_id = s.run_id AND f.id = s.flow "
                f"WHERE abs(s.time_s - {t0}) < 1e-9 OR abs(s.time_s - {t1}) < 1e-9 GROUP BY ALL"
            )
            rows = []
            for rid in c.ok_runs["run_id"].unique(maintain_order=True).to_list():
                rate = float(cap.filter(pl.col("run_id") == rid)["rate_bps"][0])
                w = ls.filter(pl.col("run_id") == rid).sort("time_s")["wire"].to_list()
                f = fs.filter(pl.col("run_id") == rid)
                span = t1 - t0

                def gp(cls, f=f, span=span):
                    x = f.filter(pl.col("cls") == cls).sort("time_s")["bytes"].to_list()
                    return (x[-1] - x[0]) * 8 / span if len(x) == 2 else 0.0

                r = {
                    "run_id": rid,
                    "rate": rate,
                    "eff": (w[-1] - w[0]) * 8 / span / rate if len(w) == 2 else math.nan,
                    "hs1_bps": gp("hs0"),
                    "hs2_bps": gp("hs1"),
                }
                for lab, cls in CLASSES.items():
                    r[cls] = gp(lab)
                rows.append(r)
            per = pl.DataFrame(rows)
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            keep = [k for k in runs.columns if k in ("seed", "flows[0].label", "flows[1].rtt", "topology.buffer")]
            out = runs.select(["run_id"] + keep).join(per, on="run_id")
            if "flows[0].label" in out.columns:
                out = out.rename({"flows[0].label": "variant"})
            if "flows[1].rtt" in out.columns:
                out = out.with_columns(
                    (pl.col("flows[1].rtt").str.strip_suffix("ms").cast(pl.Float64) / HS_RTT_MS)
                    .round(3)
                    .alias("rtt_ratio")
                )
            if "topology.buffer" in out.columns:
                out = out.with_columns(
                    pl.col("topology.buffer").str.strip_suffix("bdp").cast(pl.Float64).alias("buffer")
                )
            return out.with_columns((pl.col("hs1_bps") + pl.col("hs2_bps")).alias("high-speed"))

        return data.memo(f"per_run:{exp}", build)

    def means(self, data: StudyData, exp: str, by: list[str]) -> pl.DataFrame:
        """Seed means per `by`; the ratio is the ratio of the mean goodputs."""

        def build():
            per = self.per_run(data, exp)
            cols = ["eff", "hs1_bps", "hs2_bps", "high-speed", *CLASSES.values()]
            m = per.group_by(by).agg([pl.col(c).mean() for c in cols] + [pl.len().alias("seeds")])
            m = m.with_columns(
                pl.when(pl.col("hs2_bps") > 0)
                .then(pl.col("hs1_bps") / pl.col("hs2_bps"))
                .otherwise(float("inf"))
                .alias("ratio"),
                (pl.col("web") + pl.col("small TCP") + pl.col("long-lived TCP")).alias("regular"),
            )
            return m.sort(by)

        return data.memo(f"means:{exp}:{','.join(by)}", build)

    def eff(self, data: StudyData, rate: float, variant: str) -> float:
        m = self.means(data, "p1", ["rate", "variant"])
        r = m.filter((pl.col("rate") == rate) & (pl.col("variant") == variant))
        return float(r["eff"][0]) * 100 if r.height else math.nan

    def ratio(self, data: StudyData, variant: str, rr: float, buf: float) -> float:
        for exp in ("p2", "p2_extra"):
            if exp not in data.campaigns:
                continue
            m = self.means(data, exp, ["variant", "rtt_ratio", "buffer"])
            r = m.filter((pl.col("variant") == variant) & (pl.col("rtt_ratio") == rr) & (pl.col("buffer") == buf))
            if r.height:
                return float(r["ratio"][0])
        return math.nan

    def shares(self, data: StudyData, rate: float, variant: str) -> dict[str, float]:
        """P3 class shares (fractions of capacity) of a variant at a rate."""
        m = self.means(data, "p3", ["rate", "variant"])
        r = m.filter((pl.col("rate") == rate) & (pl.col("variant") == variant))
        if not r.height:
            return {k: math.nan for k in CLASS_ORDER + ["regular"]}
        row = r.row(0, named=True)
        out = {cls: row[cls] / rate for cls in CLASSES.values()}
        out["high-speed"] = row["high-speed"] / rate
        good = sum(out.values())
        out["overhead"] = row["eff"] - good
        out["unused"] = 1 - row["eff"]
        out["regular"] = (row["web"] + row["small TCP"] + row["long-lived TCP"]) / rate
        return out

    def web_only(self, data: StudyData) -> dict[float, float]:
        m = self.per_run(data, "calib")
        return {float(r["rate"]): float(r["web"]) / float(r["rate"]) for r in m.iter_rows(named=True)}

    def conv_series(self, data: StudyData) -> pl.DataFrame:
        """Per convergence run: R(T) = goodput ratio of the two high-speed
        flows over [T/2, T], for T on every sample."""

        def build():
            c = data.campaign("conv")
            s = c.query(
                "SELECT s.run_id, s.flow, s.time_s, s.delivered_bytes::DOUBLE AS b FROM flow_series s "
                "WHERE s.flow < 2 ORDER BY s.run_id, s.flow, s.time_s"
            )
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            rows = []
            for r in runs.iter_rows(named=True):
                x = s.filter(pl.col("run_id") == r["run_id"])
                t = x.filter(pl.col("flow") == 0)["time_s"].to_numpy()
                b0 = x.filter(pl.col("flow") == 0)["b"].to_numpy()
                b1 = x.filter(pl.col("flow") == 1)["b"].to_numpy()
                for i in range(len(t)):
                    T = t[i]
                    if T < 10:
                        continue
                    j = int(np.searchsorted(t, T / 2 - 1e-9))
                    d0, d1 = b0[i] - b0[j], b1[i] - b1[j]
                    rows.append(
                        {
                            "variant": r["flows[0].label"],
                            "rtt2": r["flows[1].rtt"],
                            "T": float(T),
                            "ratio": d0 / d1 if d1 > 0 else math.inf,
                        }
                    )
            return pl.DataFrame(rows)

        return data.memo("conv", build)

    def conv_time(self, data: StudyData, variant: str, rtt2: str = f"{HS_RTT_MS}ms", band: float = 2.0) -> float:
        """Equal RTTs: the first T after which R(T) stays within a factor
        `band` of 1 to the end of the run (inf if it never settles)."""
        if "conv" not in data.campaigns:
            return math.nan
        cs = self.conv_series(data).filter((pl.col("variant") == variant) & (pl.col("rtt2") == rtt2)).sort("T")
        if not cs.height:
            return math.nan
        ok = ((cs["ratio"] <= band) & (cs["ratio"] >= 1 / band)).to_list()
        T = cs["T"].to_list()
        last_bad = max((i for i, v in enumerate(ok) if not v), default=-1)
        return T[last_bad + 1] if last_bad + 1 < len(T) else math.inf

    # ---- claims
    def claims(self) -> list[Claim]:
        return [
            Claim(
                "P1",
                "Every variant's link efficiency is near 100 % at every rate (Table 2: 92.6–99.99 %) and "
                "pacing does not lower it.",
                "At every rate: each of the five variants' efficiency ≥ 90 %; each paced variant's efficiency is "
                "at most 1 point below its unpaced twin; at least 80 % of our Table 2 cells lie within 3 points "
                "of the paper's.",
                self._claim_p1,
            ),
            Claim(
                "P2a",
                "At RTT ratio 6 with a 100 % buffer HSTCP's throughput ratio is about 140 and paced HSTCP's about 70.",
                "RTT ratio 6, buffer 100 %: HSTCP's ratio within a factor 2 of 140; paced HSTCP's within a factor "
                "2 of 70; paced HSTCP's ratio below HSTCP's.",
                self._claim_p2a,
            ),
            Claim(
                "P2b",
                "STCP is the least fair, about 300 (2.2 Gb/s against 6.84 Mb/s).",
                "RTT ratio 6, buffer 100 %: STCP's ratio is the largest of the five variants and within a factor "
                "2 of 300.",
                self._claim_p2b,
            ),
            Claim(
                "P2c",
                "Smaller buffers make every variant less fair.",
                "RTT ratio 6: for each variant the ratio at 25 % is above the ratio at 100 % (and, where run, "
                "50 % lies between or above 100 %).",
                self._claim_p2c,
            ),
            Claim(
                "P2d",
                "Pacing roughly halves the throughput ratio at every buffer size, for HSTCP and BI-TCP.",
                "RTT ratio 6, every buffer run: paced / unpaced ratio in [0.25, 0.75] for HSTCP and for BI-TCP.",
                self._claim_p2d,
            ),
            Claim(
                "P3a",
                "At 20 Mb/s BI-TCP is the least friendly (low window 14, binary search at small windows).",
                "20 Mb/s: BI-TCP leaves regular TCP (web + small + long-lived) the smallest share of the five "
                "variants.",
                self._claim_p3a,
            ),
            Claim(
                "P3b",
                "At 100 Mb/s friendliness ranks paced HSTCP > HSTCP > paced BI-TCP > BI-TCP > STCP; paced "
                "HSTCP leaves regular TCP more than HSTCP with about the same unused share.",
                "100 Mb/s: regular TCP's share orders the variants as the paper (Kendall τ ≥ 0.6); paced HSTCP's "
                "regular share > HSTCP's; their unused shares within 2 points.",
                self._claim_p3b,
            ),
            Claim(
                "P3c",
                "At 500 Mb/s and 2.5 Gb/s regular TCP gets a small share; paced BI-TCP is the friendliest, "
                "paced HSTCP is close to BI-TCP, and STCP is the least friendly.",
                "At 500 Mb/s and 2.5 Gb/s: regular TCP's share < 30 % with every variant; paced BI-TCP leaves "
                "regular TCP the largest share; STCP the smallest; |paced HSTCP − BI-TCP| ≤ |HSTCP − BI-TCP| "
                "(regular share).",
                self._claim_p3c,
            ),
        ]

    def _claim_p1(self, data: StudyData):
        rates = data.plan["rates"]
        checks, measured = [], {}
        low = [(r, v, self.eff(data, r, v)) for r in rates for v in PRIMARY]
        for r, v, e in low:
            measured[f"eff_{v}_{rate_text(r)}"] = e
        bad = [f"{NAMES[v]} {fmt(e)} % at {rate_text(r)}" for r, v, e in low if not e >= 90]
        checks.append(
            Check(
                "every variant ≥ 90 % at every rate",
                not bad,
                "; ".join(bad) if bad else f"lowest {fmt(min(e for _, _, e in low))} %",
            )
        )
        drops = []
        for r in rates:
            for pv in ("hstcp_paced", "bic_paced"):
                d = self.eff(data, r, UNPACED[pv]) - self.eff(data, r, pv)
                measured[f"pacing_loss_{pv}_{rate_text(r)}"] = d
                if not d <= 1.0:
                    drops.append(f"{NAMES[pv]} {fmt(d, 3)} points below at {rate_text(r)}")
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
        return verdict_from(
            "P1",
            checks,
            measured,
            why_not="a window-paced flow keeps the queue empty in slow start, so it learns of "
            "congestion later: at 2.5 Gb/s its first loss comes at about twice the window an "
            "unpaced flow reaches, and a Sack1 recovery of that many losses ends in timeouts "
            "with back-off, seconds without sending; a short run measured from its midpoint "
            "still carries that episode, the paper's 100–200 s window does not",
        )

    def _claim_p2a(self, data: StudyData):
        h, hp = self.ratio(data, "hstcp", 6, 1.0), self.ratio(data, "hstcp_paced", 6, 1.0)
        v = verdict_from(
            "P2a",
            [
                Check("HSTCP within ×2 of 140", 70 <= h <= 280, f"{fmt(h, 3)}"),
                Check("paced HSTCP within ×2 of 70", 35 <= hp <= 140, f"{fmt(hp, 3)}"),
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
            "hundred RTTs of the 240 ms flow (see the convergence figure)",
        )
        conv = {x: self.conv_time(data, x) for x in data.plan["conv_variants"]}
        if conv:
            v.measured.update({f"converged_after_s_{x}": t for x, t in conv.items()})
            v.reason += (
                f". Convergence (equal RTTs, {rate_text(data.plan['p2_rate'])}, ratio over [T/2, T] stays "
                "within ×2 of 1 from T on): "
                + ", ".join(f"{NAMES[x]} T = {fmt(t, 3)} s" for x, t in conv.items())
                + f"; this mode's P2 runs last {data.plan['p2_dur']:g} s"
            )
        return v

    def _claim_p2b(self, data: StudyData):
        rs = {v: self.ratio(data, v, 6, 1.0) for v in PRIMARY}
        s = rs["stcp"]
        return verdict_from(
            "P2b",
            [
                Check(
                    "STCP largest",
                    all(s >= x for v, x in rs.items() if v != "stcp" and not math.isnan(x)),
                    ", ".join(f"{NAMES[v]} {fmt(x, 3)}" for v, x in rs.items()),
                ),
                Check("STCP within ×2 of 300", 150 <= s <= 600, fmt(s, 3)),
            ],
            {f"ratio_{v}": x for v, x in rs.items()},
            why_not="MIMD growth is RTT-proportional in rate: the 240 ms flow gains 1 % per RTT six times slower, "
            "and the ratio keeps widening with run length",
        )

    def _buffers(self, data: StudyData) -> list[float]:
        return sorted({b for r, b in data.plan["p2_cells"] if r == 6}, reverse=True)

    def _claim_p2c(self, data: StudyData):
        bufs = self._buffers(data)
        checks, measured = [], {}
        for v in PRIMARY:
            rs = [self.ratio(data, v, 6, b) for b in bufs]
            for b, x in zip(bufs, rs):
                measured[f"{v}_{b:g}bdp"] = x
            ok = rs[-1] > rs[0] and all(rs[i] >= rs[0] for i in range(1, len(rs)))
            checks.append(
                Check(
                    f"{NAMES[v]} less fair with smaller buffers",
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

    def _claim_p2d(self, data: StudyData):
        checks, measured = [], {}
        for b in self._buffers(data):
            for v in ("hstcp", "bic"):
                u, p = self.ratio(data, v, 6, b), self.ratio(data, f"{v}_paced", 6, b)
                q = p / u if u else math.nan
                measured[f"{v}_{b:g}bdp"] = q
                checks.append(
                    Check(
                        f"{NAMES[v]} at {b:.0%}: paced/unpaced in [0.25, 0.75]",
                        0.25 <= q <= 0.75,
                        f"{fmt(p, 3)} / {fmt(u, 3)} = {fmt(q, 3)}",
                    )
                )
        return verdict_from(
            "P2d",
            checks,
            measured,
            why_not="the leaky bucket spaces a window over one srtt, so it removes the short-RTT "
            "flow's bursts but not its faster per-RTT growth, which drives the ratio",
        )

    def _regular(self, data: StudyData, rate: float) -> dict[str, float]:
        return {v: self.shares(data, rate, v)["regular"] for v in PRIMARY}

    def _claim_p3a(self, data: StudyData):
        reg = self._regular(data, 20e6)
        least = min(reg, key=lambda v: reg[v])
        return verdict_from(
            "P3a",
            [
                Check(
                    "BI-TCP leaves regular TCP the least",
                    least == "bic",
                    ", ".join(f"{NAMES[v]} {reg[v]:.1%}" for v in PRIMARY),
                )
            ],
            {f"regular_{v}": x for v, x in reg.items()},
            why_not="at 20 Mb/s the 25 small and the long-lived flows take most of the link, the "
            "high-speed flows' windows stay near their low windows (14–31), where all "
            "variants act like Reno",
        )

    def _claim_p3b(self, data: StudyData):
        order = ["hstcp_paced", "hstcp", "bic_paced", "bic", "stcp"]
        sh = {v: self.shares(data, 100e6, v) for v in order}
        reg = [sh[v]["regular"] for v in order]
        tau = _kendall(reg, [5, 4, 3, 2, 1])
        return verdict_from(
            "P3b",
            [
                Check(
                    "paper's order (Kendall τ ≥ 0.6)",
                    tau >= 0.6,
                    f"τ = {fmt(tau, 2)}; " + ", ".join(f"{NAMES[v]} {sh[v]['regular']:.1%}" for v in order),
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

    def _claim_p3c(self, data: StudyData):
        checks, measured = [], {}
        for rate in (500e6, 2.5e9):
            if rate not in data.plan["rates"]:
                continue
            reg = self._regular(data, rate)
            for v, x in reg.items():
                measured[f"regular_{v}_{rate_text(rate)}"] = x
            txt = ", ".join(f"{NAMES[v]} {reg[v]:.1%}" for v in PRIMARY)
            checks.append(Check(f"{rate_text(rate)}: regular TCP < 30 %", max(reg.values()) < 0.30, txt))
            checks.append(
                Check(f"{rate_text(rate)}: paced BI-TCP friendliest", max(reg, key=reg.get) == "bic_paced", "")
            )
            checks.append(Check(f"{rate_text(rate)}: STCP least friendly", min(reg, key=reg.get) == "stcp", ""))
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

    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ..figures import subplots

        figs = []
        rates = data.plan["rates"]
        # 1. Table 2 beside ours
        fig, ax = subplots(figsize=(11, 1.2 + 0.5 * len(rates)))
        ax.axis("off")
        cols = PRIMARY + [v for v in LW38 + LINUX if v in data.plan["p1_variants"]]
        cell = [
            [
                f"{fmt(self.eff(data, r, v), 4)}"
                + (f"\n({TABLE2[r][v]:.2f})" if r in TABLE2 and v in TABLE2[r] else "")
                for v in cols
            ]
            for r in rates
        ]
        heads = [NAMES[v].replace(" (", "\n(").replace(", ", "\n") for v in cols]
        tb = ax.table(
            cellText=cell, rowLabels=[rate_text(r) for r in rates], colLabels=heads, loc="center", cellLoc="center"
        )
        tb.auto_set_font_size(False)
        tb.set_fontsize(8)
        tb.scale(1, 2.2)
        ax.set_title("P1 link efficiency (%): ccsim, with the paper's Table 2 in brackets")
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
                color=COLORS[v],
                label=NAMES[v],
                lw=1.2,
                ms=4,
            )
            if v in PRIMARY:
                ax.plot(
                    [r / 1e6 for r in rates if r in TABLE2],
                    [TABLE2[r][v] for r in rates if r in TABLE2],
                    "x--",
                    color=COLORS[v],
                    lw=0.8,
                    alpha=0.6,
                )
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
        cells = data.plan["p2_cells"]
        bufs = sorted({b for _, b in cells}, reverse=True)
        fig, axs = subplots(1, len(bufs), figsize=(4 * len(bufs), 3.8), sharey=True, squeeze=False)
        for ax, b in zip(axs[0], bufs):
            rrs = sorted({r for r, bb in cells if bb == b})
            for v in data.plan["p2_variants"] + [x for x in LW38 + LINUX if x not in data.plan["p2_variants"]]:
                ys = [self.ratio(data, v, r, b) for r in rrs]
                if all(math.isnan(y) for y in ys):
                    continue
                ax.plot(rrs, ys, "o-" if v in PRIMARY else "s:", color=COLORS[v], label=NAMES[v], ms=4)
            if b == 1.0:
                for v, y in PAPER_P2.items():
                    ax.plot([6], [y], "*", color=COLORS[v], ms=12, mec="k", mew=0.5)
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
                f"P2: goodput ratio of the two high-speed flows at {rate_text(data.plan['p2_rate'])} "
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
                range(len(vs)), [NAMES[v].replace(", Linux pacing", "\n(Linux)") for v in vs], rotation=70, fontsize=7
            )
            ax.set_title(rate_text(r))
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
            for cls, g in s.group_by("cls", maintain_order=True):
                t, b = g["time_s"].to_numpy(), g["b"].to_numpy()
                name = cls[0] if cls[0] == "high-speed" else CLASSES.get(cls[0], cls[0])
                ax.plot(
                    t[1:],
                    np.diff(b) * 8 / np.diff(t) / r5 * 100,
                    label=name,
                    color=CLASS_COLORS.get(name, "k") if name != "high-speed" else "C3",
                    lw=1,
                )
            ax.set_title(f"{NAMES[v]}, {rate_text(r5)}")
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
                    color=COLORS[v],
                    ls="-" if rtt2 == f"{HS_RTT_MS}ms" else "--",
                    label=f"{NAMES[v]}, RTT {HS_RTT_MS} / {rtt2}",
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
                    f"Convergence at {rate_text(data.plan['p2_rate'])}, buffer 100 %: the high-speed "
                    "throughput ratio measured over the second half of a run of length T. Shaded: "
                    "within a factor 2 of 1 (equal RTTs).",
                )
            )
        return figs


def _kendall(x: list[float], y: list[float]) -> float:
    """Kendall's τ of two equally long sequences (scipy.stats.kendalltau, τ-b:
    equal to τ-a when neither has ties, and corrected for ties otherwise)."""
    if len(x) < 2:
        return math.nan
    from scipy.stats import kendalltau

    return float(kendalltau(x, y).statistic)


STUDY = Pacing()
