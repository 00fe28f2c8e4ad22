"""Exceptions raised by ccsim."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._core import InternalError as _CoreInternalError
from ._core import ScenarioError as _CoreScenarioError


class ScenarioError(_CoreScenarioError):
    """Invalid scenario. ``str(e)`` names the field, the value and what is accepted."""

    def __init__(
        self, field: str, value: Any = None, accepted: str | None = None, *, message: str | None = None
    ) -> None:
        if message is None:
            message = f"{field}: got {value!r}; expected {accepted}"
            if isinstance(value, str) and accepted and "one of" in accepted:
                import re

                # the quoted names of an enumeration: 'cubic', 'bbr', ...
                message += suggest(
                    value,
                    re.findall(r"'([^']+)'", accepted)
                    or [w.strip(" ,.") for w in accepted.split("one of", 1)[1].split(",")],
                )
        super().__init__(message)
        self.field = field


InternalError = _CoreInternalError


class EmulationError(RuntimeError):
    """The emulated run could not be carried out (set-up or an agent failed);
    ``str(e)`` says what failed and why."""


def suggest(name: str, options: Iterable[str]) -> str:
    """' (did you mean 'x'?)' when `name` is close to one of `options`
    (difflib's ratio ≥ 0.6): the closest one only, else ''."""
    import difflib

    if not isinstance(name, str):
        return ""
    opts = [str(o) for o in options]
    near = difflib.get_close_matches(name, opts, n=1, cutoff=0.6)
    if not near:
        # a case slip or a missing prefix ('Cubic', 'queue' for 'topology.queue')
        near = [o for o in opts if o.lower() == name.lower() or o.endswith("." + name)][:1]
    if not near:
        return ""
    return f" (did you mean {near[0]!r}?)"
