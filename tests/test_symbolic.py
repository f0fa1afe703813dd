"""The symbolic engine against independent references: the Marchenko–Pastur equation
(docs/engine.md §7), Adlam–Pennington's S67/S68 pair and check values (docs/engine.md §5), the
"nested MP" route (scipy quad over the MP density, written out here), the source-parameter
definition of τ2, finite-size pencils; and the solvers' term-scaled stopping rule on a scaled
copy of the RF-traces system, whose unknowns are of size 10⁵–10⁸."""

import math

import numpy as np
import pytest
import sympy as sp
from scipy import integrate, optimize
from typer.testing import CliRunner

from asymptotics import activation
from asymptotics.errors import ParameterError
from asymptotics.numerics.marchenko_pastur import gram_stieltjes, gram_stieltjes_derivative
from asymptotics.solvers import Newton, root
from asymptotics.symbolic import (
    LATEX_NAMES,
    EquationSystem,
    Gaussian,
    Pencil,
    dyson_system,
    eliminate,
    get_system,
    implicit_derivatives,
    list_systems,
    mp_pencil,
    polynomial_reduce,
    rf_ridge_pencil,
    self_energy,
    support,
    trace_matrix,
)

z, psi2, lam, phi, psi, eta, zeta, s = sp.symbols("z psi2 lam phi psi eta zeta s")
g11, g22, g55 = sp.symbols("g11 g22 g55")


def ap_constants(name):
    c = activation(name, center=True).constants()
    return {"eta": c.second_moment, "zeta": c.mu1**2}  # η_AP = E σ² (centred), ζ = μ1²


def solve_lambdified(system, values, x0, rtol=1e-14):
    """Solve a symbolic system with sympy.lambdify + the Python Newton solver (no codegen); the
    stopping rule scales each equation by the size of its terms, s_i = Σ_k |t_ik|."""
    sub = {sp.Symbol(k): v for k, v in values.items()}
    eqs = [sp.expand(e.subs(sub)) for e in system.equations]
    F = sp.lambdify([system.unknowns], eqs)
    J = sp.lambdify([system.unknowns], system.jacobian().subs(sub))
    terms = [e.args if e.is_Add else (e,) for e in eqs]
    T = sp.lambdify([system.unknowns], [list(ts) for ts in terms])
    r = root(
        lambda x: np.array(F(x), dtype=float),
        np.asarray(x0, float),
        jac=lambda x: np.array(J(x), dtype=float),
        scale=lambda x: np.array([np.sum(np.abs(np.asarray(t, dtype=float))) for t in T(x)]),
        solver=Newton(atol=1e-14, rtol=rtol),
    )
    return r.value


def S67_S68(t1, t2, phi, psi, lam, eta, zeta):
    """Adlam–Pennington's polynomial pair (their eqs. S67–S68; docs/engine.md §5)."""
    a = phi * (zeta * t2 * t1 + phi * (t2 - t1)) + zeta * t1 * t2 * psi * (lam * t1 - 1)
    b = (t2 - t1) * phi * (zeta * (t2 - t1) + eta * t1) - zeta * t1 * t2 * (lam * t1 - 1)
    return a, b


def nested_mp(phi_, psi_, lam_, eta_, zeta_):
    """The 'nested MP' route (docs/engine.md §5): x ~ MP(1/φ), c(x) = ζx + η − ζ,
    e = (ψ/φ) E[c/(λ + c/(1+e))], τ1 = E[1/(λ + c/(1+e))], τ2 = E[x/(λ + c/(1+e))]."""
    g = 1 / phi_
    lo, hi = (1 - math.sqrt(g)) ** 2, (1 + math.sqrt(g)) ** 2
    atom = max(0.0, 1 - 1 / g)
    cen, rad = (lo + hi) / 2, (hi - lo) / 2

    def E(f):
        # density √((hi − x)(x − lo))/(2πγx), with x = cen + rad cos θ
        val, _ = integrate.quad(
            lambda t: (
                f(cen + rad * math.cos(t))
                * rad**2
                * math.sin(t) ** 2
                / (2 * math.pi * g * (cen + rad * math.cos(t)))
            ),
            0,
            math.pi,
            epsabs=1e-13,
            epsrel=1e-12,
            limit=200,
        )
        return val + atom * f(0.0)

    def c(x):
        return zeta_ * x + eta_ - zeta_

    e = optimize.brentq(
        lambda e: e - (psi_ / phi_) * E(lambda x: c(x) / (lam_ + c(x) / (1 + e))), 0.0, 1e9, xtol=1e-15
    )
    t1 = E(lambda x: 1 / (lam_ + c(x) / (1 + e)))
    t2 = E(lambda x: x / (lam_ + c(x) / (1 + e)))
    return t1, t2


