r"""The structured-bulk network → sRF map after one large step (deterministic theory).

Mathematics: docs/spiked-rf-finite-width.md ("A better network → sRF map"); sRF notation of
docs/spiked-rf.md. The isotropic map (:func:`~.mapping.cui_to_srf`) replaces the trained first layer
by a spike r v plus an isotropic bulk with Marchenko–Pastur Gram spectrum. After a large step
(odd student, E σ'' = 0; residual y − f0 ≈ y) the Gaussian-equivalent first step is

    W¹ = W⁰ + η̃h1 1ĝᵀ + η̃Z,   ĝ = X0ᵀy/n0,   Z = (1/n0) Sᵀ diag(y) X0,   S = σ'(X0W⁰ᵀ) − h1 ≈ √ȟ1 Ξ,

so, given the first batch, the bulk rows are i.i.d. N(0, Σ_B) with

    Σ_B = (1/d)(I + κ_c C),   C = X0ᵀ diag(y²) X0/n0,   κ_c = η̃² ȟ1/α0      (ȟ1 = Var σ'(z)),

and the spike direction v = ĝ/‖ĝ‖ and the teacher θ are special directions of C. (c, r, γ) are those
of the isotropic map; the prior of the readout changes. With R = (D + V̂1Ω)⁻¹, Ω = BΠ_vBᵀ, u = Bv,
w = Bζ, D = λ + V̂2 (:func:`structured_prior_traces`):

    V2 = (1/p) tr R,  V1 = (1/p) tr ΩR,  T_F = uᵀRu,  T_H = wᵀRw,  T_X = uᵀRw   (T_X: the v–ζ cross term),
    t = t̂ T_F + ψ̂ T_X,   ψ = ψ̂ T_H + t̂ T_X,

and the second-order traces are their derivatives −∂_D, −∂_V̂1 (:func:`structured_second_order`).
Deterministic equivalents: with g ~ N(0, 1), y = σ*(g), h1* = E[gy], ‖ĝ‖² = E y²/α0 + h1*²,
γ = h1*/‖ĝ‖, ρ = √(1 − γ²), and unknowns (τ, e) at given (D, V̂1) (:func:`bulk_self_energy`):

    ω = βV̂1/(1 + V̂1 e),  a = D + ω,  b = κ_c ω,  δ = bτ/α0,
    τ = 1/(a + b E[y²/(1 + y²δ)]),   e = τ (1 + κ_c E[y²/(1 + y²δ)]),
    V2 = 1/(D(1 + V̂1 e)),   V1 = e/(1 + V̂1 e);

the quadratic forms q_ab = aᵀ(a + bC)⁻¹b of v, ζ, θ (:func:`resolvent_quadratic_forms`, Schur
complement on θ) and, by Sherman–Morrison for Ω = BBᵀ − uuᵀ,

    T_F = (1 − D q_vv)/(V̂1 D q_vv),  T_H = (1 − D q_ζζ)/V̂1 + D q_ζv²/(V̂1 q_vv),  T_X = −q_ζv/(V̂1 q_vv).

κ_c → 0 returns the Marchenko–Pastur closed form (T_F = βcV2, T_H = βV1, T_X = 0).

**Deterministic, no sampled matrix**: two scalar fixed points and one-dimensional Gaussian integrals
per prior evaluation. The second-order traces are central differences of the first-order ones
(Richardson-extrapolated, relative step 1e-4; their estimated error is part of ``residual``).
One point costs about 0.5–1 s (κ tabulation of the channel included); :func:`map_validity_table`
evaluates one point per grid cell and a bisection per threshold.
Not covered: non-odd students (E σ'' ≠ 0), K readout types, label noise in the first batch.

>>> from asymptotics.theory.spiked_rf.structured_map import structured_one_step
>>> s = structured_one_step(3.0, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")
>>> round(s.test_error, 4), round(s.test_error_isotropic, 4), s.status.label
(0.2092, 0.1911, 'converged')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ...activations import resolve_activation
from ...errors import ConvergenceError, ParameterError
from ...gaussian import composite_rule
from ...params import check_positive
from ...solvers import Anderson, Status, fixed_point
from . import channel
from .fixed_point import solve_spiked_rf
from .mapping import cui_to_srf

__all__ = [
    "BatchLaw",
    "StructuredBulk",
    "structured_bulk",
    "require_odd_student",
    "bulk_self_energy",
    "resolvent_quadratic_forms",
    "structured_prior_traces",
    "structured_second_order",
    "MapSolutionRow",
    "StructuredMapSolution",
    "solve_structured_srf",
    "structured_one_step",
    "map_validity_table",
    "isotropic_validity_threshold",
]


@dataclass(frozen=True)
class BatchLaw:
    r"""Gaussian quadrature over g ~ N(0, 1) with the first batch's labels y = σ*(g).

    Attributes: nodes g, weights, labels y, and E y², h1* = E[gy], E[y²g²], E y⁴.
    """

    g: np.ndarray
    weights: np.ndarray
    y: np.ndarray
    Ey2: float
    h1s: float
    Ey2g2: float
    Ey4: float

    def expect(self, f) -> float:
        return float(np.asarray(f) @ self.weights)


@dataclass(frozen=True)
class StructuredBulk:
    r"""The trained bulk Σ_B = (I + κ_c C)/d of one large step (one readout type).

    Attributes: law (:class:`BatchLaw`), alpha0 α0, kappa_c κ_c = η̃²ȟ1/α0, beta β = p/d,
    gnorm2 ‖ĝ‖², gamma γ, rho √(1 − γ²), c = 1 + κ_c E y² (the bulk variance of the isotropic map).
    """

    law: BatchLaw
    alpha0: float
    kappa_c: float
    beta: float
    gnorm2: float
    gamma: float
    rho: float
    c: float


def require_odd_student(student, name: str = "student", purpose: str = "the structured map") -> None:
    r"""Raise :class:`ParameterError` (naming ``name``) unless the resolved activation ``student`` has
    E σ''(z) = 0 (μ2 = 0 relative to μ1), the case the structured map (and the self term) is derived for."""
    cs = student.constants()
    if abs(cs.hermite[2]) > 1e-10 * max(1.0, abs(cs.hermite[1])):
        raise ParameterError(name, student.name, f"an odd activation (E σ'' = 0) for {purpose}")


def structured_bulk(eta_tilde: float, alpha0: float, student, teacher, beta: float = 1.0) -> StructuredBulk:
    r"""The structured bulk of the Gaussian-equivalent first step (odd student; κ_c = η̃²Var σ'/α0)."""
    eta = float(eta_tilde)
    if not (math.isfinite(eta) and eta >= 0):
        raise ParameterError("eta_tilde", eta_tilde, "≥ 0")
    a0 = check_positive("alpha0", alpha0)
    beta = check_positive("beta", beta)
    s_act = resolve_activation(student, name="student")
    cs = s_act.constants()
    require_odd_student(s_act)
    t_act = resolve_activation(teacher, name="teacher")
    g, w = composite_rule(tuple(t_act.kinks), 24, 14.0, 0.5)
    g, w = np.asarray(g, float), np.asarray(w, float)
    y = np.asarray(t_act.numpy(g), float)
    law = BatchLaw(g, w, y, float(w @ y**2), float(w @ (g * y)), float(w @ (y * y * g * g)), float(w @ y**4))
    gnorm2 = law.Ey2 / a0 + law.h1s**2
    gamma = law.h1s / math.sqrt(gnorm2)
    kc = eta**2 * cs.var_derivative / a0
    return StructuredBulk(law, a0, kc, beta, gnorm2, gamma, math.sqrt(max(1.0 - gamma**2, 0.0)),
                          1.0 + kc * law.Ey2)


# ---- the prior's equations -------------------------------------------------------------------------

def bulk_self_energy(bulk: StructuredBulk, D: float, V1hat: float):
    r"""(τ, e) of the weighted Marchenko–Pastur problem at (D, V̂1), and (a, b) = (D + ω, κ_cω).

    τ = (1/d) tr(a + bC)⁻¹ = 1/(a + b E[y²/(1 + y²δ)]), δ = bτ/α0; e = τ(1 + κ_c E[y²/(1 + y²δ)]) =
    tr Σ_B (a + bC)⁻¹; ω = βV̂1/(1 + V̂1 e). Solved on the logarithms (Anderson); raises
    :class:`~asymptotics.errors.ConvergenceError` if it does not converge.
    """
    L, a0, kc, beta = bulk.law, bulk.alpha0, bulk.kappa_c, bulk.beta
    y2 = L.y**2

    def step(x):
        tau, e = np.exp(x)
        om = V1hat * beta / (1.0 + V1hat * e)
        a, b = D + om, om * kc
        M1 = L.expect(y2 / (1.0 + b * y2 * tau / a0))
        tn = 1.0 / (a + b * M1)
        return np.log([tn, tn * (1.0 + kc * M1)])

    x0 = np.log([1.0 / (D + V1hat * beta), bulk.c / (D + V1hat * beta * bulk.c)])
    res = fixed_point(step, x0, solver=Anderson(memory=3, atol=1e-15, rtol=1e-15, max_steps=500), on_failure="return")
    if not res.converged and not res.residual <= 1e-13:
        raise ConvergenceError(f"structured bulk: (τ, e) did not converge at D = {D:g}, V̂1 = {V1hat:g} "
                               f"({res.message}, residual {res.residual:.3g})", res)
    tau, e = np.exp(res.value)
    om = V1hat * beta / (1.0 + V1hat * e)
    return float(tau), float(e), D + om, om * kc


def resolvent_quadratic_forms(bulk: StructuredBulk, a: float, b: float, tau: float):
    r"""(q_vv, q_ζv, q_ζζ) of (a + bC)⁻¹ for the unit vectors v = ĝ/‖ĝ‖ and ζ ⊥ v in span(v, θ).

    With X0 = X⊥ + gθᵀ, δ = bτ/α0, Ā_f = E[f/(1 + y²δ)] and k = 1/(a + bE[y²g²] − bδĀ_{y⁴g²}):
    ĝᵀ(a + bC)⁻¹ĝ = (τ/α0)Ā_{y²} + k(δĀ_{y³g} − h1*)², θᵀ(…)⁻¹ĝ = k(h1* − δĀ_{y³g}), θᵀ(…)⁻¹θ = k.
    """
    L, a0 = bulk.law, bulk.alpha0
    y, g = L.y, L.g
    delta = b * tau / a0
    den = 1.0 + y * y * delta
    A_yy, A_yc, A_cc = L.expect(y * y / den), L.expect(y**3 * g / den), L.expect(y**4 * g * g / den)
    k = 1.0 / (a + b * L.Ey2g2 - b * delta * A_cc)
    gg = tau / a0 * A_yy + k * (delta * A_yc - L.h1s) ** 2
    tg = k * (L.h1s - delta * A_yc)
    vv = gg / bulk.gnorm2
    tv = tg / math.sqrt(bulk.gnorm2)
    gm, rh = bulk.gamma, bulk.rho
    zv = (tv - gm * vv) / rh
    zz = (k - 2 * gm * tv + gm * gm * vv) / rh**2
    return vv, zv, zz


def structured_prior_traces(bulk: StructuredBulk, D: float, V1hat: float) -> np.ndarray:
    r"""(V1, V2, T_F, T_H, T_X) of the structured bulk at (D, V̂1) (see the module docstring)."""
    tau, e, a, b = bulk_self_energy(bulk, D, V1hat)
    vv, zv, zz = resolvent_quadratic_forms(bulk, a, b, tau)
    V2 = 1.0 / (D * (1.0 + V1hat * e))
    V1 = e / (1.0 + V1hat * e)
    TF = (1.0 - D * vv) / (V1hat * D * vv)
    TH = (1.0 - D * zz) / V1hat + D * zv * zv / (V1hat * vv)
    TX = -zv / (V1hat * vv)
    return np.array([V1, V2, TF, TH, TX])


def structured_second_order(bulk: StructuredBulk, D: float, V1hat: float, rel: float = 1e-4):
    r"""Second-order traces (−∂_D, −∂_V̂1 of (V1, V2, T_F, T_H, T_X)) and their estimated error.

    Returns (dD, dV, err): arrays over (V1, V2, T_F, T_H, T_X); I0 = dD[1], I1 = dV[1], I2 = dV[0],
    (F0, F1) = (dD[2], dV[2]), (H0, H1) = (dD[3], dV[3]), (X0, X1) = (dD[4], dV[4]). Central
    differences at steps h and h/2, Richardson-combined; err = |Richardson − h/2 estimate|
    (relative to the largest trace), a bound on the O(h²) part.
    """
    def deriv(which):
        h = rel * (D if which == "D" else max(V1hat, 1e-3 * D))

        def at(s):
            if which == "D":
                return (structured_prior_traces(bulk, D + s, V1hat) - structured_prior_traces(bulk, D - s, V1hat)) / (2 * s)
            return (structured_prior_traces(bulk, D, V1hat + s) - structured_prior_traces(bulk, D, V1hat - s)) / (2 * s)
        d1, d2 = at(h), at(h / 2)
        rich = (4 * d2 - d1) / 3
        return rich, float(np.max(np.abs(rich - d2)) / max(1.0, float(np.max(np.abs(rich)))))
    dD, eD = deriv("D")
    dV, eV = deriv("V")
    return -dD, -dV, max(eD, eV)


# ---- the readout fixed point with the structured prior (K = 1) -------------------------------------

class MapSolutionRow:
    """The row of a map's solution dataclass (:class:`StructuredMapSolution`, the network map's
    :class:`~.network_map.NetworkMapSolution`): every field, ``status`` as its
    :class:`~asymptotics.solvers.Status` label, and the ``relative_modelling_error`` it defines."""

    __slots__ = ()

    def as_dict(self) -> dict:
        row = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "status"}
        row["status"] = self.status.label
        row["relative_modelling_error"] = self.relative_modelling_error
        return row


