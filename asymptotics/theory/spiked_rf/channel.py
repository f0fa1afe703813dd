r"""The output channel of the ridge readout: κ-functions, conjugate order parameters, errors.

Notation (docs/spiked-rf.md, "How it is computed"; K readout types, index k, l; E_κ over κ ~ N(0, 1) with a
fixed :class:`~asymptotics.theory.spiked_rf.cget.KappaRule`):

    V(κ) = Σ_kl μ1k μ1l V1_kl + Σ_k μ2k² V2_k,           (response)
    q(κ) = Σ_kl μ1k μ1l Q1_kl + Σ_k μ2k² Q2_k,           (variance of the prediction)
    ω̄(κ) = Σ_k (m_k μ0k + t_k κ μ1k),                   (mean prediction given κ)
    E(κ) = h̃2 + σ_ε² − 2 ω̄ h + ω̄² − 2 (Σ_k ψ_k μ1k) h̃1 + q   (= E[(y − ŷ)² | κ]).

Conjugates, with ŵ(κ) = (α/β)/(1 + V(κ)):

    V̂1_kl = E[ŵ μ1k μ1l],   V̂2_k = E[ŵ μ2k²],   Q̂1_kl = E[ŵ μ1k μ1l E/(1 + V)],
    q̂2_k = E[ŵ μ2k² E/(1 + V)],   t̂_k = E[ŵ κ μ1k (h − ω̄)],   ψ̂_k = E[ŵ μ1k h̃1].

Test error ε_g = E_κ[E(κ)] with σ_ε = 0 (the prediction risk, noise excluded); training error
E_κ[E(κ)/(1 + V(κ))²] with the noise included. The uniform readout is K = 1.

Everything here is a plain array function of κ-arrays, reusable by the continuous-type theory
(docs/large-step-exact.md), where the "types" are quadrature nodes in u.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import DegenerateWarning, ParameterError
from .cget import KappaRule, cget_coefficients, kappa_rule, target_functions
from .mapping import SpikedRFParameters, as_activation

__all__ = [
    "ChannelModel",
    "variance_system",
    "channel_model",
    "response_function",
    "prediction_variance",
    "mean_prediction",
    "conditional_error",
    "response_conjugates",
    "overlap_conjugates",
    "spike_conjugate",
    "orthogonal_conjugate",
    "mean_direction_system",
    "solve_mean_directions",
    "generalisation_error",
    "training_error",
]


@dataclass(frozen=True)
class ChannelModel:
    r"""Everything the channel needs, tabulated on the κ rule (computed once per (r, c, γ)).

    Attributes:
        rule: the κ quadrature rule.
        mu0, mu1, mu2_sq: (K, n) cGET coefficients of each type on the nodes.
        h, h1t, h2t: (n,) target functions.
        noise_var: σ_ε² (enters the training side only).
        quadrature_error: estimated absolute error of the κ and inner rules on the channel integrals.
        params: the sRF parameters.
    """

    rule: KappaRule
    mu0: np.ndarray
    mu1: np.ndarray
    mu2_sq: np.ndarray
    h: np.ndarray
    h1t: np.ndarray
    h2t: np.ndarray
    noise_var: float
    quadrature_error: float
    params: SpikedRFParameters

    @property
    def kappa(self) -> np.ndarray:
        return self.rule.nodes

    @property
    def weights(self) -> np.ndarray:
        return self.rule.weights

    @property
    def K(self) -> int:
        return self.mu0.shape[0]

    @property
    def has_mean_direction(self) -> bool:
        """Whether some μ0k is not identically 0 (odd σ at r = 0 has none)."""
        return bool(self.rule.expect(self.mu0**2).max() > 1e-28)


def _check_integrals(rule, mu0, mu1, mu2, h, h1t, h2t):
    """Gram matrix E[F_a F_b] of the channel's basis functions (the integrals the fixed point uses)."""
    k = rule.nodes
    F = np.vstack([mu0, k * mu1, mu1, mu2, h, h1t, h2t, np.ones_like(k)])
    return (F * rule.weights) @ F.T


