# Paired runs of a 10,000-flow dumbbell (1 Gb/s, 2 s) with and without the
# core's run-time memory count (RunControl.set_memory_limit): docs/performance.md.
import time

import ccsim
from ccsim import _core

sc = (
    ccsim.Builder(duration="2s", seed=1, sample_interval="100ms")
    .dumbbell(bottleneck_rate="1Gbps", bottleneck_delay="18ms", access_rate="10Gbps", access_delay="1ms", buffer="1bdp")
    .tcp(cc="newreno", mss=1448)
    .flows(count=10000, app="bulk", start="0s")
    .build()
)
payload = sc.to_core_json()
res: dict[str, list[float]] = {"on": [], "off": []}
for k in range(4):
    for m in ("off", "on") if k % 2 == 0 else ("on", "off"):
        ctl = _core.RunControl()
        if m == "on":
            ctl.set_memory_limit(10**12)
        c0 = time.process_time()
        raw = _core.run(payload, ctl)
        res[m].append(time.process_time() - c0)
print(raw["events"], {m: sorted(v) for m, v in res.items()})
