"""The study: its plan, set-up table and experiments; the measurements are
in measures.py, the claims (statements and rules) in checks.py, the figures
in figures.py."""

from __future__ import annotations

from dataclasses import dataclass

from ...experiments.sweep import Sweep
from ..base import Choice, Experiment, ns2_2004_choice
from ..kit import Plan
from .checks import Checks
from .figures import Figures
from .scenarios import (
    CBR_BPS,
    DISCIPLINES,
    ERROR_MODELS,
    MSS,
    PKT,
    _queue_from_point,
    _same_count,
    base_scenario,
    red_weight,
)


@dataclass(frozen=True)
class RedEcnPlan(Plan):
    sweep_s: float  # the GEff/Drop sweep's runs
    series_s: float  # the traces' runs
    qls: list[int]  # queue limits, packets
    pairs: list[int]  # NewReno+ECN / SACK pairs of flows
    mark_ps: list[float]  # the mark_p sweep
    extra_s: float  # the mark_p and error sweeps' runs
    bin_s: float  # goodput bins of the traces


PLANS = {
    "smoke": RedEcnPlan(
        describe="toy size: 8 s runs, QL 4/12/36/72, 2 and 18 flows, one seed",
        seeds=[1],
        sweep_s=8.0,
        series_s=8.0,
        qls=[4, 12, 36, 72],
        pairs=[1, 9],
        mark_ps=[0.1, 0.5, 1.0],
        extra_s=8.0,
        bin_s=1.0,
    ),
    "quick": RedEcnPlan(
        describe="60 s sweep runs (the paper's 150 s for the traces), 8 queue limits, 2/10/18 flows, "
        "3 seeds (the traces too); mark_p and error sweeps 60 s",
        seeds=[1, 2, 3],
        sweep_s=60.0,
        series_s=150.0,
        qls=[4, 8, 12, 16, 24, 36, 48, 72],
        pairs=[1, 5, 9],
        mark_ps=[0.1, 0.2, 0.3, 0.4, 0.5, 1.0],
        extra_s=60.0,
        bin_s=1.0,
    ),
    "full": RedEcnPlan(
        describe="the paper's 150 s runs, 13 queue limits from 4 to 72, 2 to 18 flows, 5 seeds",
        seeds=[1, 2, 3, 4, 5],
        sweep_s=150.0,
        series_s=150.0,
        qls=[4, 6, 8, 10, 12, 16, 20, 24, 30, 36, 48, 60, 72],
        pairs=[1, 2, 3, 4, 5, 6, 7, 8, 9],
        mark_ps=[0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0],
        extra_s=150.0,
        bin_s=1.0,
    ),
}


