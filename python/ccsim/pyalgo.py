"""Congestion-control algorithms written in Python.

A subclass of :class:`Algorithm` names Linux's hooks (``struct
tcp_congestion_ops``, include/net/tcp.h); the Rust core calls them through
the same interface as its own algorithms. A scenario names one with
``tcp.cc = "NAME"`` after :func:`register_algorithm`, or with
``tcp.cc = "py:MODULE:CLASS"``. From a scenario built in Python the module is
imported as Python imports it; from a scenario file only when the user allows
code (``CodeTrust``), and only from MODULE.py in the file's folder or a path
the reference gives.
docs/python-algorithms.md describes every hook beside Linux's.
"""

from __future__ import annotations

import contextvars
import dataclasses
import difflib
import hashlib
import importlib
import importlib.util
import inspect
import math
import os
import random
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core
from .errors import ScenarioError

if TYPE_CHECKING:
    from ._core import AckSample, RateSample, Tcp

# The hooks a class may define, in Linux's order; `ssthresh` is required,
# and `cong_avoid` unless `cong_control` is given.
HOOKS = (
    "init",
    "ssthresh",
    "cong_avoid",
    "set_state",
    "cwnd_event",
    "in_ack_event",
    "pkts_acked",
    "undo_cwnd",
    "cong_control",
    "on_timer",
)
RECOVERIES = ("tahoe", "reno", "newreno")
_NAME = re.compile(r"^[a-z][a-z0-9_\-]{0,39}$")


class Algorithm:
    """Base class of a Python congestion-control algorithm.

    Class attributes: ``name`` (what scenarios write as ``tcp.cc``) and
    ``recovery`` (loss recovery without SACK: "tahoe", "reno" or
    "newreno", the default; with SACK the stack's SACK/RACK recovery
    runs). Parameters from ``[tcp.cc_params]`` reach the constructor as
    keyword arguments. ``self.rng`` is a ``random.Random`` seeded from the
    run's seed and the flow, for algorithms that draw at random.

    Every hook receives ``tp``, a view of the connection valid only during
    the call (``ccsim.cc.Tcp``)."""

    name: str = ""
    recovery: str = "newreno"
    timer_interval: float | None = None

    def init(self, tp: Tcp) -> None:
        """Linux ``.init``: the connection starts."""

    def ssthresh(self, tp: Tcp) -> int:
        """Linux ``.ssthresh`` (required): the slow-start threshold after a
        loss, segments. ``tp`` is read-only here."""
        raise NotImplementedError

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        """Linux ``.cong_avoid``: grow ``tp.cwnd`` on an ACK of ``acked``
        new segments while cwnd-limited and not in recovery."""

    def set_state(self, tp: Tcp, new_state: int) -> None:
        """Linux ``.set_state``: the congestion state changes
        (``ccsim.cc.CA_OPEN`` ... ``CA_LOSS``)."""

    def cwnd_event(self, tp: Tcp, event: int) -> None:
        """Linux ``.cwnd_event`` (``ccsim.cc.CA_EVENT_*``)."""

    def in_ack_event(self, tp: Tcp, flags: int) -> None:
        """Linux ``.in_ack_event``: every ACK; ``flags`` holds
        ``ccsim.cc.CA_ACK_ECE``. ``tp`` is read-only here."""

    def pkts_acked(self, tp: Tcp, sample: AckSample) -> None:
        """Linux ``.pkts_acked``: the ACK's sample (``acked``, ``rtt_s``,
        ``in_flight``)."""

    def undo_cwnd(self, tp: Tcp) -> int:
        """Linux ``.undo_cwnd``: the window after a spurious reduction
        (default max(cwnd, prior_cwnd), as tcp_reno_undo_cwnd). ``tp`` is
        read-only here."""
        return max(tp.cwnd, tp.prior_cwnd)

    def cong_control(self, tp: Tcp, rs: RateSample) -> None:
        """Linux ``.cong_control``: full control from a delivery-rate sample
        (``ccsim.cc.RateSample``) on every ACK, in place of ``cong_avoid``
        (BBR-style); the sender then leaves cwnd alone in recovery."""

    def on_timer(self, tp: Tcp) -> None:
        """Called every ``timer_interval`` seconds from the flow's start
        while its connection has data to deliver (CCP's reports on a timer,
        Narayan et al., SIGCOMM 2018); it may set ``tp.cwnd`` and
        ``tp.pacing_rate``. Define ``timer_interval`` with it."""

    @property
    def rng(self) -> random.Random:
        r = self.__dict__.get("_ccsim_rng")
        if r is None:
            r = self.__dict__["_ccsim_rng"] = random.Random(self.__dict__.get("_ccsim_seed", 0))
        return r

    @classmethod
    def _overridden(cls) -> tuple[str, ...]:
        return tuple(h for h in HOOKS if getattr(cls, h) is not getattr(Algorithm, h))


