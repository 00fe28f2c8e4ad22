"""The study: its plan, set-up table and experiments; the measurements are
in measures.py, the claims (statements and rules) in checks.py, the figures
in figures.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...experiments.sweep import Sweep
from ..base import Choice, Experiment
from ..kit import Plan, sweep_zip
from .checks import Checks
from .figures import Figures
from .scenarios import (
    BAND,
    DIP_S,
    LINK_NAME,
    MSS,
    SENSITIVITIES,
    SIZE,
    VARIANTS,
    base,
)


@dataclass(frozen=True)
class InitialWindowPlan(Plan):
    iw1: list[int]  # IW1: initial windows, RTTs (ms) and rates (Mb/s) of the FCT grid
    rtt: list[int]
    rate1: list[int]
    iw2: list[int]  # IW2: the convergence grid
    rtt2: list[int]
    rate2: list[int]
    dur2: float  # IW2's run length, s
    emu_seeds: list[int]  # the kernel's repetitions
    emu_iw1: dict[str, Any]  # the kernel's IW1 grid: iw, rtt, rate, cc
    emu_iw2: dict[str, Any] | None  # the kernel's IW2 grid (iw, rtt, rate, dur), or none
    emulation: str | None  # why the kernel columns cannot run here; None: they run


class InitialWindow(Checks, Figures):
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

    def plan(self, mode: str) -> InitialWindowPlan:
        from ...emulation import available

        why = available()
        if mode == "smoke":
            p: dict[str, Any] = {
                "describe": "IW 1 and 20, RTT 30 and 100 ms, 10 Mb/s; IW2 5 s; the kernel on two IW1 runs",
                "iw1": [1, 20],
                "rtt": [30, 100],
                "rate1": [10],
                "iw2": [10],
                "rtt2": [30],
                "rate2": [10],
                "dur2": 5.0,
                "seeds": [1],
                "emu_seeds": [1],
                "emu_iw1": {"iw": [20], "rtt": [30], "rate": [10], "cc": ["cubic", "bbr"]},
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
                "emu_iw1": {"iw": [1, 2, 4, 10, 20, 50], "rtt": [30, 100], "rate": [10, 30, 100], "cc": list(VARIANTS)},
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
                "emu_iw1": {"iw": [1, 2, 4, 10, 20, 50], "rtt": [30, 100], "rate": [10, 30, 100], "cc": list(VARIANTS)},
                "emu_iw2": {"iw": [1, 4, 10, 50], "rtt": [30, 100], "rate": [10], "dur": 100.0},
            }
        else:
            raise ValueError(mode)
        return InitialWindowPlan(**p, emulation=why)

    def setup_rows(self, plan: InitialWindowPlan) -> list[tuple[str, str]]:
        emu = (
            ("not run: " + plan.emulation)
            if plan.emulation
            else (
                "this machine's kernel TCP in network namespaces, over the simulator's own link and queue code "
                "(docs/emulation.md); IW1 on " + f"{len(plan.emu_iw1['iw'])} IW × {len(plan.emu_iw1['rtt'])} RTT × "
                f"{len(plan.emu_iw1['rate'])} rates × {len(plan.emu_iw1['cc'])} algorithms, "
                f"{len(plan.emu_seeds)} repetition(s)"
                + (
                    ""
                    if not plan.emu_iw2
                    else f"; IW2 at {plan.emu_iw2['rate']} Mb/s, {plan.emu_iw2['dur']:g} s, IW {plan.emu_iw2['iw']}"
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
                "link",
                "Mininet's TCLink(bw, delay) with its defaults (mininet/link.py): on each end an HTB class "
                "'rate R burst 15k' (tc's cburst 1600 B; 14 B of Ethernet counted per packet) feeding a veth "
                "with no serialisation, and a netem 'delay RTT/2' whose default limit of 1000 packets counts "
                "the packets in its delay line (ccsim: shaper = 'htb', queue = 'netem', buffer = '1000pkt')",
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
            ("IW1", f"{SIZE:,} B (iperf3's 100K), IW {plan.iw1}, RTT {plan.rtt} ms, rates {plan.rate1} Mb/s"),
            ("IW2", f"{plan.dur2:g} s bulk, IW {plan.iw2}, RTT {plan.rtt2} ms, rates {plan.rate2} Mb/s"),
            (
                "sensitivities",
                "IW1 and IW2 on a serialising link with a 1-BDP DropTail (this study's set-up before it had "
                "Mininet's link) and on Mininet's shaper with a 10-packet DropTail; IW1 also with a 0.25-BDP "
                "DropTail and with 100,000-byte transfers; each claim lists its checks on each",
            ),
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
            Choice(
                "link and queue",
                "Mininet's default TCLink (HTB shaper, netem delay and its 1000-packet limit); sensitivities: "
                "1 BDP on a serialising link, 10 packets and 0.25 BDP behind the shaper",
                "the paper ran Mininet and gives no queue size, so Mininet's defaults apply; until this "
                "link model existed the study ran a 1-BDP DropTail on a serialising link, kept as a sensitivity",
            ),
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
    def _iw1(
        self,
        plan: InitialWindowPlan,
        name: str,
        *,
        iws: Sequence[int],
        rtts: Sequence[float],
        rates: Sequence[int],
        seeds: Sequence[int],
        size: int = SIZE,
        link: str = "mininet",
        backend: str = "sim",
        ccs: Sequence[str] = tuple(VARIANTS),
    ) -> Sweep:
        zip_ = sweep_zip([VARIANTS[c] for c in ccs], options="tcp.")
        app = {"app": "file", "size": f"{size}B"}
        return Sweep(
            base(5.0, app, "10ms", link),
            name=f"initial_window.{name}",
            grid={
                "tcp.initial_window": iws,
                "topology.delay": [f"{r / 2:g}ms" for r in rtts],
                "topology.rate": [f"{r}Mbps" for r in rates],
            },
            zip=zip_,
            seeds=list(seeds),
            backend=backend,
        )

    @staticmethod
    def _iw2(
        name: str,
        *,
        iws: Sequence[int],
        rtts: Sequence[float],
        rates: Sequence[int],
        dur: float,
        link: str = "mininet",
        backend: str = "sim",
    ) -> Sweep:
        return Sweep(
            base(dur, {"app": "bulk"}, "100ms", link),
            name=f"initial_window.{name}",
            grid={
                "tcp.initial_window": iws,
                "topology.delay": [f"{r / 2:g}ms" for r in rtts],
                "topology.rate": [f"{r}Mbps" for r in rates],
            },
            zip=sweep_zip(VARIANTS.values(), options="tcp."),
            seeds=[1],
            backend=backend,
        )

    def experiments(self, plan: InitialWindowPlan) -> list[Experiment]:
        def iw1(name: str, seeds: Sequence[int], size: int = SIZE, link: str = "mininet") -> Sweep:
            return self._iw1(
                plan, name, iws=plan.iw1, rtts=plan.rtt, rates=plan.rate1, seeds=seeds, size=size, link=link
            )

        b100k = iw1("iw1_100000", seeds=[1], size=100_000)

        def iw2(name: str, link: str = "mininet") -> Sweep:
            return self._iw2(name, iws=plan.iw2, rtts=plan.rtt2, rates=plan.rate2, dur=plan.dur2, link=link)

        exps = [
            Experiment("iw1", "IW1: 100 KB transfers (simulated)", iw1("iw1", seeds=plan.seeds)),
            *(
                Experiment(
                    e,
                    f"IW1 sensitivity: {LINK_NAME[link]} (simulated)",
                    iw1(e, seeds=[1], link=link),
                )
                for e, link in SENSITIVITIES["iw1"]
            ),
            Experiment("iw1_100000", "IW1 with 100,000-byte transfers (simulated)", b100k),
            Experiment("iw2", "IW2: long transfers (simulated)", iw2("iw2")),
            *(
                Experiment(e, f"IW2 sensitivity: {LINK_NAME[link]} (simulated)", iw2(e, link))
                for e, link in SENSITIVITIES["iw2"]
            ),
        ]
        if plan.emulation is None:
            e = plan.emu_iw1
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
                        seeds=plan.emu_seeds,
                        backend="emulation",
                        ccs=e["cc"],
                    ),
                )
            )
            e2 = plan.emu_iw2
            if e2:
                exps.append(
                    Experiment(
                        "iw2_emu",
                        "IW2 on the kernel",
                        self._iw2(
                            "iw2_emu",
                            iws=e2["iw"],
                            rtts=e2["rtt"],
                            rates=e2["rate"],
                            dur=e2["dur"],
                            backend="emulation",
                        ),
                    )
                )
        return exps


STUDY = InitialWindow()
