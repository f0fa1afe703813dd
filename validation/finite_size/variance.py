r"""The seed-to-seed variance as a function of d, pooled over the ladder.

With k seeds at a dimension d the sample variance s² of a quantity estimates σ²(d) with only
k − 1 degrees of freedom, and weights 1/s² that noisy distort a weighted fit (and its χ²). The
fluctuations of the quantities simulated here scale as a power of d (an outlier, an overlap or a
ridge risk fluctuates like d^{-1/2}, so σ² ∝ d^{-1}; a test-set estimate adds a constant), so the
variances of the whole ladder are pooled in the model

    log σ²(d) = a + κ·log d,

fitted to the log sample variances by weighted least squares with their exact Gaussian moments:
for ν = k − 1 degrees of freedom, E log s² = log σ² + ψ(ν/2) − log(ν/2) and
Var log s² = ψ'(ν/2) (ψ the digamma function). The residual χ² (n − 2 or n − 3 degrees of freedom) tests
the model; :func:`standard_errors` uses the pooled σ(d) when that test passes (p ≥
:data:`POOL_P_MIN`) and the per-d sample standard deviations otherwise (stated in the result).

>>> import numpy as np
>>> vm = fit_variance_model([100, 400, 1600], [1e-2, 2.5e-3, 6.25e-4], [50, 50, 50])
>>> round(vm.slope, 6), vm.curvature
(-1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from asymptotics.errors import ParameterError

__all__ = ["VarianceModel", "fit_variance_model", "standard_errors", "POOL_P_MIN"]

#: The pooled variance model is used when its lack-of-fit p-value is at least this.
POOL_P_MIN = 0.01


@dataclass(frozen=True)
class VarianceModel:
    """log σ²(d) = a + κ log d + κ₂ (log d)² fitted to per-d sample variances.

    Attributes:
        log_scale: a.
        slope: κ.
        curvature: κ₂ (0 when not fitted).
        chi2, dof, p_value: the lack-of-fit test of the log-variances (dof = n − parameters; NaN p when 0).
    """

    log_scale: float
    slope: float
    curvature: float
    chi2: float
    dof: int
    p_value: float

    def variance(self, dims) -> np.ndarray:
        """σ²(d) of one seed."""
        t = np.log(np.asarray(dims, dtype=float))
        return np.exp(self.log_scale + self.slope * t + self.curvature * t * t)

    @property
    def acceptable(self) -> bool:
        """The model is used (p ≥ :data:`POOL_P_MIN`, or no degree of freedom to test it)."""
        return not (self.dof > 0 and self.p_value < POOL_P_MIN)


def fit_variance_model(dims, variances, counts, curvature: bool | None = None) -> VarianceModel:
    """Fit log σ²(d) = a + κ log d (+ κ₂ log² d) to sample ``variances`` from ``counts`` seeds at
    ``dims``; ``curvature`` (default: with ≥ 5 dimensions) adds the κ₂ term."""
    d = np.asarray(dims, dtype=float)
    v = np.asarray(variances, dtype=float)
    k = np.asarray(counts, dtype=float)
    if np.any(k < 2):
        raise ParameterError("seeds", k.astype(int).tolist(), "at least 2 per dimension to estimate a variance")
    if np.any(~np.isfinite(v)) or np.any(v <= 0):
        raise ParameterError("variance", v.tolist(), "finite seed-to-seed variances > 0 (a quantity that does not "
                             "fluctuate cannot be weighted by its spread)")
    half = (k - 1) / 2
    y = np.log(v) - (special.digamma(half) - np.log(half))
    var_y = special.polygamma(1, half)
    if d.size == 1:
        return VarianceModel(float(y[0]), 0.0, 0.0, 0.0, 0, math.nan)
    curved = d.size >= 5 if curvature is None else bool(curvature)
    t = np.log(d) - np.log(d).mean()  # centred: a well-conditioned fit
    cols = [np.ones_like(t), t] + ([t * t] if curved else [])
    X = np.column_stack(cols) / np.sqrt(var_y)[:, None]
    z = y / np.sqrt(var_y)
    coef, *_ = np.linalg.lstsq(X, z, rcond=None)
    r = z - X @ coef
    chi2 = float(r @ r)
    dof = int(d.size - len(cols))
    p = float(stats.chi2.sf(chi2, dof)) if dof > 0 else math.nan
    # back to log d: a + κ(ℓ − m) + κ₂(ℓ − m)² with m the mean log d
    m = float(np.log(d).mean())
    k2 = float(coef[2]) if curved else 0.0
    a = float(coef[0] - coef[1] * m + k2 * m * m)
    k1 = float(coef[1] - 2 * k2 * m)
    return VarianceModel(a, k1, k2, chi2, dof, p)


def standard_errors(dims, values_per_d) -> tuple[np.ndarray, np.ndarray, str, VarianceModel | None]:
    """Means and standard errors of the mean at each d, and how the errors were obtained.

    ``values_per_d``: one array of per-seed values per dimension. Returns ``(means, ses, method,
    model)`` with ``method`` ``"pooled"`` (σ(d) from :class:`VarianceModel`, divided by √k) or
    ``"per-d"`` (sample standard deviation at each d over √k).
    """
    vals = [np.asarray(v, dtype=float) for v in values_per_d]
    counts = np.array([v.size for v in vals])
    means = np.array([v.mean() for v in vals])
    svar = np.array([v.var(ddof=1) if v.size > 1 else math.nan for v in vals])
    per_d = np.sqrt(svar / counts)
    if np.any(counts < 2) or np.any(~(svar > 0)):
        return means, per_d, "per-d", None
    model = fit_variance_model(dims, svar, counts)
    if model.acceptable and len(vals) >= 3:
        return means, np.sqrt(model.variance(dims) / counts), "pooled", model
    return means, per_d, "per-d", model
