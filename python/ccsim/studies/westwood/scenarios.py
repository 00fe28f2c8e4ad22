"""The scenarios of Grieco & Mascolo 2004 (W1–W7) and the variants they compare,
as ccsim scenario mappings, and the lists each section runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import NS2_OF_2004
from ..kit import Variant, full_packet_bytes, payload_share, variants

# 1500-byte packets with timestamps, as the paper says: 1450 payload + 40
# TCP/IP + ns-2's 10-byte timestamp option (ts_option_size_)
MSS = 1450
WIRELESS_BPS = 2e6  # the W4 last hop: "a 2 Mbps link" (Section 3.4.1)

# The variants: the TCP options each changes over the common [tcp] table (per
# stack, variant_options), and how figures name and colour it. Vegas with a
# Vegas reverse flow (W1) is Vegas's set-up, drawn apart.
VARIANTS = variants(
    Variant("newreno", "NewReno", "C0", {"cc": "newreno"}),
    Variant("westwoodplus", "Westwood+", "C3", {"cc": "westwoodplus", "cc_preset": "paper"}),
    Variant("vegas", "Vegas", "C2", {"cc": "vegas", "cc_preset": "paper", "delayed_ack": False}),
    Variant("reno", "Reno", "C1", {"cc": "reno"}),
    Variant("westwood", "Westwood", "C4", {"cc": "westwood"}),
    Variant("sack", "SACK", "C5", {"cc": "newreno", "sack": "sack1"}),
    Variant(
        "vegas_vs_vegas", "Vegas (Vegas reverse)", "C8", {"cc": "vegas", "cc_preset": "paper", "delayed_ack": False}
    ),
)
OPTS = ("cc", "cc_preset", "delayed_ack", "sack")


def variant_options(variant: str, stack: str = NS2_OF_2004, dack: bool = True) -> dict[str, Any]:
    """The TCP options of a variant: cc, cc_preset, delayed_ack, sack. A
    name ending in '_nodack' turns delayed ACKs off. On the linux stack the
    algorithms run with their Linux parameters (no preset) and 'SACK' is
    Linux's own RFC 6675 recovery."""
    if variant.endswith("_nodack"):
        variant, dack = variant[: -len("_nodack")], False
    base = VARIANTS[variant].tcp
    o = {
        "cc": base["cc"],
        "cc_preset": base.get("cc_preset", "none"),
        "delayed_ack": base.get("delayed_ack", dack),
        "sack": base.get("sack", "off"),
    }
    if stack == "linux":
        o["cc_preset"] = "none"
        o["sack"] = "rfc6675"
    return o


def _derive(label_key: str, key: str, stack: str) -> Callable[[dict[str, Any]], Any]:
    """A derived sweep value: TCP option `key` of the variant named by the
    point's value at `label_key`."""

    def f(p: dict[str, Any]) -> Any:
        return variant_options(p[label_key], stack)[key]

    return f


def derived_options(group: int, stack: str = NS2_OF_2004, label_key: str | None = None) -> dict[str, Any]:
    """Derived sweep entries setting flows[group]'s TCP options from the
    variant at `label_key` (default: flows[group].label)."""
    lk = label_key or f"flows[{group}].label"
    return {f"flows[{group}].{k}": _derive(lk, k, stack) for k in OPTS}


def tcp_common(stack: str = NS2_OF_2004) -> dict[str, Any]:
    return {
        "stack": stack,
        "cc": "newreno",
        "mss": MSS,
        "timestamps": True,
        "initial_window": 3,
        "delayed_ack": True,
        "delack_timeout": "100ms",
        "rwnd": "none",
        "initial_ssthresh": "inf",
    }


# a full data packet on the wire (1500 bytes) and its payload share, from
# the [tcp] table above
PKT = full_packet_bytes(tcp_common())
PAYLOAD_SHARE = payload_share(tcp_common())


def reverse_group(
    count: int, *, cc: str = "newreno", on: list[Any] | None = None, rtt: Any = None, label: str = "reverse"
) -> dict[str, Any]:
    g = {
        "label": label,
        "count": count,
        "direction": "reverse",
        "cc": cc,
        "cc_preset": "none",
        "delayed_ack": cc != "vegas",
        "sack": "off",
        "start": {"dist": "uniform", "min": "0s", "max": "1s"},
    }
    if on is not None:
        g["app"] = "schedule"
        g["on"] = on
    if rtt is not None:
        g["rtt"] = rtt
    return g


