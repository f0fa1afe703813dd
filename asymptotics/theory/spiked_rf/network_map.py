r"""The network map: the structured bulk and the step's self term together (one-step network → sRF).

Mathematics: docs/spiked-rf-finite-width.md ("The network map"). The Gaussian-equivalent first layer
of one large step (odd student, uniform readout, residual ≈ y on the batch) is

    W¹ = W⁰ diag(1 + k s) + r 1vᵀ + η̃Z,   sⱼ = ⟨w⁰ⱼ, v⟩,   k = r E σ⁽³⁾/E σ',

with Z independent of W⁰ given the batch. The bulk B = W⁰ + η̃Z has the structured rows N(0, (I + κ_c C)/d)
of :mod:`.structured_map`; the self term (:mod:`.self_term`) rescales the **initial** rows w⁰ⱼ only, not
the step's noise Z. Given the spike coordinate κ = vᵀx it moves the feature's mean by

    k sⱼ E[(w⁰ⱼᵀΠx) σ'(rκ + bⱼᵀΠx)] = k sⱼ E σ''(rκ + √c z) =: sⱼ ε(κ),

because Cov(w⁰ⱼᵀΠx, bⱼᵀΠx) = ‖w⁰ⱼ‖² = 1 and Var(bⱼᵀΠx) = c (Stein). The readout sums it along
u0 = W⁰v, a third mean direction beside u = Bv and w = Bζ, with its own overlap t₀ = aᵀu0/√p:

    ω̄(κ) = m μ0(κ) + t κ μ1(κ) + t₀ ε(κ).

u0 is independent of the resolvent R = (D + V̂1 BΠBᵀ)⁻¹ (W⁰v is independent of W⁰Π and of Z), so its
quadratic forms are those of an isotropic unit-variance direction:

    u0ᵀRu0 = uᵀRu0 = β V2,   wᵀRu0 = 0,

and the means solve, with f = (μ0, κμ1, ε), G = E[w f fᵀ], b = E[w f h], w = 1/(1 + V), ρ = α/β,
T = [[T_F, βV2], [βV2, βV2]], T_ψ = (T_X, 0):

    (G + blockdiag(0, T⁻¹/ρ)) (m, t, t₀) = b + (0, T⁻¹T_ψ ψ̂/ρ),   (t̂, t̂₀) = T⁻¹((t, t₀) − T_ψψ̂),
    ψ = T_X t̂ + T_H ψ̂.

The responses (V1, V2), ψ̂ and the prior are those of the structured map; the variances gain the
sources of ĉ = (t̂, t̂₀, ψ̂) through the second-order traces of the 3×3 form matrix. k = 0 is the
structured map; κ_c → 0 (c → 1, P → I) is the isotropic map with the self term.

>>> s = network_one_step(3.0, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")
>>> round(s.test_error, 4), round(s.test_error_structured, 4), round(s.test_error_isotropic, 4)
(0.208, 0.2092, 0.1911)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...activations import resolve_activation
from ...errors import ConvergenceError, ParameterError
from ...params import check_positive
from ...solvers import Anderson, Status, fixed_point
from . import channel
from .fixed_point import solve_spiked_rf
from .mapping import cui_to_srf
from .self_term import self_term_coefficient, self_term_mean_function
from .structured_map import (
    MapSolutionRow,
    StructuredBulk,
    require_odd_student,
    structured_bulk,
    structured_prior_traces,
    structured_second_order,
)

__all__ = ["NetworkMapSolution", "network_mean_function", "network_form_matrix", "solve_network_srf",
           "network_one_step", "EQUATIONS_TOL"]

#: The largest violation of the mean and variance equations accepted after their linear solves, relative
#: to max(1, |unknowns|): float64 solves of these 3×3 and 2×2 systems leave ≈ 10⁻¹⁶ (10⁻¹¹ where the
#: form matrix is nearly singular, κ_c ≈ 10⁻⁶); more means the solve did not solve them.
EQUATIONS_TOL = 1e-8


def network_mean_function(model: channel.ChannelModel, k: float, student) -> tuple[np.ndarray, float]:
    r"""ε(κ) = k E σ''(rκ + √c z) = (k/√c) E[z σ'(rκ + √c z)] on the κ nodes of ``model``, and its
    quadrature error estimate (the rule of :func:`~.self_term.self_term_mean_function`, whose e(κ) is
    k√c E[zσ'(rκ + √c z)]: the same integral, rescaled by 1/c)."""
    c = float(model.params.bulk[0])
    e, err = self_term_mean_function(model, k, student)
    return e / c, err / c


def network_form_matrix(traces: np.ndarray, beta: float) -> np.ndarray:
    r"""The 3×3 matrix of resolvent quadratic forms of (u, u0, w) = (Bv, W⁰v, Bζ) from the structured
    prior's (V1, V2, T_F, T_H, T_X) (or their derivatives, the map being linear): u0 is independent of R,
    so u0ᵀRu0 = uᵀRu0 = βV2 and wᵀRu0 = 0."""
    _, V2, TF, TH, TX = traces
    b = beta * V2
    return np.array([[TF, b, TX], [b, b, 0.0], [TX, 0.0, TH]])


def _responses(model, bulk: StructuredBulk, alpha: float, lam: float, tol: float):
    """The response fixed point (V1, V2) with the structured prior (the self term leaves it unchanged)."""
    ratio = alpha / bulk.beta
    mu1, mu2 = model.mu1[0], model.mu2_sq[0]

    def conj(V1, V2):
        V = mu1**2 * V1 + mu2 * V2
        what = ratio / (1.0 + V)
        V1h, V2h = channel.response_conjugates(model.rule, model.mu1, model.mu2_sq, what)
        return V, what, float(V1h[0, 0]), float(V2h[0])

    def g(x):
        _, _, V1h, V2h = conj(*np.exp(x))
        return np.log(structured_prior_traces(bulk, lam + V2h, V1h)[:2])

    _, _, V1h0, V2h0 = conj(0.0, 0.0)
    x0 = np.log(structured_prior_traces(bulk, lam + V2h0, V1h0)[:2])
    res = fixed_point(g, x0, solver=Anderson(memory=4, atol=tol, rtol=tol, max_steps=2000), on_failure="return")
    if not res.converged:
        raise ConvergenceError(f"network map: the responses did not converge ({res.message})", res)
    V1, V2 = np.exp(res.value)
    return (float(V1), float(V2), *conj(V1, V2), res)


def _means(G, b, T2, Tpsi, psih, ratio):
    """(m, t, t₀) of the 3×3 mean system (module docstring); m = 0 when μ0 ≡ 0."""
    Ti = np.linalg.inv(T2)
    A = G.copy()
    A[1:, 1:] += Ti / ratio
    rhs = b.copy()
    rhs[1:] += Ti @ Tpsi * psih / ratio
    if G[0, 0] < 1e-28:
        return np.concatenate([[0.0], np.linalg.solve(A[1:, 1:], rhs[1:])])
    return np.linalg.solve(A, rhs)


def _prior_point(model, bulk: StructuredBulk, alpha: float, lam: float, tol: float) -> dict:
    """The responses and the structured prior's first- and second-order traces at the solution (shared by
    every self term: the self term moves the means, not the responses)."""
    if model.K != 1:
        raise ParameterError("readout", model.K, "one readout type (uniform readout) for the network map")
    V1, V2, V, what, V1h, V2h, res = _responses(model, bulk, alpha, lam, tol)
    D = lam + V2h
    dD, dV, dif_err = structured_second_order(bulk, D, V1h)
    return dict(V1=V1, V2=V2, V=V, what=what, V1h=V1h, D=D, res=res, traces=structured_prior_traces(bulk, D, V1h),
                dD=dD, dV=dV, dif_err=dif_err, ratio=alpha / bulk.beta, beta=bulk.beta, alpha=alpha)


def _check_equations(violation: float, equations_tol: float, alpha: float, res) -> None:
    """Refuse an assembly whose mean and variance equations, put back in after their linear solves, are
    violated by more than ``equations_tol`` (each violation relative to max(1, |unknowns|); a well-posed
    point gives ≈ 10⁻¹⁶, 10⁻¹¹ at κ_c ≈ 10⁻⁶): a :class:`~asymptotics.errors.ConvergenceError` naming
    the violation and the tolerance."""
    if not violation <= equations_tol:
        raise ConvergenceError(f"network map: the mean and variance equations are violated by {violation:.3g} "
                               f"after their solve at α = {alpha:g} (tolerance {equations_tol:g})", res)


def _assemble(model, pp: dict, eps: np.ndarray, equations_tol: float) -> dict:
    """Means, variances and errors of the network map at a solved prior point ``pp`` with the self-term
    mean function ``eps`` on the κ nodes (module docstring); the equations are checked after their
    solves (:func:`_check_equations`)."""
    rule, beta, ratio, V, what, res = model.rule, pp["beta"], pp["ratio"], pp["V"], pp["what"], pp["res"]
    mu0, mu1, mu2 = model.mu0[0], model.mu1[0], model.mu2_sq[0]
    tr, dD, dV = pp["traces"], pp["dD"], pp["dV"]
    T3 = network_form_matrix(tr, beta)
    psih = float(channel.orthogonal_conjugate(rule, model.mu1, what, model.h1t)[0])
    w = rule.weights / (1.0 + V)
    F = np.vstack([mu0, rule.nodes * mu1, eps])
    G, b = (F * w) @ F.T, F @ (w * model.h)
    try:
        x = _means(G, b, T3[:2, :2], T3[:2, 2], psih, ratio)
    except np.linalg.LinAlgError as exc:
        raise ConvergenceError(f"network map: singular mean system at α = {pp['alpha']:g} ({exc})", res) from None
    m, t, t0 = (float(v) for v in x)
    chat = np.linalg.solve(T3[:2, :2], np.array([t, t0]) - T3[:2, 2] * psih)
    c3 = np.array([chat[0], chat[1], psih])
    psi = float(T3[2] @ c3)
    omega = m * mu0 + t * rule.nodes * mu1 + t0 * eps
    E0 = channel.conditional_error(model.h, model.h1t, model.h2t, omega, psi * mu1, 0.0, 0.0)
    P = np.array([[dV[0], dV[1]], [dV[1], dD[1]]])           # (q1, q2) per (q̂1, q̂2): [[I2, I1], [I1, I0]]
    f = np.array([c3 @ network_form_matrix(dV, beta) @ c3, c3 @ network_form_matrix(dD, beta) @ c3])
    ww = rule.weights * what / (1.0 + V)
    B = np.vstack([mu1**2, mu2])
    LA = P @ ((B * ww) @ B.T)
    rad = float(np.max(np.abs(np.linalg.eigvals(LA))))
    if not rad < 1.0 - 1e-8:
        raise ConvergenceError(f"network map: the variance equations have no stable solution (radius {rad:.6g})", res)
    q = np.linalg.solve(np.eye(2) - LA, P @ (B @ (ww * E0)) + f)
    E = E0 + mu1**2 * q[0] + mu2 * q[1]
    Q1h, q2h = channel.overlap_conjugates(rule, model.mu1, model.mu2_sq, what, V, E)
    resid = [float(np.abs(P @ np.array([Q1h[0, 0], q2h[0]]) + f - q).max()) / max(1.0, float(np.abs(q).max()))]
    if G[0, 0] >= 1e-28:
        resid.append(abs(rule.expect(mu0 * (model.h - omega) / (1.0 + V))))
    chk = T3 @ np.array([ratio * rule.expect(F[1] * (model.h - omega) / (1.0 + V)),
                         ratio * rule.expect(eps * (model.h - omega) / (1.0 + V)), psih])
    resid.append(float(np.abs(chk[:2] - [t, t0]).max()) / max(1.0, abs(t), abs(t0)))
    _check_equations(max(resid), equations_tol, pp["alpha"], res)
    eg, et = channel.generalisation_error(rule, E), channel.training_error(rule, E, V)
    if not (math.isfinite(eg) and math.isfinite(et)) or eg < -1e-12:
        raise ConvergenceError("network map: non-finite or negative error at the solution", res)
    return dict(test_error=eg, train_error=et, V1=pp["V1"], V2=pp["V2"], m=m, t=t, t0=t0, psi=psi,
                that=float(chat[0]), t0hat=float(chat[1]), psihat=psih, q1=float(q[0]), q2=float(q[1]),
                TF=float(tr[2]), TH=float(tr[3]), TX=float(tr[4]), D=float(pp["D"]), V1hat=float(pp["V1h"]),
                iterations=int(res.iterations), residual=max(float(res.residual), pp["dif_err"], *resid))


def solve_network_srf(model: channel.ChannelModel, bulk: StructuredBulk, alpha: float, lam: float, eps, *,
                      tol: float = 1e-11, equations_tol: float = EQUATIONS_TOL) -> list[dict]:
    r"""The K = 1 sRF fixed point of the network map: structured prior, self-term mean function ε(κ)
    on the κ nodes. ``eps``: one array or a list of arrays (zeros give the structured map); the responses
    and the prior are solved once for all. Returns one dict of order parameters per array.
    ``equations_tol``: the largest relative violation of the mean and variance equations accepted after
    their linear solves (a larger one is a :class:`~asymptotics.errors.ConvergenceError`)."""
    pp = _prior_point(model, bulk, alpha, lam, tol)
    many = isinstance(eps, (list, tuple))
    out = [_assemble(model, pp, np.asarray(e, float), equations_tol) for e in (eps if many else [eps])]
    return out if many else out[0]


@dataclass(frozen=True)
class NetworkMapSolution(MapSolutionRow):
    r"""One-step network theory through the network map (structured bulk + self term), beside the
    structured map (k = 0) and the isotropic map of Cui et al.

    Attributes:
        test_error, train_error: the network map.
        test_error_structured, train_error_structured: the structured map (self term off).
        test_error_isotropic, train_error_isotropic: the isotropic map (:func:`~.fixed_point.solve_spiked_rf`).
        alpha, beta, lam, eta_tilde, alpha0: the point; kappa_c κ_c = η̃²ȟ1/α0; bulk_excess c − 1;
        self_term: k = r E σ⁽³⁾/E σ'.
        m, t, t0, psi, that, t0hat, psihat, q1, q2, V1, V2, TF, TH, TX, D, V1hat: order parameters,
            conjugates and prior traces (t0 = aᵀW⁰v/√p, the overlap that carries the self term).
        status, iterations, residual: :class:`~asymptotics.solvers.Status`, response iterations, largest
            violation of the equations (the numerical-derivative error included).
        quadrature_error: the channel's and ε(κ)'s estimated quadrature error.
    """

    test_error: float
    train_error: float
    test_error_structured: float
    train_error_structured: float
    test_error_isotropic: float
    train_error_isotropic: float
    alpha: float
    beta: float
    lam: float
    eta_tilde: float
    alpha0: float
    kappa_c: float
    bulk_excess: float
    self_term: float
    m: float
    t: float
    t0: float
    psi: float
    that: float
    t0hat: float
    psihat: float
    q1: float
    q2: float
    V1: float
    V2: float
    TF: float
    TH: float
    TX: float
    D: float
    V1hat: float
    status: Status
    iterations: int
    residual: float
    quadrature_error: float

    @property
    def relative_modelling_error(self) -> float:
        """isotropic/network − 1: the error of the isotropic map taking the network map as reference."""
        return self.test_error_isotropic / self.test_error - 1.0


def network_one_step(alpha: float, alpha0: float, beta: float, eta_tilde: float, lam: float, student, teacher, *,
                     self_term: float | None = None, tol: float = 1e-11, quad_tol: float = 1e-12) -> NetworkMapSolution:
    r"""Test error after one large step through the network map (same arguments as
    :func:`~.fixed_point.one_step_spiked_rf`; odd student, uniform readout, no label noise, finite α0).

    ``self_term``: k (default: :func:`~.self_term.self_term_coefficient`, r E σ⁽³⁾/E σ'); 0 gives the
    structured map. One point costs about twice the structured map's (0.1–1 s)."""
    alpha = check_positive("alpha", alpha)
    lam = check_positive("lam", lam)
    s_act = resolve_activation(student, name="student")
    require_odd_student(s_act, "student", "the network map")
    bulk = structured_bulk(eta_tilde, alpha0, s_act, teacher, beta)
    params = cui_to_srf(eta_tilde, alpha0, s_act, teacher)
    model = channel.channel_model(params, s_act, teacher, 0.0, tol=quad_tol)
    k = self_term_coefficient(eta_tilde, alpha0, s_act, teacher) if self_term is None else float(self_term)
    if not math.isfinite(k):
        raise ParameterError("self_term", self_term, "a finite number")
    eps, e_err = network_mean_function(model, k, s_act)
    iso = solve_spiked_rf(model, alpha, bulk.beta, lam)
    s, st = solve_network_srf(model, bulk, alpha, lam, [eps, np.zeros_like(eps)], tol=tol)
    keep = ("m", "t", "t0", "psi", "that", "t0hat", "psihat", "q1", "q2", "V1", "V2", "TF", "TH", "TX", "D", "V1hat")
    return NetworkMapSolution(
        test_error=s["test_error"], train_error=s["train_error"], test_error_structured=st["test_error"],
        train_error_structured=st["train_error"], test_error_isotropic=iso.test_error,
        train_error_isotropic=iso.train_error, alpha=alpha, beta=bulk.beta, lam=lam, eta_tilde=float(eta_tilde),
        alpha0=bulk.alpha0, kappa_c=bulk.kappa_c, bulk_excess=bulk.c - 1.0, self_term=k,
        **{n: s[n] for n in keep}, status=Status.CONVERGED, iterations=s["iterations"],
        residual=max(s["residual"], st["residual"]), quadrature_error=float(model.quadrature_error) + e_err)
