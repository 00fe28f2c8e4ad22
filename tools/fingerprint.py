"""Fingerprint of every result table for a fixed set of scenarios: run before
and after a refactoring that must not change what is simulated, and diff.

    .venv/bin/python tools/fingerprint.py > before.txt   # (on the old commit)
    .venv/bin/python tools/fingerprint.py | diff before.txt -

Scenarios: the four examples, a traced lossy run, and two bench cases with
100 ms sampling; each line is the event count and a hash of every column.

`--dump DIR` instead writes a wider matrix (every algorithm under every
SACK mode, PRR, RED with ECN, both pacing kinds, handshake, delayed ACKs,
Gilbert losses, ON-OFF with idle restart) as core JSON files, to be hashed
by the Rust example on the old and the new commit:

    .venv/bin/python tools/fingerprint.py --dump /tmp/fpm
    cargo run --release --example fingerprint -- /tmp/fpm/*.json > after.txt
"""

import glob
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import ccsim
from ccsim import _core
from ccsim.analysis.results import str_cells
from ccsim.tools.bench import SCENARIOS


def matrix() -> Iterator[tuple[str, ccsim.Scenario]]:
    base = ccsim.load("examples/lossy_link.toml").with_overrides({"sim.duration": "20s", "topology.buffer": "0.5bdp"})
    algos = [
        "tahoe",
        "reno",
        "newreno",
        "vegas",
        "westwood",
        "westwoodplus",
        "highspeed",
        "scalable",
        "bic",
        "cubic",
        "bbr",
    ]
    for cc in algos:
        for sack in ("off",) if cc == "tahoe" else ("off", "sack1", "rfc6675"):
            yield f"{cc}_{sack}", base.with_overrides({"tcp.cc": cc, "tcp.sack": sack})
    extra: dict[str, dict[str, Any]] = {
        "prr": {"tcp.sack": "rfc6675", "tcp.prr": True},
        "red_ecn": {"tcp.ecn": True, "tcp.sack": "rfc6675", "topology.queue": "red", "topology.loss": None},
        "red_ecn_reno": {"tcp.ecn": True, "tcp.cc": "reno", "topology.queue": "gentle_red", "topology.loss": None},
        "pace_linux": {"tcp.pacing": "linux", "tcp.sack": "rfc6675", "tcp.cc": "cubic"},
        "pace_window": {"tcp.pacing": "window", "tcp.sack": "sack1"},
        "handshake_ts": {"tcp.handshake": True, "tcp.timestamps": True, "tcp.delayed_ack": True},
        "gilbert": {"topology.loss": {"kind": "gilbert", "p": 0.01, "r": 0.3, "loss_bad": 0.5}},
        "codel": {"topology.queue": {"kind": "codel", "ecn": True}, "tcp.ecn": True, "tcp.sack": "rfc6675"},
        "fq_codel": {"topology.queue": "fq_codel", "tcp.cc": "cubic", "flows[0].count": 3},
        "pie": {"topology.queue": "pie", "tcp.cc": "bbr"},
        "adaptive_red": {"topology.queue": "adaptive_red", "flows[0].count": 4},
        "feng_red": {"topology.queue": {"kind": "feng_red", "bytes": True}, "flows[0].count": 2},
        "onoff": {"flows[0].app": "onoff", "flows[0].on": "1s", "flows[0].off": "1s", "tcp.sack": "rfc6675"},
        "reorder": {
            "topology.reorder": {"jitter": "2ms", "probability": 0.01, "delay": "5ms"},
            "tcp.sack": "rfc6675",
            "topology.loss": None,
        },
        # a rate whose picoseconds per byte are not whole (the 128-bit path)
        "odd_rate": {"topology.rate": "12345679bps", "tcp.cc": "cubic", "tcp.sack": "rfc6675"},
        "cubic_hystartpp": {"tcp.cc": "cubic", "tcp.cc_preset": "hystart++", "topology.loss": None},
        "cubic_rfc9438_delay": {
            "tcp.cc": "cubic",
            "tcp.cc_preset": "rfc9438",
            "tcp.cc_params": {"hystart_detect": "delay"},
            "topology.buffer": "3bdp",
        },
        "codel_ecn_cubic": {"topology.queue": {"kind": "codel", "ecn": True}, "tcp.ecn": True, "tcp.cc": "cubic"},
        # DCTCP's step marking, DualPI2 with Prague on AccECN, DCTCP in the L queue
        "dctcp_step": {
            "tcp.cc": "dctcp",
            "topology.queue": {"kind": "red", "min_th": 20, "max_th": 20, "w_q": 1, "ecn": True},
            "topology.loss": None,
            "flows[0].count": 2,
        },
        "prague_dualpi2": {"tcp.cc": "prague", "topology.queue": "dualpi2", "topology.loss": None},
        "copa": {"tcp.cc": "copa", "topology.loss": None, "flows[0].count": 2},
        # BBRv3 with loss (skb_marked_lost, RACK-TLP) and with ECN on a shallow-threshold route
        "bbr3": {"tcp.cc": "bbr3", "tcp.sack": "rfc6675", "flows[0].count": 2},
        "bbr3_ecn_low": {
            "tcp.cc": "bbr3",
            "tcp.ecn": True,
            "tcp.ecn_feedback": "dctcp",
            "tcp.cc_params": {"ecn_low": True},
            "topology.queue": {"kind": "red", "min_th": 20, "max_th": 20, "w_q": 1, "ecn": True},
            "topology.loss": None,
            "topology.delay": "1ms",  # BBRv3 uses ECN only under 5 ms of min RTT
            "topology.buffer": "100pkt",
        },
        "dctcp_ect1_dualpi2": {
            "tcp.cc": "dctcp",
            "tcp.ecn_codepoint": "ect1",
            "topology.queue": {"kind": "dualpi2", "ecn_mask": "l4s_ect"},
            "flows[0].count": 2,
        },
    }
    for name, o in extra.items():
        yield name, base.with_overrides(o)
    yield from net_matrix()


