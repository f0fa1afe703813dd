"""The step's self term (asymptotics/theory/spiked_rf/self_term.py).

References, each independent of the code under test:
* k = η̃ E[σ⁽³⁾] ‖ĝ‖ against mpmath quadrature of the derivatives (no Stein's lemma) and closed forms
  (h1* = e^{-1/2}, E sin² = (1 − e^{-2})/2); the code computes it as r E[σ⁽³⁾]/E[σ'] from the map's r
  and the Hermite constants; c − 1 of the map against the same mpmath quadratures;
* k = 0 against the library's sRF solver (compiled assembly, a separate code path);
* the sRF model *with* the self term simulated by the library's simulator (``srf`` protocol,
  ``self_term``), paired with the same seeds without it: the difference of test errors has a
  seed-to-seed spread of ≈ 2·10⁻⁴ at d = 500, so 12 seeds measure it to ≈ 5·10⁻⁵ (2–4 % of the
  effect); the tolerance is 4 paired standard errors (a false failure about once in 10⁴ runs);
* the trained network itself (validation/studies/step_decomposition.py, plain numpy): the part of each
  column's update along its own w⁰ⱼ regresses on ⟨w⁰ⱼ, v⟩ with slope k.
"""

import math

import mpmath as mp
import numpy as np
import pytest

from asymptotics.errors import ParameterError
from asymptotics.theory.spiked_rf import (
    channel_model,
    cui_to_srf,
    readout_types,
    solve_spiked_rf,
    srf_parameters,
)
from asymptotics.theory.spiked_rf.self_term import (
    one_step_self_term,
    self_term_coefficient,
    self_term_mean_function,
    solve_self_term_srf,
)
from validation.simulator.config import SRFConfig
from validation.simulator.protocols import run_seed

#: the sin table of Cui et al. (tanh student, η̃ = 3, α0 = 20, λ = 0.1)
SIN = dict(eta_tilde=3.0, alpha0=20.0, lam=0.1)


def _gauss(f):
    return mp.quad(lambda x: f(x) * mp.exp(-x * x / 2), [-mp.inf, 0, mp.inf]) / mp.sqrt(2 * mp.pi)


def test_coefficient_is_eta_times_third_derivative_times_gradient_norm():
    mp.mp.dps = 30
    e3 = _gauss(lambda x: mp.diff(mp.tanh, x, 3))            # E tanh⁽³⁾(g)
    h1s = _gauss(lambda x: x * mp.sin(x))                      # E[g sin g] = e^{-1/2}
    ey2 = _gauss(lambda x: mp.sin(x) ** 2)                     # (1 − e^{-2})/2
    assert float(h1s) == pytest.approx(math.exp(-0.5), rel=1e-15)
    assert float(ey2) == pytest.approx((1 - math.exp(-2)) / 2, rel=1e-15)
    gnorm = mp.sqrt(h1s**2 + ey2 / 20)
    k = self_term_coefficient(3.0, 20.0, "tanh", "sin")
    assert k == pytest.approx(3.0 * float(e3 * gnorm), rel=1e-11)
    # α0 = ∞: ‖ĝ‖ = h1*; a kinked teacher, E[g relu(g)] = 1/2 (the centring constant drops out)
    assert self_term_coefficient(2.0, math.inf, "tanh", "relu") == pytest.approx(2.0 * 0.5 * float(e3), rel=1e-11)
    assert self_term_coefficient(0.0, 20.0, "tanh", "sin") == 0.0


@pytest.fixture(scope="module")
def sin_model():
    return channel_model(cui_to_srf(SIN["eta_tilde"], SIN["alpha0"], "tanh", "sin"), "tanh", "sin", 0.0)


@pytest.mark.parametrize("alpha", [0.5, 3.0])
def test_zero_self_term_is_the_srf_fixed_point(sin_model, alpha):
    plain = solve_spiked_rf(sin_model, alpha, 1.0, SIN["lam"])
    s = solve_self_term_srf(sin_model, alpha, 1.0, SIN["lam"], 0.0, "tanh")
    assert s.test_error == pytest.approx(plain.test_error, rel=1e-10)
    assert s.train_error == pytest.approx(plain.train_error, rel=1e-10)
    assert s.t == pytest.approx(float(plain.t[0]), rel=1e-9)
    assert s.psi == pytest.approx(float(plain.psi[0]), rel=1e-9, abs=1e-12)
    assert s.residual < 1e-9


def test_one_step_point_reports_both_and_converges():
    s = one_step_self_term(3.0, SIN["alpha0"], 1.0, SIN["eta_tilde"], SIN["lam"], "tanh", "sin")
    assert s.status.label == "converged" and s.residual < 1e-9
    # c − 1 = η̃² E y² Var σ'(g)/α0 of the isotropic map, by mpmath
    mp.mp.dps = 30
    d1 = _gauss(lambda x: mp.diff(mp.tanh, x, 1))
    var_d1 = _gauss(lambda x: mp.diff(mp.tanh, x, 1) ** 2) - d1**2
    ey2 = (1 - mp.exp(-2)) / 2
    assert s.bulk_excess == pytest.approx(float(9 * ey2 * var_d1 / 20), rel=1e-10)
    # the self term lowers the error at this point (the network's 0.0312 ± 0.0003, docs/finite-size.md)
    assert s.test_error < s.test_error_without
    row = s.as_dict()
    assert row["status"] == "converged" and math.isfinite(row["test_error"])


