"""The Westwood study: its plan, set-up table and experiments. The
measurements every section uses are in measures.py; each section's own
measurements, checks and figures are in w1.py … w7.py."""

from __future__ import annotations

from pathlib import Path

from ...experiments.sweep import Sweep
from ..base import Choice, Experiment, Figure, StudyData, ns2_2004_choice
from .plan import PLANS, WestwoodPlan
from .scenarios import (
    LINUX_VARIANTS,
    MSS,
    OPTS,
    PKT,
    W1_VARIANTS,
    W2_VARIANTS,
    W3_ALGOS,
    W45_VARIANTS,
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


class Westwood(W1, W2, W3, W45, W6, W7):
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
                f"{MSS}-byte segments + 40-byte TCP/IP header + ns-2's 10-byte timestamp option = {PKT} bytes",
                "the paper says 1500-byte packets and timestamps on. Earlier versions of this report ran "
                "1448-byte segments with a 12-byte option (Linux's padded size, not ns-2's); changed after "
                "those results were seen",
                after_results=True,
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