# ------------------------------------------------------------------------------------- MP
def test_mp_self_energy_and_dyson_equations_match_the_note():
    P = mp_pencil()
    G = trace_matrix(P)
    assert self_energy(P, G) == sp.Matrix([[psi2 * g22, 0], [0, g11]])  # S[1,1] = ψ2 g22, S[2,2] = g11
    S = get_system("mp_gram")
    # the note: g11 = 1/(−z − ψ2 g22), g22 = −1/(1 + g11)
    sol = sp.solve(S.equations, [g11, g22], dict=True)
    for so in sol:
        assert sp.simplify(so[g11] - 1 / (-z - psi2 * so[g22])) == 0
        assert sp.simplify(so[g22] + 1 / (1 + so[g11])) == 0


def test_engine_derives_the_mp_quadratic():
    (eq,) = get_system("mp_gram_reduced").equations
    target = z * g11**2 + (1 + z - psi2) * g11 + 1  # z m̄² + (1 + z − ψ2) m̄ + 1 (docs/engine.md §7)
    ratio = sp.cancel(eq / target)
    assert ratio.free_symbols.isdisjoint({g11}) and ratio != 0  # equal up to a factor free of m̄
    # the same by a Gröbner basis of the unreduced Dyson system (lex, g22 > g11)
    basis = polynomial_reduce(get_system("mp_gram"), order=[g22, g11])
    last = [b for b in basis if b.free_symbols & {g11} and not b.free_symbols & {g22}]
    assert last and sp.cancel(last[0] / target).free_symbols.isdisjoint({g11})


def test_mp_implicit_derivative_matches_the_closed_form():
    D = get_system("mp_gram_dz")
    for zz, p2 in [(-0.5, 0.5), (-2.0, 3.0), (-0.05, 1.5)]:
        mb = gram_stieltjes(zz, p2)
        # tangent equation solved at the exact m̄: one linear equation in dg11_dz
        (d,) = sp.solve(D.equations[1].subs({g11: mb, z: zz, psi2: p2}), sp.Symbol("dg11_dz"))
        ref = mb**2 * (1 + mb) ** 2 / ((1 + mb) ** 2 - p2 * mb**2)  # from z(m̄) = ψ2/(1 + m̄) − 1/m̄
        assert abs(float(d) - ref) < 1e-12 * abs(ref)
        assert abs(float(d) - gram_stieltjes_derivative(zz, p2)) < 1e-12 * abs(ref)


# ------------------------------------------------------------------------------- RF pencil
def test_rf_pencil_schur_complement_at_finite_size():
    """(Q⁻¹)₁₁ = (λ + s XᵀX/d + K)⁻¹ and (Q⁻¹)₅₅ = I − s X' R X'ᵀ exactly, for both source forms."""
    d, n, m = 30, 20, 36
    rng = np.random.default_rng(np.random.SeedSequence(7))
    X = rng.standard_normal((d, n)) / math.sqrt(d)
    W = rng.standard_normal((m, d)) / math.sqrt(d)
    Th = rng.standard_normal((m, n)) / math.sqrt(d)
    vals = dict(lam=0.1, phi=d / n, psi=d / m, eta=0.34, zeta=0.25, s=0.3)
    F = math.sqrt(0.25) * W @ X + math.sqrt(0.34 - 0.25) * Th  # Gaussian equivalent F'
    R = np.linalg.inv(0.1 * np.eye(n) + 0.3 * X.T @ X + F.T @ F * d / m)
    for P in (rf_ridge_pencil(), rf_ridge_pencil(sqrt_source=True)):
        Qi = np.linalg.inv(P.dense([n, m, d, d, d], {"X": X, "W": W, "Theta": Th}, vals))
        np.testing.assert_allclose(Qi[:n, :n], R, atol=1e-12)
        o = n + m + 2 * d
        np.testing.assert_allclose(Qi[o:, o:], np.eye(d) - 0.3 * X @ R @ X.T, atol=1e-12)


