"""Set-up and run cost of an N-flow dumbbell at 10 Gb/s (docs/reliability.md, "Scale").

    .venv/bin/python tools/scale_flows.py 100000 [duration] [own|shared]

Prints set-up and run time, peak memory, packets delivered and the CPU time
per delivered packet (compare 10 and 10,000 flows at the same rate).
"""

import resource
import sys
import time

import ccsim

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
dur = sys.argv[2] if len(sys.argv) > 2 else "0.2s"
# 'own': each flow's hosts on access links of their own; 'shared': the
# group's flows on one access-link pair (the dumbbell's `access` option)
access = sys.argv[3] if len(sys.argv) > 3 else "own"
t0 = time.perf_counter()
sc = (
    ccsim.Builder(duration=dur, seed=1, sample_interval="off")
    .dumbbell(
        bottleneck_rate="10Gbps", bottleneck_delay="10ms", access_rate="10Gbps", access_delay="1ms", buffer="1bdp"
    )
    .tcp(cc="newreno")
    .flows(count=n, app="bulk", start={"spread": ["0s", "0.1s"]}, access=access)
    .build()
)
t1 = time.perf_counter()
r = sc.run()
t2 = time.perf_counter()
print(
    f"{n} flows ({access} access links): scenario {t1 - t0:.1f} s, "
    f"run {t2 - t1:.1f} s wall ({r.cpu_time_s:.1f} CPU-s), "
    f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB, "
    f"{r.delivered_data_pkts} packets delivered "
    f"({r.cpu_time_s / max(r.delivered_data_pkts, 1) * 1e9:.0f} ns CPU each), "
    f"core with invariant checks: {ccsim._core.debug_assertions()}"
)
