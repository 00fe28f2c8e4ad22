"""Scenarios: parse (TOML / YAML / Python builder), validate, resolve.

A scenario is written as a nested mapping with four sections: ``sim``,
``topology``, ``tcp`` (defaults for every flow) and ``flows`` (a list of flow
groups). TOML files, YAML files and the :class:`Builder` all produce this
mapping, and :class:`Scenario` validates it in one place: every error names
the field, the value and what is accepted; unknown keys are errors. The
validated scenario is then *resolved* into the explicit form the Rust core
runs (nodes, links, flows, every quantity in base units). See
docs/scenario.md for the format.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import stat
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core, memory, pyalgo
from ..errors import ScenarioError
from . import linkrates, tcp_options, topologies, traffic
from ._check import MAX_FILE_BYTES, _check_keys, _int, _str, by_kind, max_file_bytes  # noqa: F401 (re-exported
from .netmodels import LOSS_KINDS, QUEUE_KINDS  # noqa: F401 (re-exported
from .tcp_options import TCP_DEFAULTS, TCP_DOC  # noqa: F401 (re-exported
from .topologies import FLOW_TOPO_KEYS, TOPOLOGY_DOC, TOPOLOGY_KINDS  # noqa: F401 (re-exported
from .traffic import per_flow_times
from .units import PS_PER_S, parse_time

if TYPE_CHECKING:
    from ..analysis.results import Result

# --------------------------------------------------------------------------
# Schema pieces


# The core's [sim] schema (config/sim_schema.rs): options, kinds, doc lines,
# the required ones and the defaults of the rest.
SIM_SCHEMA: dict[str, Any] = json.loads(_core.sim_options())
SIM_OPTS: dict[str, dict[str, Any]] = {o["name"]: o for o in SIM_SCHEMA["options"]}
SIM_KEYS = set(SIM_OPTS)
TRACE_KINDS: list[str] = SIM_OPTS["trace"]["kind"]["choices"]
FLOW_COMMON = {"count", "app", "start", "stagger", "label"} | traffic.APP_KEYS


# --------------------------------------------------------------------------
# The scenario


class Scenario:
    """A validated scenario. Build with :meth:`from_file`, :meth:`from_toml`,
    :meth:`from_yaml`, :meth:`from_dict` or :class:`Builder`."""

    def __init__(self, raw: dict[str, Any], *, source: str = "<dict>", code: pyalgo.CodeTrust | None = None) -> None:
        self.raw = copy.deepcopy(raw)
        self.source = source
        # whether a `py:` algorithm reference may import code, and from where:
        # a file's references only with the user's leave (`from_file`)
        self.code = code or pyalgo.IN_PROCESS
        self.core = self._resolve(self.raw)

    # ---- constructors
    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "<dict>") -> Scenario:
        return cls(d, source=source)

    @classmethod
    def from_toml(cls, text: str, source: str = "<toml>") -> Scenario:
        return cls(parse_toml(text, source), source=source)

    @classmethod
    def from_yaml(cls, text: str, source: str = "<yaml>") -> Scenario:
        return cls(parse_yaml(text, source), source=source)

    @classmethod
    def from_file(
        cls, path: str | Path, overrides: dict[str, Any] | None = None, *, allow_code: bool = False
    ) -> Scenario:
        """Load a scenario file; `overrides` (dotted path -> value, as
        :meth:`with_overrides`) are applied before the one resolution.
        A `tcp.cc = "py:MODULE:CLASS"` in the file imports (runs) MODULE
        only with `allow_code=True`, and only MODULE.py from the file's own
        folder or the path the reference gives."""
        raw = read_mapping(path)
        code = file_trust(path, allow_code)
        if isinstance(raw, dict) and "base" in raw and ("grid" in raw or "zip" in raw or "seeds" in raw):
            base = f"; its scenario is the file named by base = {raw['base']!r}" if isinstance(raw["base"], str) else ""
            raise ScenarioError(
                str(path),
                message=(
                    f"{path}: this is a sweep file (it has base = and grid/zip/seeds), not a scenario: "
                    f"run it with 'ccsim sweep {path}' (or ccsim.Sweep.from_file in Python){base}"
                ),
            )
        if overrides:
            return cls._overridden(raw, overrides, str(path), code)
        return cls(raw, source=str(path), code=code)

    @classmethod
    def _overridden(
        cls, raw: dict[str, Any], assignments: dict[str, Any], source: str, code: pyalgo.CodeTrust
    ) -> Scenario:
        from .overrides import apply

        sc = cls(apply(raw, assignments), source=source, code=code)
        for path, value in assignments.items():
            refuse_overridden(sc.raw, path, value, sc.core, "--set", source, code)
        return sc

    def with_seed(self, seed: int) -> Scenario:
        raw = copy.deepcopy(self.raw)
        raw.setdefault("sim", {})["seed"] = seed
        return Scenario(raw, source=self.source, code=self.code)

    @property
    def seed(self) -> int:
        return int(self.core["seed"])

    @property
    def duration_s(self) -> float:
        return float(self.core["duration_ps"] / PS_PER_S)

    def to_toml(self) -> str:
        """The scenario as TOML text that loads and runs identically."""
        from .tomlio import scenario_to_toml

        return scenario_to_toml(self)

    def with_overrides(self, assignments: dict[str, Any]) -> Scenario:
        """A new scenario with dotted-path overrides applied ({'tcp.cc': 'cubic'}).
        An override that a more specific setting replaces for every flow
        (`tcp.cc` when each flow group sets its own `cc`) is refused: it
        would silently do nothing."""
        return Scenario._overridden(self.raw, assignments, self.source, self.code)

    def to_core_json(self) -> str:
        """The resolved scenario as the core reads it. Flows that share a TCP
        table (the flows of a group share one dict) name it by its index in
        `tcp_tables`, written first: a 15,684-flow mix is 31 MB of JSON with
        a table per flow."""
        tables: list[dict[str, Any]] = []
        index: dict[int, int] = {}
        flows = []
        for f in self.core["flows"]:
            k = index.get(id(f["tcp"]))
            if k is None:
                k = index[id(f["tcp"])] = len(tables)
                tables.append(f["tcp"])
            flows.append({**f, "tcp": k})
        rest = {key: v for key, v in self.core.items() if key != "flows"}
        from .._json import core_json

        return core_json({"tcp_tables": tables, **rest, "flows": flows})

    # ---- display (a terminal and a notebook)
    def describe(self) -> dict[str, Any]:
        """What the scenario resolved to, in words: the topology, the
        bottleneck-like links (the slowest), the flow groups and the run."""
        from collections import Counter

        from .units import fmt_rate, fmt_time_ps

        c = self.core
        topo = self.raw.get("topology", {})
        kind = topo.get("kind", "?") if isinstance(topo, dict) else "?"
        slow = min((topologies.link_capacity_bps(lk) for lk in c["links"]), default=0)
        slowest = [lk for lk in c["links"] if topologies.link_capacity_bps(lk) == slow]
        groups = Counter((f.get("label", ""), f["tcp"]["cc"], f["app"]["kind"]) for f in c["flows"])
        return {
            "source": self.source,
            "topology": kind,
            "nodes": len(c["nodes"]),
            "links": len(c["links"]),
            "slowest links": ", ".join(
                f"{lk['name']} {fmt_rate(topologies.link_capacity_bps(lk))} "
                f"{fmt_time_ps(lk['delay_ps'])} {lk['queue']['kind']}"
                for lk in slowest[:2]
            )
            + (f" (+{len(slowest) - 2})" if len(slowest) > 2 else ""),
            "flows": ", ".join(
                f"{n}× {cc} {app}" + (f" ({label})" if label else "") for (label, cc, app), n in groups.items()
            )
            or "none",
            "udp sources": len(c.get("udp", [])),
            "duration": fmt_time_ps(c["duration_ps"]),
            "seed": c["seed"],
        }

    def __repr__(self) -> str:
        d = self.describe()
        return (
            f"<Scenario {d['source']}: {d['topology']}, {d['nodes']} nodes, {d['links']} links "
            f"(slowest: {d['slowest links']}); flows: {d['flows']}; {d['duration']}, seed {d['seed']}>"
        )

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(
            f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(str(v))}</td></tr>"
            for k, v in self.describe().items()
        )
        return f"<b>ccsim Scenario</b><table>{rows}</table>"

    def run(self, seed: int | None = None, *, progress: bool = False, timeout: float | None = None) -> Result:
        """Run the scenario and return a :class:`ccsim.analysis.results.Result`.

        Ctrl-C (or Jupyter's "interrupt kernel") stops the run within a
        second and raises KeyboardInterrupt. `progress=True` draws a bar;
        `timeout` (wall seconds) raises TimeoutError when the run takes longer."""
        from .._spawn import refuse_in_bootstrap
        from ..analysis.results import run_interruptibly

        refuse_in_bootstrap("Scenario.run")
        sc = self if seed is None else self.with_seed(seed)
        return run_interruptibly(sc, progress=progress, timeout=timeout)

    # ---- validation and resolution
    def _resolve(self, raw: dict[str, Any]) -> dict[str, Any]:
        src = Path(self.source)
        token = linkrates.BASE_DIR.set(src.parent if src.is_file() else None)
        trust = pyalgo.TRUST.set(self.code)
        # The resolution makes a few mappings per link and flow and no
        # reference cycles; the cyclic collector, run as they pile up,
        # walked them again and again: 40 % of a 100,000-flow set-up
        # (docs/performance.md). It runs again afterwards.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._resolve_in(raw)
        finally:
            if paused:
                gc.enable()
            linkrates.BASE_DIR.reset(token)
            pyalgo.TRUST.reset(trust)

    def _resolve_in(self, raw: dict[str, Any]) -> dict[str, Any]:
        _check_keys("", raw, {"sim", "topology", "tcp", "flows"})
        for sec in ("sim", "topology", "flows"):
            if sec not in raw:
                raise ScenarioError(
                    sec, message=f"{sec}: missing section; a scenario needs [sim], [topology] and [[flows]]"
                )
        _check_keys("sim", raw["sim"], SIM_KEYS)
        for k in SIM_SCHEMA["required"]:
            if k not in raw["sim"]:
                raise ScenarioError(f"sim.{k}", message=f"sim.{k}: missing; expected {SIM_OPTS[k]['doc']}")
        sim = {**SIM_SCHEMA["defaults"], **raw["sim"]}
        duration, seed, trace, sample = (
            by_kind(f"sim.{k}", sim[k], SIM_OPTS[k]["kind"]) for k in ("duration", "seed", "trace", "sample_interval")
        )

        tcp_sec = raw.get("tcp", {})
        _check_keys("tcp", tcp_sec, set(TCP_DEFAULTS))
        tcp_defaults = tcp_options.for_group("tcp", tcp_sec, {})
        topo = raw["topology"]
        if not isinstance(topo, dict):
            raise ScenarioError("topology", topo, "a table with a 'kind' key")
        kind = _str("topology.kind", topo.get("kind"), TOPOLOGY_KINDS)
        groups = raw["flows"]
        if not isinstance(groups, list) or not groups:
            raise ScenarioError("flows", groups, "a non-empty list of flow groups ([[flows]])")

        # Expand flow groups into single flows (topology placement comes later).
        flows: list[dict[str, Any]] = []
        extra_keys = FLOW_TOPO_KEYS[kind]
        for gi, g in enumerate(groups):
            where = f"flows[{gi}]"
            _check_keys(where, g, FLOW_COMMON | extra_keys | set(TCP_DEFAULTS))
            count = _int(f"{where}.count", g.get("count", 1), lo=1, hi=1_000_000)
            start_v = g.get("start", "0s")
            stagger = parse_time(f"{where}.stagger", g.get("stagger", "0s"))
            if isinstance(start_v, dict) and "stagger" in g:
                raise ScenarioError(
                    f"{where}.stagger",
                    message=(
                        f"{where}.stagger: not allowed with a drawn or spread start; "
                        "expected one of start = <dist> or stagger"
                    ),
                )
            rng = np.random.default_rng([seed, gi, 1])
            starts = per_flow_times(f"{where}.start", start_v, count, rng)
            if not isinstance(start_v, dict):
                starts = [starts[0] + j * stagger for j in range(count)]
            label = _str(f"{where}.label", g.get("label", f"group{gi}"))
            tcp_over = {k: g[k] for k in TCP_DEFAULTS if k in g}
            tcp = tcp_options.for_group(where, tcp_sec, tcp_over) if tcp_over else dict(tcp_defaults)
            appcfg = traffic.app(where, g, tcp["mss"])
            topo_opts = {k: g[k] for k in extra_keys if k in g}
            rtts = None
            if "rtt" in topo_opts:
                rtts = per_flow_times(
                    f"{where}.rtt", topo_opts["rtt"], count, np.random.default_rng([seed, gi, 2]), allow_zero=False
                )
            for j in range(count):
                st = starts[j]
                if st > duration:
                    raise ScenarioError(
                        f"{where}.start",
                        message=(
                            f"{where}.start: flow {j} of this group would start at {st / PS_PER_S:g}s, after the "
                            f"end of the run ({duration / PS_PER_S:g}s); expected every start ≤ sim.duration"
                        ),
                    )
                stop = appcfg.get("stop_ps") if appcfg["kind"] == "udp" else None
                if stop is not None and stop <= st:
                    raise ScenarioError(
                        f"{where}.stop",
                        message=(
                            f"{where}.stop: got {g['stop']!r}; expected a time after the source's start "
                            f"({st / PS_PER_S:g}s" + (f", flow {j} of this group" if count > 1 else "") + ")"
                        ),
                    )
                topo_j = dict(topo_opts)
                if rtts is not None:
                    topo_j["rtt_ps"] = rtts[j]
                flows.append(
                    {
                        "group": gi,
                        "where": where,
                        "start_ps": st,
                        "app": appcfg,
                        "tcp": tcp,
                        "label": label,
                        "topo": topo_j,
                    }
                )

        pkt_default = tcp_options.wire_bytes(tcp_defaults)
        # flows of a group share their TCP table: size each table once
        max_pkt = max(tcp_options.wire_bytes(t) for t in {id(f["tcp"]): f["tcp"] for f in flows}.values())
        net = topologies.Net()
        builder = topologies.BUILDERS[kind]
        base_rtts = builder(topo, flows, net)
        bdp_rtt = topologies.bdp_rtt(topo, base_rtts)
        topologies.resolve_buffers(net, bdp_rtt, pkt_default, max_pkt, "topology.bdp_rtt")
        topologies.check_shapers(net, max_pkt)
        sample_links = _sample_links(sim["sample_links"], net)
        capture = _pcap_links(sim["pcap"], net, kind)
        core_flows = [
            {
                "src": f["src"],
                "dst": f["dst"],
                "start_ps": f["start_ps"],
                "app": f["app"],
                "tcp": f["tcp"],
                "label": f["label"],
            }
            for f in flows
            if f["app"]["kind"] != "udp"
        ]
        udp = [
            {
                "src": f["src"],
                "dst": f["dst"],
                "start_ps": f["start_ps"],
                "label": f["label"],
                **{k: v for k, v in f["app"].items() if k != "kind"},
            }
            for f in flows
            if f["app"]["kind"] == "udp"
        ]
        core = {
            "duration_ps": duration,
            "seed": seed,
            "sample_interval_ps": sample,
            "sample_links": sample_links,
            "nodes": net.nodes,
            "links": net.links,
            "flows": core_flows,
            "udp": udp,
            "trace": {k: k in trace for k in TRACE_KINDS},
            "capture_links": capture,
        }
        memory.check(core)  # recorded tables that would not fit in memory are refused before the run
        return core


# --------------------------------------------------------------------------
# Settings a more specific one replaces: a [tcp] option is the default of
# every flow group (a group's own key wins, as `tcp_options.for_group`
# merges them); the dumbbell family's access delay is replaced by a
# group's `rtt` (`topologies.dumbbell.build`).
RTT_SETS_ACCESS_DELAY = ("dumbbell", "satellite", "wireless")


def overridden_by(raw: dict[str, Any], path: str) -> list[str]:
    """The more specific settings of the scenario mapping `raw` that replace
    `path` for every flow it could reach, e.g. ['flows[0].cc'] for 'tcp.cc'
    when the only flow group sets its own cc; [] when some flow takes
    `path`'s value. UDP sources have no TCP, so they take no [tcp] option."""
    groups = raw.get("flows")
    topo = raw.get("topology")
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict) for g in groups):
        return []
    head, _, key = path.partition(".")
    if head == "tcp" and key in TCP_DEFAULTS:
        shadows = []
        for gi, g in enumerate(groups):
            if key in g:
                shadows.append(f"flows[{gi}].{key}")
            elif traffic.APP_SCHEMA.get(g.get("app", "bulk"), {}).get("core") != "udp":
                return []
        return shadows
    if path == "topology.access_delay" and isinstance(topo, dict) and topo.get("kind") in RTT_SETS_ACCESS_DELAY:
        if all("rtt" in g for g in groups):
            return [f"flows[{gi}].rtt" for gi in range(len(groups))]
    return []


