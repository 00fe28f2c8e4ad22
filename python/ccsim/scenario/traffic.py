"""Traffic a flow group generates: the application of its TCP flows (bulk,
one file, ON-OFF, a fixed ON schedule, repeated transfers, web sessions) or
a UDP source (constant bit rate, optionally ON-OFF), and the per-flow random
start times and RTTs a group may draw.

Parsing and checks live here; the Rust core runs the applications
(crates/ccsim-core/src/app.rs). Draws made here (start times, RTTs) use a
numpy generator seeded from ``sim.seed`` and the group index, so a scenario
and seed always resolve to the same flows.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .. import _core
from .._json import core_json
from ..errors import ScenarioError
from ._check import _check_keys, _str
from .netmodels import by_schema, dist
from .units import parse_time


def _show(v: Any) -> str:
    """A default as a scenario writes it."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, dict):
        return f"Pareto II with a mean of {v['mean_segments']:g} segments, shape {v['shape']:g} (ns-2 WebTraf)"
    return f"'{v}'"


# The core's application schema (config/app_schema.rs): every application a
# flow group names, the configuration it resolves to ('udp' for a UDP
# source), its options (kind, bounds, unit, doc line), the ones it needs
# and the defaults of the rest, as a scenario writes them.
APP_SCHEMA: dict[str, dict[str, Any]] = {a["name"]: a for a in json.loads(_core.app_options())}
APP_KINDS: list[str] = list(APP_SCHEMA)
# app -> {key: doc line with its default}; every key is written in the flow group itself.
APP_DOC: dict[str, dict[str, str]] = {
    k: {
        o["name"]: o["doc"] + (f" (default {_show(a['defaults'][o['name']])})" if o["name"] in a["defaults"] else "")
        for o in a["options"]
    }
    for k, a in APP_SCHEMA.items()
}
APP_KEYS = {k for d in APP_DOC.values() for k in d}


def app(where: str, g: dict[str, Any], mss: int) -> dict[str, Any]:
    """The application of flow group `g`: the core's app table for TCP
    flows, or {'kind': 'udp', ...} for a UDP source. Each option is
    converted by its kind in the core's schema, then the core applies the
    bounds and rules (`_core.check_app`); every error names the field as
    the user wrote it."""
    kind = _str(f"{where}.app", g.get("app", "bulk"), APP_KINDS)
    spec = APP_SCHEMA[kind]
    opts = {o["name"]: o for o in spec["options"]}
    for k in APP_KEYS:
        if k in g and k not in opts:
            owners = [a for a in APP_KINDS if k in APP_DOC[a]]
            raise ScenarioError(
                f"{where}.{k}",
                message=(
                    f"{where}.{k}: not an option of app = '{kind}'; it belongs to app = {', '.join(repr(a) for a in owners)}"
                ),
            )
    for k in spec["required"]:
        if k not in g:
            raise ScenarioError(
                f"{where}.{k}", message=f"{where}.{k}: missing; app = '{kind}' needs {k} ({APP_DOC[kind][k]})"
            )
    given = {k: g[k] for k in opts if k in g}
    values = {**spec["defaults"], **given}
    if isinstance(values.get("size"), dict) and "mean_segments" in values["size"]:
        d = values["size"]  # web's default object sizes, in segments of this group's MSS
        values["size"] = {"dist": d["dist"], "mean": f"{d['mean_segments'] * mss!r}B", "shape": d["shape"]}
    plain = by_schema(f"{where}.durations", values["durations"], opts["durations"]) if "durations" in opts else ""
    out: dict[str, Any] = {"kind": spec["core"]}
    for k, o in opts.items():
        if o["core"]:
            out[o["core"]] = by_schema(f"{where}.{k}", values[k], o, plain) if k in values else None
    broken = _core.check_app(core_json(out))
    if broken is not None:
        k, _, expected = broken
        if k in given:
            raise ScenarioError(f"{where}.{k}", given[k], expected)
        raise ScenarioError(f"{where}.{k}", message=f"{where}.{k}: missing; expected {expected}")
    return out


def sample(d: dict[str, Any], rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` draws of a resolved distribution (see netmodels.dist): `n`
    uniforms from `rng`, turned into values by the core's formulas
    (`rng::Dist::quantile`)."""
    u = rng.random(n)
    return np.asarray(_core.dist_quantiles(json.dumps(d), u.tolist()), dtype=float)


def per_flow_times(field: str, v: Any, count: int, rng: np.random.Generator, *, allow_zero: bool = True) -> list[int]:
    """Times for each of `count` flows: one time for all ('10ms'), a
    distribution table drawn per flow ({dist = 'uniform', min = ..., max =
    ...}), {spread = [a, b]}: evenly spaced from a to b (flow j gets
    a + j·(b − a)/(count − 1)), or {cycle = [t0, t1, ...]}: flow j gets the
    (j mod n)-th of the n times (as many flows in each class as can be)."""
    if isinstance(v, dict) and "cycle" in v:
        _check_keys(field, v, {"cycle"})
        c = v["cycle"]
        if not isinstance(c, list) or not c:
            raise ScenarioError(f"{field}.cycle", c, "a non-empty list of times such as ['20ms', '60ms', '100ms']")
        ts = [parse_time(f"{field}.cycle[{k}]", x, allow_zero=allow_zero) for k, x in enumerate(c)]
        return [ts[j % len(ts)] for j in range(count)]
    if isinstance(v, dict) and "spread" in v:
        _check_keys(field, v, {"spread"})
        s = v["spread"]
        if not isinstance(s, list) or len(s) != 2:
            raise ScenarioError(f"{field}.spread", s, "a pair [first, last] such as ['20ms', '250ms']")
        a, b = (
            parse_time(f"{field}.spread[0]", s[0], allow_zero=allow_zero),
            parse_time(f"{field}.spread[1]", s[1], allow_zero=allow_zero),
        )
        if b < a:
            raise ScenarioError(f"{field}.spread", s, "first ≤ last")
        if count == 1:
            return [a]
        return [round(a + j * (b - a) / (count - 1)) for j in range(count)]
    if isinstance(v, dict):
        d = dist(field, v, "time", positive=not allow_zero)
        xs = sample(d, rng, count)
        if not allow_zero and (xs <= 0).any():
            raise ScenarioError(field, v, "a distribution of times above 0")
        return [int(round(x)) for x in xs]
    t = parse_time(field, v, allow_zero=allow_zero)
    return [t] * count
