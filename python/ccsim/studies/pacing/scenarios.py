"""The scenarios, variants and constants of the pacing study (Choi, Lee, Cho &
Han 2004), and Kendall's τ its checks use."""

from __future__ import annotations

from typing import Any

from ...scenario.mixes import background_mix, web_sessions
from ..base import NS2_OF_2004, PaperValue
from ..kit import Variant, full_packet_bytes, variants

MSS = 1000
# the common [tcp] table (ns-2 of 2004, timestamps, no delayed ACKs, an
# unlimited receiver window) and its full data packet on the wire
# (1000 payload + 40 TCP/IP + ns-2's 10-byte timestamp option = 1050 bytes)
TCP = {"stack": NS2_OF_2004, "mss": MSS, "timestamps": True, "delayed_ack": False, "rwnd": "none"}
PKT = full_packet_bytes(TCP)
HS_RTT_MS = 40
BOTTLENECK_DELAY = "5ms"
ACCESS_RATE = "10Gbps"
WEB_SHARE = 0.3  # nominal web load (the paper: 20–50 % of the link alone)
WEB_THINK = "1s"
BG_RTT = ("20ms", "100ms")
# The web sessions' RTT classes: each class's sessions share one access-link
# pair (background_mix's web_rtt_classes), 5 ms wide over BG_RTT.
WEB_RTT_CLASSES = 16
BG_START = ("0s", "10s")
FWD, REV = "r0->r1", "r1->r0"
RATES = [20e6, 100e6, 500e6, 2.5e9]
REGULAR = {"cc": "newreno", "sack": "sack1"}  # ns-2 Agent/TCP/Sack1 (Reno window, SACK recovery)

# The high-speed variants: TCP options over the study's table (ns-2 Sack1
# recovery for all), name, colour, and the unpaced variant a paced one modifies.
VARIANTS = variants(
    Variant("hstcp", "HSTCP", "C0", {"cc": "highspeed", "cc_preset": "choi2004", "pacing": "off"}),
    Variant(
        "hstcp_paced",
        "paced HSTCP",
        "C9",
        {"cc": "highspeed", "cc_preset": "choi2004", "pacing": "window"},
        base="hstcp",
    ),
    Variant("bic", "BI-TCP", "C3", {"cc": "bic", "cc_preset": "paper", "pacing": "off"}),
    Variant("bic_paced", "paced BI-TCP", "C1", {"cc": "bic", "cc_preset": "paper", "pacing": "window"}, base="bic"),
    Variant("stcp", "STCP", "C2", {"cc": "scalable", "cc_preset": "paper", "pacing": "off"}),
    Variant("hstcp38", "HSTCP (LW 38)", "C4", {"cc": "highspeed", "cc_preset": "ns2", "pacing": "off"}),
    Variant(
        "hstcp38_paced",
        "paced HSTCP (LW 38)",
        "C6",
        {"cc": "highspeed", "cc_preset": "ns2", "pacing": "window"},
        base="hstcp38",
    ),
    Variant(
        "hstcp_lpaced",
        "HSTCP, Linux pacing",
        "C5",
        {"cc": "highspeed", "cc_preset": "choi2004", "pacing": "linux"},
        base="hstcp",
    ),
    Variant(
        "bic_lpaced", "BI-TCP, Linux pacing", "C8", {"cc": "bic", "cc_preset": "paper", "pacing": "linux"}, base="bic"
    ),
)
PRIMARY = ["hstcp", "hstcp_paced", "bic", "bic_paced", "stcp"]
LW38 = ["hstcp38", "hstcp38_paced"]
LINUX = ["hstcp_lpaced", "bic_lpaced"]