def refuse_overridden(
    raw: dict[str, Any],
    path: str,
    value: object,
    core: dict[str, Any],
    how: str,
    source: str = "<dict>",
    code: pyalgo.CodeTrust | None = None,
) -> None:
    """Refuse `path` = `value` (set by `how`: '--set', a sweep axis) when a
    more specific setting replaces it for every flow. The rule is confirmed
    by resolving the scenario without `path` and with `path` set to the
    first overriding group's value: a setting that still acts elsewhere (a
    [tcp] mss sizes the buffers written in BDPs) changes one of them and is
    kept."""
    from .overrides import apply, without_path

    shadows = overridden_by(raw, path)
    if not shadows:
        return
    first = shadows[0].split(".", 1)
    other = raw["flows"][int(first[0][6:-1])][first[1]]
    for alt in (without_path(raw, path), apply(raw, {path: other})):
        if alt is None or alt == raw:
            continue
        try:
            if Scenario(alt, source=source, code=code).core != core:
                return
        except ScenarioError:
            pass  # `path` is required: the rule alone decides
    key = shadows[0].rsplit(".", 1)[1]
    fix = shadows[0] if len(shadows) == 1 else f"flows[*].{key}"
    named = " and ".join(shadows) if len(shadows) <= 3 else f"{', '.join(shadows[:3])}, …"
    raise ScenarioError(
        path,
        message=(
            f"{path} ({how}) = {value!r} has no effect: it is overridden for every flow by {named}; "
            f"set {fix} instead, or remove {'it' if len(shadows) == 1 else 'them'} from the flow group"
            + ("" if len(shadows) == 1 else "s")
        ),
    )


