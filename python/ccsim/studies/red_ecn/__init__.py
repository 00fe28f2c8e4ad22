"""NewReno+ECN vs SACK under DropTail and the RED family.

Mišković, Petrović & Trajković, "Utilization analysis of TCP NewReno and
TCP SACK congestion control mechanisms through simulation" (in Serbian),
2004, ns-2. A dumbbell s_i – r0 – r1 – d_i with a 1.5 Mb/s bottleneck whose
one-way bandwidth × delay is about 10 packets; 2 to 18 TCP flows split
evenly between NewReno with ECN and SACK, plus one UDP CBR flow; the
bottleneck queue QL from 4 to 72 packets under DropTail, RED, gentle RED
and adaptive RED with thresholds (QL/4, 3·QL/4); ECN flows are marked by
the RED family. Metrics: GEff = Σ goodput / 1.5 Mb/s (ideal 0.9533) and
Drop % at the bottleneck; queue, cwnd and class goodput over time.
"""

from .scenarios import (  # the scenario builders and constants, for tests and users
    BDP_PKTS,
    CBR_BPS,
    DISCIPLINES,
    IDEAL_GEFF,
    LINK,
    MSS,
    NAMES,
    ONE_WAY_MS,
    PKT,
    RATE,
    RED_FAMILY,
    base_scenario,
    queue_table,
    thresholds,
)
from .study import STUDY, RedEcn

__all__ = [
    "BDP_PKTS",
    "CBR_BPS",
    "DISCIPLINES",
    "IDEAL_GEFF",
    "LINK",
    "MSS",
    "NAMES",
    "ONE_WAY_MS",
    "PKT",
    "RATE",
    "RED_FAMILY",
    "base_scenario",
    "queue_table",
    "thresholds",
    "STUDY",
    "RedEcn",
]
