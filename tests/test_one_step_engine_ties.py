"""Ties between the typed one-step formulas and derivations (docs/one-step.md, docs/engine.md).

* η_c = ψ2^{1/4}/(|μ1| s) (typed in ``spike_parameters``) is the root in η of the BBP indicator
  z'(m̄) at the pole, which is *derived* by Woodbury algebra and rendered offline
  (``_spike_generated.bbp_indicator``): it vanishes there and changes sign across it.
* The BBP test of every consumer is that derived indicator (also where θ⁴ overflows).
* Route B's effective ridge κ and df2 (a typed Newton on the Marchenko–Pastur closed form) are the
  traces of the engine's random-features ridge pencil (registry ``rf_ridge``, lowered by
  :func:`asymptotics.codegen.lower`): with Adlam–Pennington's K = ΦΦᵀ (n×n), λ_AP = ψ1λ/ψ2,
  τ1 = tr(K + λ_AP)⁻¹/n = (ψ2/ψ1)/κ (the standard identity λ tr(Σ̂_n + λ)⁻¹/n → λ/κ), and
  dτ1/dλ_AP = −(ψ2/ψ1)²/(κ²(1 − df2)) (from dλ/dκ = 1 − df2) — derived at run time by the engine's
  implicit differentiation.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from asymptotics.codegen import lower
from asymptotics.symbolic import get_system, implicit_derivatives
from asymptotics.theory.one_step import (
    OneStepModel,
    bbp_separated,
    ck_outlier,
    critical_learning_rate,
    effective_ridge,
    spike,
)
from asymptotics.theory.one_step import _spike_generated as gen
from asymptotics.theory.one_step.spike_parameters import spike_parameters

PAIRS = [("tanh", "tanh", 0.1), ("erf", "relu", 0.3), ("relu", "softplus", 0.0), ("softplus", "sin", 1.0)]


@pytest.mark.parametrize("student,teacher,noise", PAIRS)
def test_critical_learning_rate_is_the_root_of_the_derived_bbp_indicator(student, teacher, noise):
    m = OneStepModel.from_activations(student, teacher, noise=noise)
    rng = np.random.default_rng(np.random.SeedSequence(17))
    psi1, psi2 = 10 ** rng.uniform(-1, 1.5, 200), 10 ** rng.uniform(-1.5, 1.5, 200)
    eta_c = np.asarray(critical_learning_rate(m, psi1, psi2))
    th = spike_parameters(m, psi1, psi2, eta_c).theta_sq
    ind = gen.bbp_indicator(th, psi2)
    # the indicator is (θ⁴ − ψ2)(θ² + 1)²/θ⁴: at the root its scale is ψ2 (θ² + 1)²/θ⁴ times rounding
    scale = psi2 * (th + 1) ** 2 / th**2
    assert np.max(np.abs(ind) / scale) < 1e-13
    for eps, sign in ((-1e-6, -1), (1e-6, 1)):
        p = spike_parameters(m, psi1, psi2, eta_c * (1 + eps))
        assert np.all(np.sign(gen.bbp_indicator(p.theta_sq, psi2)) == sign)
        assert np.all(p.separated == (sign > 0))


def test_bbp_test_is_the_derived_indicator_everywhere():
    rng = np.random.default_rng(np.random.SeedSequence(3))
    th, p2 = 10 ** rng.uniform(-3, 3, 2000), 10 ** rng.uniform(-3, 3, 2000)
    assert np.array_equal(bbp_separated(th, p2), th**2 > p2)
    # θ⁴ overflows (inf/inf in the raw expression) but the spike is separated
    assert bbp_separated(1e200, 3.0) and not bbp_separated(0.0, 3.0)
    m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    eta = np.linspace(0, 10, 41)
    sp_ = spike(m, 2.0, 1.5, eta)
    assert np.array_equal(sp_.separated, gen.bbp_indicator(np.where(sp_.theta_sq > 0, sp_.theta_sq, 1.0), 1.5) > 0)
    ck = ck_outlier(m, 2.0, 1.5, eta)
    assert not np.any(ck.separated & ~sp_.separated)  # a CK outlier needs a population spike


def test_spike_parameter_identities():
    """θ² = θ1² + θ2² = η²μ1²s² and θ²ρ² = θ1² (three functions, one relation)."""
    m = OneStepModel.from_activations("erf", "relu", noise=0.2)
    rng = np.random.default_rng(np.random.SeedSequence(5))
    psi1, psi2, eta = 10 ** rng.uniform(-1, 1, 500), 10 ** rng.uniform(-1, 1, 500), rng.uniform(0.1, 10, 500)
    p = spike_parameters(m, psi1, psi2, eta)
    np.testing.assert_allclose(p.theta_sq, eta**2 * m.mu1**2 * p.s_sq, rtol=1e-14)  # a few roundings on each side
    np.testing.assert_allclose(p.theta_sq * p.rho_sq, p.theta1_sq, rtol=1e-14)  # a few roundings on each side


@pytest.fixture(scope="module")
def rf_ridge_lowered():
    lam = sp.Symbol("lam")
    return lower("rf_ridge"), lower(implicit_derivatives(get_system("rf_ridge"), lam, outputs=["tau1"]))


def _solve(L, vals):
    p = np.array([vals[str(q)] for q in L.parameters], dtype=float)
    x, status, _, res, _floor = L.module.newton(L.module.start(p), p, 1e-300, 1e-14, 200)
    assert res < 1e-12, (status, res, vals)
    return dict(zip(L.outputs, L.module.outputs(x, p), strict=True))


@pytest.mark.parametrize("student,teacher,noise", PAIRS[:3])
def test_route_b_effective_ridge_is_the_engine_rf_ridge_trace(rf_ridge_lowered, student, teacher, noise):
    Ltau, Ldtau = rf_ridge_lowered
    m = OneStepModel.from_activations(student, teacher, noise=noise)
    rng = np.random.default_rng(np.random.SeedSequence(23))
    for _ in range(25):
        psi1, psi2, lam = 10 ** rng.uniform(-0.7, 0.7), 10 ** rng.uniform(-0.7, 0.7), 10 ** rng.uniform(-3, 1)
        er = effective_ridge(m, psi1, psi2, lam)
        vals = dict(lam=psi1 * lam / psi2, phi=1 / psi1, psi=1 / psi2, eta=m.mu1**2 + m.mu2_sq, zeta=m.mu1**2)
        tau1 = _solve(Ltau, vals)["tau1"]
        assert tau1 * er.kappa * psi1 / psi2 == pytest.approx(1.0, rel=1e-12, abs=0)  # observed ≤ 3e-15
        dtau = _solve(Ldtau, vals)["dtau1_dlam"]
        one_minus_df2 = -((psi2 / psi1) ** 2) / (er.kappa**2 * dtau)
        assert one_minus_df2 == pytest.approx(1 - er.df2, rel=1e-12)  # observed ≤ 6e-15
