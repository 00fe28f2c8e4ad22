"""Initial windows with CUBIC, paced CUBIC and BBR, simulated and on the
running kernel.

Seo, Lee & Kim, "Performance evaluation of TCP congestion control with
varying initial window sizes using Mininet" (in Korean): client h1 – switch
– server h2 in Mininet, Linux TCP, iperf3, delay and rate set with tc, 5
repetitions. IW1: 100 KB transfers, IW 1–50, RTT 30/100 ms, 10/30/100 Mb/s;
IW2: 100 s transfers, IW 1–50, RTT 30/100 ms, 10/100 Mb/s.

The paper ran real kernels, so ccsim reproduces it twice: simulated with the
`linux` stack, and emulated through this machine's own CUBIC and BBR
(docs/emulation.md) over the same link and queue model. Every claim is
judged on the simulator (the verdict) and its numbers on the kernel are given
beside it, with the ratio of the two in the figures.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..experiments.sweep import Sweep
from .base import Check, Choice, Claim, Experiment, Figure, Study, StudyData, save_figure, verdict_from

MSS = 1448
SIZE = 102_400  # iperf3's "100K" (K = 1024); 100,000 is run as a sensitivity
VARIANTS = ["cubic", "cubic_paced", "bbr"]
VNAME = {"cubic": "CUBIC", "cubic_paced": "paced CUBIC", "bbr": "BBR"}
CC_ZIP = {"flows[0].label": VARIANTS, "tcp.cc": ["cubic", "cubic", "bbr"], "tcp.pacing": ["off", "linux", "linux"]}
# what a rule raises when a mode's grid lacks the cells it compares
MISSING = (KeyError, IndexError, ValueError, ZeroDivisionError, pl.exceptions.ColumnNotFoundError)
BAND = 0.10  # convergence band: ±10 % of the mean over the second half
DIP_S = 2  # T_conv ignores excursions from the band of at most this many 1-s bins


def base(duration_s: float, app: dict, sample: str) -> dict:
    return {
        "sim": {"duration": f"{duration_s:g}s", "seed": 1, "sample_interval": sample},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "15ms", "buffer": "1bdp"},
        "tcp": {"stack": "linux", "cc": "cubic", "mss": MSS, "initial_window": 10, "handshake": True},
        "flows": [{"count": 1, "label": "cubic", **app}],
    }


def rounds_needed(segments: int, iw: int) -> int:
    """Slow-start rounds (flights) to send `segments` from `iw`, doubling
    per round and without loss."""
    r, sent, w = 0, 0, iw
    while sent < segments:
        sent += w
        w *= 2
        r += 1
    return r


def min_fct_data(segments: int, iw: int, rtt: float) -> float:
    """Lower bound of the FCT from the first data byte: (rounds − 1) RTTs
    and the last flight's one-way trip (serialization left out)."""
    return (rounds_needed(segments, iw) - 1) * rtt + rtt / 2


