"""Initial windows with CUBIC, paced CUBIC and BBR, simulated and on the
running kernel.

Seo, Lee & Kim, "Performance evaluation of TCP congestion control with
varying initial window sizes using Mininet" (in Korean): client h1 – switch
– server h2 in Mininet, Linux TCP, iperf3, delay and rate set with tc, 5
repetitions. IW1: 100 KB transfers, IW 1–50, RTT 30/100 ms, 10/30/100 Mb/s;
IW2: 100 s transfers, IW 1–50, RTT 30/100 ms, 10/100 Mb/s.

The paper ran real kernels, so ccsim reproduces it twice: simulated with the
`linux` stack, and emulated through this machine's own CUBIC and BBR
(docs/emulation.md) over the same link and queue model. Every claim is
judged on the simulator (the verdict) and its numbers on the kernel are given
beside it, with the ratio of the two in the figures.
"""

from .scenarios import (  # the scenario builders and constants, for tests and users
    BAND,
    DIP_S,
    MISSING,
    MSS,
    SIZE,
    VARIANTS,
    base,
    min_fct_data,
    rounds_needed,
)
from .study import STUDY, InitialWindow

__all__ = [
    "BAND",
    "DIP_S",
    "MISSING",
    "MSS",
    "SIZE",
    "VARIANTS",
    "base",
    "min_fct_data",
    "rounds_needed",
    "STUDY",
    "InitialWindow",
]
