r"""Limits of the one-step risks (docs/one-step.md §4; derived, checked against route B).

**Best-linear floor (stated, Fact 4 / Prop. 1).** R1 ≥ μ2*² for every λ: the trained CK at
η = Θ(1) cannot beat the best linear predictor; μ2*² = ‖P_{>1} f*‖² is also the kernel lower bound.

**ψ1 → ∞ (infinitely many samples per dimension).** κ → λ, df2 → 0, θ2 → 0, ρ → 1; with
z* = −(μ2² + λ)/μ1², γ = μ2²/μ1²:

    R0(∞) = μ2*² + μ1*² [γ m̄(z*) − z* (λ/μ1²) m̄'(z*)],
    δ(∞)  = μ1*² [γ Δ(z*) − z* (λ/μ1²) Δ'(z*)],   Δ = θ1² m̄²/(1 + (1 + θ1²) m̄),

and as λ → 0: δ → μ1*² γ θ1² m̄(−γ)²/(1 + (1 + θ1²) m̄(−γ)), increasing in η. σ_ε plays no role.

**ψ2 → ∞ (infinite width; derived here).** The effective ridge grows like the width, κ ≈ μ1² k ψ2,
where k > 0 solves df1 → 1, i.e. ψ1 = γ/k + 1/(1 + k):

    ψ1 k² + (ψ1 − γ − 1) k − γ = 0,        df2 → 1/(ψ1 (1 + k)²).

W₀W₀ᵀ concentrates at ψ2, m̄(z*) ≈ 1/(ψ2(1 + k)), so the random-features risk tends to the
ridgeless kernel limit (independent of λ: the penalty (λ/N)‖a‖² vanishes per feature)

    R0 → μ2*² + [μ1*² k²/(1 + k)² + (σ_ε² + μ2*²) df2] / (1 − df2),

and the spike's effect decays like 1/ψ2 (the spike falls below the BBP threshold θ⁴ > ψ2):

    δ ≈ C/ψ2,   C = 2 μ1*² θ1² k² / ((1 + k)³ (1 − df2)).

>>> m = OneStepModel.from_activations("tanh", "softplus")
>>> [round(float(delta_infinite_samples(m, 2.0, 0.01, eta)), 5) for eta in (1, 4, 16)]
[0.00068, 0.00676, 0.0152]
"""

from __future__ import annotations

import numpy as np

from ...errors import ParameterError
from ...numerics.marchenko_pastur import gram_stieltjes, gram_stieltjes_derivative
from ...params import check_array
from . import _spike_generated as gen
from ._checks import broadcast_params
from .model import OneStepModel
from .risk_deterministic_equivalent import quadratic_form_bias
from .spike_parameters import check_risk_spike, signal_spike_sq

__all__ = [
    "best_linear_floor",
    "risk0_infinite_samples",
    "delta_infinite_samples",
    "risk1_infinite_samples",
    "delta_infinite_samples_ridgeless",
    "infinite_width_ridge",
    "risk0_infinite_width",
    "delta_infinite_width_coefficient",
]


def _need_mu1(model):
    if model.mu1 == 0:
        raise ParameterError("student", model.student or "σ", "an activation with μ1 ≠ 0 for this limit",
                             "μ1 = 0: use the route-B risk (its closed form) instead")


