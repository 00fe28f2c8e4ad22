"""NewReno+ECN vs SACK under DropTail and the RED family.

Mišković, Petrović & Trajković, "Utilization analysis of TCP NewReno and
TCP SACK congestion control mechanisms through simulation" (in Serbian),
2004, ns-2. A dumbbell s_i – r0 – r1 – d_i with a 1.5 Mb/s bottleneck whose
one-way bandwidth × delay is about 10 packets; 2 to 18 TCP flows split
evenly between NewReno with ECN and SACK, plus one UDP CBR flow; the
bottleneck queue QL from 4 to 72 packets under DropTail, RED, gentle RED
and adaptive RED with thresholds (QL/4, 3·QL/4); ECN flows are marked by
the RED family. Metrics: GEff = Σ goodput / 1.5 Mb/s (ideal 0.9533) and
Drop % at the bottleneck; queue, cwnd and class goodput over time.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..experiments.sweep import Sweep
from ..metrics import binned_rate, jain
from .base import Check, Choice, Claim, Experiment, Figure, Study, StudyData, fmt, save_figure, verdict_from

RATE = 1.5e6  # bottleneck, bit/s
PKT = 1500  # bytes on the wire (1460 payload + 40 header)
PAYLOAD = 1460
IDEAL_GEFF = 0.9533  # the paper's ideal GEff
# The CBR rate that leaves exactly the paper's ideal GEff to TCP payload:
# (RATE − cbr) · PAYLOAD / PKT = IDEAL_GEFF · RATE.
CBR_BPS = RATE * (1 - IDEAL_GEFF * PKT / PAYLOAD)
BDP_PKTS = 10  # the paper's one-way bandwidth × delay
ONE_WAY_MS = 78  # 10 packets · 12 000 bit / 1.5 Mb/s = 80 ms, minus 2 × 1 ms access
DISCIPLINES = ["droptail", "red", "gentle_red", "adaptive_red"]
RED_FAMILY = DISCIPLINES[1:]
NAMES = {"droptail": "DropTail", "red": "RED", "gentle_red": "gentle RED", "adaptive_red": "adaptive RED"}
LINK = "r0->r1"


def thresholds(ql: int) -> tuple[float, float]:
    """The paper's RED thresholds: (QL/4, 3·QL/4) — QL 4 → (1, 3), QL 36 → (9, 27)."""
    return ql / 4, 3 * ql / 4


def queue_table(kind: str, ql: int, mark_p: float = 0.1):
    if kind == "droptail":
        return "droptail"
    lo, hi = thresholds(ql)
    return {"kind": kind, "min_th": lo, "max_th": hi, "ecn": True, "mark_p": mark_p}


def _ql(p: dict) -> int:
    return int(str(p["topology.buffer"]).removesuffix("pkt"))


def _queue_from_point(p: dict):
    return queue_table(p["topology.queue.kind"], _ql(p), p.get("topology.queue.mark_p", 0.1))


def _same_count(p: dict) -> int:
    return p["flows[0].count"]


def base_scenario(duration_s: float, sample: str = "100ms") -> dict:
    start = {"dist": "uniform", "min": "0s", "max": "1s"}
    return {
        "sim": {"duration": f"{duration_s:g}s", "seed": 1, "sample_interval": sample},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1.5Mbps",
            "bottleneck_delay": f"{ONE_WAY_MS}ms",
            "access_rate": "10Mbps",
            "access_delay": "1ms",
            "buffer": "36pkt",
            "access_buffer": "50pkt",
            "queue": {"kind": "red", "min_th": 9, "max_th": 27, "ecn": True, "mark_p": 0.1},
        },
        "tcp": {
            "stack": "ns2",
            "cc": "newreno",
            "mss": PAYLOAD,
            "initial_window": 1,
            "limited_transmit": False,
            "rwnd": "10000pkt",
        },
        "flows": [
            {"count": 1, "label": "newreno_ecn", "cc": "newreno", "sack": "off", "ecn": True, "start": start},
            {"count": 1, "label": "sack", "cc": "newreno", "sack": "sack1", "ecn": False, "start": start},
            {"count": 1, "label": "cbr", "app": "cbr", "rate": f"{CBR_BPS:.0f}bps", "packet_size": "500B"},
        ],
    }