def _tabulate(params, student, teacher, rule, tol, inner=None):
    """cGET coefficients and target functions on ``rule``; ``inner`` = (student's, teacher's)
    inner rules found on an earlier κ rule (the same types: the degree search is not repeated)."""
    co = cget_coefficients(student, params.spikes, params.bulk, rule.nodes, tol=tol,
                           inner=None if inner is None else inner[0])
    tf = target_functions(teacher, params.gamma, rule.nodes, tol=tol, inner=None if inner is None else inner[1])
    return co, tf


def channel_model(params: SpikedRFParameters, student, teacher, noise: float = 0.0, *, rule: KappaRule | None = None,
                  tol: float = 1e-12) -> ChannelModel:
    r"""Tabulate the cGET coefficients and target functions on a κ rule, with an error check.

    Without ``rule``: composite Gauss–Legendre (unit panels on [−12, 12], split at the teacher's
    kinks κ = k/γ) with 8, 16, 32 nodes per panel until the channel integrals (the Gram matrix
    of μ0, κμ1, μ1, μ2², h, h̃1, h̃2) agree with the next degree to ``tol``. The coarser rule of
    the agreeing pair is kept and the difference (relative to the largest integral when that
    exceeds 1, plus the inner-rule errors) is the reported error. A warning is raised if nothing agrees. (Gauss–Hermite in κ converges only like
    exp(−a√n) with a ≈ π/(2r) for tanh-like students, so it is used only when passed as ``rule``.)
    """
    s_act = as_activation(student, "student")
    t_act = as_activation(teacher, "teacher")
    noise_var = float(noise) ** 2
    if rule is not None:
        co, tf = _tabulate(params, s_act, t_act, rule, tol * 0.1)
        fine = rule.refined()
        co2, tf2 = _tabulate(params, s_act, t_act, fine, tol * 0.1)
        g1 = _check_integrals(rule, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t)
        g2 = _check_integrals(fine, co2.mu0, co2.mu1, co2.mu2_sq, tf2.h, tf2.h1t, tf2.h2t)
        err = float(np.max(np.abs(g1 - g2))) / max(1.0, float(np.max(np.abs(g2)))) + co.error + tf.error
        return ChannelModel(rule, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t, noise_var, err, params)
    r, co, tf, err = _adaptive_tables(params, s_act, t_act, float(tol))
    if err > tol:
        warnings.warn(
            f"κ quadrature: estimated error {err:.2e} above tolerance {tol:.1e} with the finest rule tried",
            DegenerateWarning, stacklevel=2)
    return ChannelModel(r, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t, noise_var, err, params)


@lru_cache(maxsize=512)
def _adaptive_tables(params: SpikedRFParameters, s_act, t_act, tol: float):
    """The adaptive κ rule of :func:`channel_model` and its tables, cached by (σ, σ*, c, r, γ,
    readout types, tol) — the tables do not depend on α, β, λ or the noise (arrays read-only)."""
    kinks = ()
    if t_act.kinks and params.gamma != 0.0:
        kinks = tuple(k / params.gamma for k in t_act.kinks)
    candidates = [("composite", d) for d in (8, 16, 32, 64)]
    prev = None
    best = None
    inner = None
    for kind, deg in candidates:
        r = kappa_rule(kind, deg, kinks if kind == "composite" else ())
        co, tf = _tabulate(params, s_act, t_act, r, tol * 0.1, inner)
        inner = (co.inner, tf.inner)
        g = _check_integrals(r, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t)
        cur = (r, co, tf, g)
        if prev is not None and prev[0].kind == kind:
            err = float(np.max(np.abs(prev[3] - g))) / max(1.0, float(np.max(np.abs(g)))) + prev[1].error + prev[2].error
            if best is None or err < best[1]:
                best = (prev, err)
            if err <= tol:
                break
        prev = cur
    (r, co, tf, _), err = best
    for a in (co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t):
        a.setflags(write=False)
    return r, co, tf, err


# ---- κ-functions ------------------------------------------------------------------------------

def response_function(mu1, mu2_sq, V1, V2) -> np.ndarray:
    r"""V(κ) = Σ_kl μ1k μ1l V1_kl + Σ_k μ2k² V2_k (μ's of shape (K, n); V1 (K, K); V2 (K,))."""
    V1 = np.atleast_2d(V1)
    return np.einsum("kn,kl,ln->n", mu1, V1, mu1) + np.asarray(V2, dtype=float).reshape(-1) @ mu2_sq


