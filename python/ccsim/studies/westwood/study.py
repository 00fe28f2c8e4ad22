"""The Westwood study: its plan, set-up table, experiments and claims;
the measurements every section uses. Each section's measurements, checks
and figures are in w1.py … w7.py."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from ...experiments.sweep import Sweep
from ..base import Choice, Claim, Experiment, Figure, Study, StudyData, ns2_2004_choice
from .plan import PLANS, WestwoodPlan
from .scenarios import (
    LINUX_VARIANTS,
    MSS,
    OPTS,
    W1_VARIANTS,
    W2_VARIANTS,
    W3_ALGOS,
    W45_VARIANTS,
    _bad_ms,
    _reverse_opts_w1,
    _w2_rtt,
    derived_options,
    w1_scenario,
    w2_scenario,
    w3_scenario,
    w4_scenario,
    w5_scenario,
    w6_single,
    w7_scenario,
)
from .w1 import W1
from .w2 import W2
from .w3 import W3
from .w6 import W6
from .w7 import W7
from .w45 import W45


class Westwood(W1, W2, W3, W45, W6, W7, Study):
    name = "westwood"
    title = "Westwood+, NewReno and Vegas"
    reference = (
        'L. A. Grieco, S. Mascolo, "Performance evaluation and comparison of Westwood+, New Reno, and '
        'Vegas TCP congestion control", ACM SIGCOMM Computer Communication Review 34(2), 2004'
    )
    cite = "Grieco & Mascolo 2004"
    simulator = "ns-2"
    summary_intro = (
        "ccsim's ns-2 stack with the paper's Westwood+ (EWMA filter, ssthresh at the third duplicate "
        "ACK) and ns-2's Vegas reran W1–W7; W1 and W4 were also run on the Linux stack."
    )

    def plan(self, mode: str) -> WestwoodPlan:
        if mode not in PLANS:
            raise ValueError(mode)
        return PLANS[mode]

    def setup_rows(self, plan: WestwoodPlan) -> list[tuple[str, str]]:
        return [
            (
                "TCP",
                f"ccsim stack ns2-2.27 (ns-2.27's defaults, docs/scenario.md: per-ACK growth, tick-counted RTO "
                f"with minrto 1 s, impatient NewReno recovery, handshake) with {MSS}-byte segments, "
                "timestamps (1500-byte packets), initial window 3, unlimited receiver window and initial "
                "ssthresh, delayed ACKs (100 ms timer) except for Vegas and the no-DACK variants",
            ),
            (
                "algorithms",
                "NewReno; Westwood+ preset paper (EWMA 0.9 on per-RTT samples, ssthresh = BWE·RTTmin at "
                "the third duplicate ACK); Vegas preset paper (ns-2 tcp-vegas.cc: α 1, β 3, γ 1, mean RTT "
                "of the round, loss cuts ¼); Reno; original Westwood (per-ACK Tustin filter); SACK = ns-2 "
                "Sack1",
            ),
            (
                "second column",
                "W1 and W4 (no cross traffic) again on the linux stack (Linux 6.x: SACK, RACK-TLP, "
                "per-segment growth, Linux RTO) with the algorithms' Linux parameters",
            ),
            (
                "W1",
                f"2 Mb/s, 115 ms bottleneck + 5 ms access links each side (RTT 250 ms), 40-packet buffer; "
                f"10 NewReno reverse flows ON in the 2nd and 4th quarter; {plan.w1_dur:g} s, seeds "
                f"{plan.w1_seeds[0]}–{plan.w1_seeds[-1]}",
            ),
            (
                "W2",
                f"10 Mb/s, M = {', '.join(map(str, plan.w2_ms))} flows, RTTs evenly spread over "
                f"[20 + 230/M, 250] ms, 208-packet buffer (10 Mb/s × 250 ms); 10 NewReno reverse flows with "
                f"RTTs spread over [20, 250] ms; {plan.w2_dur:g} s",
            ),
            (
                "W3",
                f"parking lot, N = {', '.join(map(str, plan.w3_hops))} hops of 10 Mb/s, 10 ms; access 100 "
                f"Mb/s, 20 ms; 125-packet queues; C1 from 10 s; per hop one cross flow each way; "
                f"{plan.w3_dur:g} s",
            ),
            (
                "W4",
                f"wired 10 Mb/s, 20 ms bottleneck + 2 Mb/s, 20 ms wireless last hop (40-packet buffer); flow "
                f"under study RTT 250 ms; two-state channel both ways (GOOD 1 s, loss 0; BAD d, loss 0.1; next "
                f"state 50/50), d = {', '.join(f'{d:g}' for d in plan.w4_bad)} ms; cross traffic off, then on "
                f"(5 cross flows RTT U[66, 250] ms, 10 NewReno reverse RTT U[46, 250] ms); {plan.w4_dur:g} s, "
                f"{len(plan.w4_seeds)} seeds",
            ),
            (
                "W5",
                f"GEO: 10 Mb/s, 275 ms one way, 492-packet buffer (10 Mb/s × 590 ms), the W4 channel on both "
                f"directions with d = {', '.join(f'{d:g}' for d in plan.w5_bad)} ms; 20 flows RTT 590 ms, 10 "
                f"NewReno reverse flows; {plan.w5_dur:g} s, {len(plan.w5_seeds)} seeds",
            ),
            (
                "W6",
                f"20 Westwood+ or 20 original Westwood flows in the W2 set-up (M = 20); one Westwood+ flow alone "
                f"on 1 Mb/s, RTT 100 ms; {plan.w6_dur:g} s",
            ),
            (
                "W7",
                f"one Reno or Westwood+ flow, Bernoulli loss p = {', '.join(f'{p:g}' for p in plan.w7_ps)} on "
                f"a 10 Mb/s bottleneck, base RTT {', '.join(map(str, plan.w7_rtts))} ms, 167-packet buffer; "
                f"{plan.w7_dur:g} s, {len(plan.w7_seeds)} seeds",
            ),
        ]

    def choices(self) -> list[Choice]:
        return [
            ns2_2004_choice("ns-2 version", "ns-2.27 (stack ns2-2.27)", "ns-2.35's defaults"),
            Choice(
                "packet size",
                f"{MSS}-byte segments + 40-byte TCP/IP header + 12-byte timestamp option = 1500 bytes",
                "the paper says 1500-byte packets and timestamps on",
            ),
            Choice(
                "W1 repetitions",
                "the forward flow starts at a uniform random time in [0, 1] s, as do the "
                "reverse flows (inside their schedule)",
                "the set-up has no random element; without jitter every seed gives the same run",
            ),
            Choice(
                "W1 access links",
                "100 Mb/s, 5 ms each side, 115 ms bottleneck",
                "only the RTT (250 ms) and the bottleneck are given",
            ),
            Choice(
                "reverse flows",
                "persistent NewReno (W1 ON-OFF by schedule), delayed ACKs, RTTs spread like the "
                "forward flows in W2, 590 ms in W5",
                "the paper gives their number and algorithm only",
            ),
            Choice(
                "W2 bottleneck delay",
                "5 ms, access links set per flow to reach its RTT",
                "RTTs down to 21 ms (M = 200) leave at most 10 ms one way for the bottleneck",
            ),
            Choice("W3 C1 start", "10 s; cross flows start in [0, 1] s", "as the paper"),
            Choice(
                "W3 duplicates",
                "scenario 4 (cross traffic = C1's algorithm) is read from the runs of scenarios 1–3 with the same pair",
                "the runs are identical by construction",
            ),
            Choice(
                "W4 wired part",
                "10 Mb/s, 20 ms bottleneck, 208-packet buffer; the flow under study has a "
                "single 85 ms access link, the wireless hop 20 ms, one way 125 ms",
                "the paper gives the wireless hop and the RTT ranges, not the wired rates",
            ),
            Choice(
                "W4/W5 loss on ACKs",
                "the channel drops ACKs too (both directions, each its own stream)",
                "the paper says both directions",
            ),
            Choice("W5 buffer", "492 packets = 10 Mb/s × 590 ms", "the paper's rule: rate × largest RTT"),
            Choice("W6 single flow", "1 Mb/s, RTT 100 ms, 9-packet (1 BDP) buffer", "the paper gives only 1 Mb/s"),
            Choice(
                "W6 cwnd/RTT estimate",
                "cwnd·MSS/SRTT sampled every 100 ms, filtered with the paper's EWMA (0.9)",
                "the paper filters cwnd/RTT samples with its filter (1)",
            ),
            Choice(
                "W7 scenario",
                "single flow, Bernoulli loss on the data direction of a 10 Mb/s, 167-packet "
                "bottleneck; points whose goodput exceeds 90 % of the link are left out (link-limited, outside "
                "the models)",
                "the paper derives the formulas without a scenario",
            ),
            Choice(
                "Linux column",
                "W1 (NewReno = Linux reno, Westwood+, Vegas) and W4 without cross traffic "
                "(Westwood+ and NewReno with delayed ACKs)",
                "the headline experiments",
            ),
            Choice(
                "Vegas model",
                "ns-2's tcp-vegas.cc (the 'paper' preset: mean RTT of the round, slow-start exit by 1/8, loss "
                "cuts ¼, growth on the round's deciding ACK)",
                "the paper ran ns-2's Vegas; the study's first runs used ccsim's Linux-style Vegas (tcp_vegas.c) "
                "and it was switched to ns-2's, then corrected (a cwnd stuck at 1 after a timeout), after those "
                "results were seen",
                after_results=True,
            ),
        ]

    def experiments(self, plan: WestwoodPlan) -> list[Experiment]:
        p = plan
        w1 = Sweep(
            w1_scenario(p.w1_dur),
            name="westwood.w1",
            grid={
                "flows[0].label": list(W1_VARIANTS),
                **derived_options(0),
                **{f"flows[1].{k}": _reverse_opts_w1(k) for k in OPTS},
            },
            seeds=p.w1_seeds,
        )
        w1l = Sweep(
            w1_scenario(p.w1_dur),
            name="westwood.w1_linux",
            set={"tcp.stack": "linux"},
            grid={"flows[0].label": list(LINUX_VARIANTS), **derived_options(0, "linux")},
            seeds=p.w1_seeds,
        )
        w2 = Sweep(
            w2_scenario(p.w2_dur),
            name="westwood.w2",
            grid={
                "flows[0].label": list(W2_VARIANTS),
                **derived_options(0),
                "flows[0].count": p.w2_ms,
                "flows[0].rtt": _w2_rtt,
            },
            seeds=p.w2_seeds,
        )
        pairs = [(c1, x) for c1 in W3_ALGOS for x in W3_ALGOS]
        w3 = Sweep(
            w3_scenario(p.w3_dur),
            name="westwood.w3",
            grid={
                "topology.hops": p.w3_hops,
                **derived_options(0),
                **derived_options(1),
                **derived_options(2, label_key="flows[1].label"),
            },
            zip={
                "flows[0].label": [a for a, _ in pairs],
                "flows[1].label": [b for _, b in pairs],
                "flows[2].label": [b for _, b in pairs],
            },
            seeds=[1],
        )
        bad4 = [f"{d:g}ms" for d in p.w4_bad]
        w4 = Sweep(
            w4_scenario(p.w4_dur),
            name="westwood.w4",
            grid={"topology.wireless_loss.bad": bad4, "flows[0].label": list(W45_VARIANTS), **derived_options(0)},
            seeds=p.w4_seeds,
        )
        w4on = Sweep(
            w4_scenario(p.w4_dur, traffic=True),
            name="westwood.w4_traffic",
            grid={"topology.wireless_loss.bad": bad4, "flows[0].label": list(W45_VARIANTS), **derived_options(0)},
            seeds=p.w4_seeds,
        )
        w4l = Sweep(
            w4_scenario(p.w4_dur),
            name="westwood.w4_linux",
            set={"tcp.stack": "linux"},
            grid={
                "topology.wireless_loss.bad": bad4,
                "flows[0].label": ["westwoodplus", "newreno"],
                **derived_options(0, "linux"),
            },
            seeds=p.w4_seeds,
        )
        mid = "10ms" if 10.0 in p.w4_bad else bad4[len(bad4) // 2]
        w4g = Sweep(
            w4_scenario(p.w4_dur, traffic=True),
            name="westwood.w4_growth",
            set={"topology.wireless_loss.bad": mid},
            grid={
                "tcp.growth_per": ["ack", "segment"],
                "flows[0].label": ["newreno", "newreno_nodack", "westwoodplus", "westwoodplus_nodack"],
                **derived_options(0),
            },
            seeds=p.w4_seeds,
        )
        w5 = Sweep(
            w5_scenario(p.w5_dur),
            name="westwood.w5",
            grid={
                "topology.loss.bad": [f"{d:g}ms" for d in p.w5_bad],
                "flows[0].label": list(W45_VARIANTS),
                **derived_options(0),
            },
            seeds=p.w5_seeds,
        )
        w6s = w2_scenario(p.w6_dur, 20)
        w6s["sim"]["trace"] = ["cc"]
        w6 = Sweep(
            w6s,
            name="westwood.w6",
            grid={"flows[0].label": ["westwoodplus", "westwood"], **derived_options(0)},
            seeds=[1],
        )
        w6b = Sweep(w6_single(p.w6_dur), name="westwood.w6_single", seeds=[1])
        w7 = Sweep(
            w7_scenario(p.w7_dur),
            name="westwood.w7",
            grid={
                "flows[0].label": ["reno", "westwoodplus"],
                **derived_options(0),
                "flows[0].rtt": [f"{r}ms" for r in p.w7_rtts],
                "topology.loss.p": list(p.w7_ps),
            },
            seeds=p.w7_seeds,
        )
        return [
            Experiment("w1", "W1: one flow against ON-OFF reverse traffic", w1),
            Experiment("w1_linux", "W1 on the Linux stack", w1l),
            Experiment("w2", "W2: M flows with spread RTTs", w2),
            Experiment("w3", "W3: parking lot", w3),
            Experiment("w4", "W4: lossy wireless last hop, no cross traffic", w4),
            Experiment("w4_traffic", "W4: lossy wireless last hop with cross and reverse traffic", w4on),
            Experiment("w4_linux", "W4 on the Linux stack, no cross traffic", w4l),
            Experiment("w4_growth", "W4 check: per-ACK vs per-segment growth with delayed ACKs", w4g),
            Experiment("w5", "W5: GEO satellite with bursty loss", w5),
            Experiment("w6", "W6: bandwidth estimates at congestion events", w6),
            Experiment("w6_single", "W6: one Westwood+ flow on 1 Mb/s", w6b),
            Experiment("w7", "W7: throughput against the analytic models", w7),
        ]

    # ------------------------------------------------------------ measurements
    @staticmethod
    def runs(data: StudyData, exp: str) -> pl.DataFrame:
        """One row per finished run: run_id, seed and the sweep's values."""
        r = data.campaign(exp).ok_runs.unique("run_id", maintain_order=True)
        cols = [k for k in r.columns if k.startswith(("topology.", "flows[", "tcp.")) or k == "seed"]
        return r.select(["run_id"] + cols)

    @staticmethod
    def window_gp(data: StudyData, exp: str, t0: float, t1: float, where: str = "TRUE") -> pl.DataFrame:
        """Per run and flow: goodput (bit/s) over [t0, t1] from the sampled delivered bytes."""

        def build():
            q = (
                f"SELECT run_id, flow, "
                f"max(delivered_bytes) FILTER (WHERE time_s <= {t1} + 1e-9)::DOUBLE AS d1, "
                f"coalesce(max(delivered_bytes) FILTER (WHERE time_s <= {t0} + 1e-9), 0)::DOUBLE AS d0 "
                f"FROM flow_series WHERE {where} GROUP BY run_id, flow"
            )
            g = data.campaign(exp).query(q)
            return g.with_columns(((pl.col("d1") - pl.col("d0")) * 8.0 / (t1 - t0)).alias("gp")).drop("d0", "d1")

        return data.memo(f"gp:{exp}:{t0}:{t1}:{where}", build)

    @staticmethod
    def _half_quarters(s: pl.DataFrame, dur: float, on: bool) -> pl.DataFrame:
        """Samples in the second half of the OFF (on=False) or ON quarters."""
        q = dur / 4
        qs = (1, 3) if on else (0, 2)
        cond = None
        for k in qs:
            c = (pl.col("time_s") > k * q + q / 2) & (pl.col("time_s") <= (k + 1) * q)
            cond = c if cond is None else (cond | c)
        return s.filter(cond)

    def lossy_gp(self, data: StudyData, exp: str, axis: str) -> pl.DataFrame:
        """W4/W5: per variant and BAD duration, mean/min/max over seeds of the goodput of the flows under study."""

        def build():
            f = data.campaign(exp).query(
                "SELECT run_id, avg(goodput_bps)::DOUBLE AS gp FROM flows "
                "WHERE label NOT IN ('reverse', 'cross') GROUP BY run_id"
            )
            f = f.join(self.runs(data, exp), on="run_id").rename({"flows[0].label": "variant"})
            f = f.with_columns(
                pl.col(axis).map_elements(_bad_ms, return_dtype=pl.Float64).alias("bad_ms")
                if axis in f.columns
                else pl.lit(math.nan).alias("bad_ms")
            )  # one fixed d
            keys = ["variant", "bad_ms"] + (["tcp.growth_per"] if "tcp.growth_per" in f.columns else [])
            return (
                f.group_by(keys)
                .agg(
                    pl.col("gp").mean().alias("mean"),
                    pl.col("gp").min().alias("min"),
                    pl.col("gp").max().alias("max"),
                    pl.len().alias("n"),
                )
                .sort(keys)
            )

        return data.memo(f"lossy:{exp}", build)

    # ------------------------------------------------------------------ claims
    def claims(self) -> list[Claim]:
        C = Claim
        return [
            C(
                "W1a",
                "With reverse traffic OFF every variant's goodput is close to 2 Mb/s.",
                "Mean over seeds, OFF quarters (1st and 3rd): goodput ≥ 85 % of the 2 Mb/s link's payload rate "
                "(1.93 Mb/s) for NewReno, Westwood+, Vegas and Reno.",
                self._w1a,
            ),
            C(
                "W1b",
                "With reverse traffic ON, Vegas has the lowest goodput and Westwood+ slightly beats NewReno.",
                "Mean over seeds and the ON quarters: Vegas < NewReno and Vegas < Westwood+; Westwood+ > NewReno.",
                self._w1b,
            ),
            C(
                "W1c",
                "With reverse traffic OFF, NewReno and Westwood+ cwnd peaks near 80 packets (BDP ≈ 40 + "
                "buffer 40) before each reduction.",
                "Mean cwnd at the fast retransmits in the OFF quarters (after the first 10 % of the run) within "
                "±20 % of BDP + buffer = 81.7 packets, for each of the two.",
                self._w1c,
            ),
            C(
                "W1d",
                "Vegas cwnd is flat near the BDP when OFF and very low when ON, whatever algorithm makes "
                "the reverse traffic.",
                "Second half of each quarter, for Vegas with NewReno and with Vegas reverse traffic: OFF mean cwnd "
                "within ±25 % of the BDP (41.7 packets) with a coefficient of variation ≤ 0.15; ON mean cwnd "
                "≤ 50 % of the BDP.",
                self._w1d,
            ),
            C(
                "W1e",
                "Westwood+ ssthresh is less disturbed by ACK-path congestion than NewReno's.",
                "Second half of the ON quarters: Westwood+'s ssthresh has a smaller coefficient of variation than "
                "NewReno's, and a higher 10th percentile relative to its own OFF-quarter mean.",
                self._w1e,
                changed_after_results="the rule compared time means (|log ON/OFF|); 'less disturbed' is about "
                "variability, so it now judges the spread and the low percentile",
            ),
            C(
                "W1f",
                "Reno suffers badly from reverse traffic.",
                "ON quarters: Reno's goodput ≥ 10 % below NewReno's, and its ON/OFF goodput ratio lower than "
                "NewReno's.",
                self._w1f,
            ),
            C(
                "W2a",
                "Total goodput approaches link capacity for M > 40 for every algorithm.",
                "Every run with M > 40: the M flows' total goodput ≥ 90 % of the link's payload rate (9.65 Mb/s).",
                self._w2a,
            ),
            C(
                "W2b",
                "For M < 40 Vegas total goodput is very low (reverse traffic).",
                "Every run with M < 40: Vegas total goodput < 60 % of the link's payload rate and below NewReno's.",
                self._w2b,
            ),
            C(
                "W2c",
                "Westwood+ is fairer than NewReno: with M = 20 the final sequence numbers of NewReno flows "
                "spread over [26693, 64238] packets and those of Westwood+ over the narrower [28822, 53423].",
                "M = 20: max/min of the final sequence numbers smaller for Westwood+ than for NewReno (paper: 1.85 "
                "vs 2.41); and the Jain index averaged over M higher for Westwood+.",
                self._w2c,
            ),
            C(
                "W2d",
                "Vegas is fair but slow.",
                "Jain index averaged over M ≥ NewReno's; Vegas total goodput at M = 20 below NewReno's.",
                self._w2d,
            ),
            C(
                "W3a",
                "C1's goodput falls as the number of hops N grows, for every algorithm.",
                "For each C1 algorithm with cross traffic of each algorithm: Spearman ρ(N, C1 goodput) ≤ −0.8 and "
                "goodput at the largest N below that at N = 1.",
                self._w3a,
            ),
            C(
                "W3b",
                "Westwood+ C1 gets about the same goodput as NewReno C1.",
                "The paper's two comparisons, mean over N of Westwood+ C1 / NewReno C1 within [0.8, 1.25]: both "
                "among NewReno cross traffic (its Fig. 18), and each among cross traffic of its own algorithm "
                "(Fig. 24).",
                self._w3b,
                changed_after_results="the second comparison was both C1s among Westwood+ cross traffic, which "
                "the paper does not make; it compares them among NewReno (Fig. 18) and each among its own kind "
                "(Fig. 24)",
            ),
            C(
                "W3c",
                "Vegas C1 cannot get its share among NewReno or Westwood+ cross traffic.",
                "Among NewReno and among Westwood+ cross traffic, at every N: Vegas C1 goodput < 80 % of the 5 Mb/s "
                "fair share (payload 4.83 Mb/s).",
                self._w3c,
            ),
            C(
                "W3d",
                "NewReno C1 does slightly better among Westwood+ cross traffic than among NewReno.",
                "Mean over N of NewReno C1 goodput: among Westwood+ > among NewReno.",
                self._w3d,
            ),
            C(
                "W3e",
                "Among Vegas cross traffic NewReno and Westwood+ C1 get more than the fair share, and total "
                "goodput stays low when C1 is Vegas.",
                "Among Vegas cross traffic: NewReno and Westwood+ C1 above the fair share (payload) at ≥ 80 % of the "
                "N values; total goodput with Vegas C1 below that with NewReno C1 (mean over N).",
                self._w3e,
            ),
            C(
                "W3f",
                "All-Vegas total goodput is far below all-NewReno and all-Westwood+.",
                "Mean over N: all-Vegas total < 80 % of the all-NewReno and of the all-Westwood+ totals.",
                self._w3f,
            ),
            C(
                "W4a",
                "Cross traffic off, with delayed ACKs: Westwood+ goodput is 70 % to 230 % above NewReno.",
                "Mean over seeds at each BAD duration d: Westwood+ ≥ NewReno at every d, and the gains over d span "
                "the paper's range: the smallest ≤ 105 % (1.5 × 70 %) and the largest ≥ 153 % (2/3 × 230 %).",
                self._w4a,
                changed_after_results="the second check was 'the largest gain ≥ 70 %', which kept only the low end "
                "of the paper's 70–230 % and passed at 91 %; now both ends of the range count",
            ),
            C(
                "W4b",
                "Without delayed ACKs: Westwood+ 34 % to 177 % above NewReno, and SACK ≈ NewReno.",
                "Westwood+ ≥ NewReno at every d and its gains over d span the paper's range (smallest ≤ 51 %, "
                "largest ≥ 118 %: 1.5 × 34 % and 2/3 × 177 %); SACK within ±15 % of NewReno averaged over d.",
                self._w4b,
                changed_after_results="the second check was 'the largest gain ≥ 34 %', the low end of the paper's "
                "34–177 % only; now both ends of the range count",
            ),
            C(
                "W4c",
                "At d = 10 ms with delayed ACKs, Westwood+ ssthresh stays near the BDP (≈ 40 packets) while "
                "NewReno's stays below a quarter of it.",
                "Time-mean ssthresh (after the first loss): Westwood+ within [0.5, 1.5] × BDP (41.7 packets); "
                "NewReno < BDP/4.",
                self._w4c,
            ),
            C(
                "W4d",
                "With cross and reverse traffic on, no-DACK variants get about twice the goodput of DACK "
                "variants, and Westwood+ (no DACK) is about 20 % above NewReno (no DACK) and SACK.",
                "Averaged over d: mean goodput of the no-DACK Westwood+ and NewReno ≥ 1.5 × that of the DACK ones; "
                "Westwood+ (no DACK) ≥ 1.1 × NewReno (no DACK) and ≥ 1.1 × SACK.",
                self._w4d,
            ),
            C(
                "W5",
                "GEO with bursty loss: with DACK, Westwood+ goodput is 20 % to 160 % above NewReno; without "
                "DACK, up to 80 % above SACK and NewReno.",
                "Mean over seeds at each d: Westwood+ ≥ NewReno (DACK) at every d (a tie within 5 % counts) with "
                "gains spanning the paper's 20–160 % (smallest ≤ 30 %, largest ≥ 107 %); Westwood+ (no DACK) ≥ "
                "both SACK and NewReno (no DACK) at every d (ties within 5 %) with the largest gain over the better "
                "of them within [53 %, 120 %] (the paper's 'up to 80 %').",
                self._w5,
                changed_after_results="the DACK half asked only 'largest gain ≥ 20 %' and the no-DACK half "
                "'largest gain ≥ 40 %', half the paper's 80 %; now both are held to the paper's ranges. And "
                "'ahead at every d' now counts a tie within 5 % (it allowed 2 %): at d = 10 ms the channel loses "
                "0.1 % of the packets and the variants are equal, which the paper's ranges do not contradict",
            ),
            C(
                "W6a",
                "At congestion events Westwood+ estimates sit near the 0.5 Mb/s fair share; the original "
                "Westwood overestimates by up to 100× because of ACK compression.",
                "Bandwidth estimates at fast retransmits and timeouts: Westwood+ median within [0.5, 2] × the fair "
                "share and its 99th percentile ≤ 10×; original Westwood maximum ≥ 10× the fair share.",
                self._w6a,
            ),
            C(
                "W6b",
                "For one flow on 1 Mb/s, filtering ACKed data (Westwood+) gives an estimate closer to 1 Mb/s "
                "and steadier than filtering cwnd/RTT.",
                "After 10 s: mean |estimate − payload rate| / payload rate and the coefficient of variation both "
                "smaller for the Westwood+ estimate than for the EWMA-filtered cwnd/RTT.",
                self._w6b,
            ),
            C(
                "W7a",
                "Reno throughput ∝ 1/(RTT·√p).",
                "Least squares of log(goodput) on log(mean RTT) and log(p) over the loss-limited Reno points: "
                "exponents within 0.15 of −1 and −0.5.",
                self._w7a,
            ),
            C(
                "W7b",
                "Westwood+ throughput ∝ 1/√(RTT·Tq·p) (Tq the mean queueing time).",
                "Least squares of log(goodput) on log(mean RTT), log(Tq) and log(p) over the loss-limited "
                "Westwood+ points: each exponent within 0.15 of −0.5.",
                self._w7b,
            ),
        ]

    # ----------------------------------------------------------------- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        return [
            *self._figures_w1(data, out),
            *self._figures_w2(data, out),
            *self._figures_w3(data, out),
            *self._figures_w45(data, out),
            *self._figures_w6(data, out),
            *self._figures_w7(data, out),
        ]


STUDY = Westwood()
