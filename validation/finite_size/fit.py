r"""Weighted least-squares extrapolation of a finite-size sequence to d → ∞.

The model of a simulated mean at dimension d is

    value(d) = L + b·d^{-ω}              (one term)
    value(d) = L + b·d^{-ω} + c·d^{-2ω}  (two terms),

fitted by weighted least squares with weights 1/se(d)² (se the standard error of the mean at d).
For a linear model with known variances the estimator is

    θ̂ = (XᵀWX)⁻¹ XᵀW y,   Cov θ̂ = (XᵀWX)⁻¹,   χ² = Σᵢ (yᵢ − (Xθ̂)ᵢ)²/seᵢ²  (n − k degrees of freedom),

and the fit is statistically acceptable when P(χ²_{n−k} ≥ χ²) is above a stated threshold. When
χ²/dof > 1 the covariance is multiplied by χ²/dof (the Birge ratio: scatter larger than the stated
errors widens the limit's error bar; it is never shrunk below the statistical one).

**Estimated variances.** The se(d) are themselves estimated from seeds; when they carry ν degrees
of freedom in all (``variance_dof``), χ²/dof is referred to the F(dof, ν) distribution instead of
χ²_dof/dof (the χ² test is too eager to reject with few seeds per d).

**ω not known exactly.** :func:`extrapolate` fits the candidate models of :func:`candidate_models`
— one term for each ω of a list, and the two-term model at the smallest ω, which contains them
all (for ω ∈ {1/2, 1}: L + b·d^{-1/2} + c·d^{-1}) — and averages the limits with Akaike weights
wₘ ∝ exp(−AICcₘ/2), AICc = χ² + 2k + 2k(k+1)/(n − k − 1) (known variances: −2 log-likelihood =
χ² + const). The averaged limit's standard error is the unconditional one of Burnham & Anderson
(2002, §4.3.2),

    se(L̄)² = Σₘ wₘ (se(Lₘ)² + (Lₘ − L̄)²),

which adds the spread between models to each model's own error, so that not knowing ω widens the
error bar rather than hiding in the choice. (``tests/test_finite_size_fit.py`` measures the
coverage of L̄ ± 1.96·se(L̄) on synthetic ladders with the true ω either 1/2 or 1.)

>>> import numpy as np
>>> d = np.array([250., 500., 1000., 2000., 4000.])
>>> y = 2.0 + 3.0 / d                      # exact data with L = 2
>>> f = weighted_fit(d, y, np.full(5, 1e-3), PowerLawModel(1.0))
>>> round(f.limit, 12), round(f.coef[1], 9), f.dof
(2.0, 3.0, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from asymptotics.errors import ParameterError

__all__ = ["PowerLawModel", "Fit", "Extrapolation", "weighted_fit", "extrapolate", "candidate_models"]


@dataclass(frozen=True)
class PowerLawModel:
    """value(d) = L + b·d^{-ω} (+ c·d^{-2ω} when ``terms == 2``)."""

    omega: float
    terms: int = 1

    def __post_init__(self):
        if not (isinstance(self.omega, (int, float)) and self.omega > 0 and math.isfinite(self.omega)):
            raise ParameterError("omega", self.omega, "a finite number > 0")
        if self.terms not in (1, 2):
            raise ParameterError("terms", self.terms, "1 or 2")

    @property
    def parameters(self) -> int:
        """k: the number of fitted coefficients (L, b[, c])."""
        return 1 + self.terms

    def design(self, dims) -> np.ndarray:
        """The n×k design matrix (1, d^{-ω}[, d^{-2ω}])."""
        x = np.asarray(dims, dtype=float) ** (-self.omega)
        cols = [np.ones_like(x), x] + ([x * x] if self.terms == 2 else [])
        return np.column_stack(cols)

    @property
    def label(self) -> str:
        """The model in words, e.g. ``L + b·d^-1/2 + c·d^-1``."""
        return "L + b·d^-" + _exp(self.omega) + ("" if self.terms == 1 else " + c·d^-" + _exp(2 * self.omega))


def _exp(w: float) -> str:
    return {0.5: "1/2", 1.0: "1", 1.5: "3/2", 2.0: "2", 0.25: "1/4"}.get(float(w), f"{w:g}")


@dataclass(frozen=True)
class Fit:
    """A weighted least-squares fit of one :class:`PowerLawModel`.

    Attributes:
        model: the model.
        coef: (L, b[, c]).
        cov: their covariance, inflated by ``inflation²`` (= χ²/dof when that exceeds 1).
        chi2: Σ residual²/se² (not inflated).
        dof: n − k.
        p_value: P(χ²_dof ≥ chi2) (NaN when dof = 0).
        inflation: the factor applied to the standard errors (≥ 1).
        n: number of dimensions fitted.
    """

    model: PowerLawModel
    coef: tuple[float, ...]
    cov: np.ndarray = field(repr=False)
    chi2: float
    dof: int
    p_value: float
    inflation: float
    n: int

    @property
    def limit(self) -> float:
        """L, the d → ∞ value."""
        return float(self.coef[0])

    @property
    def limit_se(self) -> float:
        """Standard error of L (with the Birge inflation)."""
        return float(math.sqrt(max(self.cov[0, 0], 0.0)))

    @property
    def chi2_dof(self) -> float:
        return self.chi2 / self.dof if self.dof > 0 else math.nan

    @property
    def aicc(self) -> float:
        """χ² + 2k + 2k(k+1)/(n − k − 1) (inf when n ≤ k + 1)."""
        k = self.model.parameters
        if self.n - k - 1 <= 0:
            return math.inf
        return self.chi2 + 2 * k + 2 * k * (k + 1) / (self.n - k - 1)

    @property
    def aic(self) -> float:
        return self.chi2 + 2 * self.model.parameters

    def predict(self, dims) -> tuple[np.ndarray, np.ndarray]:
        """The fitted value at ``dims`` and its standard error (a pointwise band)."""
        X = self.model.design(np.atleast_1d(np.asarray(dims, dtype=float)))
        value = X @ np.asarray(self.coef)
        se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", X, self.cov, X), 0.0))
        return value, se

    def as_dict(self) -> dict:
        return {"model": self.model.label, "omega": self.model.omega, "terms": self.model.terms,
                "coef": [float(c) for c in self.coef], "cov": [[float(v) for v in r] for r in self.cov], "limit": self.limit, "limit_se": self.limit_se,
                "chi2": self.chi2, "dof": self.dof, "p_value": _none_if_nan(self.p_value),
                "inflation": self.inflation}


def _none_if_nan(v):
    return None if v is None or not math.isfinite(v) else float(v)


def _checked(dims, means, ses):
    d = np.asarray(dims, dtype=float)
    y = np.asarray(means, dtype=float)
    s = np.asarray(ses, dtype=float)
    if not (d.ndim == y.ndim == s.ndim == 1 and d.size == y.size == s.size):
        raise ParameterError("dims/means/ses", (d.shape, y.shape, s.shape), "three 1-d arrays of one length")
    if np.any(~np.isfinite(d)) or np.any(d <= 0):
        raise ParameterError("dims", d.tolist(), "finite dimensions > 0")
    if np.any(~np.isfinite(y)):
        raise ParameterError("means", y.tolist(), "finite simulated means")
    if np.any(~np.isfinite(s)) or np.any(s <= 0):
        raise ParameterError("ses", s.tolist(), "finite standard errors > 0 (at least 2 seeds per dimension)")
    return d, y, s


def weighted_fit(dims, means, ses, model: PowerLawModel, variance_dof: float | None = None) -> Fit:
    """Fit ``model`` to ``means`` ± ``ses`` at ``dims`` by weighted least squares (see the module);
    ``variance_dof``: degrees of freedom of the estimated ``ses`` (F test instead of χ²)."""
    d, y, s = _checked(dims, means, ses)
    k = model.parameters
    if d.size < k:
        raise ParameterError("dims", d.tolist(), f"at least {k} distinct dimensions for the model {model.label}")
    X = model.design(d) / s[:, None]
    z = y / s
    # QR of the whitened design: θ = R⁻¹Qᵀz, Cov = (RᵀR)⁻¹ (better conditioned than the normal equations)
    Q, R = np.linalg.qr(X)
    if np.min(np.abs(np.diag(R))) <= 1e-12 * np.max(np.abs(np.diag(R))):
        raise ParameterError("dims", d.tolist(), f"distinct enough dimensions to fit {model.label}")
    coef = np.linalg.solve(R, Q.T @ z)
    Rinv = np.linalg.inv(R)
    cov = Rinv @ Rinv.T
    resid = z - X @ coef
    chi2 = float(resid @ resid)
    dof = int(d.size - k)
    if dof <= 0:
        p = math.nan
    elif variance_dof is not None and math.isfinite(variance_dof) and variance_dof > 0:
        p = float(stats.f.sf(chi2 / dof, dof, variance_dof))
    else:
        p = float(stats.chi2.sf(chi2, dof))
    inflation = math.sqrt(chi2 / dof) if dof > 0 and chi2 > dof else 1.0
    return Fit(model, tuple(float(c) for c in coef), cov * inflation**2, chi2, dof, p, inflation, int(d.size))


def candidate_models(omegas: Sequence[float], n: int, max_terms: int = 2) -> list[PowerLawModel]:
    """The one-term model of each ω and (``max_terms == 2``) the two-term model at the smallest ω,
    keeping those with a degree of freedom left (n ≥ k + 1).

    >>> labels = tuple(m.label for m in candidate_models((0.5, 1.0), 5))
    >>> len(labels), labels
    (3, ('L + b·d^-1/2', 'L + b·d^-1', 'L + b·d^-1/2 + c·d^-1'))
    """
    ws = sorted({float(w) for w in omegas})
    models = [PowerLawModel(w, 1) for w in ws]
    if max_terms == 2:
        models.append(PowerLawModel(ws[0], 2))
    return [m for m in models if n >= m.parameters + 1]


@dataclass(frozen=True)
class Extrapolation:
    """The d → ∞ limit from one model or an Akaike-weighted average of several.

    Attributes:
        fits: every candidate fit.
        weights: their Akaike weights (sum 1).
        limit, limit_se: the (averaged) limit and its unconditional standard error.
        rule: the rule in words.
    """

    fits: tuple[Fit, ...]
    weights: tuple[float, ...]
    limit: float
    limit_se: float
    rule: str

    @property
    def best(self) -> Fit:
        """The candidate of largest weight (its ω, χ²/dof and p-value are reported)."""
        return self.fits[int(np.argmax(self.weights))]

    def as_dict(self) -> dict:
        return {"limit": self.limit, "limit_se": self.limit_se, "rule": self.rule,
                "models": [dict(f.as_dict(), weight=w) for f, w in zip(self.fits, self.weights, strict=True)]}


def extrapolate(dims, means, ses, omegas: Sequence[float] = (1.0,), max_terms: int = 2,
                variance_dof: float | None = None) -> Extrapolation:
    """The d → ∞ limit of ``means`` ± ``ses`` by Akaike-weighted averaging over
    :func:`candidate_models` (ω in ``omegas``, up to ``max_terms`` terms); see the module docstring.

    With one ω and ``max_terms=1`` this is the plain fit of L + b·d^{-ω}. AICc is used when every
    candidate has n > k + 1, else AIC.

    >>> import numpy as np
    >>> d = np.array([200., 400., 800., 1600., 3200.])
    >>> ex = extrapolate(d, 1 + 2 / np.sqrt(d), np.full(5, 1e-4), omegas=(0.5, 1.0), max_terms=1)
    >>> ex.best.model.label, round(ex.limit, 6)
    ('L + b·d^-1/2', 1.0)
    """
    d, y, s = _checked(dims, means, ses)
    models = candidate_models(omegas, d.size, max_terms)
    if not models:
        raise ParameterError("dims", d.tolist(), f"at least 3 dimensions to extrapolate (one degree of freedom); got {d.size}")
    fits = tuple(weighted_fit(d, y, s, m, variance_dof) for m in models)
    crit = np.array([f.aicc for f in fits])
    name = "AICc"
    if not np.all(np.isfinite(crit)):
        crit = np.array([f.aic for f in fits])
        name = "AIC"
    w = np.exp(-0.5 * (crit - crit.min()))
    w /= w.sum()
    L = np.array([f.limit for f in fits])
    se = np.array([f.limit_se for f in fits])
    limit = float(w @ L)
    limit_se = float(math.sqrt(w @ (se**2 + (L - limit) ** 2)))
    if len(fits) == 1:
        rule = f"weighted least squares, {fits[0].model.label}"
    else:
        rule = (f"{name}-weighted average over {', '.join(f.model.label for f in fits)}; "
                "unconditional se (Burnham & Anderson 2002)")
    return Extrapolation(fits, tuple(float(v) for v in w), limit, limit_se, rule)
