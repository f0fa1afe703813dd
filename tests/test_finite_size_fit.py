"""The extrapolation itself, validated on synthetic ground truth.

Per-seed data are drawn from value = L + b·d^{-ω} + σ·d^{-1/2}·ε (ε standard normal, k seeds per d)
with a known L; the whole pipeline of a study (per-d means, the pooled seed variance, the weighted
fit or the ω-selection average) must recover L within its stated error L ± 1.96·se(L) in 95 % of
400 repetitions — asserted with a binomial tolerance of 3 standard deviations, √(0.95·0.05/400) =
0.011 — and the χ² test must reject a clearly wrong model. References: closed forms (exact data),
numpy.polyfit's weighted least squares (an independent implementation), binomial statistics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from validation.finite_size.allocation import allocate_seeds
from validation.finite_size.fit import PowerLawModel, candidate_models, extrapolate, weighted_fit
from validation.finite_size.ladder import geometric_ladder
from validation.finite_size.variance import fit_variance_model, standard_errors
from validation.finite_size.verdict import extrapolation_verdict, finite_width_verdict

REPS = 400
NOMINAL = 0.95
TOL = 3 * math.sqrt(NOMINAL * (1 - NOMINAL) / REPS)  # 0.033
DIMS = np.array(geometric_ladder(250, 4000), dtype=float)
QUICK_DIMS = np.array(geometric_ladder(200, 800), dtype=float)
L_TRUE = 0.7


def _ladder_data(rng, dims, omega, b, k, sigma=2.0):
    """Per-seed values at each d: L + b·d^-ω + σ d^-1/2 ε."""
    return [L_TRUE + b * d**-omega + sigma * d**-0.5 * rng.standard_normal(k) for d in dims]


def _coverage(seed, dims, omega, b, k, omegas, max_terms):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(REPS):
        means, ses, method, _ = standard_errors(dims, _ladder_data(rng, dims, omega, b, k))
        ex = extrapolate(dims, means, ses, omegas, max_terms)
        hits += abs(ex.limit - L_TRUE) <= 1.96 * ex.limit_se
    return hits / REPS


# ---- exact data and an independent implementation --------------------------------------------------

@pytest.mark.parametrize("omega,terms", [(0.5, 1), (1.0, 1), (0.5, 2), (1.0, 2)])
def test_exact_data_recovered(omega, terms):
    coef = (0.7, -3.0, 5.0)[: terms + 1]
    x = DIMS**-omega
    y = coef[0] + coef[1] * x + (coef[2] * x * x if terms == 2 else 0.0)
    f = weighted_fit(DIMS, y, np.full(DIMS.size, 1e-3), PowerLawModel(omega, terms))
    np.testing.assert_allclose(f.coef, coef, rtol=1e-9, atol=1e-9)
    assert f.chi2 == pytest.approx(0.0, abs=1e-12)
    assert f.inflation == 1.0 and f.dof == DIMS.size - terms - 1


def test_weighted_fit_matches_numpy_polyfit():
    rng = np.random.default_rng(11)
    se = 0.01 * (1 + rng.random(DIMS.size))
    y = 0.7 - 3.0 / np.sqrt(DIMS) + 4.0 / DIMS + se * rng.standard_normal(DIMS.size)
    f = weighted_fit(DIMS, y, se, PowerLawModel(0.5, 2))
    x = DIMS**-0.5
    p, cov = np.polyfit(x, y, 2, w=1 / se, cov="unscaled")  # highest power first
    np.testing.assert_allclose(f.coef, p[::-1], rtol=1e-10)
    chi2 = float(np.sum(((np.polyval(p, x) - y) / se) ** 2))
    assert f.chi2 == pytest.approx(chi2, rel=1e-10)
    scale = max(chi2 / (DIMS.size - 3), 1.0)  # the Birge inflation
    np.testing.assert_allclose(f.cov, cov[::-1, ::-1] * scale, rtol=1e-9)


def test_prediction_band_is_the_covariance_quadratic_form():
    f = weighted_fit(DIMS, 0.7 + 1.0 / DIMS, np.full(DIMS.size, 1e-2), PowerLawModel(1.0))
    value, se = f.predict([1e15])  # d → ∞: the limit and its standard error
    assert value[0] == pytest.approx(f.limit, abs=1e-12)
    assert se[0] == pytest.approx(f.limit_se, rel=1e-6)


def test_candidates_and_bad_input():
    assert [m.label for m in candidate_models((0.5, 1.0), 3)] == ["L + b·d^-1/2", "L + b·d^-1"]
    from asymptotics.errors import ParameterError

    with pytest.raises(ParameterError, match="ses"):
        weighted_fit(DIMS, DIMS * 0, np.zeros(DIMS.size), PowerLawModel(1.0))
    with pytest.raises(ParameterError, match="omega"):
        PowerLawModel(-1.0)
    with pytest.raises(ParameterError, match="at least 3 dimensions"):
        extrapolate([100, 200], [1.0, 1.0], [0.1, 0.1])


# ---- coverage on synthetic ground truth ------------------------------------------------------------

@pytest.mark.parametrize("omega", [0.5, 1.0])
def test_coverage_known_omega(omega):
    """ω known (the model is the truth's): L ± 1.96 se covers L in 95 % of repetitions."""
    cov = _coverage(100 + int(2 * omega), DIMS, omega, -3.0, 6, (omega,), 1)
    assert NOMINAL - TOL <= cov <= min(1.0, NOMINAL + TOL + 0.02), cov


@pytest.mark.parametrize("omega,b,dims", [(0.5, -3.0, DIMS), (1.0, -3.0, DIMS), (0.5, -3.0, QUICK_DIMS),
                                          (1.0, -10.0, QUICK_DIMS)])
def test_coverage_omega_selected(omega, b, dims):
    """ω unknown ({1/2, 1} and the two-term model, AICc weights, unconditional se): the truth is either
    power; the averaged limit still covers L in ≥ 95 % of repetitions (within the binomial tolerance)."""
    cov = _coverage(200 + int(10 * omega) + dims.size, dims, omega, b, 6, (0.5, 1.0), 2)
    assert cov >= NOMINAL - TOL, cov


@pytest.mark.parametrize("omega,k,dims", [(0.5, 3, QUICK_DIMS), (1.0, 3, QUICK_DIMS), (0.5, 4, DIMS), (1.0, 4, DIMS)])
def test_verdict_passes_a_true_theory_in_95_percent(omega, k, dims):
    """The verdict of a study, end to end (pooled errors with their degrees of freedom, ω selected, the
    F-test of the fit, |L − theory| ≤ 3 se(L), no allowance) on synthetic data whose limit *is* the
    theory: it passes in ≥ 95 % of repetitions, with the pilot's seeds only (3 quick, 4 default)."""
    rng = np.random.default_rng(300 + int(10 * omega) + dims.size)
    passed = 0
    for _ in range(REPS):
        per_seed = _ladder_data(rng, dims, omega, -3.0, k)
        means, ses, method, vm = standard_errors(dims, per_seed)
        nu = float((k - 1) * dims.size - (dims.size - vm.dof)) if method == "pooled" else float(k - 1)
        ex = extrapolate(dims, means, ses, (0.5, 1.0), 2, variance_dof=nu)
        passed += extrapolation_verdict(L_TRUE, ex.limit, ex.limit_se, ex.best.p_value).passed
    assert passed / REPS >= NOMINAL, passed / REPS


def test_misspecified_omega_is_rejected_and_would_not_cover():
    """A clearly wrong model (ω = 1 fitted to a d^-1/2 approach): the χ² test rejects it (p < 0.01) in
    most repetitions, and its limit would miss L — the coverage tests above can fail."""
    rng = np.random.default_rng(7)
    rejected = covered = 0
    for _ in range(REPS):
        means, ses, _, _ = standard_errors(DIMS, _ladder_data(rng, DIMS, 0.5, -5.0, 10, sigma=0.5))
        f = weighted_fit(DIMS, means, ses, PowerLawModel(1.0))
        rejected += f.p_value < 0.01
        covered += abs(f.limit - L_TRUE) <= 1.96 * f.limit_se
    assert rejected / REPS >= 0.9
    assert covered / REPS <= 0.5
    # the selection rule picks the right power on the same kind of data
    means, ses, _, _ = standard_errors(DIMS, _ladder_data(rng, DIMS, 0.5, -5.0, 10, sigma=0.5))
    assert extrapolate(DIMS, means, ses, (0.5, 1.0)).best.model.omega == 0.5


def test_p_values_calibrated_with_estimated_variances():
    """The F test (variances estimated from seeds) rejects a correct model at its nominal rate."""
    rng = np.random.default_rng(5)
    n_rej = 0
    for _ in range(REPS):
        per_seed = _ladder_data(rng, DIMS, 1.0, -3.0, 4)
        means, ses, method, _ = standard_errors(DIMS, per_seed)
        nu = DIMS.size * 3 - 2 if method == "pooled" else 3
        n_rej += weighted_fit(DIMS, means, ses, PowerLawModel(1.0), variance_dof=nu).p_value < 0.05
    rate = n_rej / REPS
    assert abs(rate - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / REPS), rate


# ---- variance model, allocation, verdicts ------------------------------------------------------------

def test_variance_model_recovers_power_and_rejects_a_wrong_shape():
    rng = np.random.default_rng(3)
    k = 40
    per_seed = [d**-0.5 * rng.standard_normal(k) for d in DIMS]
    vm = fit_variance_model(DIMS, [v.var(ddof=1) for v in per_seed], [k] * DIMS.size)
    vm = fit_variance_model(DIMS, [v.var(ddof=1) for v in per_seed], [k] * DIMS.size, curvature=False)
    assert vm.slope == pytest.approx(-1.0, abs=0.15) and vm.acceptable
    # σ²(d) = d^-1 + a constant floor 1e-3 (a test-set error): not one power law over this ladder;
    # the curvature term absorbs it
    k = 1000
    per_seed = [np.sqrt(1 / d + 1e-3) * rng.standard_normal(k) for d in DIMS]
    svar = [v.var(ddof=1) for v in per_seed]
    assert not fit_variance_model(DIMS, svar, [k] * DIMS.size, curvature=False).acceptable
    vm = fit_variance_model(DIMS, svar, [k] * DIMS.size)
    assert vm.acceptable
    np.testing.assert_allclose(vm.variance(DIMS), 1 / DIMS + 1e-3, rtol=0.1)
    # a variance that no smooth model describes: the per-d errors are used
    wild = [(3.0 if j % 2 else 1.0) * d**-0.5 * rng.standard_normal(k) for j, d in enumerate(DIMS)]
    _, _, method, _ = standard_errors(DIMS, wild)
    assert method == "per-d"


def test_allocation_targets_and_budget():
    var = {"x": 1.0 / DIMS, "y": 0.5 / DIMS}
    t = 1e-6 * DIMS**2
    plan = allocate_seeds(DIMS, 4, var, {"x": 0.005, "y": 0.005}, t, max_seeds=1000, budget_s=1e9, spent_s=0.0)
    expected = np.maximum(4, np.ceil((1.0 / DIMS) / 0.005**2)).astype(int)
    assert plan.seeds == tuple(expected) and plan.capped_by == "none"
    assert np.all(plan.expected_se["x"] <= 0.005 + 1e-15)
    # a budget smaller than needed: one common scale, never below the pilot, within the budget
    need = float(np.sum((expected - 4) * t))
    plan = allocate_seeds(DIMS, 4, var, {"x": 0.005, "y": 0.005}, t, max_seeds=1000, budget_s=0.3 * need + 1.0,
                          spent_s=1.0)
    assert plan.capped_by == "budget" and 0 < plan.scale < 1
    assert min(plan.seeds) >= 4 and plan.estimated_s <= 0.3 * need + 1.0 + 1e-9
    assert "scaled the seeds" in plan.note and "× the target" in plan.note


def test_verdict_rules():
    assert extrapolation_verdict(1.0, 1.0299, 0.01, 0.5).passed
    assert not extrapolation_verdict(1.0, 1.0301, 0.01, 0.5).passed  # no allowance: 3.01 s.e.
    v = extrapolation_verdict(1.0, 1.0, 0.01, 0.001)
    assert not v.passed and "does not fit" in v.reason
    ok = finite_width_verdict([1.0, 2.0, 3.0], [0.1, 0.1, 0.1], [1.05, 1.95, 3.0])
    assert ok.passed and ok.chi2 == pytest.approx(0.5)
    bad = finite_width_verdict([1.0, 2.0, 3.0], [0.1, 0.1, 0.1], [1.4, 2.0, 3.0])
    assert not bad.passed and bad.z == pytest.approx(-4.0)
