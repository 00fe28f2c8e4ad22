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

from typing import Any

import numpy as np

from ._check import _bool, _check_keys, _int, _str
from .errors import ScenarioError
from .netmodels import check_min_period, dist
from .units import PS_PER_S, parse_rate, parse_size, parse_time

MIN_CBR_GAP_PS = 1_000  # 1 ns between a CBR source's packets (8 Tb/s of 1000-byte packets)

APP_KINDS = ["bulk", "file", "onoff", "schedule", "repeat", "web", "cbr"]
# app -> {key: meaning}; every key is written in the flow group itself.
APP_DOC: dict[str, dict[str, str]] = {
    "bulk": {},
    "file": {"size": "bytes to transfer ('100KB'); the flow's FCT is recorded"},
    "onoff": {
        "on": "ON period: a time ('10s', exponential with that mean unless durations = 'fixed') or a distribution table",
        "off": "OFF period, as 'on'",
        "durations": "'exponential' (default) or 'fixed' for plain times",
        "start_off": "begin in an OFF period (default false)",
    },
    "schedule": {
        "on": "list of ON intervals [[start, end], ...], e.g. [['250s', '500s'], ['750s', '1000s']]; OFF elsewhere"
    },
    "repeat": {
        "size": "size of each transfer: a size ('50KB', fixed) or a distribution table of sizes",
        "think": "pause after a transfer completes before the next: a time (exponential mean) or a distribution (default 0s)",
        "transfers": "most transfers per flow (default: until the end)",
    },
    "web": {
        "size": "object size; default Pareto II mean 12 segments, shape 1.2 (ns-2 PagePool/WebTraf example)",
        "think": "time from the end of one object to the next; default exponential mean 15s (ns-2 WebTraf interPage)",
        "transfers": "most objects per session (default: until the end)",
    },
    "cbr": {
        "rate": "sending rate while ON ('64kbps')",
        "packet_size": "bytes per packet on the wire (default '1000B')",
        "random": "ns-2 CBR random_: each gap scaled by U[0.5, 1.5) (default false)",
        "on": "ON period (time or distribution) for an ON-OFF source; none = always on",
        "off": "OFF period, given with 'on'",
        "durations": "'exponential' (default) or 'fixed' for plain on/off times",
        "stop": "time the source stops (default: end of run)",
    },
}
APP_KEYS = {k for d in APP_DOC.values() for k in d}


def _plain(where: str, g: dict) -> str:
    return _str(f"{where}.durations", g.get("durations", "exponential"), ["fixed", "exponential"])


