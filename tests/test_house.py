"""Structure of the package: the import graph has no circle, counting the
imports made inside functions too (a lazy import still couples two modules)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PKG = Path(__file__).resolve().parent.parent / "python" / "ccsim"


def _module(p: Path) -> str:
    parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for p in PKG.rglob("*.py"):
        mod = _module(p)
        pkg = mod if p.name == "__init__.py" else mod.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [f"{target}.{a.name}" for a in node.names]
                deps.update(
                    n for n in names if n.replace(".", "/") and (PKG.parent / (n.replace(".", "/") + ".py")).exists()
                )
                deps.add(target)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("ccsim"))
        deps.discard(mod)
        graph[mod] = deps
    return graph


def test_no_import_cycles() -> None:
    graph = import_graph()
    # a package's __init__ may name its submodules lazily (PEP 562: a module
    # `__getattr__`, with the names declared under TYPE_CHECKING for type
    # checkers); edges from such a face to its own modules are the public
    # surface, not coupling
    for init in PKG.rglob("__init__.py"):
        face = _module(init)
        if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in ast.parse(init.read_text()).body):
            graph[face] = {d for d in graph[face] if not d.startswith(face + ".")}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if v not in graph:
                continue
            if state.get(v) == 1:
                return path[path.index(v) :] + [v]
            if v not in state:
                found = visit(v)
                if found:
                    return found
        state[u] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            assert cycle is None, " -> ".join(cycle)
    assert {
        "ccsim.scenario",
        "ccsim.analysis.results",
        "ccsim.scenario.topologies",
        "ccsim.scenario.tcp_options",
    } <= set(graph)


# ---------------------------------------------------------------- docs agree with the code

ROOT = PKG.parent.parent


def _doc_table(md: str, heading: str) -> dict[str, str]:
    """key -> default cell of the first `| key | default | meaning |` table after `heading`."""
    text = md[md.index(heading) :]
    rows = {}
    started = False
    for line in text.splitlines()[1:]:
        if line.startswith("| key | default |"):
            started = True
            continue
        if started:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0].startswith("`"):
                rows[cells[0].strip("`")] = cells[1]
    return rows


def _cell_value(cell: str) -> Any:
    """A documented default as the Python value it stands for."""
    import tomllib

    if cell == "none":
        return None
    return tomllib.loads(f"v = {cell.strip('`')}")["v"]


def test_tcp_options_table_matches_the_defaults() -> None:
    from ccsim.scenario.tcp_options import TCP_DEFAULTS, TCP_DOC

    rows = _doc_table((ROOT / "docs" / "scenario.md").read_text(), "## `[tcp]`")
    assert list(rows) == list(TCP_DEFAULTS), "docs/scenario.md's [tcp] table and TCP_DEFAULTS list different options"
    for k, cell in rows.items():
        assert _cell_value(cell) == TCP_DEFAULTS[k], (
            f"docs/scenario.md says {k} defaults to {cell}, the code {TCP_DEFAULTS[k]!r}"
        )
    assert set(TCP_DOC) == set(TCP_DEFAULTS)


def test_the_cc_row_of_the_tcp_table_lists_exactly_the_cores_algorithms() -> None:
    import re

    from ccsim import _core

    rows = _doc_table((ROOT / "docs" / "scenario.md").read_text(), "## `[tcp]`")
    line = next(x for x in (ROOT / "docs" / "scenario.md").read_text().splitlines() if x.startswith("| `cc` |"))
    meaning = line.split("|")[3]
    assert "cc" in rows
    assert re.findall(r"`([a-z0-9]+)`", meaning.split("(")[0]) == _core.algorithms()


def test_ccsim_list_tcp_prints_every_default() -> None:
    import subprocess
    import sys

    from ccsim.scenario.tcp_options import TCP_DEFAULTS

    out = subprocess.run(
        [sys.executable, "-m", "ccsim", "list", "tcp"], capture_output=True, text=True, check=True
    ).stdout
    from ccsim.scenario.tcp_options import STACK_DEFAULTS

    for k, v in TCP_DEFAULTS.items():
        w = STACK_DEFAULTS["ns2"][k]
        alt = f" [ns2: {w!r}]" if w != v and k != "stack" else ""
        assert f"  {k} = {v!r}{alt}: " in out, k


def test_python_tcp_defaults_resolve_to_the_cores() -> None:
    """Python reads the [tcp] defaults from the core (TcpCfg::default) and
    writes them as a scenario would ('200ms'); resolving them again must give
    the core's values back, so the conversion loses nothing."""
    import json

    from ccsim import _core
    from ccsim.scenario import tcp_options

    for stack in tcp_options.STACKS:
        rust = json.loads(_core.tcp_defaults(stack, tcp_options.DEFAULT_CC))
        py = tcp_options.resolve({k: (v, f"tcp.{k}") for k, v in tcp_options.STACK_DEFAULTS[stack].items()})
        assert set(rust) == set(py)
        assert {k: rust[k] for k in rust if rust[k] != py[k]} == {}