_REGISTRY: dict[str, type[Algorithm]] = {}


def _check_class(cls: Any, where: str) -> type[Algorithm]:
    if not (isinstance(cls, type) and issubclass(cls, Algorithm)) or cls is Algorithm:
        raise TypeError(f"{where}: {cls!r} is not a subclass of ccsim.Algorithm")
    name = cls.name or cls.__name__.lower()
    if not isinstance(name, str) or not _NAME.match(name):
        raise TypeError(
            f"{where}: name = {name!r}; expected lowercase letters, digits, '_' or '-', starting with a letter (≤ 40)"
        )
    if name in _core.algorithms():
        raise TypeError(f"{where}: name = {name!r} is a built-in algorithm; choose another name")
    if cls.recovery not in RECOVERIES:
        raise TypeError(f"{where}: recovery = {cls.recovery!r}; expected one of {', '.join(RECOVERIES)}")
    hooks = cls._overridden()
    if "ssthresh" not in hooks:
        raise TypeError(f"{where}: {cls.__name__} must define ssthresh(self, tp) (Linux requires it)")
    if "cong_avoid" not in hooks and "cong_control" not in hooks:
        raise TypeError(
            f"{where}: {cls.__name__} must define cong_avoid(self, tp, acked) or cong_control(self, tp, rs)"
        )
    ti = cls.timer_interval
    if ("on_timer" in hooks) != (ti is not None):
        missing = "on_timer but no timer_interval" if ti is None else "timer_interval but no on_timer"
        raise TypeError(
            f"{where}: {cls.__name__} defines {missing}; a timer needs both "
            "(timer_interval = seconds between calls of on_timer(self, tp))"
        )
    if ti is not None and (
        isinstance(ti, bool) or not isinstance(ti, (int, float)) or not math.isfinite(ti) or ti < 1e-6
    ):
        raise TypeError(f"{where}: timer_interval = {ti!r}; expected seconds, a finite number ≥ 1e-6 (1 µs)")
    for attr, v in vars(cls).items():
        if attr.startswith("_") or attr in HOOKS or not callable(v):
            continue
        near = difflib.get_close_matches(attr, HOOKS, n=1, cutoff=0.9)
        if near:
            raise TypeError(
                f"{where}: {cls.__name__}.{attr} looks like a hook but is not one, so it would never be called; "
                f"did you mean {near[0]}? (the hooks: {', '.join(HOOKS)}; a helper method whose name is this close "
                f"to a hook's needs a leading underscore)"
            )
    if "<locals>" in cls.__qualname__:
        raise TypeError(
            f"{where}: {cls.__qualname__} is defined inside a function; a run (and a sweep's worker) finds an "
            f"algorithm by its module and name, so define the class at the top level of a module, script or "
            f"notebook cell"
        )
    return cls


def register_algorithm(cls: type[Algorithm]) -> type[Algorithm]:
    """Make ``cls`` available to scenarios as ``tcp.cc = cls.name`` (usable
    as a decorator). A class defined in ``__main__`` (a script or a
    notebook) runs in-process; a sweep on worker processes needs it in an
    importable module."""
    cls = _check_class(cls, "register_algorithm")
    name = cls.name or cls.__name__.lower()
    old = _REGISTRY.get(name)
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise TypeError(
            f"register_algorithm: name {name!r} is already registered by {old.__module__}.{old.__qualname__}"
        )
    _REGISTRY[name] = cls
    return cls


def registered() -> dict[str, type[Algorithm]]:
    return dict(_REGISTRY)


@dataclasses.dataclass(frozen=True)
class CodeTrust:
    """Whether a scenario may import the Python module a ``py:`` reference
    names, and where that module is looked for. A scenario built in the
    running Python process (a dict, a Builder) is the user's own code:
    ``IN_PROCESS`` imports the module as Python would (the current
    directory, then the environment). A scenario file is someone's text:
    its ``py:`` references run nothing unless the user allows it
    (``allowed``), and then only a module file in the file's own folder
    (``folder``) or at a path it names."""

    allowed: bool
    folder: Path | None = None