@dataclass(frozen=True)
class StructuredMapSolution(MapSolutionRow):
    r"""One-step network theory through the structured-bulk map, beside the isotropic map.

    Attributes:
        test_error, train_error: with the structured-bulk prior.
        test_error_isotropic, train_error_isotropic: the isotropic map (:func:`~.fixed_point.solve_spiked_rf`).
        alpha, beta, lam, eta_tilde, alpha0, kappa_c: the point (κ_c = η̃²ȟ1/α0).
        V1, V2, m, t, psi, q1, q2, TF, TH, TX, D, V1hat: order parameters and prior traces.
        status, iterations, residual: :class:`~asymptotics.solvers.Status`, response iterations,
            largest violation of the equations (the numerical-derivative error included).
    """

    test_error: float
    train_error: float
    test_error_isotropic: float
    train_error_isotropic: float
    alpha: float
    beta: float
    lam: float
    eta_tilde: float
    alpha0: float
    kappa_c: float
    V1: float
    V2: float
    m: float
    t: float
    psi: float
    q1: float
    q2: float
    TF: float
    TH: float
    TX: float
    D: float
    V1hat: float
    status: Status
    iterations: int
    residual: float

    @property
    def relative_modelling_error(self) -> float:
        """structured/isotropic − 1: the modelling error of the isotropic surrogate."""
        return self.test_error / self.test_error_isotropic - 1.0


