r"""Finite width p: the spiked-RF theory with the mean directions kept at finite p (deterministic).

Mathematics: docs/spiked-rf-finite-width.md ("The finite-p theory"); notation of docs/spiked-rf.md
(K readout types, proportions πₖ, cGET coefficients μ0ₖ, μ1ₖ, μ2ₖ, block order parameters V1_kl,
V2_k, Q1_kl, Q2_k, means mₖ = 1ᵀPₖa/√p, tₖ, ψₖ, channel weight ŵ(κ) = (α/β)/(1 + V(κ)), prior
operator A = λ + Σ V̂1_kl PₖΩPₗ + Σ V̂2ₖPₖ).

At p = ∞ the mean directions Pₖ1 are spikes of norm² πₖp → ∞ of the feature covariance: they are
free ("zero cost") and the means solve E[μ0ₖ(h − ω̄)/(1 + V)] = 0. At finite p they are ordinary
sources of the ridge problem:

1. **Response of a mean direction** (:func:`mean_direction_response`). The conjugate
   m̂ₖ = E[ŵ μ0ₖ (h − ω̄)] acts through the source √p m̂ₖ Pₖ1, whose response is the deterministic
   equivalent 1ᵀPₖA⁻¹Pₗ1 = δₖₗ p V2_k (rows invariant under blockwise rotations make E A⁻¹ =
   Σₖ (V2_k/πₖ)Pₖ, and the quadratic form of Pₖ1, of norm² πₖp, concentrates):

       mₖ = Mₖ m̂ₖ,   Mₖ = p V2_k.

2. **The means** (:func:`finite_width_mean_system`). With f = (μ0ₖ, κμ1ₖ), the mean equations and
   tₖ = Tₖ t̂ₖ (Tₖ = βcₖV2_k) are one 2K × 2K linear system

       [G + diag(1/((α/β) p V2), 1/((α/β) T))] (m, t) = b,   G_ab = E[f_a f_b/(1 + V)],
       b_a = E[f_a h/(1 + V)]

   (p = ∞: the first K penalties vanish and the zero-cost system of docs/spiked-rf.md returns).

3. **The second-order source** (:func:`mean_direction_source`). The rank-one source p m̂ₖ² Pₖ11ᵀPₖ
   acts on the variances like the diagonal source p m̂ₖ² Pₖ (its quadratic forms concentrate on the
   traces), i.e. it adds to q̂2ₖ in the second-order prior map L:

       (Q1, Q2) = L(vec(Q̂1 + βψ̂ψ̂ᵀ), q̂2 + βc∘t̂² + p m̂∘m̂),   p m̂ₖ² = mₖ²/(p V2_k²).

The responses (V1, V2) and the conjugates V̂1, V̂2, ψ̂ do not depend on p (the mean directions are
deterministic given κ: sources, not covariances), so the finite-p theory reuses the p = ∞ solution
of :func:`~.fixed_point.solve_spiked_rf` and costs two small linear solves per width. As p → ∞,
1/(pV2) → 0 and p m̂² → 0: the p = ∞ theory is the limit.

>>> from asymptotics.theory.spiked_rf.finite_width import spiked_rf_finite_width
>>> s = spiked_rf_finite_width(3.0, 1.0, 0.01, 1.0, 1.5, 1.0, "tanh", "x + (x**3-3*x)/sqrt(6)",
...                            width=300, readout=(0.5, 1.0, 1.5))
>>> round(s.test_error, 4), round(s.test_error_infinite, 4), s.status.label
(0.7955, 0.1838, 'converged')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...params import check_nonnegative
from ...solvers import Status
from .channel import (
    ChannelModel,
    channel_model,
    conditional_error,
    generalisation_error,
    mean_direction_system,
    mean_prediction,
    overlap_conjugates,
    response_function,
    spike_conjugate,
    training_error,
    variance_system,
)
from .fixed_point import SpikedRFSolution, solve_spiked_rf
from .mapping import srf_parameters
from .priors import BlockMarchenkoPastur, MarchenkoPastur, choose_prior
from .solution import MIN_STABILITY_MARGIN

__all__ = [
    "FiniteWidthSolution",
    "mean_direction_response",
    "mean_direction_conjugate",
    "finite_width_mean_system",
    "mean_direction_source",
    "solve_finite_width",
    "spiked_rf_finite_width",
]

#: largest accepted residual of the finite-p equations at the solution (they are solved directly)
MAX_RESIDUAL = 1e-9


@dataclass(frozen=True)
class FiniteWidthSolution:
    r"""The finite-p sRF theory at one (α, β, λ, p), beside its p = ∞ limit.

    Attributes:
        test_error, train_error: ε_g and the training loss at width p (label noise as at p = ∞).
        test_error_infinite, train_error_infinite: the same at p = ∞ (:func:`~.fixed_point.solve_spiked_rf`).
        width: p, the number of neurons (p = βd).
        alpha, beta, lam: α = n/d, β = p/d, the ridge λ.
        m, t, psi: means mₖ = 1ᵀPₖa/√p, spike overlaps tₖ, orthogonal overlaps ψₖ (arrays over types).
        mhat, that: their conjugates m̂ₖ = E[ŵμ0ₖ(h − ω̄)], t̂ₖ.
        mean_response: Mₖ = pV2_k.
        V1, V2, Q1, Q2: responses (p-independent) and variances at width p.
        status: :class:`~asymptotics.solvers.Status` (``CONVERGED`` or the failure of the p = ∞ solve).
        iterations: iterations of the p = ∞ response solve (the finite-p part is direct).
        residual: largest violation of every finite-p equation at the solution (and of the p = ∞ solve).
        stability_margin: 1 − spectral radius of the variance map at width p.
        infinite: the p = ∞ :class:`~.fixed_point.SpikedRFSolution` the responses come from.
    """

    test_error: float
    train_error: float
    test_error_infinite: float
    train_error_infinite: float
    width: float
    alpha: float
    beta: float
    lam: float
    m: np.ndarray
    t: np.ndarray
    psi: np.ndarray
    mhat: np.ndarray
    that: np.ndarray
    mean_response: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    Q1: np.ndarray
    Q2: np.ndarray
    status: Status
    iterations: int
    residual: float
    stability_margin: float
    infinite: SpikedRFSolution

    @property
    def converged(self) -> bool:
        return self.status == Status.CONVERGED

    def as_dict(self) -> dict:
        """A flat row: width, errors at p and at p = ∞, (c, r, γ, types), means, status."""
        K = int(np.size(self.V2))
        vec = (lambda a: float(np.ravel(a)[0])) if K == 1 else (lambda a: np.asarray(a).tolist())
        row = {"alpha": self.alpha, "beta": self.beta, "lam": self.lam, "width": self.width,
               "test_error": self.test_error, "train_error": self.train_error,
               "test_error_infinite": self.test_error_infinite, "train_error_infinite": self.train_error_infinite,
               **self.infinite.params.as_dict()}
        row.update(m=vec(self.m), t=vec(self.t), psi=vec(self.psi), mhat=vec(self.mhat),
                   mean_response=vec(self.mean_response))
        row.update(status=self.status.label, iterations=self.iterations, residual=self.residual,
                   stability_margin=self.stability_margin)
        return row


# ---- the equations (one function each) ------------------------------------------------------------

def mean_direction_response(V2, width: float) -> np.ndarray:
    r"""Mₖ = p V2_k: the deterministic equivalent of 1ᵀPₖA⁻¹Pₗ1 = δₖₗ Mₖ (V2_k = (1/p) tr PₖA⁻¹)."""
    return float(width) * np.asarray(V2, dtype=float).reshape(-1)


def mean_direction_conjugate(rule, mu0, what, h, omega_bar) -> np.ndarray:
    r"""m̂ₖ = E[ŵ μ0ₖ (h − ω̄)] (ŵ includes α/β; 0 at p = ∞ by the zero-cost condition)."""
    return (mu0 * (rule.weights * what * (h - omega_bar))).sum(1)


def finite_width_mean_system(model: ChannelModel, V, ratio: float, spike_response, mean_response):
    r"""(A, b) of [G + diag(1/((α/β)M), 1/((α/β)T))] (m, t) = b; ``ratio`` = α/β, M = pV2, T = βcV2."""
    A, b = mean_direction_system(model.rule, model.mu0, model.mu1, V, model.h, ratio * np.asarray(spike_response))
    K = model.K
    A = A.copy()
    A[np.arange(K), np.arange(K)] += 1.0 / (ratio * np.asarray(mean_response, dtype=float))
    return A, b


def mean_direction_source(mhat, width: float) -> np.ndarray:
    r"""p m̂ₖ²: the mean directions' source of the variances (added to q̂2ₖ in the prior map)."""
    return float(width) * np.asarray(mhat, dtype=float) ** 2