def app(where: str, g: dict, mss: int) -> dict:
    """The application of flow group `g`: the core's app table for TCP
    flows, or {'kind': 'udp', ...} for a UDP source."""
    kind = _str(f"{where}.app", g.get("app", "bulk"), APP_KINDS)
    for k in APP_KEYS:
        if k in g and k not in APP_DOC[kind]:
            owners = [a for a in APP_KINDS if k in APP_DOC[a]]
            raise ScenarioError(
                f"{where}.{k}",
                message=(
                    f"{where}.{k}: not an option of app = '{kind}'; it belongs to app = {', '.join(repr(a) for a in owners)}"
                ),
            )

    def need(k: str) -> None:
        if k not in g:
            raise ScenarioError(
                f"{where}.{k}", message=f"{where}.{k}: missing; app = '{kind}' needs {k} ({APP_DOC[kind][k]})"
            )

    if kind == "bulk":
        return {"kind": "bulk"}
    if kind == "file":
        need("size")
        return {"kind": "file", "bytes": parse_size(f"{where}.size", g["size"])}
    if kind == "onoff":
        need("on")
        need("off")
        return {
            "kind": "on_off",
            **_on_off(where, g),
            "start_off": _bool(f"{where}.start_off", g.get("start_off", False)),
        }
    if kind == "schedule":
        need("on")
        iv = g["on"]
        if not isinstance(iv, list) or not iv:
            raise ScenarioError(f"{where}.on", iv, "a non-empty list of [start, end] intervals")
        intervals: list[list[int]] = []
        for i, pair in enumerate(iv):
            f = f"{where}.on[{i}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise ScenarioError(f, pair, "a pair [start, end] such as ['250s', '500s']")
            a, b = parse_time(f"{f}[0]", pair[0]), parse_time(f"{f}[1]", pair[1])
            if b <= a:
                raise ScenarioError(f, pair, "an interval whose end is after its start")
            if intervals and a < intervals[-1][1]:
                raise ScenarioError(f, pair, "intervals in increasing order, not overlapping")
            intervals.append([a, b])
        return {"kind": "schedule", "on": intervals}
    if kind in ("repeat", "web"):
        if kind == "repeat":
            need("size")
            size = dist(f"{where}.size", g["size"], "size", positive=True)
        else:
            size = (
                dist(f"{where}.size", g["size"], "size", positive=True)
                if "size" in g
                else {"kind": "pareto2", "mean": 12.0 * mss, "shape": 1.2}
            )
        think_default = "0s" if kind == "repeat" else "15s"
        think = dist(f"{where}.think", g.get("think", think_default), "time", plain="exponential")
        if think["kind"] == "exponential" and think["mean"] == 0:
            think = {"kind": "fixed", "value": 0.0}
        count = _int(f"{where}.transfers", g["transfers"], lo=1) if "transfers" in g else None
        return {"kind": "repeat", "size": size, "think": think, "count": count}
    # cbr
    need("rate")
    rate = parse_rate(f"{where}.rate", g["rate"])
    out: dict[str, Any] = {
        "kind": "udp",
        "rate_bps": rate,
        "size": parse_size(f"{where}.packet_size", g.get("packet_size", "1000B")),
        "random": _bool(f"{where}.random", g.get("random", False)),
        "on": None,
        "off": None,
        "stop_ps": None,
    }
    if out["size"] > 65535:
        raise ScenarioError(f"{where}.packet_size", g["packet_size"], "at most 65535 bytes")
    if out["size"] * 8 * PS_PER_S < MIN_CBR_GAP_PS * rate:
        # one event per packet: a picosecond gap is 10^12 events per simulated second
        raise ScenarioError(
            f"{where}.rate",
            g["rate"],
            f"a rate that leaves at least 1 ns between packets (at most {out['size'] * 8} Gb/s "
            f"for {out['size']}-byte packets)",
        )
    if ("on" in g) != ("off" in g):
        missing = f"{where}.{'off' if 'on' in g else 'on'}"
        raise ScenarioError(
            missing,
            message=(f"{missing}: missing; an ON-OFF source needs both 'on' and 'off' (neither for constant bit rate)"),
        )
    if "on" in g:
        out.update(_on_off(where, g))
    if "stop" in g:
        out["stop_ps"] = parse_time(f"{where}.stop", g["stop"], allow_zero=False)
    return out


def _on_off(where: str, g: dict) -> dict:
    """The ON and OFF period distributions of an ON-OFF source (TCP or CBR),
    each with a mean of at least MIN_STATE_PS."""
    p = _plain(where, g)
    out = {}
    for k in ("on", "off"):
        out[k] = dist(f"{where}.{k}", g[k], "time", plain=p, positive=True)
        check_min_period(f"{where}.{k}", g[k], out[k])
    return out


def sample(d: dict, rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` draws of a resolved distribution (see netmodels.dist)."""
    k = d["kind"]
    u = rng.random(n)
    if k == "fixed":
        return np.full(n, d["value"])
    if k == "exponential":
        return -d["mean"] * np.log1p(-u)
    if k == "pareto":
        a = d["shape"]
        return d["mean"] * (a - 1) / a * (1 - u) ** (-1 / a)
    if k == "pareto2":
        a = d["shape"]
        return d["mean"] * (a - 1) * ((1 - u) ** (-1 / a) - 1)
    return d["min"] + (d["max"] - d["min"]) * u


def per_flow_times(field: str, v, count: int, rng: np.random.Generator, *, allow_zero: bool = True) -> list[int]:
    """Times for each of `count` flows: one time for all ('10ms'), a
    distribution table drawn per flow ({dist = 'uniform', min = ..., max =
    ...}), or {spread = [a, b]}: evenly spaced from a to b (flow j gets
    a + j·(b − a)/(count − 1))."""
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
