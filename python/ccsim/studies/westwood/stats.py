"""Least squares for W7's claims (rank correlations are the kit's)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def ols(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Least squares with standard errors s²(XᵀX)⁻¹ and R²."""
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    dof = max(len(y) - X.shape[1], 1)
    s2 = float(resid @ resid) / dof
    cov = s2 * np.linalg.pinv(X.T @ X)
    ss = float(((y - y.mean()) ** 2).sum())
    return {
        "beta": beta.tolist(),
        "se": np.sqrt(np.diag(cov)).tolist(),
        "r2": 1 - float(resid @ resid) / ss if ss > 0 else math.nan,
    }
