"""Write a scenario mapping back as TOML (``Scenario.to_toml``, ``ccsim.dump``).

Writing uses tomli-w (the standard library reads TOML but does not write it).
``None`` means "not given" in a scenario and TOML has no null, so keys whose
value is None are left out; tuples become arrays and numpy scalars plain
numbers. The text is then read back and resolved, and must give exactly the
same resolved scenario, or writing fails naming what did not survive.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError

_ORDER = ("sim", "topology", "tcp", "flows")


def _plain(v: Any, where: str) -> Any:
    if isinstance(v, dict):
        return {str(k): _plain(x, f"{where}.{k}" if where else str(k)) for k, x in v.items() if x is not None}
    if isinstance(v, (list, tuple)):
        if any(x is None for x in v):
            raise ScenarioError(where, list(v), "a list without None (TOML has no null)")
        return [_plain(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, (bool, int, float, str)):
        return v
    if hasattr(v, "item") and callable(v.item):  # numpy scalar
        return _plain(v.item(), where)
    raise ScenarioError(where, v, "a TOML value (string, number, boolean, list or table)")


def dumps(raw: dict[str, Any]) -> str:
    import tomli_w

    d = _plain(raw, "")
    ordered = {k: d[k] for k in _ORDER if k in d}
    ordered.update({k: v for k, v in d.items() if k not in ordered})
    return tomli_w.dumps(ordered, multiline_strings=False)


def scenario_to_toml(sc: Any) -> str:
    """TOML text for a validated Scenario; checked to resolve identically."""
    text = dumps(sc.raw)
    back = type(sc).from_toml(text, source=f"{sc.source} (written as TOML)")
    if back.core != sc.core:
        diff = sorted(k for k in set(back.core) | set(sc.core) if back.core.get(k) != sc.core.get(k))
        raise ScenarioError(
            sc.source,
            message=(
                f"{sc.source}: the scenario does not survive being written as TOML (resolved fields that differ: "
                f"{', '.join(diff)}); a None value probably means something other than 'not given' here"
            ),
        )
    return text
