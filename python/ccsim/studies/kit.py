"""What the studies share beyond `base.py`'s report machinery. First piece:
packet sizes derived from a study's own `[tcp]` table (its stack's
defaults, then its options) rather than written by hand, so a study that
changes its MSS, turns timestamps off or moves to another stack cannot
keep a stale "+ 12"."""

from __future__ import annotations

from dataclasses import dataclass

from ..tcp_options import for_group, wire_bytes


@dataclass(frozen=True)
class Plan:
    """What one mode of a study runs. Each study subclasses it with its own
    knobs (durations, sweep values) as typed fields, so a misspelt knob is
    an AttributeError where it is read, not a KeyError at the end of a run,
    and one instance per mode says everything that mode shortens."""

    describe: str  # what the mode shortens, in words (the report's "mode" line)
    seeds: list[int]


def plan_value(plan, key: str, default=None):
    """A knob of a plan, typed (`Plan`) or, for the studies not moved yet,
    a mapping."""
    return plan.get(key, default) if isinstance(plan, dict) else getattr(plan, key, default)


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