class RedEcn(Study):
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

    def plan(self, mode: str) -> dict:
        if mode == "smoke":
            return {
                "describe": "toy size: 8 s runs, QL 4/12/36/72, 2 and 18 flows, one seed",
                "sweep_s": 8.0,
                "series_s": 8.0,
                "qls": [4, 12, 36, 72],
                "pairs": [1, 9],
                "seeds": [1],
                "mark_ps": [0.1, 0.5, 1.0],
                "extra_s": 8.0,
                "bin_s": 1.0,
            }
        if mode == "quick":
            return {
                "describe": "60 s sweep runs (the paper's 150 s for the traces), 8 queue limits, 2/10/18 flows, "
                "2 seeds; mark_p and error sweeps 60 s",
                "sweep_s": 60.0,
                "series_s": 150.0,
                "qls": [4, 8, 12, 16, 24, 36, 48, 72],
                "pairs": [1, 5, 9],
                "seeds": [1, 2],
                "mark_ps": [0.1, 0.2, 0.5, 1.0],
                "extra_s": 60.0,
                "bin_s": 1.0,
            }
        if mode == "full":
            return {
                "describe": "the paper's 150 s runs, 13 queue limits from 4 to 72, 2 to 18 flows, 5 seeds",
                "sweep_s": 150.0,
                "series_s": 150.0,
                "qls": [4, 6, 8, 10, 12, 16, 20, 24, 30, 36, 48, 60, 72],
                "pairs": [1, 2, 3, 4, 5, 6, 7, 8, 9],
                "seeds": [1, 2, 3, 4, 5],
                "mark_ps": [0.1, 0.2, 0.3, 0.5, 0.75, 1.0],
                "extra_s": 150.0,
                "bin_s": 1.0,
            }
        raise ValueError(mode)

    def setup_rows(self, plan: dict) -> list[tuple[str, str]]:
        return [
            (
                "topology",
                "dumbbell s_i – r0 – r1 – d_i; access links 10 Mb/s, 1 ms; bottleneck 1.5 Mb/s, 78 ms one way "
                "(bandwidth × delay ≈ 10 packets; base RTT 160 ms)",
            ),
            (
                "TCP flows",
                f"{', '.join(str(2 * k) for k in plan['pairs'])}, half NewReno+ECN, half SACK (ns-2 Sack1 "
                "with a SACK sink); all start uniformly within 1 s",
            ),
            ("background", f"one UDP CBR flow, {CBR_BPS / 1e3:.1f} kb/s, 500-byte packets"),
            ("packets", f"{PKT} bytes ({PAYLOAD} payload)"),
            ("queue limit QL", ", ".join(map(str, plan["qls"])) + " packets"),
            (
                "queue disciplines",
                "DropTail, RED, gentle RED, adaptive RED (Floyd, Gummadi & Shenker 2001); "
                "thresholds (QL/4, 3·QL/4); ECN marking with mark_p 0.1 (ns-2)",
            ),
            (
                "TCP",
                "ccsim stack ns2 (ns-2.35 defaults) with the 2004 defaults initial window 1 and no limited "
                "transmit; no delayed ACKs; NewReno (RFC 2582) or Sack1",
            ),
            (
                "run length",
                f"GEff/Drop sweep {plan['sweep_s']:g} s; traces {plan['series_s']:g} s; "
                f"mark_p and error sweeps {plan['extra_s']:g} s",
            ),
            ("seeds", ", ".join(map(str, plan["seeds"])) + " (start times; results averaged)"),
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
            Choice(
                "TCP defaults",
                "ns-2: no delayed ACK, initial window 1, Sack1, minrto 200 ms, tick 10 ms",
                "the paper ran ns-2 and states no TCP parameters; windowInit_ 1 and singledup_ 0 were ns-2's "
                "defaults before 2006. ccsim's RTO floor is ns-2.35's minrto_ 0.2 s (the 2004 default was 0 "
                "with a two-tick floor): at RTT 160 ms SRTT + 4·RTTVAR is above it in steady state",
            ),
            Choice("receiver window", "10 000 packets", "larger than any window the 72-packet queue allows"),
            Choice(
                "RED parameters",
                "max_p 0.1, w_q 0.002, wait, mean packet 500 B; mark_p 0.1",
                "ns-2 defaults of the time; the paper only says w_q follows the recommendations",
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
    def experiments(self, plan: dict) -> list[Experiment]:
        seeds = plan["seeds"]
        derived = {"topology.queue": _queue_from_point, "flows[1].count": _same_count}
        sweep = Sweep(
            base_scenario(plan["sweep_s"]),
            name="red_ecn.ql",
            grid={
                "topology.queue.kind": DISCIPLINES,
                "topology.buffer": [f"{q}pkt" for q in plan["qls"]],
                "flows[0].count": plan["pairs"],
                **derived,
            },
            seeds=seeds,
        )
        series_points = [("red", 4, 1), ("adaptive_red", 36, 1), ("adaptive_red", 72, 9)] + [
            (k, 36, 9) for k in DISCIPLINES
        ]
        series = Sweep(
            base_scenario(plan["series_s"], sample="20ms"),
            name="red_ecn.series",
            zip={
                "topology.queue.kind": [k for k, _, _ in series_points],
                "topology.buffer": [f"{q}pkt" for _, q, _ in series_points],
                "flows[0].count": [n for _, _, n in series_points],
            },
            grid=dict(derived),
            seeds=seeds[:1],
        )
        mark = Sweep(
            base_scenario(plan["extra_s"]),
            name="red_ecn.mark_p",
            grid={
                "topology.queue.kind": ["red", "gentle_red"],
                "topology.queue.mark_p": plan["mark_ps"],
                "topology.buffer": ["36pkt"],
                "flows[0].count": [9],
                **derived,
            },
            seeds=seeds,
        )
        err_models = [{"kind": "none"}] + [
            {"kind": "two_state", "good": g, "bad": b, "loss_bad": lb, "durations": "exponential"}
            for g, b, lb in (("2s", "20ms", 0.2), ("1s", "50ms", 0.3), ("500ms", "100ms", 0.5))
        ]
        errors = Sweep(
            base_scenario(plan["extra_s"]),
            name="red_ecn.errors",
            grid={
                "topology.loss": err_models,
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

    # ---- measurements
    @staticmethod
    def per_run(data: StudyData, exp: str) -> pl.DataFrame:
        """One row per run: its axes, GEff, Drop %, class goodputs and Jain indices."""

        def build():
            c = data.campaign(exp)
            dur = float(c.query("SELECT max(sim_time_s) AS d FROM runs")["d"][0])
            g = c.query(
                "SELECT run_id, label, sum(delivered_bytes)::DOUBLE * 8 AS bits, "
                "list(delivered_bytes::DOUBLE * 8) AS each "
                "FROM flows GROUP BY run_id, label"
            )
            lk = c.query(f"SELECT run_id, drops, pkts_tx, losses FROM links WHERE name = '{LINK}'")
            rows = []
            for rid in c.ok_runs["run_id"].unique(maintain_order=True).to_list():
                gr = g.filter(pl.col("run_id") == rid)
                cls = {r["label"]: r for r in gr.iter_rows(named=True)}
                l = lk.filter(pl.col("run_id") == rid).row(0, named=True)
                ecn = cls.get("newreno_ecn", {"bits": 0.0, "each": []})
                sack = cls.get("sack", {"bits": 0.0, "each": []})
                rows.append(
                    {
                        "run_id": rid,
                        "geff": (ecn["bits"] + sack["bits"]) / dur / RATE,
                        "drop_pct": 100.0 * l["drops"] / (l["pkts_tx"] + l["drops"])
                        if l["pkts_tx"] + l["drops"]
                        else math.nan,
                        "loss_pct": 100.0 * l["losses"] / l["pkts_tx"] if l["pkts_tx"] else math.nan,
                        "ecn_bps": ecn["bits"] / dur,
                        "sack_bps": sack["bits"] / dur,
                        "jain_all": jain(list(ecn["each"]) + list(sack["each"])),
                        "jain_ecn": jain(ecn["each"]),
                        "jain_sack": jain(sack["each"]),
                    }
                )
            per = pl.DataFrame(rows)
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            keep = [k for k in runs.columns if k.startswith(("topology.", "flows[")) or k == "seed"]
            out = runs.select(["run_id"] + keep).join(per, on="run_id")
            out = out.with_columns(
                pl.col("topology.buffer").str.strip_suffix("pkt").cast(pl.Int64).alias("ql"),
                (pl.col("flows[0].count") * 2).alias("n"),
                pl.col("topology.queue.kind").alias("queue"),
            )
            return out

        return data.memo(f"per_run:{exp}", build)

    def sweep_means(self, data: StudyData) -> pl.DataFrame:
        """GEff and Drop % averaged over seeds per (queue, ql, n)."""
        return data.memo(
            "sweep_means",
            lambda: (
                self.per_run(data, "ql")
                .group_by(["queue", "ql", "n"])
                .agg(pl.col("geff").mean(), pl.col("drop_pct").mean(), pl.len().alias("seeds"))
                .sort(["queue", "n", "ql"])
            ),
        )

    @staticmethod
    def _val(m: pl.DataFrame, queue: str, ql: int, n: int, col: str = "geff") -> float:
        r = m.filter((pl.col("queue") == queue) & (pl.col("ql") == ql) & (pl.col("n") == n))
        return float(r[col][0]) if r.height else math.nan

    @staticmethod
    def series_run(data: StudyData, queue: str, ql: int, n: int) -> str:
        c = data.campaign("series")
        r = c.ok_runs.filter(
            (pl.col("topology.queue.kind") == queue)
            & (pl.col("topology.buffer") == f"{ql}pkt")
            & (pl.col("flows[0].count") == n // 2)
        )
        if r.height == 0:
            raise KeyError(f"no trace run for {queue}, QL {ql}, {n} flows")
        return r["run_id"][0]

    def queue_trace(self, data: StudyData, queue: str, ql: int, n: int) -> pl.DataFrame:
        def build():
            rid = self.series_run(data, queue, ql, n)
            c = data.campaign("series")
            return c.query(
                "SELECT s.time_s, s.queue_pkts, s.avg_queue FROM link_series s JOIN links l "
                f"ON l.run_id = s.run_id AND l.id = s.link WHERE s.run_id = '{rid}' AND l.name = '{LINK}' "
                "ORDER BY s.time_s"
            )

        return data.memo(f"queue:{queue}:{ql}:{n}", build)

    def flow_trace(self, data: StudyData, queue: str, ql: int, n: int) -> pl.DataFrame:
        def build():
            rid = self.series_run(data, queue, ql, n)
            c = data.campaign("series")
            return c.query(
                "SELECT s.time_s, s.flow, f.label, s.cwnd, s.delivered_bytes FROM flow_series s JOIN flows f "
                f"ON f.run_id = s.run_id AND f.id = s.flow WHERE s.run_id = '{rid}' ORDER BY s.flow, s.time_s"
            )

        return data.memo(f"flows:{queue}:{ql}:{n}", build)

    def class_diff(self, data: StudyData, queue: str) -> pl.DataFrame:
        """NewReno+ECN − SACK aggregate goodput per bin (18 flows, QL 36)."""
        ft = self.flow_trace(data, queue, 36, 18)
        b = binned_rate(ft, "flow", "delivered_bytes", data.plan["bin_s"])
        lab = ft.select("flow", "label").unique()
        b = b.join(lab, on="flow").group_by(["t_s", "label"]).agg(pl.col("rate").sum())
        w = b.pivot(on="label", index="t_s", values="rate").sort("t_s")
        return w.with_columns((pl.col("newreno_ecn") - pl.col("sack")).alias("diff_bps"))

    # ---- claims
    def claims(self) -> list[Claim]:
        return [
            Claim(
                "a",
                "The largest differences between queue disciplines are at QL = 4, below the BDP: DropTail drops "
                "in bursts from both flows and efficiency suffers.",
                "With 2 flows: the GEff spread across the four disciplines is largest at the smallest QL; DropTail "
                "has the lowest GEff there.",
                self._claim_a,
            ),
            Claim(
                "b",
                "At QL = 4 the RED variants use the link slightly better than DropTail and perform almost alike.",
                "With 2 flows at the smallest QL: every RED variant's GEff > DropTail's; the RED variants' GEffs lie "
                "within 0.02 of each other.",
                self._claim_b,
            ),
            Claim(
                "c",
                "Just above the BDP (QL ≈ 10) all disciplines do much better.",
                "With 2 flows: every discipline's GEff at the first QL above the BDP exceeds its GEff at the smallest "
                "QL by at least 0.03.",
                self._claim_c,
            ),
            Claim(
                "d",
                "Adaptive RED with QL = 36 keeps the instantaneous queue in (9, 27) for about 50 s; then a lockout "
                "appears around 60 s and the queue often falls below the RED zone.",
                "2 flows, adaptive RED, QL 36: the queue is inside [9, 27] in ≥ 50 % of samples over the first third "
                "of the run; it is below 9 more often after 40 % of the run than before; the two flows' goodput "
                "Jain index is lower after 40 % of the run than before (lockout).",
                self._claim_d,
            ),
            Claim(
                "e",
                "With more flows gentle RED soon acts like DropTail: GEff rises and so does Drop %.",
                "Mean over QL: |GEff(gentle RED) − GEff(DropTail)| is smaller with the most flows than with 2; "
                "gentle RED's GEff and Drop % are both higher with the most flows than with 2.",
                self._claim_e,
            ),
            Claim(
                "f",
                "With 18 flows the RED variants lose their edge over DropTail, worst at small buffers.",
                "With the most flows, at QL ≤ 12: the RED family's mean GEff is not above DropTail's (+0.005); the "
                "RED-minus-DropTail GEff difference is lowest at the smallest QL.",
                self._claim_f,
            ),
            Claim(
                "g",
                "Adaptive RED with QL = 72 keeps both the instantaneous and the average queue in the RED zone.",
                "18 flows, adaptive RED, QL 72, after the first 10 % of the run: the average queue is inside "
                "[18, 54] in ≥ 70 % of samples and the instantaneous queue in ≥ 70 %.",
                self._claim_g,
            ),
            Claim(
                "h",
                "NewReno+ECN's aggregate goodput mostly exceeds SACK's (18 flows).",
                "18 flows, QL 36: in each RED variant, the NewReno+ECN − SACK difference of 1 s class goodput is "
                "positive in more than half of the bins.",
                self._claim_h,
            ),
            Claim(
                "i",
                "Raising the ECN marking probability above max_p helps ECN flows and their fairness but takes "
                "bandwidth from SACK flows; the gain saturates.",
                "From mark_p = max_p to the largest: ECN class goodput rises; ECN Jain index rises; SACK class "
                "goodput falls; the ECN gain over the upper half of the mark_p values is smaller than over the "
                "lower half.",
                self._claim_i,
            ),
            Claim(
                "j",
                "A two-state error model on the bottleneck gives SACK no advantage and worsens fairness for all.",
                "Against the error-free run: the SACK/ECN class goodput ratio under errors is not above its "
                "error-free value by more than 5 %; the Jain index within the ECN class and within the SACK class "
                "is lower under errors.",
                self._claim_j,
            ),
        ]

    def _claim_a(self, data: StudyData):
        m = self.sweep_means(data)
        qls = data.plan["qls"]
        spread = {
            q: np.nanmax([self._val(m, d, q, 2) for d in DISCIPLINES])
            - np.nanmin([self._val(m, d, q, 2) for d in DISCIPLINES])
            for q in qls
        }
        q0 = qls[0]
        g0 = {d: self._val(m, d, q0, 2) for d in DISCIPLINES}
        big = max(spread, key=spread.get)
        return verdict_from(
            "a",
            [
                Check(
                    f"spread largest at QL {q0}",
                    big == q0,
                    f"spread {fmt(spread[q0])} at QL {q0}; largest {fmt(spread[big])} at QL {big}",
                ),
                Check(
                    f"DropTail lowest at QL {q0}",
                    g0["droptail"] <= min(g0.values()) + 1e-12,
                    ", ".join(f"{NAMES[d]} {fmt(v)}" for d, v in g0.items()),
                ),
            ],
            {f"spread_ql{q}": spread[q] for q in qls} | {f"geff_{d}_ql{q0}": g0[d] for d in DISCIPLINES},
            why_not=f"at QL {q0} RED's thresholds are (1, 3): with w_q = 0.002 the average queue moves about "
            "0.2 % per packet and stays near the short queue's mean, so RED rarely drops early and the "
            "hard limit of 4 decides, as in DropTail",
        )

    def _claim_b(self, data: StudyData):
        m = self.sweep_means(data)
        q0 = data.plan["qls"][0]
        g = {d: self._val(m, d, q0, 2) for d in DISCIPLINES}
        reds = [g[d] for d in RED_FAMILY]
        q = self.queue_trace(data, "red", 4, 2)
        above = float((q["avg_queue"] > thresholds(4)[0]).mean())
        amax = float(q["avg_queue"].max())
        pmax = 0.1 * max(amax - 1.0, 0.0) / 2.0
        v = verdict_from(
            "b",
            [
                Check(
                    "every RED variant above DropTail",
                    all(x > g["droptail"] for x in reds),
                    ", ".join(f"{NAMES[d]} {fmt(v)}" for d, v in g.items()),
                ),
                Check("RED variants within 0.02", max(reds) - min(reds) <= 0.02, f"range {fmt(max(reds) - min(reds))}"),
            ],
            {f"geff_{d}": v for d, v in g.items()},
            why_not=f"below the hard limit of {q0} packets RED's average (w_q 0.002) seldom passes min_th = 1 for "
            "long enough to drop: the queue behaves as DropTail, so equal GEff is what RED can do here",
        )
        v.measured |= {"avg_above_min_th": above, "avg_max": amax, "p_b_max": pmax}
        v.reason += (
            f". What RED can do at QL 4 (RED trace, 2 flows): its average queue exceeded min_th = 1 in "
            f"{above:.0%} of samples and peaked at {amax:.2f} packets, where p_b = max_p·(avg − 1)/2 = "
            f"{pmax:.3f}; with ns-2's wait option a drop needs about 1/p_b packets in a row above min_th, "
            "while the 4-packet limit overflows within a window: tail drops, not RED, decide, and "
            "the thresholds (1, 3) leave RED no room to signal early"
        )
        return v

    def _claim_c(self, data: StudyData):
        m = self.sweep_means(data)
        qls = data.plan["qls"]
        above = next((q for q in qls if q > BDP_PKTS), qls[-1])
        gains = {d: self._val(m, d, above, 2) - self._val(m, d, qls[0], 2) for d in DISCIPLINES}
        ok = [g >= 0.03 for g in gains.values()]
        return verdict_from(
            "c",
            [
                Check(f"{NAMES[d]} gains ≥ 0.03 from QL {qls[0]} to QL {above}", o, fmt(gains[d]))
                for d, o in zip(DISCIPLINES, ok)
            ],
            {f"gain_{d}": v for d, v in gains.items()},
        )

    def _claim_d(self, data: StudyData):
        q = self.queue_trace(data, "adaptive_red", 36, 2)
        dur = data.plan["series_s"]
        lo, hi = thresholds(36)
        early = q.filter(pl.col("time_s") <= dur / 3)
        before = q.filter(pl.col("time_s") < 0.4 * dur)
        after = q.filter(pl.col("time_s") >= 0.4 * dur)
        in_zone = float(((early["queue_pkts"] >= lo) & (early["queue_pkts"] <= hi)).mean())
        below_b = float((before["queue_pkts"] < lo).mean())
        below_a = float((after["queue_pkts"] < lo).mean())
        ft = self.flow_trace(data, "adaptive_red", 36, 2)
        t_mid = round(0.4 * dur / 0.02) * 0.02

        def jain_window(t0, t1):
            a = ft.filter(pl.col("time_s") <= t0 + 1e-9).group_by("flow").agg(pl.col("delivered_bytes").last())
            b = ft.filter(pl.col("time_s") <= t1 + 1e-9).group_by("flow").agg(pl.col("delivered_bytes").last())
            d = b.join(a, on="flow", how="left", suffix="_0").fill_null(0)
            return jain((d["delivered_bytes"] - d["delivered_bytes_0"]).to_list())

        j_before, j_after = jain_window(0.0, t_mid), jain_window(t_mid, dur)
        return verdict_from(
            "d",
            [
                Check("queue in (9, 27) ≥ 50 % early", in_zone >= 0.5, f"{in_zone:.0%} of samples up to {dur / 3:g} s"),
                Check(
                    "queue below the zone more often later",
                    below_a > below_b,
                    f"{below_b:.0%} before {0.4 * dur:g} s, {below_a:.0%} after",
                ),
                Check(
                    "lockout: Jain lower later",
                    j_after < j_before,
                    f"Jain {fmt(j_before)} before, {fmt(j_after)} after",
                ),
            ],
            {
                "in_zone_early": in_zone,
                "below_before": below_b,
                "below_after": below_a,
                "jain_before": j_before,
                "jain_after": j_after,
            },
            why_not="one run with two flows: whether and when a lockout happens depends on the start times; the "
            "paper shows one ns-2 run",
        )

    def _claim_e(self, data: StudyData):
        m = self.sweep_means(data)
        ns = sorted({2 * k for k in data.plan["pairs"]})
        lo_n, hi_n = ns[0], ns[-1]
        qls = data.plan["qls"]

        def mean_over_ql(d, n, col):
            return float(np.nanmean([self._val(m, d, q, n, col) for q in qls]))

        gap = {
            n: float(np.nanmean([abs(self._val(m, "gentle_red", q, n) - self._val(m, "droptail", q, n)) for q in qls]))
            for n in (lo_n, hi_n)
        }
        geff = {n: mean_over_ql("gentle_red", n, "geff") for n in (lo_n, hi_n)}
        drop = {n: mean_over_ql("gentle_red", n, "drop_pct") for n in (lo_n, hi_n)}
        return verdict_from(
            "e",
            [
                Check(
                    "gentle RED closer to DropTail with more flows",
                    gap[hi_n] < gap[lo_n],
                    f"mean |ΔGEff| {fmt(gap[lo_n])} with {lo_n}, {fmt(gap[hi_n])} with {hi_n}",
                ),
                Check("GEff rises", geff[hi_n] > geff[lo_n], f"{fmt(geff[lo_n])} → {fmt(geff[hi_n])}"),
                Check("Drop % rises", drop[hi_n] > drop[lo_n], f"{fmt(drop[lo_n])} % → {fmt(drop[hi_n])} %"),
            ],
            {
                "gap_lo": gap[lo_n],
                "gap_hi": gap[hi_n],
                "geff_lo": geff[lo_n],
                "geff_hi": geff[hi_n],
                "drop_lo": drop[lo_n],
                "drop_hi": drop[hi_n],
            },
        )

    def _claim_f(self, data: StudyData):
        m = self.sweep_means(data)
        n = 2 * max(data.plan["pairs"])
        small = [q for q in data.plan["qls"] if q <= 12]
        edge = {
            q: float(np.mean([self._val(m, d, q, n) for d in RED_FAMILY])) - self._val(m, "droptail", q, n)
            for q in data.plan["qls"]
        }
        worst = min(edge, key=edge.get)
        return verdict_from(
            "f",
            [
                Check(
                    f"RED family not above DropTail at QL ≤ 12 ({n} flows)",
                    all(edge[q] <= 0.005 for q in small),
                    ", ".join(f"QL {q}: {edge[q]:+.4f}" for q in small),
                ),
                Check(
                    "edge lowest at the smallest QL",
                    worst == data.plan["qls"][0],
                    f"lowest {edge[worst]:+.4f} at QL {worst}",
                ),
            ],
            {f"edge_ql{q}": v for q, v in edge.items()},
        )

    def _claim_g(self, data: StudyData):
        q = self.queue_trace(data, "adaptive_red", 72, 18)
        dur = data.plan["series_s"]
        lo, hi = thresholds(72)
        s = q.filter(pl.col("time_s") >= 0.1 * dur)
        avg_in = float(((s["avg_queue"] >= lo) & (s["avg_queue"] <= hi)).mean())
        inst_in = float(((s["queue_pkts"] >= lo) & (s["queue_pkts"] <= hi)).mean())
        return verdict_from(
            "g",
            [
                Check("average queue in (18, 54) ≥ 70 %", avg_in >= 0.7, f"{avg_in:.0%}"),
                Check("instantaneous queue in (18, 54) ≥ 70 %", inst_in >= 0.7, f"{inst_in:.0%}"),
            ],
            {"avg_in_zone": avg_in, "inst_in_zone": inst_in},
        )

    def _claim_h(self, data: StudyData):
        shares = {}
        for d in RED_FAMILY:
            w = self.class_diff(data, d)
            shares[d] = float((w["diff_bps"] > 0).mean())
        return verdict_from(
            "h",
            [Check(f"{NAMES[d]}: ECN ahead in > 50 % of bins", s > 0.5, f"{s:.0%}") for d, s in shares.items()],
            {f"ecn_ahead_{d}": s for d, s in shares.items()},
            why_not="with mark_p = max_p an ECN packet is marked only while RED's probability is "
            "below 0.1; above it, and at the hard limit, ECN flows are dropped like SACK "
            "flows, and SACK repairs multiple losses per window better than NewReno",
        )

    def _claim_i(self, data: StudyData):
        pr = self.per_run(data, "mark_p")
        vals = sorted(data.plan["mark_ps"])
        g = pr.group_by("topology.queue.mark_p").agg(
            pl.col("ecn_bps").mean(), pl.col("sack_bps").mean(), pl.col("jain_ecn").mean()
        )
        at = {float(r["topology.queue.mark_p"]): r for r in g.iter_rows(named=True)}
        v0, vmid, vmax = vals[0], vals[len(vals) // 2], vals[-1]
        lower, upper = at[vmid]["ecn_bps"] - at[v0]["ecn_bps"], at[vmax]["ecn_bps"] - at[vmid]["ecn_bps"]
        v = verdict_from(
            "i",
            [
                Check(
                    "ECN goodput rises",
                    at[vmax]["ecn_bps"] > at[v0]["ecn_bps"],
                    f"{at[v0]['ecn_bps'] / 1e3:.0f} → {at[vmax]['ecn_bps'] / 1e3:.0f} kb/s",
                ),
                Check(
                    "ECN fairness rises",
                    at[vmax]["jain_ecn"] > at[v0]["jain_ecn"],
                    f"Jain {fmt(at[v0]['jain_ecn'])} → {fmt(at[vmax]['jain_ecn'])}",
                ),
                Check(
                    "SACK goodput falls",
                    at[vmax]["sack_bps"] < at[v0]["sack_bps"],
                    f"{at[v0]['sack_bps'] / 1e3:.0f} → {at[vmax]['sack_bps'] / 1e3:.0f} kb/s",
                ),
                Check(
                    "gain saturates",
                    upper < lower,
                    f"+{lower / 1e3:.0f} kb/s from {v0:g} to {vmid:g}, "
                    f"{upper / 1e3:+.0f} kb/s from {vmid:g} to {vmax:g}",
                ),
            ],
            {f"ecn_kbps_{v:g}": at[v]["ecn_bps"] / 1e3 for v in vals}
            | {f"sack_kbps_{v:g}": at[v]["sack_bps"] / 1e3 for v in vals}
            | {f"jain_ecn_{v:g}": at[v]["jain_ecn"] for v in vals},
        )
        # The largest probability the queues can reach at QL 36: RED's p_b ≤ max_p = 0.1; gentle RED's rises
        # from max_p at max_th = 27 towards 1 at 2·max_th = 54, but the hard limit 36 stops the average there.
        p_gentle = 0.1 + 0.9 * (36 - 27) / 27
        v.reason += (
            f". Saturation has a plain cause here: an early-drop probability never exceeds max_p = 0.1 "
            f"with RED or {p_gentle:.2f} with gentle RED at QL 36 (the hard limit stops the average "
            f"queue below 2·max_th), so every mark_p above {p_gentle:.2f} marks the same packets"
        )
        return v

    def _claim_j(self, data: StudyData):
        pr = self.per_run(data, "errors").with_columns(
            pl.col("topology.loss")
            .map_elements(lambda s: "none" if '"none"' in s else "errors", return_dtype=pl.String)
            .alias("err")
        )
        g = pr.group_by("err").agg(
            (pl.col("sack_bps") / pl.col("ecn_bps")).mean().alias("ratio"),
            pl.col("jain_ecn").mean(),
            pl.col("jain_sack").mean(),
        )
        at = {r["err"]: r for r in g.iter_rows(named=True)}
        a, b = at["none"], at["errors"]
        return verdict_from(
            "j",
            [
                Check(
                    "no SACK advantage",
                    b["ratio"] <= a["ratio"] * 1.05,
                    f"SACK/ECN goodput {fmt(a['ratio'])} without errors, {fmt(b['ratio'])} with",
                ),
                Check(
                    "ECN class fairness worse",
                    b["jain_ecn"] < a["jain_ecn"],
                    f"{fmt(a['jain_ecn'])} → {fmt(b['jain_ecn'])}",
                ),
                Check(
                    "SACK class fairness worse",
                    b["jain_sack"] < a["jain_sack"],
                    f"{fmt(a['jain_sack'])} → {fmt(b['jain_sack'])}",
                ),
            ],
            {
                "ratio_none": a["ratio"],
                "ratio_errors": b["ratio"],
                "jain_ecn_none": a["jain_ecn"],
                "jain_ecn_errors": b["jain_ecn"],
                "jain_sack_none": a["jain_sack"],
                "jain_sack_errors": b["jain_sack"],
            },
            why_not="random errors hit every flow alike and SACK repairs several losses in a window, so a SACK "
            "advantage is what the mechanisms predict; the paper's error settings are unknown",
        )

    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ..figures import subplots

        figs = []
        m = self.sweep_means(data)
        ns = sorted({2 * k for k in data.plan["pairs"]})
        for col, fname, ylabel, cap in (
            (
                "geff",
                "geff_vs_ql.png",
                "GEff",
                "GEff against the queue limit QL (paper Fig. 2a); dashed: the ideal "
                "0.9533, dotted: the BDP (10 packets). Mean over seeds.",
            ),
            (
                "drop_pct",
                "drop_vs_ql.png",
                "Drop (%)",
                "Drop % at the bottleneck against QL (paper Fig. 2b). Mean over seeds.",
            ),
        ):
            fig, axes = subplots(1, len(ns), figsize=(4.2 * len(ns), 3.6), sharey=True, squeeze=False)
            for ax, n in zip(axes[0], ns):
                for d in DISCIPLINES:
                    s = m.filter((pl.col("queue") == d) & (pl.col("n") == n)).sort("ql")
                    ax.plot(s["ql"], s[col], marker="o", ms=3, label=NAMES[d])
                if col == "geff":
                    ax.axhline(IDEAL_GEFF, ls="--", color="k", lw=0.8, label="ideal 0.9533 (paper)")
                ax.axvline(BDP_PKTS, ls=":", color="grey", lw=0.8)
                ax.set_title(f"{n} TCP flows + 1 UDP", fontsize=10)
                ax.set_xlabel("QL (packets)")
                ax.grid(alpha=0.3)
            axes[0][0].set_ylabel(ylabel)
            axes[0][0].legend(fontsize=7)
            figs.append(save_figure(fig, out, fname, cap))
        for queue, ql, n, fname, cap in (
            (
                "red",
                4,
                2,
                "queue_red_ql4.png",
                "RED queue with QL = 4, 2 flows (paper Fig. 3): instantaneous "
                "(redQ) and average (avgQ) queue; dashed: the RED zone (1, 3).",
            ),
            (
                "adaptive_red",
                36,
                2,
                "queue_ared_ql36.png",
                "Adaptive RED, QL = 36, 2 flows (paper Fig. 5); dashed: the RED zone (9, 27).",
            ),
            (
                "adaptive_red",
                72,
                18,
                "queue_ared_ql72.png",
                "Adaptive RED, QL = 72, 18 flows (paper Fig. 6); dashed: the RED zone (18, 54).",
            ),
        ):
            q = self.queue_trace(data, queue, ql, n)
            fig, ax = subplots(figsize=(8.5, 3.2))
            ax.plot(q["time_s"], q["queue_pkts"], lw=0.5, label="instantaneous (redQ)")
            ax.plot(q["time_s"], q["avg_queue"], lw=1.2, label="average (avgQ)")
            for th in thresholds(ql):
                ax.axhline(th, ls="--", color="k", lw=0.7)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("queue (packets)")
            ax.set_title(f"{NAMES[queue]}, QL = {ql}, {n} TCP flows", fontsize=10)
            ax.legend(fontsize=7, loc="upper right")
            ax.grid(alpha=0.3)
            figs.append(save_figure(fig, out, fname, cap))
        ft = self.flow_trace(data, "red", 4, 2)
        fig, ax = subplots(figsize=(8.5, 3.2))
        for (f, lab), s in ft.group_by(["flow", "label"], maintain_order=True):
            s = s.filter(pl.col("time_s") <= min(10.0, data.plan["series_s"]))
            ax.step(s["time_s"], s["cwnd"], where="post", lw=0.9, label=f"flow {f} ({lab})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        ax.set_title("cwnd with RED, QL = 4, 2 flows (first 10 s)", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        figs.append(
            save_figure(
                fig,
                out,
                "cwnd_red_ql4.png",
                "Congestion windows of the NewReno+ECN and SACK flows with RED, QL = 4 (paper Fig. 4).",
            )
        )
        fig, ax = subplots(figsize=(8.5, 3.4))
        for d in DISCIPLINES:
            w = self.class_diff(data, d)
            ax.plot(w["t_s"], w["diff_bps"] / 1e3, lw=0.8, label=NAMES[d])
        ax.axhline(0, color="k", lw=0.7)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("NewReno+ECN − SACK goodput (kb/s)")
        ax.set_title(f"Aggregate goodput difference, 18 flows, QL = 36 ({data.plan['bin_s']:g} s bins)", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        figs.append(
            save_figure(
                fig,
                out,
                "class_diff.png",
                "Difference of the aggregate goodput of the NewReno+ECN and SACK groups "
                "over time with 18 flows (paper Fig. 7; the paper's queue is not given).",
            )
        )
        pr = (
            self.per_run(data, "mark_p")
            .group_by(["queue", "topology.queue.mark_p"])
            .agg(pl.col("ecn_bps").mean(), pl.col("sack_bps").mean(), pl.col("jain_ecn").mean())
            .sort("topology.queue.mark_p")
        )
        fig, axes = subplots(1, 2, figsize=(10, 3.6))
        for d in ("red", "gentle_red"):
            s = pr.filter(pl.col("queue") == d)
            axes[0].plot(s["topology.queue.mark_p"], s["ecn_bps"] / 1e3, marker="o", label=f"NewReno+ECN, {NAMES[d]}")
            axes[0].plot(
                s["topology.queue.mark_p"], s["sack_bps"] / 1e3, marker="s", ls="--", label=f"SACK, {NAMES[d]}"
            )
            axes[1].plot(s["topology.queue.mark_p"], s["jain_ecn"], marker="o", label=NAMES[d])
        axes[0].set_xlabel("mark_p")
        axes[0].set_ylabel("class goodput (kb/s)")
        axes[1].set_xlabel("mark_p")
        axes[1].set_ylabel("Jain index, NewReno+ECN flows")
        for ax in axes:
            ax.axvline(0.1, ls=":", color="grey", lw=0.8)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        figs.append(
            save_figure(
                fig,
                out,
                "mark_p.png",
                "Raising the ECN marking probability mark_p above max_p = 0.1 (dotted), "
                "18 flows, QL = 36: class goodput and fairness among the ECN flows.",
            )
        )
        pe = self.per_run(data, "errors")
        labels = []
        for s in pe["topology.loss"].unique(maintain_order=True).to_list():
            labels.append(s)
        short = {
            s: (
                "none"
                if '"none"' in s
                else "Good {good}, Bad {bad}, {loss_bad:.0%}".format(**__import__("json").loads(s))
            )
            for s in labels
        }
        agg = pe.group_by("topology.loss", maintain_order=True).agg(
            pl.col("ecn_bps").mean(), pl.col("sack_bps").mean(), pl.col("jain_ecn").mean(), pl.col("jain_sack").mean()
        )
        fig, axes = subplots(1, 2, figsize=(10, 3.6))
        x = np.arange(agg.height)
        axes[0].bar(x - 0.2, agg["ecn_bps"] / 1e3, 0.4, label="NewReno+ECN")
        axes[0].bar(x + 0.2, agg["sack_bps"] / 1e3, 0.4, label="SACK")
        axes[1].bar(x - 0.2, agg["jain_ecn"], 0.4, label="NewReno+ECN")
        axes[1].bar(x + 0.2, agg["jain_sack"], 0.4, label="SACK")
        for ax, yl in zip(axes, ("class goodput (kb/s)", "Jain index within the class")):
            ax.set_xticks(x, [short[s] for s in agg["topology.loss"]], fontsize=7, rotation=12)
            ax.set_ylabel(yl)
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3, axis="y")
        axes[1].set_ylim(0, 1.05)
        figs.append(
            save_figure(
                fig,
                out,
                "errors.png",
                "Two-state error model on the forward bottleneck (gentle RED, QL = 36, 18 "
                "flows): class goodput and fairness within each class.",
            )
        )
        return figs


STUDY = RedEcn()
