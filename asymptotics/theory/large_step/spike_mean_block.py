r"""The spike–mean block of the continuous-type spiked RF, solved exactly
(``docs/large-step-exact.md``).

Given κ, the mean feature vector (μ0(κ; uᵢ))ᵢ ∈ ℝᴺ has squared norm N E_u μ0² — a spike of order N in
the feature covariance for every κ. With a mean field ĝ0(u) on it, the readout responds like the
spike overlap t does to t̂, with N in place of β c (the squared norm of the direction):

    ω0(κ) = N E_u[μ0(κ; u) ĝ0(u)/S(u)],        ĝ0(u) = Σ_a b_a x_a μ0(κ_a; u),
    t(κ)  = β E_u[c(u) t̂(u) μ1(κ; u)/S(u)],    t̂(u) = Σ_a b_a κ_a μ1(κ_a; u) x_a,

with x := h − ω̄, ω̄ = ω0 + κ t, B = diag(b) the channel weights, S = D + τ the typed prior. So x
solves one linear system on the κ nodes (no iteration; damped iteration of t diverges):

    x = (I + N 𝒢 B + diag(κ) L)⁻¹ h,   𝒢 = E_u[μ0 μ0ᵀ/S],   L = β M B diag(κ),   M = E_u[c μ1 μ1ᵀ/S],

solved in the symmetric form (I + √B 𝒬 √B) √B x = √B h, 𝒬 = N 𝒢 + β diag(κ) M diag(κ) (SPD).

**N = ∞ (the proportional limit).** The mean directions cost nothing: ω0 ranges over the closure
of span{μ0(·; u)} and x is the remainder of h after the B-weighted projection on that span and the
spike term, i.e. the saddle-point system

    (I + √B β diag(κ) M diag(κ) √B) y + Z m = √B h,   Zᵀ y = 0,   Z = √B μ0ᵀ,   y = √B x,

solved with the projector on the orthogonal complement of range(Z) (an SVD with relative cut
``rcond``: the μ0(·; u_j) of nearby types are nearly dependent). For an odd student the span is
dense in the odd functions of κ, so an odd target gives x = 0, t = 0: the spike part of the error
E_κ x² vanishes and the risk is a pure orthogonal-direction problem. With K discrete types this is
the zero-cost mean system of ``docs/spiked-rf.md`` (K free mean coefficients).

**Finite N.** Keeping N is a leading-order correction with no fitted parameter: fitting h with the
μ0(·; u) needs large cancelling readout combinations, which pay the variance N ĝ0(u)² (a source of
the second-order traces). Cross terms of order N^{-1/2} between this block and the other sources are
neglected (open; see ``docs/large-step-exact.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from .typed_prior import TypedPriorState

__all__ = ["SpikeMeanBlock", "spike_mean_block"]


@dataclass(frozen=True)
class SpikeMeanBlock:
    r"""Solution of the spike–mean block on the κ nodes.

    Attributes:
        x: h − ω̄ (n,), the part of the target's conditional mean not fitted.
        omega0: ω0(κ), the mean-direction part of the prediction (n,).
        t: t(κ), the spike overlap function (n,).
        omega_bar: ω̄ = ω0 + κ t, the conditional mean of the prediction given κ (n,).
        t_hat: t̂(u_j) (K,).
        g0: ĝ0(u_j) (K,) (0 at N = ∞).
        width: N (``math.inf`` for the proportional limit).
        rank: N = ∞: the dimension of the mean span kept by the SVD cut; finite N: K.
        residual: max-norm residual of the block's equations at the solution (relative to the
            size of the terms).
    """

    x: np.ndarray
    omega0: np.ndarray
    t: np.ndarray
    omega_bar: np.ndarray
    t_hat: np.ndarray
    g0: np.ndarray
    width: float
    rank: int
    residual: float


def spike_mean_block(state: TypedPriorState, mu0, kappa, h, width: float = math.inf, *,
                     rcond: float = 1e-13) -> SpikeMeanBlock:
    r"""Solve the spike–mean block exactly at the typed prior ``state``.

    Parameters
    ----------
    state : the typed prior at the current (B, D) (:func:`~.typed_prior.typed_prior_state`).
    mu0 : μ0(κ_a; u_j), shape (K, n).
    kappa, h : the κ nodes and h(κ) = E[y | κ] on them.
    width : N ≥ 1, or ``math.inf`` for the proportional limit.
    rcond : relative singular-value cut for the mean span at N = ∞.
    """
    N = float(width)
    if not (N >= 1.0):
        raise ParameterError("width", width, ">= 1 (the number of neurons N), or inf")
    f = state.features
    mu0 = np.asarray(mu0, dtype=float)
    kappa = np.asarray(kappa, dtype=float)
    h = np.asarray(h, dtype=float)
    b = state.b
    sb = np.sqrt(b)
    n = b.size
    Qt = f.beta * (kappa[:, None] * state.M * kappa[None, :])       # β diag(κ) M diag(κ)
    if math.isinf(N):
        Z = sb[:, None] * mu0.T                                      # n × K
        if Z.size and np.max(np.abs(Z)) > 0:
            U, sv, _ = np.linalg.svd(Z, full_matrices=False)
            keep = sv > rcond * sv[0]
            Q = U[:, keep]
        else:
            Q = np.zeros((n, 0))
        rank = int(Q.shape[1])
        Pp = np.eye(n) - Q @ Q.T
        A = np.eye(n) + Pp @ (sb[:, None] * Qt * sb[None, :]) @ Pp
        y = np.linalg.solve(A, Pp @ (sb * h))
        y = Pp @ y
        bx = sb * y                                                  # B x
        t = f.beta * (state.M @ (kappa * bx))
        # ω0 = μ0ᵀ m with Z m = √B(h − κt) − y (least squares on the kept span)
        rhs = sb * (h - kappa * t) - y
        m, *_ = np.linalg.lstsq(Z, rhs, rcond=rcond) if Z.size else (np.zeros(0),)
        omega0 = mu0.T @ m if Z.size else np.zeros(n)
        x = h - omega0 - kappa * t
        g0 = np.zeros(f.K)
        resid = max(float(np.max(np.abs(Q.T @ y))) if rank else 0.0,
                    float(np.max(np.abs(sb * (x - h + omega0 + kappa * t)))))
    else:
        G = (mu0.T * (f.weights / state.S)) @ mu0                   # 𝒢 = E_u[μ0 μ0ᵀ/S]
        Qm = N * G + Qt
        A = np.eye(n) + sb[:, None] * Qm * sb[None, :]
        y = np.linalg.solve(A, sb * h)
        bx = sb * y
        omega0 = N * (G @ bx)
        t = f.beta * (state.M @ (kappa * bx))
        x = h - omega0 - kappa * t
        g0 = mu0 @ bx
        rank = f.K
        # relative to the size of the terms (N 𝒢 is large: the solve loses digits ∝ N‖𝒢‖)
        scale = max(1.0, float(np.max(np.abs(A))) * float(np.max(np.abs(y))))
        resid = float(np.max(np.abs(sb * x - y))) / scale
    t_hat = f.mu1 @ (kappa * bx)
    return SpikeMeanBlock(x, omega0, t, omega0 + kappa * t, t_hat, g0, N, rank, resid)