def test_rf_dyson_support_and_reduction():
    P = rf_ridge_pencil()
    sup = support(P)
    assert (0, 0) in sup and (1, 1) in sup and (0, 1) not in sup  # n- and m-blocks do not mix
    assert {(i, j) for i in (2, 3, 4) for j in (2, 3, 4)} <= sup  # the three d-blocks do
    red = get_system("rf_ridge")
    assert red.unknowns == (g11, g22) and len(red.equations) == 2


@pytest.mark.parametrize(
    "act,t1_ref,t2_ref,tol", [("relu", 3.598963, None, 5e-7), ("tanh", 3.6985, 2.3107, 5e-5)]
)
def test_rf_traces_reference_values(act, t1_ref, t2_ref, tol):
    T = get_system("rf_ridge_traces")
    vals = dict(lam=0.1, phi=1.5, psi=0.8, **ap_constants(act))
    x = solve_lambdified(T, vals, [1 / 0.1, 1, 0, 0])
    out = {
        k: float(
            v.subs({sp.Symbol(a): b for a, b in vals.items()}).subs(dict(zip(T.unknowns, x, strict=True)))
        )
        for k, v in T.outputs.items()
    }
    assert abs(out["tau1"] - t1_ref) < tol
    if t2_ref is not None:
        assert abs(out["tau2"] - t2_ref) < tol


POINTS = [  # (phi, psi, lam, activation)
    (1.5, 0.8, 0.1, "relu"),
    (1.5, 0.8, 0.1, "tanh"),
    (0.5, 2.0, 1e-3, "erf"),
    (3.0, 0.3, 2.0, "softplus"),
    (1.0, 1.0, 1e-2, "relu"),
]


@pytest.mark.parametrize("phi_,psi_,lam_,act", POINTS)
def test_rf_traces_satisfy_S67_S68_and_the_nested_mp_route(phi_, psi_, lam_, act):
    T = get_system("rf_ridge_traces")
    vals = dict(lam=lam_, phi=phi_, psi=psi_, **ap_constants(act))
    x = solve_lambdified(T, vals, [1 / lam_, 1, 0, 0])
    sub = {sp.Symbol(a): b for a, b in vals.items()} | dict(zip(T.unknowns, x, strict=True))
    t1, t2 = (float(T.outputs[k].subs(sub)) for k in ("tau1", "tau2"))
    a, b = S67_S68(t1, t2, phi_, psi_, lam_, vals["eta"], vals["zeta"])
    assert abs(a) <= 1e-10 * max(1, t1**3) and abs(b) <= 1e-10 * max(1, t1**3)
    n1, n2 = nested_mp(phi_, psi_, lam_, vals["eta"], vals["zeta"])
    assert abs(t1 - n1) < 1e-9 * t1 and abs(t2 - n2) < 1e-9 * t2


SCALED = [(0.5, 2.0, 1e-3, "erf"), (0.5, 2.0, 1e-4, "erf"), (0.5, 0.5, 1e-4, "relu"), (0.5, 0.5, 1e-4, "tanh")]


@pytest.mark.parametrize("phi_,psi_,lam_,act", SCALED)
def test_scaled_rf_traces_converge_by_the_term_scaled_rule(phi_, psi_, lam_, act):
    """The RF-traces system with its equations multiplied by 2^40 (exact: the same roots and the
    same rounding pattern, terms of size ≥ 10¹²) at small λ (unknowns of size 10⁵–4·10⁷): a
    residual can only be compared with its terms, not with the unknowns. Solved by the compiled
    generated module with the term-scaled rule, τ1, τ2 satisfy S67/S68 and match the nested-MP
    route."""
    from asymptotics.solvers import compile_system

    T = get_system("rf_ridge_traces")
    S = T.with_(name="rf_ridge_traces_scaled", equations=tuple(2**40 * e for e in T.equations))
    vals = dict(lam=lam_, phi=phi_, psi=psi_, **ap_constants(act))
    sol = compile_system(S).solve(**vals, atol=1e-300, rtol=1e-13)
    assert sol.converged and sol.result.status == 0
    assert max(abs(v) for v in sol.values.values()) > 1e4  # components of size 10⁵–10⁸ and more
    t1, t2 = sol["tau1"], sol["tau2"]
    a, b = S67_S68(t1, t2, phi_, psi_, lam_, vals["eta"], vals["zeta"])
    assert abs(a) <= 1e-9 * max(1, t1**3) and abs(b) <= 1e-9 * max(1, t1**3)
    n1, n2 = nested_mp(phi_, psi_, lam_, vals["eta"], vals["zeta"])
    assert abs(t1 - n1) < 1e-8 * t1 and abs(t2 - n2) < 1e-8 * t2