class RedEcn(Checks, Figures):
    name = "red_ecn"
    title = "NewReno+ECN vs SACK under DropTail and RED variants"
    reference = (
        'S. Mišković, G. Petrović, Lj. Trajković, "Utilization analysis of TCP NewReno and TCP SACK '
        'congestion control mechanisms through simulation" (Analiza iskorišćenja TCP NewReno i TCP SACK '
        "mehanizama kontrole zagušenja na bazi simulacije), 2004"
    )
    simulator = "ns-2"
    cite = "Mišković, Petrović & Trajković 2004"
    summary_intro = (
        "ccsim's ns-2 stack reran the paper's dumbbell: GEff and Drop % against the queue limit for "
        "2 to 18 flows under four queue disciplines, queue and goodput traces, a marking-probability "
        "sweep and a two-state error model."
    )

    def plan(self, mode: str) -> RedEcnPlan:
        if mode not in PLANS:
            raise ValueError(mode)
        return PLANS[mode]

    def setup_rows(self, plan: RedEcnPlan) -> list[tuple[str, str]]:
        return [
            (
                "topology",
                "dumbbell s_i – r0 – r1 – d_i; access links 10 Mb/s, 1 ms; bottleneck 1.5 Mb/s, 78 ms one way "
                "(bandwidth × delay ≈ 10 packets; base RTT 160 ms)",
            ),
            (
                "TCP flows",
                f"{', '.join(str(2 * k) for k in plan.pairs)}, half NewReno+ECN, half SACK (ns-2 Sack1 "
                "with a SACK sink); all start uniformly within 1 s",
            ),
            ("background", f"one UDP CBR flow, {CBR_BPS / 1e3:.1f} kb/s, 500-byte packets"),
            ("packets", f"{PKT} bytes ({MSS} payload)"),
            ("queue limit QL", ", ".join(map(str, plan.qls)) + " packets"),
            (
                "queue disciplines",
                "DropTail, RED, gentle RED, adaptive RED (Floyd, Gummadi & Shenker 2001); "
                "thresholds (QL/4, 3·QL/4); ECN marking with mark_p 0.1 (ns-2)",
            ),
            (
                "TCP",
                "ccsim stack ns2-2.27 (ns-2.27's defaults: initial window 2, limited transmit, SYN, "
                "minrto 1 s, tick 10 ms); no delayed ACKs; NewReno (RFC 2582) or Sack1",
            ),
            (
                "run length",
                f"GEff/Drop sweep {plan.sweep_s:g} s; traces {plan.series_s:g} s; "
                f"mark_p and error sweeps {plan.extra_s:g} s",
            ),
            ("seeds", ", ".join(map(str, plan.seeds)) + " (start times; results averaged)"),
            (
                "metrics",
                "GEff = Σ TCP goodput / 1.5 Mb/s (goodput = in-order payload delivered over the run); "
                "Drop % = queue drops at r0→r1 / (packets sent + drops) · 100",
            ),
        ]

    def choices(self) -> list[Choice]:
        return [
            Choice(
                "bottleneck one-way delay",
                "78 ms",
                "the paper gives bandwidth × delay ≈ 10 packets: 10 · 12 000 bit "
                "/ 1.5 Mb/s = 80 ms including the two 1 ms access links; its 150 s ≈ 940 RTTs gives RTT ≈ 160 ms",
            ),
            Choice(
                "access links",
                "10 Mb/s, 50-packet DropTail",
                "not given; fast enough never to be the bottleneck; 50 packets is ns-2's default queue limit",
            ),
            Choice(
                "CBR rate",
                f"{CBR_BPS:.0f} b/s, 500-byte packets",
                "the rate that makes the paper's ideal GEff "
                "0.9533 with 1460-byte payloads in 1500-byte packets; the packet size is not given",
            ),
            ns2_2004_choice(
                "TCP defaults",
                "ns-2.27: no delayed ACK, initial window 2, limited transmit, SYN, Sack1, minrto 1 s, tick 10 ms",
                "ns-2.35's values with initial window 1 and no limited transmit, wrongly called the 2004 defaults",
                lead="the paper ran ns-2 and states no TCP parameters. ",
            ),
            Choice("receiver window", "10 000 packets", "larger than any window the 72-packet queue allows"),
            Choice(
                "RED parameters",
                f"max_p 0.1, w_q automatic ({red_weight():.5f} on this link), wait, mean packet 500 B; "
                "mark_p 0.1 with the forced drops kept above max_th (2·max_th gentle)",
                "ns-2.27's defaults and rules, the paper giving no numbers (it says only that w_q follows the "
                "current recommendations): q_weight_ −1, so w_q = 1 − exp(−1/(10·RTT·C)) with RTT = max(0.1 s, "
                "3·(link delay + 1/C)) and C in 500-byte packets/s (red.cc initialize_params); mark_p_ applies to "
                "early picks only (red.cc drop_early), ns-2's use_mark_p_ coming in 2005. Earlier versions of "
                "this report ran w_q 0.002, wrongly called the ns-2 default of the time, and use_mark_p_'s rule; "
                "changed after those results were seen",
                after_results=True,
            ),
            Choice(
                "run length",
                "150 s (not 380 s)",
                "the paper ran 150 s and 380 s but its figures do not say which; 150 s is 940 RTTs",
            ),
            Choice(
                "repetitions",
                "several seeds of the start times, averaged",
                "ns-2 runs are deterministic; the paper shows one run per point",
            ),
            Choice(
                "trace runs",
                "RED QL 4 with 2 flows; adaptive RED QL 36 with 2 flows; adaptive RED QL 72 with "
                "18 flows; all four disciplines at QL 36 with 18 flows (goodput difference)",
                "the paper's figures 3–7; the queue of its figure 7 is not given",
            ),
            Choice(
                "mark_p sweep",
                "gentle RED and RED, QL 36, 18 flows; mark_p from 0.1 (= max_p) to 1",
                "the paper gives neither the queue nor the values; 1 means every early drop of an ECN packet "
                "becomes a mark (ccsim's RED without mark_p)",
            ),
            Choice(
                "two-state error model",
                "forward bottleneck, exponential Good/Bad periods: mild (Good 2 s, Bad "
                "20 ms, 20 % loss), medium (1 s, 50 ms, 30 %), heavy (0.5 s, 100 ms, 50 %); gentle RED, QL 36, "
                "18 flows",
                "the paper varies the generator 'over a wide range' without values",
            ),
        ]

    # ---- experiments
    def experiments(self, plan: RedEcnPlan) -> list[Experiment]:
        seeds = plan.seeds
        derived = {"topology.queue": _queue_from_point, "flows[1].count": _same_count}
        sweep = Sweep(
            base_scenario(plan.sweep_s),
            name="red_ecn.ql",
            grid={
                "topology.queue.kind": DISCIPLINES,
                "topology.buffer": [f"{q}pkt" for q in plan.qls],
                "flows[0].count": plan.pairs,
                **derived,
            },
            seeds=seeds,
        )
        series_points = [("red", 4, 1), ("adaptive_red", 36, 1), ("adaptive_red", 72, 9)] + [
            (k, 36, 9) for k in DISCIPLINES
        ]
        series = Sweep(
            base_scenario(plan.series_s, sample="20ms"),
            name="red_ecn.series",
            zip={
                "topology.queue.kind": [k for k, _, _ in series_points],
                "topology.buffer": [f"{q}pkt" for _, q, _ in series_points],
                "flows[0].count": [n for _, _, n in series_points],
            },
            grid=dict(derived),
            seeds=seeds,
        )
        mark = Sweep(
            base_scenario(plan.extra_s),
            name="red_ecn.mark_p",
            grid={
                "topology.queue.kind": ["red", "gentle_red"],
                "topology.queue.mark_p": plan.mark_ps,
                "topology.buffer": ["36pkt"],
                "flows[0].count": [9],
                **derived,
            },
            seeds=seeds,
        )
        errors = Sweep(
            base_scenario(plan.extra_s),
            name="red_ecn.errors",
            grid={
                "topology.loss": ERROR_MODELS,
                "topology.queue.kind": ["gentle_red"],
                "topology.buffer": ["36pkt"],
                "flows[0].count": [9],
                **derived,
            },
            seeds=seeds,
        )
        return [
            Experiment("ql", "GEff and Drop % against QL", sweep),
            Experiment("series", "queue, cwnd and class goodput over time", series),
            Experiment("mark_p", "ECN marking probability sweep", mark),
            Experiment("errors", "two-state error model on the bottleneck", errors),
        ]


STUDY = RedEcn()