def _pcap_links(v: object, net: topologies.Net, kind: str) -> list[int]:
    """Indices of the links `sim.pcap` names (a list of link names; also
    'bottleneck' for the forward bottleneck of single_link and the dumbbell
    kinds; and a pair 'a-b' or 'a<->b' for both directions, whose packets
    also go to one file together)."""
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ScenarioError("sim.pcap", v, SIM_OPTS["pcap"]["kind"]["accepted"])
    by_name = {lk["name"]: i for i, lk in enumerate(net.links)}
    alias = topologies.PCAP_ALIAS.get(kind)
    if alias:
        by_name.setdefault("bottleneck", by_name[alias])
    pairs: dict[str, list[int]] = {}
    for name in v:
        if name in by_name:
            continue
        sep = "<->" if "<->" in name else "-"
        for k in [i for i in range(len(name)) if name.startswith(sep, i)]:
            a, b = name[:k], name[k + len(sep) :]
            if f"{a}->{b}" in by_name and f"{b}->{a}" in by_name:
                pairs[name] = [by_name[f"{a}->{b}"], by_name[f"{b}->{a}"]]
                break
    named = [x for x in v if x not in pairs]
    extra = [i for x in v if x in pairs for i in pairs[x]]
    field_of = {j: f"sim.pcap[{v.index(x)}]" for j, x in enumerate(named)}
    return sorted(set(_link_indices("sim.pcap", named, by_name, field_of) + extra))


