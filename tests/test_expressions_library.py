"""The library's hand-built pencils re-derived from their expressions.

* Marchenko–Pastur of W₀ (``docs/engine.md``): the automatic pencil *is* the hand-built one and
  the reduced equation is z m̄² + (1 + z − ψ2) m̄ + 1 = 0; values against the closed form.
* Random-features ridge (Adlam–Pennington): τ1 = tr(K + λ)⁻¹/n and τ2 = tr[(XᵀX/d)(K + λ)⁻¹]/n
  from the expressions with the Gaussian-equivalent features F = μ1 WX/√d + μ2 Θ, against the
  library's reduced systems (on random parameter points, through resultants: independent of the
  branch), AP's polynomial pair S67/S68, the "nested MP" quadrature route, and the check values;
  the source variant (the library's block 5) and the derivative route to τ2.
"""

import math

import numpy as np
import pytest
import sympy as sp
from scipy import integrate, optimize

from asymptotics import activation
from asymptotics.numerics.marchenko_pastur import gram_stieltjes
from asymptotics.solvers.expression_values import evaluate_grid, evaluate_point
from asymptotics.symbolic import dyson_system, get_system, mp_pencil
from asymptotics.symbolic.expressions import activation_constants, derive
from asymptotics.symbolic.expressions.assemble import SCALE

RF = dict(dims="X:d,n; W:m,d; Theta:m,n", ratios="n/d=1/phi, m/d=1/psi")
F_DEF = "F = mu1*W@X/sqrt(d) + mu2*Theta; K = F.T@F/m; "
g11 = sp.Symbol("g11")


def ap(act):
    """η_AP = E σ² and ζ_AP = μ1² of the centred activation, and the expression constants."""
    c = activation(act, center=True).constants()
    return {"eta": c.second_moment, "zeta": c.mu1**2}, {"mu1": c.mu1, "mu2": c.mu2}


def nested_mp(phi_, psi_, lam_, eta_, zeta_):
    """The 'nested MP' route: x ~ MP(1/φ), c(x) = ζx + η − ζ, e = (ψ/φ) E[c/(λ + c/(1+e))],
    τ1 = E[1/(λ + c/(1+e))], τ2 = E[x/(λ + c/(1+e))] (scipy quadrature over the MP density)."""
    g = 1 / phi_
    lo, hi = (1 - math.sqrt(g)) ** 2, (1 + math.sqrt(g)) ** 2
    atom = max(0.0, 1 - 1 / g)
    cen, rad = (lo + hi) / 2, (hi - lo) / 2

    def E(f):
        def integrand(t):
            x = cen + rad * math.cos(t)
            return f(x) * rad**2 * math.sin(t) ** 2 / (2 * math.pi * g * x)

        val, _ = integrate.quad(integrand, 0, math.pi, epsabs=1e-13, epsrel=1e-12, limit=200)
        return val + atom * f(0.0)

    def c(x):
        return zeta_ * x + eta_ - zeta_

    e = optimize.brentq(
        lambda e: e - (psi_ / phi_) * E(lambda x: c(x) / (lam_ + c(x) / (1 + e))), 0.0, 1e3, xtol=1e-15
    )
    return E(lambda x: 1 / (lam_ + c(x) / (1 + e))), E(lambda x: x / (lam_ + c(x) / (1 + e)))


def random_points(k, seed=3):
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    for _ in range(k):
        mu1, mu2 = rng.uniform(0.2, 1.0), rng.uniform(0.1, 0.8)
        yield (
            dict(phi=rng.uniform(0.4, 3.0), psi=rng.uniform(0.3, 3.0), lam=10 ** rng.uniform(-2, 0.5)),
            {
                "mu1": mu1,
                "mu2": mu2,
            },
        )


# ------------------------------------------------------------------------------------- MP
@pytest.fixture(scope="module")
def mp():
    return derive("tr(inv(W@W.T/d - z*I))", dims="W:d,N", ratios="N/d=psi2")


