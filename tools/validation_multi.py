"""The simulator beside the running kernel with many flows and impairments:
N-flow fairness (CUBIC, BBR; two RTTs), CUBIC against BBR at 0.5 and 4 BDP,
RTT unfairness, random loss, reordering, CoDel and FQ-CoDel. Each cell runs
`--repeat` times on both backends with seeds 1, 2, ... (the kernel's k-th
run takes its loss and reordering draws from the same random streams as
the simulator's) and reports the mean and range of each, their ratio,
and how many kernel runs stayed within the emulation's envelope, with the
CPU that others took meanwhile. Writes results/validation/multi.csv and
multi.md, and with --docs replaces the table in docs/validation.md between
its markers, so the page is this tool's output.

    sudo .venv/bin/python tools/validation_multi.py [--repeat 3] [--docs]

Real time: about 6 minutes per repetition (13 cells of 20-30 s).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import polars as pl
from ccsim.analysis.results import run_scenario
from ccsim.emulation import emulate, sim_twin

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- validation_multi.py: begin -->"
END = "<!-- validation_multi.py: end -->"

# a run of either backend (ccsim.Result, or the emulation's EmuResult): both give the same tables
Run = Any


def late_goodputs(r: Run) -> np.ndarray:
    """Each flow's goodput (b/s) over the last two thirds of the run, from
    the delivered-bytes samples (both backends sample every 100 ms): the
    start-up third is left out, as fairness studies do."""
    fs = r.flow_series
    out = []
    for f in sorted(fs["flow"].unique().to_list()):
        s = fs.filter(pl.col("flow") == f).sort("time_s")
        t, b = s["time_s"].to_numpy(), s["delivered_bytes"].to_numpy().astype(float)
        t0 = t[-1] / 3
        i = int(np.searchsorted(t, t0))
        out.append((b[-1] - b[i]) * 8 / (t[-1] - t[i]) if t[-1] > t[i] else math.nan)
    return np.array(out)


def jain(x: np.ndarray) -> float:
    """Jain's fairness index (Jain, Chiu & Hawe 1984): (Σx)² / (n Σx²)."""
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))


def m_jain(r: Run) -> float:
    return jain(late_goodputs(r))


def m_max_min(r: Run) -> float:
    g = late_goodputs(r)
    return float(g.max() / g.min())


def m_total(r: Run) -> float:
    return float(r.flows["goodput_bps"].sum() / 1e6)


def m_share0(r: Run) -> float:
    g = late_goodputs(r)
    return float(g[0] / g.sum())


def m_ratio01(r: Run) -> float:
    g = late_goodputs(r)
    return float(g[0] / g[1])


def m_retx(r: Run) -> float:
    return float(r.flows["retransmits"].sum())


def m_srtt(r: Run) -> float:
    fs = r.flow_series
    t_end = float(fs["time_s"].max())
    return float(fs.filter(pl.col("time_s") >= t_end / 3)["srtt_s"].mean() * 1e3)


@dataclass
class Cell:
    name: str
    what: str
    scenario: Callable[[], ccsim.Scenario]
    metrics: Sequence[tuple[str, Callable[[Run], float]]]


def dumbbell(
    rate: str,
    rtt_ms: float,
    buffer: str,
    dur: float,
    flows: list[dict[str, Any]],
    queue: str | dict[str, Any] = "droptail",
    **topo: Any,
) -> ccsim.Scenario:
    b = ccsim.Builder(duration=f"{dur}s", seed=1, sample_interval="100ms").dumbbell(
        bottleneck_rate=rate,
        bottleneck_delay=f"{rtt_ms / 2 - 2}ms",
        access_rate="1Gbps",
        access_delay="1ms",
        buffer=buffer,
        queue=queue,
        **topo,
    )
    for f in flows:
        b = b.flows(**f)
    return b.build()