def _link_indices(
    field: str, names: list[str], by_name: dict[str, int], fields: dict[int, str] | None = None
) -> list[int]:
    """The sorted, distinct indices of the links `names` names (`fields`:
    the field each name was written in, when not `field[j]`)."""
    from ..errors import suggest

    out = []
    for j, name in enumerate(names):
        if name not in by_name:
            shown = ", ".join(list(by_name)[:8]) + (", …" if len(by_name) > 8 else "")
            where = (fields or {}).get(j, f"{field}[{j}]")
            raise ScenarioError(
                where,
                message=f"{where}: got {name!r}; expected the name of a link of this topology ({shown})"
                + (", or 'a-b' for both directions of a link pair" if field == "sim.pcap" else "")
                + suggest(name, list(by_name)),
            )
        out.append(by_name[name])
    return sorted(set(out))


def _sample_links(v: object, net: topologies.Net) -> list[int] | None:
    """Indices of the links `sim.sample_links` selects: None for 'all';
    'shared' = every link whose two ends each have more than one neighbour
    (on dumbbell-like topologies: the router-to-router links, not the hosts'
    access links); or a list of link names."""
    if v == "all":
        return None
    if v == "shared":
        nbrs: dict[int, set[int]] = {}
        for lk in net.links:
            nbrs.setdefault(lk["from"], set()).add(lk["to"])
            nbrs.setdefault(lk["to"], set()).add(lk["from"])
        shared = [i for i, lk in enumerate(net.links) if len(nbrs[lk["from"]]) > 1 and len(nbrs[lk["to"]]) > 1]
        if not shared:  # the link time series would be silently empty
            raise ScenarioError(
                "sim.sample_links",
                message="sim.sample_links: 'shared' selects no link here (none joins two nodes that each have "
                "more than one neighbour, as a dumbbell's routers do); use 'all' or name the links, e.g. "
                f"[{net.links[0]['name']!r}]",
            )
        return shared
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
        raise ScenarioError("sim.sample_links", v, SIM_OPTS["sample_links"]["kind"]["accepted"])
    return _link_indices("sim.sample_links", v, {lk["name"]: i for i, lk in enumerate(net.links)})