def test_mp_pencil_is_the_hand_built_one(mp):
    P, Q = mp.pencil, mp_pencil()
    assert P.sizes == Q.sizes and P.q0 == Q.q0
    assert [(g.name, g.row, g.col, g.coeff, g.transpose) for g in P.gaussians] == [
        (g.name, g.row, g.col, g.coeff, g.transpose) for g in Q.gaussians
    ]
    # the Dyson equations at t = 1 are the library's, equation by equation
    mine = dyson_system(P).subs({SCALE: 1})
    assert mine.unknowns == get_system("mp_gram").unknowns
    assert all(
        sp.expand(a - b) == 0 for a, b in zip(mine.equations, get_system("mp_gram").equations, strict=True)
    )


def test_mp_reduced_equation_is_the_closed_form(mp):
    (eq,) = mp.equations
    z, psi2 = sp.symbols("z psi2")
    target = z * g11**2 + (1 + z - psi2) * g11 + 1
    assert mp.unknowns == (g11,) and sp.expand(eq.lhs - target) == 0
    (lib,) = get_system("mp_gram_reduced").equations
    assert sp.cancel(lib / target).free_symbols.isdisjoint({g11})
    assert mp.value_expression == g11


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_mp_values_against_the_closed_form(mp, backend):
    for z, p2 in [(-0.5, 0.5), (-2.0, 3.0), (-0.05, 1.5), (-1e-3, 0.4)]:
        r = evaluate_point(mp, at={"z": z, "psi2": p2}, backend=backend)
        ref = gram_stieltjes(z, p2)
        assert r.converged and r.status.label == "converged" and r.residual < 1e-12
        assert abs(r.value - ref) < 1e-12 * abs(ref)
    # complex z: the branch with Im m̄ > 0 (Herglotz), against the closed-form root
    z, p2 = 1.2 + 0.05j, 0.7
    r = evaluate_point(mp, at={"z": z, "psi2": p2}, backend=backend)
    b = 1 + z - p2
    roots = [(-b + s * np.sqrt(b * b - 4 * z)) / (2 * z) for s in (1, -1)]
    ref = next(m for m in roots if m.imag > 0)
    assert isinstance(r.value, complex) and abs(r.value - ref) < 1e-12 * abs(ref)


def test_scaled_entries_give_the_same_pencil(mp):
    D = derive("tr(inv(W@W.T - z*I))", dims="W:d,N", ratios="N/d=psi2", entries="scaled")
    assert D.pencil.q0 == mp.pencil.q0 and D.equations == mp.equations


# ------------------------------------------------------------------------------ RF ridge
@pytest.fixture(scope="module")
def tau1():
    return derive(F_DEF + "tr(inv(K + lam*I))", **RF)


@pytest.fixture(scope="module")
def tau2():
    return derive(F_DEF + "tr(X.T@X/d @ inv(K + lam*I))", **RF)


def _library_resultant(name, values):
    """The library's reduced pair for (g11, g22) at numerical parameters, g22 eliminated by a
    resultant: a polynomial whose roots contain τ1 (whichever branch)."""
    S = get_system(name)
    sub = {sp.Symbol(k): sp.Rational(v) for k, v in values.items()}  # exact: resultants of floats fail
    e1, e2 = (sp.expand(e.subs(sub)) for e in S.equations)
    R = sp.Poly(sp.resultant(e1, e2, sp.Symbol("g22")), g11)
    c = R.all_coeffs()
    top = max(abs(a) for a in c)
    return np.array([float(a / top) for a in c])


def test_rf_tau1_solves_the_library_system_on_random_points(tau1):
    assert tau1.pencil.blocks == 5 and tau1.raw_blocks == (14,)
    for at, consts in random_points(6):
        r = evaluate_point(tau1, at=dict(at, **consts), backend="python")  # μ1, μ2 as parameters
        assert r.converged and r.residual < 1e-12
        lib = dict(at, eta=consts["mu1"] ** 2 + consts["mu2"] ** 2, zeta=consts["mu1"] ** 2)
        c = _library_resultant("rf_ridge", lib)
        scale = np.sum(np.abs(c) * abs(r.value) ** np.arange(len(c))[::-1])
        assert abs(np.polyval(c, r.value)) < 1e-12 * scale
        t1, _ = nested_mp(lib["phi"], lib["psi"], lib["lam"], lib["eta"], lib["zeta"])
        assert abs(r.value - t1) < 1e-9 * t1


