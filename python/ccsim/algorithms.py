"""Congestion-control algorithms known to the core: their sources, parameters
and presets (the core's own table, so Python never keeps a second copy), and
the check of a scenario's ``cc``, ``cc_preset`` and ``cc_params``."""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from . import _core
from .errors import ScenarioError


@functools.cache
def specs() -> dict[str, dict[str, Any]]:
    """name -> {"name", "source", "recovery", "ecn", "ack_hooks", "params": [...], "presets": [...]}."""
    return {a["name"]: a for a in json.loads(_core.algorithm_specs())}


def check(cc: str, preset: Any, preset_field: str, params: Any, params_field: str) -> tuple[str | None, dict[str, Any]]:
    """Validate a preset name and parameter overrides for algorithm `cc` by
    the core's rules (`cc::params::refusal`); return them in the core's form
    (numbers as floats)."""
    if preset == "none":
        preset = None  # written in a scenario: the algorithm's defaults
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ScenarioError(params_field, params, "a table of parameter = value")

    def plain(v: Any) -> Any:
        # JSON has no NaN or infinity: the core sees them as text, which no
        # number parameter accepts
        return str(v) if isinstance(v, float) and not math.isfinite(v) else v

    broken = _core.check_cc(
        cc, json.dumps(plain(preset), default=str), json.dumps({k: plain(v) for k, v in params.items()}, default=str)
    )
    if broken is not None:
        sub, accepted, unknown = broken
        if sub == "cc_preset":
            raise ScenarioError(preset_field, preset, accepted)
        name = sub.removeprefix("cc_params.")
        field = f"{params_field}.{name}"
        if unknown:
            raise ScenarioError(field, message=f"{field}: {accepted}")
        raise ScenarioError(field, params[name], accepted)
    return preset, {
        k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in params.items()
    }


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
