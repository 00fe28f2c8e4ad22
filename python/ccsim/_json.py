"""The JSON text the core reads (a resolved scenario, a network to route):
written by orjson, about ten times faster than the json module on the
hand-off of a many-flow scenario (400,000 links of a 100,000-flow dumbbell:
0.16 s against 1.8 s; docs/performance.md). The same text the json module
would write, without its optional spaces: keys in insertion order, floats
as their shortest round-trip form."""

from __future__ import annotations

from typing import Any

import orjson


def core_json(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def manifest_bytes(obj: Any) -> bytes:
    """A run's manifest as indented JSON (keys in insertion order; values
    JSON cannot hold written as their str()): orjson, about 1.5 ms less per
    run of a sweep than the json module on a small run's manifest."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str)
