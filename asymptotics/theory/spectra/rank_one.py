r"""Outliers of finite-rank perturbations of a bulk (BBP-type equations) and their eigenvectors.

Both equations read "1 = strength × (a transform of the bulk)" on the real axis to the right of
the support, and the squared overlaps of the outlier's eigenvectors follow from the derivative of
that transform (a residue of the resolvent at the outlier). Every transform is the pencil's
solution on the real axis (:meth:`.bulk.PencilBulk.real_transforms`), not a closed form.

**Additive rank-one spike of a rectangular matrix** (Benaych-Georges & Nadakuditi 2012, stated;
written here in the squared variable x = s²). W = W₀ + θ u vᵀ with unit u ∈ ℝᵈ, v ∈ ℝᴺ independent
of W₀; m̄ and m the transforms of W₀W₀ᵀ (d×d) and W₀ᵀW₀ (N×N), D(x) = x m̄(x) m(x) (the
D-transform, decreasing from D(e₊) to 0 on (e₊, ∞)). Then

    outlier of WᵀW at x with  θ² D(x) = 1   (exists iff θ² D(e₊) > 1: the BBP condition),
    ⟨u₁, u⟩² = m̄(x)/(θ² D'(x)),      ⟨v₁, v⟩² = m(x)/(θ² D'(x)),

u₁, v₁ the top left/right singular vectors. (For W₀ with N(0, 1/d) entries this is θ⁴ > ψ2,
x = (ψ2 + θ²)(1 + θ²)/θ², ⟨u₁, u⟩² = (θ⁴ − ψ2)/(θ²(1 + θ²)): the tests' closed-form check.)

**Population spike of a sample covariance** (derived here; Baik–Silverstein's location,
Paul's overlap in the white case). Rows f_μ = Σ^{1/2} z_μ with Σ = Σ₀ + ℓ v vᵀ, Σ₀ v = 0,
S = FᵀF/n (N×N), S̲ = FFᵀ/n (n×n). Then S̲ = S̲₀ + ℓ ζζᵀ/n with ζ = Z v independent of
S̲₀ = Z Σ₀ Zᵀ/n, an additive rank-one perturbation by an independent isotropic vector, hence with
m̲ the companion transform (of S̲₀, the same limit as of the bulk):

    outlier at x with  −ℓ m̲(x) = 1   (exists iff ℓ > −1/m̲(e₊)),
    ⟨ŷ, ζ/‖ζ‖⟩² = m̲(x)²/m̲'(x)      (ŷ ∈ ℝⁿ, the top eigenvector of S̲),
    ⟨ŵ, v⟩² = −m̲(x)/(x m̲'(x))       (ŵ ∈ ℝᴺ, the top eigenvector of S),

the last from ŵ ∝ Fᵀŷ, ‖Fᵀŷ‖² = n x. With ℓ = −1/m̲ and Silverstein's z(m̲) this is
x(ℓ) = ℓ(1 + c∫t/(ℓ − t) dH(t)) and ⟨ŵ, v⟩² = ℓ x'(ℓ)/x(ℓ).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ...errors import ConvergenceError, ParameterError
from ...solvers import Status

__all__ = ["OutlierRoot", "rectangular_outlier", "covariance_outlier"]


@dataclass(frozen=True)
class OutlierRoot:
    """The solution of an outlier equation.

    Attributes:
        separated: whether the outlier exists (the BBP-type condition holds).
        location: x of the outlier (``None`` when not separated).
        overlaps: squared overlaps of its eigenvectors (zeros when not separated).
        threshold: the strength at which the outlier leaves the bulk (θ²_c or ℓ_c).
        residual: |equation| at the root.
        iterations: root-finder iterations.
    """

    separated: bool
    location: float | None
    overlaps: dict
    threshold: float
    residual: float
    iterations: int


def _edge_point(edge, scale):
    return edge + 1e-10 * scale


def _edge_values(bulk, right_edge):
    """(m, m_other) at the right edge: from the fold system when the bulk has one (exact),
    else at e₊ + 10⁻¹⁰·scale (an error ∝ √(10⁻¹⁰) from the square-root edge)."""
    x_e = _edge_point(right_edge, bulk.scale)
    if hasattr(bulk, "fold"):
        vals = bulk.real_values(np.array([x_e]))
        g = np.array([vals[0][0], vals[1][0]])
        gstart = (g[0], g[1] * x_e) if bulk.main == "g11" else (g[1], g[0] * x_e)
        e, st, _, mm = bulk.fold(x_e, gstart)
        if st == Status.CONVERGED and abs(e - right_edge) <= 1e-8 * bulk.scale:
            return mm
    return _values(bulk, x_e)


def _values(bulk, x):
    m, mo, st = bulk.real_values(np.atleast_1d(np.asarray(x, dtype=float)))
    if np.any(st != Status.CONVERGED):
        raise ConvergenceError(f"{bulk.label}: the real branch right of the support failed at x = {float(x):.6g}")
    return float(m[0]), float(mo[0])


def _transforms(bulk, x):
    tr = bulk.real_transforms(np.atleast_1d(np.asarray(x, dtype=float)))
    if np.any(tr.status != Status.CONVERGED):
        raise ConvergenceError(f"{bulk.label}: the real branch right of the support failed at x = {tr.x[0]:.6g}", tr)
    return tr


def _root(f, lo, hi_start, what):
    hi = hi_start
    for _ in range(200):
        if f(hi) < 0:
            break
        hi = 2 * hi
    else:  # pragma: no cover - the transforms decay like 1/x
        raise ConvergenceError(f"{what}: no sign change up to x = {hi:.3g}")
    x, r = brentq(f, lo, hi, xtol=1e-15 * hi, rtol=4 * np.finfo(float).eps, full_output=True, disp=False)
    if not r.converged:  # pragma: no cover
        raise ConvergenceError(f"{what}: {r.flag}")
    return x, r.iterations


def rectangular_outlier(bulk, theta_sq: float, right_edge: float) -> OutlierRoot:
    r"""θ² D(x) = 1 for the Gram WᵀW of W₀ + θuvᵀ (see the module docstring); ``bulk`` is the
    N×N law (its ``m_other`` the d×d one). Overlaps ``left`` = ⟨u₁, u⟩², ``right`` = ⟨v₁, v⟩²."""
    th = float(theta_sq)
    if not (np.isfinite(th) and th >= 0):
        raise ParameterError("theta_sq", th, ">= 0")

    def D(x):
        m, mb = _values(bulk, x)
        return x * m * mb

    x_e = _edge_point(right_edge, bulk.scale)
    m_e, mb_e = _edge_values(bulk, right_edge)
    threshold = 1.0 / (right_edge * m_e * mb_e)
    if th <= threshold:
        return OutlierRoot(False, None, {"left": 0.0, "right": 0.0}, threshold, 0.0, 0)
    x, it = _root(lambda x: th * D(x) - 1.0, x_e, 2 * x_e + 2 * th * bulk.scale, "rank-one outlier")
    t = _transforms(bulk, x)
    m, dm, mb, dmb = t.m[0], t.dm[0], t.m_other[0], t.dm_other[0]
    dD = mb * m + x * dmb * m + x * mb * dm
    return OutlierRoot(True, float(x), {"left": float(mb / (th * dD)), "right": float(m / (th * dD))},
                       threshold, abs(th * x * mb * m - 1.0), it)


def covariance_outlier(bulk, ell: float, right_edge: float) -> OutlierRoot:
    r"""−ℓ m̲(x) = 1 for a population spike ℓ of a sample covariance (see the module docstring);
    ``bulk`` is the N×N law of S (its ``m_other`` the companion m̲). Overlaps ``sample`` =
    ⟨ŷ, ζ/‖ζ‖⟩² (ℝⁿ) and ``population`` = ⟨ŵ, v⟩² (ℝᴺ)."""
    ell = float(ell)
    if not (np.isfinite(ell) and ell >= 0):
        raise ParameterError("population_spike", ell, ">= 0")
    x_e = _edge_point(right_edge, bulk.scale)
    threshold = -1.0 / _edge_values(bulk, right_edge)[1]
    if ell <= threshold:
        return OutlierRoot(False, None, {"sample": 0.0, "population": 0.0}, threshold, 0.0, 0)

    def f(x):
        return -ell * _values(bulk, x)[1] - 1.0

    x, it = _root(f, x_e, 2 * x_e + 2 * ell, "sample-covariance outlier")
    t = _transforms(bulk, x)
    mc, dmc = t.m_other[0], t.dm_other[0]
    return OutlierRoot(True, float(x), {"sample": float(mc**2 / dmc), "population": float(-mc / (x * dmc))},
                       threshold, abs(ell * mc + 1.0), it)