IN_PROCESS = CodeTrust(True)
# The refusal of `allow_code` given beside a Scenario object (ccsim.run,
# Sweep), which carries the leave it was loaded with.
TRUST_CARRIED = (
    "allow_code: a Scenario carries its own (give allow_code where it was loaded: "
    "Scenario.from_file(path, allow_code=...))"
)
TRUST: contextvars.ContextVar[CodeTrust] = contextvars.ContextVar("ccsim_code_trust", default=IN_PROCESS)
# module name -> the file it was loaded from by a scenario file's reference
# (a sweep's worker processes load it from there too: `preload`)
_FROM_FILE: dict[str, str] = {}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        cwd = os.getcwd()
        if e.name != module.split(".")[0] or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)  # "importable from the current directory"
        return importlib.import_module(module)


def _module_file(field: str, value: str, module: str, folder: Path) -> tuple[str, Path]:
    """(module name, file) of a file scenario's ``py:`` reference: NAME
    (NAME.py in the scenario's folder) or a path to a .py file (relative
    to that folder); never a search of sys.path."""
    if "/" in module or module.endswith(".py"):
        path = Path(module)
        path = path if path.is_absolute() else folder / path
        name = path.stem
    elif _IDENT.match(module):
        path, name = folder / f"{module}.py", module
    else:
        raise ScenarioError(
            field,
            value,
            "'py:NAME:CLASS' with NAME.py in the scenario file's folder, or 'py:PATH.py:CLASS' "
            "(a path relative to that folder)",
        )
    if not path.name.endswith(".py") or not _IDENT.match(name):
        raise ScenarioError(field, value, "a module file named NAME.py, NAME a Python identifier")
    if not path.is_file():
        raise ScenarioError(
            field,
            message=f"{field}: {value!r}: no module file {str(path)[:200]!r} (a scenario file's Python algorithm is "
            f"looked for in the file's own folder, or at the path it gives, never elsewhere)",
        )
    return name, path.resolve()


