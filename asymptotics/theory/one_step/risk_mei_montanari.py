r"""Route A: R0 by the Mei–Montanari (2019) closed form (docs/one-step.md §3, route A; derived,
agrees with route B to machine precision).

**Labels.** Mei–Montanari swap the ratios: their ψ1 is the width N/d and their ψ2 the number of
samples n/d. In Ba et al.'s convention (ψ1 = n/d, ψ2 = N/d)

    p1 := ψ2 (MM's ψ1),  p2 := ψ1 (MM's ψ2),  ζ := μ1/μ2,  λ̄ := λ/(ψ2 μ2²)

(λ_MM = λ/ψ2 for Ba et al.'s penalty (λ/N)‖a‖² on normalised features, and MM's λ̄ = λ_MM/μ2²).

**Fixed point.** ν1, ν2 are analytic on ℂ₊ and solve

    ν1 = p1 (−ξ − ν2 − ζ²ν2/(1 − ζ²ν1ν2))⁻¹,   ν2 = p2 (−ξ − ν1 − ζ²ν1/(1 − ζ²ν1ν2))⁻¹,

evaluated at ξ = i y, y = √(p1 p2 λ̄) = √(ψ1 λ/μ2²); χ = ν1ν2.

**Branch (explicit).** On the imaginary axis write ν_j = i a_j. The system becomes real,

    a1 = p1/(y + a2 + ζ²a2/(1 + ζ²a1a2)),   a2 = p2/(y + a1 + ζ²a1/(1 + ζ²a1a2)),

and the Stieltjes branch (Im ν_j > 0 on ℂ₊) is the solution with a1, a2 > 0. With P = a1a2 and
φ(P) = P + ζ²P/(1 + ζ²P) it reads y a_j + φ(P) = p_j, so a_j = (p_j − φ(P))/y and P solves

    G(P) := y²P − (p1 − φ(P))(p2 − φ(P)) = 0,   0 ≤ φ(P) < min(p1, p2).

G is increasing and concave on that interval (φ is increasing and concave) with G(0) = −p1p2 < 0,
so Newton's method from P = 0 increases monotonically to the unique root — the positive branch;
χ = −P. At λ = 0 (y = 0) the same equation gives the ridgeless limit φ(P) = min(p1, p2).
(The tests solve the complex system directly and check that this is the analytic branch and that
the other solution gives a wrong risk.)

**Risk.**

    E0 = −χ⁵ζ⁶ + 3χ⁴ζ⁴ + (p1p2 − p2 − p1 + 1)χ³ζ⁶ − 2χ³ζ⁴ − 3χ³ζ² + (p1 + p2 − 3p1p2 + 1)χ²ζ⁴
         + 2χ²ζ² + χ² + 3p1p2χζ² − p1p2
    E1 = p2χ³ζ⁴ − p2χ²ζ² + p1p2χζ² − p1p2
    E2 = χ⁵ζ⁶ − 3χ⁴ζ⁴ + (p1 − 1)χ³ζ⁶ + 2χ³ζ⁴ + 3χ³ζ² + (−p1 − 1)χ²ζ⁴ − 2χ²ζ² − χ²

    R0(λ) = μ1*² E1/E0 + (σ_ε² + μ2*²) E2/E0 + μ2*².

Route A gives R0 only (random features at initialisation); it needs a nonlinear student (μ2 > 0).

>>> m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
>>> round(risk0(m, psi1=4.0, psi2=2.0, lam=1e-4), 7)
0.1367689
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...params import check_array
from ...solvers import FixedPoint, SolverResult, fixed_point
from ._checks import broadcast_params
from .model import OneStepModel
from .risk_deterministic_equivalent import RiskResult, interpolation_check

__all__ = ["MMParameters", "mm_parameters", "mm_chi", "mm_nu", "mm_polynomials", "risk0", "risk"]

#: Newton on G(P); the returned iterate is polished by one more Newton step.
NEWTON = FixedPoint(damping=1.0, atol=1e-300, rtol=1e-13, max_steps=500)


@dataclass(frozen=True)
class MMParameters:
    """Mei–Montanari's parameters for a Ba et al. point.

    Attributes: ``p1`` = ψ2 (MM's ψ1, width), ``p2`` = ψ1 (MM's ψ2, samples), ``zeta`` = μ1/μ2,
    ``lam_bar`` = λ/(ψ2 μ2²), ``y`` = √(p1 p2 λ̄) (ξ = i y).
    """

    p1: object
    p2: object
    zeta: float
    lam_bar: object
    y: object


def mm_parameters(model: OneStepModel, psi1, psi2, lam) -> MMParameters:
    """Translate (ψ1, ψ2, λ) and the student's constants to Mei–Montanari's (p1, p2, ζ, λ̄, y)."""
    if model.mu2_sq == 0:
        raise ParameterError("student", model.student or "σ", "a nonlinear student (μ2 > 0) for route A",
                             "ζ = μ1/μ2 is infinite; use route B or C")
    psi1 = check_array("psi1", psi1)
    psi2 = check_array("psi2", psi2)
    lam = check_array("lam", lam, "nonnegative")
    psi1, psi2, lam = broadcast_params(psi1=psi1, psi2=psi2, lam=lam)
    lam_bar = lam / (psi2 * model.mu2_sq)
    return MMParameters(p1=psi2, p2=psi1, zeta=abs(model.mu1) / model.mu2, lam_bar=lam_bar,
                        y=np.sqrt(psi2 * psi1 * lam_bar))


def _phi(P, z2):
    return P + z2 * P / (1 + z2 * P)


def _newton_map(P, y, p1, p2, z2):
    """One Newton step for G(P) = y²P − (p1 − φ)(p2 − φ)."""
    phi = _phi(P, z2)
    dphi = 1 + z2 / (1 + z2 * P) ** 2
    G = y * y * P - (p1 - phi) * (p2 - phi)
    dG = y * y + dphi * (p1 + p2 - 2 * phi)
    return P - G / dG


def mm_chi(prm: MMParameters) -> tuple[np.ndarray, SolverResult]:
    r"""χ = ν1ν2 = −a1a2 at ξ = i y on the analytic branch (a1, a2 > 0): Newton from P = 0 on
    G(P) = y²P − (p1 − φ(P))(p2 − φ(P)) (monotone; see the module docstring)."""
    z2 = prm.zeta**2
    P0 = np.zeros(np.shape(prm.y))
    if P0.size == 0:
        return P0, SolverResult(P0, True, 0, 0.0, "newton")
    sol = fixed_point(_newton_map, P0, args=(prm.y, prm.p1, prm.p2, z2), solver=NEWTON)
    P = np.asarray(sol.value, dtype=np.float64).reshape(P0.shape)
    P = _newton_map(P, prm.y, prm.p1, prm.p2, z2)  # polish (quadratic convergence)
    phi = _phi(P, z2)
    G = prm.y**2 * P - (prm.p1 - phi) * (prm.p2 - phi)
    scale = np.maximum(1.0, prm.p1 * prm.p2)
    if not (np.all(P >= 0) and np.all(phi <= np.minimum(prm.p1, prm.p2) * (1 + 1e-12))):
        raise ConvergenceError("Mei–Montanari fixed point left the analytic branch (a1, a2 > 0)", sol)
    if not np.all(np.abs(G) <= 1e-11 * scale):
        raise ConvergenceError(f"Mei–Montanari fixed point: residual {np.max(np.abs(G) / scale):.3g}", sol)
    return -P, sol


def mm_nu(prm: MMParameters):
    r"""(ν1, ν2) = (i a1, i a2) at ξ = i y (requires λ > 0: at y = 0 one of a_j is infinite)."""
    if np.any(np.asarray(prm.y) == 0):
        raise ParameterError("lam", 0.0, "> 0 for ν1, ν2 themselves (χ = ν1ν2 has a finite ridgeless limit)")
    chi, _ = mm_chi(prm)
    phi = _phi(-chi, prm.zeta**2)
    return 1j * (prm.p1 - phi) / prm.y, 1j * (prm.p2 - phi) / prm.y


def mm_polynomials(chi, p1, p2, zeta):
    r"""(E0, E1, E2) of Mei–Montanari's risk formula as functions of χ, p1, p2, ζ."""
    z2 = zeta * zeta
    z4 = z2 * z2
    z6 = z4 * z2
    c2 = chi * chi
    c3 = c2 * chi
    c4 = c3 * chi
    c5 = c4 * chi
    pp = p1 * p2
    E0 = (-c5 * z6 + 3 * c4 * z4 + (pp - p2 - p1 + 1) * c3 * z6 - 2 * c3 * z4 - 3 * c3 * z2
          + (p1 + p2 - 3 * pp + 1) * c2 * z4 + 2 * c2 * z2 + c2 + 3 * pp * chi * z2 - pp)
    E1 = p2 * c3 * z4 - p2 * c2 * z2 + pp * chi * z2 - pp
    E2 = c5 * z6 - 3 * c4 * z4 + (p1 - 1) * c3 * z6 + 2 * c3 * z4 + 3 * c3 * z2 + (-p1 - 1) * c2 * z4 - 2 * c2 * z2 - c2
    return E0, E1, E2


def risk0(model: OneStepModel, psi1, psi2, lam):
    r"""R0(λ) = μ1*² E1/E0 + (σ_ε² + μ2*²) E2/E0 + μ2*² (vectorised)."""
    return risk(model, psi1, psi2, lam).risk0


def risk(model: OneStepModel, psi1, psi2, lam, eta=0.0) -> RiskResult:
    """R0 by route A (:func:`risk0`); R1 and δ are not given by this route (``None``)."""
    check_array("eta", eta, "nonnegative")
    prm = mm_parameters(model, psi1, psi2, lam)
    interpolation_check(prm.p2, prm.p1, np.asarray(prm.lam_bar), model.mu2_sq)
    chi, sol = mm_chi(prm)
    E0, E1, E2 = mm_polynomials(chi, prm.p1, prm.p2, prm.zeta)
    r0 = model.mu1_star**2 * E1 / E0 + model.effective_noise_sq * E2 / E0 + model.mu2_star_sq
    r0 = float(r0) if np.ndim(r0) == 0 else r0
    return RiskResult(risk0=r0, risk1=None, delta=None, kernel_bound=model.kernel_bound, route="A",
                      residual=sol.residual, iterations=sol.iterations)
