"""ccsim: a fast, deterministic packet-level network simulator for TCP
congestion-control research (Rust core, Python front end).

Names are imported on first use (PEP 562), so ``import ccsim`` stays cheap:
numpy and polars load with the first scenario, matplotlib with the first plot.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._core import MODEL_VERSION, __version__
from .errors import InternalError, ScenarioError

if TYPE_CHECKING:  # what the lazy names below are (re-exported), for type checkers and editors
    from . import (
        analysis as analysis,
    )
    from . import (
        cc as cc,
    )
    from . import (
        emulation as emulation,
    )
    from . import (
        experiments as experiments,
    )
    from . import (
        gym as gym,
    )
    from . import (
        scenario as scenario,
    )
    from . import (
        studies as studies,
    )
    from .analysis.results import Result as Result
    from .analysis.results import read as read
    from .experiments.aggregate import (
        aggregate as aggregate,
    )
    from .experiments.aggregate import (
        plot_sweep as plot_sweep,
    )
    from .experiments.aggregate import (
        plot_tput_delay as plot_tput_delay,
    )
    from .experiments.aggregate import (
        tput_delay_frame as tput_delay_frame,
    )
    from .experiments.campaign import Campaign as Campaign
    from .experiments.campaign import open_campaign as open_campaign
    from .experiments.runner import (
        SweepFailed as SweepFailed,
    )
    from .experiments.runner import (
        SweepReport as SweepReport,
    )
    from .experiments.runner import (
        dry_run as dry_run,
    )
    from .experiments.runner import (
        run_sweep as run_sweep,
    )
    from .experiments.sweep import Sweep as Sweep
    from .experiments.sweep import SweepError as SweepError
    from .pyalgo import Algorithm as Algorithm
    from .pyalgo import register_algorithm as register_algorithm
    from .scenario import Builder as Builder
    from .scenario import Scenario as Scenario
    from .scenario import load as load
    from .scenario.mixes import background_mix as background_mix

_LAZY = {
    "Builder": ".scenario",
    "Scenario": ".scenario",
    "load": ".scenario",
    "Result": ".analysis.results",
    "read": ".analysis.results",
    "Sweep": ".experiments.sweep",
    "SweepError": ".experiments.sweep",
    "run_sweep": ".experiments.runner",
    "dry_run": ".experiments.runner",
    "SweepFailed": ".experiments.runner",
    "SweepReport": ".experiments.runner",
    "open_campaign": ".experiments.campaign",
    "Campaign": ".experiments.campaign",
    "aggregate": ".experiments.aggregate",
    "plot_sweep": ".experiments.aggregate",
    "plot_tput_delay": ".experiments.aggregate",
    "tput_delay_frame": ".experiments.aggregate",
    "background_mix": ".scenario.mixes",
    "Algorithm": ".pyalgo",
    "register_algorithm": ".pyalgo",
}

# Subpackages reachable as attributes (`ccsim.cc.slow_start` after a plain
# `import ccsim`), imported on first use like the names above.
_SUBPACKAGES = {"cc", "gym", "analysis", "experiments", "scenario", "studies", "emulation"}

__all__ = ["MODEL_VERSION", "InternalError", "ScenarioError", "__version__", "dump", "run", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
        globals()[name] = value
        return value
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'ccsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBPACKAGES)


def run(scenario: Any, seed: int | None = None, *, allow_code: bool | None = None) -> Result:
    """Run a Scenario, a scenario mapping (the TOML structure as dicts and
    lists) or a scenario file path, and return its Result. A file's
    `py:` algorithm runs only with `allow_code=True` (Scenario.from_file);
    a mapping's unless `allow_code=False`; a Scenario carries its own, so
    `allow_code` beside one is refused rather than ignored."""
    from collections.abc import Mapping

    from . import pyalgo
    from .errors import ScenarioError
    from .scenario import Scenario, load

    sc: Scenario
    if isinstance(scenario, Mapping):
        sc = Scenario(dict(scenario), code=pyalgo.CodeTrust(False) if allow_code is False else None)
    elif isinstance(scenario, Scenario):
        if allow_code is not None:
            raise ScenarioError("allow_code", message=pyalgo.TRUST_CARRIED)
        sc = scenario
    else:
        sc = load(scenario, allow_code=bool(allow_code))
    return sc.run(seed=seed)


def dump(scenario: Any, path: str | Path | None = None) -> str:
    """A Scenario (or a Builder) as TOML text that loads and runs identically;
    also written to `path` if given."""
    from .scenario import Builder

    if isinstance(scenario, Builder):
        scenario = scenario.build()
    text: str = scenario.to_toml()
    if path is not None:
        Path(path).write_text(text)
    return text