def single(rate: str, rtt_ms: float, dur: float, cc: str, **topo: Any) -> ccsim.Scenario:
    return (
        ccsim.Builder(duration=f"{dur}s", seed=1, sample_interval="100ms")
        .single_link(rate=rate, delay=f"{rtt_ms / 2}ms", buffer="1bdp", **topo)
        .tcp(cc=cc)
        .flows(app="bulk")
        .build()
    )


def n_flows(cc: str, n: int = 10) -> list[dict[str, Any]]:
    return [{"count": n, "app": "bulk", "stagger": "10ms", "cc": cc}]


FAIR = [
    ("total goodput (Mb/s)", m_total),
    ("Jain, last 2/3", m_jain),
    ("largest / smallest flow", m_max_min),
    ("retransmitted segments", m_retx),
]
TWO = [("total goodput (Mb/s)", m_total), ("share of flow 0", m_share0), ("retransmitted segments", m_retx)]

CELLS = [
    *(
        Cell(
            f"fair-{cc}-{rtt}",
            f"10 {cc.upper()} flows, 100 Mb/s, RTT {rtt} ms, 1 BDP, 30 s",
            functools.partial(dumbbell, "100Mbps", rtt, "1bdp", 30, n_flows(cc)),
            FAIR,
        )
        for cc in ("cubic", "bbr")
        for rtt in (20, 80)
    ),
    *(
        Cell(
            f"cubic-vs-bbr-{q}",
            f"flow 0 CUBIC, flow 1 BBR, 100 Mb/s, RTT 40 ms, {q}, 30 s",
            functools.partial(
                dumbbell, "100Mbps", 40, q, 30, [{"app": "bulk", "cc": "cubic"}, {"app": "bulk", "cc": "bbr"}]
            ),
            TWO,
        )
        for q in ("0.5bdp", "4bdp")
    ),
    Cell(
        "rtt-unfairness",
        "CUBIC at RTT 20 ms (flow 0) and 80 ms (flow 1), 100 Mb/s, 1 BDP of 80 ms, 30 s",
        lambda: dumbbell(
            "100Mbps",
            20,
            "1000KB",
            30,
            [{"app": "bulk", "rtt": "20ms", "cc": "cubic"}, {"app": "bulk", "rtt": "80ms", "cc": "cubic"}],
        ),
        [("total goodput (Mb/s)", m_total), ("flow 0 / flow 1", m_ratio01)],
    ),
    *(
        Cell(
            f"loss-{cc}",
            f"one {cc.upper()} flow, 20 Mb/s, RTT 40 ms, 1 % random loss, 20 s",
            functools.partial(single, "20Mbps", 40, 20, cc, loss={"kind": "bernoulli", "p": 0.01}),
            [("goodput (Mb/s)", m_total), ("retransmitted segments", m_retx)],
        )
        for cc in ("reno", "cubic", "bbr")
    ),
    Cell(
        "reorder-cubic",
        "one CUBIC flow, 20 Mb/s, RTT 40 ms, 2 ms reordering jitter on data, 20 s",
        lambda: single("20Mbps", 40, 20, "cubic", reorder={"jitter": "2ms"}),
        [("goodput (Mb/s)", m_total), ("retransmitted segments", m_retx)],
    ),
    *(
        Cell(
            f"{q}-cubic",
            f"4 CUBIC flows, 100 Mb/s, RTT 20 ms, {q} (1000-packet limit), 20 s",
            functools.partial(dumbbell, "100Mbps", 20, "1000pkt", 20, n_flows("cubic", 4), queue=q),
            [("total goodput (Mb/s)", m_total), ("mean srtt, last 2/3 (ms)", m_srtt), ("Jain, last 2/3", m_jain)],
        )
        for q in ("codel", "fq_codel")
    ),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="results/validation")
    ap.add_argument("--only", default="", help="comma-separated cell names")
    ap.add_argument("--docs", action="store_true", help="write the table into docs/validation.md")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    only = {x for x in a.only.split(",") if x}
    rows = []
    t0 = time.monotonic()
    for c in CELLS:
        if only and c.name not in only:
            continue
        sc = c.scenario()
        sims = [run_scenario(sim_twin(sc).with_seed(1 + k)) for k in range(a.repeat)]
        # the kernel's k-th run with the simulator's k-th seed: its losses and
        # reordering come from the same random streams (the forwarder runs the
        # simulator's link code with the scenario's seed)
        emus = [emulate(sc.with_seed(1 + k), twin=sims[k]) for k in range(a.repeat)]
        ok = sum(e.emulation["within_envelope"] for e in emus)
        other = max(e.emulation["other_cpu_share"] for e in emus)
        steal = max(e.emulation["steal_share"] for e in emus)
        lat = max(e.emulation["lateness_p99_s"] for e in emus) * 1e3
        for label, fn in c.metrics:
            s = np.array([fn(r) for r in sims])
            e = np.array([fn(r) for r in emus])
            rows.append(
                {
                    "cell": c.name,
                    "what": c.what,
                    "metric": label,
                    "sim_mean": float(s.mean()),
                    "sim_min": float(s.min()),
                    "sim_max": float(s.max()),
                    "linux_mean": float(e.mean()),
                    "linux_min": float(e.min()),
                    "linux_max": float(e.max()),
                    "ratio": float(e.mean() / s.mean()) if s.mean() else math.nan,
                    "within_envelope": f"{ok}/{a.repeat}",
                    "lateness_p99_max_ms": lat,
                    "other_cpu_max": other,
                    "steal_max": steal,
                }
            )
            r = rows[-1]
            print(
                f"{c.name:18} {label:28} sim {r['sim_mean']:.4g} [{r['sim_min']:.4g}, {r['sim_max']:.4g}]  "
                f"linux {r['linux_mean']:.4g} [{r['linux_min']:.4g}, {r['linux_max']:.4g}]  ratio {r['ratio']:.3f}  "
                f"envelope {ok}/{a.repeat}  p99 ≤ {lat:.2f} ms  others ≤ {other:.0%}  steal ≤ {steal:.0%}",
                flush=True,
            )
    pl.DataFrame(rows).write_csv(out / "multi.csv")
    table = render(rows, a.repeat, time.monotonic() - t0)
    (out / "multi.md").write_text(table)
    if a.docs:
        doc = ROOT / "docs" / "validation.md"
        text = doc.read_text()
        i, j = text.index(BEGIN), text.index(END)
        doc.write_text(text[: i + len(BEGIN)] + "\n" + table + text[j:])
    print(f"wrote {out}/multi.csv and multi.md" + (" and docs/validation.md" if a.docs else ""))
    return 0


def render(rows: list[dict[str, Any]], repeat: int, seconds: float) -> str:
    lines = [
        f"Generated by `tools/validation_multi.py --repeat {repeat}` on {time.strftime('%Y-%m-%d')} "
        f"({seconds / 60:.0f} min). Mean [min, max] over {repeat} runs per backend.",
        "",
        "| cell | metric | simulated | Linux | Linux/sim | kernel runs within envelope | lateness p99 (max) | "
        "CPU of others / stolen (max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    seen = set()
    for r in rows:
        cell = r["cell"] if r["cell"] in seen else f"**{r['cell']}**: {r['what']}"
        seen.add(r["cell"])
        lines.append(
            f"| {cell} | {r['metric']} | {r['sim_mean']:.3g} [{r['sim_min']:.3g}, {r['sim_max']:.3g}] | "
            f"{r['linux_mean']:.3g} [{r['linux_min']:.3g}, {r['linux_max']:.3g}] | {r['ratio']:.2f} | "
            f"{r['within_envelope']} | {r['lateness_p99_max_ms']:.2f} ms | "
            f"{r['other_cpu_max']:.0%} / {r['steal_max']:.0%} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