# The paper's Table 2: link efficiency (%) per bottleneck rate and variant.
TABLE2 = {
    20e6: {"hstcp": 93.59, "hstcp_paced": 93.98, "bic": 96.28, "bic_paced": 96.48, "stcp": 96.01},
    100e6: {"hstcp": 92.60, "hstcp_paced": 93.39, "bic": 98.54, "bic_paced": 98.36, "stcp": 98.98},
    500e6: {"hstcp": 97.93, "hstcp_paced": 97.77, "bic": 99.89, "bic_paced": 99.76, "stcp": 99.81},
    2.5e9: {"hstcp": 99.98, "hstcp_paced": 99.94, "bic": 99.97, "bic_paced": 99.98, "stcp": 99.99},
}
# Table 2's cells as the claim carries them.
TABLE2_VALUES = [
    PaperValue(f"{v} at {r / 1e6:g} Mb/s", x, "%", "Table 2") for r, row in TABLE2.items() for v, x in row.items()
]
# The paper's Fig. 4 values quoted in its text (RTT ratio 6, buffer 100 %).
PAPER_P2 = {
    "hstcp": PaperValue("HSTCP's throughput ratio", 140.0, "", "text on Fig. 4"),
    "hstcp_paced": PaperValue("paced HSTCP's throughput ratio", 70.0, "", "text on Fig. 4"),
    "stcp": PaperValue("STCP's throughput ratio (2.2 Gb/s against 6.84 Mb/s)", 300.0, "", "text on Fig. 4"),
}
CLASSES = {"web": "web", "small": "small TCP", "long": "long-lived TCP"}
CLASS_ORDER = ["web", "small TCP", "long-lived TCP", "high-speed", "overhead", "unused"]
CLASS_COLORS = {
    "web": "#8dd3c7",
    "small TCP": "#ffffb3",
    "long-lived TCP": "#bebada",
    "high-speed": "#fb8072",
    "overhead": "#bbbbbb",
    "unused": "#ffffff",
}


def rate_text(bps: float) -> str:
    return f"{bps / 1e9:g}Gbps" if bps >= 1e9 else f"{bps / 1e6:g}Mbps"


def variant_options(variant: str) -> dict[str, Any]:
    """The high-speed flows' TCP options of a variant."""
    return {**VARIANTS[variant].tcp, "sack": "sack1"}


def scenario(
    rate_bps: float,
    dur: float,
    *,
    rtt2_ms: float = HS_RTT_MS,
    buffer: float = 1.0,
    long_lived: int = 4,
    both_ways: bool = True,
    variant: str = "hstcp",
    web: bool = True,
    high_speed: bool = True,
    small: int = 25,
    sample: str = "1s",
) -> dict[str, Any]:
    """Two high-speed flows (RTT 40 ms and `rtt2_ms`) over a dumbbell at
    `rate_bps` with the background mix; `buffer` in BDPs of the flows' mean
    RTT. Flow groups: 0, 1 the high-speed flows (labels: the variant and
    variant + '#2'), then the mix (web, small, long[, web_rev, small_rev,
    long_rev])."""
    flows = []
    if high_speed:
        o = variant_options(variant)
        hs_start = {"dist": "uniform", "min": "0s", "max": f"{min(5.0, dur / 8):g}s"}
        flows = [
            {"label": variant, "rtt": f"{HS_RTT_MS}ms", "start": hs_start, **o},
            {"label": f"{variant}#2", "rtt": f"{rtt2_ms:g}ms", "start": hs_start, **o},
        ]
    flows += background_mix(
        rate_bps,
        web_share=WEB_SHARE if web else 0.0,
        web_think=WEB_THINK,
        small=small,
        long_lived=long_lived,
        both_ways=both_ways,
        rtt=BG_RTT,
        start=(BG_START[0], f"{min(10.0, dur / 4):g}s"),
        mss=MSS,
        tcp=REGULAR,
        web_rtt_classes=WEB_RTT_CLASSES,
    )
    return {
        "sim": {"duration": f"{dur:g}s", "seed": 1, "sample_interval": sample, "sample_links": [FWD, REV]},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": rate_text(rate_bps),
            "bottleneck_delay": BOTTLENECK_DELAY,
            "access_rate": ACCESS_RATE,
            "access_delay": "1ms",
            "buffer": f"{buffer:g}bdp",
            "bdp_rtt": "mean",
            "access_buffer": "1000000pkt",
        },
        "tcp": dict(TCP),
        "flows": flows,
    }


def _rate_of(p: dict[str, Any]) -> float:
    from ...scenario.units import parse_rate

    return float(parse_rate("rate", p["topology.bottleneck_rate"]))


def _web_count(p: dict[str, Any]) -> int:
    return web_sessions(_rate_of(p), WEB_SHARE, MSS, 1.0)


def _variant_derived() -> dict[str, Any]:
    """Derived sweep entries: flows[1] copies the variant of flows[0]."""
    d = {"flows[1].label": lambda p: f"{p['flows[0].label']}#2"}
    for k in ("cc", "cc_preset", "pacing"):
        for g in (0, 1):
            d[f"flows[{g}].{k}"] = (lambda key: lambda p: variant_options(p["flows[0].label"])[key])(k)
    return d


def _web_derived(groups: list[int]) -> dict[str, Any]:
    return {f"flows[{g}].count": _web_count for g in groups}
