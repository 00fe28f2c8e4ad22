"""Unit strings used in scenarios: rates ("10Mbps"), times ("40ms"), sizes
("100KB") and buffers ("333pkt", "500KB", "1bdp").

Decimal prefixes are powers of 1000 (KB = 1000 bytes, Mbps = 10^6 b/s);
binary prefixes (KiB, MiB, GiB) are powers of 1024. Every parser raises
``ScenarioError`` naming the field, the value and what is accepted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..errors import ScenarioError

PS_PER_S = 10**12

_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?)"

_RATE_UNITS = {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12}
_TIME_UNITS = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "ms": 10**9, "s": 10**12, "min": 60 * 10**12}
_SIZE_UNITS = {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def _parse(field: str, value: Any, units: dict[str, Any], what: str, example: str) -> float:
    if isinstance(value, bool) or not isinstance(value, str):
        raise ScenarioError(field, value, f"a {what} string with a unit, e.g. {example!r}")
    m = re.fullmatch(r"\s*" + _NUM + r"\s*([A-Za-zµ]+)\s*", value)
    if not m or m.group(2) not in units:
        raise ScenarioError(field, value, f"a {what} with one of the units {', '.join(units)} (e.g. {example!r})")
    x = float(m.group(1)) * float(units[m.group(2)])
    if not math.isfinite(x):
        raise ScenarioError(field, value, f"a finite {what}")
    return x


# Largest values accepted, far above any experiment and inside the core's
# integer types (u64 bit/s and bytes, u32 packets).
MAX_RATE_BPS = 10**15
MAX_SIZE_BYTES = 2**53
MAX_BUFFER_PKTS = 10**9
MAX_BDP_MULTIPLE = 10**4


def parse_rate(field: str, value: Any, *, allow_zero: bool = False) -> int:
    """Rate string -> bits per second (int, > 0; ≥ 0 with allow_zero)."""
    x = _parse(field, value, _RATE_UNITS, "rate", "10Mbps")
    bps = round(x)
    if bps < 0 or (bps == 0 and not allow_zero):
        raise ScenarioError(
            field, value, "a rate above 0 bps, e.g. '10Mbps'" if not allow_zero else "a rate of 0 bps or more"
        )
    if bps > MAX_RATE_BPS:
        raise ScenarioError(field, value, "a rate of at most 1 Pb/s ('1000Tbps')")
    return bps


def parse_time(field: str, value: Any, *, allow_zero: bool = True) -> int:
    """Time string -> picoseconds (int, >= 0; > 0 unless allow_zero)."""
    x = _parse(field, value, _TIME_UNITS, "time", "40ms")
    ps = round(x)
    if ps < 0 or (ps == 0 and not allow_zero):
        raise ScenarioError(field, value, "a time above 0, e.g. '40ms'" if not allow_zero else "a time of 0 or more")
    if ps > _core.MAX_TIME_PS:
        raise ScenarioError(field, value, "a time of at most 2^62 ps (about 53 days)")
    return ps


def parse_wall_seconds(field: str, v: str) -> float:
    """A wall time in seconds ("600") or as a time ("10min"), finite and > 0
    (the CLI's --timeout)."""
    try:
        x = float(v)
    except ValueError:
        return parse_time(field, v, allow_zero=False) / PS_PER_S
    if not (math.isfinite(x) and x > 0):
        raise ScenarioError(field, v, "a wall time in seconds > 0 (e.g. 600) or a time such as '10min'")
    return x


def parse_size(field: str, value: Any) -> int:
    """Size string -> bytes (int, > 0)."""
    x = _parse(field, value, _SIZE_UNITS, "size", "100KB")
    b = round(x)
    if b <= 0:
        raise ScenarioError(field, value, "a size of at least 1 byte, e.g. '100KB'")
    if b > MAX_SIZE_BYTES:
        raise ScenarioError(field, value, "a size of at most 2^53 bytes (8 PiB)")
    return b


@dataclass(frozen=True)
class Buffer:
    """A buffer as written: packets, bytes, or a multiple of the BDP."""

    kind: str  # "pkt" | "bytes" | "bdp"
    amount: float


def parse_buffer(field: str, value: Any) -> Buffer:
    accepted = "'<n>pkt' (e.g. '333pkt'), a size (e.g. '500KB') or '<x>bdp' (e.g. '1bdp')"
    if isinstance(value, bool) or not isinstance(value, str):
        raise ScenarioError(field, value, accepted)
    m = re.fullmatch(r"\s*" + _NUM + r"\s*(pkt|pkts|bdp)\s*", value)
    if m:
        x = float(m.group(1))
        if m.group(2) == "bdp":
            if not (x > 0 and math.isfinite(x)):
                raise ScenarioError(field, value, "a BDP multiple above 0, e.g. '1bdp'")
            if x > MAX_BDP_MULTIPLE:
                raise ScenarioError(field, value, f"a BDP multiple of at most {MAX_BDP_MULTIPLE:g}")
            return Buffer("bdp", x)
        if x != int(x) or x < 1:
            raise ScenarioError(field, value, "a whole number of packets, at least 1, e.g. '333pkt'")
        if x > MAX_BUFFER_PKTS:
            raise ScenarioError(field, value, f"at most {MAX_BUFFER_PKTS:,} packets")
        return Buffer("pkt", int(x))
    try:
        return Buffer("bytes", parse_size(field, value))
    except ScenarioError:
        raise ScenarioError(field, value, accepted) from None


def fmt_time_ps(ps: int) -> str:
    """A time in ps as a scenario would write it ('200ms', '1s')."""
    for unit, scale in (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3)):
        if ps and ps % scale == 0:
            return f"{ps // scale}{unit}"
    return f"{ps}ps"


def fmt_rate(bps: float) -> str:
    for unit, k in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= k:
            return f"{bps / k:.3g}{unit}"
    return f"{bps:.3g}bps"