def test_queue_and_loss_defaults_come_from_the_core_and_are_documented() -> None:
    """The core exports the defaults it fills in for queue and loss options
    (declared in each model's file, queue/ and loss/); every one must be an option the
    Python docs describe, and `ccsim list` must print it."""
    import json
    import subprocess
    import sys

    from ccsim import _core
    from ccsim.scenario import netmodels

    net = json.loads(_core.net_defaults())
    assert net["queue"]["red"]["w_q"] == 0.002  # Floyd & Jacobson 1993, ns-2 q_weight_
    internal = {"limit_bytes", "adaptive"}  # set from the buffer and the kind name
    for kind in ("red", "pie", "codel", "fq_codel", "dualpi2"):
        assert set(netmodels.QUEUE_DEFAULTS[kind]) - internal <= set(netmodels.queue_doc(kind)), kind
    for kind, defaults in netmodels.LOSS_DEFAULTS.items():
        assert set(defaults) <= set(netmodels.LOSS_DOC[kind]), kind
    out = subprocess.run(
        [sys.executable, "-m", "ccsim", "list", "queue"], capture_output=True, text=True, check=True
    ).stdout
    assert "w_q: " in out and "(default 0.002)" in out
    assert "target: QDELAY_REF, the target queueing delay (default '15ms')" in out


def test_stacks_table_lists_every_option_the_stacks_set_differently() -> None:
    """docs/scenario.md's Stacks table against the core's
    TcpCfg::for_stack: one column per stack, every option whose value
    differs between any two stacks has a row, and each cell is that
    stack's value."""
    from ccsim.scenario.tcp_options import STACK_DEFAULTS, STACKS

    md = (ROOT / "docs" / "scenario.md").read_text()
    text = md[md.index("### Stacks") :]
    header, rows = None, {}
    for line in text.splitlines():
        if line.startswith("| option |"):
            header = [c.strip().strip("`") for c in line.strip("|").split("|")][1:-1]
        elif line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1 : 1 + len(STACKS)]
        elif rows and not line.startswith("|"):
            break
    assert header == STACKS
    first = STACK_DEFAULTS[STACKS[0]]
    differ = {k for k in first if k != "stack" and len({repr(STACK_DEFAULTS[st][k]) for st in STACKS}) > 1}
    assert differ <= set(rows), sorted(differ - set(rows))
    for k, cells in rows.items():
        assert [_cell_value(c) for c in cells] == [STACK_DEFAULTS[st][k] for st in STACKS], k


