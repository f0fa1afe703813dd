r"""The step's self term: the w⁰-component of one large step, and the sRF fixed point that keeps it.

Mathematics (``docs/spiked-rf-finite-width.md``, "The self term"). One neuron's empirical gradient
(unit w⁰ⱼ, odd σ, residual ≈ y on the batch X0) has, besides the spike along ĝ = X0ᵀy/n0 and the
noise of the bulk, a component along the neuron's own w⁰ⱼ. With σ'(z) z = (E σ' + E σ⁽³⁾) z + O(He3(z))
(odd σ), the part of ⟨w⁰ⱼ, (1/n0) Σ_μ y_μ σ'(⟨w⁰ⱼ, x_μ⟩) x_μ⟩ beyond the spike is
E[σ⁽³⁾] ⟨w⁰ⱼ, ĝ⟩ plus mean-zero noise, so

    w¹ⱼ = w⁰ⱼ (1 + k uⱼ ⟨w⁰ⱼ, v⟩) + spike + noise,   k = η̃ E[σ⁽³⁾(g)] ‖ĝ‖ = r E[σ⁽³⁾] / E[σ'],

with v = ĝ/‖ĝ‖ the spike direction and ‖ĝ‖² = h1*² + E y²/α0. (In the population ĝ → h1* θ: Stein's
lemma's w E[y σ''(⟨w, x⟩)] = w ρ E[σ*'] E[σ⁽³⁾] + O(ρ³), ρ = ⟨w, θ⟩.) The term is O(d^{-1/2}) per neuron
but O(1) after the readout sums it along v. In the conditional Gaussian equivalence the feature's mean
given the spike coordinate κ gains k uⱼ ⟨wⱼ, v⟩ c E σ''(rκ + √c z), which is linear in ⟨wⱼ, v⟩, and the
readout's spike overlap t adds those up. For the **sRF model with a self term**,
F = √c W diag(1 + k Wᵀv) + r v 1ᵀ (unit columns of W, uniform readout), the predictor along the spike is

    ω̄(κ) = m μ0(κ) + t (κ μ1(κ) + e(κ)/√c),   e(κ) = k c E σ''(rκ + √c z) = k √c E[z σ'(rκ + √c z)],

(e(κ) per unit ⟨wⱼ, v⟩; the readout sums Σ aⱼ⟨wⱼ, v⟩/√p = t/√c since t = aᵀW̃v/√p with W̃ = √c W)

and the mean overlaps minimise ½(α/β) E[w (h − ω̄)²] + t²/(2T) (w = 1/(1 + V), t = T t̂):

    (G + diag(0, 1/((α/β)T))) (m, t) = b,   G = E[w f fᵀ],  b = E[w f h],  f = (μ0, κμ1 + e/√c).

ψ = T_H ψ̂ is unchanged, and so are the responses (V1, V2), the prior and the variance map: at leading
order the self term moves the feature's mean, not its covariance. The variances use the new
t̂ = t/T. k = 0 is the sRF fixed point of :mod:`.fixed_point` (tested to rounding).

**Scope.** The theory is exact (d → ∞) for the sRF model with a self term. For the one-step network
the self term rides on W⁰, while the trained bulk is W⁰ plus the step's noise. The map through it
therefore holds where that noise is small: c − 1 = κ_c E y² ≪ 1 (large α0). Its coupling with the
structured (weighted-Wishart) bulk of small α0 is not derived.

>>> s = one_step_self_term(3.0, 20.0, 1.0, 3.0, 0.1, "tanh", "sin")
>>> round(s.test_error, 4), round(s.test_error_without, 4), round(s.self_term, 4)
(0.0315, 0.0325, -0.6808)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...activations import resolve_activation
from ...errors import ConvergenceError, ParameterError
from ...gaussian import composite_rule
from ...params import check_positive
from ...solvers import Status
from . import channel
from .fixed_point import solve_spiked_rf
from .mapping import cui_to_srf
from .priors import choose_prior
from .structured_map import require_odd_student

__all__ = ["SelfTermSolution", "self_term_coefficient", "self_term_mean_function", "solve_self_term_srf",
           "one_step_self_term"]

#: Largest accepted violation of the equations at an assembled solution (as in :mod:`.fixed_point`).
MAX_RESIDUAL = 1e-8


def self_term_coefficient(eta_tilde: float, alpha0: float, student, teacher, noise: float = 0.0) -> float:
    r"""k = η̃ E[σ⁽³⁾(g)] ‖ĝ‖ = r E[σ⁽³⁾]/E[σ'] with r the spike strength of the map
    (:func:`~.mapping.cui_to_srf`: ‖ĝ‖ = √(h1*² + (E y² + σ_ε²)/α0), α0 = ∞ gives h1*) and
    E σ⁽³⁾ = E[σ(g) He3(g)] = √6 c₃ from the activation's Hermite constants: the self term of one large
    step per unit readout, along the spike direction v."""
    s_act = resolve_activation(student, name="student")
    cs = s_act.constants()
    if abs(cs.hermite[1]) < 1e-12:
        raise ParameterError("student", s_act.name, "an activation with E σ' ≠ 0 (the step has no spike)")
    r = cui_to_srf(eta_tilde, alpha0, student, teacher, noise).r
    return r * math.sqrt(6.0) * cs.hermite[3] / cs.hermite[1]


def self_term_mean_function(model: channel.ChannelModel, k: float, student) -> tuple[np.ndarray, float]:
    r"""e(κ) = k √c E[z σ'(rκ + √c z)] on the κ nodes of ``model`` (K = 1), and the difference
    between two inner rules (orders 24 and 12 per half-unit panel) as its error estimate.

    The composite rule (:func:`asymptotics.gaussian.composite_rule`) is split where rκ + √c z
    crosses a kink of σ, row by row (z = (kink − rκ)/√c); without kinks one rule serves every κ.
    (The cGET's own moments, :func:`~.cget.shifted_gaussian_moments`, are those of σ, not of σ'.)"""
    p = model.params
    c, r = float(p.bulk[0]), float(p.r)
    act = resolve_activation(student, name="student")
    sc = math.sqrt(c)
    shifts = r * model.rule.nodes
    kinks = tuple(float(x) for x in act.kinks)

    def rows(order):
        if not kinks:
            z, w = (np.asarray(a, float) for a in composite_rule((), order, 14.0, 0.5))
            return np.asarray(act.numpy_derivative(shifts[:, None] + sc * z[None, :]), float) @ (w * z)
        out = np.empty(shifts.size)
        for i, s in enumerate(shifts):
            z, w = (np.asarray(a, float) for a in composite_rule(tuple((x - s) / sc for x in kinks), order, 14.0, 0.5))
            out[i] = np.asarray(act.numpy_derivative(s + sc * z), float) @ (w * z)
        return out

    lo, hi = rows(12), rows(24)
    return k * sc * hi, abs(k) * sc * float(np.max(np.abs(hi - lo)))


@dataclass(frozen=True)
class SelfTermSolution:
    r"""The sRF fixed point with the step's self term at one (α, β, λ) (uniform readout).

    Attributes:
        test_error, train_error: ε_g (label noise excluded) and the training loss with the self term.
        test_error_without, train_error_without: the same sRF point without it (k = 0).
        self_term: k of :func:`self_term_coefficient` (or as given): w⁰ⱼ(1 + k⟨w⁰ⱼ, v⟩).
        alpha, beta, lam: the point (Cui's conventions).
        m, t, psi: mean direction, spike overlap and orthogonal overlap (as in the sRF solution).
        that, psihat: their conjugates t/T and ψ/T_H (ψ is not changed by the self term).
        q1, q2: the variances.
        bulk_excess: c − 1, the step's noise in the bulk: the map of the network through the self term
            holds where it is small (module docstring).
        status, iterations: the response solve's outcome.
        residual: largest violation of the full system (responses, means, variances) at the solution.
        quadrature_error: the channel's and e(κ)'s estimated quadrature error.
    """

    test_error: float
    train_error: float
    test_error_without: float
    train_error_without: float
    self_term: float
    alpha: float
    beta: float
    lam: float
    m: float
    t: float
    psi: float
    that: float
    psihat: float
    q1: float
    q2: float
    bulk_excess: float
    status: Status
    iterations: int
    residual: float
    quadrature_error: float

    def as_dict(self) -> dict:
        row = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "status"}
        row["status"] = self.status.label
        return row


def solve_self_term_srf(model: channel.ChannelModel, alpha: float, beta: float, lam: float, k: float, student, *,
                        tol: float = 1e-12) -> SelfTermSolution:
    r"""The K = 1 sRF fixed point with the self term k (module docstring): the responses of
    :func:`~.fixed_point.solve_spiked_rf`, then the means (2×2) and the variances (2×2) with e(κ)."""
    if model.K != 1:
        raise ParameterError("readout", model.K, "one readout type (uniform readout) with the self term")
    k = float(k)
    if not math.isfinite(k):
        raise ParameterError("self_term", k, "a finite number")
    base = solve_spiked_rf(model, alpha, beta, lam, tol=tol)
    rule = model.rule
    ratio = alpha / beta
    mu0, mu1 = model.mu0[0], model.mu1[0]
    V1, V2 = base.V1, base.V2
    V = channel.response_function(model.mu1, model.mu2_sq, V1, V2)
    what = ratio / (1.0 + V)
    V1h, V2h = channel.response_conjugates(rule, model.mu1, model.mu2_sq, what)
    pt = choose_prior(model, None).at(model, lam, beta, V1h, V2h, V2)
    T = float(pt.spike_response[0])
    psih = float(channel.orthogonal_conjugate(rule, model.mu1, what, model.h1t)[0])
    psi = float(pt.orthogonal_overlap(np.array([psih]))[0])
    e, e_err = self_term_mean_function(model, k, student)
    # per neuron the mean moves by ⟨wⱼ, v⟩·e(κ); the readout sums Σ aⱼ⟨wⱼ, v⟩/√p = t/√c (t = aᵀW̃v/√p, W̃ = √c W)
    sc = math.sqrt(float(model.params.bulk[0]))
    e, e_err = e / sc, e_err / sc
    w = rule.weights / (1.0 + V)
    F = np.vstack([mu0, rule.nodes * mu1 + e])
    G = (F * w) @ F.T
    b = F @ (w * model.h)
    A = G.copy()
    A[1, 1] += 1.0 / (ratio * T)
    try:
        if G[0, 0] < 1e-28:               # no mean direction (μ0 ≡ 0)
            m, t = 0.0, float(b[1] / A[1, 1])
        else:
            m, t = (float(x) for x in np.linalg.solve(A, b))
    except np.linalg.LinAlgError as exc:
        raise ConvergenceError(f"self term: singular mean system at α = {alpha:g} ({exc})", None) from None
    that = t / T
    omega = m * mu0 + t * F[1]
    E0_test = channel.conditional_error(model.h, model.h1t, model.h2t, omega, psi * mu1, 0.0, 0.0)
    E0_train = E0_test + model.noise_var
    src = pt.variance_source(np.array([that]), np.array([psih]))
    y, rad, _, _ = channel.variance_system(model, what, V, E0_train, pt.variance_map, src)
    if not rad < 1.0 - 1e-8:
        raise ConvergenceError(f"self term: the variance equations have no stable solution (radius {rad:.6g})", None)
    Q1, Q2 = y[:1].reshape(1, 1), y[1:]
    q = channel.response_function(model.mu1, model.mu2_sq, Q1, Q2)
    eg = channel.generalisation_error(rule, E0_test + q)
    et = channel.training_error(rule, E0_train + q, V)
    # every equation once at the solution: the means' stationarity, the published variance equations
    resid = [abs(float(rule.weights @ (mu0 * (model.h - omega) / (1.0 + V)))) if G[0, 0] >= 1e-28 else 0.0,
             abs(t - T * ratio * float(F[1] @ (w * (model.h - omega))))]
    Q1h_c, q2h_c = channel.overlap_conjugates(rule, model.mu1, model.mu2_sq, what, V, E0_train + q)
    y_chk = pt.second_order(Q1h_c, q2h_c, np.array([that]), np.array([psih]))
    resid.append(float(np.max(np.abs(y_chk - y))) / max(1.0, float(np.max(np.abs(y)))))
    residual = max(float(base.residual), max(resid) / max(1.0, abs(t)))
    if not residual <= max(MAX_RESIDUAL, 1e3 * float(base.residual)):
        raise ConvergenceError(f"self term: the full system is violated by {residual:.3g} at the solution", None)
    if not (math.isfinite(eg) and math.isfinite(et)) or eg < -1e-12:
        raise ConvergenceError("self term: non-finite or negative error at the solution", None)
    return SelfTermSolution(
        test_error=eg, train_error=et, test_error_without=base.test_error, train_error_without=base.train_error,
        self_term=k, alpha=float(alpha), beta=float(beta), lam=float(lam), m=m, t=t, psi=psi, that=that, psihat=psih,
        q1=float(Q1[0, 0]), q2=float(Q2[0]), bulk_excess=float(model.params.bulk[0]) - 1.0, status=Status.CONVERGED,
        iterations=int(base.iterations), residual=residual, quadrature_error=float(model.quadrature_error) + e_err)


def one_step_self_term(alpha: float, alpha0: float, beta: float, eta_tilde: float, lam: float, student, teacher, *,
                       tol: float = 1e-12, quad_tol: float = 1e-12) -> SelfTermSolution:
    r"""Test error after one large step through the isotropic map plus the self term (same arguments
    as :func:`~.fixed_point.one_step_spiked_rf`; odd student, uniform readout, no label noise)."""
    alpha = check_positive("alpha", alpha)
    beta = check_positive("beta", beta)
    lam = check_positive("lam", lam)
    s_act = resolve_activation(student, name="student")
    require_odd_student(s_act, "student", "the self term")
    params = cui_to_srf(eta_tilde, alpha0, student, teacher)
    model = channel.channel_model(params, student, teacher, 0.0, tol=quad_tol)
    k = self_term_coefficient(eta_tilde, alpha0, student, teacher)
    return solve_self_term_srf(model, alpha, beta, lam, k, student, tol=tol)