def _import_file(field: str, name: str, path: Path) -> Any:
    """Import `path` as module `name` (once); a different module already
    loaded under that name is refused rather than silently used."""
    old = sys.modules.get(name)
    if old is not None:
        have = getattr(old, "__file__", None)
        if have and Path(have).resolve() == path:
            return old
        raise ScenarioError(
            field,
            message=f"{field}: module {name!r} is already loaded from {str(have or '(built in)')[:200]!r}, not from "
            f"{str(path)[:200]!r}; give the algorithm's file another name",
        )
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ScenarioError(field, message=f"{field}: cannot import {str(path)[:200]!r}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    _FROM_FILE[name] = str(path)
    return mod


def module_files(modules: list[str]) -> dict[str, str | None]:
    """{module: the file a scenario file's reference loaded it from, or
    None for a module Python finds itself} (a worker's `preload`)."""
    return {m: _FROM_FILE.get(m) for m in modules}


def preload(modules: dict[str, str | None]) -> None:
    """In a sweep's worker process: load the modules scenario files named
    from the files the client loaded them from (a Dask worker on another
    machine has the uploaded file on its path instead)."""
    for name, path in modules.items():
        if path and name not in sys.modules and os.path.isfile(path):
            _import_file(f"py:{name}", name, Path(path))


def _load(source: str) -> type[Algorithm]:
    module, _, qual = source.partition(":")
    obj: Any = _import(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    cls: type[Algorithm] = obj
    return cls


def _sha256(cls: type) -> str:
    """Of the file defining the class (its whole module); for a class with
    no file (a notebook cell), of its source or else its methods' bytecode
    and constants, so that an edited class never shares a run's identity."""
    try:
        path = inspect.getsourcefile(cls)
        if path and os.path.isfile(path):
            with open(path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()
    except (OSError, TypeError):
        pass
    try:
        return hashlib.sha256(inspect.getsource(cls).encode()).hexdigest()
    except (OSError, TypeError):
        pass
    parts = []
    for k, v in sorted(vars(cls).items()):
        code = getattr(v, "__code__", None)
        parts.append(repr((k, code.co_code, code.co_consts) if code is not None else (k, v)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def is_external(value: Any) -> bool:
    """Whether ``tcp.cc = value`` names a Python algorithm."""
    return isinstance(value, str) and (value.startswith("py:") or value in _REGISTRY)


def resolve(field: str, value: str) -> tuple[str, dict[str, Any]]:
    """(name, the core's ``cc_external``) for ``tcp.cc = value``, a
    registered name or "py:MODULE:CLASS"; errors name ``field``."""
    if value.startswith("py:"):
        ref = value[3:]
        module, sep, qual = ref.partition(":")
        if not sep or not module or not qual:
            raise ScenarioError(field, value, "'py:MODULE:CLASS' (e.g. 'py:myalgo:HalfReno'), MODULE importable")
        trust = TRUST.get()
        try:
            if trust.folder is not None or not trust.allowed:
                if not trust.allowed:
                    raise ScenarioError(
                        field,
                        message=f"{field}: {value!r} would import and run the Python module {module!r}; a scenario "
                        "file runs code only when you allow it: --allow-code (ccsim run, ccsim sweep) or "
                        "allow_code=True (Scenario.from_file, ccsim.load, ccsim.run, Sweep.from_file); an algorithm "
                        "registered in this process (ccsim.register_algorithm) needs neither",
                    )
                name, path = _module_file(field, value, module, trust.folder or Path.cwd())
                _import_file(field, name, path)
                ref = f"{name}:{qual}"
            cls = _load(ref)
        except ScenarioError:
            raise
        except Exception as e:
            raise ScenarioError(
                field,
                message=f"{field}: cannot load {value!r}: {type(e).__name__}: {str(e)[:300]} ("
                + (
                    "MODULE must be importable from the current directory or the environment)"
                    if trust.folder is None
                    else "the module file is in the scenario file's folder or at the path given)"
                ),
            ) from e
        try:
            cls = _check_class(cls, field)
        except TypeError as e:
            raise ScenarioError(field, message=str(e)) from None
    else:
        cls = _REGISTRY[value]
        ref = f"{cls.__module__}:{cls.__qualname__}"
    name = cls.name or cls.__name__.lower()
    return name, {"source": ref, "sha256": _sha256(cls), "recovery": cls.recovery}


def recovery_of(field: str, value: str) -> str:
    return str(resolve(field, value)[1]["recovery"])


# The hooks whose place on an ACK the `ack_hooks_first` TCP option moves.
ACK_HOOKS = ("in_ack_event", "pkts_acked")


def has_ack_hooks(field: str, value: str) -> bool:
    """Whether the Python algorithm ``tcp.cc = value`` defines one of
    ``ACK_HOOKS`` (the built-ins declare it in the core's table)."""
    return any(h in _load(resolve(field, value)[1]["source"])._overridden() for h in ACK_HOOKS)


def check_params(
    ext: dict[str, Any], preset: Any, preset_field: str, params: Any, params_field: str
) -> tuple[None, dict[str, Any]]:
    """Check ``cc_preset`` (none for a Python algorithm) and ``cc_params``
    against the class's constructor; return them in the core's form."""
    if preset not in (None, "none"):
        raise ScenarioError(preset_field, preset, "none: a Python algorithm has no presets (give cc_params)")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ScenarioError(params_field, params, "a table of parameter = value")
    for k, v in params.items():
        if isinstance(v, (bool, int, float, str)):
            continue
        raise ScenarioError(f"{params_field}.{k}", v, "a number, a string or true/false")
    cls = _load(ext["source"])
    try:
        inspect.signature(cls).bind(**params)
    except TypeError as e:
        raise ScenarioError(
            params_field, message=f"{params_field}: {params!r} does not fit {cls.__name__}{inspect.signature(cls)}: {e}"
        ) from None
    return None, dict(params)


def _instantiate(
    source: str, name: str, params: dict[str, Any], flow: int, seed: int
) -> tuple[Algorithm, tuple[str, ...], float | None]:
    """Called by the core (through the binding) for each flow: the instance
    and the hooks its class defines."""
    cls = _check_class(_load(source), f"tcp.cc = {name!r}")
    obj = cls(**params)
    obj.__dict__["_ccsim_seed"] = seed  # drawn from the flow's own stream
    ti = cls.timer_interval
    return obj, cls._overridden(), None if ti is None else float(ti)