def solve_structured_srf(model: channel.ChannelModel, bulk: StructuredBulk, alpha: float, lam: float, *,
                         tol: float = 1e-11):
    r"""The K = 1 sRF fixed point with the structured-bulk prior (channel of ``model``, β of ``bulk``).

    Responses (V1, V2) ↦ (V̂1, V̂2) ↦ prior (V1, V2) on the logarithms (Anderson); means from
    [G + diag(0, 1/((α/β)T_F))](m, t) = b + (0, T_Xψ̂/((α/β)T_F)), t̂ = (t − T_Xψ̂)/T_F, ψ = ψ̂T_H + t̂T_X;
    variances (q1, q2) = P(q̂1, q̂2) + f, f = (t̂²F1 + 2t̂ψ̂X1 + ψ̂²H1, t̂²F0 + 2t̂ψ̂X0 + ψ̂²H0), solved as
    one 2×2 linear system. Returns a dict of the order parameters.
    """
    if model.K != 1:
        raise ParameterError("readout", model.K, "one readout type (uniform readout) for the structured map")
    beta = bulk.beta
    ratio = alpha / beta
    rule = model.rule
    mu0, mu1, mu2 = model.mu0[0], model.mu1[0], model.mu2_sq[0]

    def conj(V1, V2):
        V = mu1**2 * V1 + mu2 * V2
        what = ratio / (1.0 + V)
        V1h, V2h = channel.response_conjugates(rule, model.mu1, model.mu2_sq, what)
        return V, what, float(V1h[0, 0]), float(V2h[0])

    def g(x):
        _, _, V1h, V2h = conj(*np.exp(x))
        return np.log(structured_prior_traces(bulk, lam + V2h, V1h)[:2])

    _, _, V1h0, V2h0 = conj(0.0, 0.0)
    x0 = np.log(structured_prior_traces(bulk, lam + V2h0, V1h0)[:2])
    res = fixed_point(g, x0, solver=Anderson(memory=4, atol=tol, rtol=tol, max_steps=2000), on_failure="return")
    if not res.converged:
        raise ConvergenceError(f"structured map: the responses did not converge ({res.message})", res)
    V1, V2 = np.exp(res.value)
    V, what, V1h, V2h = conj(V1, V2)
    D = lam + V2h
    _, _, TF, TH, TX = structured_prior_traces(bulk, D, V1h)
    dD, dV, dif_err = structured_second_order(bulk, D, V1h)
    psih = float(channel.orthogonal_conjugate(rule, model.mu1, what, model.h1t)[0])
    w = rule.weights / (1.0 + V)
    F = np.vstack([mu0, rule.nodes * mu1])
    G = (F * w) @ F.T
    b = F @ (w * model.h) + np.array([0.0, TX * psih / (ratio * TF)])
    if G[0, 0] < 1e-28:          # no mean direction (μ0 ≡ 0)
        m, t = 0.0, b[1] / (G[1, 1] + 1.0 / (ratio * TF))
    else:
        m, t = np.linalg.solve(G + np.diag([0.0, 1.0 / (ratio * TF)]), b)
    that = (t - TX * psih) / TF
    psi = psih * TH + that * TX
    omega = channel.mean_prediction(model.mu0, model.mu1, rule.nodes, [m], [t])
    E0 = channel.conditional_error(model.h, model.h1t, model.h2t, omega, psi * mu1, 0.0, 0.0)
    P = np.array([[dV[0], dV[1]], [dV[1], dD[1]]])           # (q1, q2) per (q̂1, q̂2): [[I2, I1], [I1, I0]]
    f = np.array([that**2 * dV[2] + 2 * that * psih * dV[4] + psih**2 * dV[3],
                  that**2 * dD[2] + 2 * that * psih * dD[4] + psih**2 * dD[3]])
    ww = rule.weights * what / (1.0 + V)
    B = np.vstack([mu1**2, mu2])
    LA = P @ ((B * ww) @ B.T)
    rad = float(np.max(np.abs(np.linalg.eigvals(LA))))
    if not rad < 1.0 - 1e-8:
        raise ConvergenceError(f"structured map: the variance equations have no stable solution (radius {rad:.6g})", res)
    q = np.linalg.solve(np.eye(2) - LA, P @ (B @ (ww * E0)) + f)
    E = E0 + mu1**2 * q[0] + mu2 * q[1]
    Q1h, q2h = channel.overlap_conjugates(rule, model.mu1, model.mu2_sq, what, V, E)
    resid = float(np.abs(P @ np.array([Q1h[0, 0], q2h[0]]) + f - q).max()) / max(1.0, float(np.abs(q).max()))
    mres = abs(rule.expect(mu0 * (model.h - omega) / (1.0 + V)))
    eg, et = channel.generalisation_error(rule, E), channel.training_error(rule, E, V)
    if not (math.isfinite(eg) and math.isfinite(et)):
        raise ConvergenceError("structured map: non-finite error", res)
    return dict(test_error=eg, train_error=et, V1=float(V1), V2=float(V2), m=float(m), t=float(t), psi=float(psi),
                q1=float(q[0]), q2=float(q[1]), TF=float(TF), TH=float(TH), TX=float(TX), D=float(D),
                V1hat=float(V1h), iterations=int(res.iterations),
                residual=max(float(res.residual), resid, mres, dif_err))


