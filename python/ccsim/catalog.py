"""What ccsim knows, as `ccsim list` prints it: congestion-control
algorithms (the core's own table), TCP options with each stack's defaults,
topologies, queue disciplines, loss models, traffic and distributions."""

from __future__ import annotations

from . import _core, algorithms
from .netmodels import (
    CODEL_DOC,
    DIST_DOC,
    DUALPI2_DOC,
    LOSS_DEFAULTS,
    LOSS_DOC,
    PIE_DOC,
    QUEUE_DEFAULTS,
    QUEUE_KINDS,
    RED_DOC,
    with_defaults,
)
from .tcp_options import STACK_DEFAULTS, TCP_DEFAULTS, TCP_DOC
from .topologies import TOPOLOGY_DOC
from .traffic import APP_DOC


def catalog(what: str = "all") -> str:
    """What `ccsim list WHAT` prints: the algorithms, TCP options, topologies,
    queues, loss models and traffic the core knows, with defaults and
    meanings (`what`: cc, tcp, topology, queue, loss, traffic or all)."""
    out: list[str] = []
    say = out.append
    if what == "cc":
        for name in _core.algorithms():
            say(algorithms.describe(name))
    elif what == "all":
        say(f"congestion control: {', '.join(_core.algorithms())} (details: ccsim list cc)")
    if what in ("tcp", "all"):
        say("tcp options (linux stack default; [ns2 stack value] where it differs):")
        for k, v in TCP_DEFAULTS.items():
            w = STACK_DEFAULTS["ns2"][k]
            alt = f" [ns2: {w!r}]" if w != v and k != "stack" else ""
            say(f"  {k} = {v!r}{alt}: {TCP_DOC[k]}")
    if what in ("topology", "all"):
        _kinds(out, "topologies (topology = {kind = ..., options}):", TOPOLOGY_DOC)
    if what in ("queue", "all"):
        say(f"queues: {', '.join(QUEUE_KINDS)}")
        _kinds(
            out,
            None,
            {
                'RED-family options (queue = {kind = "red", ...})': with_defaults(RED_DOC, QUEUE_DEFAULTS["red"]),
                'CoDel / FQ-CoDel options (queue = {kind = "codel" or "fq_codel", ...})': with_defaults(
                    CODEL_DOC, QUEUE_DEFAULTS["fq_codel"]
                ),
                'PIE options (queue = {kind = "pie", ...})': with_defaults(PIE_DOC, QUEUE_DEFAULTS["pie"]),
                'DualPI2 options (queue = {kind = "dualpi2", ...})': with_defaults(
                    DUALPI2_DOC, QUEUE_DEFAULTS["dualpi2"]
                ),
            },
        )
    if what in ("loss", "all"):
        docs = {kind: with_defaults(opts, LOSS_DEFAULTS.get(kind, {})) for kind, opts in LOSS_DOC.items()}
        _kinds(out, "loss models (loss = {kind = ..., options}; each link direction has its own random stream):", docs)
    if what in ("traffic", "all"):
        _kinds(out, "traffic (flow group: app = ..., options in the group):", APP_DOC)
        say("  every group: count, start (a time, a distribution or {spread = [a, b]}), stagger, label")
    if what in ("traffic", "loss", "all"):
        say("distributions (times or sizes):")
        for k, d in DIST_DOC.items():
            say(f"  {k}: {d}")
    return "".join(line + "\n" for line in out)


def _kinds(out: list[str], title: str | None, docs: dict[str, dict[str, str]]) -> None:
    """Kinds and their options ({kind: {option: meaning}}), as lines."""
    say = out.append
    if title:
        say(title)
    for kind, opts in docs.items():
        say(f"  {kind}")
        for k, d in opts.items():
            say(f"    {k}: {d}")
