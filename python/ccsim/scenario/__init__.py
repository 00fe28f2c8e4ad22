"""The scenario front end: what a user writes, checked and resolved into
the explicit scenario the core runs. resolve.py (`Scenario`, `Builder`,
`load`: the one validator and resolver, files read), the option schemas it
reads from the core or keeps (tcp_options.py, netmodels.py, traffic.py,
topologies/ (one module per topology kind), linkrates.py), units.py, mixes.py (named background
traffic), overrides.py and tomlio.py (dotted-path overrides, scenarios
written back as TOML), _check.py (the checks they share).

This file is the package's face: `from ccsim.scenario import Scenario`
loads the resolver on first use (PEP 562), so importing one of the schema
modules does not."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, re-exported, for type checkers and editors
    from .resolve import Builder as Builder
    from .resolve import Scenario as Scenario
    from .resolve import load as load

_FACE = {"Scenario", "Builder", "load"}

__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    if name not in _FACE:
        raise AttributeError(f"module 'ccsim.scenario' has no attribute {name!r}")
    value = getattr(importlib.import_module(".resolve", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _FACE)
