"""Network models a scenario names on its links: queue disciplines and loss
models (parsed and checked here, run by the Rust core: queue/, loss.rs), and
the random distributions that loss channels and traffic sources draw from."""

from __future__ import annotations

import json
import math
from typing import Any

from . import _core
from ._check import _check_keys, _int, _prob, _str, by_kind
from .errors import ScenarioError
from .units import fmt_time_ps, parse_size, parse_time

# The core's loss-model schema (config/net_schema.rs): every loss model a
# scenario names, the variant it resolves to, its options (kind, bounds,
# unit, doc line) and the ones it requires. Each link direction draws from
# its own stream.
LOSS_SCHEMA: dict[str, dict[str, Any]] = {m["name"]: m for m in json.loads(_core.loss_options())}
LOSS_KINDS: list[str] = list(LOSS_SCHEMA)
LOSS_DOC: dict[str, dict[str, str]] = {k: {o["name"]: o["doc"] for o in m["options"]} for k, m in LOSS_SCHEMA.items()}
# A time-driven state's duration (two_state's good and bad, ON/OFF periods):
# its kind, with the shortest mean the core accepts.
STATE_TIME: dict[str, Any] = next(o["kind"] for o in LOSS_SCHEMA["two_state"]["options"] if o["name"] == "good")
DIST_KINDS = ["fixed", "exponential", "pareto", "pareto2", "uniform"]
DIST_DOC = {
    "fixed": "{dist = 'fixed', value = X}, or X alone",
    "exponential": "{dist = 'exponential', mean = X}",
    "pareto": "{dist = 'pareto', mean = X, shape = a} (a > 1; ns-2 Pareto: scale = mean·(a − 1)/a)",
    "pareto2": "{dist = 'pareto2', mean = X, shape = a} (Pareto II / Lomax, ns-2 ParetoII: scale = mean·(a − 1), from 0)",
    "uniform": "{dist = 'uniform', min = X, max = Y}",
}
# The core's queue schema (config/net_schema.rs): every queue kind a
# scenario names, the variant it resolves to, the fields it sets, and its
# options with resolved field, kind (bounds, values), unit and doc line.
QUEUE_SCHEMA: dict[str, dict[str, Any]] = {q["name"]: q for q in json.loads(_core.queue_options())}
QUEUE_KINDS: list[str] = list(QUEUE_SCHEMA)
# netem's default limit (iproute2 tc/q_netem.c, netem_parse_opt: limit 1000):
# the buffer of a 'netem' queue when the scenario gives none.
NETEM_DEFAULT_BUFFER = "1000pkt"
SHAPER_KINDS = ["htb", "tbf"]
# Token-bucket shapers (Linux tc on a veth, no serialisation of its own), with
# the defaults of Mininet's TCLink (mininet/link.py, TCIntf.bwCmds): HTB
# 'rate R burst 15k' (tc reads 15k as 15 × 1024 bytes, iproute2 get_size) and
# tc's cburst = ceil/HZ + mtu = 1600 bytes (tc/q_htb.c, mtu 1600; HZ is 10^9
# with high-resolution timers, /proc/net/psched); TBF 'burst 15000'. Both
# count the 14-byte Ethernet header of each packet (skb->len on a veth).
SHAPER_DOC: dict[str, str] = {
    "kind": "'htb' (Mininet's default: send while both buckets hold ≥ 0 tokens, charge after) or 'tbf' (send when the bucket holds the packet's cost)",
    "burst": "depth of the rate bucket (htb default '15360B', tbf default '15000B')",
    "cburst": "htb only: depth of the ceil bucket (default '1600B', tc's default)",
    "overhead": "bytes counted on top of each packet (default 14, Ethernet on a veth)",
}
SHAPER_DEFAULTS = {
    "htb": {"burst": "15360B", "cburst": "1600B", "overhead": 14},
    "tbf": {"burst": "15000B", "overhead": 14},
}


def _scenario_form(opts: dict) -> dict:
    """Core option values as a scenario writes them: `*_ps` times as
    '15ms'; options without a fixed default (None) left out."""
    return {
        (k[:-3] if k.endswith("_ps") else k): (fmt_time_ps(v) if k.endswith("_ps") else v)
        for k, v in opts.items()
        if v is not None
    }


