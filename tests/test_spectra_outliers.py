"""Outliers and eigenvector overlaps from the pencils' transforms, against closed forms: the
rectangular spiked model, Paul's white spiked covariance, the CK outlier's closed form, the
large-step limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from asymptotics.activations import activation
from asymptotics.theory.one_step import OneStepModel, rectangular_spike, spike
from asymptotics.theory.spectra import ba_step, ck_spectrum, cui_step, ge_ck_bulk, mp_bulk, weights_spectrum
from asymptotics.theory.spectra.large_step import (
    large_step_features,
    weights_bulk_large,
    weights_outlier_large,
)
from asymptotics.theory.spectra.rank_one import covariance_outlier, rectangular_outlier


def test_spiked_rectangular_reference_values():
    """ψ2 = 2, θ = 2: s₁ = 2.7386, ⟨u₁, u⟩² = 0.7000, ⟨v₁, a⟩² = 0.5833 (closed form
    (ψ2 + θ²)(1 + θ²)/θ², (θ⁴ − ψ2)/(θ²(1 + θ²)), (θ⁴ − ψ2)/(θ²(θ² + ψ2)))."""
    r = rectangular_outlier(mp_bulk(2.0), 4.0, (1 + math.sqrt(2)) ** 2)
    assert r.separated
    assert math.sqrt(r.location) == pytest.approx(2.7386, abs=5e-5)
    assert r.location == pytest.approx(7.5, rel=1e-12)
    assert r.overlaps["left"] == pytest.approx(0.7, abs=1e-12)
    assert r.overlaps["right"] == pytest.approx(7 / 12, abs=1e-12)
    assert r.threshold == pytest.approx(math.sqrt(2.0), rel=1e-12)  # BBP: θ⁴ = ψ2


@pytest.mark.parametrize("psi2", [0.4, 1.0, 2.5])
@pytest.mark.parametrize("theta_sq", [0.5, 1.2, 3.0, 10.0])
def test_rectangular_outlier_against_the_closed_form(psi2, theta_sq):
    x, ou, ov = rectangular_spike(theta_sq, psi2)
    r = rectangular_outlier(mp_bulk(psi2), theta_sq, (1 + math.sqrt(psi2)) ** 2)
    assert r.separated == (theta_sq**2 > psi2)
    if r.separated:
        assert r.location == pytest.approx(x, rel=1e-11)
        assert r.overlaps["left"] == pytest.approx(ou, abs=1e-10)
        assert r.overlaps["right"] == pytest.approx(ov, abs=1e-10)


@pytest.mark.parametrize("ell", [1.8, 2.5, 6.0])
def test_covariance_outlier_white_bulk_is_pauls(ell):
    """Population Σ = I + (ℓ − 1)vvᵀ, c = N/n: outlier ℓ(1 + c/(ℓ − 1)), ⟨ŵ, v⟩² =
    (1 − c/(ℓ − 1)²)/(1 + c/(ℓ − 1)), ⟨ŷ, ζ̂⟩² = 1 − c/(ℓ − 1)² (Paul 2007), BBP ℓ_c = 1 + √c.
    (μ1 = 0, μ2 = 1 in the Gaussian-equivalent pencil: K = ZᵀZ/n.)"""
    psi1, psi2 = 2.0, 1.0
    c = psi2 / psi1
    bulk = ge_ck_bulk(0.0, 1.0, psi1, psi2)
    r = covariance_outlier(bulk, ell, (1 + math.sqrt(c)) ** 2)
    assert r.threshold == pytest.approx(1 + math.sqrt(c), rel=1e-10)
    assert r.separated == (ell > 1 + math.sqrt(c))
    if r.separated:
        assert r.location == pytest.approx(ell * (1 + c / (ell - 1)), rel=1e-11)
        assert r.overlaps["population"] == pytest.approx((1 - c / (ell - 1) ** 2) / (1 + c / (ell - 1)), abs=1e-10)
        assert r.overlaps["sample"] == pytest.approx(1 - c / (ell - 1) ** 2, abs=1e-10)


@pytest.mark.parametrize("psi1,psi2,eta", [(3.0, 1.0, 6.0), (2.0, 2.0, 8.0), (2.0, 1.5, 5.0)])
def test_ck_outlier_against_its_closed_form(psi1, psi2, eta):
    """x_out = (μ1² s₁² + μ2²)(1 + (ψ2/ψ1)(1/θ² + (μ2²/μ1²)/(ψ2 + θ²))) (``docs/one-step.md``,
    derived by Baik–Silverstein's map) and s₁² of the weights spectrum against the spike closed form."""
    m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    sp = spike(m, psi1, psi2, eta)
    th = sp.theta_sq
    closed = (m.mu1**2 * sp.top_sv2 + m.mu2_sq) * (1 + psi2 / psi1 * (1 / th + (m.mu2_sq / m.mu1**2) / (psi2 + th)))
    step = ba_step("tanh", "tanh", psi1=psi1, psi2=psi2, eta=eta, noise=0.1)
    res = ck_spectrum(step, points=20)
    assert res.outliers[0].location == pytest.approx(closed, rel=1e-10)
    w = weights_spectrum(step, points=20).outliers[0]
    assert w.location == pytest.approx(sp.top_sv2, rel=1e-11)
    assert w.overlaps["teacher"] == pytest.approx(sp.overlap_beta, abs=1e-10)
    assert w.overlaps["readout"] == pytest.approx(sp.overlap_a, abs=1e-10)
    assert w.threshold == pytest.approx(math.sqrt(psi2), rel=1e-10)


def test_no_outlier_below_the_threshold_and_before_the_step():
    step = ba_step("tanh", "tanh", psi1=2.0, psi2=1.5, eta=1.0, noise=0.1)  # η_c = 2.42
    assert ck_spectrum(step, points=10).outliers == ()
    assert weights_spectrum(step, points=10).outliers == ()
    strong = ba_step("tanh", "tanh", psi1=2.0, psi2=1.5, eta=5.0, noise=0.1)
    assert ck_spectrum(strong, points=10, before=True).outliers == ()
    assert weights_spectrum(strong, points=10, before=True).outliers == ()


def test_uniform_readout_kernel_outlier_is_the_mean_energy():
    """Cui (uniform readout): one kernel outlier at N E_κ[μ0(κ)²], μ0(κ) = E σ(rκ + √c z), along the
    readout; its label alignment (E[μ0(κ) h(κ)])²/(E μ0² E y²) — here by adaptive double quadrature."""
    step = cui_step("tanh", "tanh", alpha=2.0, beta=1.0, eta_tilde=3.0, alpha0=2.0)
    p = step.srf
    sig, tea = activation("tanh"), activation("tanh")
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731

    def mu0(k):
        return integrate.quad(lambda z: float(sig.numpy(np.array([p.r * k + math.sqrt(p.c) * z]))[0]) * phi(z), -12, 12)[0]

    def h(k):
        rho = math.sqrt(1 - p.gamma**2)
        return integrate.quad(lambda s: float(tea.numpy(np.array([p.gamma * k + rho * s]))[0]) * phi(s), -12, 12)[0]

    e00 = integrate.quad(lambda k: mu0(k) ** 2 * phi(k), -10, 10, epsabs=1e-11)[0]
    e0h = integrate.quad(lambda k: mu0(k) * h(k) * phi(k), -10, 10, epsabs=1e-11)[0]
    ey2 = tea.constants().second_moment
    feats = large_step_features(step, kappa_nodes=48)
    res = ck_spectrum(step, points=20, width=1000.0, kappa_nodes=48)
    o = res.outliers[0]
    assert o.location_per_width == pytest.approx(e00, rel=1e-7)
    assert o.location == pytest.approx(1000 * e00, rel=1e-7)
    assert o.overlaps["labels"] == pytest.approx(e0h**2 / (e00 * ey2), rel=1e-6)
    assert o.overlaps["readout"] == pytest.approx(1.0, abs=1e-12)
    assert feats.r == pytest.approx(p.r)


def test_large_step_weights_outlier_against_the_bbp_root_for_a_uniform_readout():
    """Cui: W¹ = W̃ + r 1 vᵀ with W̃ᵀW̃ = c·MP(β) independent of the spike, so the rectangular
    BBP closed form applies at θ² = r²p: x = (cβ + θ²)(c + θ²)/θ²; the perturbation formula
    θ² + c + βc differs from it by c²β/θ²."""
    step = cui_step("tanh", "tanh", alpha=2.0, beta=1.5, eta_tilde=3.0, alpha0=2.0)
    bulk = weights_bulk_large(step)
    p = 1500.0
    o = weights_outlier_large(step, bulk, p)
    c, beta, th = step.srf.c, 1.5, step.srf.r**2 * p
    exact = (c * beta + th) * (c + th) / th
    assert abs(o.location - exact) == pytest.approx(c * c * beta / th, rel=1e-9)
    # the readout overlap: closed form (θ'⁴ − β)/(θ'²(θ'² + β)) with θ'² = θ²/c, to O(1/θ⁴)
    tp = th / c
    assert o.overlaps["readout"] == pytest.approx((tp**2 - beta) / (tp * (tp + beta)), abs=2 * (beta / tp) ** 2)


def test_gaussian_equivalence_at_the_large_step_is_the_limit_of_the_small_step_formula():
    """The GE prediction at the large step (λ/N → μ1² r², labels → γ² μ1*²/E y²) is the θ → ∞ limit
    of the η = Θ(1) outlier: with η = c√N at a finite N the small-step theory approaches it."""
    big = ba_step("tanh", "tanh", psi1=2.0, psi2=1.0, eta=1.0, noise=0.1, regime="large")
    ge = ck_spectrum(big, points=10, equivalence="gaussian").outliers[0]
    N = 4e4
    small = ba_step("tanh", "tanh", psi1=2.0, psi2=1.0, eta=math.sqrt(N), noise=0.1)
    o = ck_spectrum(small, points=10).outliers[0]
    assert o.location / N == pytest.approx(ge.location_per_width, rel=2e-3)
    for k in ("labels", "teacher", "teacher_linear", "readout"):
        assert o.overlaps[k] == pytest.approx(ge.overlaps[k], abs=2e-3)
