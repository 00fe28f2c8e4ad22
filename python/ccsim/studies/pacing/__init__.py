"""High-speed TCP with and without pacing: Choi, Lee, Cho & Han 2004 (ns-2), P1–P3.

Y.-S. Choi, G.-W. Lee, Y.-Z. Cho, T.-M. Han, "Performance enhancement of
high-speed TCP protocols using pacing" (in Korean), Journal of the Korean
Institute of Communications and Information Sciences (KICS), 2004. Two
high-speed flows (HighSpeed TCP, Scalable TCP or BI-TCP, with and without
pacing) share a FIFO DropTail dumbbell with a background of web sessions, 25
"small" TCP flows capped at 64 packets and 2–4 long-lived TCP flows, each
with random RTTs and start times. ns-2 Sack1 recovery, 1000-byte segments,
timestamps; the buffer is 100 % of the bandwidth × mean-RTT product unless
stated; 200 s runs measured over 100–200 s, 20 repetitions.

- P1: link efficiency at 20 Mb/s … 2.5 Gb/s (the paper's Table 2);
- P2: the throughput ratio of two high-speed flows with RTT 40 ms and
  40/120/240 ms at 2.5 Gb/s, buffers of 100/50/25 % of the BDP (Fig. 4);
- P3: the share of the link each traffic class gets (Fig. 5).

The paper's pacing is ns-2's leaky bucket: one segment every srtt/cwnd
(ccsim `pacing = "window"`). Linux's pacing (`pacing = "linux"`: rate =
1.2·cwnd·mss/srtt in avoidance, 2× in slow start, TSO-sized releases) is a
second column for the paced variants. HighSpeed TCP runs with Low_Window 31
(the paper's text; preset `choi2004`) and again with 38 (its Table 1; preset
`ns2`).
"""

from .scenarios import (  # the scenario builders and constants, for tests and users
    ACCESS_RATE,
    BG_RTT,
    BG_START,
    BOTTLENECK_DELAY,
    CLASS_COLORS,
    CLASS_ORDER,
    CLASSES,
    FWD,
    HS_RTT_MS,
    LINUX,
    LW38,
    MSS,
    PAPER_P2,
    PKT,
    PRIMARY,
    RATES,
    REGULAR,
    REV,
    TABLE2,
    VARIANTS,
    WEB_SHARE,
    WEB_THINK,
    rate_text,
    scenario,
    variant_options,
)
from .study import STUDY, Pacing

__all__ = [
    "ACCESS_RATE",
    "BG_RTT",
    "BG_START",
    "BOTTLENECK_DELAY",
    "CLASS_COLORS",
    "CLASS_ORDER",
    "CLASSES",
    "FWD",
    "HS_RTT_MS",
    "LINUX",
    "LW38",
    "MSS",
    "PAPER_P2",
    "PKT",
    "PRIMARY",
    "RATES",
    "REGULAR",
    "REV",
    "TABLE2",
    "VARIANTS",
    "WEB_SHARE",
    "WEB_THINK",
    "rate_text",
    "scenario",
    "variant_options",
    "STUDY",
    "Pacing",
]