def two_state(bad_ms: float) -> dict[str, Any]:
    """The W4/W5 channel: GOOD exactly 1 s with no loss, BAD exactly d with
    loss 0.1; when a state's time is up the next is GOOD or BAD with
    probability 0.5 each."""
    return {
        "kind": "two_state",
        "good": "1s",
        "bad": f"{bad_ms:g}ms",
        "durations": "fixed",
        "loss_good": 0.0,
        "loss_bad": 0.1,
        "to_bad_after_good": 0.5,
        "to_bad_after_bad": 0.5,
    }


def _sim(dur: float, sample: str, trace: list[Any] | None = None) -> dict[str, Any]:
    s = {"duration": f"{dur:g}s", "seed": 1, "sample_interval": sample}
    if trace:
        s["trace"] = trace
    return s


def w1_scenario(dur: float) -> dict[str, Any]:
    """One flow over 2 Mb/s, RTT 250 ms, 40-packet buffer; 10 NewReno reverse
    flows ON during the second and fourth quarter of the run."""
    q = dur / 4
    return {
        "sim": _sim(dur, "0.5s"),
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "2Mbps",
            "bottleneck_delay": "115ms",
            "access_rate": "100Mbps",
            "access_delay": "5ms",
            "buffer": "40pkt",
            "access_buffer": "1000pkt",
        },
        "tcp": tcp_common(),
        "flows": [
            {"label": "newreno", "start": {"dist": "uniform", "min": "0s", "max": "1s"}},
            reverse_group(10, on=[[f"{q:g}s", f"{2 * q:g}s"], [f"{3 * q:g}s", f"{4 * q:g}s"]]),
        ],
    }


def w2_rtt_low(m: int) -> float:
    return 20 + 230 / m


def w2_scenario(dur: float, m: int = 20) -> dict[str, Any]:
    """M flows over 10 Mb/s with RTTs evenly spread over [20 + 230/M, 250] ms
    and 10 NewReno reverse flows; buffer 10 Mb/s × 250 ms."""
    return {
        "sim": _sim(dur, "1s"),
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "5ms",
            "access_rate": "100Mbps",
            "access_delay": "1ms",
            "buffer": "208pkt",
            "access_buffer": "2000pkt",
        },
        "tcp": tcp_common(),
        "flows": [
            {
                "label": "newreno",
                "count": m,
                "rtt": {"spread": [f"{w2_rtt_low(m):.4f}ms", "250ms"]},
                "start": {"dist": "uniform", "min": "0s", "max": "1s"},
            },
            reverse_group(10, rtt={"spread": ["20ms", "250ms"]}),
        ],
    }


def w3_scenario(dur: float, hops: int = 1) -> dict[str, Any]:
    """Parking lot: N router hops of 10 Mb/s, 10 ms; access links 100 Mb/s,
    20 ms; queues of 125 packets. C1 crosses every hop from 10 s; each hop
    carries one cross flow in C1's direction and one against it."""
    return {
        "sim": _sim(dur, "1s"),
        "topology": {
            "kind": "parking_lot",
            "hops": hops,
            "hop_rate": "10Mbps",
            "hop_delay": "10ms",
            "access_rate": "100Mbps",
            "access_delay": "20ms",
            "buffer": "125pkt",
            "access_buffer": "2000pkt",
        },
        "tcp": tcp_common(),
        "flows": [
            {"label": "newreno", "path": "through", "start": "10s"},
            {"label": "newreno", "path": "cross", "start": {"dist": "uniform", "min": "0s", "max": "1s"}},
            {"label": "newreno", "path": "cross_reverse", "start": {"dist": "uniform", "min": "0s", "max": "1s"}},
        ],
    }


def w4_scenario(dur: float, bad_ms: float = 10.0, traffic: bool = False) -> dict[str, Any]:
    """Wired dumbbell (10 Mb/s, 20 ms) and a 2 Mb/s, 20 ms wireless last hop
    with the two-state channel both ways. The flow under study has a one-way
    delay of 125 ms; with traffic on, 5 wired cross flows (RTT 66–250 ms) and
    10 NewReno reverse flows (RTT 46–250 ms) share the wired bottleneck."""
    flows: list[dict[str, Any]] = [
        {"label": "newreno", "path": "wireless", "rtt": "250ms", "start": {"dist": "uniform", "min": "0s", "max": "1s"}}
    ]
    if traffic:
        flows.append(
            {
                "label": "cross",
                "count": 5,
                "path": "wired",
                "cc": "newreno",
                "cc_preset": "none",
                "delayed_ack": True,
                "sack": "off",
                "rtt": {"dist": "uniform", "min": "66ms", "max": "250ms"},
                "start": {"dist": "uniform", "min": "0s", "max": "1s"},
            }
        )
        g = reverse_group(10, rtt={"dist": "uniform", "min": "46ms", "max": "250ms"})
        g["path"] = "wired"
        flows.append(g)
    return {
        "sim": _sim(dur, "1s"),
        "topology": {
            "kind": "wireless",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "20ms",
            "access_rate": "100Mbps",
            "access_delay": "1ms",
            "buffer": "208pkt",
            "access_buffer": "2000pkt",
            "wireless_rate": f"{WIRELESS_BPS / 1e6:g}Mbps",
            "wireless_delay": "20ms",
            "wireless_buffer": "40pkt",
            "wireless_loss": two_state(bad_ms),
        },
        "tcp": tcp_common(),
        "flows": flows,
    }


