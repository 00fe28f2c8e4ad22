"""The simulator beside the running kernel on a grid: {NewReno, CUBIC, BBR}
x {10, 100} Mb/s x {20, 100} ms RTT x {100 KB transfer, bulk}, single link,
1-BDP DropTail queue, IW 10, MSS 1448, timestamps and SACK on. Writes
results/validation/grid.csv and grid.md (the table in docs/validation.md).

    .venv/bin/python tools/validation_grid.py [--bulk-s 10] [--repeat 1]

Real time: about (24 cells x repeat) runs, bulk cells last --bulk-s seconds.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import ccsim
from ccsim.analysis.results import run_scenario
from ccsim.emulation import emulate, sim_twin


def cell(cc: str, rate: str, rtt_ms: int, app: str, bulk_s: float) -> ccsim.Scenario:
    dur = f"{bulk_s}s" if app == "bulk" else "5s"
    b = (
        ccsim.Builder(duration=dur, seed=1, sample_interval="100ms")
        .single_link(rate=rate, delay=f"{rtt_ms / 2}ms", buffer="1bdp")
        .tcp(cc=cc, initial_window=10)
    )
    b = b.flows(count=1, app="bulk") if app == "bulk" else b.flows(count=1, app="file", size="100KB")
    return b.build()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bulk-s", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", default="results/validation")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for app in ("100KB", "bulk"):
        for cc in ("newreno", "cubic", "bbr"):
            for rate in ("10Mbps", "100Mbps"):
                for rtt in (20, 100):
                    sc = cell(cc, rate, rtt, app, a.bulk_s)
                    for k in range(a.repeat):
                        s = run_scenario(sim_twin(sc).with_seed(1 + k))
                        e = emulate(sc)
                        fs, fe = s.flows.row(0, named=True), e.flows.row(0, named=True)
                        metric = "fct_s" if app != "bulk" else "goodput_bps"
                        sv, ev = fs[metric], fe[metric]
                        rows.append(
                            {
                                "app": app,
                                "cc": cc,
                                "rate": rate,
                                "rtt_ms": rtt,
                                "rep": k,
                                "metric": metric,
                                "sim": sv,
                                "linux": ev,
                                "ratio": ev / sv if sv else math.nan,
                                "sim_retx": fs["retransmits"],
                                "linux_retx": fe["retransmits"],
                                "sim_drops": int(s.links["drops"][0]),
                                "linux_drops": int(e.links["drops"][0]),
                                "lat_p99_ms": e.emulation["lateness_p99_s"] * 1e3,
                                "ok": e.emulation["within_envelope"],
                            }
                        )
                        r = rows[-1]
                        print(
                            f"{app:6} {cc:8} {rate:8} {rtt:4} ms  {metric:12} sim {sv:.4g}  linux {ev:.4g}  "
                            f"ratio {r['ratio']:.3f}  retx {r['sim_retx']}/{r['linux_retx']}  "
                            f"drops {r['sim_drops']}/{r['linux_drops']}  p99 {r['lat_p99_ms']:.3f} ms  "
                            f"{'ok' if r['ok'] else 'OUTSIDE ' + '; '.join(e.emulation['problems'])}",
                            flush=True,
                        )
    keys = list(rows[0])
    with open(out / "grid.csv", "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")
    with open(out / "grid.md", "w") as f:
        f.write(
            "| transfer | cc | rate | RTT | metric | simulated | Linux | Linux/sim | retransmits sim/Linux "
            "| queue drops sim/Linux | lateness p99 | envelope |\n"
        )
        f.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:

            def fmt(v: float, fct: bool = r["metric"] == "fct_s") -> str:
                return f"{v:.3f} s" if fct else f"{v / 1e6:.2f} Mb/s"

            f.write(
                f"| {r['app']} | {r['cc']} | {r['rate']} | {r['rtt_ms']} ms | {r['metric']} | {fmt(r['sim'])} | "
                f"{fmt(r['linux'])} | {r['ratio']:.3f} | {r['sim_retx']}/{r['linux_retx']} | "
                f"{r['sim_drops']}/{r['linux_drops']} | {r['lat_p99_ms']:.3f} ms | {'ok' if r['ok'] else 'outside'} |\n"
            )
    print(f"wrote {out}/grid.csv and grid.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
