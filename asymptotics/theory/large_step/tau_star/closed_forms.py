r"""τ* in closed form, where the inner expectation or a symmetry gives it exactly.

* **erf / erf.** E_ξ2 erf(a(κξ1 + ξ2)) = erf(aκξ1/√(1 + 2a²)) reproduces the teacher erf(bξ1)
  exactly when aκ/√(1 + 2a²) = b: κ* = b√(1 + 2a²)/a (√3 for a = b = 1) and τ* = 0.
* **Linear student** σ(ax) = a x: G(m) = a m (centring changes nothing), τ(κ) = E(t − aκξ1)², so
  κ* = μ1*/a and τ* = E t² − μ1*² (− (E t)² with a free constant), constants by quadrature.
* **Even student, odd teacher** (centred, or with a free constant): τ(κ) = E t² + E G(κξ1)² ≥ τ(0)
  (:func:`~.problem.is_symmetric_zero`), so κ* = 0 and τ* = E σ*(bz)² exactly (by quadrature);
  τ'(0) = τ''(0) = 0: the minimum is flatter than quadratic.
"""

from __future__ import annotations

import math

import numpy as np

from ....gaussian import hermite_rule
from ....solvers import Status
from .problem import TauProblem, is_symmetric_zero, teacher_moments
from .results import TauStarResult

__all__ = ["closed_form", "has_closed_form"]


def has_closed_form(prob: TauProblem) -> bool:
    """Whether :func:`closed_form` applies (erf/erf, a linear student, or κ* = 0 by symmetry)."""
    s, t = prob.student.builtin, prob.teacher.builtin
    return (s == "erf" and t == "erf") or s == "linear" or is_symmetric_zero(prob)


def closed_form(prob: TauProblem, a: float, b: float) -> TauStarResult | None:
    """The closed-form τ* at input scales (a, b), or ``None`` when there is none."""
    if not has_closed_form(prob):
        return None
    common = dict(
        status=Status.CONVERGED.label,
        attained=True,
        iterations=0,
        method="closed-form",
        rule="closed-form",
        student=prob.student.name,
        teacher=prob.teacher.name,
        student_scale=a,
        teacher_scale=b,
        centered=prob.center,
        fit_constant=prob.fit_constant,
    )
    if prob.student.builtin == "erf" and prob.teacher.builtin == "erf":
        # E_z erf(a(m + z)) = erf(a m / sqrt(1 + 2a²)): matches erf(b ξ1) iff aκ/√(1+2a²) = b
        kappa = b * math.sqrt(1.0 + 2.0 * a * a) / a
        if a == 1.0 and b == 1.0:
            kappa = math.sqrt(3.0)
        return TauStarResult(
            tau_star=0.0,
            kappa_star=kappa,
            infimum_at="interior",
            error=0.0,
            kappa_error=0.0,
            derivative=0.0,
            curvature=2.0 * _erf_curvature(a, b, kappa),
            message="E_ξ2 erf(a(κξ1 + ξ2)) = erf(aκξ1/√(1+2a²)) reproduces the teacher exactly",
            **common,
        )
    mean, m1, second, errors = teacher_moments(prob.teacher, b, prob.center)
    err = sum(errors)
    if prob.student.builtin == "linear":
        tau = second - m1 * m1 - (mean * mean if prob.fit_constant else 0.0)
        kappa = m1 / a
        zero = abs(kappa) <= 1e-12
        return TauStarResult(
            tau_star=max(tau, 0.0),
            kappa_star=0.0 if zero else kappa,
            infimum_at="zero" if zero else "interior",
            error=err,
            kappa_error=errors[1] / a,
            derivative=0.0,
            curvature=2.0 * a * a,
            message="linear student: κ* = μ1*/a, τ* = E σ*² − μ1*² (constants by quadrature)",
            **common,
        )
    return TauStarResult(
        tau_star=max(second, 0.0),
        kappa_star=0.0,
        infimum_at="zero",
        error=err,
        kappa_error=0.0,
        derivative=0.0,
        curvature=0.0,
        message="σ even and σ* odd: τ(κ) = E σ*² + E G(κξ1)² ≥ τ(0), so κ* = 0 and τ* = E σ*² exactly (by symmetry)",
        **common,
    )


def _erf_curvature(a: float, b: float, kappa: float) -> float:
    """E[ξ1² G'(κξ1)²] for σ = erf(a·) at the exact fit (τ'' = 2 × this)."""
    s = a / math.sqrt(1.0 + 2.0 * a * a)
    x, w = hermite_rule(80)
    gp = 2.0 / math.sqrt(math.pi) * s * np.exp(-((s * kappa * x) ** 2))
    return float(np.dot(w, x * x * gp * gp))
