"""TCP options of a scenario (the `[tcp]` table and per-group overrides):
defaults, documentation, and their resolution into the core's TCP config.
Every error names the field, the value and what is accepted."""

from __future__ import annotations

import functools
import json
from typing import Any

from .. import _core, algorithms, pyalgo
from .._json import core_json
from ..errors import ScenarioError
from ._check import _str, by_kind
from .units import fmt_time_ps, parse_buffer, parse_size

# The core's option schema (config/schema.rs): every [tcp] option with its
# resolved field, kind (bounds, values), unit and doc line, in doc order.
SCHEMA: dict[str, dict[str, Any]] = {o["name"]: o for o in json.loads(_core.tcp_options())}
STACKS: list[str] = SCHEMA["stack"]["kind"]["choices"]
# What a flow that names no stack or algorithm runs (config/tcp.rs:
# Stack::default, DEFAULT_CC).
DEFAULT_STACK: str = SCHEMA["stack"]["default"]
DEFAULT_CC: str = SCHEMA["cc"]["default"]
# Options that need the RFC 6675 scoreboard (config/tcp.rs SCOREBOARD_OPTIONS).
SCOREBOARD_OPTIONS = [k for k, o in SCHEMA.items() if o["needs_scoreboard"]]


def as_written(o: dict[str, Any], v: Any) -> Any:
    """A resolved TCP field's value `v` as a scenario writes option `o`
    ('30s' for a time in picoseconds, 'inf' for no limit)."""
    t = o["kind"]["type"]
    if t == "time":
        return fmt_time_ps(v)
    if t == "int_or_inf" and v is None:
        return "inf"
    return v


# The option a resolved TCP field comes from: core field -> schema row.
BY_CORE: dict[str, dict[str, Any]] = {o["core"]: o for o in SCHEMA.values()}


def _defaults_from_core(stack: str, cc: str = DEFAULT_CC) -> dict[str, Any]:
    """The [tcp] options as `stack` sets them, written as a scenario writes
    them, read from the core (`TcpCfg::for_stack` in
    crates/ccsim-core/src/config/tcp.rs, the one place they are written)."""
    core = json.loads(_core.tcp_defaults(stack, cc))
    return {k: as_written(o, core[o["core"]]) for k, o in SCHEMA.items()}


# One line per option, for `ccsim list tcp` and errors (from the schema).
TCP_DOC: dict[str, str] = {k: o["doc"] for k, o in SCHEMA.items()}


@functools.cache
def _ordered_defaults(stack: str, cc: str = DEFAULT_CC) -> dict[str, Any]:
    return _defaults_from_core(stack, cc)


# TCP options as written in a scenario, in documentation order, per stack:
# name -> value. The resolver converts them into the core's TCP config.
STACK_DEFAULTS: dict[str, dict[str, Any]] = {s: _ordered_defaults(s) for s in STACKS}
# The default stack's values.
TCP_DEFAULTS: dict[str, Any] = STACK_DEFAULTS[DEFAULT_STACK]