def structured_one_step(alpha: float, alpha0: float, beta: float, eta_tilde: float, lam: float, student, teacher, *,
                        tol: float = 1e-11, quad_tol: float = 1e-12) -> StructuredMapSolution:
    r"""Test error after one large step through the structured-bulk map, beside the isotropic map
    (same arguments as :func:`~.fixed_point.one_step_spiked_rf`; uniform readout, no label noise)."""
    alpha = check_positive("alpha", alpha)
    lam = float(lam)
    if not (math.isfinite(lam) and lam > 0):
        raise ParameterError("lam", lam, "> 0")
    bulk = structured_bulk(eta_tilde, alpha0, student, teacher, beta)
    params = cui_to_srf(eta_tilde, alpha0, student, teacher)
    model = channel.channel_model(params, student, teacher, 0.0, tol=quad_tol)
    iso = solve_spiked_rf(model, alpha, bulk.beta, lam)
    s = solve_structured_srf(model, bulk, alpha, lam, tol=tol)
    return StructuredMapSolution(
        test_error=s["test_error"], train_error=s["train_error"], test_error_isotropic=iso.test_error,
        train_error_isotropic=iso.train_error, alpha=alpha, beta=bulk.beta, lam=lam, eta_tilde=float(eta_tilde),
        alpha0=bulk.alpha0, kappa_c=bulk.kappa_c, V1=s["V1"], V2=s["V2"], m=s["m"], t=s["t"], psi=s["psi"],
        q1=s["q1"], q2=s["q2"], TF=s["TF"], TH=s["TH"], TX=s["TX"], D=s["D"], V1hat=s["V1hat"],
        status=Status.CONVERGED, iterations=s["iterations"], residual=s["residual"])


