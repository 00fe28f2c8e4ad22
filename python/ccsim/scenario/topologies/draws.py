"""Random fragments of a topology for the fuzz generator (tools/fuzz.py):
rates, loss models, rate schedules and trace-driven links. Each kind's
`fuzz` draws its topology from these, in a fixed order, so a seed gives the
same cases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


def rate(rng: np.random.Generator) -> str:
    return f"{int(rng.choice([1, 2, 5, 10, 20, 50, 100]))}Mbps"


def loss(rng: np.random.Generator) -> dict[str, Any] | None:
    k = rng.choice(["none", "none", "bernoulli", "gilbert", "ber", "two_state"])
    if k == "two_state":
        return {
            "kind": "two_state",
            "good": str(rng.choice(["50ms", "300ms"])),
            "bad": str(rng.choice(["5ms", "30ms"])),
            "loss_bad": 0.3,
            "durations": str(rng.choice(["fixed", "exponential"])),
        }
    if k == "bernoulli":
        return {"kind": "bernoulli", "p": float(rng.choice([0.001, 0.01, 0.05]))}
    if k == "gilbert":
        return {"kind": "gilbert", "p": 0.01, "r": 0.3, "loss_bad": 0.5}
    if k == "ber":
        return {"kind": "ber", "ber": 1e-6}
    return None


def rate_or_schedule(rng: np.random.Generator) -> str | list[Any]:
    """A fixed rate, or (15 %) a schedule with a step and an outage."""
    if rng.random() < 0.85:
        return rate(rng)
    return [[0, rate(rng)], ["300ms", 0], ["400ms", rate(rng)]]


def with_trace(rng: np.random.Generator, topo: dict[str, Any], rate_key: str, traces: list[str]) -> None:
    """Replace the link's rate by a trace (12 %), with an offset into it
    and (half the time) a reverse trace; one in six of those names a path
    that is no trace (`odd_trace_files`, when the traces include them)."""
    if not traces or rng.random() >= 0.12:
        return
    regular = [t for t in traces if t.endswith(".trace") and not t.endswith("fifo.trace")]
    odd = [t for t in traces if t not in regular]
    del topo[rate_key]
    topo["trace"] = str(rng.choice(odd if odd and rng.random() < 1 / 6 else regular))
    traces = regular
    if rng.random() < 0.5:
        topo["trace_offset"] = str(rng.choice(["0s", "250ms", "5s"]))
    if rng.random() < 0.5:
        topo["reverse_trace"] = str(rng.choice(traces))


def with_loss(rng: np.random.Generator, topo: dict[str, Any]) -> None:
    """A loss model on the topology's loss key, when one is drawn."""
    drawn = loss(rng)
    if drawn:
        topo["loss"] = drawn
