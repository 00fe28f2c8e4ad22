"""Side by side: one scenario simulated and emulated through the kernel's TCP.

The simulated twin is the scenario with ``tcp.handshake = true`` (the kernel
always opens with a handshake; without it the simulator's FCT would start one
RTT later than the kernel's). Every metric is the mean over repetitions (the
simulator with seeds seed, seed+1, ...; the emulation repeated), with the
ratio emulated / simulated.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .result import envelope_text

METRICS = [
    ("goodput_bps", "goodput (Mb/s)", 1e-6),
    ("throughput_bps", "throughput (Mb/s)", 1e-6),
    ("fct_s", "FCT from the SYN (s)", 1.0),
    ("fct_data_s", "FCT from the first data byte (s)", 1.0),
    ("retransmits", "retransmitted segments", 1.0),
    ("rtt_min_s", "min RTT (ms)", 1e3),
]


def _mean(vals: list[float]) -> float:
    v = [x for x in vals if x is not None and not math.isnan(x)]
    return float(np.mean(v)) if v else math.nan


def compare(
    sc: Any, *, repeat: int = 1, out: str | Path | None = None, spin_us: float = 200.0, pin: bool = False
) -> dict[str, Any]:
    from ..analysis.results import run_scenario
    from . import emulate, sim_twin

    twin = sim_twin(sc)
    sims = [run_scenario(twin.with_seed(sc.seed + k)) for k in range(repeat)]
    emus = [emulate(sc, spin_us=spin_us, twin=sims[0], pin=pin) for _ in range(repeat)]
    nflows = sims[0].flows.height
    rows = []
    for fid in range(nflows):
        for col, label, scale in METRICS:
            s = _mean([float(r.flows[col][fid]) for r in sims])
            e = _mean([float(r.flows[col][fid]) for r in emus])
            ratio = e / s if s and not math.isnan(s) and not math.isnan(e) else math.nan
            rows.append(
                {"flow": fid, "metric": col, "label": label, "sim": s * scale, "emu": e * scale, "ratio": ratio}
            )
    report = {
        "scenario": sc.source,
        "repeat": repeat,
        "rows": rows,
        "emulation": [r.emulation for r in emus],
        "within_envelope": all(r.emulation["within_envelope"] for r in emus),
        "note": "simulated with tcp.handshake = true; emulated through the running kernel",
    }
    if out is not None:
        o = Path(out)
        o.mkdir(parents=True, exist_ok=True)
        for k, r in enumerate(sims):
            r.write(o / f"sim{k}")
        for k, r in enumerate(emus):
            r.write(o / f"emu{k}")
        (o / "compare.json").write_text(json.dumps(report, indent=2, default=str))
        with open(o / "compare.csv", "w") as f:
            f.write("flow,metric,sim,emu,ratio\n")
            for row in rows:
                f.write(f"{row['flow']},{row['metric']},{row['sim']:.6g},{row['emu']:.6g},{row['ratio']:.4g}\n")
        report["figures"] = [str(p) for p in plot_compare(sims[0], emus[0], o, title=str(sc.source or ""))]
    return report


def plot_compare(sim: Any, emu: Any, out: Path, title: str = "") -> list[Path]:
    import polars as pl

    from ..analysis.figures import subplots

    written: list[Path] = []
    fs_s, fs_e = sim.flow_series, emu.flow_series
    if fs_s.height == 0 or fs_e.height == 0:
        return written
    flows = sorted(fs_e["flow"].unique().to_list())[:6]
    fig, axes = subplots(2, 1, figsize=(9, 7), sharex=True)
    for i, f in enumerate(flows):
        c = f"C{i % 10}"
        s = fs_s.filter(pl.col("flow") == f)
        e = fs_e.filter(pl.col("flow") == f)
        axes[0].plot(s["time_s"], s["cwnd"], c, ls="--", lw=1, label=f"flow {f} simulated")
        axes[0].plot(e["time_s"], e["cwnd"], c, lw=1, label=f"flow {f} Linux {emu.flows['kernel_cc'][f]}")
        for df, ls in ((s, "--"), (e, "-")):
            t = df["time_s"].to_numpy()
            b = df["delivered_bytes"].to_numpy().astype(float)
            if len(t) > 1:
                axes[1].plot(t[1:], np.diff(b) * 8 / np.diff(t) / 1e6, c, ls=ls, lw=1)
    fcts = [float(x) for r in (sim, emu) for x in r.flows["fct_s"].to_list()]
    if fcts and not any(math.isnan(x) for x in fcts):
        # every flow finished: show the transfers, not the idle remainder
        axes[1].set_xlim(0, 1.3 * max(fcts) + 2 * float(np.diff(fs_e["time_s"].to_numpy()[:2]).sum() or 0))
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("goodput per interval (Mb/s)")
    axes[1].set_xlabel("time (s)")
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(f"simulated (dashed) vs Linux kernel (solid): {title}", fontsize=10)
    fig.tight_layout()
    p = out / "compare_cwnd.png"
    fig.savefig(p, dpi=110)
    written.append(p)
    return written


def format_report(rep: dict[str, Any]) -> str:
    lines = [f"{'flow':>4}  {'metric':<34} {'simulated':>12} {'Linux':>12} {'ratio':>7}"]
    for r in rep["rows"]:
        lines.append(f"{r['flow']:>4}  {r['label']:<34} {r['sim']:>12.4g} {r['emu']:>12.4g} {r['ratio']:>7.3f}")
    for k, e in enumerate(rep["emulation"]):
        lines.append(f"emulation {k}: {envelope_text(e)}")
    lines.append(rep["note"])
    return "\n".join(lines)
