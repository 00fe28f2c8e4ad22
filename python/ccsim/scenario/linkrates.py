"""A link direction's rate as a scenario writes it: a fixed rate ("10Mbps"),
a piecewise-constant schedule ([[0, "50Mbps"], ["10s", "10Mbps"], ...],
rate 0 for an outage) or a mahimahi packet-delivery trace (a file path).
The core owns the trace format (`_core.load_trace` parses and checks it);
this module turns what the user wrote into the core's link fields and
names the user's field in every error."""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _core
from ..errors import ScenarioError
from ._check import max_file_bytes
from .units import parse_rate, parse_time

# Directory that relative trace paths are taken from while a scenario is
# resolved: the scenario file's, or the working directory.
BASE_DIR: contextvars.ContextVar[Path | None] = contextvars.ContextVar("ccsim_trace_base_dir", default=None)


@dataclass(frozen=True)
class LinkRate:
    """A direction's nominal capacity (b/s: a trace's mean, a schedule's
    rate at time 0) and, when it varies, the core's `varying` field."""

    bps: int
    varying: dict[str, Any] | None = None


def parse_schedule(field: str, value: list[Any]) -> LinkRate:
    """[[time, rate], ...] with units as the scenario writes them; the
    schedule's rules (first step at 0, times increasing, outages that
    begin after the start and end) are the core's (`_core.check_schedule`),
    reported here at the step and part the user wrote."""
    steps: list[list[int]] = []
    for k, item in enumerate(value):
        w = f"{field}[{k}]"
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ScenarioError(w, item, 'a pair [time, rate], e.g. ["10s", "10Mbps"]')
        t = 0 if item[0] == 0 and not isinstance(item[0], bool) else parse_time(f"{w}[0]", item[0])
        r = 0 if item[1] == 0 and not isinstance(item[1], bool) else parse_rate(f"{w}[1]", item[1], allow_zero=True)
        steps.append([t, r])
    broken = _core.check_schedule(json.dumps(steps))
    if broken is not None:
        step, part, expected = broken
        if step is None:
            raise ScenarioError(field, value, expected)
        raise ScenarioError(f"{field}[{step}][{part}]", value[step][part], expected)
    return LinkRate(steps[0][1], {"kind": "schedule", "steps": steps})


def load_trace(field: str, path: Any, offset: Any, offset_field: str) -> LinkRate:
    """A mahimahi trace file: checked by the core (the file, the line and
    the value in every error), hashed for the run's identity."""
    if not isinstance(path, str) or not path.strip():
        raise ScenarioError(field, path, "the path of a mahimahi trace file (one millisecond timestamp per line)")
    p = Path(path).expanduser()
    if not p.is_absolute():
        p = (BASE_DIR.get() or Path.cwd()) / p
    limit = max_file_bytes()
    try:
        st = os.stat(p)
    except OSError as e:
        raise ScenarioError(field, message=f"{field}: cannot read trace {p}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        # checked before anything opens it: a FIFO blocks, /dev/zero never ends
        raise ScenarioError(
            field, message=f"{field}: {p} is not a regular file; expected a mahimahi trace (a text file)"
        )
    size = st.st_size
    if size > limit:
        raise ScenarioError(
            field,
            message=f"{field}: trace {p} has {size} bytes, more than the limit of {limit} (CCSIM_MAX_FILE_BYTES)",
        )
    try:
        _n, _period_ms, mean_bps = _core.load_trace(str(p))
    except ValueError as e:
        raise ScenarioError(field, message=f"{field}: {e}") from None
    sha = hashlib.sha256(p.read_bytes()).hexdigest()
    off = 0 if offset is None else parse_time(offset_field, offset)
    return LinkRate(mean_bps, {"kind": "trace", "path": str(p.resolve()), "offset_ps": off, "sha256": sha})


def parse_link_rate(
    t: dict[str, Any], where: str, rate_key: str, trace_key: str | None = None, *, default: LinkRate | None = None
) -> LinkRate:
    """The rate of one direction from the keys `rate_key` (a rate or a
    schedule) and `trace_key` (a trace path, with `<trace_key>_offset`);
    `default` when neither is given (a reverse direction follows its forward
    one), else `rate_key` is required."""
    if trace_key is not None and trace_key in t:
        if rate_key in t:
            raise ScenarioError(
                f"{where}.{trace_key}",
                message=f"{where}.{trace_key}: a trace sets the rate; give {rate_key} or {trace_key}, not both",
            )
        return load_trace(
            f"{where}.{trace_key}", t[trace_key], t.get(f"{trace_key}_offset"), f"{where}.{trace_key}_offset"
        )
    if trace_key is not None and f"{trace_key}_offset" in t:
        raise ScenarioError(
            f"{where}.{trace_key}_offset", message=f"{where}.{trace_key}_offset: given without {where}.{trace_key}"
        )
    if rate_key not in t:
        if default is not None:
            return default
        alt = f" (or {where}.{trace_key}, a mahimahi trace)" if trace_key else ""
        raise ScenarioError(
            f"{where}.{rate_key}", message=f"{where}.{rate_key}: missing; expected a rate such as '10Mbps'{alt}"
        )
    v = t[rate_key]
    if isinstance(v, list):
        return parse_schedule(f"{where}.{rate_key}", v)
    return LinkRate(parse_rate(f"{where}.{rate_key}", v))
