"""Where CUBIC leaves slow start, simulated and on the running kernel, and
why: the receiver's ACKs in each slow-start round. One CUBIC bulk flow on
docs/validation.md's grid cell (10 Mb/s, 100 ms RTT, 1-BDP DropTail, IW 10,
SACK and timestamps), `--repeat` kernel runs beside the simulator.

For each backend it prints the slow-start exit (the first finite ssthresh
of the 10 ms TCP_INFO or flow samples, and when), the retransmissions, and
per slow-start round (rounds split at ACK gaps over 20 ms) the ACKs seen on
the wire and the first ACK that came more than 2 ms after the one before:
HyStart's ACK train (Linux tcp_cubic.c hystart_update, hystart_ack_delta_us
= 2000) ends there, and it exits slow start only if the train spans more
than half the minimum RTT (about 50 ms here, 42 ACKs 1.2 ms apart).

    sudo .venv/bin/python tools/validation_ack_train.py [--repeat 3]

Real time: about 11 s per kernel run; needs the emulation (docs/emulation.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccsim.analysis.results import run_scenario  # noqa: E402
from ccsim.emulation import available, emulate, sim_twin  # noqa: E402
from validation_grid import cell  # noqa: E402

TRAIN_GAP_MS = 2.0  # hystart_ack_delta_us
ROUND_GAP_MS = 20.0  # an idle gap between two slow-start flights


def describe(name: str, flows: pl.DataFrame, series: pl.DataFrame, seq: pl.DataFrame) -> dict[str, Any]:
    f = flows.row(0, named=True)
    ss = series.filter(pl.col("ssthresh") < 1e9)
    exit_cwnd, exit_t = (int(ss["ssthresh"][0]), float(ss["time_s"][0])) if ss.height else (None, None)
    acks = seq.filter((pl.col("kind") == "ack") & (pl.col("time_s") < (exit_t or 1.0) + 0.2))
    t = acks["time_s"].to_numpy()
    gaps = np.diff(t) * 1e3
    starts = [0] + [i + 1 for i, g in enumerate(gaps) if g > ROUND_GAP_MS]
    rounds = []
    for j, s0 in enumerate(starts):
        e0 = starts[j + 1] if j + 1 < len(starts) else len(t)
        inner = gaps[s0 : e0 - 1]
        broken = int(np.argmax(inner > TRAIN_GAP_MS)) + 1 if (inner > TRAIN_GAP_MS).any() else None
        rounds.append((round(float(t[s0]), 3), e0 - s0, broken))
    print(f"{name}: slow start left at cwnd {exit_cwnd} at {exit_t} s; retransmits {f['retransmits']}")
    for at, n, broken in rounds:
        print(f"  round at {at:.3f} s: {n} ACKs, the train breaks at ACK {broken if broken else '-'}")
    return {"exit_cwnd": exit_cwnd, "retransmits": f["retransmits"], "rounds": rounds}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="kernel runs")
    a = ap.parse_args()
    sc = cell("cubic", "10Mbps", 100, "bulk", 10.0).with_overrides(
        {"sim.sample_interval": "10ms", "sim.trace": ["seq"]}
    )
    s = run_scenario(sim_twin(sc))
    describe("simulator", s.flows, s.flow_series, s.table("seq_trace"))
    why = available()
    if why:
        print(f"kernel: not run ({why})")
        return 0
    for k in range(a.repeat):
        e = emulate(sc)
        env = e.table("emulation").row(0, named=True)
        describe(
            f"kernel run {k + 1} (within envelope: {bool(env['within_envelope'])})",
            e.flows,
            e.flow_series,
            e.table("seq_trace"),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
