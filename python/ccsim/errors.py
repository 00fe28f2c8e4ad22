"""Exceptions raised by ccsim."""
from __future__ import annotations

from ._core import InternalError as _CoreInternalError
from ._core import ScenarioError as _CoreScenarioError


class ScenarioError(_CoreScenarioError):
    """Invalid scenario. ``str(e)`` names the field, the value and what is accepted."""

    def __init__(self, field: str, value=None, accepted: str | None = None, *, message: str | None = None):
        if message is None:
            message = f"{field}: got {value!r}; expected {accepted}"
        super().__init__(message)
        self.field = field


InternalError = _CoreInternalError
