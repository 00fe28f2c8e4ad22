"""Westwood+, NewReno and Vegas: Grieco & Mascolo 2004 (ns-2), W1–W7.

L. A. Grieco, S. Mascolo, "Performance evaluation and comparison of
Westwood+, New Reno, and Vegas TCP congestion control", ACM SIGCOMM Computer
Communication Review 34(2), 2004. Common settings: 1500-byte packets, a
bottleneck buffer of rate × the largest round-trip propagation time, initial
window 3, timestamps, delayed ACKs except for Vegas and where "no DACK" is
said, NewReno reverse traffic from W1 on.

The study runs on ccsim's `ns2` stack (per-ACK window growth, ns-2's
tick-counted RTO, Sack1 for "SACK", the DelAck sink's fixed 100 ms timer)
with the algorithms' `paper` presets (Westwood+: EWMA 0.9 on per-RTT samples,
ssthresh at the third duplicate ACK; Vegas: α = 1, β = 3). The headline
experiments (W1 and W4 without cross traffic) are repeated on the `linux`
stack as a second column.
"""

from .scenarios import (  # the scenario builders and variants, for tests and users
    LINUX_VARIANTS,
    LOSSY_NAMES,
    LOSSY_STYLE,
    MSS,
    OPTS,
    PAYLOAD_SHARE,
    PKT,
    VARIANTS,
    W1_VARIANTS,
    W2_VARIANTS,
    W3_ALGOS,
    W45_VARIANTS,
    derived_options,
    reverse_group,
    tcp_common,
    two_state,
    variant_options,
    w1_scenario,
    w2_rtt_low,
    w2_scenario,
    w3_scenario,
    w4_scenario,
    w5_scenario,
    w6_single,
    w7_scenario,
)
from .study import STUDY, Westwood

__all__ = [
    "LINUX_VARIANTS",
    "LOSSY_NAMES",
    "LOSSY_STYLE",
    "MSS",
    "OPTS",
    "PAYLOAD_SHARE",
    "PKT",
    "VARIANTS",
    "W1_VARIANTS",
    "W2_VARIANTS",
    "W3_ALGOS",
    "W45_VARIANTS",
    "derived_options",
    "reverse_group",
    "tcp_common",
    "two_state",
    "variant_options",
    "w1_scenario",
    "w2_rtt_low",
    "w2_scenario",
    "w3_scenario",
    "w4_scenario",
    "w5_scenario",
    "w6_single",
    "w7_scenario",
    "STUDY",
    "Westwood",
]