def test_every_test_the_docs_cite_exists() -> None:
    """A test name in the docs (README, docs/*.md, the crates' comments) is a
    promise that the behaviour is checked: each one names a test function
    (Python `def test_...`, Rust `fn ...`) or a test module that exists."""
    import re

    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "crates").rglob("*.rs"))]
    cited = set()
    for p in texts:
        cited |= set(re.findall(r"`(test_[a-z0-9_]+)`", p.read_text()))
    defined = {p.stem for p in (ROOT / "tests").glob("test_*.py")}
    for p in (ROOT / "tests").glob("*.py"):
        defined |= set(re.findall(r"^\s*def (test_[a-z0-9_]+)", p.read_text(), re.M))
    for p in (ROOT / "crates").rglob("*.rs"):
        defined |= set(re.findall(r"\bfn ([a-z0-9_]+)\s*[<(]", p.read_text()))
    assert len(cited) > 50
    assert not sorted(cited - defined), f"cited in the docs but not defined: {sorted(cited - defined)}"


def test_the_module_map_lists_exactly_the_modules_that_exist() -> None:
    """docs/architecture.md's map (its first code block) names every Python
    and Rust source file of the package and the crates, and nothing else."""
    import re

    md = (ROOT / "docs" / "architecture.md").read_text()
    block = md.split("```", 2)[1]
    named = set(re.findall(r"\b([a-z_0-9]+\.(?:py|rs))\b", block))
    skip = {"__init__.py", "__main__.py", "mod.rs", "lib.rs", "main.rs"}
    have = {p.name for p in PKG.rglob("*.py")} | {p.name for p in (ROOT / "crates").glob("*/src/**/*.rs")}
    assert not sorted(have - named - skip), f"modules missing from the map: {sorted(have - named - skip)}"
    assert not sorted(named - have - skip), f"the map names modules that do not exist: {sorted(named - have - skip)}"


def test_a_links_capacity_is_read_in_one_place() -> None:
    """The Python side asks a resolved link's capacity through
    `topologies.link_capacity_bps` only (Rust: `LinkCfg::transmitter`), so a
    link whose rate varies changes one function. Result-table rows
    (`row["rate_bps"]`, queries) report the capacity the core computed."""
    offenders = []
    for p in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
                continue
            if node.slice.value != "rate_bps":
                continue
            base = node.value
            if isinstance(base, ast.Name) and base.id == "row":
                continue  # a result-table row
            if isinstance(base, ast.Call):
                continue  # a result-table query
            where = f"{p.relative_to(PKG)}:{node.lineno}"
            if where.startswith("scenario/topologies/common.py:") and isinstance(base, ast.Name) and base.id == "link":
                continue  # link_capacity_bps itself
            offenders.append(where)
    assert offenders == [], f"read link['rate_bps'] through topologies.link_capacity_bps: {offenders}"


# Options whose default, where a scenario omits them, is the core's: the
# seed and sample interval (config/sim_schema.rs), the stack and algorithm
# (config/tcp.rs), the queue and its buffer (queue/mod.rs).
CORE_DEFAULTED = {"seed", "sample_interval", "stack", "cc", "queue", "buffer"}