def prediction_variance(mu1, mu2_sq, Q1, Q2) -> np.ndarray:
    r"""q(κ) = Σ_kl μ1k μ1l Q1_kl + Σ_k μ2k² Q2_k (same form as the response)."""
    return response_function(mu1, mu2_sq, Q1, Q2)


def mean_prediction(mu0, mu1, kappa, m, t) -> np.ndarray:
    r"""ω̄(κ) = Σ_k (m_k μ0k(κ) + t_k κ μ1k(κ))."""
    m = np.asarray(m, dtype=float).reshape(-1)
    t = np.asarray(t, dtype=float).reshape(-1)
    return m @ mu0 + kappa * (t @ mu1)


def conditional_error(h, h1t, h2t, omega_bar, psi_mu1, q, noise_var: float = 0.0) -> np.ndarray:
    r"""E(κ) = h̃2 + σ_ε² − 2 ω̄ h + ω̄² − 2 (Σ_k ψ_k μ1k) h̃1 + q."""
    return h2t + noise_var - 2.0 * omega_bar * h + omega_bar**2 - 2.0 * psi_mu1 * h1t + q


def response_conjugates(rule: KappaRule, mu1, mu2_sq, what) -> tuple[np.ndarray, np.ndarray]:
    r"""(V̂1, V̂2) = (E[ŵ μ1k μ1l], E[ŵ μ2k²]) for the channel weight ŵ."""
    ww = rule.weights * what
    return (mu1 * ww) @ mu1.T, mu2_sq @ ww


def overlap_conjugates(rule: KappaRule, mu1, mu2_sq, what, V, E) -> tuple[np.ndarray, np.ndarray]:
    r"""(Q̂1, q̂2) = (E[ŵ μ1k μ1l E/(1+V)], E[ŵ μ2k² E/(1+V)])."""
    ww = rule.weights * what * E / (1.0 + V)
    return (mu1 * ww) @ mu1.T, mu2_sq @ ww


def spike_conjugate(rule: KappaRule, mu1, what, h, omega_bar) -> np.ndarray:
    r"""t̂_k = E[ŵ κ μ1k (h − ω̄)]."""
    return (mu1 * (rule.weights * what * rule.nodes * (h - omega_bar))).sum(1)


def orthogonal_conjugate(rule: KappaRule, mu1, what, h1t) -> np.ndarray:
    r"""ψ̂_k = E[ŵ μ1k h̃1]."""
    return mu1 @ (rule.weights * what * h1t)


def mean_direction_system(rule: KappaRule, mu0, mu1, V, h, spike_response) -> tuple[np.ndarray, np.ndarray]:
    r"""The linear system for the mean coefficients θ = (m_1..m_K, t_1..t_K), given V(κ).

    With basis functions f = (μ0k, κ μ1k) and w = 1/(1 + V): the zero-cost directions solve
    E[μ0k (h − ω̄) w] = 0 (no penalty on the spikes of order p, §4), and the spike overlaps
    t_k = T_k t̂_k with t̂_k = (α/β) E[κ μ1k (h − ω̄) w] and ``spike_response`` T_k (= β c_k V2_k
    for Marchenko–Pastur). Multiplying the second by 1/((α/β) T_k):

        (G + diag(0, 1/((α/β)T))) θ = b,  G_ab = E[f_a f_b w],  b_a = E[f_a h w].

    The ratio α/β must already be folded into ``spike_response`` (pass (α/β)·T). Returns (A, b).
    """
    w = rule.weights / (1.0 + V)
    F = np.vstack([mu0, rule.nodes * mu1])
    G = (F * w) @ F.T
    b = F @ (w * h)
    K = mu0.shape[0]
    T = np.asarray(spike_response, dtype=float).reshape(-1)
    pen = np.zeros(2 * K)
    with np.errstate(divide="ignore"):
        pen[K:] = np.where(T > 0, 1.0 / np.where(T > 0, T, 1.0), np.inf)
    return G + np.diag(pen), b