def test_tau2_by_implicit_differentiation_matches_the_source_definition():
    """τ2 = lim_{s→0} (1 − g55(s))/(s n/d), n/d = 1/φ: solve the s-system at small s (Richardson)."""
    src = get_system("rf_ridge_source")
    T = get_system("rf_ridge_traces")
    vals = dict(lam=0.1, phi=1.5, psi=0.8, **ap_constants("tanh"))
    x = solve_lambdified(T, vals, [10, 1, 0, 0])
    tau2 = float(
        T.outputs["tau2"].subs(
            {sp.Symbol(a): b for a, b in vals.items()} | dict(zip(T.unknowns, x, strict=True))
        )
    )
    g55_expr = src.expand_eliminated(g55)

    def quotient(sv):
        v = dict(vals, s=sv)
        xs = solve_lambdified(src, v, x[:2])
        g = float(
            g55_expr.subs({sp.Symbol(a): b for a, b in v.items()} | dict(zip(src.unknowns, xs, strict=True)))
        )
        return (1 - g) / (sv / vals["phi"])

    q1, q2 = quotient(1e-4), quotient(2e-4)
    richardson = 2 * q1 - q2  # removes the O(s) term
    assert abs(richardson - tau2) < 1e-6
    assert abs(tau2 - 2.3107) < 5e-5


def test_sqrt_source_form_gives_the_same_g55():
    """The symmetric √s pencil (docs/engine.md §2) and the library's polynomial-in-s form agree at s > 0."""
    vals = dict(lam=0.3, phi=1.2, psi=0.7, eta=0.4, zeta=0.2, s=0.05)
    out = []
    for P in (rf_ridge_pencil(), rf_ridge_pencil(sqrt_source=True)):
        S = eliminate(dyson_system(P, outputs={"g55": g55}), keep=[g11, g22])
        x = solve_lambdified(S, vals, [1 / 0.3, 1])
        out.append(
            float(
                S.expand_eliminated(g55).subs(
                    {sp.Symbol(a): b for a, b in vals.items()} | dict(zip(S.unknowns, x, strict=True))
                )
            )
        )
    assert abs(out[0] - out[1]) < 1e-12


def test_reduced_solution_solves_the_full_dyson_system():
    full = get_system("rf_ridge_dyson")
    red = get_system("rf_ridge_source")
    vals = dict(lam=0.2, phi=1.5, psi=0.8, eta=0.4, zeta=0.3, s=0.1)
    x = solve_lambdified(red, vals, [5, 1])
    sub = {sp.Symbol(a): b for a, b in vals.items()} | dict(zip(red.unknowns, x, strict=True))
    allv = {
        u: float(red.expand_eliminated(u).subs(sub)) if u in red.eliminated else float(u.subs(sub))
        for u in full.unknowns
    }
    res = [float(e.subs(sub).subs(allv)) for e in full.equations]
    assert max(abs(r) for r in res) < 1e-12


def test_rf_traces_against_a_small_monte_carlo():
    """Finite-size pencil with the Gaussian-equivalent features, d = 300 (2 seeds): τ1 within a
    statistical tolerance (fluctuations and bias are O(1/d))."""
    d = 300
    n, m = 200, 375  # φ = 1.5, ψ = 0.8
    vals = dict(lam=0.1, phi=1.5, psi=0.8, **ap_constants("relu"))
    ests = []
    for seed in np.random.SeedSequence(11).spawn(2):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((d, n)) / math.sqrt(d)
        W = rng.standard_normal((m, d)) / math.sqrt(d)
        Th = rng.standard_normal((m, n)) / math.sqrt(d)
        F = math.sqrt(vals["zeta"]) * W @ X + math.sqrt(vals["eta"] - vals["zeta"]) * Th
        ests.append(np.trace(np.linalg.inv(0.1 * np.eye(n) + F.T @ F * d / m)) / n)
    assert abs(np.mean(ests) - 3.598963) < 0.05 * 3.598963