def literal_defaults(src: str) -> list[int]:
    """Lines of `src` that read one of CORE_DEFAULTED with a default
    written in Python (`x.get("seed", 1)`, `t.get("queue", "droptail")`).
    The placeholders '' and '?' for an absent value are not defaults."""
    lines = []
    for node in ast.walk(ast.parse(src)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
            continue
        k, d = node.args if len(node.args) == 2 else (None, None)
        if not (isinstance(k, ast.Constant) and isinstance(d, ast.Constant)):
            continue
        # '' and '?' stand for an absent value (a label, a figure title), not a default
        if k.value in CORE_DEFAULTED and d.value not in ("", "?"):
            lines.append(node.lineno)
    return lines


def test_python_writes_no_default_the_core_owns() -> None:
    """Python fills an omitted seed, stack, algorithm, queue or buffer from
    the core's schema, never from a literal of its own (two copies drift).
    The studies write their own scenarios' values, so they are not scanned."""
    # the check finds the kind of line it forbids (as the front end had)
    assert literal_defaults('s = sim.get("seed", 1)\nq = t.get("queue", "droptail")\n') == [1, 2]
    assert literal_defaults('s = sim.get("seed", SIM_DEFAULTS["seed"])\nc = r.get("cc", "?")\n') == []
    offenders = [
        f"{p.relative_to(PKG)}:{line}"
        for p in PKG.rglob("*.py")
        if "studies" not in p.parts
        for line in literal_defaults(p.read_text())
    ]
    assert offenders == [], f"read the default from the core's schema: {offenders}"


def test_a_scenario_that_omits_the_defaulted_options_gets_the_cores() -> None:
    """A scenario naming no seed, stack, algorithm, queue or buffer runs
    what the core declares for each, and a Builder that omits the seed
    gives the same scenario as a file that omits it."""
    import json

    from ccsim import _core
    from ccsim.scenario import Builder, Scenario

    raw = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
        "flows": [{"count": 1}],
    }
    core = Scenario(raw).core
    sim = json.loads(_core.sim_options())["defaults"]
    tcp = {o["name"]: o for o in json.loads(_core.tcp_options())}
    net = json.loads(_core.net_defaults())
    queues = {q["name"]: q for q in json.loads(_core.queue_options())}
    assert core["seed"] == sim["seed"]
    assert (core["flows"][0]["tcp"]["stack"], core["flows"][0]["tcp"]["cc"]) == (
        tcp["stack"]["default"],
        tcp["cc"]["default"],
    )
    fwd = core["links"][0]["queue"]
    assert fwd["kind"] == net["default_queue"] == "droptail"
    assert queues[net["default_queue"]]["default_buffer"] == "1bdp"
    # one BDP of 10 Mb/s × 20 ms in 1500-byte packets (mss 1448 + 40 + 12): 16.7 → 17
    assert fwd["limit_pkts"] == round(10e6 * 0.020 / 8 / 1500)
    built = Builder(duration="1s").single_link(rate="10Mbps", delay="10ms").flows(count=1).build()
    assert built.core == core


def test_python_checks_every_tcp_option_by_the_cores_schema() -> None:
    """Walk the core's option schema (config/schema.rs): for each [tcp]
    option, a value just outside what its kind accepts is refused by the
    Python resolver under the option's own field, and the core's own rules
    refuse the same (so the bounds are the schema's, not a second copy)."""
    import json

    from ccsim import _core
    from ccsim.errors import ScenarioError
    from ccsim.scenario import tcp_options

    schema = json.loads(_core.tcp_options())
    assert [o["name"] for o in schema] == list(tcp_options.TCP_DOC)
    base = tcp_options.STACK_DEFAULTS["linux"]
    bad: dict[str, Callable[[dict[str, Any]], Any]] = {
        "int": lambda k: k["hi"] + 1,
        "int_or_inf": lambda k: k["lo"] - 1,
        "int_or_none": lambda k: k["hi"] + 1,
        "choice": lambda k: "no-such-value",
        "algorithm": lambda k: "no-such-algorithm",
        "time": lambda k: "-1s" if k["min_ps"] == 0 else f"{k['min_ps'] - 1}ps",
        "ratio": lambda k: k["max"] * 2,
        "bool": lambda k: "yes",
    }
    walked = 0
    for o in schema:
        t = o["kind"]["type"]
        if t not in bad:
            continue  # preset, params, window: checked by their own tests
        opts = {k: (v, f"tcp.{k}") for k, v in base.items()}
        opts[o["name"]] = (bad[t](o["kind"]), f"tcp.{o['name']}")
        with pytest.raises(ScenarioError) as e:
            tcp_options.resolve(opts)
        assert e.value.field == f"tcp.{o['name']}", (o["name"], str(e.value))
        walked += 1
    assert walked >= 40
    # and the core refuses an out-of-range integer under the option's name
    ok = tcp_options.resolve({k: (v, f"tcp.{k}") for k, v in base.items()})
    for o in schema:
        if o["kind"]["type"] == "int" and o["kind"]["hi"] < 2**32 - 1:  # above u32 is a type error
            v = dict(ok, **{o["core"]: o["kind"]["hi"] + 1})
            refused = _core.check_tcp(json.dumps(v))
            assert refused is not None and refused[0] == o["name"]


