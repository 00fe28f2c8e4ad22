"""What ccsim knows, as `ccsim list` prints it: congestion-control
algorithms (the core's own table), TCP options with each stack's defaults,
topologies, queue disciplines, loss models, traffic and distributions."""

from __future__ import annotations

from .. import _core, algorithms
from ..scenario.netmodels import (
    DIST_DOC,
    LOSS_DEFAULTS,
    LOSS_DOC,
    QUEUE_DEFAULTS,
    QUEUE_KINDS,
    QUEUE_SCHEMA,
    REORDER_SCHEMA,
    SHAPER_SCHEMA,
    queue_doc,
    with_defaults,
)
from ..scenario.tcp_options import STACK_DEFAULTS, TCP_DEFAULTS, TCP_DOC
from ..scenario.topologies import TOPOLOGY_DOC
from ..scenario.traffic import APP_DOC


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
        shapers = {
            k: with_defaults({o["name"]: o["doc"] for o in s["options"]}, s["defaults"])
            for k, s in SHAPER_SCHEMA.items()
        }
        _kinds(out, "shapers (shaper = 'htb' or {kind = ..., options}; Mininet's TCLink defaults):", shapers)
        say("reordering (reorder = {options}):")
        opts = {o["name"]: o["doc"] for o in REORDER_SCHEMA["options"]}
        for k, d in with_defaults(opts, REORDER_SCHEMA["defaults"]).items():
            say(f"    {k}: {d}")
    if what in ("queue", "all"):
        say("queues (queue = {kind = ..., options}; the buffer is the link's):")
        for kind in QUEUE_KINDS:
            spec = QUEUE_SCHEMA[kind]
            same = next(k for k in QUEUE_KINDS if QUEUE_SCHEMA[k]["options"] == spec["options"])
            say(f"  {kind}: {spec['doc']}" + (f" (options as {same})" if same != kind and spec["options"] else ""))
            if same == kind:
                defaults = QUEUE_DEFAULTS.get(spec["core"], {})
                for k, d in with_defaults(queue_doc(kind), defaults).items():
                    say(f"      {k}: {d}")
    if what in ("loss", "all"):
        docs = {kind: with_defaults(opts, LOSS_DEFAULTS.get(kind, {})) for kind, opts in LOSS_DOC.items()}
        _kinds(out, "loss models (loss = {kind = ..., options}; each link direction has its own random stream):", docs)
    if what in ("traffic", "all"):
        _kinds(out, "traffic (flow group: app = ..., options in the group):", APP_DOC)
        say(
            "  every group: count, start (a time, a distribution, {spread = [a, b]} or "
            "{cycle = [t0, t1, ...]}), stagger, label"
        )
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