class InitialWindow(Study):
    name = "initial_window"
    title = "Initial windows with CUBIC, paced CUBIC and BBR: simulated and on the running kernel"
    reference = (
        'S. Seo, J. Lee, S. Kim, "Performance evaluation of TCP congestion control with varying initial '
        'window sizes using Mininet" (Mininet을 이용한 초기 윈도우 크기에 따른 TCP 혼잡 제어 성능 평가)'
    )
    simulator = "Mininet, Linux TCP, iperf3"
    cite = "Seo, Lee & Kim"
    summary_intro = (
        "Simulated with the linux stack (verdicts) and emulated through this machine's kernel TCP over "
        "the same link model (numbers beside each verdict)."
    )

    def plan(self, mode: str) -> dict:
        from ..emulation import available

        why = available()
        if mode == "smoke":
            p = {
                "describe": "IW 1 and 10, RTT 30 ms, 10 Mb/s; IW2 5 s; the kernel on two IW1 runs",
                "iw1": [1, 10],
                "rtt": [30],
                "rate1": [10],
                "iw2": [10],
                "rtt2": [30],
                "rate2": [10],
                "dur2": 5.0,
                "seeds": [1],
                "emu_seeds": [1],
                "emu_iw1": {"iw": [10], "rtt": [30], "rate": [10], "cc": ["cubic", "bbr"]},
                "emu_iw2": None,
            }
        elif mode == "quick":
            p = {
                "describe": "the paper's grids in the simulator (one seed: it is deterministic here); the kernel on "
                "the whole IW1 grid once and on IW2 at 10 Mb/s for 20 s with IW 1 and 50",
                "iw1": [1, 2, 4, 10, 20, 50],
                "rtt": [30, 100],
                "rate1": [10, 30, 100],
                "iw2": [1, 4, 10, 50],
                "rtt2": [30, 100],
                "rate2": [10, 100],
                "dur2": 100.0,
                "seeds": [1],
                "emu_seeds": [1],
                "emu_iw1": {"iw": [1, 2, 4, 10, 20, 50], "rtt": [30, 100], "rate": [10, 30, 100], "cc": VARIANTS},
                "emu_iw2": {"iw": [1, 50], "rtt": [30, 100], "rate": [10], "dur": 20.0},
            }
        elif mode == "full":
            p = {
                "describe": "the paper's grids; the kernel on the IW1 grid 5 times and on IW2 at 10 Mb/s for 100 s",
                "iw1": [1, 2, 4, 10, 20, 50],
                "rtt": [30, 100],
                "rate1": [10, 30, 100],
                "iw2": [1, 4, 10, 50],
                "rtt2": [30, 100],
                "rate2": [10, 100],
                "dur2": 100.0,
                "seeds": [1, 2, 3, 4, 5],
                "emu_seeds": [1, 2, 3, 4, 5],
                "emu_iw1": {"iw": [1, 2, 4, 10, 20, 50], "rtt": [30, 100], "rate": [10, 30, 100], "cc": VARIANTS},
                "emu_iw2": {"iw": [1, 4, 10, 50], "rtt": [30, 100], "rate": [10], "dur": 100.0},
            }
        else:
            raise ValueError(mode)
        p["emulation"] = why  # None: the kernel columns run
        return p

    def setup_rows(self, plan: dict) -> list[tuple[str, str]]:
        emu = (
            ("not run: " + plan["emulation"])
            if plan["emulation"]
            else (
                "this machine's kernel TCP in network namespaces, over the simulator's own link and queue code "
                "(docs/emulation.md); IW1 on "
                + f"{len(plan['emu_iw1']['iw'])} IW × {len(plan['emu_iw1']['rtt'])} RTT × "
                f"{len(plan['emu_iw1']['rate'])} rates × {len(plan['emu_iw1']['cc'])} algorithms, "
                f"{len(plan['emu_seeds'])} repetition(s)"
                + (
                    ""
                    if not plan["emu_iw2"]
                    else f"; IW2 at {plan['emu_iw2']['rate']} Mb/s, {plan['emu_iw2']['dur']:g} s, "
                    f"IW {plan['emu_iw2']['iw']}"
                )
            )
        )
        return [
            (
                "topology",
                "one link h1 – h2 (Mininet's host – switch – host collapsed: the switch adds no queue of "
                "its own); rate and one-way delay RTT/2 in both directions",
            ),
            (
                "TCP",
                f"ccsim's linux stack: SACK, timestamps, MSS {MSS} B, delayed ACK with quick-ACK, RACK-TLP, "
                "handshake on (as every kernel connection)",
            ),
            (
                "algorithms",
                "CUBIC (Linux tcp_cubic.c with HyStart), paced CUBIC (Linux internal pacing: "
                "rate = cwnd/srtt × 2 in slow start, × 1.2 after), BBR v1",
            ),
            ("IW1", f"{SIZE:,} B (iperf3's 100K), IW {plan['iw1']}, RTT {plan['rtt']} ms, rates {plan['rate1']} Mb/s"),
            ("IW2", f"{plan['dur2']:g} s bulk, IW {plan['iw2']}, RTT {plan['rtt2']} ms, rates {plan['rate2']} Mb/s"),
            ("queue", "DropTail of 1 BDP (packets of 1500 B); sensitivity: 1000 packets"),
            (
                "FCT",
                "fct_data: first data byte to the last byte at the receiver (the paper's 'start of the transfer'); "
                "fct: from the SYN (adds one RTT)",
            ),
            (
                "convergence",
                f"band ±{BAND:.0%} around the mean goodput of the second half; T_conv (robust, used by "
                f"the claims): the time after which the 1-s goodput has entered the band and never leaves it "
                f"for more than {DIP_S} s in a row; "
                "T_1s (strict): the time after which every 1-s bin is in it",
            ),
            ("the kernel column", emu),
        ]

    def choices(self) -> list[Choice]:
        return [
            Choice(
                "100 KB",
                f"{SIZE:,} bytes = 71 segments (iperf3 counts K as 1024); 100,000 B = 70 segments as a sensitivity",
                "the paper writes 100 KB; with IW 10, 70 segments fit in three slow-start "
                "flights (10 + 20 + 40) but 71 need a fourth, one RTT more",
            ),
            Choice("queue", "1 BDP, and a 1000-packet sensitivity run", "not given in the paper"),
            Choice("MSS", f"{MSS} bytes (1500-byte packets with timestamps)", "not given; Linux's default on Ethernet"),
            Choice(
                "repetitions",
                "the simulator: one seed in quick mode (a single flow on a loss-free link draws "
                "nothing at random, so seeds give identical runs; full mode runs 5 to show it); the kernel: each "
                "repetition is a new measurement",
                "the paper averaged 5 iperf3 runs",
            ),
            Choice(
                "convergence time",
                f"T_conv: from then on the 1-s goodput stays within ±{BAND:.0%} of the second "
                f"half's mean except for excursions of at most {DIP_S} s (claims); T_1s: every 1-s bin in the band "
                "(shown too)",
                "the paper names no definition; T_1s is decided by single one-second dips from loss recovery "
                "and BBR's PROBE_RTT. Two versions were replaced after seeing results: a trailing 5-s moving "
                "average (it measured its own 4–5 s warm-up in every cell) and '90 % of the later bins in the "
                "band' (a 100 s run is 90 % in band even after 10 s out)",
                after_results=True,
            ),
            Choice(
                "kernel receive window",
                "Linux defaults (as under Mininet): the SYN-ACK advertises at most 64 KB, "
                "so the kernel's first flight at IW 50 is 45 segments; the simulator has no such cap",
                "the paper did not raise tcp_rmem or initrwnd",
            ),
        ]

    # ---- experiments
    def _iw1(self, plan, name, *, iws, rtts, rates, seeds, size=SIZE, buffer="1bdp", backend="sim", ccs=VARIANTS):
        zip_ = {k: [v[VARIANTS.index(c)] for c in ccs] for k, v in CC_ZIP.items()}
        app = {"app": "file", "size": f"{size}B"}
        return Sweep(
            base(5.0, app, "10ms"),
            name=f"initial_window.{name}",
            set={"topology.buffer": buffer},
            grid={
                "tcp.initial_window": iws,
                "topology.delay": [f"{r / 2:g}ms" for r in rtts],
                "topology.rate": [f"{r}Mbps" for r in rates],
            },
            zip=zip_,
            seeds=seeds,
            backend=backend,
        )

    def experiments(self, plan: dict) -> list[Experiment]:
        iw1 = self._iw1(plan, "iw1", iws=plan["iw1"], rtts=plan["rtt"], rates=plan["rate1"], seeds=plan["seeds"])
        q1000 = self._iw1(
            plan, "iw1_q1000", iws=plan["iw1"], rtts=plan["rtt"], rates=plan["rate1"], seeds=[1], buffer="1000pkt"
        )
        b100k = self._iw1(
            plan, "iw1_100000", iws=plan["iw1"], rtts=plan["rtt"], rates=plan["rate1"], seeds=[1], size=100_000
        )
        iw2 = Sweep(
            base(plan["dur2"], {"app": "bulk"}, "100ms"),
            name="initial_window.iw2",
            grid={
                "tcp.initial_window": plan["iw2"],
                "topology.delay": [f"{r / 2:g}ms" for r in plan["rtt2"]],
                "topology.rate": [f"{r}Mbps" for r in plan["rate2"]],
            },
            zip=dict(CC_ZIP),
            seeds=[1],
        )
        exps = [
            Experiment("iw1", "IW1: 100 KB transfers (simulated)", iw1),
            Experiment("iw1_q1000", "IW1 with a 1000-packet queue (simulated)", q1000),
            Experiment("iw1_100000", "IW1 with 100,000-byte transfers (simulated)", b100k),
            Experiment("iw2", "IW2: long transfers (simulated)", iw2),
        ]
        if plan["emulation"] is None:
            e = plan["emu_iw1"]
            exps.append(
                Experiment(
                    "iw1_emu",
                    "IW1 on the kernel",
                    self._iw1(
                        plan,
                        "iw1_emu",
                        iws=e["iw"],
                        rtts=e["rtt"],
                        rates=e["rate"],
                        seeds=plan["emu_seeds"],
                        backend="emulation",
                        ccs=e["cc"],
                    ),
                )
            )
            e2 = plan["emu_iw2"]
            if e2:
                exps.append(
                    Experiment(
                        "iw2_emu",
                        "IW2 on the kernel",
                        Sweep(
                            base(e2["dur"], {"app": "bulk"}, "100ms"),
                            name="initial_window.iw2_emu",
                            grid={
                                "tcp.initial_window": e2["iw"],
                                "topology.delay": [f"{r / 2:g}ms" for r in e2["rtt"]],
                                "topology.rate": [f"{r}Mbps" for r in e2["rate"]],
                            },
                            zip=dict(CC_ZIP),
                            seeds=[1],
                            backend="emulation",
                        ),
                    )
                )
        return exps

    # ---- measurements
    @staticmethod
    def _params(c) -> pl.DataFrame:
        r = c.ok_runs.unique("run_id", maintain_order=True)
        return r.select(
            "run_id",
            "seed",
            pl.col("flows[0].label").alias("cc"),
            pl.col("tcp.initial_window").cast(pl.Int64).alias("iw"),
            (pl.col("topology.delay").str.strip_suffix("ms").cast(pl.Float64) * 2).alias("rtt_ms"),
            pl.col("topology.rate").str.strip_suffix("Mbps").cast(pl.Int64).alias("rate"),
        )

    def fct(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per (cc, iw, rtt_ms, rate): mean FCT (s) from the first data byte
        and from the SYN, mean retransmissions, runs, and (kernel) runs within
        the emulation envelope."""
        if exp not in data.campaigns:
            return None

        def build():
            c = data.campaign(exp)
            f = c.query("SELECT run_id, fct_s, fct_data_s, retransmits FROM flows").join(self._params(c), on="run_id")
            if "emulation" in c.tables():
                ok = c.query("SELECT run_id, within_envelope FROM emulation")
                f = f.join(ok, on="run_id", how="left")
            else:
                f = f.with_columns(pl.lit(1).alias("within_envelope"))
            return (
                f.group_by(["cc", "iw", "rtt_ms", "rate"])
                .agg(
                    pl.col("fct_data_s").mean(),
                    pl.col("fct_s").mean(),
                    pl.col("retransmits").cast(pl.Float64).mean(),
                    pl.len().alias("runs"),
                    pl.col("within_envelope").sum().alias("in_envelope"),
                )
                .sort(["cc", "iw", "rtt_ms", "rate"])
            )

        return data.memo(f"fct:{exp}", build)

    def goodput_series(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per run: 1-s bins of goodput (bit/s) from the delivered bytes."""
        if exp not in data.campaigns:
            return None

        def build():
            c = data.campaign(exp)
            s = c.query("SELECT run_id, time_s, delivered_bytes FROM flow_series ORDER BY run_id, time_s")
            s = s.with_columns(pl.col("time_s").ceil().cast(pl.Int64).alias("bin"))
            last = s.group_by(["run_id", "bin"]).agg(pl.col("delivered_bytes").max()).sort(["run_id", "bin"])
            last = last.with_columns(
                (pl.col("delivered_bytes") - pl.col("delivered_bytes").shift(1).over("run_id").fill_null(0)).alias(
                    "bytes"
                )
            )
            return last.with_columns((pl.col("bytes") * 8.0).alias("bps")).join(self._params(c), on="run_id")

        return data.memo(f"series:{exp}", build)

    def convergence(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per (cc, iw, rtt_ms, rate): T_conv (in the band but for excursions
        of ≤ DIP_S s), T_1s (every later 1-s bin in it), steady goodput
        (second half)."""
        s = self.goodput_series(data, exp)
        if s is None:
            return None

        def build():
            rows = []
            for (rid,), g in s.group_by(["run_id"]):
                g = g.sort("bin")
                t = g["bin"].to_numpy().astype(float)
                r = g["bps"].to_numpy().astype(float)
                dur = t.max() if len(t) else 0.0
                steady = r[t > dur / 2].mean() if (t > dur / 2).any() else math.nan
                rows.append(
                    {
                        "run_id": rid,
                        **{k: g[k][0] for k in ("cc", "iw", "rtt_ms", "rate")},
                        "steady_bps": steady,
                        "t_conv": _settle_robust(t, r, steady),
                        "t_1s": _settle(t, r, steady),
                    }
                )
            d = pl.DataFrame(rows)
            return (
                d.group_by(["cc", "iw", "rtt_ms", "rate"])
                .agg(pl.col("t_conv").mean(), pl.col("t_1s").mean(), pl.col("steady_bps").mean())
                .sort(["cc", "iw", "rtt_ms", "rate"])
            )

        return data.memo(f"conv:{exp}", build)

    # ---- claims
    def claims(self) -> list[Claim]:
        return [
            Claim(
                "IW1-a",
                "CUBIC's FCT falls as IW grows, but past a threshold it rises again (at 10 Mb/s IW 50 is "
                "slower than IW 20).",
                "CUBIC, FCT from the first data byte: the mean over RTTs and rates falls from IW 1 to 2 to 4 to 10; "
                "at 10 Mb/s, IW 50 is slower than IW 20 at both RTTs.",
                self._iw1a,
            ),
            Claim(
                "IW1-b",
                "FCT grows with RTT.",
                "In every (algorithm, IW, rate) cell the FCT at RTT 100 ms exceeds the FCT at 30 ms.",
                self._iw1b,
            ),
            Claim(
                "IW1-c",
                "The rate barely matters for 100 KB.",
                "Median over (algorithm, IW, RTT) cells of (max − min)/min of the FCT across the rates ≤ 20 %.",
                self._iw1c,
            ),
            Claim(
                "IW1-d",
                "Pacing lowers CUBIC's FCT, most at high RTT.",
                "Mean over cells: paced CUBIC's FCT < CUBIC's; at 100 ms its mean relative reduction is positive "
                "and larger than at 30 ms.",
                self._iw1d,
            ),
            Claim(
                "IW1-e",
                "BBR is almost insensitive to IW and RTT and mostly faster than CUBIC, most of all at small IW.",
                "BBR's spread across IW ((max − min)/min per RTT and rate, averaged) is below CUBIC's; BBR's FCT at "
                "100 ms is ≤ 1.5 × its FCT at 30 ms (mean over cells); BBR is faster than CUBIC in at least half "
                "the cells; CUBIC/BBR is larger at IW ≤ 4 than at IW ≥ 20.",
                self._iw1e,
            ),
            Claim(
                "IW1-f",
                "At IW 20 and RTT 100 ms paced CUBIC (≈ 0.1 s) beats BBR (≈ 0.2 s).",
                "At IW 20, RTT 100 ms, mean over rates: paced CUBIC's FCT < BBR's; paced CUBIC's FCT within 25 % "
                "of 0.1 s; BBR's within 25 % of 0.2 s.",
                self._iw1f,
            ),
            Claim(
                "IW2-a",
                "CUBIC's convergence time falls with IW and rate and grows with RTT, except IW 50 / RTT "
                "100 ms / 10 Mb/s, slower than IW 10.",
                "CUBIC, T_conv: mean over (RTT, rate) at IW 1 > at IW 10; mean over (IW, RTT) at 10 Mb/s > at "
                "100 Mb/s; mean over (IW, rate) at 100 ms > at 30 ms; at 10 Mb/s, 100 ms: IW 50 > IW 10.",
                self._iw2a,
            ),
            Claim(
                "IW2-b",
                "Paced CUBIC mostly converges faster, but at RTT 100 ms a higher rate makes it slower.",
                "T_conv: paced CUBIC < CUBIC in at least half the cells; at 100 ms, paced CUBIC's mean over IW at "
                "100 Mb/s > at 10 Mb/s.",
                self._iw2b,
            ),
            Claim(
                "IW2-c",
                "BBR converges steadily, almost independent of IW; faster at a higher rate, slower at a higher RTT.",
                "BBR, T_conv: (max − min) across IW ≤ 25 % of the mean, averaged over (RTT, rate); mean at 100 Mb/s "
                "< at 10 Mb/s; mean at 100 ms > at 30 ms.",
                self._iw2c,
            ),
        ]

    # evaluation on one backend: (checks, measured) from a table
    def _both(self, data: StudyData, claim: str, exp: str, fn, why_not: str = "", kernel_exp: str | None = None):
        t = (self.fct if exp.startswith("iw1") else self.convergence)(data, exp)
        try:
            checks, meas = fn(t)
        except MISSING as e:
            checks, meas = [Check("the rule's cells are in this mode's grid", False, f"missing: {e}")], {}
        v = verdict_from(claim, checks, meas, why_not=why_not)
        tk = (self.fct if exp.startswith("iw1") else self.convergence)(data, kernel_exp) if kernel_exp else None
        if tk is None or tk.height == 0:
            why = data.plan["emulation"] or "not in this mode's kernel grid"
            v.reason += f". Kernel: not run ({why})."
            return v
        try:
            kc, km = fn(tk)
        except MISSING as e:
            v.reason += f". Kernel: the rule needs cells the kernel grid of this mode does not have ({e})."
            return v

        def mark(c):
            # a check on cells this mode's kernel grid does not have cannot be judged
            return "–" if "nan" in c.detail.lower() else ("✓" if c.ok else "✗")

        v.reason += ". Kernel: " + "; ".join(f"{mark(c)} {c.what}" + (f" ({c.detail})" if c.detail else "") for c in kc)
        v.measured |= {f"kernel_{k}": x for k, x in km.items()}
        return v

    def _iw1a(self, data):
        def rule(t):
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
            why_not="at 10 Mb/s a 71-packet transfer is bound by serialization (85 ms): IW 20 already "
            "keeps the link busy, and the packets IW 50 loses at 30 ms (a 50-packet burst into a "
            "25-packet queue) are repaired by SACK/RACK within the same round trip, so the loss "
            "costs almost nothing; at 100 ms the 83-packet queue takes the burst. A slower IW 50 "
            "needs a costlier recovery than this, e.g. a retransmission timeout",
        )

    def _iw1b(self, data):
        def rule(t):
            w = t.pivot(on="rtt_ms", index=["cc", "iw", "rate"], values="fct_data_s")
            ok = (w["100.0"] > w["30.0"]).to_list()
            return [Check("FCT(100 ms) > FCT(30 ms) in every cell", all(ok), f"{sum(ok)} of {len(ok)} cells")], {
                "cells_longer_at_100ms": sum(ok),
                "cells": len(ok),
            }

        return self._both(data, "IW1-b", "iw1", rule, kernel_exp="iw1_emu")

    def _iw1c(self, data):
        def rule(t):
            g = t.group_by(["cc", "iw", "rtt_ms"]).agg(
                ((pl.col("fct_data_s").max() - pl.col("fct_data_s").min()) / pl.col("fct_data_s").min()).alias("spread")
            )
            med = float(g["spread"].median())
            return [Check("median spread across rates ≤ 20 %", med <= 0.20, f"{med:.1%}")], {"median_rate_spread": med}

        return self._both(
            data,
            "IW1-c",
            "iw1",
            rule,
            kernel_exp="iw1_emu",
            why_not="at 10 Mb/s serializing 71 packets takes 85 ms, comparable with the 30 ms RTT",
        )

    def _iw1d(self, data):
        def rule(t):
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
            why_not="Linux pacing sends a slow-start flight at 2·cwnd/srtt (over half an RTT) while "
            "the bottleneck spreads an unpaced flight by itself, so without loss the two finish "
            "within a few per cent of each other; pacing only matters where the unpaced burst "
            "overflows the queue (IW 50 at 10 Mb/s, 30 ms)",
        )

    def _iw1e(self, data):
        def rule(t):
            sp = t.group_by(["cc", "rtt_ms", "rate"]).agg(
                ((pl.col("fct_data_s").max() - pl.col("fct_data_s").min()) / pl.col("fct_data_s").min()).alias("s")
            )
            s_bbr, s_cu = _mean(sp.filter(pl.col("cc") == "bbr")["s"]), _mean(sp.filter(pl.col("cc") == "cubic")["s"])
            b = t.filter(pl.col("cc") == "bbr")
            rr = _mean(b.filter(pl.col("rtt_ms") == 100)["fct_data_s"]) / _mean(
                b.filter(pl.col("rtt_ms") == 30)["fct_data_s"]
            )
            w = t.pivot(on="cc", index=["iw", "rtt_ms", "rate"], values="fct_data_s").with_columns(
                (pl.col("cubic") / pl.col("bbr")).alias("adv")
            )
            faster = float((w["bbr"] < w["cubic"]).mean())
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

    def _iw1f(self, data):
        rtt = 0.1
        bound = min_fct_data(math.ceil(SIZE / MSS), 20, rtt)

        def rule(t):
            p = _mean(
                t.filter((pl.col("cc") == "cubic_paced") & (pl.col("iw") == 20) & (pl.col("rtt_ms") == 100))[
                    "fct_data_s"
                ]
            )
            b = _mean(
                t.filter((pl.col("cc") == "bbr") & (pl.col("iw") == 20) & (pl.col("rtt_ms") == 100))["fct_data_s"]
            )
            return [
                Check("paced CUBIC faster than BBR", p < b, f"{p:.3f} vs {b:.3f} s"),
                Check("paced CUBIC ≈ 0.1 s (±25 %)", abs(p / 0.1 - 1) <= 0.25, f"{p:.3f} s"),
                Check("BBR ≈ 0.2 s (±25 %)", abs(b / 0.2 - 1) <= 0.25, f"{b:.3f} s"),
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

    def _iw2a(self, data):
        def rule(t):
            cu = t.filter(pl.col("cc") == "cubic")
            by = lambda col, v: _mean(cu.filter(pl.col(col) == v)["t_conv"])  # noqa: E731
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

    def _iw2b(self, data):
        def rule(t):
            w = t.pivot(on="cc", index=["iw", "rtt_ms", "rate"], values="t_conv")
            share = float((w["cubic_paced"] < w["cubic"]).mean())
            p = t.filter((pl.col("cc") == "cubic_paced") & (pl.col("rtt_ms") == 100))
            a, b = _mean(p.filter(pl.col("rate") == 100)["t_conv"]), _mean(p.filter(pl.col("rate") == 10)["t_conv"])
            return [
                Check("paced faster in ≥ half the cells", share >= 0.5, f"{share:.0%}"),
                Check("100 ms: slower at 100 Mb/s than at 10 Mb/s", a > b, f"{a:.1f} vs {b:.1f} s"),
            ], {"paced_faster_share": share, "paced_100ms_100M": a, "paced_100ms_10M": b}

        return self._both(data, "IW2-b", "iw2", rule, kernel_exp="iw2_emu", why_not=self._iw2_why(data))

    def _iw2c(self, data):
        def rule(t):
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
        return (
            f"a single flow alone on its link converges fast whatever the set-up: T_conv is "
            f"{c['t_conv'].min():.0f}–{c['t_conv'].max():.0f} s in every cell (1-s bins), so the differences "
            "these rules compare are a bin or two; the strict T_1s instead follows when the last one-second dip "
            f"happened ({c['t_1s'].min():.0f}–{c['t_1s'].max():.0f} s), which is not a convergence property"
        )

    # ---- figures
    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        from ..figures import subplots

        figs = []
        colors = COLORS
        t, tk = self.fct(data, "iw1"), self.fct(data, "iw1_emu")
        fig = _iw_grid(
            data.plan["rtt"],
            data.plan["rate1"],
            data.plan["iw1"],
            "FCT from first data byte (s)",
            [(t, "fct_data_s", "-o", "simulated"), (tk, "fct_data_s", "--x", "Linux")],
            3.6,
            7,
        )
        figs.append(
            save_figure(
                fig,
                out,
                "iw1_fct.png",
                f"IW1: FCT of a {SIZE:,}-byte transfer against the initial "
                "window (paper Figs. for IW1); solid: simulated, dashed: this machine's kernel.",
            )
        )
        if tk is not None and tk.height:
            j = t.join(tk, on=["cc", "iw", "rtt_ms", "rate"], suffix="_k")
            fig, ax = subplots(figsize=(5.2, 4.6))
            for cc in VARIANTS:
                x = j.filter(pl.col("cc") == cc)
                ax.scatter(x["fct_data_s"], x["fct_data_s_k"], s=14, color=colors[cc], label=VNAME[cc])
            lim = [0, float(max(j["fct_data_s"].max(), j["fct_data_s_k"].max())) * 1.05]
            ax.plot(lim, lim, "k--", lw=0.8, label="equal")
            ax.set_xlabel("simulated FCT (s)")
            ax.set_ylabel("Linux kernel FCT (s)")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
            r = (j["fct_data_s_k"] / j["fct_data_s"]).to_numpy()
            ax.set_title(
                f"IW1 cells: kernel/simulated median {np.median(r):.2f}, "
                f"{np.mean(np.abs(r - 1) <= 0.1):.0%} within 10 %",
                fontsize=9,
            )
            figs.append(
                save_figure(
                    fig,
                    out,
                    "iw1_sim_vs_kernel.png",
                    "IW1: every cell's FCT simulated against "
                    "the same cell on this machine's kernel (mean of the repetitions).",
                )
            )
            j.sort(["cc", "iw", "rtt_ms", "rate"]).write_csv(out / "iw1_sim_vs_kernel.csv")
            figs.append(self._validation_figure(data, out))
        c = self.convergence(data, "iw2")
        ck = self.convergence(data, "iw2_emu")
        rtt2, rate2 = data.plan["rtt2"], data.plan["rate2"]
        fig = _iw_grid(
            rtt2,
            rate2,
            data.plan["iw2"],
            "convergence time (s)",
            [(c, "t_conv", "-o", "T_conv"), (c, "t_1s", ":", "T_1s"), (ck, "t_conv", "--x", "Linux T_conv")],
            4.2,
            6,
        )
        figs.append(
            save_figure(
                fig,
                out,
                "iw2_convergence.png",
                "IW2: convergence time against the initial window; "
                f"T_conv: within ±{BAND:.0%} of the second half's mean but for excursions of ≤ {DIP_S} s; T_1s: "
                "every 1-s bin within it; dashed: the kernel (its runs are shorter in quick mode).",
            )
        )
        s = self.goodput_series(data, "iw2")
        sk = self.goodput_series(data, "iw2_emu")
        rate, r = min(rate2), max(rtt2)
        fig, axes = subplots(1, 3, figsize=(13, 3.4), sharey=True)
        for ax, cc in zip(axes, VARIANTS):
            for n, iw in enumerate(data.plan["iw2"]):
                x = s.filter(
                    (pl.col("cc") == cc) & (pl.col("iw") == iw) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)
                ).sort("bin")
                ax.plot(x["bin"], x["bps"] / 1e6, color=f"C{n}", lw=0.9, label=f"IW {iw}")
                if sk is not None:
                    y = sk.filter(
                        (pl.col("cc") == cc) & (pl.col("iw") == iw) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)
                    ).sort("bin")
                    if y.height:
                        ax.plot(y["bin"], y["bps"] / 1e6, color=f"C{n}", lw=0.9, ls="--", label=f"IW {iw} Linux")
            ax.set_title(f"{VNAME[cc]}, {rate} Mb/s, RTT {r} ms", fontsize=9)
            ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("goodput, 1-s bins (Mb/s)")
        axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        figs.append(
            save_figure(
                fig,
                out,
                "iw2_throughput.png",
                "IW2: goodput over time (1-s bins) per IW; solid simulated, dashed this machine's kernel.",
            )
        )
        q = self.fct(data, "iw1_q1000")
        b = self.fct(data, "iw1_100000")
        fig, axes = subplots(1, 2, figsize=(10, 3.6))
        for ax, other, title in ((axes[0], q, "1000-packet queue vs 1 BDP"), (axes[1], b, "100,000 B vs 102,400 B")):
            j = t.join(other, on=["cc", "iw", "rtt_ms", "rate"], suffix="_o")
            for cc in VARIANTS:
                x = j.filter(pl.col("cc") == cc)
                ax.scatter(x["fct_data_s"], x["fct_data_s_o"], s=12, color=colors[cc], label=VNAME[cc])
            lim = [0, float(max(j["fct_data_s"].max(), j["fct_data_s_o"].max())) * 1.05]
            ax.plot(lim, lim, "k--", lw=0.8)
            ax.set_title(title, fontsize=9)
            ax.set_xlabel("main set-up FCT (s)")
            ax.set_ylabel("sensitivity FCT (s)")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8)
        figs.append(
            save_figure(
                fig,
                out,
                "iw1_sensitivity.png",
                "IW1 sensitivity (simulated): a 1000-packet queue "
                "instead of 1 BDP (left) and 100,000-byte transfers instead of 102,400 (right); points "
                "off the diagonal are cells the choice changes.",
            )
        )
        return figs

    def _validation_figure(self, data: StudyData, out: Path) -> Figure:
        rows = []
        for exp in ("iw1_emu", "iw2_emu"):
            if exp not in data.campaigns:
                continue
            e = data.campaign(exp).query("SELECT * FROM emulation")
            rows.append(
                (
                    exp,
                    e.height,
                    int(e["within_envelope"].sum()),
                    float(e["lateness_p99_s"].median()) * 1e3,
                    float(e["lateness_max_s"].max()) * 1e3,
                    float(e["min_rtt_error_max_s"].max()) * 1e3,
                    int(e["unmodelled_drops"].sum()),
                    str(e["kernel"][0]),
                )
            )
        from ..figures import subplots

        fig, ax = subplots(figsize=(10, 1.2 + 0.4 * len(rows)))
        ax.axis("off")
        tab = ax.table(
            cellText=[[r[0], r[1], r[2], f"{r[3]:.3f}", f"{r[4]:.2f}", f"{r[5]:.3f}", r[6], r[7]] for r in rows],
            colLabels=[
                "experiment",
                "runs",
                "within\nenvelope",
                "lateness p99,\nmedian (ms)",
                "worst\nlateness (ms)",
                "worst min-RTT\nerror (ms)",
                "drops outside\nthe model",
                "kernel",
            ],
            loc="center",
        )
        tab.auto_set_font_size(False)
        tab.set_fontsize(8)
        tab.scale(1, 2.0)
        return save_figure(
            fig,
            out,
            "emulation_validation.png",
            "The kernel runs' self-validation "
            "(docs/emulation.md): forwarder lateness, measured minus configured minimum RTT, drops the "
            "model did not decide. Runs outside the envelope are kept and counted here.",
        )


COLORS = {"cubic": "C0", "cubic_paced": "C2", "bbr": "C3"}


def _iw_grid(rtts, rates, iws, ylabel, lines, width, legend_size):
    """One panel per (RTT, rate): each algorithm's `lines` (table, column,
    style, label) against the initial window on a log axis."""
    from ..figures import subplots

    fig, axes = subplots(
        len(rtts), len(rates), figsize=(width * len(rates) + 1.2, 3.0 * len(rtts)), squeeze=False, sharex=True
    )
    for i, r in enumerate(rtts):
        for j, rate in enumerate(rates):
            ax = axes[i][j]
            for cc in VARIANTS:
                for table, col, style, label in lines:
                    if table is None:
                        continue
                    x = table.filter((pl.col("cc") == cc) & (pl.col("rtt_ms") == r) & (pl.col("rate") == rate)).sort(
                        "iw"
                    )
                    if x.height:
                        ax.plot(
                            x["iw"],
                            x[col],
                            style,
                            ms=3,
                            lw=0.8 if style == ":" else 1.2,
                            color=COLORS[cc],
                            label=f"{VNAME[cc]} {label}",
                        )
            ax.set_xscale("log")
            ax.set_xticks(iws, [str(v) for v in iws])
            ax.set_title(f"RTT {r} ms, {rate} Mb/s", fontsize=9)
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel(ylabel)
            if i == len(rtts) - 1:
                ax.set_xlabel("initial window (segments)")
    seen: dict = {}
    for ax in axes.flat:  # every panel's lines: the kernel's may be in some panels only
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    axes[0][-1].legend(
        list(seen.values()), list(seen), fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.02, 1.0)
    )
    return fig


def _mean(s) -> float:
    v = [x for x in s.to_list() if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.mean(v)) if v else math.nan


def _one(t: pl.DataFrame, col: str = "fct_data_s", **where) -> float:
    x = t
    for k, v in where.items():
        x = x.filter(pl.col(k) == v)
    return float(x[col][0]) if x.height else math.nan


def _settle_robust(t: np.ndarray, r: np.ndarray, steady: float, longest: int = DIP_S) -> float:
    """The first time after which the goodput has entered the band and never
    leaves it for more than `longest` consecutive 1-s bins: a one- or
    two-second dip (a loss recovery, BBR's PROBE_RTT) does not reset it, a
    sustained deviation does. Bins are labelled by their end."""
    if len(r) == 0 or not steady or math.isnan(steady):
        return math.nan
    out = np.abs(r - steady) > BAND * steady
    if out.all():
        return float(t[-1])
    first_in = int(np.argmax(~out))
    settle = float(t[first_in] - 1.0)  # end of the initial approach
    run = 0
    for i in range(first_in, len(r)):
        run = run + 1 if out[i] else 0
        if run > longest:
            settle = float(t[i])
    # a long run still open at the end
    return settle


def _settle(t: np.ndarray, r: np.ndarray, steady: float) -> float:
    """The first time after which `r` stays within ±BAND of `steady`: the
    end of the last bin outside the band (0 if none; NaN without data)."""
    if len(r) == 0 or not steady or math.isnan(steady):
        return math.nan
    out = np.flatnonzero(np.abs(r - steady) > BAND * steady)
    return float(t[out[-1]]) if len(out) else 0.0


STUDY = InitialWindow()
