"""Named traffic mixes: lists of flow groups to put beside the flows under
study in a dumbbell-like scenario (``flows = [*my_flows, *background_mix(...)]``).

``background_mix`` is the background of the high-speed TCP studies of the
early 2000s (Xu, Harfoush & Rhee 2004, BI-TCP; Choi, Lee, Cho & Han 2004,
pacing), written for ns-2: web sessions, "small" TCP flows whose window is
capped, and long-lived TCP flows, each with random round-trip times and start
times so that no two flows are in phase (Floyd & Kohler, "Internet research
needs better models", CCR 2003).
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError
from .traffic import APP_SCHEMA
from .units import PS_PER_S, parse_rate, parse_time

# ns-2's PagePool/WebTraf example object, mean in segments: app = "web"'s
# default size (the core's app_schema.rs WEB_SIZE_MEAN_SEGMENTS)
WEB_OBJECT_SEGMENTS: float = APP_SCHEMA["web"]["defaults"]["size"]["mean_segments"]


def web_sessions(
    rate_bps: float, share: float, mss: int, think_s: float, object_segments: float = WEB_OBJECT_SEGMENTS
) -> int:
    """Web sessions whose nominal load is `share` of `rate_bps`: one session
    offers one object (mean `object_segments` · mss bytes) per mean think
    time. The transfer time is left out, so the load a run measures is
    lower; `background_mix`'s users should report the measured share."""
    per = object_segments * mss * 8 / think_s
    return max(1, round(share * rate_bps / per))


def _span(field: str, v: Any) -> dict[str, Any]:
    if not (isinstance(v, (list, tuple)) and len(v) == 2):
        raise ScenarioError(field, v, "a pair (low, high) of times such as ('20ms', '100ms')")
    lo, hi = parse_time(f"{field}[0]", v[0]), parse_time(f"{field}[1]", v[1])
    if hi < lo:
        raise ScenarioError(field, v, "low ≤ high")
    return {"dist": "uniform", "min": v[0], "max": v[1]}


def background_mix(
    rate: str | float,
    *,
    web_share: float = 0.3,
    web_think: str = "1s",
    small: int = 25,
    small_cwnd: int = 64,
    long_lived: int = 4,
    both_ways: bool = True,
    rtt: tuple[Any, ...] = ("20ms", "100ms"),
    start: tuple[Any, ...] = ("0s", "10s"),
    mss: int = 1000,
    tcp: dict[str, Any] | None = None,
    web_rtt_classes: int = 0,
) -> list[dict[str, Any]]:
    """Flow groups of a background mix on a dumbbell whose bottleneck runs at
    `rate` ('2.5Gbps' or bit/s):

    - ``web``: web sessions (app 'web': Pareto II objects of mean 12 segments,
      shape 1.2; exponential think time `web_think`; a new connection per
      object), as many as make a nominal `web_share` of `rate`
      (:func:`web_sessions`); they start uniformly within the first think
      time;
    - ``small``: `small` bulk TCP flows whose cwnd is capped at `small_cwnd`
      segments (ns-2 ``maxcwnd_``);
    - ``long``: `long_lived` bulk TCP flows.

    Every flow draws its RTT uniformly from `rtt` and (small and long flows)
    its start uniformly from `start`. With `both_ways` each group has a twin
    in the reverse direction, labelled ``web_rev``, ``small_rev``,
    ``long_rev``. `tcp` holds TCP options given to every group (e.g.
    ``{'cc': 'newreno', 'sack': 'sack1'}``); `mss` sizes the web load and
    should match the scenario's. Groups with a count of 0 are left out.

    With `web_rtt_classes` = n > 0 the web sessions take their RTTs from n
    classes instead (the centres of n equal parts of `rtt`, as many
    sessions in each as can be: ``rtt = {cycle = [...]}``) and the
    sessions of a class share one access-link pair (``access = 'shared'``),
    as the web-traffic set-ups of ns-2 attach many sessions to one client
    node: 4n link directions per web group instead of four per session.
    Small and long-lived flows keep their own draws and links."""
    rate_bps = parse_rate("background_mix.rate", rate) if isinstance(rate, str) else float(rate)
    if not 0 <= web_share < 1:
        raise ScenarioError("background_mix.web_share", web_share, "a fraction in [0, 1)")
    for name, v in (("small", small), ("long_lived", long_lived), ("small_cwnd", small_cwnd), ("mss", mss)):
        if not isinstance(v, int) or v < (1 if name in ("small_cwnd", "mss") else 0):
            raise ScenarioError(
                f"background_mix.{name}",
                v,
                "a whole number ≥ 0" if name in ("small", "long_lived") else "a whole number ≥ 1",
            )
    if isinstance(web_rtt_classes, bool) or not isinstance(web_rtt_classes, int) or web_rtt_classes < 0:
        raise ScenarioError("background_mix.web_rtt_classes", web_rtt_classes, "a whole number ≥ 0 (0: no classes)")
    think_s = parse_time("background_mix.web_think", web_think, allow_zero=False) / PS_PER_S
    rtt_d = _span("background_mix.rtt", rtt)
    web_where: dict[str, Any] = {"rtt": rtt_d}
    if web_rtt_classes:
        lo, hi = (parse_time(f"background_mix.rtt[{k}]", rtt[k]) for k in (0, 1))
        n = web_rtt_classes
        centres = [(lo + (k + 0.5) * (hi - lo) / n) / 1e9 for k in range(n)]
        web_where = {"rtt": {"cycle": [f"{round(c, 6):g}ms" for c in centres]}, "access": "shared"}
    start_d = _span("background_mix.start", start)
    opts = dict(tcp or {})
    groups: list[dict[str, Any]] = []
    dirs = ["forward", "reverse"] if both_ways else ["forward"]
    n_web = web_sessions(rate_bps, web_share, mss, think_s) if web_share > 0 else 0
    for d in dirs:
        suf = "" if d == "forward" else "_rev"
        if n_web:
            groups.append(
                {
                    "label": f"web{suf}",
                    "count": n_web,
                    "direction": d,
                    "app": "web",
                    "think": web_think,
                    **web_where,
                    "start": {"dist": "uniform", "min": "0s", "max": web_think},
                    **opts,
                }
            )
        if small:
            groups.append(
                {
                    "label": f"small{suf}",
                    "count": small,
                    "direction": d,
                    "max_cwnd": small_cwnd,
                    "rtt": rtt_d,
                    "start": start_d,
                    **opts,
                }
            )
        if long_lived:
            groups.append(
                {"label": f"long{suf}", "count": long_lived, "direction": d, "rtt": rtt_d, "start": start_d, **opts}
            )
    return groups


def mix_summary(groups: list[dict[str, Any]]) -> str:
    """One line naming each group and its count."""
    return ", ".join(f"{g['label']} × {g['count']}" for g in groups) if groups else "none"


__all__ = ["background_mix", "web_sessions", "mix_summary", "WEB_OBJECT_SEGMENTS"]
