"""What the studies share beyond `base.py`'s report machinery: the variants
a study compares (`Variant`: what it changes over the study's `[tcp]`
table, and how figures and reports name and colour it), typed plans per
mode (`Plan`), and packet sizes derived from a study's own `[tcp]` table
(its stack's defaults, then its options) rather than written by hand, so a
study that changes its MSS, turns timestamps off or moves to another stack
cannot keep a stale "+ 12"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..tcp_options import for_group, wire_bytes


@dataclass(frozen=True)
class Variant:
    """One of the things a study compares: a TCP variant (or a set-up of
    one), with everything the study's scenarios, checks and figures need to
    know about it in one place."""

    key: str  # the flow label and campaign value
    name: str  # as figures and reports print it
    color: str  # matplotlib colour of its lines and bars
    tcp: Mapping = field(default_factory=dict)  # options over the study's [tcp] table
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


def sweep_zip(vs, *, label: str = "flows[0].label", options: str = "flows[0].") -> dict[str, list]:
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


def full_packet_bytes(tcp: dict) -> int:
    """Bytes on the wire of a full-sized data segment under the `[tcp]`
    table `tcp` as a scenario writes it: MSS + TCP/IP header + the
    timestamp option when it is on (`tcp_options.wire_bytes`)."""
    return wire_bytes(for_group("tcp", tcp, {}))


def payload_share(tcp: dict) -> float:
    """The share of a full-sized data packet that is payload: MSS over
    `full_packet_bytes` (what a saturated link's goodput is at most, as a
    fraction of its rate)."""
    t = for_group("tcp", tcp, {})
    return t["mss"] / wire_bytes(t)
