"""`ccsim bench`: reference scenarios for speed (docs/performance.md).

(a) 10 NewReno flows, access 1 Gb/s / 1 ms, bottleneck 100 Mb/s / 18 ms
(40 ms RTT), DropTail of one BDP, 1448-byte segments, unlimited data, flows
10 ms apart, 60 s. (b) the same with a 1 Gb/s bottleneck for 20 s.
(c) 2.5 Gb/s for 10 s and (d) 10 Gb/s for 4 s, with access links 4 times
the bottleneck's rate (so that the bottleneck is one), to show how the cost
per packet follows the rate.
The plain NewReno cases have SACK and timestamps off; the `_sack_ts`
variants turn on RFC 6675 SACK and RFC 7323 timestamps (delayed ACK is on
in all of them). Until 2026-11-25 the plain cases inherited the linux
stack's defaults and so were the `_sack_ts` cases under another name.
The DCTCP case runs the 10 Gb/s dumbbell with DCTCP's step marking
(RED with min_th = max_th = K, w_q = 1) at K = BDP/7, the smallest K
that keeps the link busy by Alizadeh et al. 2010 §3.3 (K > C·RTT/7).
The Prague case runs the 100 Mb/s dumbbell's ten flows as TCP Prague
(ECT(1), AccECN) in a DualPI2 queue.
(e) is the pacing study's 2.5 Gb/s set-up with its background mix (web
sessions, handshakes, short and window-capped flows), compared with (c);
(f) is (d) with 10,000 flows (all started within 100 ms, 3 s), compared
with (d)'s ten: the cost of many flows at the same total rate.
CPU time is the process CPU time around the core's run (single-threaded).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .. import _core
from ..scenario import Builder, Scenario


def reference(
    name: str, cc: str = "newreno", queue: Any = "droptail", count: int = 10, dur: str | None = None, **tcp: Any
) -> Builder:
    rate, default_dur, access = {
        "a": ("100Mbps", "60s", "1Gbps"),
        "b": ("1Gbps", "20s", "1Gbps"),
        "c": ("2.5Gbps", "10s", "10Gbps"),
        "d": ("10Gbps", "4s", "40Gbps"),
    }[name]
    # flows 10 ms apart; many flows all start within the first 100 ms
    stagger = "10ms" if count <= 10 else f"{100_000 // count}us"
    return (
        Builder(duration=dur or default_dur, seed=1, sample_interval="off")
        .dumbbell(
            bottleneck_rate=rate,
            bottleneck_delay="18ms",
            access_rate=access,
            access_delay="1ms",
            buffer="1bdp",
            queue=queue,
        )
        .tcp(cc=cc, mss=1448, **tcp)
        .flows(count=count, app="bulk", start="0s", stagger=stagger)
    )


def pacing_mix() -> Scenario:
    """(e) The pacing study's set-up at 2.5 Gb/s for 8 s: two HSTCP flows
    and its background mix (web sessions, window-capped small flows and
    long-lived flows both ways, random RTTs and start times: ccsim.scenario.mixes),
    on the ns-2 stack of 2004."""
    from ..studies.pacing.scenarios import scenario

    return Scenario.from_dict(scenario(2.5e9, 8.0, sample="off"), source="<bench e_mix_2.5G>")


SCENARIOS: dict[str, Callable[[], Builder | Scenario]] = {
    # SACK and timestamps off explicitly: the linux stack's defaults turn them on
    "a_dumbbell_100M_newreno": lambda: reference("a", sack="off", timestamps=False),
    "b_dumbbell_1G_newreno": lambda: reference("b", sack="off", timestamps=False),
    "a_dumbbell_100M_newreno_sack_ts": lambda: reference("a", sack="rfc6675", timestamps=True),
    "b_dumbbell_1G_newreno_sack_ts": lambda: reference("b", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_cubic_sack_ts": lambda: reference("a", "cubic", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_bbr_sack_ts": lambda: reference("a", "bbr", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_bbr3_sack_ts": lambda: reference("a", "bbr3", sack="rfc6675", timestamps=True),
    "b_dumbbell_1G_cubic_sack_ts": lambda: reference("b", "cubic", sack="rfc6675", timestamps=True),
    "b_dumbbell_1G_bbr_sack_ts": lambda: reference("b", "bbr", sack="rfc6675", timestamps=True),
    "c_dumbbell_2.5G_newreno_sack_ts": lambda: reference("c", sack="rfc6675", timestamps=True),
    "d_dumbbell_10G_newreno_sack_ts": lambda: reference("d", sack="rfc6675", timestamps=True),
    "d_dumbbell_10G_cubic_sack_ts": lambda: reference("d", "cubic", sack="rfc6675", timestamps=True),
    "d_dumbbell_10G_bbr_sack_ts": lambda: reference("d", "bbr", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_copa_sack_ts": lambda: reference("a", "copa", sack="rfc6675", timestamps=True),
    "a_dumbbell_100M_prague_dualpi2_sack_ts": lambda: reference(
        "a", "prague", queue="dualpi2", sack="rfc6675", timestamps=True
    ),
    "d_dumbbell_10G_dctcp_sack_ts": lambda: reference(
        "d", "dctcp", queue=_step_marking(10e9, 0.040), sack="rfc6675", timestamps=True
    ),
    "e_mix_2.5G_hstcp_web": pacing_mix,
    # 10,000 flows sharing the 10 Gb/s of (d) (1 Mb/s each, as
    # tools/scale_flows.py): its cost per packet is compared with (d)'s ten
    # flows (cost_vs_newreno)
    "f_dumbbell_10G_10k_newreno_sack_ts": lambda: reference(
        "d", count=10_000, dur="3s", sack="rfc6675", timestamps=True
    ),
}

# the NewReno SACK+TS case each scenario's cost is compared with (by prefix)
BASELINE = {"e": "c", "f": "d"}


def _step_marking(rate_bps: float, rtt_s: float) -> dict[str, Any]:
    """DCTCP's step-marking queue at K = ⌈BDP/7⌉ packets of 1,500 bytes."""
    k = -(-int(rate_bps * rtt_s / (8 * 1500)) // 7)
    return {"kind": "red", "min_th": k, "max_th": k, "w_q": 1, "ecn": True}


def run_bench(repeat: int = 3, only: str | None = None) -> list[dict[str, Any]]:
    """Each scenario (those whose name contains `only`), the fastest of
    `repeat` runs. `cost_vs_newreno` is the CPU time per packet over that of
    the same-rate NewReno SACK+timestamps scenario, when it ran too."""
    if repeat < 1:
        raise ValueError(f"repeat: got {repeat}; expected at least 1 run per scenario")
    rows: list[dict[str, Any]] = []
    for name, make in SCENARIOS.items():
        if only and only not in name:
            continue
        made = make()
        sc: Scenario = made.build() if isinstance(made, Builder) else made
        payload = sc.to_core_json()
        best = None
        for _ in range(repeat):
            c0 = time.process_time()
            raw = _core.run(payload)
            cpu = time.process_time() - c0
            if best is None or cpu < best[0]:
                best = (cpu, raw)
        assert best is not None  # repeat >= 1, checked above
        cpu, raw = best
        pk, ev = int(raw["delivered_data_pkts"]), int(raw["events"])
        rows.append(
            {
                "name": name,
                "delivered_pkts": pk,
                "events": ev,
                "cpu_s": cpu,
                "pkts_per_cpu_s": pk / cpu,
                "events_per_cpu_s": ev / cpu,
            }
        )
    ref = {r["name"].split("_")[0]: r for r in rows if r["name"].endswith("_newreno_sack_ts")}
    ref = {k: v for k, v in ref.items() if k not in BASELINE}
    for r in rows:
        prefix = r["name"].split("_")[0]
        base = ref.get(BASELINE.get(prefix, prefix))
        r["cost_vs_newreno"] = base["pkts_per_cpu_s"] / r["pkts_per_cpu_s"] if base else None
    return rows
