"""Network models a scenario names on its links: queue disciplines and loss
models (parsed and checked here, run by the Rust core: queue/, loss/), and
the random distributions that loss channels and traffic sources draw from."""

from __future__ import annotations

import json
import math
from typing import Any

from .. import _core
from ..errors import ScenarioError
from ._check import _check_keys, _int, _str, by_kind
from .units import fmt_time_ps, parse_size, parse_time

# The core's loss-model schema (each model's file in loss/, exported by config/net_schema.rs): every loss model a
# scenario names, the variant it resolves to, its options (kind, bounds,
# unit, doc line) and the ones it requires. Each link direction draws from
# its own stream.
LOSS_SCHEMA: dict[str, dict[str, Any]] = {m["name"]: m for m in json.loads(_core.loss_options())}
LOSS_KINDS: list[str] = list(LOSS_SCHEMA)
LOSS_DOC: dict[str, dict[str, str]] = {k: {o["name"]: o["doc"] for o in m["options"]} for k, m in LOSS_SCHEMA.items()}
# A time-driven state's duration (two_state's good and bad, ON/OFF periods):
# its kind, with the shortest mean the core accepts.
STATE_TIME: dict[str, Any] = next(o["kind"] for o in LOSS_SCHEMA["two_state"]["options"] if o["name"] == "good")
# The core's distribution grammar (rng.rs DISTS): each kind a scenario
# writes ({dist = "pareto", mean = ..., shape = ...}), its parameters in
# order (a plain number, or in the unit of what is drawn) and doc line; the
# bounds are the core's (`_core.check_dist`).
DIST_SCHEMA: dict[str, dict[str, Any]] = {d["name"]: d for d in json.loads(_core.dist_options())}
DIST_KINDS: list[str] = list(DIST_SCHEMA)
DIST_DOC: dict[str, str] = {k: d["doc"] for k, d in DIST_SCHEMA.items()}
# The core's queue schema (each kind's file in queue/, exported by config/net_schema.rs): every queue kind a
# scenario names, the variant it resolves to, the fields it sets, and its
# options with resolved field, kind (bounds, values), unit and doc line.
QUEUE_SCHEMA: dict[str, dict[str, Any]] = {q["name"]: q for q in json.loads(_core.queue_options())}
QUEUE_KINDS: list[str] = list(QUEUE_SCHEMA)
# The queue configurations whose buffer may be a byte limit (by the core's
# QueueCfg: DropTail, the RED family, PIE); the rest count packets only.
BYTES_LIMIT: set[str] = {q["core"] for q in QUEUE_SCHEMA.values() if q["bytes_limit"]}
# The core's shaper and reordering schema (config/link_schema.rs): each
# token-bucket shaper a link direction names, with its options and the
# defaults of Mininet's TCLink, and reordering's options and defaults.
_LINK = json.loads(_core.link_options())
SHAPER_SCHEMA: dict[str, dict[str, Any]] = {x["name"]: x for x in _LINK["shapers"]}
SHAPER_KINDS: list[str] = list(SHAPER_SCHEMA)
REORDER_SCHEMA: dict[str, Any] = _LINK["reorder"]


def _scenario_form(opts: dict[str, Any]) -> dict[str, Any]:
    """Core option values as a scenario writes them: `*_ps` times as
    '15ms'; options without a fixed default (None) left out."""
    return {
        (k[:-3] if k.endswith("_ps") else k): (fmt_time_ps(v) if k.endswith("_ps") else v)
        for k, v in opts.items()
        if v is not None
    }


_NET = json.loads(_core.net_defaults())
# Defaults the core fills in for options a scenario leaves out (serde
# defaults declared in each model's own file, crates/ccsim-core/src/queue/ and loss/, the one place they are
# written), by the kind names a scenario uses.
QUEUE_DEFAULTS: dict[str, dict[str, Any]] = {k: _scenario_form(v) for k, v in _NET["queue"].items()}
# The queue a link gets where the scenario names none (queue::DEFAULT_QUEUE),
# and the buffer a direction gets where it writes none, by queue configuration
# (QueueKind::DEFAULT_BUFFER).
DEFAULT_QUEUE: str = _NET["default_queue"]
DEFAULT_BUFFER: dict[str, str] = {q["core"]: q["default_buffer"] for q in QUEUE_SCHEMA.values()}
LOSS_DEFAULTS: dict[str, dict[str, Any]] = {k: _scenario_form(v) for k, v in _NET["loss"].items()}


def queue_doc(kind: str) -> dict[str, str]:
    """A queue kind's options: name -> doc line (from the core's schema)."""
    return {o["name"]: o["doc"] for o in QUEUE_SCHEMA[kind]["options"]}


def with_defaults(doc: dict[str, str], defaults: dict[str, Any]) -> dict[str, str]:
    """Option docs with each option's default appended."""

    def show(v: object) -> str:
        return str(v).lower() if isinstance(v, bool) else (f"'{v}'" if isinstance(v, str) else f"{v:g}")

    return {k: f"{d} (default {show(defaults[k])})" if k in defaults else d for k, d in doc.items()}


