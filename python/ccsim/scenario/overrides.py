"""Dotted-path overrides of a scenario mapping: ``tcp.cc``, ``topology.buffer``,
``flows[0].count``, ``flows[*].start`` (every flow group), ``sim.seed``.

Used by ``ccsim run --set PATH=VALUE`` and by sweep axes; the result is
validated like any scenario file, so a bad value is reported with the field it
lands in.
"""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any

from ..errors import ScenarioError

_SEG = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(\*|[0-9]+)\])?")
# The deepest path a scenario has is a handful of keys
# (topology.links[0].queue.kind); a longer one is a mistake, and thousands of
# levels would exhaust Python's recursion when the mapping is copied.
MAX_PATH_PARTS = 16


def parse_path(path: str) -> list[tuple[str, str | None]]:
    """'flows[0].count' -> [('flows', '0'), ('count', None)]."""
    if not isinstance(path, str) or not path:
        raise ScenarioError("path", path, "a dotted scenario path such as 'tcp.cc' or 'flows[0].count'")
    parts = path.split(".")
    if len(parts) > MAX_PATH_PARTS:
        raise ScenarioError(
            path[:60] + "…",
            message=f"{path[:60]}…: a scenario path of {len(parts)} parts; expected at most {MAX_PATH_PARTS}",
        )
    segs = []
    for part in parts:
        m = _SEG.fullmatch(part)
        if not m:
            raise ScenarioError(
                path,
                message=(
                    f"{path}: not a scenario path; expected dotted keys such as 'tcp.cc', 'topology.buffer', "
                    f"'flows[0].count' or 'flows[*].start'"
                ),
            )
        segs.append((m.group(1), m.group(2)))
    return segs


def set_path(raw: dict[str, Any], path: str, value: Any) -> None:
    """Set `path` to `value` in the scenario mapping `raw` (in place). Missing
    tables on the way are created; a list must be indexed ('flows[0]' or
    'flows[*]')."""
    segs = parse_path(path)
    targets = [raw]
    walked = ""
    for i, (key, idx) in enumerate(segs):
        last = i == len(segs) - 1
        walked = f"{walked}.{key}" if walked else key
        nxt = []
        for t in targets:
            if not isinstance(t, dict):
                raise ScenarioError(
                    path,
                    message=f"{path}: {walked.rsplit('.', 1)[0]} is {t!r}, not a table; cannot set {key} inside it",
                )
            if idx is None:
                if last:
                    t[key] = copy.deepcopy(value)
                    continue
                if isinstance(t.get(key), list):
                    raise ScenarioError(
                        path,
                        message=(
                            f"{path}: {walked} is a list; index it, e.g. '{walked}[0]' or '{walked}[*]' for every entry"
                        ),
                    )
                nxt.append(t.setdefault(key, {}))
                continue
            lst = t.get(key)
            if not isinstance(lst, list):
                raise ScenarioError(path, message=f"{path}: {walked} is not a list (it is {lst!r}); drop the [{idx}]")
            if idx == "*":
                items = range(len(lst))
            else:
                j = int(idx)
                if j >= len(lst):
                    raise ScenarioError(
                        path, message=f"{path}: {walked} has {len(lst)} entries; index {j} does not exist"
                    )
                items = range(j, j + 1)
            for j in items:
                if last:
                    lst[j] = copy.deepcopy(value)
                else:
                    nxt.append(lst[j])
            walked = f"{walked}[{idx}]"
        targets = nxt


def without_path(raw: dict[str, Any], path: str) -> dict[str, Any] | None:
    """A copy of `raw` with the key `path` names removed (a plain dotted
    path of tables, e.g. 'tcp.cc'); None when it is not there."""
    out = copy.deepcopy(raw)
    t: Any = out
    segs = parse_path(path)
    for key, idx in segs[:-1]:
        if idx is not None or not isinstance(t, dict) or not isinstance(t.get(key), dict):
            return None
        t = t[key]
    key, idx = segs[-1]
    if idx is not None or not isinstance(t, dict) or key not in t:
        return None
    del t[key]
    return out


def parse_assignment(text: str) -> tuple[str, Any]:
    """'tcp.cc=cubic' -> ('tcp.cc', 'cubic'). The value is read as a TOML
    value (numbers, true/false, "strings", [arrays], {inline tables}); a bare
    word that is not TOML is taken as a string, so 'tcp.cc=cubic' and
    'topology.buffer=2bdp' need no quotes."""
    if "=" not in text:
        raise ScenarioError("--set", text, "PATH=VALUE, e.g. tcp.cc=cubic or flows[0].count=4")
    path, _, v = text.partition("=")
    path = path.strip()
    parse_path(path)
    v = v.strip()
    try:
        value = tomllib.loads(f"v = {v}")["v"]
    except tomllib.TOMLDecodeError:
        value = v
    return path, value


def apply(raw: dict[str, Any], assignments: dict[str, Any]) -> dict[str, Any]:
    """A copy of `raw` with every path -> value assignment applied in order."""
    out = copy.deepcopy(raw)
    for p, v in assignments.items():
        set_path(out, p, v)
    return out