_NET = json.loads(_core.net_defaults())
# Defaults the core fills in for options a scenario leaves out (serde
# defaults in crates/ccsim-core/src/config/net.rs, the one place they are
# written), by the kind names a scenario uses.
QUEUE_DEFAULTS: dict[str, dict] = {k: _scenario_form(v) for k, v in _NET["queue"].items()}
LOSS_DEFAULTS: dict[str, dict] = {
    ("gilbert" if k == "gilbert_elliott" else k): _scenario_form(v) for k, v in _NET["loss"].items()
}


def queue_doc(kind: str) -> dict[str, str]:
    """A queue kind's options: name -> doc line (from the core's schema)."""
    return {o["name"]: o["doc"] for o in QUEUE_SCHEMA[kind]["options"]}


def with_defaults(doc: dict[str, str], defaults: dict) -> dict[str, str]:
    """Option docs with each option's default appended."""

    def show(v):
        return str(v).lower() if isinstance(v, bool) else (f"'{v}'" if isinstance(v, str) else f"{v:g}")

    return {k: f"{d} (default {show(defaults[k])})" if k in defaults else d for k, d in doc.items()}


def _queue(field: str, v) -> dict:
    """A topology's queue: a kind name or a table {kind = ..., options},
    resolved by the core's schema: each option checked by its kind, then
    the rules between options applied by the core (`_core.check_queue`),
    every error naming the field as the user wrote it."""
    if isinstance(v, str):
        v = {"kind": v}
    if not isinstance(v, dict):
        raise ScenarioError(field, v, f"a queue kind ({', '.join(QUEUE_KINDS)}) or a table with 'kind'")
    kind = _str(f"{field}.kind", v.get("kind"), QUEUE_KINDS)
    spec = QUEUE_SCHEMA[kind]
    opts = {o["name"]: o for o in spec["options"]}
    _check_keys(field, v, {"kind", *opts})
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