def for_group(where: str, tcp_sec: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """The core's TCP config of one flow group: the stack's values (the
    group's `stack`, else the [tcp] table's, else the core's default), then the [tcp]
    table's options, then the group's own."""
    if "stack" in group:
        stack = _str(f"{where}.stack", group["stack"], STACKS)
    else:
        stack = _str("tcp.stack", tcp_sec.get("stack", DEFAULT_STACK), STACKS)
    cc_v, cc_f = (group["cc"], f"{where}.cc") if "cc" in group else (tcp_sec.get("cc", DEFAULT_CC), "tcp.cc")
    if pyalgo.is_external(cc_v):
        # a Python algorithm takes the defaults of the built-in that
        # recovers as it does (Tahoe turns SACK off); it needs no ECN
        cc = pyalgo.recovery_of(cc_f, cc_v)
        hooks = pyalgo.has_ack_hooks(cc_f, cc_v)
    else:
        cc = check_algorithm(cc_f, cc_v)
        hooks = algorithms.specs()[cc]["ack_hooks"]
    base = {k: (v, f"tcp.{k} ({stack} stack default)") for k, v in _ordered_defaults(stack, cc).items()}
    opts = merge(where, group, merge("tcp", tcp_sec, base))
    for k in SCOREBOARD_OPTIONS:
        if k not in group and k not in tcp_sec and opts["sack"][0] != "rfc6675":
            # The stack's value applies only where the recovery has the
            # scoreboard it works on (as deserialize_with_stack in config/tcp.rs).
            opts[k] = (False, opts[k][1])
    out = resolve(opts)
    _refuse_inert(where, group, tcp_sec, opts, out)
    _refuse_inert_dupthresh_frac(group, tcp_sec, opts, out)
    # as in _refuse_inert: a [tcp] setting is judged where the group does not name its own algorithm
    if not hooks and ("ack_hooks_first" in group or ("ack_hooks_first" in tcp_sec and "cc" not in group)):
        field = opts["ack_hooks_first"][1]
        raise ScenarioError(
            field,
            message=f"{field} = {_toml(opts['ack_hooks_first'][0])} has no effect with {cc_f} = {cc_v!r}, "
            f"which has neither of the hooks it places ({', '.join(pyalgo.ACK_HOOKS)}); it acts only with an "
            f"algorithm that has them: {', '.join(n for n, a in algorithms.specs().items() if a['ack_hooks'])}, or "
            "a Python algorithm that defines one",
        )
    return out


# Options that act only when another option has a value: written by the user
# where that other option (as resolved for the same flow group, and decided
# at the same level or below) does not have it, they would do nothing, so
# they are refused. A stack's own values are not checked (a stack sets them
# for every flow, whether they act or not).
ACTS_ONLY_WITH: dict[str, tuple[str, Any, str]] = {
    "ecn_response": ("ecn", True, "ecn = true (it is how the sender answers ECN-Echo)"),
    "ts_option_bytes": ("timestamps", True, "timestamps = true (it sizes the timestamp option)"),
    "sack1_stop_at_end": ("sack", "sack1", "sack = 'sack1' (it changes Sack1's send loop)"),
    "ecn_codepoint": ("ecn", True, "ecn = true (it is the codepoint of ECN-capable data)"),
    "ecn_feedback": ("ecn", True, "ecn = true (it is how the receiver echoes CE marks)"),
}


def _toml(v: Any) -> str:
    """A value as a scenario writes it (true, 'sack1', 12)."""
    return json.dumps(v) if isinstance(v, bool) else repr(v)


def _refuse_inert(
    where: str, group: dict[str, Any], tcp_sec: dict[str, Any], opts: dict[str, Any], out: dict[str, Any]
) -> None:
    for k, (needs, value, why) in ACTS_ONLY_WITH.items():
        in_group, in_table = k in group, k in tcp_sec
        # a [tcp] setting is judged here only where the group does not decide the other option itself
        if not (in_group or (in_table and needs not in group)):
            continue
        if out[SCHEMA[needs]["core"]] != value:
            field = opts[k][1]
            raise ScenarioError(
                field,
                message=f"{field} = {_toml(opts[k][0])} has no effect with {needs} = {_toml(opts[needs][0])} "
                f"({opts[needs][1]}); it acts only with {why}",
            )


def _refuse_inert_dupthresh_frac(
    group: dict[str, Any], tcp_sec: dict[str, Any], opts: dict[str, Any], out: dict[str, Any]
) -> None:
    """`dupthresh_frac` acts two ways (`Conn::dupthresh`, `Conn::send_window`):
    it raises Sack1's threshold, and under limited transmit it allows one new
    segment per duplicate ACK below the threshold, which differs from RFC
    3042's first two only where the threshold exceeds 3. Written where
    neither can happen, it is refused (a [tcp] setting judged as in
    `_refuse_inert`, where the group decides none of the three itself)."""
    k, deps = "dupthresh_frac", ("sack", "limited_transmit", "dupthresh")
    if not (k in group or (k in tcp_sec and not any(d in group for d in deps))) or out[k] == 0:
        return
    if out["sack"] == "sack1" or (out["limited_transmit"] and out["dupthresh"] > 3):
        return
    field = opts[k][1]
    said = ", ".join(f"{d} = {_toml(opts[d][0])} ({opts[d][1]})" for d in deps)
    raise ScenarioError(
        field,
        message=f"{field} = {_toml(opts[k][0])} has no effect with {said}; it acts only with sack = 'sack1', "
        "or with limited_transmit = true and dupthresh > 3",
    )


def check_algorithm(field: str, v: Any) -> str:
    """A built-in algorithm's name; the error also lists the Python
    algorithms registered and the 'py:MODULE:CLASS' form."""
    names = list(_core.algorithms())
    if isinstance(v, str) and v in names:
        return v
    accepted = names + list(pyalgo.registered())
    if isinstance(v, str):
        msg = f"{field}: got {v!r}; expected one of {', '.join(repr(c) for c in accepted)}, or 'py:MODULE:CLASS' for an algorithm in Python"
        from ..errors import suggest

        raise ScenarioError(field, message=msg + suggest(v, accepted))
    return _str(field, v, accepted)


def merge(where: str, d: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """Overlay options `d` (written at `where`) on `base`, a mapping of
    option -> (raw value, field it came from)."""
    out = dict(base)
    for k, v in d.items():
        out[k] = (v, f"{where}.{k}")
    return out


def resolve(opts: dict[str, Any]) -> dict[str, Any]:
    """Turn option -> (raw value, field) into the core's TCP config: each
    value checked and converted by its kind in the core's schema, then the
    rules between options applied by the core (`_core.check_tcp`), every
    error naming the field as the user wrote it."""
    out: dict[str, Any] = {}
    for k, (v, f) in opts.items():
        o = SCHEMA.get(k)
        if o is None:
            continue  # not a TCP option: the flow group's own keys, checked by its parser
        kind, core = o["kind"], o["core"]
        if kind["type"] == "algorithm":
            if pyalgo.is_external(v):
                out[core], out["cc_external"] = pyalgo.resolve(f, v)
            else:
                out[core] = check_algorithm(f, v)
        elif kind["type"] not in ("preset", "params", "window"):
            out[core] = by_kind(f, v, kind)
        # preset, params and window: below, once cc and mss are known
    (pv, pf), (mv, mf) = opts["cc_preset"], opts["cc_params"]
    if "cc_external" in out:
        out["cc_preset"], out["cc_params"] = pyalgo.check_params(out["cc_external"], pv, pf, mv, mf)
    else:
        out["cc_preset"], out["cc_params"] = algorithms.check(out["cc"], pv, pf, mv, mf)
    v, f = opts["rwnd"]
    if v is None or v == "none":
        out["rwnd_bytes"] = None
    elif isinstance(v, str) and v.strip().endswith(("pkt", "pkts")):
        out["rwnd_bytes"] = int(parse_buffer(f, v).amount) * out["mss"]
    else:
        out["rwnd_bytes"] = parse_size(f, v)
    broken = _core.check_tcp(json.dumps(out))
    if broken is not None:
        k, _, expected = broken
        raise ScenarioError(opts[k][1], opts[k][0], expected)
    return out


def wire_bytes(tcp: dict[str, Any], header_bytes: int | None = None) -> int:
    """Bytes of a full-sized data packet of a resolved TCP configuration, by
    the core's rule (`TcpCfg::packet_bytes`: mss, headers, options); with
    `header_bytes`, for those headers instead of the configuration's."""
    if header_bytes is not None:
        tcp = {**tcp, "header_bytes": header_bytes}
    return _core.packet_bytes(core_json(tcp))