def _kind_table(
    field: str, v: object, schema: dict[str, dict[str, Any]], what: str
) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """A model written as a kind name or a table {kind = ..., options}: the
    table, its kind and the kind's row of `schema`; unknown options refused."""
    if isinstance(v, str):
        v = {"kind": v}
    if not isinstance(v, dict):
        raise ScenarioError(field, v, f"a {what} kind ({', '.join(schema)}) or a table with 'kind'")
    kind = _str(f"{field}.kind", v.get("kind"), list(schema))
    spec = schema[kind]
    _check_keys(field, v, {"kind", *(o["name"] for o in spec["options"])})
    return v, kind, spec


def _queue(field: str, v: object) -> dict[str, Any]:
    """A topology's queue: a kind name or a table {kind = ..., options},
    resolved by the core's schema: each option checked by its kind, then
    the rules between options applied by the core (`_core.check_queue`),
    every error naming the field as the user wrote it."""
    v, kind, spec = _kind_table(field, v, QUEUE_SCHEMA, "queue")
    opts = {o["name"]: o for o in spec["options"]}
    out: dict[str, Any] = {"kind": spec["core"], **spec["fixed"]}
    for k, x in v.items():
        if k == "kind":
            continue
        o = opts[k]
        val = by_kind(f"{field}.{k}", x, o["kind"], o["unit"])
        if k in spec["fixed"] and val != spec["fixed"][k]:
            raise ScenarioError(
                f"{field}.{k}",
                x,
                f"{json.dumps(spec['fixed'][k])} for kind '{kind}' (the kind sets it; kind 'red' lets you choose)",
            )
        out[o["core"]] = val
    broken = _core.check_queue(json.dumps(out))
    if broken is not None:
        k, _, expected = broken
        # an option the user wrote, else a field the kind sets
        raise (
            ScenarioError(f"{field}.{k}", v[k], expected) if k in v else ScenarioError(f"{field}.kind", kind, expected)
        )
    return out


def _options(field: str, v: dict[str, Any], options: list[dict[str, Any]], defaults: dict[str, Any]) -> dict[str, Any]:
    """A table of one of the core's schemas resolved: each option the user
    wrote (else its default) checked and converted by its kind, under the
    core's field name, in the schema's order."""
    out: dict[str, Any] = {}
    for o in options:
        k = o["name"]
        if k in v or k in defaults:
            out[o["core"]] = by_kind(f"{field}.{k}", v.get(k, defaults.get(k)), o["kind"], o["unit"])
    return out


def refuse(field: str, v: dict[str, Any], broken: tuple[Any, ...] | None) -> None:
    """The core's verdict on a resolved table (`_core.check_*`: None, or
    (option, value, what is accepted)) as an error naming the option as the
    user wrote it (missing, when the user left it out of a table that has
    others; the table itself when it is empty)."""
    if broken is None:
        return
    k, _, expected = broken
    if k in v:
        raise ScenarioError(f"{field}.{k}", v[k], expected)
    if v:
        raise ScenarioError(f"{field}.{k}", message=f"{field}.{k}: missing; expected {expected}")
    raise ScenarioError(field, v, expected)


def _reorder(field: str, v: object) -> dict[str, Any] | None:
    """netem-like reordering of a link direction: { jitter = "2ms" } (every
    packet waits a uniform extra 0..jitter), and/or { probability = 0.01,
    delay = "5ms" } (that share of packets waits `delay` more); later packets
    overtake the ones held. Options, defaults and rules are the core's."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ScenarioError(field, v, 'a table like { jitter = "2ms" } or { probability = 0.01, delay = "5ms" }')
    options = REORDER_SCHEMA["options"]
    _check_keys(field, v, {o["name"] for o in options})
    out = _options(field, v, options, REORDER_SCHEMA["defaults"])
    refuse(field, v, _core.check_reorder(json.dumps(out)))
    return out


def _shaper(field: str, v: object) -> dict[str, Any] | None:
    """A token-bucket shaper in place of the link's serialising transmitter:
    'htb', 'tbf' or a table {kind = ..., burst, cburst, overhead}; options,
    defaults and rules are the core's."""
    if v is None:
        return None
    v, kind, spec = _kind_table(field, v, SHAPER_SCHEMA, "shaper")
    out = {"rule": spec["rule"], **_options(field, v, spec["options"], spec["defaults"])}
    refuse(field, v, _core.check_shaper(json.dumps(out)))
    return out


