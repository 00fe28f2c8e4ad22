"""The oracles themselves reproduce the reference vectors (docs/reference.md R9)."""

from typing import Any

import pytest
from oracles import jain, mathis, pftk_approx, pftk_full

# (p, Mathis, approx b=1, approx b=2, full b=1, full b=2) at RTT 0.1 s, T0 1 s.
VECTORS = [
    (0.001, 387.3, 378.8, 267.8, 376.6, 265.6),
    (0.01, 122.5, 99.9, 70.7, 98.8, 69.5),
    (0.05, 54.8, 24.7, 17.5, 26.1, 18.6),
    (0.1, 38.7, 9.76, 6.90, 12.5, 9.11),
]


@pytest.mark.parametrize("p,m,a1,a2,f1,f2", VECTORS)
def test_pftk_and_mathis_reference_vectors(p: float, m: float, a1: float, a2: float, f1: float, f2: float) -> None:
    rel = 0.01
    assert mathis(p, 0.1) == pytest.approx(m, rel=rel)
    assert pftk_approx(p, 0.1, 1.0, b=1) == pytest.approx(a1, rel=rel)
    assert pftk_approx(p, 0.1, 1.0, b=2) == pytest.approx(a2, rel=rel)
    assert pftk_full(p, 0.1, 1.0, b=1) == pytest.approx(f1, rel=rel)
    assert pftk_full(p, 0.1, 1.0, b=2) == pytest.approx(f2, rel=rel)


@pytest.mark.parametrize(
    "xs,j", [((1, 1, 1, 1), 1.0), ((1, 0, 0, 0), 0.25), ((1, 2, 3, 4), 0.8333), ((10, 5), 0.9), ((3, 1), 0.8)]
)
def test_jain_reference_vectors(xs: tuple[Any, ...], j: float) -> None:
    assert jain(xs) == pytest.approx(j, abs=1e-4)
