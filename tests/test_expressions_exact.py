"""Derived expressions against exact references: moments (Marchenko–Pastur, Fuss–Catalan),
the semicircle law, the ridge risk of linear regression (closed form, Hastie et al. 2022),
identities of the algebra (a sum of Wisharts with one ratio is one Wishart; partial fractions;
freeness of independent matrices), declared variances, implicit derivatives, the branch at
complex z, and the compiled solver against the uncompiled one."""

import mpmath
import numpy as np
import pytest

from asymptotics.solvers.expression_values import evaluate_grid, evaluate_point
from asymptotics.symbolic.expressions import derive

TOL = 1e-12


def val(expr, dims, ratios=None, at=None, **kw):
    D = derive(expr, dims=dims, ratios=ratios, **kw)
    r = evaluate_point(D, at=at or {}, backend="python")
    assert r.converged and r.residual < 1e-12
    return r.value


def mp_stieltjes(z, g):
    """m(z) = tr(XᵀX/n − z)⁻¹ for X ∈ ℝ^{n×d}, γ = d/n: the MP law of ratio γ (closed form,
    the root with Im m > 0 for Im z > 0, m > 0 for z < 0)."""
    real = mpmath.im(z) == 0
    z = mpmath.mpc(z)
    s = mpmath.sqrt((z - 1 - g) ** 2 - 4 * g)
    roots = [(1 - g - z + e * s) / (2 * g * z) for e in (1, -1)]
    if real:
        return max(mpmath.re(m) for m in roots)  # the positive one for z < 0
    return next(m for m in roots if mpmath.im(m) * mpmath.im(z) > 0)


def test_moments_marchenko_pastur_and_fuss_catalan():
    g = 0.5  # d/n with n/d = 2
    assert abs(val("tr(X.T@X/n)", "X:n,d", "n/d=2") - 1) < TOL
    assert abs(val("tr((X.T@X/n)**2)", "X:n,d", "n/d=2") - (1 + g)) < TOL
    assert abs(val("tr((X.T@X/n)**3)", "X:n,d", "n/d=2") - (1 + 3 * g + g * g)) < TOL
    # W = X1 X2/n with square factors: the moments of WWᵀ are the Fuss–Catalan numbers 1, 3, 12
    for k, ref in [(1, 1), (2, 3), (3, 12)]:
        expr = "W = X1@X2/n; tr(" + " @ ".join(["W@W.T"] * k) + ")"
        assert abs(val(expr, "X1:n; X2:n") - ref) < TOL


def test_semicircle_from_a_symmetrised_gaussian():
    # H = (Y + Yᵀ)/√(2n) is a Wigner matrix; m(z) = (−z + √(z² − 4))/2 with Im m > 0
    for z in (0.5 + 0.3j, -1.7 + 0.01j, 3.0 + 1.0j):
        v = val("H = (Y + Y.T)/sqrt(2*n); tr(inv(H - z*I))", "Y:n", at={"z": z})
        roots = [(-z + s * np.sqrt(z * z - 4 + 0j)) / 2 for s in (1, -1)]
        ref = next(m for m in roots if m.imag > 0)
        assert abs(v - ref) < 1e-11 * abs(ref)


def test_sum_of_wisharts_with_one_ratio_is_one_wishart():
    # (X1ᵀX1 + X2ᵀX2)/d = XᵀX/d with X the stacked (n1 + n2) × d matrix: MP with ratio 2
    for lam in (0.01, 0.2, 3.0):
        a = val(
            "tr(inv((X1.T@X1 + X2.T@X2)/d + lam*I))", "X1:n1,d; X2:n2,d", "n1/d=0.5, n2/d=1.5", {"lam": lam}
        )
        ref = float(mp_stieltjes(-lam / 2, 0.5)) / 2  # XᵀX/d = 2·XᵀX/n, n = 2d
        assert abs(a - ref) < TOL * ref


def test_two_inverses_partial_fractions_and_freeness():
    S = "X:n,d; Y:m,d"
    r = "n/d=2, m/d=0.5"
    # the same matrix: (A + a)⁻¹(A + b)⁻¹ = [(A + a)⁻¹ − (A + b)⁻¹]/(b − a)
    two = val("tr(inv(X.T@X/n + a*I) @ inv(X.T@X/n + b*I))", S, r, {"a": 0.3, "b": 0.7})
    ma, mb = (float(mp_stieltjes(-x, 0.5)) for x in (0.3, 0.7))
    assert abs(two - (ma - mb) / 0.4) < TOL * two
    # independent matrices are asymptotically free: tr(AB) = tr(A) tr(B)
    free = val("tr(inv(X.T@X/n + a*I) @ inv(Y.T@Y/m + b*I))", S, r, {"a": 0.3, "b": 0.5})
    assert abs(free - ma * float(mp_stieltjes(-0.5, 2.0))) < TOL * free


def test_ridge_risk_of_linear_regression_closed_form():
    """y = Xβ + ε, ‖β‖² = r², ε ~ N(0, σ²), ridge β̂ = (XᵀX/n + λ)⁻¹Xᵀy/n: the test error
    E(xᵀβ̂ − y)² = r²λ² m'(−λ) + σ²γ(m(−λ) − λm'(−λ)) + σ² with m the MP Stieltjes transform
    (γ = d/n), m' = dm/dz by mpmath's numerical differentiation of the closed form."""
    risk = derive(
        "S = X.T@X/n; R = inv(S + lam*I); r2*lam**2*tr(R@R) + sigma2*(d/n)*tr(S@R@R) + sigma2",
        dims="X:n,d",
        ratios="n/d=1/gamma",
    )
    for gamma, lam in [(0.5, 0.2), (2.0, 0.05), (1.0, 1.0)]:
        m = float(mpmath.re(mp_stieltjes(-lam, gamma)))
        dm = float(mpmath.re(mpmath.diff(lambda z, g=gamma: mp_stieltjes(z, g), -lam)))
        ref = 1.0 * lam**2 * dm + 0.25 * gamma * (m - lam * dm) + 0.25
        r = evaluate_point(risk, at={"lam": lam, "r2": 1.0, "sigma2": 0.25, "gamma": gamma}, backend="python")
        assert r.converged and abs(r.value - ref) < 1e-11 * ref