def w5_scenario(dur: float, bad_ms: float = 100.0) -> dict[str, Any]:
    """GEO: 10 Mb/s bottleneck, 275 ms one way, the two-state channel both
    ways; 20 forward flows with RTT 590 ms; 10 NewReno reverse flows."""
    return {
        "sim": _sim(dur, "1s"),
        "topology": {
            "kind": "satellite",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "275ms",
            "access_rate": "100Mbps",
            "access_delay": "5ms",
            "buffer": "492pkt",
            "access_buffer": "4000pkt",
            "loss": two_state(bad_ms),
        },
        "tcp": tcp_common(),
        "flows": [
            {"label": "newreno", "count": 20, "rtt": "590ms", "start": {"dist": "uniform", "min": "0s", "max": "1s"}},
            reverse_group(10, rtt="590ms"),
        ],
    }


def w6_single(dur: float) -> dict[str, Any]:
    """One Westwood+ flow alone on a 1 Mb/s bottleneck, RTT 100 ms, 1-BDP buffer."""
    return {
        "sim": _sim(dur, "0.1s", ["cc"]),
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1Mbps",
            "bottleneck_delay": "40ms",
            "access_rate": "100Mbps",
            "access_delay": "5ms",
            "buffer": "9pkt",
            "access_buffer": "1000pkt",
        },
        "tcp": tcp_common(),
        "flows": [{"label": "westwoodplus", "cc": "westwoodplus", "cc_preset": "paper"}],
    }


def w7_scenario(dur: float) -> dict[str, Any]:
    """One flow, Bernoulli loss p on the data direction of a 10 Mb/s link,
    buffer 1 BDP of the largest RTT; base RTT set per point."""
    return {
        "sim": _sim(dur, "1s"),
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "5ms",
            "access_rate": "100Mbps",
            "access_delay": "1ms",
            "buffer": "167pkt",
            "access_buffer": "2000pkt",
            "loss": {"kind": "bernoulli", "p": 0.01},
        },
        "tcp": tcp_common(),
        "flows": [{"label": "newreno", "rtt": "100ms"}],
    }


W1_VARIANTS = ["newreno", "westwoodplus", "vegas", "reno", "vegas_vs_vegas"]
LINUX_VARIANTS = ["newreno", "westwoodplus", "vegas"]
W2_VARIANTS = ["newreno", "westwoodplus", "vegas"]
W3_ALGOS = ["newreno", "westwoodplus", "vegas"]
W45_VARIANTS = ["westwoodplus", "newreno", "westwoodplus_nodack", "newreno_nodack", "sack_nodack"]
LOSSY_NAMES = {
    "westwoodplus": "Westwood+ (DACK)",
    "newreno": "NewReno (DACK)",
    "westwoodplus_nodack": "Westwood+ (no DACK)",
    "newreno_nodack": "NewReno (no DACK)",
    "sack_nodack": "SACK (no DACK)",
}
LOSSY_STYLE = {
    "westwoodplus": ("C3", "-"),
    "newreno": ("C0", "-"),
    "westwoodplus_nodack": ("C3", "--"),
    "newreno_nodack": ("C0", "--"),
    "sack_nodack": ("C5", "--"),
}


def _reverse_opts_w1(key: str) -> Callable[[dict[str, Any]], Any]:
    """W1's reverse flows: NewReno, or Vegas for the 'Vegas against Vegas' variant."""

    def f(p: dict[str, Any]) -> Any:
        return variant_options("vegas" if p["flows[0].label"] == "vegas_vs_vegas" else "newreno")[key]

    return f


def _w2_rtt(p: dict[str, Any]) -> dict[str, Any]:
    return {"spread": [f"{w2_rtt_low(p['flows[0].count']):.4f}ms", "250ms"]}


def _bad_ms(v: str) -> float:
    return float(v[:-2]) if v.endswith("ms") else float(v[:-1]) * 1000.0