@pytest.mark.parametrize("student", ["tanh", "Max(-1, Min(1, x))"])
def test_mean_function_against_mpmath(student):
    """e(κ) = k √c E[z σ'(rκ + √c z)] against mpmath's quadrature (split where σ' jumps: hardtanh's
    kinks at ±1 move with κ)."""
    p = cui_to_srf(SIN["eta_tilde"], SIN["alpha0"], student, "sin")
    model = channel_model(p, student, "sin", 0.0)
    k = -0.7
    e, err = self_term_mean_function(model, k, student)
    c, r = float(p.bulk[0]), float(p.r)
    sc = math.sqrt(c)
    mp.mp.dps = 25
    nodes = model.rule.nodes
    for i in np.flatnonzero(np.abs(nodes) < 3.0)[::4]:
        s = r * float(nodes[i])
        if student == "tanh":
            f, pts = (lambda z, s=s: z * mp.sech(s + sc * z) ** 2), [-mp.inf, 0, mp.inf]
        else:
            f, pts = (lambda z, s=s: z * (1 if abs(s + sc * z) < 1 else 0)), [-mp.inf, (-1 - s) / sc, (1 - s) / sc, mp.inf]
        ref = k * sc * mp.quad(lambda z, f=f: f(z) * mp.exp(-z * z / 2), pts) / mp.sqrt(2 * mp.pi)
        assert e[i] == pytest.approx(float(ref), rel=1e-11, abs=1e-14)
    assert err < 1e-12


@pytest.mark.parametrize("k", [-0.6807555, 1.5])
def test_self_term_against_the_simulated_srf_model(k):
    p = cui_to_srf(SIN["eta_tilde"], SIN["alpha0"], "tanh", "sin")
    model = channel_model(p, "tanh", "sin", 0.0)
    th = solve_self_term_srf(model, 3.0, 1.0, SIN["lam"], k, "tanh")
    predicted = th.test_error - th.test_error_without
    base = dict(student="tanh", teacher="sin", d=500, alpha=3.0, beta=1.0, lam=SIN["lam"], c=p.bulk[0], r=p.r,
                gamma=p.gamma)
    diff = np.array([run_seed(SRFConfig(**base, self_term=k), 7, i, threads=1)["test_error"]
                     - run_seed(SRFConfig(**base), 7, i, threads=1)["test_error"] for i in range(12)])
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    assert abs(predicted) > 10 * se                      # the effect is resolved …
    assert abs(diff.mean() - predicted) <= 4 * se        # … and predicted


def test_refusals_name_the_parameter(sin_model):
    typed = channel_model(srf_parameters(1.0, 1.5, 1.0, readout_types((0.5, 1.5), (0.5, 0.5))), "tanh", "sin", 0.0)
    with pytest.raises(ParameterError, match="readout"):
        solve_self_term_srf(typed, 3.0, 1.0, 0.01, -0.5, "tanh")
    with pytest.raises(ParameterError, match="self_term"):
        solve_self_term_srf(sin_model, 3.0, 1.0, 0.01, math.nan, "tanh")
    with pytest.raises(ParameterError, match="student"):
        one_step_self_term(3.0, 20.0, 1.0, 3.0, 0.1, "relu", "sin")
    with pytest.raises(ParameterError, match="eta_tilde"):
        self_term_coefficient(-1.0, 20.0, "tanh", "sin")
    with pytest.raises(ParameterError, match="alpha0"):
        self_term_coefficient(3.0, 0.0, "tanh", "sin")
    with pytest.raises(ParameterError, match="self_term"):
        SRFConfig(d=100, self_term=math.inf)


def test_docstring_examples_run():
    import doctest

    import asymptotics.api.srf_structured as api_module
    import asymptotics.theory.spiked_rf.self_term as mod

    for m in (mod, api_module):
        failed, tried = doctest.testmod(m)
        assert failed == 0 and tried > 0, m.__name__


def test_the_network_carries_the_self_term():
    """validation/studies/step_decomposition.py (plain numpy, independent of the library): in the
    trained network the part of each column's update along its own w⁰ⱼ regresses on ⟨w⁰ⱼ, v⟩ with
    slope k. At d = 300 one seed scatters by ≈ 0.011 around k (six seeds: −0.665 … −0.695 against
    k = −0.681); the tolerance, 0.06, is more than 5 scatters."""
    from validation.studies import step_decomposition as tool

    k = self_term_coefficient(3.0, 20.0, "tanh", "sin")
    k_tool, gam = tool.self_term_k(3.0, 20.0, "sin")
    assert k_tool == pytest.approx(k, rel=1e-10)                           # Gauss–Hermite vs composite rule
    assert gam == pytest.approx(cui_to_srf(3.0, 20.0, "tanh", "sin").gamma, rel=1e-10)
    out = tool.one_seed(np.random.default_rng(np.random.SeedSequence([5, 300])), 300, "sin", 3.0, 20.0, 0.1, 3.0)
    assert out["slope of s on ⟨w⁰, v⟩ (k)"] == pytest.approx(k, abs=0.06)
    assert all(math.isfinite(v) and v > 0 for name, v in out.items() if not name.startswith("slope"))
