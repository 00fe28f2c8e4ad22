"""Congestion-control algorithms known to the core: their sources, parameters
and presets (the core's own table, so Python never keeps a second copy), and
the check of a scenario's ``cc``, ``cc_preset`` and ``cc_params``."""

from __future__ import annotations

import functools
import json
from typing import Any

from . import _core
from .errors import ScenarioError


@functools.cache
def specs() -> dict[str, dict]:
    """name -> {"name", "source", "recovery", "ecn", "ack_hooks", "params": [...], "presets": [...]}."""
    return {a["name"]: a for a in json.loads(_core.algorithm_specs())}


def _check_value(field: str, p: dict, v: Any) -> Any:
    k = p["kind"]
    t = k["type"]
    if t in ("int", "number"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ScenarioError(field, v, f"a number in [{k['min']:g}, {k['max']:g}]")
        x = float(v)
        if not (k["min"] <= x <= k["max"]) or x != x:
            raise ScenarioError(field, v, f"a number in [{k['min']:g}, {k['max']:g}]")
        if t == "int" and not x.is_integer():
            raise ScenarioError(field, v, f"a whole number in [{k['min']:g}, {k['max']:g}]")
        return x
    if t == "bool":
        if not isinstance(v, bool):
            raise ScenarioError(field, v, "true or false")
        return v
    if not isinstance(v, str) or v not in k["choices"]:
        raise ScenarioError(field, v, "one of " + ", ".join(repr(c) for c in k["choices"]))
    return v


def check(cc: str, preset: Any, preset_field: str, params: Any, params_field: str) -> tuple[str | None, dict]:
    """Validate a preset name and parameter overrides for algorithm `cc`;
    return them in the core's form."""
    spec = specs()[cc]
    if preset == "none":
        preset = None  # written in a scenario: the algorithm's defaults
    if preset is not None:
        names = [p["name"] for p in spec["presets"]]
        if not isinstance(preset, str) or preset not in names:
            acc = ", ".join(repr(n) for n in names) if names else "none (this algorithm has no presets)"
            raise ScenarioError(preset_field, preset, f"a preset of {cc}: {acc}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ScenarioError(params_field, params, "a table of parameter = value")
    by_name = {p["name"]: p for p in spec["params"]}
    out = {}
    for k, v in params.items():
        if k not in by_name:
            acc = ", ".join(by_name) if by_name else "none (this algorithm has no parameters)"
            raise ScenarioError(
                f"{params_field}.{k}", message=f"{params_field}.{k}: unknown parameter of {cc}; accepted: {acc}"
            )
        out[k] = _check_value(f"{params_field}.{k}", by_name[k], v)
    return preset, out


def describe(name: str) -> str:
    """Human-readable block for ``ccsim list cc``."""
    a = specs()[name]
    lines = [f"{name}: {a['source']}", f"    loss recovery with sack = 'off': {a['recovery']}"]
    if a.get("ecn"):
        e = a["ecn"]
        lines.append(
            f"    needs ECN: turns on ecn = true, ecn_codepoint = '{e['codepoint']}', ecn_feedback = '{e['feedback']}' "
            f"for its flows unless set; ecn = false is refused ({e['without']})"
        )
    if a["ack_hooks"]:
        lines.append("    has pkts_acked or in_ack_event hooks (so tcp.ack_hooks_first acts on it)")
    for p in a["params"]:
        k = p["kind"]
        if k["type"] in ("int", "number"):
            rng = f"[{k['min']:g}, {k['max']:g}]"
        elif k["type"] == "bool":
            rng = "true|false"
        else:
            rng = "|".join(k["choices"])
        d = p["default"]
        d = f"{d:g}" if isinstance(d, float) else json.dumps(d)
        lines.append(f"    {p['name']} = {d}  {rng}: {p['doc']}")
    for p in a["presets"]:
        vals = ", ".join(f"{k}={json.dumps(v)}" for k, v in p["values"].items()) or "defaults"
        lines.append(f"    preset {p['name']!r}: {p['doc']} ({vals})")
    return "\n".join(lines)