# --------------------------------------------------------------------------
# Python builder


class Builder:
    """Build a scenario in Python; produces the same mapping a TOML file does
    and validates it through :class:`Scenario`.

    >>> sc = (Builder(duration="60s", seed=1)
    ...       .dumbbell(bottleneck_rate="100Mbps", bottleneck_delay="18ms",
    ...                 access_rate="1Gbps", access_delay="1ms", buffer="1bdp")
    ...       .tcp(cc="newreno", mss=1448)
    ...       .flows(count=10, app="bulk", stagger="10ms")
    ...       .build())
    """

    def __init__(
        self,
        duration: str,
        seed: int | None = None,
        sample_interval: str | None = None,
        trace: list[str] | None = None,
        pcap: list[str] | None = None,
    ) -> None:
        # seed None: the core's default (sim_options()), as a file that omits it
        self._d: dict[str, Any] = {"sim": {"duration": duration}, "tcp": {}, "flows": []}
        if seed is not None:
            self._d["sim"]["seed"] = seed
        if sample_interval is not None:
            self._d["sim"]["sample_interval"] = sample_interval
        if trace is not None:
            self._d["sim"]["trace"] = trace
        if pcap is not None:
            self._d["sim"]["pcap"] = pcap

    def topology(self, kind: str, **kw: Any) -> Builder:
        self._d["topology"] = {"kind": kind, **kw}
        return self

    def single_link(self, **kw: Any) -> Builder:
        return self.topology("single_link", **kw)

    def dumbbell(self, **kw: Any) -> Builder:
        return self.topology("dumbbell", **kw)

    def parking_lot(self, **kw: Any) -> Builder:
        return self.topology("parking_lot", **kw)

    def explicit(self, nodes: list[str], links: list[dict[str, Any]], **kw: Any) -> Builder:
        return self.topology("explicit", nodes=nodes, links=links, **kw)

    def tcp(self, **kw: Any) -> Builder:
        self._d["tcp"].update(kw)
        return self

    def flows(self, **kw: Any) -> Builder:
        self._d["flows"].append(kw)
        return self

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._d)

    def build(self) -> Scenario:
        return Scenario(self.to_dict(), source="<builder>")


