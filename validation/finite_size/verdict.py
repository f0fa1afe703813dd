r"""The verdict of a finite-size study on one quantity — with **no allowance**.

Two rules, one per kind of theory:

* **extrapolation** (a d → ∞ theory only): the extrapolated limit L (:mod:`validation.finite_size.fit`)
  passes when the fit is statistically acceptable, p ≥ :data:`P_MIN`, and
  |L − theory| ≤ :data:`Z_MAX`·se(L);
* **finite width** (a theory evaluated at the simulated d): every d's mean is compared with it,
  zᵢ = (meanᵢ − theory(dᵢ))/seᵢ, and the verdict passes when the combined χ² = Σ zᵢ² (n degrees
  of freedom; F(n, ν) when the seᵢ are estimated with ν degrees of freedom) has p ≥ :data:`P_MIN`.

>>> v = extrapolation_verdict(theory=1.0, limit=1.02, limit_se=0.01, p_value=0.5)
>>> v.passed, round(v.z, 1)
(True, 2.0)
>>> finite_width_verdict([1.0, 1.1], [0.01, 0.01], [1.0, 1.0]).passed
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["Z_MAX", "P_MIN", "Verdict", "extrapolation_verdict", "finite_width_verdict"]

#: |L − theory| ≤ Z_MAX·se(L).
Z_MAX = 3.0
#: A fit (or a combined χ²) is acceptable when its p-value is at least this.
P_MIN = 0.01


@dataclass(frozen=True)
class Verdict:
    """``kind`` (``extrapolation`` or ``finite-width``), ``passed``, the ``z`` of the limit (or the
    largest |zᵢ| for finite width), ``p_value`` and the ``reason`` in words."""

    kind: str
    passed: bool
    z: float
    p_value: float
    reason: str
    z_per_d: tuple[float, ...] = ()
    chi2: float = math.nan
    dof: int = 0


def extrapolation_verdict(theory: float, limit: float, limit_se: float, p_value: float) -> Verdict:
    """Limit vs the d → ∞ theory (see the module docstring)."""
    finite = all(math.isfinite(v) for v in (theory, limit, limit_se)) and limit_se > 0
    z = (limit - theory) / limit_se if finite else math.nan
    fit_ok = math.isfinite(p_value) and p_value >= P_MIN
    close = finite and abs(z) <= Z_MAX
    if not finite:
        reason = "no finite limit or standard error"
    elif not fit_ok:
        reason = (f"the extrapolation model does not fit (p = {p_value:.2g} < {P_MIN:g})" if math.isfinite(p_value)
                  else "no degree of freedom left to test the fit")
    elif not close:
        reason = f"limit {limit:.6g} ± {limit_se:.2g} is {z:+.1f} s.e. from the theory {theory:.6g}"
    else:
        reason = f"limit within {Z_MAX:g} s.e. of the theory (z = {z:+.2f}), fit p = {p_value:.2g}"
    return Verdict("extrapolation", bool(fit_ok and close), z, p_value, reason)


def finite_width_verdict(means, ses, theory_at_d, variance_dof: float | None = None) -> Verdict:
    """Every d's mean vs a finite-width theory at that d (see the module docstring)."""
    m = np.asarray(means, dtype=float)
    s = np.asarray(ses, dtype=float)
    t = np.asarray(theory_at_d, dtype=float)
    ok = np.all(np.isfinite(m)) and np.all(np.isfinite(t)) and np.all(s > 0)
    if not ok:
        return Verdict("finite-width", False, math.nan, math.nan, "a non-finite mean, theory or standard error")
    z = (m - t) / s
    chi2 = float(z @ z)
    n = int(z.size)
    if variance_dof is not None and math.isfinite(variance_dof) and variance_dof > 0:
        p = float(stats.f.sf(chi2 / n, n, variance_dof))
    else:
        p = float(stats.chi2.sf(chi2, n))
    zmax = float(z[np.argmax(np.abs(z))])
    passed = p >= P_MIN
    reason = (f"finite-width theory at every d: χ² = {chi2:.2f} for {n} d's (p = {p:.2g}), largest |z| = {abs(zmax):.1f}"
              + ("" if passed else f" — rejected (p < {P_MIN:g})"))
    return Verdict("finite-width", bool(passed), zmax, p, reason, tuple(float(v) for v in z), chi2, n)