def test_no_source_file_is_over_800_lines() -> None:
    """A file a reader can hold in mind: split by responsibility (the study
    packages by section or by checks / figures) rather than let one grow."""
    files = list(PKG.rglob("*.py")) + list((ROOT / "crates").glob("*/src/**/*.rs"))
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text().splitlines())) > 800}
    assert long == {}, long


def test_the_verdict_table_is_generated_and_the_study_docs_agree_with_it() -> None:
    """docs/verdicts.md is `make run`'s rendering of the reports' claims.json
    (python/ccsim/studies/verdicts.py), not a hand-kept list: it is exactly
    the rendering of its own rows, it lists every claim of every study with
    the statement the code holds, and docs/studies.md keeps no tallies of its
    own and names no claim with another verdict ('**IW1-a partly.**')."""
    import re

    from ccsim import studies
    from ccsim.studies import verdicts

    text = (ROOT / "docs" / "verdicts.md").read_text()
    rows, mode, model_version = verdicts.parse(text)
    assert verdicts.render(rows, mode, model_version) == text
    from ccsim.studies import full_size

    recorded = full_size.load()
    assert {(r["study"], r["claim"]): r["full"] for r in rows} == {
        (r["study"], r["claim"]): full_size.text(recorded.get((r["study"], r["claim"]))) for r in rows
    }, "docs/verdicts.md's full-size column is not the record's (python -m ccsim.studies.verdicts --record-full)"
    code = {(n, c.id): c.statement.replace("|", "/") for n in studies.names() for c in studies.get(n).claims()}
    assert {(r["study"], r["claim"]): r["statement"] for r in rows} == code
    doc = (ROOT / "docs" / "studies.md").read_text()
    assert not re.findall(r"\d+ reproduced, \d+ partly", doc), "docs/studies.md: tallies belong in docs/verdicts.md"
    verdict_of = {r["claim"]: r["verdict"] for r in rows}
    for claim, said in re.findall(r"\*\*([A-Za-z0-9-]+) (reproduced|partly|not reproduced)\b", doc):
        if claim in verdict_of:
            assert verdict_of[claim] == said, (
                f"docs/studies.md says {claim} {said}; docs/verdicts.md: {verdict_of[claim]}"
            )


def test_the_performance_figures_name_sections_of_the_journal_that_exist() -> None:
    """docs/performance.md states today's figures; the column 'journal
    section' of its tables names where docs/history/performance.md measured
    each. Every name quoted there must begin a heading of the journal."""
    import re

    docs = PKG.parent.parent / "docs"
    heads = [
        ln.lstrip("#").strip()
        for ln in (docs / "history" / "performance.md").read_text().splitlines()
        if ln.startswith("#")
    ]
    cited: list[str] = []
    col = None
    for ln in (docs / "performance.md").read_text().splitlines():
        if not ln.startswith("|"):
            col = None
            continue
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if col is None:
            col = cells.index("journal section") if "journal section" in cells else -1
        elif col >= 0 and not set(cells[col]) <= set("-"):
            cited += [c.rstrip(" …") for c in re.findall(r'"([^"]+)"', cells[col])]
    assert len(cited) >= 20
    missing = [
        c
        for c in cited
        if c != "same" and not any(h.startswith(c.removeprefix("… ")) or c.removeprefix("… ") in h for h in heads)
    ]
    assert missing == [], missing


# The Rust core's packages (top-level modules of crates/ccsim-core/src),
# bottom first: a package may use only packages of lower layers (and its
# own). docs/architecture.md, "Layers of the core", says why each sits where.
RUST_LAYERS: list[set[str]] = [
    {"units", "rng", "ring", "record", "control", "hist"},
    {"packet", "tracefile", "opts"},  # wire-level facts, trace files, the option vocabulary
    {"cc", "queue", "loss"},  # algorithms, queue disciplines, loss models: each declares its own options
    {"config"},  # plain data and its validation (against the cc, queue and loss registries)
    {"link"},
    {"route", "sched", "app"},
    {"tcp"},
    {"output"},
    {"sim"},
    {"presets"},
]


