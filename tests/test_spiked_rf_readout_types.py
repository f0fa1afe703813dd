"""Spiked random features with K readout types and finite spectra (Cui et al. 2024 §7):
theory against independent references — the uniform readout as the K = 1 case, the continuous
type theory of the Gaussian readout, sampled matrices, and the block Marchenko–Pastur equations
derived by the symbolic pencil engine (a second derivation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from asymptotics.theory.spiked_rf import (
    channel_model,
    cui_to_srf,
    readout_types,
    solve_spiked_rf,
    spiked_rf,
)

# ---------------------------------------------------------------------------------------------
# K readout types


def test_block_equals_mp_for_one_type():
    for (eta, a0, t) in ((5.0, 1.0, "tanh"), (2.0, 3.0, "sin")):
        m = channel_model(cui_to_srf(eta, a0, "tanh", t), "tanh", t)
        for (a, b, lam) in ((0.5, 1.0, 0.01), (3.0, 0.5, 0.05), (2.0, 2.0, 0.1)):
            s1 = solve_spiked_rf(m, a, b, lam)
            s2 = solve_spiked_rf(m, a, b, lam, prior="block-mp")
            assert s2.test_error == pytest.approx(s1.test_error, abs=1e-10)
            np.testing.assert_allclose([s2.Q1[0, 0], s2.Q2[0], s2.t[0], s2.psi[0], s2.m[0]],
                                       [s1.Q1[0, 0], s1.Q2[0], s1.t[0], s1.psi[0], s1.m[0]], rtol=1e-8, atol=1e-12)


def test_two_equal_types_equal_uniform():
    u = spiked_rf(1.5, 1.0, 0.01, 1.3, 2.0, 0.7, "tanh", "sin")
    k = spiked_rf(1.5, 1.0, 0.01, 1.3, 2.0, 0.7, "tanh", "sin", readout=readout_types([1.0, 1.0], [0.3, 0.7]))
    assert k.test_error == pytest.approx(u.test_error, abs=1e-10)
    assert k.train_error == pytest.approx(u.train_error, abs=1e-10)
    assert k.t.sum() == pytest.approx(u.t[0], abs=1e-9)
    assert k.m.sum() == pytest.approx(u.m[0], abs=1e-9)


def test_quantile_types_match_continuous_type_theory():
    # docs/large-step-exact.md §1 (an independent operator-valued derivation on L²(κ)):
    # Ba protocol, erf/erf, ψ2 = 2, λ_Ba = 1e-3, σ_ε = 0.1, η = √N (c = 1), ψ1 = 8, N = ∞; readout
    # u ~ N(0, 1) by K quantile types: K = 2, 4, 8 → .0545, .0295, .0261; controls u ≡ 1: .0470,
    # u ∈ {0.5, 1.5}: .0273. Ba → Cui: α = ψ1, β = ψ2, α0 = ψ1, η̃ = c, λ = λ_Ba ψ1/ψ2.
    from scipy.stats import norm

    from asymptotics.theory.spiked_rf import cui_ridge_from_ba

    psi1, psi2, noise = 8.0, 2.0, 0.1
    lam = cui_ridge_from_ba(1e-3, psi1, psi2)
    cases = [(norm.ppf((np.arange(K) + 0.5) / K), ref) for K, ref in ((2, 0.0545), (4, 0.0295), (8, 0.0261))]
    cases += [([1.0], 0.0470), ([0.5, 1.5], 0.0273)]
    for u, ref in cases:
        p = cui_to_srf(1.0, psi1, "erf", "erf", noise, readout=readout_types(u))
        s = solve_spiked_rf(channel_model(p, "erf", "erf", noise), psi1, psi2, lam)
        assert s.test_error == pytest.approx(ref, abs=5e-5), (len(u), s.test_error)


def test_block_mp_against_sampled_matrix():
    from asymptotics.theory.spiked_rf.readout_types import block_tangent, solve_block_mp

    rng = np.random.default_rng(11)
    p, d = 1200, 800
    beta = p / d
    pi, c, D = np.array([0.4, 0.6]), np.array([1.2, 2.0]), np.array([0.3, 0.7])
    L = np.array([[0.8, 0.0], [0.5, 0.6]])
    V1h = L @ L.T
    types = np.repeat([0, 1], [int(pi[0] * p), p - int(pi[0] * p)])
    G = rng.standard_normal((p, d))
    W = np.sqrt(c[types])[:, None] * G / np.linalg.norm(G, axis=1, keepdims=True)
    Om = W @ W.T
    A = np.diag(D[types]) + Om * V1h[np.ix_(types, types)]
    Ai = np.linalg.inv(A)
    P = [types == k for k in range(2)]
    st = solve_block_mp(V1h, D, c, pi, beta)
    V2 = [np.trace(Ai[np.ix_(P[k], P[k])]) / p for k in range(2)]
    V1 = [[np.sum(Om[np.ix_(P[k], P[l])] * Ai[np.ix_(P[l], P[k])].T) / p for l in range(2)] for k in range(2)]
    np.testing.assert_allclose(st.V2, V2, rtol=4e-3)
    np.testing.assert_allclose(st.V1, V1, rtol=4e-3, atol=1e-3)
    Gs, gs = np.array([[0.3, 0.1], [0.1, 0.5]]), np.array([0.2, 0.05])
    M = Ai @ (np.diag(gs[types]) + Om * Gs[np.ix_(types, types)]) @ Ai
    Q2 = [np.trace(M[np.ix_(P[k], P[k])]) / p for k in range(2)]
    Q1 = [[np.sum(Om[np.ix_(P[k], P[l])] * M[np.ix_(P[l], P[k])].T) / p for l in range(2)] for k in range(2)]
    dV1, dV2 = block_tangent(st, Gs, gs)
    np.testing.assert_allclose(-dV2, Q2, rtol=4e-3)
    np.testing.assert_allclose(-dV1, Q1, rtol=4e-3, atol=1e-3)
    # the assembled second-order map equals the tangent formulas (on symmetric sources)
    from asymptotics.theory.spiked_rf.readout_types import block_second_order_map

    y = block_second_order_map(st) @ np.concatenate([Gs.ravel(), gs])
    np.testing.assert_allclose(y, -np.concatenate([dV1.ravel(), dV2]), rtol=1e-11, atol=1e-14)


def test_block_mp_derived_by_engine():
    import sympy as sp

    from asymptotics.theory.spiked_rf.block_mp_derivation import (
        block_mp_symbols,
        block_mp_system,
        engine_residual,
        engine_values,
    )
    from asymptotics.theory.spiked_rf.readout_types import block_tangent, solve_block_mp

    for K in (1, 2, 3):
        rng = np.random.default_rng(K)
        Lm = np.tril(rng.uniform(0.2, 1.0, (K, K)))
        V1h, D, c = Lm @ Lm.T, rng.uniform(0.2, 1.0, K), rng.uniform(1.0, 2.0, K)
        pi, beta = rng.dirichlet(np.ones(K)), 1.7
        st = solve_block_mp(V1h, D, c, pi, beta)
        assert engine_residual(K, V1h, D, c, pi, beta, st.V1, st.V2) < 1e-12
    # the engine's implicit derivatives equal the tangent formulas (second-order traces), K = 2
    K = 2
    S, s = block_mp_system(K), block_mp_symbols(K)
    g, par = engine_values(K, V1h[:2, :2], D[:2], c[:2], pi[:2] / pi[:2].sum(), 0.7,
                           *(lambda st: (st.V1, st.V2))(solve_block_mp(V1h[:2, :2], D[:2], c[:2], pi[:2] / pi[:2].sum(), 0.7)))
    st = solve_block_mp(V1h[:2, :2], D[:2], c[:2], pi[:2] / pi[:2].sum(), 0.7)
    vals = {**g, **par}
    J = np.array(S.jacobian().xreplace(vals).evalf(), dtype=float)
    Lm2 = np.linalg.cholesky(V1h[:2, :2])
    for p, direction in ((s["D"][0], "D0"), (s["D"][1], "D1"), (s["L"][1, 0], (1, 0)), (s["L"][1, 1], (1, 1))):
        dF = np.array([float(sp.diff(e, p).xreplace(vals)) for e in S.equations])
        x = dict(zip(S.unknowns, np.linalg.solve(J, -dF), strict=True))
        dV2_engine = np.array([st.pi[k] * x[sp.Symbol(f"g{k + 1}{k + 1}")] for k in range(K)])
        if isinstance(direction, str):
            Gd, gd = np.zeros((K, K)), np.eye(K)[int(direction[1])]
        else:
            E = np.zeros((K, K))
            E[direction] = 1.0
            Gd, gd = E @ Lm2.T + Lm2 @ E.T, np.zeros(K)
        np.testing.assert_allclose(block_tangent(st, Gd, gd)[1], dV2_engine, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# finite-d prior (the authors' approach)


def test_finite_spectrum_converges_to_mp():
    from asymptotics.theory.spiked_rf import Spectrum, sample_spectrum

    p_ = cui_to_srf(2.0, 3.0, "tanh", "sin")
    m = channel_model(p_, "tanh", "sin")
    mp = solve_spiked_rf(m, 1.0, 0.5, 0.05).test_error
    # deterministic quantile spectrum of c·MP(β) with F = βc, H = βλ: the finite sums → MP closed form
    beta, c, n = 0.5, p_.c, 20000
    lo, hi = (1 - math.sqrt(beta)) ** 2, (1 + math.sqrt(beta)) ** 2
    xs = np.linspace(lo, hi, 200001)
    dens = np.sqrt(np.clip((hi - xs) * (xs - lo), 0, None)) / (2 * math.pi * beta * xs)
    cdf = integrate.cumulative_trapezoid(dens, xs, initial=0)
    cdf /= cdf[-1]
    lam = c * np.interp((np.arange(n) + 0.5) / n, cdf, xs)
    spec = Spectrum(lam, np.full(n, beta * c), beta * lam)
    assert solve_spiked_rf(m, 1.0, 0.5, 0.05, prior=spec).test_error == pytest.approx(mp, abs=2e-4)
    # one sampled draw (p = 600) is within the expected ~3 % spread of the finite-d approach
    sp_ = sample_spectrum(1200, 600, c, seed=3)
    assert solve_spiked_rf(m, 1.0, 0.5, 0.05, prior=sp_).test_error == pytest.approx(mp, rel=0.08)
