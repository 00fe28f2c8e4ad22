"""Figures that never touch matplotlib's global state.

Library code builds :class:`matplotlib.figure.Figure` objects directly
(``Figure().subplots``, as matplotlib's "embedding" guide recommends) instead
of going through ``pyplot``: no backend is selected, no figure is registered
with pyplot's figure manager, and nothing needs closing. A notebook keeps the
backend it chose (the inline one) and a returned figure still displays
there; the CLI and the reports only save figures to files.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure as _Figure


class Figure(_Figure):
    """A matplotlib Figure that shows itself in a notebook (``_repr_png_``)
    without pyplot: IPython's inline backend registers its PNG formatter only
    once pyplot is in use, so a bare Figure would otherwise print as text."""

    def _repr_png_(self) -> bytes:
        from io import BytesIO

        buf = BytesIO()
        self.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        return buf.getvalue()


def subplots(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Figure, Any]:
    """Like ``matplotlib.pyplot.subplots`` (the same arguments, ``figsize``,
    ``layout`` and ``dpi`` included) but the figure is not pyplot's."""
    fig_kw = {k: kw.pop(k) for k in ("figsize", "dpi", "layout", "facecolor") if k in kw}
    fig = Figure(**fig_kw)
    return fig, fig.subplots(nrows, ncols, **kw)
