"""Checks shared by the scenario parsers: each raises ``ScenarioError`` naming
the field, the value and what is accepted."""

from __future__ import annotations

import os
from typing import Any

from .errors import ScenarioError, suggest

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


def _check_keys(where: str, d: Any, allowed: set[str] | dict) -> None:
    if not isinstance(d, dict):
        raise ScenarioError(where, d, "a table (mapping)")
    for k in d:
        if k not in allowed:
            raise ScenarioError(
                f"{where}.{k}" if where else k,
                message=f"{where + '.' if where else ''}{k}: unknown key{suggest(k, sorted(allowed))}; "
                f"accepted keys: {', '.join(sorted(allowed))}",
            )


def _int(field: str, v, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScenarioError(field, v, "an integer")
    if lo is not None and v < lo:
        raise ScenarioError(field, v, f"an integer ≥ {lo}")
    if hi is not None and v > hi:
        raise ScenarioError(field, v, f"an integer ≤ {hi}")
    return v


def _bool(field: str, v) -> bool:
    if not isinstance(v, bool):
        raise ScenarioError(field, v, "true or false")
    return v


def _str(field: str, v, choices: list[str] | None = None) -> str:
    if not isinstance(v, str):
        raise ScenarioError(field, v, "a string" + (f" (one of {', '.join(choices)})" if choices else ""))
    if choices is not None and v not in choices:
        raise ScenarioError(field, v, f"one of {', '.join(repr(c) for c in choices)}")
    return v


def _prob(field: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 <= float(v) <= 1.0):
        raise ScenarioError(field, v, "a probability between 0 and 1")
    return float(v)
