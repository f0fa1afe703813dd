"""Spiked random features (Cui et al. 2024): theory against independent references.

References used here, each independent of the code under test:
- the reference grid and tables of docs/spiked-rf.md (Cui et al. §6–§8) (an independent solution);
- closed forms of Gaussian expectations (ReLU, sin) and scipy adaptive quadrature;
- the Marchenko–Pastur density integrated by scipy, the project's MP Stieltjes transform
  (``asymptotics.numerics.marchenko_pastur``, another implementation) and sampled matrices;
- the random-features risk R0 of the one-step theory, and a ridge deterministic equivalent
  written in this file;
- the symbolic pencil engine (block MP equations);
- a plain-numpy simulation of the sRF model written in this file.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, special

from asymptotics.errors import ConvergenceError, ParameterError
from asymptotics.theory.spiked_rf import (
    cget_coefficients,
    channel_model,
    cui_to_srf,
    kappa_rule,
    mp_prior_traces,
    mp_resolvent_moments,
    one_step_spiked_rf,
    readout_types,
    solve_spiked_rf,
    spiked_rf,
    spiked_rf_curve,
    srf_parameters,
    target_functions,
)
from asymptotics.theory.spiked_rf.special_cases import (
    ba_ridge_from_cui,
    isotropic_spiked_rf,
    linear_floor,
    random_features_error,
)

# ---------------------------------------------------------------------------------------------
# the map (η̃, α0, σ, σ*) → (c, r, γ)


def _gauss(f, a=-np.inf, b=np.inf):
    return integrate.quad(lambda z: f(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), a, b, epsabs=1e-14,
                          epsrel=1e-13, limit=200)[0]


def test_map_against_quadrature_constants():
    # h's by scipy quadrature (independent of the activation module)
    dtanh = lambda z: 1 - math.tanh(z) ** 2  # noqa: E731
    h1 = _gauss(dtanh)
    var_d = _gauss(lambda z: dtanh(z) ** 2) - h1**2
    h2s = _gauss(lambda z: math.tanh(z) ** 2)
    eta, a0 = 5.0, 1.0
    g = math.sqrt(h1**2 + h2s / a0)
    p = cui_to_srf(eta, a0, "tanh", "tanh")
    assert p.r == pytest.approx(eta * h1 * g, rel=1e-12)
    assert p.c == pytest.approx(1 + eta**2 * h2s * var_d / a0, rel=1e-12)
    assert p.gamma == pytest.approx(h1 / g, rel=1e-12)
    # §2: c = 1.961 (trained weights measured 1.972 at d = 2000), γ = 0.69
    assert round(p.c, 3) == 1.961 and round(p.gamma, 2) == 0.69
    # noise enters E y² = h2* + σ_ε²
    pn = cui_to_srf(eta, a0, "tanh", "tanh", noise=0.5)
    assert pn.c == pytest.approx(1 + eta**2 * (h2s + 0.25) * var_d / a0, rel=1e-12)


def test_map_special_points():
    p0 = cui_to_srf(0.0, 1.0, "tanh", "sin")
    assert (p0.r, p0.c, p0.gamma) == (0.0, 1.0, 0.0)
    pinf = cui_to_srf(3.0, math.inf, "tanh", "sin")
    assert pinf.gamma == 1.0 and pinf.c == 1.0 and pinf.rho == 0.0
    assert pinf.r == pytest.approx(3.0 * 0.6057055096021589 * math.exp(-0.5), rel=1e-12)  # η̃ h1 h1*, h1*(sin) = e^{-1/2}
    # K types: r u_k and c_k = 1 + η̃² u_k² E y² ȟ1/α0
    pk = cui_to_srf(3.0, 20.0, "tanh", "sin", readout=[0.3, 1.7])
    p1 = cui_to_srf(3.0, 20.0, "tanh", "sin")
    assert pk.spikes == pytest.approx((0.3 * p1.r, 1.7 * p1.r))
    assert pk.bulk[1] - 1 == pytest.approx(1.7**2 * (p1.c - 1))


# ---------------------------------------------------------------------------------------------
# cGET coefficients and target functions


def test_cget_relu_closed_form():
    # E relu(a + b z) = a Φ(a/b) + b φ(a/b); E[z relu(a+bz)] = b Φ(a/b); E relu² = (a²+b²)Φ + a b φ
    r, c = 1.3, 1.7
    kappa = np.array([-2.0, -0.4, 0.0, 0.7, 2.5])
    co = cget_coefficients("relu", r, c, kappa)
    a, b = r * kappa, math.sqrt(c)
    Phi, phi = special.ndtr(a / b), np.exp(-0.5 * (a / b) ** 2) / math.sqrt(2 * math.pi)
    off = 1 / math.sqrt(2 * math.pi)  # the centring offset of relu
    m0 = a * Phi + b * phi - off
    m1 = b * Phi
    m2 = (a * a + b * b) * Phi + a * b * phi - 2 * off * (a * Phi + b * phi) + off**2
    np.testing.assert_allclose(co.mu0[0], m0, atol=1e-12)
    np.testing.assert_allclose(co.mu1[0], m1 / b, atol=1e-12)
    np.testing.assert_allclose(co.mu2_sq[0], m2 - m0**2 - m1**2, atol=1e-12)
    assert co.error < 1e-10


def test_cget_tanh_against_scipy():
    r, c = 2.64, 1.96
    kappa = np.array([-1.5, 0.2, 3.0])
    co = cget_coefficients("tanh", r, c, kappa)
    for i, k in enumerate(kappa):
        f = lambda z, k=k: math.tanh(r * k + math.sqrt(c) * z)  # noqa: E731
        m0 = _gauss(f)
        m1 = _gauss(lambda z, f=f: z * f(z)) / math.sqrt(c)
        m2 = _gauss(lambda z, f=f: f(z) ** 2)
        assert co.mu0[0, i] == pytest.approx(m0, abs=1e-12)
        assert co.mu1[0, i] == pytest.approx(m1, abs=1e-12)
        assert co.mu2_sq[0, i] == pytest.approx(m2 - m0**2 - c * m1**2, abs=1e-12)


def test_target_functions_sin_closed_form():
    g = 0.6
    rho = math.sqrt(1 - g * g)
    k = np.linspace(-4, 4, 9)
    tf = target_functions("sin", g, k)
    e = math.exp(-rho**2 / 2)
    np.testing.assert_allclose(tf.h, np.sin(g * k) * e, atol=1e-13)
    np.testing.assert_allclose(tf.h1t, rho * np.cos(g * k) * e, atol=1e-13)
    np.testing.assert_allclose(tf.h2t, (1 - np.cos(2 * g * k) * math.exp(-2 * rho**2)) / 2, atol=1e-13)
    t1 = target_functions("sin", 1.0, k)  # γ = 1: h = σ*(κ), h̃1 ≡ 0
    np.testing.assert_allclose(t1.h, np.sin(k), atol=1e-15)
    assert np.all(t1.h1t == 0)


def test_quadrature_rules_agree():
    # the default composite rule and a high-degree Gauss–Hermite rule give the same answer
    p = cui_to_srf(3.0, 2.0, "tanh", "sin")
    m = channel_model(p, "tanh", "sin")
    mh = channel_model(p, "tanh", "sin", rule=kappa_rule("hermite", 180))
    assert m.quadrature_error < 1e-9
    a = solve_spiked_rf(m, 1.0, 1.0, 0.01).test_error
    b = solve_spiked_rf(mh, 1.0, 1.0, 0.01).test_error
    assert a == pytest.approx(b, abs=1e-7)


# ---------------------------------------------------------------------------------------------
# Marchenko–Pastur closed-form prior integrals


def _mp_quad(u, beta):
    lo, hi = (1 - math.sqrt(beta)) ** 2, (1 + math.sqrt(beta)) ** 2
    atom = max(0.0, 1 - 1 / beta)
    # substitution x = lo + (hi − lo) sin²θ removes the square-root edges
    def dens_int(f):
        def g(t):
            x = lo + (hi - lo) * math.sin(t) ** 2
            jac = 2 * (hi - lo) * math.sin(t) * math.cos(t)
            return f(x) * math.sqrt(max((hi - x) * (x - lo), 0.0)) / (2 * math.pi * beta * x) * jac
        return integrate.quad(g, 0, math.pi / 2, epsabs=1e-15, epsrel=1e-13, limit=400)[0]
    fs = [lambda x: 1 / (1 + u * x), lambda x: x / (1 + u * x), lambda x: 1 / (1 + u * x) ** 2,
          lambda x: x / (1 + u * x) ** 2, lambda x: x * x / (1 + u * x) ** 2]
    vals = [dens_int(f) for f in fs]
    vals[0] += atom
    vals[2] += atom
    return np.array(vals)


@pytest.mark.parametrize("beta", [0.3, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("u", [0.0, 1e-7, 0.4, 3.0, 200.0])
def test_mp_moments_against_density_quadrature(beta, u):
    got = np.array(mp_resolvent_moments(u, beta))
    ref = _mp_quad(u, beta)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.5])
def test_mp_moments_against_project_stieltjes(beta):
    from asymptotics.numerics.marchenko_pastur import mp_stieltjes, mp_stieltjes_derivative

    for u in (0.05, 0.7, 6.0):
        z = -1.0 / u
        A0, A1, B0, B1, B2 = mp_resolvent_moments(u, beta)
        m, dm = mp_stieltjes(z, beta), mp_stieltjes_derivative(z, beta)
        assert A0 == pytest.approx(m / u, rel=1e-12)           # ∫ 1/(1+ux) = m(−1/u)/u
        assert B0 == pytest.approx(dm / u**2, rel=1e-11)        # ∫ 1/(1+ux)² = m'(−1/u)/u²
        assert A1 == pytest.approx((1 - A0) / u, rel=1e-10)
        assert B1 == pytest.approx((A0 - B0) / u, rel=1e-9)


def test_mp_prior_against_sampled_spectrum():
    rng = np.random.default_rng(7)
    for beta, (p, d) in ((0.5, (600, 1200)), (2.0, (1200, 600))):
        c = 1.4
        G = rng.standard_normal((p, d))
        lam = c * np.linalg.eigvalsh(G @ G.T / d)
        lam_r, V1h, V2h = 0.05, 0.8, 0.3
        S = lam_r + V2h + V1h * lam
        tr = mp_prior_traces(lam_r, V1h, V2h, c, beta)
        sampled = [np.mean(lam / S), np.mean(1 / S), np.mean(lam**2 / S**2), np.mean(lam / S**2), np.mean(1 / S**2)]
        closed = [tr.V1, tr.V2, tr.second_order[0, 0], tr.second_order[0, 1], tr.second_order[1, 1]]
        np.testing.assert_allclose(closed, sampled, rtol=1e-2)


# ---------------------------------------------------------------------------------------------
# reference values (docs/spiked-rf.md, "Accuracy and speed")


GRID = {  # (η̃, α0) → ε_g at α = 1, 3 (tanh student, p = d, λ = 0.01)
    "tanh": {(0.0, 1.0): (.3515, .1667), (1, .5): (.2872, .1409), (1, 2): (.1645, .0805), (3, 2): (.1701, .0889),
             (3, 20): (.0297, .0153), (5, 20): (.0263, .0150)},
    "sin": {(0.0, 1.0): (.4552, .2206), (1, .5): (.3883, .1916), (1, 2): (.2638, .1291), (3, 2): (.2299, .1191),
            (3, 20): (.0757, .0353), (5, 20): (.0422, .0261)},
}


@pytest.mark.parametrize("teacher", ["tanh", "sin"])
def test_reference_grid(teacher):
    for (eta, a0), ref in GRID[teacher].items():
        m = channel_model(cui_to_srf(eta, a0, "tanh", teacher), "tanh", teacher)
        sols = spiked_rf_curve(m, [1.0, 3.0], 1.0, 0.01)
        got = [s.test_error for s in sols]
        np.testing.assert_allclose(got, ref, atol=5e-5 + 1e-12), (teacher, eta, a0, got)
        assert all(s.residual < 1e-10 for s in sols)


def test_theory_table_section8():
    tanh = channel_model(cui_to_srf(5.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    sin = channel_model(cui_to_srf(3.0, 20.0, "tanh", "sin"), "tanh", "sin")
    got_t = [s.test_error for s in spiked_rf_curve(tanh, [0.5, 1.5, 3.0], 1.0, 0.01)]
    got_s = [s.test_error for s in spiked_rf_curve(sin, [0.5, 1.5, 3.0], 1.0, 0.1)]
    np.testing.assert_allclose(got_t, [0.316, 0.319, 0.191], atol=5e-4)
    np.testing.assert_allclose(got_s, [0.0463, 0.0379, 0.0325], atol=5e-5)
    rf_t = [random_features_error(a, 1.0, 0.01, "tanh", "tanh").test_error for a in (0.5, 1.5, 3.0)]
    rf_s = [random_features_error(a, 1.0, 0.1, "tanh", "sin").test_error for a in (0.5, 1.5, 3.0)]
    np.testing.assert_allclose(rf_t, [0.412, 0.254, 0.167], atol=5e-4)
    np.testing.assert_allclose(rf_s, [0.382, 0.266, 0.208], atol=5e-4)


def test_beta_not_one():
    m = channel_model(cui_to_srf(2.0, 3.0, "tanh", "sin"), "tanh", "sin")
    got = [s.test_error for s in spiked_rf_curve(m, [1.0, 3.0], 0.5, 0.05)]
    np.testing.assert_allclose(got, [0.1622, 0.1214], atol=5e-5)
    # dropping the β factors of §5 gives 0.0859 at β = 0.5, α = 1: the code is far from it
    assert abs(got[0] - 0.0859) > 0.05
    # β = 2: within the simulation error bars of §8 (0.1070 ± 0.0046, 0.0623 ± 0.0023)
    got2 = [s.test_error for s in spiked_rf_curve(m, [1.0, 3.0], 2.0, 0.05)]
    assert abs(got2[0] - 0.1070) < 2 * 0.0046 and abs(got2[1] - 0.0623) < 2 * 0.0023


def test_readout_types_section7():
    # sRF, c = 1, γ = 1, r = 1.5, λ = 0.01, α = 3, equal proportions (§7)
    got = spiked_rf(3.0, 1.0, 0.01, 1.0, 1.5, 1.0, "tanh", "sin", readout=[0.3, 1.7]).test_error
    assert got == pytest.approx(0.0147, abs=5e-5)
    he = "x + (x**3 - 3*x)/sqrt(6)"
    vals = [spiked_rf(3.0, 1.0, 0.01, 1.0, 1.5, 1.0, "tanh", he, readout=ro).test_error
            for ro in (None, [0.3, 1.7], [0.5, 1.0, 1.5])]
    np.testing.assert_allclose(vals, [1.58, 0.53, 0.18], atol=5e-3)


# ---------------------------------------------------------------------------------------------
# special cases


def _rf_risk_deterministic_equivalent(alpha, beta, lam_cui, s, t, noise=0.0):
    """Gaussian-equivalent RF ridge risk (independent derivation, Ba conventions: ψ1 = α, ψ2 = β,
    λ_Ba = λ β/α). Conditionally on W (d×N, N(0,1/d)), Σ = μ1² WᵀW + μ2² I; effective ridge κ
    with λ = κ(1 − df1), df1 = (ψ2/ψ1)(1 − κ̃ m(z*)); R = μ2*² + [μ1*² (γ m̄ − z* κ̃ m̄') + (σ² + μ2*²) df2]/(1 − df2)."""
    cs, ct = s.constants(), t.constants()
    mu1, mu2sq = cs.mu1, cs.mu2_sq
    mu1s, mu2s_sq = ct.mu1, ct.second_moment - ct.mu0**2 - ct.mu1**2
    psi1, psi2 = alpha, beta
    lam = lam_cui * beta / alpha
    g = mu2sq / mu1**2

    def m_wtw(z):  # ψ2 z m² − (1 − ψ2 − z) m + 1 = 0, positive root for z < 0
        a, b, c = psi2 * z, -(1 - psi2 - z), 1.0
        roots = np.roots([a, b, c])
        return float(max(r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0))

    def mbar(z):  # z m̄² + (1 + z − ψ2) m̄ + 1 = 0
        roots = np.roots([z, 1 + z - psi2, 1.0])
        return float(max(r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0))

    def deriv(f, z, h=1e-5):
        return (f(z - 2 * h) - 8 * f(z - h) + 8 * f(z + h) - f(z + 2 * h)) / (12 * h)

    def F(kt):
        z = -(g + kt)
        return kt * mu1**2 * (1 - (psi2 / psi1) * (1 - kt * m_wtw(z))) - lam

    kt = optimize.brentq(F, 1e-14, 1e3, xtol=1e-15, rtol=1e-15)
    z = -(g + kt)
    df2 = (psi2 / psi1) * (1 - 2 * kt * m_wtw(z) + kt**2 * deriv(m_wtw, z))
    Q, dQ = mbar(z), deriv(mbar, z)
    return mu2s_sq + (mu1s**2 * (g * Q - z * kt * dQ) + (noise**2 + mu2s_sq) * df2) / (1 - df2)


@pytest.mark.parametrize("alpha,beta,lam", [(1.0, 1.0, 0.01), (3.0, 1.0, 0.01), (0.5, 2.0, 0.1), (4.0, 0.5, 0.05)])
def test_r0_equals_random_features_risk(alpha, beta, lam):
    from asymptotics.activations import activation

    for t, noise in (("tanh", 0.0), ("softplus", 0.25)):
        sol = spiked_rf(alpha, beta, lam, 1.0, 0.0, 0.0, "tanh", t, noise=noise)
        ours = sol.test_error
        assert sol.m[0] == 0.0 and abs(sol.t[0]) < 1e-15  # μ0 ≡ 0 for odd σ at r = 0: no mean direction, no 0/0
        ref = _rf_risk_deterministic_equivalent(alpha, beta, lam, activation("tanh"), activation(t), noise)
        assert ours == pytest.approx(ref, abs=1e-7)  # finite-difference m' in the reference
        # r = 0 does not depend on γ (rotation invariance)
        assert spiked_rf(alpha, beta, lam, 1.0, 0.0, 0.8, "tanh", t, noise=noise).test_error == pytest.approx(ours, abs=1e-10)


def test_r0_equals_one_step_R0():
    import asymptotics.theory.one_step.risk_deterministic_equivalent as one_step
    from asymptotics.theory.one_step.model import OneStepModel

    for (s, t, noise) in (("tanh", "tanh", 0.0), ("tanh", "softplus", 0.25), ("erf", "relu", 0.1)):
        model = OneStepModel.from_activations(s, t, noise=noise)
        for alpha, beta, lam in ((1.0, 1.0, 0.01), (3.0, 1.0, 0.01), (4.0, 2.0, 2e-4), (0.7, 1.5, 0.3)):
            r0 = one_step.risk(model, psi1=alpha, psi2=beta, lam=ba_ridge_from_cui(lam, alpha, beta), eta=0.0).risk0
            ours = spiked_rf(alpha, beta, lam, 1.0, 0.0, 0.0, s, t, noise=noise).test_error
            assert abs(ours - r0) <= 1e-9, (s, t, alpha, beta, lam, ours, r0)
    # reference value (docs/one-step.md §3): R0 = 0.1367689 (tanh / centred SoftPlus, λ_Ba = 1e-4, ψ1 = 4, ψ2 = 2, σ_ε = 0.25)
    assert spiked_rf(4.0, 2.0, 2e-4, 1.0, 0.0, 0.0, "tanh", "softplus", noise=0.25).test_error == pytest.approx(0.1367689, abs=1e-7)


def test_isotropic_limit():
    big = one_step_spiked_rf(300.0, 1e10, 1.0, 3.0, 0.01, "tanh", "tanh")
    iso = isotropic_spiked_rf(300.0, 1.0, 0.01, 3.0, "tanh", "tanh")
    assert iso.params.gamma == 1.0 and iso.psi[0] == 0.0
    assert big.test_error == pytest.approx(iso.test_error, abs=1e-8)
    # §6: η̃ = 3, α0 → ∞, α = 300: tanh 0.0037, sin 0.0196 — below the linear floors 0.0274, 0.0645
    assert iso.test_error == pytest.approx(0.0037, abs=5e-5)
    iso_s = isotropic_spiked_rf(300.0, 1.0, 0.01, 3.0, "tanh", "sin")
    assert iso_s.test_error == pytest.approx(0.0196, abs=5e-5)
    assert iso.test_error < linear_floor("tanh") and iso_s.test_error < linear_floor("sin")


def test_linear_floor_and_rf_saturation():
    assert linear_floor("tanh") == pytest.approx(0.0274153260354303, abs=1e-13)
    assert linear_floor("sin") == pytest.approx((1 - math.exp(-2)) / 2 - math.exp(-1), abs=1e-13)
    # RF with p = d and the best λ saturates well above the floor (§6: 0.1150 / 0.1524 at α = 1000)
    for t, ref in (("tanh", 0.1150), ("sin", 0.1524)):
        res = optimize.minimize_scalar(lambda ll, t=t: random_features_error(1000.0, 1.0, 10**ll, "tanh", t).test_error,
                                       bounds=(-4, 2), method="bounded", options={"xatol": 1e-3})
        assert res.fun == pytest.approx(ref, abs=5e-4)
        assert res.fun > linear_floor(t)


def test_too_large_a_step_hurts():
    m = channel_model(cui_to_srf(5.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    m0 = channel_model(srf_parameters(1.0, 0.0, 0.0), "tanh", "tanh")

    def gap(a):
        return solve_spiked_rf(m, a, 1.0, 0.01).test_error - solve_spiked_rf(m0, a, 1.0, 0.01).test_error

    assert gap(0.5) < -0.09 and gap(1.5) > 0.06 and gap(3.0) > 0.02
    cross = optimize.brentq(gap, 0.5, 1.5, xtol=1e-10)
    assert 0.8 < cross < 1.2  # the step helps below α ≈ 1 and hurts above


# ---------------------------------------------------------------------------------------------
# an independent simulation of the sRF model (plain numpy, small d)


def _simulate_srf(d, alpha, beta, lam, c, r, gamma, seed, n_test=4000):
    rng = np.random.default_rng(seed)
    p, n = int(beta * d), int(alpha * d)
    G = rng.standard_normal((p, d))
    W = G / np.linalg.norm(G, axis=1, keepdims=True)
    v = np.eye(d)[0]
    theta = gamma * v + math.sqrt(1 - gamma**2) * np.eye(d)[1]
    F = math.sqrt(c) * W + r * np.outer(np.ones(p), v)

    def data(m):
        X = rng.standard_normal((m, d))
        return np.tanh(X @ F.T) / math.sqrt(p), np.tanh(X @ theta)

    Phi, y = data(n)
    a = np.linalg.solve(Phi.T @ Phi + lam * np.eye(p), Phi.T @ y)
    Pt, yt = data(n_test)
    return np.mean((yt - Pt @ a) ** 2), np.mean((y - Phi @ a) ** 2)


def test_against_plain_simulation():
    c, r, gamma, lam, alpha = 1.5, 2.0, 0.8, 0.05, 2.0
    th = spiked_rf(alpha, 1.0, lam, c, r, gamma, "tanh", "tanh")
    sims = np.array([_simulate_srf(400, alpha, 1.0, lam, c, r, gamma, seed) for seed in range(6)])
    mean, se = sims.mean(0), sims.std(0, ddof=1) / math.sqrt(len(sims))
    # 3 standard errors plus a 4 % finite-size allowance (d = 400)
    assert abs(mean[0] - th.test_error) < 3 * se[0] + 0.04 * th.test_error
    assert abs(mean[1] - th.train_error) < 3 * se[1] + 0.04 * th.train_error


# ---------------------------------------------------------------------------------------------
# failures are reported, never returned as numbers; bad input


def test_failure_to_converge_is_reported():
    m = channel_model(cui_to_srf(5.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    with pytest.raises(ConvergenceError):
        solve_spiked_rf(m, 1.0, 1.0, 0.0)          # interpolation threshold, λ = 0: the error diverges
    with pytest.raises(ConvergenceError):
        solve_spiked_rf(m, 1.0, 1.0, 0.0, prior="block-mp")
    with pytest.raises(ConvergenceError):
        solve_spiked_rf(m, 0.5, 1.0, 0.0)          # over-parametrised ridgeless: V → ∞
    s = solve_spiked_rf(m, 0.5, 1.0, 0.0, on_failure="return")
    assert not s.converged and s.status != 0
    row = s.as_dict()
    assert row["test_error"] is None and row["train_error"] is None and row["V1"] is None
    sols = spiked_rf_curve(m, [3.0, 1.0, 0.5], 1.0, 0.0, on_failure="return")
    assert [x.converged for x in sols] == [True, False, False]
    with pytest.raises(ConvergenceError):
        spiked_rf_curve(m, [3.0, 1.0], 1.0, 0.0)
    # tiny but positive λ at the threshold is solved (the error is large and finite)
    assert solve_spiked_rf(m, 1.0, 1.0, 1e-8).test_error > 100


def test_extreme_alpha():
    m = channel_model(cui_to_srf(5.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    lo, hi = solve_spiked_rf(m, 1e-8, 1.0, 0.01), solve_spiked_rf(m, 1e8, 1.0, 0.01)
    # α → 0: V̂ → 0, so S = λ, V1 = c/λ, V2 = 1/λ, t = ψ = q = 0, and only the zero-cost mean
    # direction is fitted (one parameter from n → ∞ samples): m = E[μ0 h w]/E[μ0² w],
    # w = 1/(1 + (c μ1² + μ2²)/λ), ε_g = E[h̃2 − 2 m μ0 h + m² μ0²]. Nested scipy quadrature:
    p, lam = m.params, 0.01
    r, c, g = p.r, p.c, p.gamma
    rho = math.sqrt(1 - g * g)

    def mus(k):
        f = lambda z: math.tanh(r * k + math.sqrt(c) * z)  # noqa: E731
        m0, m1, m2 = _gauss(f), _gauss(lambda z: z * f(z)), _gauss(lambda z: f(z) ** 2)
        return m0, m1 / math.sqrt(c), m2 - m0 * m0 - m1 * m1

    def hs(k):
        f = lambda s_: math.tanh(g * k + rho * s_)  # noqa: E731
        return _gauss(f), _gauss(lambda s_: f(s_) ** 2)

    def parts(k):
        m0, m1, m2 = mus(k)
        h, h2 = hs(k)
        w = 1 / (1 + (c * m1 * m1 + m2) / lam)
        return np.array([m0 * h * w, m0 * m0 * w, h2, m0 * h, m0 * m0])

    E = integrate.quad_vec(lambda k: parts(k) * math.exp(-k * k / 2) / math.sqrt(2 * math.pi), -9, 9,
                           epsabs=1e-12, epsrel=1e-11)[0]
    mm = E[0] / E[1]
    ref = E[2] - 2 * mm * E[3] + mm * mm * E[4]
    assert lo.test_error == pytest.approx(ref, abs=2e-8)
    assert lo.m[0] == pytest.approx(mm, abs=1e-6)
    assert abs(lo.t[0]) < 1e-6 and abs(lo.psi[0]) < 1e-6
    assert hi.converged and hi.test_error < lo.test_error


@pytest.mark.parametrize("kwargs,name", [
    ({"alpha": -1.0}, "alpha"), ({"beta": 0.0}, "beta"), ({"lam": -0.1}, "lam"), ({"gamma": 1.5}, "gamma"),
    ({"c": 0.0}, "c"), ({"r": math.nan}, "r"), ({"alpha": "x"}, "alpha"), ({"noise": -1.0}, "noise"),
])
def test_bad_input(kwargs, name):
    base = dict(alpha=1.0, beta=1.0, lam=0.01, c=1.0, r=1.0, gamma=0.5)
    base.update(kwargs)
    noise = base.pop("noise", 0.0)
    with pytest.raises(ParameterError) as e:
        spiked_rf(student="tanh", teacher="tanh", noise=noise, **base)
    assert e.value.name == name


def test_bad_network_and_readout_input():
    with pytest.raises(ParameterError):
        cui_to_srf(-1.0, 1.0, "tanh", "tanh")
    with pytest.raises(ParameterError):
        cui_to_srf(1.0, 0.0, "tanh", "tanh")
    with pytest.raises(ParameterError):
        readout_types([0.3, 1.7], [0.2, 0.2])
    with pytest.raises(ParameterError):
        readout_types([0.3, 1.7], [1.0])
    with pytest.raises(ParameterError):
        cui_to_srf(1.0, 1.0, "tanh", "foo(x)")
    m = channel_model(cui_to_srf(1.0, 1.0, "tanh", "tanh", readout=[0.5, 1.5]), "tanh", "tanh")
    with pytest.raises(ParameterError):
        solve_spiked_rf(m, 1.0, 1.0, 0.01, prior="mp")
    with pytest.raises(ParameterError):
        solve_spiked_rf(m, 1.0, 1.0, 0.01, on_failure="ignore")
    with pytest.raises(ParameterError):  # a linear student has μ2 ≡ 0: λ = 0 is singular
        spiked_rf(2.0, 1.0, 0.0, 1.0, 1.0, 0.5, "linear", "tanh")
