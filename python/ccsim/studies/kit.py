"""What the studies share beyond `base.py`'s report machinery: the variants
a study compares (`Variant`: what it changes over the study's `[tcp]`
table, and how figures and reports name and colour it), typed plans per
mode (`Plan`), measures over a whole campaign (`window_goodput`), and
packet sizes derived from a study's own `[tcp]` table
(its stack's defaults, then its options) rather than written by hand, so a
study that changes its MSS, turns timestamps off or moves to another stack
cannot keep a stale "+ 12"."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..scenario.tcp_options import for_group, wire_bytes

if TYPE_CHECKING:
    import polars as pl

    from ..experiments.campaign import Campaign


@dataclass(frozen=True)
class Variant:
    """One of the things a study compares: a TCP variant (or a set-up of
    one), with everything the study's scenarios, checks and figures need to
    know about it in one place."""

    key: str  # the flow label and campaign value
    name: str  # as figures and reports print it
    color: str  # matplotlib colour of its lines and bars
    tcp: Mapping[str, Any] = field(default_factory=dict)  # options over the study's [tcp] table
    base: str | None = None  # the variant this one modifies (a paced variant's unpaced one)
    ls: str = "-"  # matplotlib line style


def variants(*vs: Variant) -> dict[str, Variant]:
    """A study's variants by key, in the order given (tables and legends
    follow it)."""
    out = {v.key: v for v in vs}
    if len(out) != len(vs):
        raise ValueError(f"variant keys repeat: {[v.key for v in vs]}")
    for v in vs:
        if v.base is not None and v.base not in out:
            raise ValueError(f"variant {v.key}: base {v.base!r} is not a variant")
    return out


def sweep_zip(vs: Any, *, label: str = "flows[0].label", options: str = "flows[0].") -> dict[str, list[Any]]:
    """The sweep parameters that run each of the variants `vs` (in order):
    its key as the flow label, and each TCP option it sets under the prefix
    `options` ("flows[0]." for one flow group's options, "tcp." for the
    scenario's table). Every variant must set the same options."""
    vs = list(vs)
    keys = list(vs[0].tcp)
    if any(list(v.tcp) != keys for v in vs):
        raise ValueError(f"variants {[v.key for v in vs]} set different options; a zipped sweep needs the same ones")
    return {label: [v.key for v in vs], **{options + k: [v.tcp[k] for v in vs] for k in keys}}


@dataclass(frozen=True)
class Plan:
    """What one mode of a study runs. Each study subclasses it with its own
    knobs (durations, sweep values) as typed fields, so a misspelt knob is
    an AttributeError where it is read, not a KeyError at the end of a run,
    and one instance per mode says everything that mode shortens."""

    describe: str  # what the mode shortens, in words (the report's "mode" line)
    seeds: list[int]
    # A "points" plan runs the paper's size for some claims only: the claims
    # it judges and the experiments they read (None: every one).
    claims: tuple[str, ...] | None = field(default=None, kw_only=True)
    experiments: tuple[str, ...] | None = field(default=None, kw_only=True)


def full_packet_bytes(tcp: dict[str, Any]) -> int:
    """Bytes on the wire of a full-sized data segment under the `[tcp]`
    table `tcp` as a scenario writes it: MSS + TCP/IP header + the
    timestamp option when it is on (`tcp_options.wire_bytes`)."""
    return wire_bytes(for_group("tcp", tcp, {}))


def payload_share(tcp: dict[str, Any]) -> float:
    """The share of a full-sized data packet that is payload: MSS over
    `full_packet_bytes` (what a saturated link's goodput is at most, as a
    fraction of its rate)."""
    t = for_group("tcp", tcp, {})
    return float(t["mss"] / wire_bytes(t))


def window_goodput(
    c: Campaign, t0: float, t1: float, *, by: str = "flow", where: str = "TRUE", name: str = "gp"
) -> pl.DataFrame:
    """Goodput (bit/s) over the window (t0, t1] of every run of campaign
    `c`, from the sampled delivered bytes (`flow_series`): per flow, the
    bytes delivered at its last sample at or before t1 less those at its
    last sample at or before t0 (0 before its first), · 8 / (t1 − t0).

    `by` groups the flows (summing their goodputs): "flow" (the default), or
    an SQL expression over the flows table `f` (its `label`, `id`) giving a
    class, such as "f.label". `where` selects samples of `flow_series`
    (e.g. "flow = 0"). A flow has a row when it has a sample at or before
    t1. Returns run_id, `by` (as "flow" or "cls") and `name`."""
    key = "flow" if by == "flow" else "cls"
    group = "p.flow" if by == "flow" else by
    span = t1 - t0
    return c.query(
        "WITH p AS (SELECT run_id, flow, "
        f"max(delivered_bytes) FILTER (WHERE time_s <= {t1} + 1e-9) AS d1, "
        f"coalesce(max(delivered_bytes) FILTER (WHERE time_s <= {t0} + 1e-9), 0) AS d0 "
        f"FROM flow_series WHERE {where} GROUP BY run_id, flow HAVING d1 IS NOT NULL) "
        f"SELECT p.run_id, {group} AS {key}, sum(p.d1 - p.d0)::DOUBLE * 8.0 / {span} AS {name} "
        "FROM p JOIN flows f ON f.run_id = p.run_id AND f.id = p.flow GROUP BY ALL ORDER BY ALL"
    )


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (scipy.stats.spearmanr: tied values share
    their mean rank); NaN with fewer than two points or a constant series."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's τ of two equally long sequences (scipy.stats.kendalltau, τ-b:
    equal to τ-a when neither has ties, and corrected for ties otherwise);
    NaN with fewer than two points."""
    if len(x) < 2:
        return math.nan
    from scipy.stats import kendalltau

    return float(kendalltau(x, y).statistic)