def parse_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(source, message=f"{source}: malformed TOML: {str(e)[:300]}") from None
    except RecursionError:
        raise ScenarioError(source, message=f"{source}: TOML nested too deeply") from None


def _yaml_loader() -> Any:
    """yaml.SafeLoader that refuses duplicate keys (as TOML does) and
    anchors/aliases (a scenario has no use for them, and an alias bomb
    expands exponentially)."""
    import yaml

    class Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML publishes no types
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                ev = self.peek_event()
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"alias *{ev.anchor}: anchors and aliases are not accepted in scenario files",
                    ev.start_mark,
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for k, _ in node.value:
                key = self.construct_object(k, deep=deep)
                try:
                    dup = key in seen
                except TypeError:
                    dup = False
                if dup:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r} (each key may appear once)", k.start_mark
                    )
                seen.add(key) if not isinstance(key, (list, dict)) else None
            return super().construct_mapping(node, deep=deep)

    return Loader


def parse_yaml(text: str, source: str) -> dict[str, Any]:
    import yaml

    try:
        d = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        first = str(e).replace("\n", " ")
        raise ScenarioError(source, message=f"{source}: malformed YAML: {first[:300]}") from None
    except RecursionError:
        raise ScenarioError(source, message=f"{source}: YAML nested too deeply") from None
    if not isinstance(d, dict):
        raise ScenarioError(source, message=f"{source}: expected a mapping at the top level")
    return d


