"""Congestion-control algorithms written in Python.

A subclass of :class:`Algorithm` names Linux's hooks (``struct
tcp_congestion_ops``, include/net/tcp.h); the Rust core calls them through
the same interface as its own algorithms. A scenario names one with
``tcp.cc = "NAME"`` after :func:`register_algorithm`, or with
``tcp.cc = "py:MODULE:CLASS"`` (the module importable from the current
directory or the environment, as sweeps' worker processes import it too).
docs/python-algorithms.md describes every hook beside Linux's.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import inspect
import math
import os
import random
import re
import sys
from typing import Any

from . import _core
from .errors import ScenarioError

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

    def init(self, tp) -> None:
        """Linux ``.init``: the connection starts."""

    def ssthresh(self, tp) -> int:
        """Linux ``.ssthresh`` (required): the slow-start threshold after a
        loss, segments. ``tp`` is read-only here."""
        raise NotImplementedError

    def cong_avoid(self, tp, acked: int) -> None:
        """Linux ``.cong_avoid``: grow ``tp.cwnd`` on an ACK of ``acked``
        new segments while cwnd-limited and not in recovery."""

    def set_state(self, tp, new_state: int) -> None:
        """Linux ``.set_state``: the congestion state changes
        (``ccsim.cc.CA_OPEN`` ... ``CA_LOSS``)."""

    def cwnd_event(self, tp, event: int) -> None:
        """Linux ``.cwnd_event`` (``ccsim.cc.CA_EVENT_*``)."""

    def in_ack_event(self, tp, flags: int) -> None:
        """Linux ``.in_ack_event``: every ACK; ``flags`` holds
        ``ccsim.cc.CA_ACK_ECE``. ``tp`` is read-only here."""

    def pkts_acked(self, tp, sample) -> None:
        """Linux ``.pkts_acked``: the ACK's sample (``acked``, ``rtt_s``,
        ``in_flight``)."""

    def undo_cwnd(self, tp) -> int:
        """Linux ``.undo_cwnd``: the window after a spurious reduction
        (default max(cwnd, prior_cwnd), as tcp_reno_undo_cwnd). ``tp`` is
        read-only here."""
        return max(tp.cwnd, tp.prior_cwnd)

    def cong_control(self, tp, rs) -> None:
        """Linux ``.cong_control``: full control from a delivery-rate sample
        (``ccsim.cc.RateSample``) on every ACK, in place of ``cong_avoid``
        (BBR-style); the sender then leaves cwnd alone in recovery."""

    def on_timer(self, tp) -> None:
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


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        cwd = os.getcwd()
        if e.name != module.split(".")[0] or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)  # "importable from the current directory"
        return importlib.import_module(module)


def _load(source: str) -> type[Algorithm]:
    module, _, qual = source.partition(":")
    obj: Any = _import(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


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


def resolve(field: str, value: str) -> tuple[str, dict]:
    """(name, the core's ``cc_external``) for ``tcp.cc = value``, a
    registered name or "py:MODULE:CLASS"; errors name ``field``."""
    if value.startswith("py:"):
        ref = value[3:]
        module, sep, qual = ref.partition(":")
        if not sep or not module or not qual:
            raise ScenarioError(field, value, "'py:MODULE:CLASS' (e.g. 'py:myalgo:HalfReno'), MODULE importable")
        try:
            cls = _load(ref)
        except Exception as e:
            raise ScenarioError(
                field,
                message=f"{field}: cannot load {value!r}: {type(e).__name__}: {e} (MODULE must be importable "
                "from the current directory or the environment)",
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
    return resolve(field, value)[1]["recovery"]


def check_params(ext: dict, preset: Any, preset_field: str, params: Any, params_field: str) -> tuple[None, dict]:
    """Check ``cc_preset`` (none for a Python algorithm) and ``cc_params``
    against the class's constructor; return them in the core's form."""
    if preset not in (None, "none"):
        raise ScenarioError(preset_field, preset, "none: a Python algorithm has no presets (give cc_params)")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ScenarioError(params_field, params, "a table of parameter = value")
    for k, v in params.items():
        if isinstance(v, bool) or isinstance(v, (int, float, str)):
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
    source: str, name: str, params: dict, flow: int, seed: int
) -> tuple[Algorithm, tuple[str, ...], float | None]:
    """Called by the core (through the binding) for each flow: the instance
    and the hooks its class defines."""
    cls = _check_class(_load(source), f"tcp.cc = {name!r}")
    obj = cls(**params)
    obj.__dict__["_ccsim_seed"] = seed  # drawn from the flow's own stream
    ti = cls.timer_interval
    return obj, cls._overridden(), None if ti is None else float(ti)
