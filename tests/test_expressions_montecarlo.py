"""Derived expressions against Monte Carlo random matrices.

Each check draws k = 4 independent samples (one BLAS thread, a few seconds per test) at dimension ≈ 1000–2000 (seeds from one
``numpy.random.SeedSequence`` per test, so the test is reproducible) and compares the mean with
the derived limit. Tolerance: 4 standard errors of the mean, estimated from the observed
draw-to-draw spread (real and imaginary parts separately), plus a finite-size allowance of
``FINITE`` × |value| for the O(1/d) bias of normalised traces (d ≥ 1000; the observed biases
are below the noise). Nonlinear random features use the *real* activation (tanh), so the
Gaussian-equivalence step is checked too.
"""

import numpy as np

from asymptotics import activation
from asymptotics.solvers.expression_values import evaluate_point
from asymptotics.symbolic.expressions import activation_constants, derive
from validation.simulator.threads import blas_threads

DRAWS = 4
FINITE = 2e-3  # O(1/d) at d = 1000


def monte_carlo(sample, seed):
    # one BLAS thread: multithreaded LAPACK on a shared, loaded machine is many times slower
    with blas_threads(1):
        vals = np.array([sample(np.random.default_rng(s)) for s in np.random.SeedSequence(seed).spawn(DRAWS)])
    mean = vals.mean()
    se = (np.std(vals.real, ddof=1) + 1j * np.std(vals.imag, ddof=1)) / np.sqrt(DRAWS)
    return mean, se


def assert_close(theory, mean, se):
    tol_re = 4 * abs(se.real) + FINITE * abs(theory)
    tol_im = 4 * abs(se.imag) + FINITE * abs(theory)
    assert abs(np.real(mean) - np.real(theory)) <= tol_re, (theory, mean, se)
    assert abs(np.imag(mean) - np.imag(theory)) <= tol_im, (theory, mean, se)


def test_resolvent_of_a_sum_of_two_independent_wisharts():
    d, n1, n2, lam = 1000, 500, 1500, 0.2
    D = derive(
        "tr(inv(X1.T@X1/d + 3*X2.T@X2/d + lam*I))", dims="X1:n1,d; X2:n2,d", ratios="n1/d=0.5, n2/d=1.5"
    )
    theory = evaluate_point(D, at={"lam": lam}, backend="python").value

    def sample(rng):
        X1, X2 = rng.standard_normal((n1, d)), rng.standard_normal((n2, d))
        ev = np.linalg.eigvalsh(X1.T @ X1 / d + 3 * X2.T @ X2 / d)
        return np.mean(1 / (ev + lam))

    assert_close(theory, *monte_carlo(sample, 101))


def test_product_wishart_at_complex_z():
    d, n1, n2, z = 1000, 1500, 2000, 1.0 + 0.2j
    D = derive(
        "W = X1@X2/sqrt(n1*n2); tr(inv(W@W.T - z*I))", dims="X1:d,n1; X2:n1,n2", ratios="n1/d=1.5, n2/d=2"
    )
    theory = evaluate_point(D, at={"z": z}, backend="python").value

    def sample(rng):
        W = rng.standard_normal((d, n1)) @ rng.standard_normal((n1, n2)) / np.sqrt(n1 * n2)
        return np.mean(1 / (np.linalg.eigvalsh(W @ W.T) - z))

    assert theory.imag > 0
    assert_close(theory, *monte_carlo(sample, 102))


def test_ridge_test_error_of_linear_regression():
    """Simulated ridge regressions (y = Xβ + ε, ‖β‖ = r, isotropic Gaussian inputs, test error
    ‖β̂ − β‖² + σ² exactly for fresh inputs) against the derived bias–variance expression."""
    n, d, lam, r2, s2 = 2000, 1000, 0.2, 1.0, 0.25
    D = derive(
        "S = X.T@X/n; R = inv(S + lam*I); r2*lam**2*tr(R@R) + sigma2*(d/n)*tr(S@R@R) + sigma2",
        dims="X:n,d",
        ratios="n/d=2",
    )
    theory = evaluate_point(D, at={"lam": lam, "r2": r2, "sigma2": s2}, backend="python").value

    def sample(rng):
        X = rng.standard_normal((n, d))
        beta = rng.standard_normal(d)
        beta *= np.sqrt(r2) / np.linalg.norm(beta)
        y = X @ beta + np.sqrt(s2) * rng.standard_normal(n)
        bh = np.linalg.solve(X.T @ X / n + lam * np.eye(d), X.T @ y / n)
        return np.sum((bh - beta) ** 2) + s2

    assert_close(theory, *monte_carlo(sample, 103))


def test_trace_with_two_inverses_of_independent_matrices():
    n, m, d, a, b = 2000, 500, 1000, 0.3, 0.5
    D = derive("tr(inv(X.T@X/n + a*I) @ inv(Y.T@Y/m + b*I))", dims="X:n,d; Y:m,d", ratios="n/d=2, m/d=0.5")
    theory = evaluate_point(D, at={"a": a, "b": b}, backend="python").value

    def sample(rng):
        X, Y = rng.standard_normal((n, d)), rng.standard_normal((m, d))
        A = np.linalg.inv(X.T @ X / n + a * np.eye(d))
        B = np.linalg.inv(Y.T @ Y / m + b * np.eye(d))
        return np.sum(A * B.T) / d

    assert_close(theory, *monte_carlo(sample, 104))


def test_random_features_gram_at_complex_z_with_a_real_activation():
    """F = σ(WX/√d) with the centred tanh (not its Gaussian equivalent), Gram FFᵀ/n at z in the
    bulk; the expression uses the Gaussian equivalent μ1 WX/√d + μ2 Θ with tanh's constants."""
    N, d, n, z = 1000, 1000, 2000, 0.3 + 0.1j
    D = derive(
        "F = mu1*W@X/sqrt(d) + mu2*Theta; tr(inv(F@F.T/n - z*I))",
        dims="W:N,d; X:d,n; Theta:N,n",
        ratios="N/d=1, n/d=2",
        constants=activation_constants("tanh"),
    )
    theory = evaluate_point(D, at={"z": z}, backend="python").value
    act = activation("tanh", center=True)

    def sample(rng):
        F = act.numpy(rng.standard_normal((N, d)) @ rng.standard_normal((d, n)) / np.sqrt(d))
        return np.mean(1 / (np.linalg.eigvalsh(F @ F.T / n) - z))

    assert theory.imag > 0
    assert_close(theory, *monte_carlo(sample, 105))
