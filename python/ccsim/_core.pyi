"""Type stub for the compiled core (crates/ccsim-py)."""
from typing import Any

__version__: str

class ScenarioError(ValueError): ...
class InternalError(RuntimeError): ...

def run(scenario_json: str) -> dict[str, Any]:
    """Run a resolved scenario (JSON). Returns {"tables": {name: [(column, dtype, data)]},
    "events": int, "sim_time_s": float, "delivered_data_pkts": int}; numeric `data`
    are raw native-endian buffers of dtype "f8", "u8" or "i8"; "str" columns are lists."""

def algorithms() -> list[str]: ...
def _panic_for_test() -> None: ...
