"""Sweeps: a base scenario plus axes, expanded into points (one run each).

A sweep file (TOML)::

    base = "dumbbell.toml"          # a scenario file relative to this file, or a [base] table
    seeds = 5                       # seeds 1..5, or a list [1, 2, 3]; default: the base's sim.seed
    [set]                           # optional: constant changes to the base (not axes)
    "sim.duration" = "30s"
    [grid]                          # cartesian product; keys are dotted scenario paths
    "tcp.cc" = ["newreno", "cubic"]
    "topology.buffer" = ["0.25bdp", "1bdp"]
    [zip]                           # axes that vary together (all the same length); [[zip]] for several groups
    "topology.bottleneck_rate" = ["10Mbps", "100Mbps"]
    "sim.duration" = ["120s", "30s"]
    [[plot]]                        # optional figures drawn after the sweep (docs/experiments.md)

In Python, ``Sweep(base, grid={...}, zip={...}, seeds=5)``; a callable in
``grid`` is a *derived* value, computed from the point's other values
(``lambda p: ...`` with ``p["topology.bottleneck_rate"]``, ``p["seed"]``).

Points are enumerated lazily in a fixed order: grid axes in the order given
(the first varies slowest), then each zip group, then the seed (fastest).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from ..scenario.overrides import parse_path, set_path

if TYPE_CHECKING:
    from ..pyalgo import CodeTrust
    from ..scenario import Scenario

SWEEP_KEYS = {"name", "base", "set", "seeds", "grid", "zip", "plot", "backend"}
BACKENDS = ("sim", "emulation")
PLOT_KEYS = {"x", "y", "hue", "reduce", "title", "file"}


class SweepError(ScenarioError):
    """An invalid sweep or sweep point; the message names the axis, the point and the field."""


@dataclass
class Point:
    index: int  # 0-based position in the sweep's order
    params: dict[str, Any]  # axis path -> value, derived values, and "seed"
    raw: dict[str, Any]  # the scenario mapping with the point applied

    def scenario(self, source: str = "<sweep>", code: CodeTrust | None = None) -> Scenario:
        from ..scenario import Scenario

        return Scenario(self.raw, source=source, code=code)


def _check_axis(where: str, path: str, values: Any, *, allow_callable: bool) -> None:
    try:
        parse_path(path)
    except ScenarioError as e:
        raise SweepError(f"{where}.{path}", message=f"{where}: axis {path!r}: {e}") from None
    if parse_path(path)[0][0] not in ("sim", "topology", "tcp", "flows"):
        raise SweepError(
            f"{where}.{path}",
            message=(f"{where}: axis {path!r}: expected a path inside sim, topology, tcp or flows (e.g. 'tcp.cc')"),
        )
    if path == "sim.seed":
        raise SweepError(f"{where}.{path}", message=f"{where}: axis 'sim.seed': use seeds = ... instead")
    if allow_callable and callable(values):
        return
    if not isinstance(values, list) or not values:
        raise SweepError(
            f"{where}.{path}",
            values,
            "a non-empty list of values" + (" or a callable (derived value)" if allow_callable else ""),
        )


class Sweep:
    """A base scenario and the axes to vary. See the module docstring."""

    def __init__(
        self,
        base: Any,
        grid: dict[str, Any] | None = None,
        zip: dict[str, Any] | list[dict[str, Any]] | None = None,
        seeds: int | list[int] | None = None,
        *,
        set: dict[str, Any] | None = None,
        name: str | None = None,
        plots: list[dict[str, Any]] | None = None,
        source: str = "<sweep>",
        text: str | None = None,
        backend: str = "sim",
        allow_code: bool | None = None,
        code_dir: Path | None = None,
    ) -> None:
        self.source = source
        if backend not in BACKENDS:
            raise SweepError(
                "backend", backend, "'sim' (the simulator) or 'emulation' (the running kernel's TCP, docs/emulation.md)"
            )
        self.backend = backend
        self.text = text
        self.base_raw, self.base_source = _base(base, source)
        self.code = _trust(base, allow_code, code_dir)
        if set is not None and not isinstance(set, dict):
            raise SweepError("set", set, "a table of path = value (constant changes to the base)")
        self.set = dict(set or {})
        for k, v in self.set.items():
            _check_axis("set", k, [v], allow_callable=False)
            try:
                set_path(self.base_raw, k, v)
            except ScenarioError as e:
                raise SweepError(f"set.{k}", message=f"set: {k!r}: {e}") from None
        self._refuse_overridden_sets()
        grid = dict(grid or {})
        self.axes: dict[str, list[Any]] = {}
        self.derived: dict[str, Callable[[dict[str, Any]], Any]] = {}
        for k, v in grid.items():
            _check_axis("grid", k, v, allow_callable=True)
            if callable(v):
                self.derived[k] = v
            else:
                self.axes[k] = list(v)
        zgroups = [] if zip is None else ([zip] if isinstance(zip, dict) else zip)
        if not isinstance(zgroups, list) or not all(isinstance(g, dict) for g in zgroups):
            raise SweepError("zip", zip, "a table of equally long lists, or a list of such tables")
        self.zips: list[dict[str, list[Any]]] = []
        for gi, g in enumerate(zgroups):
            where = "zip" if len(zgroups) == 1 else f"zip[{gi}]"
            if not g:
                raise SweepError(where, g, "at least one axis")
            n = None
            for k, v in g.items():
                _check_axis(where, k, v, allow_callable=False)
                if k in self.axes or any(k in z for z in self.zips) or k in self.derived:
                    raise SweepError(f"{where}.{k}", message=f"{where}: axis {k!r} appears twice in the sweep")
                if n is not None and len(v) != n:
                    raise SweepError(
                        f"{where}.{k}",
                        message=(
                            f"{where}: axis {k!r} has {len(v)} values but the group's first axis has {n}; "
                            "axes that vary together need the same number of values"
                        ),
                    )
                n = len(v)
            self.zips.append({k: list(v) for k, v in g.items()})
        if seeds is None:
            from ..scenario.resolve import SIM_SCHEMA

            sim = self.base_raw.get("sim")
            self.seeds = [(sim if isinstance(sim, dict) else {}).get("seed", SIM_SCHEMA["defaults"]["seed"])]
        elif isinstance(seeds, bool):
            raise SweepError("seeds", seeds, "a number of seeds (n gives 1..n) or a list of seeds")
        elif isinstance(seeds, int):
            if not 1 <= seeds <= 1_000_000:
                raise SweepError("seeds", seeds, "a number of seeds from 1 to 1000000")
            self.seeds = list(range(1, seeds + 1))
        elif (
            isinstance(seeds, list)
            and seeds
            and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**64 for x in seeds)
        ):
            if len(dict.fromkeys(seeds)) != len(seeds):  # (`set` is a parameter here)
                raise SweepError("seeds", seeds, "a list of distinct seeds")
            self.seeds = list(seeds)
        else:
            raise SweepError(
                "seeds", seeds, "a number of seeds (n gives 1..n) or a non-empty list of integer seeds ≥ 0"
            )
        self.name = name
        self.plots = [_check_plot(i, p) for i, p in enumerate(plots or [])]

    def _refuse_overridden_sets(self) -> None:
        """A constant change (`set`) that a flow group's own setting replaces
        for every flow would silently do nothing: refused, naming both."""
        from ..scenario.resolve import Scenario, overridden_by, refuse_overridden

        for k, v in self.set.items():
            if not overridden_by(self.base_raw, k):
                continue
            try:
                core = Scenario(self.base_raw, source=self.base_source, code=self.code).core
            except ScenarioError:
                return  # the base itself is invalid: each point will say so
            try:
                refuse_overridden(self.base_raw, k, v, core, "sweep set", self.base_source, self.code)
            except ScenarioError as e:
                raise SweepError(f"set.{k}", message=f"{self.source}: set: {e}") from None

    # ---- construction from files
    @classmethod
    def from_toml(
        cls, text: str, source: str = "<sweep>", base_dir: Path | None = None, *, allow_code: bool = False
    ) -> Sweep:
        """A sweep from TOML text; `base_dir` is the folder its file names
        are relative to (and, for a file, where a `py:` algorithm of its
        `[base]` table is looked for: see `allow_code`)."""
        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SweepError(source, message=f"{source}: malformed TOML: {e}") from None
        unknown = sorted(set(d) - SWEEP_KEYS)
        if unknown:
            raise SweepError(
                unknown[0],
                message=(
                    f"{source}: {unknown[0]}: unknown key; a sweep file has {', '.join(sorted(SWEEP_KEYS))} "
                    "(is this a scenario file? run it with 'ccsim run')"
                ),
            )
        if "base" not in d:
            raise SweepError(
                "base", message=f"{source}: base: missing; expected a scenario file name or a [base] table"
            )
        base = d["base"]
        if isinstance(base, str):
            base = Path(base) if base_dir is None or Path(base).is_absolute() else base_dir / base
        plots = d.get("plot", [])
        if isinstance(plots, dict):
            plots = [plots]
        name = d.get("name")
        if name is not None and not isinstance(name, str):
            raise SweepError("name", name, "a string")
        grid = d.get("grid", {})
        if not isinstance(grid, dict):
            raise SweepError("grid", grid, "a table of axis = [values]")
        return cls(
            base,
            grid=grid,
            zip=d.get("zip"),
            seeds=d.get("seeds"),
            set=d.get("set"),
            name=name,
            plots=plots,
            source=source,
            text=text,
            backend=d.get("backend", "sim"),
            allow_code=allow_code,
            code_dir=base_dir,
        )

    @classmethod
    def from_file(cls, path: str | Path, *, allow_code: bool = False) -> Sweep:
        """A sweep file. Its scenarios' `py:` algorithm references import
        (run) Python code only with `allow_code=True`, as
        :meth:`ccsim.Scenario.from_file`."""
        from ..scenario.resolve import read_text

        try:
            text = read_text(path, "sweep file")
        except ScenarioError as e:
            raise SweepError(str(path), message=str(e)) from None
        return cls.from_toml(text, source=str(path), base_dir=Path(path).parent, allow_code=allow_code)

    # ---- expansion
    def axis_names(self) -> list[str]:
        return list(self.axes) + [k for z in self.zips for k in z] + list(self.derived) + ["seed"]

    def __len__(self) -> int:
        n = math.prod(len(v) for v in self.axes.values())
        for z in self.zips:
            n *= len(next(iter(z.values())))
        return n * len(self.seeds)

    def _sizes(self) -> list[int]:
        return (
            [len(v) for v in self.axes.values()] + [len(next(iter(z.values()))) for z in self.zips] + [len(self.seeds)]
        )

    def point_at(self, index: int) -> Point:
        """The point at position `index` of the sweep's order, without
        expanding the ones before it (a dry run samples a huge sweep so)."""
        if not 0 <= index < len(self):
            raise IndexError(f"sweep point {index}: the sweep has {len(self)}")
        combo = []
        for size in reversed(self._sizes()):
            index, digit = divmod(index, size)
            combo.append(digit)
        return next(self._points([tuple(reversed(combo))], start=None))

    def points(self) -> Iterator[Point]:
        """Every point, lazily, in the sweep's order."""
        return self._points(itertools.product(*[range(n) for n in self._sizes()]), start=0)

    def _points(self, combos: Iterable[tuple[int, ...]], start: int | None) -> Iterator[Point]:
        """The points of `combos` (index digits per axis); `start` numbers
        them from there, None computes each one's index from its digits."""
        grid_names = list(self.axes)
        sizes = self._sizes()
        for k, combo in enumerate(combos):
            if start is None:
                index = 0
                for d, n in zip(combo, sizes):
                    index = index * n + d
            else:
                index = start + k
            params: dict[str, Any] = {}
            for name, i in zip(grid_names, combo):
                params[name] = self.axes[name][i]
            for z, i in zip(self.zips, combo[len(grid_names) :]):
                for name, vals in z.items():
                    params[name] = vals[i]
            params["seed"] = self.seeds[combo[-1]]
            for name, fn in self.derived.items():
                try:
                    params[name] = fn(dict(params))
                except Exception as e:  # a user's callable: report which axis and point
                    raise SweepError(
                        name,
                        message=(
                            f"sweep point {index + 1} of {len(self)} ({_fmt(params)}): derived axis {name!r} "
                            f"raised {type(e).__name__}: {e}"
                        ),
                    ) from None
            raw = copy.deepcopy(self.base_raw)
            for name, v in params.items():
                if name == "seed":
                    continue
                try:
                    set_path(raw, name, v)
                except ScenarioError as e:
                    raise SweepError(
                        name, message=f"sweep point {index + 1} of {len(self)} ({_fmt(params)}): axis {name!r}: {e}"
                    ) from None
            raw.setdefault("sim", {})["seed"] = params["seed"]
            yield Point(index, params, raw)

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (campaign.json records it)."""
        return {
            "source": self.source,
            "name": self.name,
            "base": self.base_source,
            "set": self.set,
            "grid": dict(self.axes.items()),
            "zip": self.zips,
            "derived": {k: getattr(f, "__name__", repr(f)) for k, f in self.derived.items()},
            "seeds": self.seeds,
            "runs": len(self),
            "text": self.text,
            "backend": self.backend,
        }

    def __repr__(self) -> str:
        axes = (
            [f"{k} ({len(v)})" for k, v in self.axes.items()]
            + [f"{k} ({len(next(iter(z.values())))}, zipped)" for z in self.zips for k in z]
            + [f"{k} (derived)" for k in self.derived]
        )
        return (
            f"<Sweep {self.name or self.source} over {self.base_source}: {len(self) // len(self.seeds)} points × "
            f"{len(self.seeds)} seeds = {len(self)} runs; axes: {', '.join(axes) or 'none'}; "
            f"backend {self.backend}>"
        )

    def _repr_html_(self) -> str:
        from html import escape

        rows = (
            [(k, ", ".join(map(repr, v))) for k, v in self.axes.items()]
            + [(k, ", ".join(map(repr, v)) + " (zipped)") for z in self.zips for k, v in z.items()]
            + [(k, "derived") for k in self.derived]
            + [("seed", ", ".join(map(str, self.seeds[:20])) + (" …" if len(self.seeds) > 20 else ""))]
        )
        body = "".join(
            f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(v)}</td></tr>"
            for k, v in rows
        )
        return (
            f"<b>ccsim Sweep</b> {escape(self.name or self.source)}: {len(self) // len(self.seeds)} points × "
            f"{len(self.seeds)} seeds = {len(self)} runs<table>{body}</table>"
        )

    def point_error(self, point: Point, e: ScenarioError) -> SweepError:
        """Re-word a scenario error at `point`, naming the axis it came from."""
        field = getattr(e, "field", "") or ""
        axis = None
        for name in sorted((n for n in point.params if n != "seed"), key=len, reverse=True):
            pat = "^" + re.escape(name).replace(r"\[\*\]", r"\[[0-9]+\]") + r"($|[.\[])"
            if re.match(pat, field) or re.match(pat, str(e)):
                axis = name
                break
        if axis is None:
            # a [tcp] axis as a flow group's resolved option names it ('tcp.mss' → 'flows[0].mss = …')
            for name in (n for n in point.params if n.startswith("tcp.")):
                key = re.escape(name.split(".", 1)[1])
                if re.match(rf"^flows\[[0-9]+\]\.{key}\b", str(e)) or re.match(rf"^flows\[[0-9]+\]\.{key}$", field):
                    axis = name
                    break
        if axis is None and field.startswith("sim.seed"):
            axis = "seed"
        who = f"axis {axis} = {point.params[axis]!r}" if axis else "the base scenario"
        return SweepError(
            field or "scenario",
            message=(f"sweep point {point.index + 1} of {len(self)} ({_fmt(point.params)}): {who}: {e}"),
        )


def _fmt(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _base(base: Any, source: str) -> tuple[dict[str, Any], str]:
    from ..scenario import Builder, Scenario

    if isinstance(base, Scenario):
        return copy.deepcopy(base.raw), base.source
    if isinstance(base, Builder):
        return base.to_dict(), "<builder>"
    if isinstance(base, dict):
        return copy.deepcopy(base), f"{source} [base]"
    if isinstance(base, (str, Path)):
        from ..scenario.resolve import read_mapping

        try:
            return read_mapping(base), str(base)
        except ScenarioError as e:
            raise SweepError("base", message=f"{source}: base: {e}") from None
    raise SweepError("base", base, "a scenario file name, a table, a Scenario or a Builder")


def _trust(base: Any, allow_code: bool | None, code_dir: Path | None) -> CodeTrust:
    """What the sweep's `py:` references may import (`pyalgo.CodeTrust`).
    A base file, or a `[base]` table read from a sweep file (`code_dir`):
    only with `allow_code`, from that file's folder. A base built in Python
    is the user's own code (imported as Python would) unless `allow_code`
    is False. A Scenario base carries its own leave: `allow_code` given
    beside it would be ignored, so it is refused."""
    from .. import pyalgo
    from ..scenario import Scenario
    from ..scenario.resolve import file_trust

    if allow_code is not None and not isinstance(allow_code, bool):
        raise SweepError("allow_code", allow_code, "True, False or None")
    if isinstance(base, Scenario):
        if allow_code is not None:
            raise SweepError("allow_code", message=pyalgo.TRUST_CARRIED)
        carried: pyalgo.CodeTrust = base.code
        return carried
    if isinstance(base, (str, Path)):
        return file_trust(base, bool(allow_code))
    if code_dir is not None:
        return file_trust(Path(code_dir) / "sweep", bool(allow_code))
    return pyalgo.CodeTrust(False) if allow_code is False else pyalgo.IN_PROCESS


def _check_plot(i: int, p: Any) -> dict[str, Any]:
    where = f"plot[{i}]"
    if not isinstance(p, dict):
        raise SweepError(where, p, "a table with x, y and optionally hue, reduce, title, file")
    for k in p:
        if k not in PLOT_KEYS:
            raise SweepError(
                f"{where}.{k}", message=f"{where}.{k}: unknown key; accepted keys: {', '.join(sorted(PLOT_KEYS))}"
            )
    for k in ("x", "y"):
        if not isinstance(p.get(k), str):
            raise SweepError(
                f"{where}.{k}", p.get(k), "a string: x an axis name, y 'table.column' (e.g. 'flows.goodput_bps')"
            )
    return dict(p)


def canonical_json(obj: Any) -> str:
    """One text for one value: sorted keys, no spaces, ASCII (used for run ids)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)
