"""`ccsim bench`: reference scenarios for speed (docs/performance.md).

(a) 10 NewReno flows, access 1 Gb/s / 1 ms, bottleneck 100 Mb/s / 18 ms
(40 ms RTT), DropTail of one BDP, 1448-byte segments, unlimited data, flows
10 ms apart, 60 s. (b) the same with a 1 Gb/s bottleneck for 20 s.
The `_sack_ts` variants turn on RFC 6675 SACK and RFC 7323 timestamps
(delayed ACK is on in all of them).
CPU time is the process CPU time around the core's run (single-threaded).
"""
from __future__ import annotations

import time

from . import _core
from .scenario import Builder


def reference(name: str, cc: str = "newreno", **tcp) -> "Builder":
    rate, dur = {"a": ("100Mbps", "60s"), "b": ("1Gbps", "20s")}[name]
    return (Builder(duration=dur, seed=1, sample_interval="off")
            .dumbbell(bottleneck_rate=rate, bottleneck_delay="18ms", access_rate="1Gbps",
                      access_delay="1ms", buffer="1bdp")
            .tcp(cc=cc, mss=1448, **tcp)
            .flows(count=10, app="bulk", start="0s", stagger="10ms"))


SCENARIOS = {
    "a_dumbbell_100M_newreno": lambda: reference("a"),
    "b_dumbbell_1G_newreno": lambda: reference("b"),
    "a_dumbbell_100M_newreno_sack_ts": lambda: reference("a", sack="rfc6675", timestamps=True),
    "b_dumbbell_1G_newreno_sack_ts": lambda: reference("b", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_cubic_sack_ts": lambda: reference("a", "cubic", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_bbr_sack_ts": lambda: reference("a", "bbr", sack="rfc6675", timestamps=True),
}


def run_bench(repeat: int = 3) -> list[dict]:
    rows = []
    for name, make in SCENARIOS.items():
        payload = make().build().to_core_json()
        best = None
        for _ in range(repeat):
            c0 = time.process_time()
            raw = _core.run(payload)
            cpu = time.process_time() - c0
            if best is None or cpu < best[0]:
                best = (cpu, raw)
        cpu, raw = best
        pk, ev = int(raw["delivered_data_pkts"]), int(raw["events"])
        rows.append({"name": name, "delivered_pkts": pk, "events": ev, "cpu_s": cpu,
                     "pkts_per_cpu_s": pk / cpu, "events_per_cpu_s": ev / cpu})
    return rows
