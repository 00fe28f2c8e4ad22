"""How often BBR v1 flows sit pinned at pacing gain 1 (long-term bandwidth
mode, `tcp_bbr.c` bbr_lt_bw_sampling), in the simulator and in the kernel,
for N BBR flows sharing a dumbbell. Per flow: goodput over the last two
thirds, retransmits, and the share of time in stretches of at least
`--pinned` seconds with pacing gain exactly 1. In ProbeBW a flow leaves gain
1 every 8 rounds (for 1.25 and 0.75), so a longer stretch at 1 is the
long-term mode (48 rounds) or ProbeRTT (200 ms, shorter than the default
0.5 s). The same rule reads both backends' samples (the kernel's from
TCP_CC_INFO every --sample); for the simulator it is checked against its own
lt_use_bw flag.

    sudo .venv/bin/python tools/bbr_lt_probe.py [--rtt-ms 20] [--flows 10] [--seconds 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccsim.analysis.results import run_scenario  # noqa: E402
from ccsim.emulation import (
    emulate,  # noqa: E402
    sim_twin,  # noqa: E402
)
from validation_multi import dumbbell, jain, late_goodputs, n_flows  # noqa: E402


def pinned_share(t: np.ndarray, gain: np.ndarray, min_s: float) -> float:
    """Share of [t0, t_end] spent in stretches of samples with gain exactly 1
    lasting at least min_s (from the first to the last sample at 1)."""
    if len(t) < 2:
        return float("nan")
    total, start = 0.0, None
    for i in range(len(t)):
        at1 = gain[i] == 1.0
        if at1 and start is None:
            start = t[i]
        if (not at1 or i == len(t) - 1) and start is not None:
            end = t[i] if at1 else t[i - 1]
            if end - start >= min_s:
                total += end - start
            start = None
    return float(total / (t[-1] - t[0]))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtt-ms", type=float, default=20)
    ap.add_argument("--flows", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sample", default="20ms")
    ap.add_argument("--pinned", type=float, default=0.5)
    ap.add_argument("--no-kernel", action="store_true")
    ap.add_argument("--out", default="results/validation/bbr_lt_probe", help="where both runs are written")
    a = ap.parse_args()
    sc = dumbbell("100Mbps", a.rtt_ms, "1bdp", a.seconds, n_flows("bbr", a.flows)).with_overrides(
        {"sim.sample_interval": a.sample}
    )
    sc = sc.with_seed(a.seed)
    sim = run_scenario(sim_twin(sc).with_overrides({"sim.trace": ["cc"]}))
    sim.write(Path(a.out) / "sim")
    t_from = a.seconds / 3
    cs = sim.table("cc_state").filter((pl.col("cause") == "sample") & (pl.col("time_s") >= t_from))
    rows = []
    g_sim = late_goodputs(sim)
    for f in range(a.flows):
        x = cs.filter(pl.col("flow") == f).sort("time_s")
        t, g = x["time_s"].to_numpy(), x["pacing_gain"].to_numpy()
        rows.append(
            {
                "backend": "sim",
                "flow": f,
                "goodput_mbps": g_sim[f] / 1e6,
                "retransmits": int(sim.flows["retransmits"][f]),
                "pinned_share": pinned_share(t, g, a.pinned),
                "lt_use_bw_share": float(np.mean(x["lt_use_bw"].to_numpy())),
            }
        )
    if not a.no_kernel:
        emu = emulate(sc, twin=sim)
        emu.write(Path(a.out) / "linux")
        fs = emu.flow_series.filter(pl.col("time_s") >= t_from)
        g_emu = late_goodputs(emu)
        for f in range(a.flows):
            x = fs.filter(pl.col("flow") == f).sort("time_s")
            rows.append(
                {
                    "backend": "linux",
                    "flow": f,
                    "goodput_mbps": g_emu[f] / 1e6,
                    "retransmits": int(emu.flows["retransmits"][f]),
                    "pinned_share": pinned_share(x["time_s"].to_numpy(), x["bbr_pacing_gain"].to_numpy(), a.pinned),
                    "lt_use_bw_share": float("nan"),
                }
            )
        print("emulation:", "within envelope" if emu.emulation["within_envelope"] else emu.emulation["problems"])
    df = pl.DataFrame(rows)
    with pl.Config(tbl_rows=2 * a.flows + 2):
        print(df)
    for b, x in df.group_by("backend", maintain_order=True):
        g = x["goodput_mbps"].to_numpy()
        print(
            f"{b[0]:6} Jain {jain(g):.3f}  largest/smallest {g.max() / g.min():.2f}  "
            f"retransmits {x['retransmits'].sum()}  "
            f"mean pinned share {float(np.mean(x['pinned_share'].to_numpy())):.3f}  "
            f"corr(goodput, pinned) {np.corrcoef(g, x['pinned_share'].to_numpy())[0, 1]:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
