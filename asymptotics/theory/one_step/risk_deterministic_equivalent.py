r"""Route B: R0, R1 and δ by the ridge deterministic equivalent with a rank-one Woodbury correction
(docs/one-step.md §3, route B; derived and verified against routes A, C and simulation).

Conditionally on W (independent of the fresh ridge data) the Gaussian-equivalent features
μ1 Wᵀx + μ2 z have covariance Σ = μ1² WᵀW + μ2² I_N. With Ba et al.'s ridge
â = argmin (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² the deterministic equivalent is governed by the
effective ridge κ > 0,

    λ = κ (1 − df1(κ)),   df_k(κ) = tr[Σᵏ(Σ + κ)⁻ᵏ]/n.

With γ = μ2²/μ1², κ̃ = κ/μ1², z* = −(γ + κ̃) and m the MP(ψ2) transform of W₀ᵀW₀:

    λ = κ [1 − (ψ2/ψ1)(1 − κ̃ m(z*))],     df2 = (ψ2/ψ1)(1 − 2κ̃ m(z*) + κ̃² m'(z*)),

both the same for W₀ and W₁ (a rank-one change). The best linear predictor of y in the features
is b* = μ1μ1* Σ⁻¹Wᵀβ*; misspecification, bias and variance give

    R(λ) = μ2*² + [ μ1*² (γ Q(z*) − z* κ̃ Q'(z*)) + (σ_ε² + μ2*²) df2 ] / (1 − df2),

with Q = Q₀ = m̄ for R0 and Q = Q₁ = m̄ − Δ for R1 (:mod:`.spike`), hence

    δ = R0 − R1 = μ1*²/(1 − df2) · [γ Δ(z*) − z* κ̃ Δ'(z*)].

The effective ridge is found by Newton's method on the convex increasing function
κ̃ ↦ κ̃(1 − df1) from the right of its largest root (κ̃₀ = λ̃ + (ψ2/ψ1)(1 + γ), λ̃ = λ/μ1²), where
the iterates decrease monotonically to the root: no bracketing or branch choice is needed, and
the λ = 0 limit (κ = 0 below interpolation, df1(κ) = 1 above it) is reached the same way.

Degenerate inputs: μ1 = 0 (Σ = μ2² I, κ in closed form, R1 = R0) and μ1* = 0 (δ = 0) give
the degenerate answer with a :class:`~asymptotics.errors.DegenerateWarning`. λ = 0 at
ψ1 = ψ2 is the interpolation threshold, where the risk diverges: a
:class:`~asymptotics.errors.ParameterError` (use λ > 0).

>>> m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
>>> round(risk(m, psi1=4.0, psi2=2.0, lam=1e-4, eta=3.0).risk0, 7)      # reference value, docs/one-step.md §3
0.1367689
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...numerics.marchenko_pastur import (
    gram_stieltjes,
    gram_stieltjes_derivative,
    wtw_stieltjes,
)
from ...params import check_array
from ...solvers import FixedPoint, SolverResult, fixed_point
from . import _spike_generated as gen
from ._checks import AsDict, broadcast_params, risk_grid
from .model import OneStepModel
from .spike_parameters import check_risk_spike, signal_spike_sq, spike_strength_sq

__all__ = [
    "EffectiveRidge",
    "effective_ridge",
    "spectral_sums",
    "degrees_of_freedom",
    "quadratic_form_bias",
    "risk_from_quadratic_form",
    "RiskResult",
    "risk",
    "interpolation_check",
]

#: Newton for κ̃: residual tolerances of the step |F/F'| (the iterates converge quadratically).
#: The returned iterate is polished by one more Newton step.
NEWTON = FixedPoint(damping=1.0, atol=1e-300, rtol=1e-13, max_steps=200)


@dataclass(frozen=True)
class EffectiveRidge:
    """Solution of λ = κ(1 − df1(κ)).

    Attributes:
        kappa: κ, the effective ridge.
        kappa_tilde: κ̃ = κ/μ1².
        z: z* = −(γ + κ̃), where the transforms are evaluated.
        df1: tr Σ(Σ + κ)⁻¹/n (= 1 − λ/κ).
        df2: tr Σ²(Σ + κ)⁻²/n.
        residual: max |κ(1 − df1) − λ| / max(1, λ) over the grid.
        solver: the :class:`~asymptotics.solvers.SolverResult` of the Newton iteration.
    """

    kappa: object
    kappa_tilde: object
    z: object
    df1: object
    df2: object
    residual: float
    solver: SolverResult


def interpolation_check(psi1, psi2, lam, mu2_sq: float) -> None:
    """λ = 0 at ψ1 = ψ2 (the interpolation threshold) makes the risk infinite; λ = 0 with a linear
    student (μ2 = 0) makes the features singular. Both raise :class:`ParameterError`."""
    lam = np.asarray(lam)
    zero = lam == 0
    if not np.any(zero):
        return
    if mu2_sq == 0:
        raise ParameterError("lam", 0.0, "> 0 for a linear student (μ2 = 0): the ridgeless features are singular")
    at = zero & np.isclose(np.asarray(psi1), np.asarray(psi2), rtol=1e-12, atol=0)
    if np.any(at):
        p = float(np.broadcast_to(psi1, at.shape)[at].ravel()[0])
        raise ParameterError(
            "lam", 0.0, "> 0 at the interpolation threshold ψ1 = ψ2",
            f"ψ1 = ψ2 = {p:g}: the ridgeless risk diverges there (df2 → 1); choose λ > 0",
        )


def spectral_sums(kt, gam, psi1, psi2):
    r"""(df1, df2) at κ̃ for Σ = μ1²(WᵀW + γ), z = −(γ + κ̃), in a cancellation-free form.

    The spectrum of WᵀW (N×N) is that of WWᵀ (d×d) plus N − d zeros. For ψ2 ≤ 1 we integrate
    over the atomless law MP(ψ2) of WᵀW (transform m, weight N/n = ψ2/ψ1); for ψ2 > 1 over the
    atomless law of WWᵀ (transform m̄, weight d/n = 1/ψ1) plus the atom (ψ2 − 1)/ψ1 at 0. With
    the base transform b, s = ∫ t/(t − z) = 1 + z b, and the identities of the MP equations

        MP(ψ2):  1 + z m = m/(1 + ψ2 m),     m' − m² = ψ2 m⁴/((1 + ψ2 m)² − ψ2 m²),
        W W ᵀ:   1 + z m̄ = ψ2 m̄/(1 + m̄),     m̄' − m̄² = ψ2 m̄⁴/((1 + m̄)² − ψ2 m̄²),

    df1 = w (s + γ b) + w₀ γ/(γ + κ̃) and
    df2 = w [(s + γ b)² + κ̃²(b' − b²)] + w₀ γ²/(γ + κ̃)²  (every term ≥ 0: no cancellation,
    which matters for ψ2 ≫ 1 where 1 − κ̃ m is O(1/ψ2)).
    """
    z = -(gam + kt)
    small = psi2 <= 1
    # base law MP(ψ2) (used where ψ2 <= 1)
    m = np.asarray(wtw_stieltjes(z, psi2))
    s_a = m / (1 + psi2 * m)
    v_a = psi2 * m**4 / ((1 + psi2 * m) ** 2 - psi2 * m * m)
    # base law of WWᵀ (used where ψ2 > 1)
    mb = np.asarray(gram_stieltjes(z, psi2))
    s_b = psi2 * mb / (1 + mb)
    v_b = psi2 * mb**4 / ((1 + mb) ** 2 - psi2 * mb * mb)
    b = np.where(small, m, mb)
    s = np.where(small, s_a, s_b)
    v = np.where(small, v_a, v_b)
    w = np.where(small, psi2 / psi1, 1 / psi1)
    w0 = np.where(small, 0.0, (psi2 - 1) / psi1)
    one_minus = s + gam * b  # = 1 − κ̃ b
    frac = gam / (gam + kt) if gam > 0 else np.zeros_like(kt)
    df1 = w * one_minus + w0 * frac
    df2 = w * (one_minus**2 + kt**2 * v) + w0 * frac**2
    return df1, df2


def _kappa_newton_map(kt, lt, gam, psi1, psi2):
    """One Newton step for F(κ̃) = κ̃(1 − df1(κ̃)) − λ̃, with F'(κ̃) = 1 − df2(κ̃)."""
    df1, df2 = spectral_sums(kt, gam, psi1, psi2)
    return kt - (kt * (1 - df1) - lt) / (1 - df2)


def effective_ridge(model: OneStepModel, psi1, psi2, lam) -> EffectiveRidge:
    r"""κ with λ = κ(1 − df1(κ)) and df2, vectorised over ``psi1, psi2, lam``.

    For μ1 = 0 (Σ = μ2² I): κ² + κ(μ2²(1 − r) − λ) − λμ2² = 0, r = ψ2/ψ1 (positive root).
    """
    psi1 = check_array("psi1", psi1)
    psi2 = check_array("psi2", psi2)
    lam = check_array("lam", lam, "nonnegative")
    psi1, psi2, lam = broadcast_params(psi1=psi1, psi2=psi2, lam=lam)
    interpolation_check(psi1, psi2, lam, model.mu2_sq)
    r = psi2 / psi1
    if model.mu1 == 0:
        a2 = model.mu2_sq
        b = a2 * (1 - r) - lam
        root = np.sqrt(b * b + 4 * lam * a2)
        with np.errstate(divide="ignore", invalid="ignore"):
            # the two algebraically equal forms of the positive root, each without cancellation
            kappa = np.where(b > 0, 2 * lam * a2 / np.where(b > 0, b + root, 1.0), 0.5 * (root - b))
        df1 = r * a2 / (a2 + kappa)
        df2 = r * a2**2 / (a2 + kappa) ** 2
        res = float(np.max(np.abs(kappa * (1 - df1) - lam) / np.maximum(1, lam))) if kappa.size else 0.0
        sol = SolverResult(value=kappa, converged=True, iterations=0, residual=res, method="closed form")
        return EffectiveRidge(kappa, np.full_like(kappa, np.inf), np.full_like(kappa, -np.inf), df1, df2, res, sol)
    mu1s = model.mu1**2
    gam = model.mu2_sq / mu1s
    lt = lam / mu1s
    x0 = lt + r * (1 + gam)
    if x0.size == 0:
        sol = SolverResult(value=x0, converged=True, iterations=0, residual=0.0, method="newton")
    else:
        sol = fixed_point(_kappa_newton_map, x0, args=(lt, gam, psi1, psi2), solver=NEWTON)
    kt = np.asarray(sol.value, dtype=np.float64).reshape(x0.shape)
    if kt.size:
        kt = np.maximum(_kappa_newton_map(kt, lt, gam, psi1, psi2), 0.0)  # polish (quadratic convergence)
    z = -(gam + kt)
    if np.any(z >= 0):  # only a linear student at λ = 0 could get here; refused above
        raise ParameterError("lam", 0.0, "> 0 for this activation pair")
    df1, df2 = spectral_sums(kt, gam, psi1, psi2)
    resid = np.abs(kt * (1 - df1) - lt) * mu1s / np.maximum(1.0, lam + kt * mu1s * 1e-3)
    res = float(np.max(resid)) if resid.size else 0.0
    if not res <= 1e-10:
        raise ConvergenceError(f"effective ridge: residual {res:.3g} of λ = κ(1 − df1) after Newton", sol)
    return EffectiveRidge(kt * mu1s, kt, z, df1, df2, res, sol)


def degrees_of_freedom(model: OneStepModel, psi1, psi2, lam):
    r"""(df1, df2) at the effective ridge: df_k = tr[Σᵏ(Σ + κ)⁻ᵏ]/n."""
    er = effective_ridge(model, psi1, psi2, lam)
    return er.df1, er.df2


def quadratic_form_bias(model: OneStepModel, z, kappa_tilde, Q, dQ):
    r"""γ Q(z*) − z* κ̃ Q'(z*): the bias functional of a quadratic form Q(z) = β*ᵀ(WWᵀ − z)⁻¹β*
    (R is affine and δ linear in it: δ uses Q₀ − Q₁ = Δ). Also the ψ1 → ∞ limits' (κ̃ = λ/μ1²)."""
    return model.gamma * Q - z * kappa_tilde * dQ


def risk_from_quadratic_form(model: OneStepModel, er: EffectiveRidge, Q, dQ):
    r"""R = μ2*² + [μ1*²(γ Q(z*) − z* κ̃ Q'(z*)) + (σ_ε² + μ2*²) df2]/(1 − df2) for a given
    quadratic form Q(z) = β*ᵀ(WWᵀ − z)⁻¹β* and its derivative at z*."""
    bias = model.mu1_star**2 * quadratic_form_bias(model, er.z, er.kappa_tilde, Q, dQ)
    return model.mu2_star_sq + (bias + model.effective_noise_sq * er.df2) / (1 - er.df2)


@dataclass(frozen=True)
class RiskResult(AsDict):
    """R0, R1 and δ at a parameter point or grid (arrays broadcast over the inputs).

    Attributes:
        risk0: R0(λ), random features at initialisation (W₀).
        risk1: R1(λ), after one step (W₁).
        delta: δ = R0 − R1 ≥ 0 (computed directly, not as a difference).
        kernel_bound: μ2*², the best-linear floor (R1 ≥ μ2*²).
        kappa: the effective ridge κ (route B; ``None`` for other routes).
        df2: tr Σ²(Σ + κ)⁻²/n (route B; ``None`` for other routes).
        route: ``"A"`` (Mei–Montanari, R0 only), ``"B"`` (deterministic equivalent), ``"C"`` (pencil).
        residual: the largest residual of the solved equations.
        iterations: the largest number of solver iterations.
    """

    risk0: object
    risk1: object
    delta: object
    kernel_bound: float
    kappa: object = None
    df2: object = None
    route: str = "B"
    residual: float = 0.0
    iterations: int = 0


def risk(model: OneStepModel, psi1, psi2, lam, eta=0.0) -> RiskResult:
    r"""R0(λ), R1(λ) and δ by route B (see the module docstring), vectorised over the inputs."""
    psi1, psi2, lam, eta = risk_grid(psi1, psi2, lam, eta)
    scalar = psi1.ndim == 0
    model.warn_if_degenerate()
    er = effective_ridge(model, psi1, psi2, lam)
    if model.mu1 == 0:
        r0 = model.mu2_star_sq + (model.mu1_star**2 + model.effective_noise_sq * er.df2) / (1 - er.df2)
        delta = np.zeros_like(r0)
    else:
        z = er.z
        mb = np.asarray(gram_stieltjes(z, psi2))
        mbp = np.asarray(gram_stieltjes_derivative(z, psi2))
        r0 = risk_from_quadratic_form(model, er, mb, mbp)
        th1 = np.asarray(signal_spike_sq(model, eta))
        th = np.asarray(spike_strength_sq(model, psi1, eta))
        check_risk_spike(th, eta)
        D = gen.spike_correction(mb, th, th1)
        dD = gen.spike_correction_derivative(mb, mbp, th, th1)
        delta = model.mu1_star**2 / (1 - er.df2) * quadratic_form_bias(model, z, er.kappa_tilde, D, dD)
    r1 = r0 - delta

    def o(a):
        a = np.asarray(a, dtype=np.float64)
        return float(a) if scalar else a

    return RiskResult(risk0=o(r0), risk1=o(r1), delta=o(delta), kernel_bound=model.kernel_bound,
                      kappa=o(er.kappa), df2=o(er.df2), route="B", residual=er.residual,
                      iterations=er.solver.iterations)