@pytest.mark.parametrize(
    "act,t1_ref,t2_ref,tol", [("relu", 3.598963, None, 5e-7), ("tanh", 3.6985, 2.3107, 5e-5)]
)
def test_rf_check_values(tau1, tau2, act, t1_ref, t2_ref, tol):
    _, consts = ap(act)
    at = dict(lam=0.1, phi=1.5, psi=0.8)
    D1 = derive(F_DEF + "tr(inv(K + lam*I))", **RF, constants=consts)
    assert abs(evaluate_point(D1, at=at, backend="python").value - t1_ref) < tol
    if t2_ref is not None:
        D2 = derive(F_DEF + "tr(X.T@X/d @ inv(K + lam*I))", **RF, constants=consts)
        assert abs(evaluate_point(D2, at=at, backend="python").value - t2_ref) < tol


def test_rf_tau2_against_S67_S68_and_the_nested_mp_route(tau1, tau2):
    for at, consts in random_points(4, seed=5):
        eta, zeta = consts["mu1"] ** 2 + consts["mu2"] ** 2, consts["mu1"] ** 2
        t1 = evaluate_point(tau1, at=dict(at, **consts), backend="python").value
        t2 = evaluate_point(tau2, at=dict(at, **consts), backend="python").value
        phi, psi, lam = at["phi"], at["psi"], at["lam"]
        a = phi * (zeta * t2 * t1 + phi * (t2 - t1)) + zeta * t1 * t2 * psi * (lam * t1 - 1)
        b = (t2 - t1) * phi * (zeta * (t2 - t1) + eta * t1) - zeta * t1 * t2 * (lam * t1 - 1)
        assert abs(a) < 1e-11 * max(1, t1**3) and abs(b) < 1e-11 * max(1, t1**3)
        _, n2 = nested_mp(phi, psi, lam, eta, zeta)
        assert abs(t2 - n2) < 1e-9 * t2


def test_rf_source_variant_and_the_derivative_route(tau2):
    """The library's block 5 as an expression, tr_d(I − s X R_s Xᵀ/d) with
    R_s = (λ + s XᵀX/d + K)⁻¹: its value at s > 0 against the library's source system, and
    τ2 = −φ ∂/∂s at s = 0 (implicit differentiation) against the direct product expression."""
    _, consts = ap("tanh")
    src = derive(F_DEF + "R = inv(K + s*X.T@X/d + lam*I); tr(I(d) - s*X@R@X.T/d)", **RF, constants=consts)
    at = dict(lam=0.3, phi=1.2, psi=0.7)
    eta, zeta = consts["mu1"] ** 2 + consts["mu2"] ** 2, consts["mu1"] ** 2
    lib = get_system("rf_ridge_source")
    vals = {sp.Symbol(k): v for k, v in dict(at, eta=eta, zeta=zeta, s=0.05).items()}
    F = sp.lambdify([lib.unknowns], [e.subs(vals) for e in lib.equations])
    x = optimize.fsolve(lambda x: F(x), [1 / 0.3, 1.0], xtol=1e-13)
    g55 = float(
        lib.expand_eliminated(sp.Symbol("g55")).subs(vals).subs(dict(zip(lib.unknowns, x, strict=True)))
    )
    assert abs(evaluate_point(src, at=dict(at, s=0.05), backend="python").value - g55) < 1e-12
    d = evaluate_point(src.derivative("s"), at=dict(at, s=0.0), backend="python").value
    direct = derive(F_DEF + "tr(X.T@X/d @ inv(K + lam*I))", **RF, constants=consts)
    assert abs(-at["phi"] * d - evaluate_point(direct, at=at, backend="python").value) < 1e-12


def test_rf_compiled_solver_matches_the_check_value(tau1):
    _, consts = ap("relu")
    D = derive(F_DEF + "tr(inv(K + lam*I))", **RF, constants=consts)
    g = evaluate_grid(D, at=dict(lam=[0.1, 0.01, 1.0], phi=1.5, psi=0.8))
    assert g.converged and np.all(g.residual < 1e-12) and abs(g.value[0] - 3.598963) < 5e-7
    py = evaluate_grid(D, at=dict(lam=[0.1, 0.01, 1.0], phi=1.5, psi=0.8), backend="python")
    np.testing.assert_allclose(g.value, py.value, rtol=1e-12)
    assert activation_constants("relu")["mu1"] == pytest.approx(0.5)