def solve_mean_directions(rule: KappaRule, mu0, mu1, V, h, spike_response, proportions=None) -> tuple[np.ndarray, np.ndarray]:
    r"""(m, t) from :func:`mean_direction_system`.

    Never divides 0 by 0: a type whose μ0k vanishes identically (odd σ at zero spike) gets m_k = 0,
    and linearly dependent mean functions are resolved by the minimum of Σ m_k²/π_k (the ridge's
    choice: ‖P_k a‖² ≥ m_k²/π_k); a zero spike response gives t_k = 0.
    """
    A, b = mean_direction_system(rule, mu0, mu1, V, h, spike_response)
    K = mu0.shape[0]
    pi = np.ones(K) if proportions is None else np.asarray(proportions, dtype=float)
    # rescale m_k = √π_k m̃_k, t_k unchanged; an infinite penalty removes t_k
    scale = np.concatenate([np.sqrt(pi), np.ones(K)])
    d = np.diag(A)
    keep = np.isfinite(d)
    keep &= np.abs(d * scale**2) > 1e-14 * max(float(np.max(np.abs(d[keep] * scale[keep] ** 2))), 1e-300)
    theta = np.zeros(2 * K)
    if keep.all():
        As = A * scale[:, None] * scale[None, :]
        try:
            x = np.linalg.solve(As, b * scale)
            if np.all(np.isfinite(x)) and np.allclose(As @ x, b * scale, rtol=1e-10, atol=1e-14 * np.abs(b).max()):
                return (x * scale)[:K], (x * scale)[K:]
        except np.linalg.LinAlgError:
            pass
    idx = np.flatnonzero(keep)
    if idx.size:
        As = A[np.ix_(idx, idx)] * scale[idx][:, None] * scale[idx][None, :]
        x, *_ = np.linalg.lstsq(As, b[idx] * scale[idx], rcond=1e-13)
        theta[idx] = x * scale[idx]
    return theta[:K], theta[K:]


def generalisation_error(rule: KappaRule, E_test) -> float:
    r"""ε_g = E_κ[E(κ)] (with σ_ε = 0 in E: the prediction risk)."""
    return float(rule.expect(E_test))


def training_error(rule: KappaRule, E_train, V) -> float:
    r"""E_κ[E(κ)/(1 + V(κ))²] (with the label noise in E)."""
    return float(rule.expect(E_train / (1.0 + V) ** 2))


def variance_system(model: ChannelModel, what, V, E0, L, f):
    """Solve (I − L𝒜) y = L a + f for y = (vec Q1, Q2), 𝒜 = B diag(ŵ/(1 + V)) Bᵀ and a = B (ŵ E0/(1 + V))
    (B = (μ1ₖμ1ₗ, μ2²ₖ) on the κ nodes, weighted); returns (y, spectral radius of L𝒜, 𝒜, a)."""
    K = model.K
    mu1, mu2 = model.mu1, model.mu2_sq
    B = np.vstack([(mu1[:, None, :] * mu1[None, :, :]).reshape(K * K, -1), mu2])
    ww = model.weights * what / (1.0 + V)
    a = B @ (ww * E0)
    A = (B * ww) @ B.T
    LA = L @ A
    # spectral radius of L𝒜, 𝒜 = B diag(ww) Bᵀ: its nonzero eigenvalues are those of
    # diag(ww)^{1/2} Bᵀ L B diag(ww)^{1/2}, of size min(K² + K, number of κ nodes)
    if LA.shape[0] <= B.shape[1]:
        rad = float(np.max(np.abs(np.linalg.eigvals(LA)))) if LA.size else 0.0
    else:
        sw = np.sqrt(ww)
        rad = float(np.max(np.abs(np.linalg.eigvals((B.T @ L @ B) * sw[:, None] * sw[None, :]))))
    y = np.linalg.solve(np.eye(LA.shape[0]) - LA, L @ a + f)
    return y, rad, A, a


def _check_ratio(alpha, beta):
    if not (math.isfinite(alpha) and alpha > 0):
        raise ParameterError("alpha", alpha, "> 0")
    if not (math.isfinite(beta) and beta > 0):
        raise ParameterError("beta", beta, "> 0")