def rust_package_graph() -> dict[str, set[str]]:
    """Package -> the packages its non-test code names (`crate::x`)."""
    import re

    src = PKG.parent.parent / "crates" / "ccsim-core" / "src"
    graph: dict[str, set[str]] = {}
    for p in src.rglob("*.rs"):
        pkg = p.relative_to(src).with_suffix("").parts[0]
        if pkg == "lib" or p.name == "tests.rs" or "tests" in p.relative_to(src).parts:
            continue
        text = p.read_text()
        text = text[: text.find("#[cfg(test)]")] if "#[cfg(test)]" in text else text
        graph.setdefault(pkg, set()).update(t for t in re.findall(r"crate::([a-z_0-9]+)", text) if t != pkg)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node."""
    out: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_rust_core_has_layers_and_no_circle() -> None:
    """No package of the core uses one above it, so its import graph has no
    circle: configuration is data below the links that build from it, and
    the algorithms take the ECN codepoints from the packet, not from the
    configuration."""
    # the checks find what they forbid: a circle, and an arrow up
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = rust_package_graph()
    layer = {m: i for i, ms in enumerate(RUST_LAYERS) for m in ms}
    assert set(graph) == set(layer), "a package of the core is missing from RUST_LAYERS (or gone)"
    assert circles(graph) == []
    up = sorted(f"{a} -> {b}" for a, deps in graph.items() for b in deps if b in layer and layer[b] > layer[a])
    assert up == [], f"arrows back up: {up}"
    # before the layering, config named the link's trace and transmitter and
    # the algorithms named config's ECN enums (a circle through config and
    # link), and the queue disciplines read their configuration from config
    # (an arrow up, now that they sit below it)
    old = {**graph, "config": graph["config"] | {"link"}, "cc": graph["cc"] | {"config"}}
    assert circles(old) == [["cc", "config", "link"]]
    was = {**graph, "queue": graph["queue"] | {"config"}}
    assert [f"{a} -> {b}" for a, deps in was.items() for b in deps if layer.get(b, -1) > layer[a]] == [
        "queue -> config"
    ]


def test_the_performance_doc_states_the_guarded_instruction_counts() -> None:
    """docs/performance.md gives each case of the cost guard
    (tools/instructions.json) with its recorded instructions per packet and
    per event, rounded: the doc cannot drift from what the test holds."""
    import json

    guard = json.loads((PKG.parent.parent / "tools" / "instructions.json").read_text())
    doc = (PKG.parent.parent / "docs" / "performance.md").read_text()
    row = next(ln for ln in doc.splitlines() if ln.startswith("| instructions per delivered packet and per event"))
    for c in guard["cases"]:
        assert f"{round(c['instr_per_pkt']):,} / {round(c['instr_per_event']):,}" in row, c


def test_mypy_is_strict_for_every_module_with_no_exemption() -> None:
    """pyproject.toml makes mypy strict for the whole package, the tests and
    the measurement tools, and no override turns a strict check back off for
    a module of any of them
    (the only overrides allowed say that a library publishes no types)."""
    import tomllib

    cfg = tomllib.loads((PKG.parent.parent / "pyproject.toml").read_text())["tool"]["mypy"]
    assert cfg["strict"] is True
    assert set(cfg["files"]) == {"python/ccsim", "tests", "tools"}
    for o in cfg.get("overrides", []):
        assert set(o) == {"module", "ignore_missing_imports"}, o
        mods = o["module"] if isinstance(o["module"], list) else [o["module"]]
        ours = {p.stem for p in (PKG.parent.parent / "tools").glob("*.py")} | {"ccsim", "tests"}
        assert not [m for m in mods if m.split(".")[0] in ours or m.startswith("test_")], mods
