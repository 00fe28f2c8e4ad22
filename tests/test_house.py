"""Structure of the package: the import graph has no circle, counting the
imports made inside functions too (a lazy import still couples two modules)."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "python" / "ccsim"


def _module(p: Path) -> str:
    parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for p in PKG.rglob("*.py"):
        mod = _module(p)
        pkg = mod if p.name == "__init__.py" else mod.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [f"{target}.{a.name}" for a in node.names]
                deps.update(n for n in names if n.replace(".", "/") and (PKG.parent / (n.replace(".", "/") + ".py")).exists())
                deps.add(target)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("ccsim"))
        deps.discard(mod)
        graph[mod] = deps
    return graph


def test_no_import_cycles():
    graph = import_graph()
    # a package's __init__ may name its submodules lazily (PEP 562); edges from
    # the root package to its modules are the public surface, not coupling
    graph["ccsim"] = set()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if v not in graph:
                continue
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
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
    assert {"ccsim.scenario", "ccsim.results", "ccsim.topologies", "ccsim.tcp_options"} <= set(graph)