# ---- where the isotropic surrogate holds ------------------------------------------------------------

def isotropic_validity_threshold(eta_tilde: float, alpha: float = 3.0, lam: float = 0.01, student="tanh",
                                 teacher="tanh", *, level: float = 0.01, bracket=(0.3, 40.0), beta: float = 1.0,
                                 xtol: float = 1e-3) -> float:
    r"""α0*(η̃): the α0 above which |structured/isotropic − 1| ≤ ``level`` (bisection in log α0 on
    ``bracket``; NaN when the modelling error does not cross ``level`` inside it)."""
    def f(log_a0):
        return structured_one_step(alpha, math.exp(log_a0), beta, eta_tilde, lam, student,
                                   teacher).relative_modelling_error - level
    lo, hi = math.log(bracket[0]), math.log(bracket[1])
    flo, fhi = f(lo), f(hi)
    if flo * fhi > 0:
        return math.nan
    return math.exp(brentq(f, lo, hi, xtol=xtol))


def map_validity_table(etas=(1.0, 2.0, 3.0, 5.0), alpha0s=(0.5, 1.0, 2.0, 5.0, 20.0), alpha: float = 3.0,
                       lam: float = 0.01, student="tanh", teacher="tanh", *, beta: float = 1.0,
                       thresholds: bool = True, level: float = 0.01):
    r"""The modelling error of the isotropic sRF surrogate over a grid of (η̃, α0) (theory only).

    Returns (rows, thresholds): one row per (η̃, α0) with both test errors and
    ``relative_modelling_error`` (structured/isotropic − 1; no sampling error), and α0*(η̃) of
    :func:`isotropic_validity_threshold` per η̃ (empty when ``thresholds`` is false).
    About one second per point.
    """
    rows = [structured_one_step(alpha, a0, beta, eta, lam, student, teacher).as_dict()
            for eta in etas for a0 in alpha0s]
    thr = {float(eta): isotropic_validity_threshold(eta, alpha, lam, student, teacher, level=level, beta=beta)
           for eta in etas} if thresholds else {}
    return rows, thr
