"""The RTT-unfairness cell of tools/validation_multi.py (CUBIC at RTT 20 and
80 ms sharing 100 Mb/s, a 1000 KB DropTail buffer, 30 s) with the 80 ms flow
started at several offsets, on both backends: a scenario without random
parts gives the simulator one outcome per start phase, so one phase is one
sample. Prints the goodput ratio (flow 0 / flow 1, last two thirds) per
offset, and whether each kernel run was within the emulation's envelope.

    sudo .venv/bin/python tools/validation_rtt_phases.py [--offsets-ms 0,3,7,11,15,18]

Real time: about 45 s per offset.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ccsim.analysis.results import run_scenario  # noqa: E402
from ccsim.emulation import emulate, sim_twin  # noqa: E402
from validation_multi import dumbbell, late_goodputs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--offsets-ms", default="0,3,7,11,15,18")
    a = ap.parse_args()
    rows = []
    for ms in [float(x) for x in a.offsets_ms.split(",")]:
        flows = [
            {"app": "bulk", "rtt": "20ms", "cc": "cubic"},
            {"app": "bulk", "rtt": "80ms", "cc": "cubic", "start": f"{ms}ms"},
        ]
        sc = dumbbell("100Mbps", 20, "1000KB", 30, flows)
        s = run_scenario(sim_twin(sc))
        e = emulate(sc, twin=s)
        gs, ge = late_goodputs(s), late_goodputs(e)
        rows.append((gs[0] / gs[1], ge[0] / ge[1]))
        em = e.emulation
        print(
            f"offset {ms:g} ms: sim {gs[0] / gs[1]:.2f}  linux {ge[0] / ge[1]:.2f}  "
            f"envelope {em['within_envelope']}  p99 {em['lateness_p99_s'] * 1e3:.3f} ms  steal {em['steal_share']:.0%}",
            flush=True,
        )
    r = np.array(rows)
    print(
        f"median over {len(r)} offsets: sim {np.median(r[:, 0]):.2f}, linux {np.median(r[:, 1]):.2f}; "
        f"sim above linux in {int((r[:, 0] > r[:, 1] * 1.05).sum())} of {len(r)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