def read_text(path: str | Path, what: str = "scenario file") -> str:
    """The text of a scenario or sweep file: a regular file (a symlink to one
    is fine) of at most max_file_bytes(), in UTF-8."""
    p = Path(path)
    limit = max_file_bytes()
    try:
        # open first, without blocking (a FIFO swapped in after a stat would
        # otherwise hang the open), then check what was opened
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ScenarioError(str(p), message=f"{p}: cannot read {what}: not a regular file")
            if st.st_size > limit:
                raise ScenarioError(
                    str(p),
                    message=(
                        f"{p}: {what} of {st.st_size} bytes is larger than the limit of {limit} (CCSIM_MAX_FILE_BYTES)"
                    ),
                )
            raw = f.read(limit + 1)
    except OSError as e:
        raise ScenarioError(str(p), message=f"{p}: cannot read {what}: {e.strerror}") from None
    if len(raw) > limit:
        raise ScenarioError(str(p), message=f"{p}: {what} is larger than the limit of {limit} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(str(p), message=f"{p}: {what} is not UTF-8 text (byte {e.start})") from None


def read_mapping(path: str | Path) -> dict[str, Any]:
    """A scenario file (.toml, .yaml, .yml) as its unvalidated mapping."""
    p = Path(path)
    if p.suffix not in (".toml", ".yaml", ".yml"):
        raise ScenarioError(
            str(p), message=f"{p}: unknown scenario file type {p.suffix!r}; expected .toml, .yaml or .yml"
        )
    text = read_text(p)
    return parse_yaml(text, str(p)) if p.suffix in (".yaml", ".yml") else parse_toml(text, str(p))


def file_trust(path: str | Path, allow_code: bool) -> pyalgo.CodeTrust:
    """What a scenario file's `py:` references may import: nothing unless
    `allow_code`, and then only from the file's own folder."""
    if not isinstance(allow_code, bool):
        raise ScenarioError("allow_code", allow_code, "True or False")
    return pyalgo.CodeTrust(allow_code, Path(path).resolve().parent)


def load(path: str | Path, *, allow_code: bool = False) -> Scenario:
    """Load and validate a scenario file (.toml, .yaml, .yml); `allow_code`
    as :meth:`Scenario.from_file`."""
    return Scenario.from_file(path, allow_code=allow_code)