def test_declared_variance_scales_the_law():
    # entries N(0, v): tr(XᵀX/n + λ)⁻¹ = m(−λ/v)/v
    for v in (0.5, 3.0):
        a = val("tr(inv(X.T@X/n + lam*I))", f"X:n,d:var={v}", "n/d=2", {"lam": 0.4})
        assert abs(a - float(mp_stieltjes(-0.4 / v, 0.5)) / v) < TOL * a
    assert abs(val("tr(X.T@X/n)", "X:n,d:var=s2", "n/d=2", {"s2": 1.7}) - 1.7) < TOL


def test_implicit_derivatives_against_a_second_expression():
    D = derive("tr(inv(X.T@X/n + lam*I))", dims="X:n,d", ratios="n/d=2")
    d = evaluate_point(D.derivative("lam"), at={"lam": 0.3}, backend="python").value
    direct = val("R = inv(X.T@X/n + lam*I); tr(R@R)", "X:n,d", "n/d=2", {"lam": 0.3})
    assert abs(d + direct) < TOL * direct  # d/dλ tr(A + λ)⁻¹ = −tr(A + λ)⁻²
    # and the derivative of the closed form (mpmath)
    ref = float(mpmath.diff(lambda x: mpmath.re(mp_stieltjes(-x, 0.5)), 0.3))
    assert abs(d - ref) < 1e-10 * abs(ref)


def test_branch_at_complex_z_is_the_herglotz_one_and_continuous():
    """Along z = x + iη across the lower edge and the bulk of a random-features Gram spectrum,
    the value is a Stieltjes transform: Im m > 0, Lipschitz with constant 1/η²
    (|m'(z)| = |∫ρ(x)(x − z)⁻² dx| ≤ 1/η², so no jump to another branch), and total mass one."""
    D = derive(
        "F = a*W@X/sqrt(d) + b*Z; tr(inv(F@F.T/n - z*I))",
        dims="W:N,d; X:d,n; Z:N,n",
        ratios="N/d=1, n/d=2",
    )
    eta = 0.05
    xs = np.linspace(-0.5, 1.0, 76)
    g = evaluate_grid(D, at={"z": xs + 1j * eta, "a": 0.8, "b": 0.5}, backend="python")
    assert g.converged and np.all(g.value.imag > 0)
    assert np.max(np.abs(np.diff(g.value))) <= (xs[1] - xs[0]) / eta**2
    wide = np.linspace(-1.0, 8.0, 181)
    gw = evaluate_grid(D, at={"z": wide + 0.1j, "a": 0.8, "b": 0.5}, backend="python")
    mass = np.trapezoid(gw.value.imag, wide) / np.pi
    assert abs(mass - 1) < 0.03  # the Cauchy tails of width 0.1 outside [−1, 8] hold ≈ 0.014


def test_compiled_and_uncompiled_solvers_agree_on_a_grid():
    D = derive("tr(inv(W@W.T/d - z*I))", dims="W:d,N", ratios="N/d=psi2")  # as in the library tests
    zs = np.linspace(-1, 4, 26) + 0.1j
    a = evaluate_grid(D, at={"z": zs, "psi2": 0.7})
    b = evaluate_grid(D, at={"z": zs, "psi2": 0.7}, backend="python")
    c = evaluate_grid(D, at={"z": zs, "psi2": 0.7}, branch="grid")
    assert a.converged and b.converged and c.converged
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12)
    np.testing.assert_allclose(a.value, c.value, rtol=1e-12)
    ref = np.array([complex(mp_stieltjes(z / 0.7, 1 / 0.7)) / 0.7 for z in zs])  # WWᵀ/d = ψ2·WWᵀ/N
    np.testing.assert_allclose(a.value, ref, rtol=1e-11)
    rows = a.rows()
    assert rows[0]["status"] == "converged" and {"value_re", "value_im", "iterations", "residual"} <= set(
        rows[0]
    )


def test_singular_free_limit_is_refused_not_guessed():
    from asymptotics.errors import ExpressionError, ParameterError

    # inv(XᵀX/n) has no deterministic part: no free start for the continuation
    with pytest.raises(ExpressionError, match="singular when the Gaussian matrices vanish"):
        derive("tr(inv(X.T@X/n))", dims="X:n,d", ratios="n/d=2")
    # a ridge makes it regular; at lam = 0 exactly the point is refused, near 0 it converges
    D = derive("tr(inv(X.T@X/n + lam*I))", dims="X:n,d", ratios="n/d=1/gamma")
    with pytest.raises(ParameterError, match="vanishes there"):
        evaluate_point(D, at={"lam": 0.0, "gamma": 0.5}, backend="python")
    r = evaluate_point(D, at={"lam": 1e-9, "gamma": 0.5}, backend="python")
    assert abs(r.value - 2.0) < 1e-7  # → 1/(1 − γ) as λ → 0 (γ < 1)
