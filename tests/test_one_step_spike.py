"""Spike, alignment and CK outlier after one step (docs/one-step.md §1–§2).

References: the formulas of §3/§4 typed here from the notes (an independent statement of what the
symbolic Woodbury derivation must produce), the reference numbers of docs/one-step.md §1, and small
Monte-Carlo checks of the random-matrix facts (spiked rectangular model, Gaussian-equivalent CK).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from asymptotics.errors import DegenerateWarning, ParameterError
from asymptotics.theory.one_step import (
    OneStepModel,
    ck_outlier,
    critical_learning_rate,
    derivation,
    rectangular_spike,
    spike,
    spike_correction,
    spike_correction_derivative,
)


@pytest.fixture(scope="module")
def tanh_model():
    return OneStepModel.from_activations("tanh", "tanh", noise=0.1)


# ------------------------------------------------------------------ symbolic derivation vs §3
def test_derivation_reproduces_section3():
    ex = derivation.spike_expressions()
    mb, th, th1, psi2, mbp = sp.symbols("mbar theta_sq theta1_sq psi2 mbar_prime")
    # §3 / §5 as printed in the notes (typed independently of the derivation)
    delta = th1 * mb**2 / (1 + (1 + th) * mb)
    delta_prime = th1 * mbp * mb * (2 + (1 + th) * mb) / (1 + (1 + th) * mb) ** 2
    outlier = (psi2 + th) * (1 + th) / th
    rho2 = th1 / th
    left = (th**2 - psi2) / (th * (1 + th))
    right = (th**2 - psi2) / (th * (th + psi2))
    assert sp.simplify(ex["Delta"] - delta) == 0
    assert sp.simplify(ex["Delta_prime"] - delta_prime) == 0
    assert sp.simplify(ex["pole_mbar"] + 1 / (1 + th)) == 0
    assert sp.simplify(ex["outlier_sq"] - outlier) == 0
    assert sp.simplify(ex["overlap_u"] - left) == 0
    assert sp.simplify(ex["overlap_beta"] - rho2 * left) == 0
    assert sp.simplify(ex["overlap_v"] - right) == 0
    assert sp.simplify(ex["teacher_energy"] - (psi2 + th1)) == 0
    assert sp.simplify(ex["Q1"] - (mb - delta)) == 0
    # BBP: the pole is an eigenvalue outside the bulk iff z'(m̄) > 0 there, i.e. θ⁴ > ψ2
    rng = np.random.default_rng(0)
    f = sp.lambdify((th, psi2), ex["bbp"])
    for t, p in rng.uniform(0.05, 5, size=(200, 2)):
        assert (f(t, p) > 0) == (t**2 > p)


def test_mp_inverse_is_the_mp_equation():
    z, mb, psi2 = sp.symbols("z mbar psi2")
    zm = derivation.mp_inverse()
    assert sp.simplify((z * mb**2 + (1 + z - psi2) * mb + 1).subs(z, zm)) == 0


def test_generated_module_is_up_to_date():
    assert derivation.render_module() == derivation.generated_path().read_text(), (
        "regenerate with `python -m asymptotics.theory.one_step.derivation`")


# ------------------------------------------------------------------ reference values
def test_alignment_reference_values(tanh_model):
    sp_ = spike(tanh_model, psi1=2.0, psi2=1.5, eta=5.0)  # reference values, docs/one-step.md §1
    assert round(sp_.overlap_beta, 4) == 0.5113
    assert round(sp_.overlap_a, 4) == 0.7340
    assert round(sp_.top_sv2, 4) == 8.0065
    assert round(sp_.eta_threshold, 4) == 2.4221
    # §3 table theory column: η = 3 → 0.242, η = 10 → 0.613, below threshold → 0
    ov = spike(tanh_model, 2.0, 1.5, np.array([1.0, 2.0, 3.0, 10.0])).overlap_beta
    assert ov[0] == 0 and ov[1] == 0
    assert round(ov[2], 3) == 0.242 and round(ov[3], 3) == 0.613


def test_rectangular_spike_reference():
    s2, left, right = rectangular_spike(4.0, 2.0)  # ψ2 = 2, θ = 2
    assert round(np.sqrt(s2), 4) == 2.7386 and round(left, 4) == 0.7000 and round(right, 4) == 0.5833


def test_rectangular_spike_monte_carlo():
    """W₀ + θ u vᵀ at d = 600, N = 1200: outlier and overlaps within O(d^{-1/2}) of the formulas."""
    rng = np.random.default_rng(12)
    d, N = 600, 1200
    W = rng.standard_normal((d, N)) / np.sqrt(d)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    v = rng.standard_normal(N)
    v /= np.linalg.norm(v)
    for theta_sq in (4.0, 1.0):  # θ⁴ = 16 > ψ2 = 2, and 1 < 2 (below)
        W1 = W + np.sqrt(theta_sq) * np.outer(u, v)
        evals, evecs = np.linalg.eigh(W1 @ W1.T)  # top singular triple from the d×d Gram matrix
        top2, u1 = evals[-1], evecs[:, -1]
        v1 = W1.T @ u1 / np.sqrt(top2)
        s2, left, right = rectangular_spike(theta_sq, 2.0)
        assert abs(top2 - s2) < 0.05 * s2
        assert abs((u1 @ u) ** 2 - left) < 0.06
        assert abs((v1 @ v) ** 2 - right) < 0.06


def test_resolvent_quadratic_form_monte_carlo():
    """β*ᵀ(W₁W₁ᵀ − z)⁻¹β* → m̄ − Δ at z = −0.5 (average over independent draws, 4 s.e.)."""
    rng = np.random.default_rng(3)
    d, psi2, z = 600, 1.5, -0.5
    N = int(psi2 * d)
    theta_sq, rho2 = 3.0, 0.6
    vals = []
    for _ in range(6):
        W = rng.standard_normal((d, N)) / np.sqrt(d)
        beta = rng.standard_normal(d)
        beta /= np.linalg.norm(beta)
        perp = rng.standard_normal(d)
        perp -= (perp @ beta) * beta
        perp /= np.linalg.norm(perp)
        u = np.sqrt(rho2) * beta + np.sqrt(1 - rho2) * perp
        v = rng.standard_normal(N)
        v /= np.linalg.norm(v)
        W1 = W + np.sqrt(theta_sq) * np.outer(u, v)
        A = W1 @ W1.T - z * np.eye(d)
        vals.append(beta @ np.linalg.solve(A, beta))
    from asymptotics.numerics.marchenko_pastur import gram_stieltjes

    theory = gram_stieltjes(z, psi2) - spike_correction(z, psi2, theta_sq, rho2 * theta_sq)
    se = np.std(vals, ddof=1) / np.sqrt(len(vals))
    assert abs(np.mean(vals) - theory) < 4 * se + 0.01


def test_spike_correction_derivative_matches_finite_difference():
    for z in (-0.3, -2.0, 0.1 + 0.5j):
        h = 1e-6
        fd = (spike_correction(z + h, 1.5, 3.0, 1.2) - spike_correction(z - h, 1.5, 3.0, 1.2)) / (2 * h)
        assert abs(spike_correction_derivative(z, 1.5, 3.0, 1.2) - fd) < 1e-7


def test_critical_learning_rate_is_the_threshold(tanh_model):
    eta_c = critical_learning_rate(tanh_model, 2.0, 1.5)
    th = spike(tanh_model, 2.0, 1.5, eta_c)
    assert abs(th.theta_sq**2 - 1.5) < 1e-12
    eps = 1e-7
    below, above = spike(tanh_model, 2.0, 1.5, np.array([eta_c * (1 - eps), eta_c * (1 + eps)])).overlap_beta
    assert below == 0 and 0 < above < 1e-5  # continuous at the threshold


# ------------------------------------------------------------------ CK outlier (§4)
def test_ck_outlier_closed_form_and_reference(tanh_model):
    """The Baik–Silverstein map of the implementation equals the closed form of §4."""
    m = tanh_model
    for psi1, psi2, eta in ((3.0, 1.0, 6.0), (2.0, 2.0, 8.0), (1.0, 0.5, 5.0), (4.0, 3.0, 9.0)):
        ck = ck_outlier(m, psi1, psi2, eta)
        th = spike(m, psi1, psi2, eta).theta_sq
        s2 = (psi2 + th) * (1 + th) / th
        g = m.mu2_sq / m.mu1**2
        closed = (m.mu1**2 * s2 + m.mu2_sq) * (1 + psi2 / psi1 * (1 / th + g / (psi2 + th)))
        assert ck.separated
        assert abs(ck.top_eigenvalue - closed) < 1e-10 * closed
        assert abs(ck.gram_top_eigenvalue - psi1 / psi2 * closed) < 1e-10 * closed
    assert round(ck_outlier(m, 3.0, 1.0, 6.0).top_eigenvalue, 2) == 3.42  # §4 theory values
    assert round(ck_outlier(m, 2.0, 2.0, 8.0).top_eigenvalue, 2) == 6.57


def test_ck_bulk_edge_against_gaussian_equivalent_features(tanh_model):
    """Top eigenvalue of S for Gaussian-equivalent features μ1 W₀ᵀx + μ2 z at W₀ (no spike) vs the edge."""
    m = tanh_model
    rng = np.random.default_rng(7)
    d, psi1, psi2 = 400, 3.0, 1.0
    n, N = int(psi1 * d), int(psi2 * d)
    tops = []
    for _ in range(3):
        W = rng.standard_normal((d, N)) / np.sqrt(d)
        F = m.mu1 * rng.standard_normal((n, d)) @ W + np.sqrt(m.mu2_sq) * rng.standard_normal((n, N))
        tops.append(np.linalg.eigvalsh(F.T @ F / n)[-1])
    edge = ck_outlier(m, psi1, psi2, 0.0).bulk_edge
    assert not ck_outlier(m, psi1, psi2, 0.0).separated
    assert abs(np.mean(tops) - edge) < 0.03 * edge  # Tracy–Widom scale d^{-2/3}


# ------------------------------------------------------------------ degenerate and bad input
def test_mu1_zero_student_is_degenerate_not_an_error():
    m = OneStepModel.from_activations("he2", "tanh", noise=0.1)
    with pytest.warns(DegenerateWarning):
        sp_ = spike(m, 2.0, 1.5, 5.0)
    assert sp_.overlap_beta == 0 and sp_.eta_threshold == np.inf and not sp_.separated
    with pytest.warns(DegenerateWarning):
        ck = ck_outlier(m, 2.0, 1.5, 5.0)
    assert ck.top_eigenvalue == pytest.approx(m.mu2_sq * (1 + np.sqrt(0.75)) ** 2)


def test_mu1_star_zero_teacher_aligns_nothing():
    m = OneStepModel.from_activations("tanh", "he2", noise=0.1)
    with pytest.warns(DegenerateWarning):
        sp_ = spike(m, 2.0, 1.5, 10.0)
    assert sp_.overlap_beta == 0 and sp_.separated  # the noise spike separates, with no teacher overlap


def test_bad_inputs_raise_parameter_errors(tanh_model):
    with pytest.raises(ParameterError, match="psi2"):
        spike(tanh_model, 2.0, -1.0, 1.0)
    with pytest.raises(ParameterError, match="eta"):
        spike(tanh_model, 2.0, 1.0, np.nan)
    with pytest.raises(ParameterError, match="centred"):
        OneStepModel.from_activations("relu", "tanh", center=False)


# ------------------------------------------------------------------ very strong spikes (no overflow)
@pytest.mark.parametrize("theta_sq", [4.0, 1e99, 1e101, 1e154, 1e160, 1e300, 1.7e308])
def test_rectangular_spike_at_large_theta_against_mpmath(theta_sq):
    """The docs/one-step.md §1 formulas evaluated in 50-digit mpmath (no overflow there): the
    float64 values stay finite and accurate where θ⁴ overflows (θ² > 1.3e154)."""
    import mpmath as mp

    with mp.workdps(50):
        t, p = mp.mpf(theta_sq), mp.mpf(2)
        ref = [(p + t) * (1 + t) / t, (t**2 - p) / (t * (1 + t)), (t**2 - p) / (t * (t + p))]
        got = rectangular_spike(theta_sq, 2.0)
        for g, r in zip(got, ref, strict=True):   # a few roundings: |rel. error| ≤ 1e-15
            assert np.isfinite(g) and abs(mp.mpf(g) / r - 1) < 1e-15


def test_overlap_beta_at_large_theta_is_rho_sq(tanh_model):
    """θ² → ∞: ⟨u₁, β*⟩² → ρ² (docs/one-step.md §1: ρ²(θ⁴ − ψ2)/(θ²(1 + θ²)) → ρ²), finite
    beyond the float64 overflow of θ⁴; ρ² = μ1*²/s² from the model's constants."""
    m = tanh_model
    rho_sq = m.mu1_star**2 / (m.mu1_star**2 + (m.mu1_star**2 + m.mu2_star_sq + 0.1**2) / 2.0)
    sp_ = spike(m, 2.0, 1.5, np.array([1e70, 1e80, 1e150]))
    assert np.all(np.isfinite(sp_.top_sv2))
    np.testing.assert_allclose(sp_.overlap_beta, rho_sq, rtol=1e-13)
    np.testing.assert_allclose(sp_.overlap_a, 1.0, rtol=1e-15)


def test_overflowing_spike_or_risk_is_refused_naming_eta(tanh_model):
    from asymptotics.theory.one_step import MAX_RISK_THETA_SQ, limits, risk

    with pytest.raises(ParameterError, match="eta=1e\\+160"):
        spike(tanh_model, 2.0, 1.5, 1e160)               # θ² = η²μ1²s² overflows float64
    eta = 2.0 * np.sqrt(MAX_RISK_THETA_SQ / float(spike(tanh_model, 2.0, 1.5, 1.0).theta_sq))
    for route in ("B", "C"):
        with pytest.raises(ParameterError, match="eta="):
            risk(tanh_model, 2.0, 1.5, 0.1, eta, route=route)
    with pytest.raises(ParameterError, match="eta="):
        ck_outlier(tanh_model, 2.0, 1.5, eta)
    with pytest.raises(ParameterError, match="eta="):
        limits.delta_infinite_samples(tanh_model, 1.5, 0.1, 1e80)
    r = risk(tanh_model, 2.0, 1.5, 0.1, eta / 3, route="B")      # below the bound: finite numbers
    assert np.isfinite(r.risk1) and np.isfinite(r.delta)