def _reorder(field: str, v) -> dict | None:
    """netem-like reordering of a link direction: { jitter = "2ms" } (every
    packet waits a uniform extra 0..jitter), and/or { probability = 0.01,
    delay = "5ms" } (that share of packets waits `delay` more); later packets
    overtake the ones held."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ScenarioError(field, v, 'a table like { jitter = "2ms" } or { probability = 0.01, delay = "5ms" }')
    _check_keys(field, v, {"jitter", "probability", "delay"})
    out = {
        "jitter_ps": parse_time(f"{field}.jitter", v.get("jitter", "0s")),
        "probability": _prob(f"{field}.probability", v.get("probability", 0.0)),
        "delay_ps": parse_time(f"{field}.delay", v.get("delay", "0s")),
    }
    if out["probability"] > 0 and out["delay_ps"] == 0:
        raise ScenarioError(
            f"{field}.delay", v.get("delay"), "an extra delay > 0 for the held packets when probability > 0"
        )
    if out["probability"] == 0 and out["jitter_ps"] == 0:
        raise ScenarioError(field, v, "jitter > 0 or probability > 0 (an empty table reorders nothing; leave it out)")
    return out


def _shaper(field: str, v) -> dict | None:
    """A token-bucket shaper in place of the link's serialising transmitter:
    'htb', 'tbf' or a table {kind = ..., burst, cburst, overhead}."""
    if v is None:
        return None
    if isinstance(v, str):
        v = {"kind": v}
    if not isinstance(v, dict):
        raise ScenarioError(field, v, f"a shaper kind ({', '.join(SHAPER_KINDS)}) or a table with 'kind'")
    kind = _str(f"{field}.kind", v.get("kind"), SHAPER_KINDS)
    d = SHAPER_DEFAULTS[kind]
    _check_keys(field, v, {"kind", *d})
    out: dict[str, Any] = {
        "rule": kind,
        "burst_bytes": parse_size(f"{field}.burst", v.get("burst", d["burst"])),
        "overhead_bytes": _int(f"{field}.overhead", v.get("overhead", d["overhead"]), lo=0, hi=1000),
    }
    if kind == "htb":
        out["cburst_bytes"] = parse_size(f"{field}.cburst", v.get("cburst", d["cburst"]))
    for k in ("burst", "cburst"):
        if out.get(f"{k}_bytes", 0) > 2**30:
            raise ScenarioError(f"{field}.{k}", v.get(k), "a bucket of at most 1 GiB")
    return out


def _loss(field: str, v) -> dict:
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
    broken = _core.check_loss(json.dumps(out))
    if broken is not None:
        k, _, expected = broken
        raise ScenarioError(f"{field}.{k}", v[k], expected)
    return out


def by_schema(field: str, x, opt: dict, plain: str = "fixed") -> Any:
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


def dist_mean(d: dict) -> float:
    """The mean of a resolved distribution (base units)."""
    k = d["kind"]
    if k == "fixed":
        return d["value"]
    if k == "uniform":
        return (d["min"] + d["max"]) / 2
    return d["mean"]


def dist_min(d: dict) -> float:
    """The smallest value a resolved distribution draws (base units): a
    Pareto's scale x_m = mean·(shape − 1)/shape, 0 for the exponential and
    the Lomax (pareto2)."""
    k = d["kind"]
    if k == "fixed":
        return d["value"]
    if k == "uniform":
        return d["min"]
    if k == "pareto":
        return d["mean"] * (d["shape"] - 1) / d["shape"]
    return 0.0


def _quantity(field: str, x, unit: str) -> float:
    """One value of a distribution: a time string -> ps, a size string ->
    bytes, or a plain number (unit 'number')."""
    if unit == "time":
        return float(parse_time(field, x))
    if unit == "size":
        return float(parse_size(field, x))
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise ScenarioError(field, x, "a finite number ≥ 0")
    return float(x)


def dist(field: str, v, unit: str, *, plain: str = "fixed", positive: bool = False) -> dict:
    """A distribution of times ('time': strings like '1s' -> ps), sizes
    ('size': '10KB' -> bytes) or plain numbers ('number').

    Accepts a single value (a `plain` distribution with that mean: 'fixed' or
    'exponential') or a table {dist = kind, ...} (see DIST_DOC). Returns the
    core's form {kind, ...} in base units. `positive`: values must be > 0
    (durations of states), so the mean and the lower end must be > 0."""
    if not isinstance(v, dict):
        x = _quantity(field, v, unit)
        if positive and x <= 0:
            raise ScenarioError(field, v, "a value above 0")
        return {"kind": "fixed", "value": x} if plain == "fixed" else {"kind": "exponential", "mean": x}
    kind = _str(f"{field}.dist", v.get("dist"), DIST_KINDS)
    keys = {
        "fixed": ["value"],
        "exponential": ["mean"],
        "pareto": ["mean", "shape"],
        "pareto2": ["mean", "shape"],
        "uniform": ["min", "max"],
    }[kind]
    _check_keys(field, v, {"dist", *keys})
    for k in keys:
        if k not in v:
            raise ScenarioError(f"{field}.{k}", message=f"{field}.{k}: missing; {DIST_DOC[kind]}")
    out: dict = {"kind": kind}
    for k in keys:
        if k == "shape":
            a = v[k]
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not (a > 1 and math.isfinite(a)):
                raise ScenarioError(f"{field}.shape", a, "a number > 1 (the Pareto mean is infinite for shape ≤ 1)")
            out[k] = float(a)
        else:
            out[k] = _quantity(f"{field}.{k}", v[k], unit)
    if kind == "uniform" and out["max"] < out["min"]:
        raise ScenarioError(f"{field}.max", v["max"], f"a value ≥ min ({v['min']})")
    lo = {"fixed": "value", "exponential": "mean", "pareto": "mean", "pareto2": "mean", "uniform": "min"}[kind]
    if (positive or kind in ("exponential", "pareto", "pareto2")) and out[lo] <= 0:
        raise ScenarioError(f"{field}.{lo}", v[lo], "a value above 0")
    return out