def _loss(field: str, v: object) -> dict[str, Any]:
    """A link direction's loss model, resolved by the core's schema: each
    option checked by its kind, then the bounds and rules the core applies
    (`_core.check_loss`), every error naming the field as the user wrote it."""
    if v is None:
        return {"kind": "none"}
    if not isinstance(v, dict):
        raise ScenarioError(field, v, 'a table like { kind = "bernoulli", p = 0.01 }')
    kind = _str(f"{field}.kind", v.get("kind"), LOSS_KINDS)
    spec = LOSS_SCHEMA[kind]
    opts = {o["name"]: o for o in spec["options"]}
    _check_keys(field, v, {"kind", *opts})
    for k in spec["required"]:
        if k not in v:
            raise ScenarioError(
                f"{field}.{k}", message=f"{field}.{k}: missing; a {kind} loss needs {', '.join(spec['required'])}"
            )
    # how plain times in the time distributions are read (two_state's durations)
    plain = (
        _str(f"{field}.durations", v.get("durations", "fixed"), opts["durations"]["kind"]["choices"])
        if "durations" in opts
        else "fixed"
    )
    out: dict[str, Any] = {"kind": spec["core"]}
    for k, x in v.items():
        o = opts.get(k)
        if o is None or not o["core"]:
            continue  # the kind, or durations (read above)
        out[o["core"]] = by_schema(f"{field}.{k}", x, o, plain)
    refuse(field, v, _core.check_loss(json.dumps(out)))
    return out


def by_schema(field: str, x: object, opt: dict[str, Any], plain: str = "fixed") -> Any:
    """The value `x` of option `opt` of one of the core's schemas (loss
    models, applications), converted to the core's form: distributions of
    times (plain times read as `plain`) and sizes, packet lists, and every
    kind `_check.by_kind` converts. Bounds that need the whole model (a
    state's shortest mean, rules between options) are the core's, applied
    by the caller (`_core.check_loss`, `_core.check_app`)."""
    kind = opt["kind"]
    t = kind["type"]
    if t == "time_dist":
        d = dist(field, x, "time", plain=plain, positive=kind["min_mean_ps"] > 0)
        if d["kind"] == "exponential" and d["mean"] == 0:
            return {"kind": "fixed", "value": 0.0}  # no pause at all, not an exponential of mean 0
        return d
    if t == "size_dist":
        return dist(field, x, "size", positive=True)
    if t == "packets":
        if not isinstance(x, list) or not x:
            raise ScenarioError(field, x, kind["accepted"])
        return [_int(f"{field}[{i}]", n, lo=1) for i, n in enumerate(x)]
    return by_kind(field, x, kind, opt["unit"])


def dist_min(d: dict[str, Any]) -> float:
    """The smallest value a resolved distribution draws (base units): a
    Pareto's scale x_m = mean·(shape − 1)/shape, 0 for the exponential and
    the Lomax (pareto2); the core's `rng::Dist::least`."""
    return float(_core.dist_least(json.dumps(d)))


def _quantity(field: str, x: object, unit: str) -> float:
    """One value of a distribution: a time string -> ps, a size string ->
    bytes, or a plain number (unit 'number')."""
    if unit == "time":
        return float(parse_time(field, x))
    if unit == "size":
        return float(parse_size(field, x))
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise ScenarioError(field, x, "a finite number ≥ 0")
    return float(x)


def dist(field: str, v: object, unit: str, *, plain: str = "fixed", positive: bool = False) -> dict[str, Any]:
    """A distribution of times ('time': strings like '1s' -> ps), sizes
    ('size': '10KB' -> bytes) or plain numbers ('number').

    Accepts a single value (a `plain` distribution with that mean: 'fixed' or
    'exponential') or a table {dist = kind, ...} (see DIST_DOC). Returns the
    core's form {kind, ...} in base units. `positive`: values must be > 0
    (durations of states), so the mean and the lower end must be > 0."""
    if not isinstance(v, dict):
        x = _quantity(field, v, unit)
        broken = _core.check_dist(json.dumps({"kind": "fixed", "value": x}), positive)
        if broken is not None:
            raise ScenarioError(field, v, broken[2])
        return {"kind": "fixed", "value": x} if plain == "fixed" else {"kind": "exponential", "mean": x}
    kind = _str(f"{field}.dist", v.get("dist"), DIST_KINDS)
    params = DIST_SCHEMA[kind]["params"]
    _check_keys(field, v, {"dist", *(p["name"] for p in params)})
    for p in params:
        if p["name"] not in v:
            k = p["name"]
            raise ScenarioError(f"{field}.{k}", message=f"{field}.{k}: missing; {DIST_DOC[kind]}")
    out: dict[str, Any] = {"kind": kind}
    for p in params:
        k = p["name"]
        x = v[k]
        if p["number"]:
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ScenarioError(f"{field}.{k}", x, "a number")
            out[k] = float(x)
        else:
            out[k] = _quantity(f"{field}.{k}", x, unit)
    broken = _core.check_dist(json.dumps(out), positive)
    if broken is not None:
        k, _, expected = broken
        raise ScenarioError(f"{field}.{k}", v[k], expected)
    return out
