"""R0, R1 and δ at η = Θ(1) by three routes (docs/one-step.md §3), limits, bad input.

Independent references: the three routes are independent derivations (Mei–Montanari's closed form;
the ridge deterministic equivalent with the effective ridge; the linear pencil derived by the
symbolic engine) and must agree to ≤ 1e-9 relative; the reference numbers of docs/one-step.md and the
theory columns of the §5/§7 tables (to the digits printed there); a direct quadrature of the
Marchenko–Pastur law for the degrees of freedom; the complex Mei–Montanari system solved directly.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from asymptotics.errors import DegenerateWarning, ParameterError
from asymptotics.solvers import Newton, root
from asymptotics.theory.one_step import OneStepModel, effective_ridge, limits, risk
from asymptotics.theory.one_step import risk_mei_montanari as mm
from asymptotics.theory.one_step import route_pencil as rc

PAIRS = [("tanh", "tanh"), ("erf", "erf"), ("tanh", "relu"), ("tanh", "softplus"), ("erf", "relu"), ("erf", "softplus")]


@pytest.fixture(scope="module")
def models():
    return {p: OneStepModel.from_activations(*p, noise=0.3) for p in PAIRS}


def _grid(rng, n):
    """ψ1, ψ2 ∈ [0.1, 20], λ ∈ [1e-4, 10] (log-uniform), η ∈ [0, 10], plus the corners."""
    p1 = np.exp(rng.uniform(np.log(0.1), np.log(20), n))
    p2 = np.exp(rng.uniform(np.log(0.1), np.log(20), n))
    lam = np.exp(rng.uniform(np.log(1e-4), np.log(10), n))
    eta = rng.uniform(0, 10, n)
    corners = np.array(np.meshgrid([0.1, 20.0], [0.1, 20.0], [1e-4, 10.0], [0.0, 10.0])).reshape(4, -1)
    return [np.concatenate([a, c]) for a, c in zip((p1, p2, lam, eta), corners, strict=True)]


def _rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))


# ------------------------------------------------------------------ the three routes agree
@pytest.mark.parametrize("pair", PAIRS)
def test_three_routes_agree(models, pair):
    m = models[pair]
    # a fixed seed per pair (hash() of strings changes between processes)
    seed = np.random.SeedSequence(zlib.crc32("/".join(pair).encode()))
    p1, p2, lam, eta = _grid(np.random.default_rng(seed), 3000)
    a = risk(m, p1, p2, lam, eta, route="A")
    b = risk(m, p1, p2, lam, eta, route="B")
    c = risk(m, p1, p2, lam, eta, route="C")
    assert _rel(a.risk0, b.risk0) <= 1e-9
    assert _rel(c.risk0, b.risk0) <= 1e-9
    assert _rel(c.risk1, b.risk1) <= 1e-9
    assert _rel(c.delta[eta > 0], b.delta[eta > 0]) <= 1e-9
    assert np.all(c.delta[eta == 0] == 0) and np.all(b.delta[eta == 0] == 0)


def test_route_c_kernel_solves_the_engine_dyson_system(models):
    """At the compiled kernel's solution, every equation of the engine's full matrix Dyson system of the
    4-block pencil — and of its tangent system in the source s — vanishes (the kernel solves the
    Schur-reduced form; this checks it against the original equations, evaluated independently)."""
    import sympy as sp

    from asymptotics.symbolic import dyson_system, implicit_derivatives

    m = models[("erf", "relu")]
    P = rc.one_step_ridge_pencil()
    S = implicit_derivatives(dyson_system(P), rc.s).subs({rc.s: 0})
    f = sp.lambdify(list(S.unknowns) + list(S.parameters), list(S.equations), "numpy")
    rng = np.random.default_rng(5)
    p1, p2, lam, eta = (a[:200] for a in _grid(rng, 200))
    th1 = eta**2 * m.mu1**2 * m.mu1_star**2
    th = th1 + eta**2 * m.mu1**2 * m.label_energy / p1
    n = p1.size
    out, st, _, _ = rc.solve_traces(p1, p2, lam, np.full(n, m.mu1**2), np.full(n, m.mu2_sq), th, th1)
    assert np.all(st == 0)
    vals = dict(out, lam=lam, psi1=p1, psi2=p2, mu1sq=np.full(n, m.mu1**2), mu2sq=np.full(n, m.mu2_sq))
    names = [str(u) for u in S.unknowns] + [str(q) for q in S.parameters]
    res = np.array(f(*(vals[k] for k in names)))
    scale = np.maximum(1.0, np.max(np.abs([vals[k] for k in names[: len(S.unknowns)]]), axis=0))
    assert np.max(np.abs(res) / scale) < 1e-10


@pytest.mark.slow
def test_route_c_kernel_agrees_with_the_engine_solver(models):
    """The compiled elementwise kernel (Schur system) vs the engine's generic lowered solver on the
    polynomial system produced by `eliminate` (the fallback path; compiling it takes minutes)."""
    m = models[("tanh", "softplus")]
    rng = np.random.default_rng(5)
    p1, p2, lam, eta = (a[:300] for a in _grid(rng, 300))
    th1 = eta**2 * m.mu1**2 * m.mu1_star**2
    th = th1 + eta**2 * m.mu1**2 * m.label_energy / p1
    args = (p1, p2, lam, np.full(p1.size, m.mu1**2), np.full(p1.size, m.mu2_sq), th, th1)
    fast, st, _, _ = rc.solve_traces(*args)
    eng, st2, _, _, moved = rc.solve_traces_engine(*args)
    assert np.all(st == 0) and np.all(st2 == 0) and np.all(moved < 1e-4)
    for k in ("g22", "g44", "dg22_ds", "dg34_ds", "corr44", "dcorr34_ds"):
        assert _rel(fast[k], eng[k]) < 1e-9, k


# ------------------------------------------------------------------ reference values
def test_reference_R0_all_routes():
    m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
    for route in "ABC":
        assert round(risk(m, 4.0, 2.0, 1e-4, 3.0, route=route).risk0, 7) == 0.1367689


def test_reference_delta():
    m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    for route in "BC":
        assert round(risk(m, 1.0, 0.5, 0.1, 3.0, route=route).delta, 4) == 0.0951


@pytest.mark.parametrize("pair,noise,lam,psi1,psi2,eta,r0,r1,delta", [
    # the simulation table of docs/one-step.md §3, theory columns
    (("tanh", "softplus"), 0.25, 1e-4, 4, 2, 3, 0.137, 0.129, 0.0083),
    (("tanh", "relu"), 0.1, 1e-2, 5, 1, 2, 0.184, 0.169, 0.0151),
    (("erf", "erf"), 0.1, 1e-3, 3, 2, 2, 0.212, 0.192, 0.0205),
    (("tanh", "tanh"), 0.1, 0.1, 1, 0.5, 3, 0.332, 0.236, 0.0951),
])
def test_section5_table(pair, noise, lam, psi1, psi2, eta, r0, r1, delta):
    # to one unit in the last printed digit (the notes' R1 = 0.129 is R0 − δ of rounded values: 0.12849)
    r = risk(OneStepModel.from_activations(*pair, noise=noise), psi1, psi2, lam, eta, route="C")
    assert abs(r.risk0 - r0) <= 1e-3 and abs(r.risk1 - r1) <= 1e-3
    assert abs(r.delta - delta) <= 10.0 ** -len(str(delta).split(".")[1])


def test_section7_predictions():
    """§7 predicted values, to one unit in the last printed digit (they are rounded from R0 − δ)."""
    # (a) tanh / centred SoftPlus, ψ2 = 2, λ = 1e-4, σ_ε = 0.25
    m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
    psi1 = np.array([0.5, 1, 3, 4, 6, 10, 20])
    r = risk(m, psi1, 2.0, 1e-4, 4.0, route="C")
    assert np.allclose(r.risk0, [0.277, 0.314, 0.232, 0.137, 0.088, 0.063, 0.049], rtol=0, atol=1e-3)
    assert np.allclose(r.risk1, [0.243, 0.288, 0.216, 0.125, 0.079, 0.055, 0.042], rtol=0, atol=1e-3)
    assert round(risk(m, 2.0, 2.0, 1e-4, 0.0).risk0, 2) == 1.17  # the double-descent peak
    # (b) tanh / centred ReLU, ψ1 = 5, λ = 1e-2, σ_ε = 0.1
    m = OneStepModel.from_activations("tanh", "relu", noise=0.1)
    psi2 = np.array([0.25, 0.5, 1, 2, 4, 8, 16, 64])
    r = risk(m, 5.0, psi2, 1e-2, 2.0, route="C")
    assert np.allclose(r.risk0, [0.298, 0.255, 0.184, 0.151, 0.163, 0.168, 0.148, 0.123], rtol=0, atol=1e-3)
    want = [0.047, 0.035, 0.015, 0.0033, 0.0008, 0.0002]
    for got, w in zip(r.delta[:6], want, strict=True):
        assert abs(got - w) <= 10.0 ** -len(str(w).split(".")[1])
    assert np.all(r.delta[6:] < 5e-5)  # "≈ 0"


def test_limit_examples_of_the_notes():
    m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
    d = limits.delta_infinite_samples(m, 2.0, 0.01, np.array([0.5, 1, 2, 4, 8, 16]))
    want = [0.00018, 0.00068, 0.0024, 0.0068, 0.0122, 0.0152]
    for got, w in zip(d, want, strict=True):
        assert round(got, len(str(w).split(".")[1])) == w
    m = OneStepModel.from_activations("tanh", "relu", noise=0.1)
    psi2 = np.array([0.25, 0.5, 1, 2, 4, 8, 16, 32])
    d = risk(m, 5.0, psi2, 0.01, 4.0).delta
    want = [0.100, 0.075, 0.034, 0.0085, 0.0025, 0.0007, 0.0002, 0.000045]
    for got, w in zip(d, want, strict=True):
        assert abs(got - w) <= 0.5 * 10.0 ** -(len(f"{w:f}".rstrip("0").split(".")[1])) + 1e-12


# ------------------------------------------------------------------ route A: branch of the complex fixed point
def _mm_complex_residual(nu, xi, p1, p2, zeta):
    n1, n2 = nu
    d = 1 - zeta**2 * n1 * n2
    return np.array([n1 - p1 / (-xi - n2 - zeta**2 * n2 / d), n2 - p2 / (-xi - n1 - zeta**2 * n1 / d)])


def test_route_a_branch_is_the_analytic_one():
    """On ξ = iy every solution with ν_j ∈ iℝ has a_j = (p_j − φ(P))/y with P = a1a2 a root of the quartic
    y²P(1 + ζ²P)² = Π_j [p_j(1 + ζ²P) − P(1 + ζ² + ζ²P)]. Enumerate them all: each solves the complex
    system; exactly one has Im ν1, Im ν2 > 0 (the branch analytic in ℂ₊), it is route A's, and it is
    the only one that reproduces route B."""
    from numpy.polynomial import Polynomial as Poly

    m = OneStepModel.from_activations("tanh", "relu", noise=0.1)
    right = risk(m, 3.0, 1.5, 0.05, route="B").risk0
    prm = mm.mm_parameters(m, 3.0, 1.5, 0.05)
    p1, p2, z2, y = float(prm.p1), float(prm.p2), prm.zeta**2, float(prm.y)
    Pv = Poly([0, 1])
    one = 1 + z2 * Pv
    phi_num = Pv * (1 + z2 + z2 * Pv)
    quartic = y * y * Pv * one**2 - (p1 * one - phi_num) * (p2 * one - phi_num)
    roots = quartic.roots()
    analytic = []
    for P in roots:
        phi = P + z2 * P / (1 + z2 * P)
        nu = np.array([1j * (p1 - phi) / y, 1j * (p2 - phi) / y])
        assert np.max(np.abs(_mm_complex_residual(nu, 1j * y, p1, p2, prm.zeta))) < 1e-8
        E0, E1, E2 = mm.mm_polynomials(nu[0] * nu[1], p1, p2, prm.zeta)
        r0 = m.mu1_star**2 * E1 / E0 + m.effective_noise_sq * E2 / E0 + m.mu2_star_sq
        if abs(P.imag) < 1e-12 and nu[0].imag > 0 and nu[1].imag > 0:
            analytic.append(r0)
        else:
            assert abs(r0 - right) > 1e-3 * right  # every other branch gives a wrong risk
    assert len(analytic) == 1 and abs(analytic[0].real - right) < 1e-12 * right
    assert abs(mm.risk0(m, 3.0, 1.5, 0.05) - right) < 1e-12 * right
    # the complex system solved directly (Newton from a perturbed start) lands on the same branch
    nu1, nu2 = mm.mm_nu(prm)
    start = np.array([complex(nu1) * (1.3 - 0.2j), complex(nu2) * (0.75 + 0.1j)])
    sol = root(_mm_complex_residual, start, args=(1j * y, p1, p2, prm.zeta), solver=Newton())
    assert np.allclose(sol.value, [complex(nu1), complex(nu2)], atol=1e-10)


# ------------------------------------------------------------------ effective ridge: independent quadrature
def test_degrees_of_freedom_by_quadrature():
    """df1 = 1 − λ/κ and df2 against a direct quadrature of the MP(ψ2) law (density + atom)."""
    from scipy.integrate import quad

    from asymptotics.numerics.marchenko_pastur import mp_density, mp_edges

    m = OneStepModel.from_activations("erf", "relu", noise=0.2)
    for psi1, psi2, lam in ((2.0, 0.5, 0.01), (0.7, 3.0, 0.3), (5.0, 5.0, 1e-3)):
        er = effective_ridge(m, psi1, psi2, lam)
        lo, hi = mp_edges(psi2)
        a, b = m.mu1**2, m.mu2_sq
        atom = max(0.0, 1 - 1 / psi2)

        def moment(k, a=a, b=b, kappa=er.kappa, lo=lo, hi=hi, psi1=psi1, psi2=psi2, atom=atom):
            def f(t):
                return ((a * t + b) / (a * t + b + kappa)) ** k * mp_density(t, psi2)

            val = quad(f, lo, hi, limit=200, epsabs=1e-13)[0]
            return psi2 / psi1 * (val + atom * (b / (b + kappa)) ** k)

        assert abs(moment(1) - er.df1) < 1e-8 and abs(er.df1 - (1 - lam / er.kappa)) < 1e-12
        assert abs(moment(2) - er.df2) < 1e-8


# ------------------------------------------------------------------ limits
def test_psi1_to_infinity(models):
    m = models[("tanh", "softplus")]
    for psi2, lam, eta in ((2.0, 0.01, 3.0), (0.5, 1.0, 8.0), (7.0, 1e-3, 1.0)):
        r = risk(m, 1e9, psi2, lam, eta)
        assert abs(r.risk0 - limits.risk0_infinite_samples(m, psi2, lam)) < 1e-6
        assert abs(r.delta - limits.delta_infinite_samples(m, psi2, lam, eta)) < 1e-6 * max(1, r.delta) + 1e-9
    d0 = limits.delta_infinite_samples_ridgeless(m, 2.0, 4.0)
    assert abs(limits.delta_infinite_samples(m, 2.0, 1e-10, 4.0) - d0) < 1e-8


def test_psi2_to_infinity(models):
    m = models[("tanh", "relu")]
    for psi1, eta in ((5.0, 4.0), (0.5, 2.0)):
        big = np.array([1e5, 1e6])
        r = risk(m, psi1, big, 0.01, eta)
        C = limits.delta_infinite_width_coefficient(m, psi1, eta)
        assert abs(r.delta[1] * 1e6 - C) < 2e-3 * C
        assert abs(r.risk0[1] - limits.risk0_infinite_width(m, psi1)) < 1e-4
        assert abs(r.kappa[1] / (m.mu1**2 * 1e6) - limits.infinite_width_ridge(m, psi1)) < 1e-3


# ------------------------------------------------------------------ bad and degenerate input
def test_interpolation_threshold_ridgeless_is_a_clear_error(models):
    m = models[("tanh", "tanh")]
    for route in "ABC":
        with pytest.raises(ParameterError, match="lam"):
            risk(m, 2.0, 2.0, 0.0, 1.0, route=route)
    # off the threshold the ridgeless limit is finite (routes A and B agree there)
    a, b = risk(m, [0.5, 4.0], 2.0, 0.0, route="A"), risk(m, [0.5, 4.0], 2.0, 0.0, route="B")
    assert np.all(np.isfinite(b.risk0)) and _rel(a.risk0, b.risk0) < 1e-10
    with pytest.raises(ParameterError, match="route C"):
        risk(m, 0.5, 2.0, 0.0, route="C")


def test_mu1_zero_is_degenerate_with_a_warning():
    m = OneStepModel.from_activations("he3", "tanh", noise=0.2)
    for route in "BC":
        with pytest.warns(DegenerateWarning):
            r = risk(m, [0.5, 2.0, 5.0], 1.5, 0.01, 3.0, route=route)
        assert np.all(r.delta == 0) and np.all(r.risk1 == r.risk0)
        # independent: Mei–Montanari with ζ = μ1/μ2 = 0
        assert _rel(r.risk0, mm.risk0(m, [0.5, 2.0, 5.0], 1.5, 0.01)) < 1e-10


def test_bad_parameters(models):
    m = models[("tanh", "tanh")]
    with pytest.raises(ParameterError, match="psi1"):
        risk(m, 0.0, 1.0, 0.1)
    with pytest.raises(ParameterError, match="lam"):
        risk(m, 1.0, 1.0, -0.1)
    with pytest.raises(ParameterError, match="route"):
        risk(m, 1.0, 1.0, 0.1, route="D")
    with pytest.raises(ParameterError, match="eta"):
        risk(m, 1.0, 1.0, 0.1, eta=np.inf)


def test_route_c_pencil_schur_identities_at_finite_size():
    """The 4-block pencil is what the docstring says, exactly at finite size (no limit involved):
    (Q⁻¹)₁₁ = λG, (Q⁻¹)₂₂ = I − F'GF'ᵀ/ψ1, (Q⁻¹)₄₄ = I − μ1 W G F'ᵀX'/ψ1 (s = 0) and
    (Q⁻¹)₃₄ = [−μ1² X'ᵀ(I − F'GF'ᵀ/ψ1)X' + λs μ1³ X'ᵀF'GWᵀ]/(λψ1), G = (F'ᵀF'/ψ1 + λ + λsΣ)⁻¹."""
    rng = np.random.default_rng(2)
    d, p1, p2 = 40, 1.5, 2.0
    n, N = int(p1 * d), int(p2 * d)
    mu1, mu2sq, lam = 0.6, 0.05, 0.3
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    W = rng.standard_normal((d, N)) / np.sqrt(d)
    Z = rng.standard_normal((n, N)) / np.sqrt(d)
    Fp = mu1 * X @ W + np.sqrt(mu2sq) * Z
    Sigma = mu1**2 * W.T @ W + mu2sq * np.eye(N)
    P = rc.one_step_ridge_pencil()
    for sv in (0.0, 0.2):
        vals = {rc.lam: lam, rc.psi1: p1, rc.psi2: p2, rc.mu1sq: mu1**2, rc.mu2sq: mu2sq, rc.s: sv}
        Qi = np.linalg.inv(P.dense([N, n, d, d], {"Z": Z, "X": X, "W": W}, vals))
        o = np.cumsum([0, N, n, d, d])
        blk = lambda i, j, Qi=Qi, o=o: Qi[o[i]:o[i + 1], o[j]:o[j + 1]]  # noqa: E731
        G = np.linalg.inv(Fp.T @ Fp / p1 + lam * np.eye(N) + lam * sv * Sigma)
        B22 = np.eye(n) - Fp @ G @ Fp.T / p1
        assert np.allclose(blk(0, 0), lam * G, atol=1e-10)
        assert np.allclose(blk(1, 1), B22, atol=1e-10)
        B34 = (-mu1**2 * X.T @ B22 @ X + lam * sv * mu1**3 * X.T @ Fp @ G @ W.T) / (lam * p1)
        assert np.allclose(blk(2, 3), B34, atol=1e-9)
        if sv == 0:
            assert np.allclose(blk(3, 3), np.eye(d) - mu1 * W @ G @ Fp.T @ X / p1, atol=1e-10)
