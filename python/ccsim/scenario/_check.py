"""Checks shared by the scenario parsers: each raises ``ScenarioError`` naming
the field, the value and what is accepted."""

from __future__ import annotations

import math
import os
from typing import Any

from ..errors import ScenarioError, suggest

# Largest scenario, sweep or trace file read (bytes); a scenario is a few kB.
MAX_FILE_BYTES = 16 << 20


def max_file_bytes() -> int:
    """$CCSIM_MAX_FILE_BYTES (bytes, or a size such as "1MB") or MAX_FILE_BYTES."""
    v = os.environ.get("CCSIM_MAX_FILE_BYTES", "").strip()
    if not v:
        return MAX_FILE_BYTES
    if v.isdigit() and int(v) > 0:
        return int(v)
    from .units import parse_size

    return parse_size("CCSIM_MAX_FILE_BYTES", v)


def _check_keys(where: str, d: Any, allowed: set[str] | dict[str, Any]) -> None:
    if not isinstance(d, dict):
        raise ScenarioError(where, d, "a table (mapping)")
    for k in d:
        if k not in allowed:
            raise ScenarioError(
                f"{where}.{k}" if where else k,
                message=f"{where + '.' if where else ''}{k}: unknown key{suggest(k, sorted(allowed))}; "
                f"accepted keys: {', '.join(sorted(allowed))}",
            )


def _int(field: str, v: Any, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScenarioError(field, v, "an integer")
    if lo is not None and v < lo:
        raise ScenarioError(field, v, f"an integer ≥ {lo}")
    if hi is not None and v > hi:
        raise ScenarioError(field, v, f"an integer ≤ {hi}")
    return v


def _bool(field: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ScenarioError(field, v, "true or false")
    return v


def _str(field: str, v: Any, choices: list[str] | None = None) -> str:
    if not isinstance(v, str):
        raise ScenarioError(field, v, "a string" + (f" (one of {', '.join(choices)})" if choices else ""))
    if choices is not None and v not in choices:
        raise ScenarioError(field, v, f"one of {', '.join(repr(c) for c in choices)}")
    return v


def _prob(field: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 <= float(v) <= 1.0):
        raise ScenarioError(field, v, "a probability between 0 and 1")
    return float(v)


def by_kind(field: str, v: Any, kind: dict[str, Any], unit: str = "") -> Any:
    """A value checked and converted by its kind in one of the core's option
    schemas (`config/schema.rs`, `config/net_schema.rs`,
    `config/app_schema.rs`: bool, int, int_or_inf, int_or_none, choice,
    time, ratio, number, prob, prob_or_auto, size, rate, intervals,
    time_or_off, choice_list); None
    for a kind this function does not convert (the caller's own, e.g. a TCP
    window or a distribution)."""
    t = kind["type"]
    if t == "time_or_off":
        from .units import parse_time

        try:
            return None if v == "off" else parse_time(field, v, allow_zero=False)
        except ScenarioError:
            raise ScenarioError(field, v, kind["accepted"]) from None
    if t == "choice_list":
        if not isinstance(v, list) or any(x not in kind["choices"] for x in v) or len(set(v)) < len(v):
            raise ScenarioError(field, v, kind["accepted"])
        return list(v)
    if t in ("size", "rate", "intervals"):
        from .units import parse_rate, parse_size, parse_time

        if t == "rate":
            return parse_rate(field, v)
        if t == "size":
            n = parse_size(field, v)
            if not kind["lo"] <= n <= kind["hi"]:
                raise ScenarioError(field, v, kind["accepted"])
            return n
        if not isinstance(v, list) or not v:
            raise ScenarioError(field, v, "a non-empty list of [start, end] intervals")
        out: list[list[int]] = []
        for i, pair in enumerate(v):
            f = f"{field}[{i}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise ScenarioError(f, pair, "a pair [start, end] such as ['250s', '500s']")
            a, b = parse_time(f"{f}[0]", pair[0]), parse_time(f"{f}[1]", pair[1])
            if b <= a:
                raise ScenarioError(f, pair, "an interval whose end is after its start")
            if out and a < out[-1][1]:
                raise ScenarioError(f, pair, "intervals in increasing order, not overlapping")
            out.append([a, b])
        return out
    if t == "bool":
        return _bool(field, v)
    if t == "int":
        return _int(field, v, lo=kind["lo"], hi=kind["hi"])
    if t == "int_or_inf":
        return None if v == "inf" else _int(field, v, lo=kind["lo"], hi=kind["hi"])
    if t == "int_or_none":
        return None if v is None or v == "none" else _int(field, v, lo=kind["lo"], hi=kind["hi"])
    if t == "choice":
        return _str(field, v, kind["choices"])
    if t == "time":
        from .units import parse_time

        ps = parse_time(field, v, allow_zero=kind["min_ps"] == 0)
        if ps < kind["min_ps"]:
            raise ScenarioError(field, v, kind["accepted"])
        return ps
    if t == "ratio":
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < float(v) <= kind["max"]):
            raise ScenarioError(field, v, f"a ratio in (0, {kind['max']:g}], e.g. 2.0 for 200%")
        return float(v)
    if t == "prob_or_auto" and v == "auto":
        return None
    if t in ("number", "prob", "prob_or_auto"):
        lo, hi, lo_open = (
            (kind["lo"], kind["hi"], kind["lo_open"]) if t == "number" else (0.0, 1.0, t != "prob" or kind["lo_open"])
        )
        # finite: NaN and ±inf are no setting (and JSON cannot carry them to the core)
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
        ok = ok and (v > lo if lo_open else v >= lo) and (hi is None or v <= hi)
        if not ok:
            raise ScenarioError(field, v, kind["accepted"] + (f" ({unit})" if t == "number" and unit else ""))
        return float(v)
    return None
