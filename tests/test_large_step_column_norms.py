"""The norms of Ba et al.'s Gaussian initial columns as types of the finite-N large-step theory
(asymptotics.theory.large_step.column_norms; docs/large-step-exact.md §4).

References: the moments of χ²_d/d and the Gaussian expectations of erf' in closed form, and the
simulated network, paired on common random numbers (the same seed with its W⁰ columns as drawn or
normalised to the sphere), against the theory's difference between Gaussian and unit columns.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from asymptotics.activations import activation
from asymptotics.errors import ParameterError
from asymptotics.theory.large_step.column_norms import column_norm_rule, norm_factors
from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension
from validation.simulator.config import BaConfig
from validation.simulator.protocols import run_seed


@pytest.mark.parametrize("d", [2.0, 7.5, 250.0, 4000.0])
def test_rule_reproduces_the_chi_square_moments(d):
    rho2, w = column_norm_rule(d, 6)
    assert np.all(rho2 > 0) and abs(w.sum() - 1) < 1e-14
    for k in range(1, 12):                      # exact up to degree 2m - 1 = 11
        exact = math.prod((d + 2 * j) / d for j in range(k))      # E (χ²_d/d)^k
        assert w @ rho2**k == pytest.approx(exact, rel=1e-11)


def test_factors_are_the_closed_forms_for_erf_and_one_for_relu():
    # erf'(x) = (2/√π) e^{-x²}: E erf'(ρz) = (2/√π)/√(1 + 2ρ²), E erf'(ρz)² = (4/π)/√(1 + 4ρ²)
    rho2 = np.array([0.6, 1.0, 1.37])
    m1 = 2 / np.sqrt(np.pi) / np.sqrt(1 + 2 * rho2)
    var = 4 / np.pi / np.sqrt(1 + 4 * rho2) - m1**2
    f1, f2 = norm_factors(activation("erf"), rho2)
    np.testing.assert_allclose(f1, m1 / m1[1], rtol=1e-13)
    np.testing.assert_allclose(f2, var / var[1], rtol=1e-12)
    g1, g2 = norm_factors(activation("relu"), rho2)      # σ' = 1{x > 0} does not see the scale
    np.testing.assert_allclose(g1, 1.0, rtol=1e-13)
    np.testing.assert_allclose(g2, 1.0, rtol=1e-13)


def test_refusals_name_the_parameter():
    with pytest.raises(ParameterError, match="initial_columns"):
        gaussian_readout_risk("erf", "erf", 8, 2, 1e-3, width=500, initial_columns="sphere")
    with pytest.raises(ParameterError, match="d"):
        column_norm_rule(1.0)
    with pytest.raises(ParameterError, match="initial_columns"):
        BaConfig(d=50, initial_columns="orthogonal")


def test_infinite_width_is_the_quoted_limit_and_types_are_counted_per_readout():
    # N = ∞ has no column-norm term: the quoted limit .0259 of the independent derivation (docs §2)
    res = gaussian_readout_risk("erf", "erf", 8, 2, 1e-3, noise=0.1, width=[math.inf, 500.0, 1000.0],
                                initial_columns="gaussian")
    assert abs(res[0].risk1 - 0.0259) <= 5e-5 and res[0].initial_columns == "gaussian"
    assert res[1].types == res[2].types                      # K counts readout types, not (u, ρ²) pairs
    assert res[1].readout_values.size == 6 * res[1].types
    assert np.isclose(res[1].readout_weights.sum(), 1.0, rtol=1e-13)


# (setting, d, seeds): the paired difference R1(Gaussian columns) − R1(unit columns) of the network
# (step on the labels, as in the theory) has s.e. ≈ 0.05e-3 (erf) and 0.3e-3 (ReLU) at these sizes;
# the theory's difference is −0.39e-3 (erf, d = 250) and −2.95e-3 (ReLU, d = 250)
_SETTINGS = {
    "erf": (dict(student="erf", teacher="erf", psi1=8.0, psi2=2.0, lam=1e-3), 250, 24),
    "relu": (dict(student="relu", teacher="relu", psi1=8.0, psi2=1.0, lam=1e-2), 250, 16),
}


@pytest.mark.parametrize("name", sorted(_SETTINGS))
def test_column_norm_effect_against_the_paired_network(name):
    point, d, seeds = _SETTINGS[name]
    base = dict(point, d=d, eta=1.0, eta_exponent=0.5, noise=0.1, measure=("risk",), gradient="labels")
    diff = np.array([run_seed(BaConfig(**base), 11, i, threads=1)["risk1"]
                     - run_seed(BaConfig(**base, initial_columns="unit"), 11, i, threads=1)["risk1"] for i in range(seeds)])
    mean, se = diff.mean(), diff.std(ddof=1) / math.sqrt(seeds)
    N = width_from_dimension(point["psi2"], d)
    # a list of widths (one model per width with Gaussian columns), as the finite-size verdicts call it
    th = [gaussian_readout_risk(point["student"], point["teacher"], point["psi1"], point["psi2"], point["lam"],
                                noise=0.1, width=[math.inf, N], initial_columns=c)[1].risk1 for c in ("gaussian", "unit")]
    expected = th[0] - th[1]
    assert expected < 0 and mean < 0
    assert abs(mean - expected) <= 4 * se, (mean, se, expected)


def test_module_doctests():
    import doctest

    import asymptotics.theory.large_step.column_norms as mod

    failed, tried = doctest.testmod(mod)
    assert failed == 0 and tried >= 3


def test_the_rho_rule_is_converged(monkeypatch):
    """The documented resolution: 6 nodes of the χ²_d/d rule against 10 (a convergence check of the
    discretisation, not a reference value)."""
    import asymptotics.theory.large_step.gaussian_readout.model as model

    def risk():
        model._tabulated.cache_clear()
        return gaussian_readout_risk("erf", "erf", 8, 2, 1e-3, noise=0.1, width=500.0, initial_columns="gaussian",
                                     check=False).risk1

    six = risk()
    monkeypatch.setattr(model, "COLUMN_NODES", 10)
    ten = risk()
    model._tabulated.cache_clear()
    assert abs(six - ten) <= 1e-8 * six          # the fixed point itself is solved to ~1e-9 relative