def _o(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def best_linear_floor(model: OneStepModel) -> float:
    r"""μ2*²: the risk of the best linear predictor and the kernel lower bound (R1 ≥ μ2*²)."""
    return model.mu2_star_sq


def _zstar(model, lam):
    return -(model.mu2_sq + lam) / model.mu1**2


def risk0_infinite_samples(model: OneStepModel, psi2, lam):
    r"""lim_{ψ1→∞} R0 = μ2*² + μ1*² [γ m̄(z*) − z* (λ/μ1²) m̄'(z*)],  z* = −(μ2² + λ)/μ1²."""
    _need_mu1(model)
    psi2 = check_array("psi2", psi2)
    lam = check_array("lam", lam, "nonnegative")
    psi2, lam = broadcast_params(psi2=psi2, lam=lam)
    z = _zstar(model, lam)
    if model.mu2_sq == 0 and np.any(lam == 0):
        raise ParameterError("lam", 0.0, "> 0 for a linear student")
    mb, mbp = np.asarray(gram_stieltjes(z, psi2)), np.asarray(gram_stieltjes_derivative(z, psi2))
    kt = lam / model.mu1**2
    return _o(model.mu2_star_sq + model.mu1_star**2 * quadratic_form_bias(model, z, kt, mb, mbp))


def delta_infinite_samples(model: OneStepModel, psi2, lam, eta):
    r"""lim_{ψ1→∞} δ = μ1*² [γ Δ(z*) − z* (λ/μ1²) Δ'(z*)] with θ² = θ1² = η²μ1²μ1*²."""
    _need_mu1(model)
    psi2 = check_array("psi2", psi2)
    lam = check_array("lam", lam, "nonnegative")
    eta = check_array("eta", eta, "nonnegative")
    psi2, lam, eta = broadcast_params(psi2=psi2, lam=lam, eta=eta)
    z = _zstar(model, lam)
    mb, mbp = np.asarray(gram_stieltjes(z, psi2)), np.asarray(gram_stieltjes_derivative(z, psi2))
    th1 = np.asarray(signal_spike_sq(model, eta))
    check_risk_spike(th1, eta)  # θ² = θ1² in these limits
    D = gen.spike_correction(mb, th1, th1)
    dD = gen.spike_correction_derivative(mb, mbp, th1, th1)
    kt = lam / model.mu1**2
    return _o(model.mu1_star**2 * quadratic_form_bias(model, z, kt, D, dD))


def risk1_infinite_samples(model: OneStepModel, psi2, lam, eta):
    r"""lim_{ψ1→∞} R1 = R0(∞) − δ(∞)."""
    return _o(np.asarray(risk0_infinite_samples(model, psi2, lam)) - np.asarray(delta_infinite_samples(model, psi2, lam, eta)))


def delta_infinite_samples_ridgeless(model: OneStepModel, psi2, eta):
    r"""lim_{λ→0} lim_{ψ1→∞} δ = μ1*² γ θ1² m̄(−γ)²/(1 + (1 + θ1²) m̄(−γ)) (requires μ2 > 0)."""
    _need_mu1(model)
    if model.mu2_sq == 0:
        raise ParameterError("student", model.student or "σ", "a nonlinear student (μ2 > 0)")
    psi2 = check_array("psi2", psi2)
    eta = check_array("eta", eta, "nonnegative")
    psi2, eta = broadcast_params(psi2=psi2, eta=eta)
    g = model.gamma
    mb = np.asarray(gram_stieltjes(-g * np.ones_like(psi2), psi2))
    th1 = np.asarray(signal_spike_sq(model, eta))
    check_risk_spike(th1, eta)  # θ² = θ1² in these limits
    return _o(model.mu1_star**2 * g * gen.spike_correction(mb, th1, th1))  # μ1*² γ Δ(−γ), θ² = θ1²


def infinite_width_ridge(model: OneStepModel, psi1):
    r"""k = lim κ/(μ1² ψ2) as ψ2 → ∞: the positive root of ψ1 k² + (ψ1 − γ − 1) k − γ = 0."""
    _need_mu1(model)
    psi1 = check_array("psi1", psi1)
    g = model.gamma
    b = psi1 - g - 1
    disc = np.sqrt(b * b + 4 * psi1 * g)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(b > 0, 2 * g / np.where(b > 0, b + disc, 1.0), (disc - b) / (2 * psi1))
    if np.any(k <= 0):
        raise ParameterError("psi1", float(np.asarray(psi1).ravel()[0]), "> 1 for a linear student at infinite width",
                             "the ridgeless kernel limit interpolates")
    return _o(k)


def _df2_infinite_width(psi1, k):
    return 1 / (psi1 * (1 + k) ** 2)


def risk0_infinite_width(model: OneStepModel, psi1):
    r"""lim_{ψ2→∞} R0 = μ2*² + [μ1*² k²/(1 + k)² + (σ_ε² + μ2*²) df2]/(1 − df2), df2 = 1/(ψ1(1 + k)²)."""
    psi1 = check_array("psi1", psi1)
    k = np.asarray(infinite_width_ridge(model, psi1))
    df2 = _df2_infinite_width(psi1, k)
    return _o(model.mu2_star_sq + (model.mu1_star**2 * k**2 / (1 + k) ** 2 + model.effective_noise_sq * df2) / (1 - df2))


def delta_infinite_width_coefficient(model: OneStepModel, psi1, eta):
    r"""C in δ ≈ C/ψ2 (ψ2 → ∞): C = 2 μ1*² θ1² k²/((1 + k)³ (1 − df2)), θ1² = η²μ1²μ1*²."""
    psi1 = check_array("psi1", psi1)
    eta = check_array("eta", eta, "nonnegative")
    psi1, eta = broadcast_params(psi1=psi1, eta=eta)
    k = np.asarray(infinite_width_ridge(model, psi1))
    df2 = _df2_infinite_width(psi1, k)
    th1 = np.asarray(signal_spike_sq(model, eta))
    check_risk_spike(th1, eta)  # θ² = θ1² in these limits
    return _o(2 * model.mu1_star**2 * th1 * k**2 / ((1 + k) ** 3 * (1 - df2)))