def net_matrix() -> Iterator[tuple[str, ccsim.Scenario]]:
    """Multi-hop runs: a packet crosses access links, bottlenecks and hops,
    so every way a link can be fed (one feeder or several, a feeder that is
    lossy, reorders, is captured or decides at dequeue time; a next link
    that queues behind its feeder or never does) is on the matrix."""
    sample = {"sim.duration": "10s", "sim.sample_interval": "50ms"}
    db = ccsim.load("examples/dumbbell.toml").with_overrides({**sample, "tcp.sack": "rfc6675", "tcp.timestamps": True})
    yield "net_dumbbell", db
    variants: dict[str, dict[str, Any]] = {
        # access links slower than the bottleneck: the receivers' links queue
        "net_slow_access": {"topology.access_rate": "20Mbps", "topology.access_buffer": "20pkt"},
        # mixed sizes at equal rates: a segment then a pure ACK can queue
        "net_equal_rates": {"topology.access_rate": "100Mbps"},
        "net_bottleneck_loss": {"topology.loss": {"kind": "bernoulli", "p": 0.01}},
        "net_reorder": {"topology.reorder": {"jitter": "1ms"}},
        "net_codel": {"topology.queue": "codel", "tcp.cc": "cubic"},
        "net_red_ecn": {"topology.queue": {"kind": "red", "ecn": True}, "tcp.ecn": True},
        "net_pcap": {"sim.pcap": ["bottleneck", "r1->dst0", "r0->src1"], "sim.duration": "1s"},
        "net_bbr": {"tcp.cc": "bbr"},
        "net_sched_rate": {
            "topology.bottleneck_rate": [[0, "100Mbps"], ["3s", "20Mbps"], ["6s", "0bps"], ["6.5s", "50Mbps"]]
        },
    }
    for name, o in variants.items():
        yield name, db.with_overrides(o)
    yield "net_reverse_onoff", ccsim.load("examples/reverse_onoff.toml").with_overrides({"sim.duration": "40s"})
    yield "net_web_mix", ccsim.load("examples/web_mix.toml").with_overrides({**sample, "sim.duration": "20s"})
    for ex in ("cellular_bbr_vs_cubic", "datacenter_dctcp", "l4s_dualpi2", "bbr3_vs_cubic"):
        yield f"net_{ex}", ccsim.load(f"examples/{ex}.toml").with_overrides(sample)
    # a lossy wireless last hop shared by three flows, with wired cross
    # traffic; a parking lot with flows through all hops and across each
    wireless = {
        "kind": "wireless",
        "bottleneck_rate": "10Mbps",
        "bottleneck_delay": "20ms",
        "access_rate": "100Mbps",
        "access_delay": "1ms",
        "wireless_rate": "11Mbps",
        "wireless_delay": "2ms",
        "wireless_loss": {"kind": "bernoulli", "p": 0.005},
    }
    lot = {"kind": "parking_lot", "hops": 3, "hop_rate": "50Mbps", "hop_delay": "5ms", "access_rate": "1Gbps"}
    own = {
        "net_wireless_loss": (
            {"duration": "20s", "seed": 5},
            wireless,
            {"cc": "westwoodplus", "sack": "sack1"},
            [{"count": 3, "stagger": "1s"}, {"path": "wired", "label": "cross", "count": 2}],
        ),
        "net_parking_lot": (
            {"duration": "10s", "seed": 2},
            {**lot, "access_delay": "1ms"},
            {"cc": "cubic", "sack": "rfc6675"},
            [{"path": "through", "count": 2}, {"path": "cross", "cc": "newreno"}],
        ),
    }
    for name, (sim, topo, tcp, flows) in own.items():
        sim = {**sim, "sample_interval": "100ms"}
        yield name, ccsim.Scenario.from_dict({"sim": sim, "topology": topo, "tcp": tcp, "flows": flows})


if len(sys.argv) == 3 and sys.argv[1] == "--dump":
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, sc in matrix():
        with open(os.path.join(sys.argv[2], name + ".json"), "w") as f:
            f.write(sc.to_core_json())
    sys.exit(0)

scs = {f: ccsim.load(f, allow_code=True) for f in sorted(glob.glob("examples/*.toml")) if "sweep" not in f}
scs["traced"] = ccsim.load("examples/lossy_link.toml").with_overrides(
    {"sim.trace": ["rtt", "seq"], "sim.duration": "5s"}
)
for n in ("a_dumbbell_100M_newreno_sack_ts", "a_dumbbell_100M_bbr_sack_ts"):
    built = SCENARIOS[n]()
    built = built if isinstance(built, ccsim.Scenario) else built.build()
    scs[n] = built.with_overrides({"sim.duration": "10s", "sim.sample_interval": "100ms"})
h_all = hashlib.sha256()
for name, sc in scs.items():
    raw = _core.run(sc.to_core_json())
    h = hashlib.sha256()
    for t in sorted(raw["tables"]):
        for col, dt, data in raw["tables"][t]:
            h.update(f"{t}.{col}:{dt}".encode())
            h.update(json.dumps(str_cells(data)).encode() if dt == "str" else bytes(data))
    h.update(str(raw["events"]).encode())
    print(name, raw["events"], h.hexdigest()[:16])
    h_all.update(h.digest())
print("ALL", h_all.hexdigest())
