r"""The spike of the trained conjugate kernel (CK) at η = Θ(1) (docs/one-step.md §2; derived —
the paper calls it a hypothesis).

Gaussian-equivalent features μ1 W₁ᵀx + μ2 z have population covariance
Σ₁ = μ1² W₁ᵀW₁ + μ2² I_N: a bulk H = law of μ1² t + μ2², t ~ MP(ψ2) (the law of W₀ᵀW₀, unchanged
by the rank-one step), and — above the BBP threshold θ⁴ > ψ2 — one population spike

    ℓ = μ1² s₁(W₁)² + μ2².

The sample covariance S = σ(X̃W₁)ᵀσ(X̃W₁)/n (N×N, aspect ratio c = N/n = ψ2/ψ1) then follows
the spiked-covariance outlier map (Baik–Silverstein):

    x(ℓ) = ℓ (1 + c ∫ t/(ℓ − t) dH(t)) = ℓ(1 − c) − c ℓ² m_H(ℓ),   m_H(ℓ) = ∫ dH(t)/(t − ℓ),

an outlier at x(ℓ) when x'(ℓ) > 0 (the spike is beyond the critical ℓ_c where x'(ℓ_c) = 0), and
the top of the bulk of S at x(ℓ_c) (the same map: the upper edge of the sample spectrum is the
minimum of x over ℓ > sup supp H). Here m_H(ℓ) = m((ℓ − μ2²)/μ1²)/μ1² with m the MP(ψ2)
transform. With s₁² = (ψ2 + θ²)(1 + θ²)/θ² this gives the closed form of docs/one-step.md §2,

    x_out = (μ1² s₁² + μ2²)(1 + (ψ2/ψ1)(1/θ² + (μ2²/μ1²)/(ψ2 + θ²))),

which the tests use as an independent check. The n×n Gram matrix ΦΦᵀ = σσᵀ/N has the same
nonzero spectrum scaled by n/N: its outlier is at (ψ1/ψ2)·x_out. At W₀ there is no outlier (odd σ).

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> round(ck_outlier(m, psi1=3.0, psi2=1.0, eta=6.0).top_eigenvalue, 3)     # simulation d=1600: 3.30
3.421
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError
from ...numerics.marchenko_pastur import mp_edges, mp_stieltjes, mp_stieltjes_derivative
from ...solvers import SolverResult
from ._checks import AsDict, as_output, broadcast_params
from .model import OneStepModel
from .spike import top_singular_value_sq
from .spike_parameters import check_risk_spike, spike_parameters

__all__ = ["population_spike", "outlier_map", "outlier_map_derivative", "ck_bulk_edge", "CKSpectrum", "ck_outlier"]


def population_spike(model: OneStepModel, psi1, psi2, eta):
    r"""ℓ = μ1² s₁(W₁)² + μ2²: the top eigenvalue of the population covariance Σ₁ (the top of its
    bulk, μ1²(1 + √ψ2)² + μ2², below the BBP threshold)."""
    return model.mu1**2 * np.asarray(top_singular_value_sq(model, psi1, psi2, eta)) + model.mu2_sq


def _mH(ell, model, psi2):
    w = (ell - model.mu2_sq) / model.mu1**2
    return mp_stieltjes(w, psi2) / model.mu1**2, mp_stieltjes_derivative(w, psi2) / model.mu1**4


def outlier_map(ell, model: OneStepModel, psi1, psi2):
    r"""x(ℓ) = ℓ(1 − c) − c ℓ² m_H(ℓ), c = ψ2/ψ1: where a population eigenvalue ℓ above the bulk
    of Σ₁ = μ1²W₀ᵀW₀ + μ2² appears in the sample covariance (when x'(ℓ) > 0)."""
    c = np.asarray(psi2) / np.asarray(psi1)
    mH, _ = _mH(np.asarray(ell, dtype=float), model, psi2)
    return ell * (1 - c) - c * ell**2 * mH


def outlier_map_derivative(ell, model: OneStepModel, psi1, psi2):
    r"""x'(ℓ) = 1 − c − 2cℓ m_H(ℓ) − cℓ² m_H'(ℓ)."""
    c = np.asarray(psi2) / np.asarray(psi1)
    mH, dmH = _mH(np.asarray(ell, dtype=float), model, psi2)
    return 1 - c - 2 * c * ell * mH - c * ell**2 * dmH


def _critical_spike(model, psi1, psi2) -> tuple[float, SolverResult]:
    """ℓ_c > sup supp H with x'(ℓ_c) = 0 (bracketed: x' → −∞ at the edge, → 1 at infinity)."""
    from scipy.optimize import brentq

    top = model.mu1**2 * mp_edges(psi2)[1] + model.mu2_sq
    lo = top * (1 + 1e-12) + 1e-300

    def f(ell):
        return float(outlier_map_derivative(ell, model, psi1, psi2))

    hi = 2 * top + 1.0
    while f(hi) <= 0:
        hi *= 2
        if hi > 1e12 * (top + 1):  # pragma: no cover - x' → 1 at infinity
            raise ConvergenceError("no critical spike found for the CK bulk edge")
    if f(lo) >= 0:  # pragma: no cover - x' → −∞ at a square-root edge
        raise ConvergenceError("the CK outlier map is not decreasing at the bulk edge")
    ell, r = brentq(f, lo, hi, xtol=1e-15 * hi, rtol=4 * np.finfo(float).eps, full_output=True, disp=False)
    res = SolverResult(value=ell, converged=bool(r.converged), iterations=int(r.iterations),
                       residual=abs(f(ell)), method="brentq", message=r.flag)
    if not r.converged:
        raise ConvergenceError(f"critical spike of the CK outlier map: {r.flag}", res)
    return ell, res


def ck_bulk_edge(model: OneStepModel, psi1, psi2):
    r"""Top of the bulk of S = σ(X̃W)ᵀσ(X̃W)/n: x(ℓ_c) with x'(ℓ_c) = 0 (the same for W₀ and W₁)."""
    p1, p2 = broadcast_params(psi1=np.asarray(psi1, float), psi2=np.asarray(psi2, float))
    out = np.empty(p1.shape)
    for idx in np.ndindex(p1.shape):
        ell_c, _ = _critical_spike(model, float(p1[idx]), float(p2[idx]))
        out[idx] = outlier_map(ell_c, model, p1[idx], p2[idx])
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class CKSpectrum(AsDict):
    """Top of the spectrum of the trained CK S = σ(X̃W₁)ᵀσ(X̃W₁)/n (N×N).

    Attributes:
        population_spike: ℓ = μ1² s₁(W₁)² + μ2² (top population eigenvalue).
        separated: whether S has an outlier (θ⁴ > ψ2 and x'(ℓ) > 0).
        outlier: x(ℓ) when separated, else the bulk edge (the limit of the top eigenvalue either way).
        bulk_edge: top of the bulk of S, x(ℓ_c).
        top_eigenvalue: the limit of λ_max(S): ``outlier`` if separated else ``bulk_edge``.
        gram_top_eigenvalue: the same for the n×n Gram matrix ΦΦᵀ = σσᵀ/N: (ψ1/ψ2)·top_eigenvalue.
    """

    population_spike: object
    separated: object
    outlier: object
    bulk_edge: object
    top_eigenvalue: object
    gram_top_eigenvalue: object


def ck_outlier(model: OneStepModel, psi1, psi2, eta) -> CKSpectrum:
    """The trained-CK spike (see the module docstring); broadcast over ``psi1, psi2, eta``."""
    p = spike_parameters(model, psi1, psi2, eta)
    check_risk_spike(p.theta_sq, p.eta)
    psi1, psi2 = p.psi1, p.psi2
    scalar = psi1.ndim == 0

    def o(a):
        return as_output(a, scalar)

    if model.mu1 == 0:
        # degenerate: Σ₁ = μ2² I (no spike, no bulk structure); S is μ2²·MP(c), top edge μ2²(1 + √c)²
        model.warn_if_degenerate()
        edge = model.mu2_sq * mp_edges(psi2 / psi1)[1]
        return CKSpectrum(population_spike=o(np.full(psi1.shape, model.mu2_sq)), separated=o(np.zeros(psi1.shape, bool)),
                          outlier=o(edge), bulk_edge=o(edge), top_eigenvalue=o(edge), gram_top_eigenvalue=o(psi1 / psi2 * edge))
    ell = np.asarray(population_spike(model, psi1, psi2, p.eta), dtype=float)
    has_pop_spike = p.separated
    edge = np.empty(psi1.shape)
    x = np.empty(psi1.shape)
    sep = np.zeros(psi1.shape, dtype=bool)
    for idx in np.ndindex(psi1.shape):
        p1, p2 = float(psi1[idx]), float(psi2[idx])
        ell_c, _ = _critical_spike(model, p1, p2)
        edge[idx] = outlier_map(ell_c, model, p1, p2)
        if has_pop_spike[idx] and ell[idx] > ell_c:
            sep[idx] = True
            x[idx] = outlier_map(float(ell[idx]), model, p1, p2)
        else:
            x[idx] = edge[idx]
    gram = psi1 / psi2 * x
    return CKSpectrum(population_spike=o(ell), separated=o(sep), outlier=o(x), bulk_edge=o(edge),
                      top_eigenvalue=o(x), gram_top_eigenvalue=o(gram))
