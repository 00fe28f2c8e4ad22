"""Statistics the claims use."""

from __future__ import annotations

import math

import numpy as np


def spearman(x, y) -> float:
    """Spearman's rank correlation (scipy.stats.spearmanr: tied values share
    their mean rank); NaN with fewer than two points or a constant series."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def ols(X: np.ndarray, y: np.ndarray) -> dict:
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
