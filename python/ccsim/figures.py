"""Figures that never touch matplotlib's global state.

Library code builds :class:`matplotlib.figure.Figure` objects directly
(``Figure().subplots``, as matplotlib's "embedding" guide recommends) instead
of going through ``pyplot``: no backend is selected, no figure is registered
with pyplot's figure manager, and nothing needs closing. A notebook keeps the
backend it chose (the inline one) and a returned figure still displays
there; the CLI and the reports only save figures to files.
"""
from __future__ import annotations


def subplots(nrows: int = 1, ncols: int = 1, **kw):
    """Like ``matplotlib.pyplot.subplots`` (the same arguments, ``figsize``,
    ``layout`` and ``dpi`` included) but the figure is not pyplot's."""
    from matplotlib.figure import Figure

    fig_kw = {k: kw.pop(k) for k in ("figsize", "dpi", "layout", "facecolor") if k in kw}
    fig = Figure(**fig_kw)
    return fig, fig.subplots(nrows, ncols, **kw)
