r"""Special cases and bounds of the spiked-RF theory (docs/spiked-rf.md, "Special cases").

- r = 0 (no step: η̃ = 0): the cGET coefficients are constants and the fixed point reduces to the
  Gaussian-equivalent random-features ridge. In the Cui convention (λ not rescaled, α/β = n/p)
  it equals the random-features risk R0 of the one-step theory with ψ1 = α, ψ2 = β and
  λ_Ba = λ β/α (:func:`ba_ridge_from_cui`); the test checks this to 1e-9.
- α0 → ∞: γ → 1, c → 1, r → η̃ h1 h1*, ρ = 0, h̃1 ≡ 0 and ψ drops out (isotropic spiked RF).
- The linear (kernel) floor h2* − h0*² − h1*²: no random-features (r = 0) ridge goes below it;
  the sRF does.

>>> from asymptotics.theory.spiked_rf.special_cases import linear_floor
>>> round(linear_floor("tanh"), 12)                  # μ2*² of tanh
0.027415326035
"""

from __future__ import annotations

import math

from ...params import check_nonnegative, check_positive
from .channel import channel_model
from .fixed_point import SpikedRFSolution, solve_spiked_rf
from .mapping import as_activation, cui_to_srf, srf_parameters

__all__ = [
    "random_features_error",
    "ba_ridge_from_cui",
    "cui_ridge_from_ba",
    "isotropic_spiked_rf",
    "linear_floor",
]


def random_features_error(alpha: float, beta: float, lam: float, student, teacher, *, noise: float = 0.0,
                          tol: float = 1e-12) -> SpikedRFSolution:
    r"""Random features (r = 0, c = 1, γ = 0): ridge on σ(Wx), W rows on the sphere, Cui convention."""
    model = channel_model(srf_parameters(1.0, 0.0, 0.0), student, teacher, check_nonnegative("noise", noise))
    return solve_spiked_rf(model, alpha, beta, lam, tol=tol)


def ba_ridge_from_cui(lam: float, alpha: float, beta: float) -> float:
    r"""λ_Ba = λ_Cui · β/α: Cui's Σ_μ (y − ŷ)² + λ‖a‖² is Ba's (1/n)‖y − Φa‖² + (λ_Ba/N)‖a‖²
    (ψ1 = α, ψ2 = β)."""
    return check_nonnegative("lam", lam) * check_positive("beta", beta) / check_positive("alpha", alpha)


def cui_ridge_from_ba(lam: float, psi1: float, psi2: float) -> float:
    r"""λ_Cui = λ_Ba · ψ1/ψ2 (inverse of :func:`ba_ridge_from_cui`)."""
    return check_nonnegative("lam", lam) * check_positive("psi1", psi1) / check_positive("psi2", psi2)


def isotropic_spiked_rf(alpha: float, beta: float, lam: float, eta_tilde: float, student, teacher, *,
                        noise: float = 0.0, readout=None, tol: float = 1e-12) -> SpikedRFSolution:
    r"""The α0 → ∞ limit of the one-step network: γ = 1, c = 1, r = η̃ h1 h1* (isotropic spiked RF)."""
    params = cui_to_srf(eta_tilde, math.inf, student, teacher, noise, readout)
    model = channel_model(params, student, teacher, check_nonnegative("noise", noise))
    return solve_spiked_rf(model, alpha, beta, lam, tol=tol)


def linear_floor(teacher) -> float:
    r"""h2* − h0*² − h1*²: the error of the best linear predictor of σ*(θᵀx), a lower bound for every
    random-features (kernel) ridge in the proportional limit (μ2*² for a centred teacher)."""
    c = as_activation(teacher, "teacher").constants()
    return c.second_moment - c.mu0**2 - c.mu1**2
