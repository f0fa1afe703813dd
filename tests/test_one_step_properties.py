"""Properties stated by Ba et al. (docs/one-step.md §3, Thm. "δ", Fact 4) and of the spike (§1),
checked with hypothesis over parameters and activation pairs (routes B and C)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from asymptotics.errors import DegenerateWarning
from asymptotics.theory.one_step import OneStepModel, limits, risk, spike

STUDENTS = ["tanh", "erf", "he3"]          # he3: μ1 = 0
TEACHERS = ["tanh", "erf", "relu", "softplus", "he2"]  # he2: μ1* = 0
MODELS = {}


def model(s, t, noise):
    key = (s, t, round(noise, 6))
    if key not in MODELS:
        MODELS[key] = OneStepModel.from_activations(s, t, noise=noise)
    return MODELS[key]


logu = lambda lo, hi: st.floats(np.log(lo), np.log(hi)).map(np.exp)  # noqa: E731
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _risk(m, *a, route="B"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        return risk(m, *a, route=route)


@SETTINGS
@given(s=st.sampled_from(STUDENTS), t=st.sampled_from(TEACHERS), noise=st.floats(0, 1),
       psi1=logu(0.1, 20), psi2=logu(0.1, 20), lam=logu(1e-4, 10),
       eta=st.one_of(st.just(0.0), st.floats(1e-6, 10)),  # (η ~ 1e-200 would underflow θ1² = η²μ1²μ1*²)
       route=st.sampled_from("BC"))
def test_delta_properties(s, t, noise, psi1, psi2, lam, eta, route):
    m = model(s, t, noise)
    r = _risk(m, psi1, psi2, lam, eta, route=route)
    floor = m.mu2_star_sq
    tol = 1e-12 * max(1.0, r.risk0)
    assert r.delta >= -tol                                    # δ ≥ 0
    assert r.risk1 >= floor - tol                             # R1 ≥ μ2*² (best linear predictor)
    assert r.delta <= r.risk0 - floor + tol                   # δ ≤ R0 − μ2*²
    signal = eta * m.mu1 * m.mu1_star
    if signal == 0:                                           # δ = 0 iff η μ1 μ1* = 0
        assert r.delta == 0
    else:
        assert r.delta > 0


@SETTINGS
@given(s=st.sampled_from(["tanh", "erf"]), t=st.sampled_from(["tanh", "erf", "relu", "softplus"]),
       psi2=logu(0.1, 20), lam=logu(1e-4, 10), eta=st.floats(0.01, 10), factor=st.floats(1.01, 3))
def test_delta_increases_with_eta_at_infinite_samples(s, t, psi2, lam, eta, factor):
    m = model(s, t, 0.0)
    d1 = limits.delta_infinite_samples(m, psi2, lam, eta)
    d2 = limits.delta_infinite_samples(m, psi2, lam, eta * factor)
    assert d2 > d1 > 0
    # the same from route B at ψ1 = 10⁹
    b = risk(m, 1e9, psi2, lam, [eta, eta * factor]).delta
    assert b[1] > b[0]


@SETTINGS
@given(s=st.sampled_from(["tanh", "erf"]), t=st.sampled_from(["tanh", "erf", "relu", "softplus"]),
       noise=st.floats(0, 1), psi1=logu(0.1, 20), lam=logu(1e-4, 10), eta=st.floats(0.1, 10))
def test_delta_vanishes_as_width_grows(s, t, noise, psi1, lam, eta):
    m = model(s, t, noise)
    psi2 = np.array([1e3, 1e4, 1e5, 1e6])
    d = risk(m, psi1, psi2, lam, eta).delta
    assert np.all(np.diff(d) < 0) and d[-1] < 1e-2 * d[0]
    C = limits.delta_infinite_width_coefficient(m, psi1, eta)
    assert abs(d[-1] * 1e6 - C) < 0.05 * C                   # δ ≈ C/ψ2


@SETTINGS
@given(s=st.sampled_from(["tanh", "erf", "he3"]), t=st.sampled_from(["tanh", "erf", "relu", "he2"]),
       noise=st.floats(0, 1), psi1=logu(0.1, 20), psi2=logu(0.1, 20), eta=st.floats(0, 20))
def test_overlaps(s, t, noise, psi1, psi2, eta):
    m = model(s, t, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        sp = spike(m, psi1, psi2, eta)
    for v in (sp.overlap_beta, sp.overlap_a, sp.overlap_u):
        assert 0 <= v <= 1
    assert sp.overlap_beta <= sp.overlap_u + 1e-15              # ⟨u₁,β*⟩² = ρ²⟨u₁,u⟩²
    if sp.theta_sq**2 <= psi2:                                 # zero below the threshold
        assert sp.overlap_beta == sp.overlap_a == sp.overlap_u == 0
        assert sp.top_sv2 == pytest.approx((1 + np.sqrt(psi2)) ** 2)
    else:
        assert sp.top_sv2 >= (1 + np.sqrt(psi2)) ** 2 - 1e-12


@SETTINGS
@given(s=st.sampled_from(["tanh", "erf"]), t=st.sampled_from(["tanh", "erf", "relu"]), noise=st.floats(0, 1),
       psi1=logu(0.1, 20), psi2=logu(0.1, 20), eps=logu(1e-10, 1e-3))
def test_overlaps_continuous_at_the_threshold(s, t, noise, psi1, psi2, eps):
    m = model(s, t, noise)
    sp0 = spike(m, psi1, psi2, 1.0)
    eta_c = sp0.eta_threshold
    assume(np.isfinite(eta_c))
    lo, hi = spike(m, psi1, psi2, np.array([eta_c * (1 - eps), eta_c * (1 + eps)])).overlap_beta
    assert lo == 0 and 0 <= hi <= 10 * eps
    e_lo, e_hi = spike(m, psi1, psi2, np.array([eta_c * (1 - eps), eta_c * (1 + eps)])).top_sv2
    assert abs(e_hi - e_lo) <= 100 * eps * e_lo
