"""Analytic oracles from the literature (docs/reference.md R9),
written from the published formulas. They are checked against the reference
vectors in test_oracles.py before any simulator test relies on them."""

from __future__ import annotations

import math
from collections.abc import Iterable


def pftk_full(p: float, rtt: float, t0: float, b: int = 1, wm: float = math.inf) -> float:
    """Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), full model, packets/s.
    b = packets acknowledged per ACK, t0 = RTO, wm = receiver window limit."""
    q = 1.0 - p
    ew = (2 + b) / (3 * b) + math.sqrt(8 * q / (3 * b * p) + ((2 + b) / (3 * b)) ** 2)

    def Q(w: float) -> float:
        return min(1.0, (1 - q**3) * (1 + q**3 * (1 - math.pow(q, w - 3))) / (1 - math.pow(q, w)))

    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    if ew < wm:
        num = q / p + ew + Q(ew) / q
        den = rtt * (b * ew / 2 + 1) + Q(ew) * f * t0 / q
    else:
        num = q / p + wm + Q(wm) / q
        den = rtt * (b * wm / 8 + q / (p * wm) + 2) + Q(wm) * f * t0 / q
    return num / den


def pftk_approx(p: float, rtt: float, t0: float, b: int = 1, wm: float = math.inf) -> float:
    """PFTK approximation, packets/s."""
    x = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2)
    return min(wm / rtt, 1 / x)


def mathis(p: float, rtt: float, b: int = 1) -> float:
    """Mathis et al. 1997, packets/s: (1/RTT)·sqrt(3/(2b))/sqrt(p)."""
    return math.sqrt(3 / (2 * b)) / (rtt * math.sqrt(p))


def jain(xs: Iterable[float]) -> float:
    xs = list(xs)
    s = sum(xs)
    return s * s / (len(xs) * sum(x * x for x in xs))
