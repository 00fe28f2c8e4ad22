"""ccsim: a fast, deterministic packet-level network simulator for TCP
congestion-control research (Rust core, Python front end)."""
from ._core import __version__
from .errors import InternalError, ScenarioError
from .results import Result, read
from .scenario import Builder, Scenario, load

__all__ = ["Builder", "InternalError", "Result", "Scenario", "ScenarioError", "__version__", "load", "read", "run"]


def run(scenario: "Scenario | str", seed: int | None = None) -> Result:
    """Run a Scenario (or a scenario file path) and return its Result."""
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    return scenario.run(seed=seed)