# ------------------------------------------------------------------ engine mechanics & errors
def test_implicit_derivative_explicit_and_augmented_forms_agree():
    S = get_system("rf_ridge")
    aug = implicit_derivatives(S, lam, outputs=["tau1"])
    exp = implicit_derivatives(S, lam, outputs=["tau1"], method="explicit")
    vals = dict(lam=0.1, phi=1.5, psi=0.8, eta=0.34, zeta=0.25)
    x = solve_lambdified(aug, vals, [10, 1, 0, 0])
    sub = {sp.Symbol(a): b for a, b in vals.items()} | dict(zip(aug.unknowns, x, strict=True))
    d_aug = float(aug.outputs["dtau1_dlam"].subs(sub))
    d_exp = float(exp.outputs["dtau1_dlam"].subs(sub))
    assert abs(d_aug - d_exp) < 1e-10 * abs(d_aug)
    # and both equal the derivative of τ1(λ) from two solves (a check of the mechanics only)
    h = 1e-5
    t = [solve_lambdified(S, dict(vals, lam=0.1 + k * h), x[:2])[0] for k in (-1, 1)]
    assert abs((t[1] - t[0]) / (2 * h) - d_aug) < 1e-5 * abs(d_aug)
    assert d_aug < 0  # dτ1/dλ = −tr(K + λ)⁻²/n < 0


def test_resultant_elimination_is_square_free():
    x, y = sp.symbols("x y")
    R = eliminate(EquationSystem("t", (x, y), (x**2 - y, x**2 + y**2 - 2)), keep=[y])
    # x² = y and y + y² = 2: y ∈ {1, −2}; the resultant (y² + y − 2)² is reduced to its square-free part
    assert sp.expand(R.equations[0] - (y**2 + y - 2)) == 0 or sp.expand(R.equations[0] + (y**2 + y - 2)) == 0
    assert "resultant" in R.notes[-1]


def test_pencil_validation():
    with pytest.raises(ParameterError, match="q0"):
        Pencil("bad", (1, psi2), sp.eye(3), ())
    with pytest.raises(ParameterError, match="couple blocks of equal size"):
        Pencil("bad", (1, psi2), sp.Matrix([[1, 1], [0, 1]]), ())
    with pytest.raises(ParameterError, match="shape"):
        Pencil("bad", (1, psi2, 2), sp.eye(3), (Gaussian("W", 1, 2), Gaussian("W", 1, 3)))
    with pytest.raises(ParameterError, match="block index"):
        Pencil("bad", (1, 1), sp.eye(2), (Gaussian("W", 1, 3),))
    with pytest.raises(ParameterError, match="keep"):
        eliminate(get_system("mp_gram"), keep=["nope"])
    with pytest.raises(ParameterError, match="wrt"):
        implicit_derivatives(get_system("mp_gram"), lam)
    with pytest.raises(ParameterError, match="equations"):
        EquationSystem("bad", (g11, g22), (g11,))
    with pytest.raises(ParameterError, match="system"):
        get_system("no_such_system")


def test_latex_and_registry():
    assert {"mp_gram", "mp_gram_reduced", "rf_ridge", "rf_ridge_traces"} <= set(list_systems())
    tex = get_system("rf_ridge_traces").latex(symbol_names=LATEX_NAMES)
    assert tex.startswith("\\begin{aligned}") and "\\lambda" in tex and "\\partial_{s} g_{11}" in tex
    assert "\\mathrm{tau2}" in tex
    ptex = rf_ridge_pencil().latex(LATEX_NAMES)
    assert "\\Theta^{\\top}" in ptex and "\\lambda\\,I" in ptex


def test_derive_command():
    from asymptotics.cli.app import app

    runner = CliRunner()
    r = runner.invoke(app, ["derive", "mp_gram_reduced"])
    assert r.exit_code == 0 and "g₁₁" in r.output and "ψ₂" in r.output
    r = runner.invoke(app, ["derive", "rf_ridge_traces", "--latex"])
    assert r.exit_code == 0 and "\\begin{pmatrix}" in r.output and "\\begin{aligned}" in r.output
    r = runner.invoke(app, ["derive", "--list"])
    assert r.exit_code == 0 and "rf_ridge_traces" in r.output
    from asymptotics.cli.app import main

    assert main(["derive", "no_such_system"]) == 2