def _variance_columns(L, K):
    """The columns of the variance map L acting on the diagonal sources g (q̂2, βc t̂², p m̂²)."""
    return L[:, -K:]


# ---- the solve -------------------------------------------------------------------------------------

def _check_width(width) -> float:
    try:
        p = float(width)
    except (TypeError, ValueError):
        raise ParameterError("width", width, "a number of neurons p ≥ 1") from None
    if not (math.isfinite(p) and p >= 1.0):
        raise ParameterError("width", width, "a number of neurons p ≥ 1 (finite; p = ∞ is solve_spiked_rf)")
    return p


def solve_finite_width(model: ChannelModel, alpha: float, beta: float, lam: float, width: float, *,
                       infinite: SpikedRFSolution | None = None, prior=None, tol: float = 1e-12) -> FiniteWidthSolution:
    r"""The finite-p theory at width p for a tabulated :class:`~.channel.ChannelModel`.

    ``infinite``: the p = ∞ solution at the same (model, α, β, λ) (reused for several widths);
    computed with :func:`~.fixed_point.solve_spiked_rf` when not given. ``prior``: ``None``,
    ``"mp"`` or ``"block-mp"`` (a sampled spectrum does not determine the mean-direction response).
    Raises :class:`~asymptotics.errors.ConvergenceError` when the p = ∞ responses or the finite-p
    variances have no stable solution.
    """
    p = _check_width(width)
    chosen = choose_prior(model, prior)
    if not isinstance(chosen, (MarchenkoPastur, BlockMarchenkoPastur)):
        raise ParameterError("prior", chosen.name, "'mp' or 'block-mp' with a finite width (Mₖ = pV2ₖ needs "
                             "the rotation-invariant bulk)")
    sol = infinite if infinite is not None else solve_spiked_rf(model, alpha, beta, lam, prior=chosen, tol=tol)
    if not sol.converged:
        raise ConvergenceError(f"finite width: the p = ∞ responses did not converge ({sol.message})", sol)
    alpha, beta, lam = sol.alpha, sol.beta, sol.lam
    K, rule, ratio = model.K, model.rule, alpha / beta
    V = response_function(model.mu1, model.mu2_sq, sol.V1, sol.V2)
    what = ratio / (1.0 + V)
    pt = chosen.at(model, lam, beta, sol.V1hat, sol.V2hat, sol.V2)
    T = pt.spike_response
    M = mean_direction_response(sol.V2, p)
    A, b = finite_width_mean_system(model, V, ratio, T, M)
    theta = np.zeros(2 * K)
    keep = np.flatnonzero(np.isfinite(np.diag(A)))     # an infinite penalty (T = 0) removes t_k
    theta[keep] = np.linalg.solve(A[np.ix_(keep, keep)], b[keep])
    m, t = theta[:K], theta[K:]
    omega = mean_prediction(model.mu0, model.mu1, rule.nodes, m, t)
    th = ratio * spike_conjugate(rule, model.mu1, what / ratio, model.h, omega)
    mh = mean_direction_conjugate(rule, model.mu0, what, model.h, omega)
    psih = sol.psihat
    psi = pt.orthogonal_overlap(psih)
    L = pt.variance_map
    f = pt.variance_source(th, psih) + _variance_columns(L, K) @ mean_direction_source(mh, p)
    E0_test = conditional_error(model.h, model.h1t, model.h2t, omega, psi @ model.mu1, 0.0, 0.0)
    E0_train = E0_test + model.noise_var
    y, rad, _, _ = variance_system(model, what, V, E0_train, L, f)
    if not rad < 1.0 - MIN_STABILITY_MARGIN:
        raise ConvergenceError(f"finite width p = {p:g}: the variance equations have no stable solution "
                               f"(spectral radius {rad:.12g})", sol)
    Q1 = y[: K * K].reshape(K, K)
    Q1 = 0.5 * (Q1 + Q1.T)
    Q2 = y[K * K:]
    q = response_function(model.mu1, model.mu2_sq, Q1, Q2)
    eg = generalisation_error(rule, E0_test + q)
    et = training_error(rule, E0_train + q, V)
    # every finite-p equation evaluated once at the solution, relative to its scale
    Q1h, q2h = overlap_conjugates(rule, model.mu1, model.mu2_sq, what, V, E0_train + q)
    y_chk = pt.second_order(Q1h, q2h, th, psih) + _variance_columns(L, K) @ mean_direction_source(mh, p)
    resid = [float(np.max(np.abs(y_chk - y))) / max(1.0, float(np.max(np.abs(y)))),
             # m̂ = m/M, scaled by the size of the terms of E[ŵμ0(h − ω̄)] (M amplifies their rounding)
             float(np.max(np.abs(m / M - mh))) / max(1.0, float(np.max(
                 np.abs(model.mu0) @ (rule.weights * what * (np.abs(model.h) + np.abs(omega)))))),
             float(np.max(np.abs(t - T * th))) / max(1.0, float(np.max(np.abs(t)))),
             float(sol.residual)]
    residual = max(resid)
    if not (math.isfinite(eg) and math.isfinite(et)) or residual > MAX_RESIDUAL:
        raise ConvergenceError(f"finite width p = {p:g}: residual {residual:.3g} of the finite-p equations "
                               f"(test error {eg!r})", sol)
    if np.any(np.diag(Q1) < -1e-12) or np.any(Q2 < -1e-12) or eg < -1e-12:
        raise ConvergenceError(f"finite width p = {p:g}: negative variance at the solution", sol)
    return FiniteWidthSolution(
        test_error=eg, train_error=et, test_error_infinite=sol.test_error, train_error_infinite=sol.train_error,
        width=p, alpha=alpha, beta=beta, lam=lam, m=m, t=t, psi=psi, mhat=mh, that=th, mean_response=M,
        V1=sol.V1, V2=sol.V2, Q1=Q1, Q2=Q2, status=Status.CONVERGED, iterations=sol.iterations,
        residual=residual, stability_margin=1.0 - rad, infinite=sol)


def spiked_rf_finite_width(alpha: float, beta: float, lam: float, c, r: float, gamma: float, student, teacher, *,
                           width, noise: float = 0.0, readout=None, prior=None, tol: float = 1e-12,
                           quad_tol: float = 1e-12) -> FiniteWidthSolution | list[FiniteWidthSolution]:
    r"""Test and training error of the sRF ridge readout at finite width p (and at p = ∞ beside it).

    Same parameters as :func:`~.fixed_point.spiked_rf` plus ``width`` = p, the number of neurons
    (p = βd; one number, or a list for several widths sharing one p = ∞ solve, returned in order).
    """
    params = srf_parameters(c, r, gamma, readout)
    model = channel_model(params, student, teacher, check_nonnegative("noise", noise), tol=quad_tol)
    widths = [_check_width(w) for w in np.atleast_1d(width).tolist()]
    sol = solve_spiked_rf(model, alpha, beta, lam, prior=prior, tol=tol)
    out = [solve_finite_width(model, alpha, beta, lam, w, infinite=sol, prior=prior, tol=tol) for w in widths]
    return out if np.ndim(width) else out[0]
