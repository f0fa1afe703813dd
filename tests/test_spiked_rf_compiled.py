"""The compiled sRF path (docs/spiked-rf.md, "How it is computed"): kernels against independent references.

References, each independent of the code under test:
- Newton's method with a finite-difference Jacobian on the plain-numpy reduced maps of
  ``asymptotics.theory.spiked_rf.priors`` (another solver, another implementation of the maps);
- closed forms of Gaussian expectations (erf, sin, ReLU) and mpmath quadrature for tanh;
- the reference values of docs/spiked-rf.md (tables of Cui et al. §6–§8) and the linear floor in
  closed form.

The compiled Anderson solve and the small dense linear algebra the kernels include are the
numerics layer's, tested against their own references in ``tests/test_numerics_anderson_linalg.py``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import special

import asymptotics.theory.spiked_rf.fixed_point as fp
from asymptotics.activations import activation
from asymptotics.errors import ParameterError
from asymptotics.solvers import Newton, continuation
from asymptotics.theory.spiked_rf import (
    cget_coefficients,
    channel_model,
    cui_to_srf,
    phase_diagram,
    readout_types,
    solve_spiked_rf,
    spiked_rf_curve,
    spiked_rf_grid,
    srf_parameters,
    target_functions,
)
from asymptotics.theory.spiked_rf.cget import shifted_gaussian_moments
from asymptotics.theory.spiked_rf.priors import choose_prior

FIELDS = ("test_error", "train_error", "V1", "V2", "Q1", "Q2", "m", "t", "psi", "V1hat", "V2hat", "Q1hat",
          "q2hat", "that", "psihat")


def _python_curve(model, alphas, beta, lam, solver, prior=None):
    """The plain-Python path: reduced maps of priors.py, a Python solver, fixed_point._assemble."""
    chosen = choose_prior(model, prior)
    results = continuation(lambda xs, a: fp._reduced_solve(model, a, beta, lam, chosen, solver, xs), None,
                           list(alphas))
    return [fp._finish(model, a, beta, lam, r, chosen, solver.name, "raise") for a, r in zip(alphas, results, strict=True)]


def _assert_same(a, b, rtol, atol=1e-13):
    for f in FIELDS:
        np.testing.assert_allclose(np.ravel(getattr(a, f)), np.ravel(getattr(b, f)), rtol=rtol, atol=atol, err_msg=f)


CASES = [((5.0, 1.0, "tanh", "tanh"), 1.0, 0.01), ((3.0, 2.0, "tanh", "sin"), 0.5, 0.05),
         ((3.0, 2.0, "tanh", "sin"), 2.0, 0.05), ((1.0, 0.5, "relu", "relu"), 1.0, 0.01),
         ((2.0, 3.0, "erf", "x + (x**3 - 3*x)/sqrt(6)"), 1.5, 0.1), ((5.0, 1.0, "tanh", "tanh"), 1.0, 1e-6)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-beta{c[1]}-lam{c[2]}")
def test_compiled_equals_newton_on_the_numpy_maps(case):
    (eta, a0, s, t), beta, lam = case
    m = channel_model(cui_to_srf(eta, a0, s, t), s, t)
    alphas = [0.3, 1.0, 2.5, 6.0]
    got = spiked_rf_curve(m, alphas, beta, lam)
    ref = _python_curve(m, alphas, beta, lam, Newton(atol=1e-14, rtol=1e-14))
    for a, b in zip(got, ref, strict=True):
        assert a.converged and a.residual < 1e-10
        # both solve the same equations to ~1e-12 (conditioning ~1/λ at λ = 1e-6)
        _assert_same(a, b, rtol=1e-9 if lam < 1e-3 else 1e-10, atol=1e-11)


def test_k_types_compiled_equals_newton():
    m = channel_model(cui_to_srf(3.0, 20.0, "tanh", "sin", readout=[0.3, 1.7]), "tanh", "sin")
    got = spiked_rf_curve(m, [1.0, 3.0], 1.0, 0.1)
    ref = _python_curve(m, [1.0, 3.0], 1.0, 0.1, Newton(atol=1e-14, rtol=1e-14))
    for a, b in zip(got, ref, strict=True):
        _assert_same(a, b, rtol=1e-9, atol=1e-11)
    # docs/spiked-rf.md §7: u ∈ {0.3, 1.7}, r = 1.5, γ = 1, c = 1, α = 3: 0.0147
    s = solve_spiked_rf(channel_model(srf_parameters(1.0, 1.5, 1.0, readout_types([0.3, 1.7])), "tanh", "sin"),
                        3.0, 1.0, 0.01)
    assert s.test_error == pytest.approx(0.0147, abs=5e-5)


def test_finite_spectrum_compiled_equals_newton():
    from asymptotics.theory.spiked_rf import sample_spectrum

    m = channel_model(cui_to_srf(2.0, 3.0, "tanh", "sin"), "tanh", "sin")
    spec = sample_spectrum(400, 200, m.params.c, seed=5)
    got = spiked_rf_curve(m, [0.5, 2.0], 0.5, 0.05, prior=spec)
    ref = _python_curve(m, [0.5, 2.0], 0.5, 0.05, Newton(atol=1e-14, rtol=1e-14), prior=spec)
    for a, b in zip(got, ref, strict=True):
        assert a.prior == "finite"
        _assert_same(a, b, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# compiled Gaussian moments (trapezoid on a shared grid; split Gauss–Legendre)


def test_trapezoid_moments_erf_closed_form():
    # E erf(a + bz) = erf(a/√(1+2b²)); E[z erf(a + bz)] = b E erf'(a + bz) = (2b/√π) e^{−a²/(1+2b²)}/√(1+2b²)
    a = np.linspace(-7.0, 7.0, 41)
    for b in (0.05, 0.6, 1.0, 2.3):
        m0, m1, m2, err = shifted_gaussian_moments(activation("erf"), a, b)
        s = 1 + 2 * b * b
        np.testing.assert_allclose(m0, special.erf(a / math.sqrt(s)), rtol=0, atol=2e-15)
        np.testing.assert_allclose(m1, 2 * b / math.sqrt(math.pi) * np.exp(-a * a / s) / math.sqrt(s), rtol=0, atol=2e-15)
        assert err < 1e-12


def test_trapezoid_moments_tanh_against_mpmath():
    mpmath.mp.dps = 30
    a, b = np.array([-3.1, 0.0, 0.7, 5.0]), 1.37
    m0, m1, m2, _ = shifted_gaussian_moments(activation("tanh"), a, b)
    for i, ai in enumerate(a):
        def E(f, ai=ai):
            return mpmath.quad(lambda z: f(z) * mpmath.npdf(z), [-mpmath.inf, -4, 0, 4, mpmath.inf])
        g = lambda z, ai=ai: mpmath.tanh(ai + b * z)  # noqa: E731
        assert m0[i] == pytest.approx(float(E(g)), abs=2e-15)
        assert m1[i] == pytest.approx(float(E(lambda z, g=g: z * g(z))), abs=2e-15)
        assert m2[i] == pytest.approx(float(E(lambda z, g=g: g(z) ** 2)), abs=2e-15)


def test_trapezoid_and_legendre_agree_and_target_closed_form():
    k = np.linspace(-6, 6, 25)
    auto = cget_coefficients("tanh", 2.64, 1.96, k)
    legendre = cget_coefficients("tanh", 2.64, 1.96, k, degree=16)
    assert auto.inner[0][0][0] == "trapezoid" and legendre.inner[0][0][0] == "legendre"
    for f in ("mu0", "mu1", "mu2_sq"):
        np.testing.assert_allclose(getattr(auto, f), getattr(legendre, f), rtol=0, atol=1e-13)
    # sin target: h = sin(γκ) e^{−ρ²/2}, h̃1 = ρ cos(γκ) e^{−ρ²/2}, h̃2 = (1 − cos(2γκ) e^{−2ρ²})/2
    g = 0.35
    rho = math.sqrt(1 - g * g)
    tf = target_functions("sin", g, k)
    e = math.exp(-rho**2 / 2)
    np.testing.assert_allclose(tf.h, np.sin(g * k) * e, atol=2e-15)
    np.testing.assert_allclose(tf.h1t, rho * np.cos(g * k) * e, atol=2e-15)
    np.testing.assert_allclose(tf.h2t, (1 - np.cos(2 * g * k) * math.exp(-2 * rho**2)) / 2, atol=2e-15)


def test_tables_cached_and_read_only():
    p = cui_to_srf(3.0, 2.0, "tanh", "sin")
    a = channel_model(p, "tanh", "sin")
    b = channel_model(p, "tanh", "sin", noise=0.3)          # the noise does not enter the tables
    assert a.mu0 is b.mu0 and b.noise_var == pytest.approx(0.09)
    with pytest.raises(ValueError):
        a.mu0[0, 0] = 1.0


# ---------------------------------------------------------------------------------------------
# grids and the phase diagram


def test_grid_equals_curves_and_reference_values():
    models = [channel_model(cui_to_srf(e, 1.0, "tanh", "tanh"), "tanh", "tanh") for e in (0.0, 5.0)]
    models.append(channel_model(cui_to_srf(3.0, 20.0, "tanh", "sin"), "tanh", "sin"))   # another κ rule size
    alphas, betas, lams = [3.0, 0.5, 1.5], [1.0, 0.5], [0.01, 0.1]
    seen = []
    g = spiked_rf_grid(models, alphas, betas, lams, threads=2, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (12, 12)
    assert g.shape == (3, 2, 2, 3) and g.converged.all()
    for i, m in enumerate(models):
        for j, b in enumerate(betas):
            for k, lam in enumerate(lams):
                ref = spiked_rf_curve(m, alphas, b, lam)
                np.testing.assert_array_equal(g.test_error[i, j, k], [s.test_error for s in ref])
                assert g.solution(i, j, k, 0).as_dict() == ref[0].as_dict()
    # docs/spiked-rf.md §8: RF .412/.254/.167 and η̃ = 5, α0 = 1: .316/.319/.191 (α = .5, 1.5, 3, λ = .01)
    np.testing.assert_allclose(g.test_error[0, 0, 0], [0.167, 0.412, 0.254], atol=5e-4)
    np.testing.assert_allclose(g.test_error[1, 0, 0], [0.191, 0.316, 0.319], atol=5e-4)
    # sin/tanh, η̃ = 3, α0 = 20, λ = 0.1: .0463/.0379/.0325
    np.testing.assert_allclose(g.test_error[2, 0, 1], [0.0325, 0.0463, 0.0379], atol=5e-5)


def test_grid_point_values_are_those_of_the_solutions():
    """The per-point arrays a large grid's rows are built from equal the solution objects' rows
    (every converged point; failed ones have no numbers and keep their solution object)."""
    m = channel_model(cui_to_srf(1.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    g = spiked_rf_grid([m], [0.5, 3.0, 1.5], [1.0, 2.0], [0.0, 0.01])
    assert not g.converged.all() and g.converged.any()
    vals = g.point_values()
    for idx in zip(*np.nonzero(g.converged), strict=True):
        row = g.solution(*idx).as_dict()
        for key, arr in vals.items():
            v = arr[idx].item()
            assert v == row[key] and type(v) is type(row[key]), key


def test_phase_diagram_contours():
    pd = phase_diagram([0.5, 1.5, 3.0, 300.0], [0.0, 5.0], alpha0=1.0, lam=0.01)
    assert pd.test_error.shape == (2, 4) and pd.converged.all()
    np.testing.assert_allclose(pd.rf_error[:3], [0.412, 0.254, 0.167], atol=5e-4)
    np.testing.assert_allclose(pd.test_error[0], pd.rf_error, rtol=1e-12)     # η̃ = 0 is random features
    assert pd.linear_floor == pytest.approx(0.0274153260354303, abs=1e-13)     # μ2*² of tanh
    assert pd.gain[1, 0] > 0.09 and pd.gain[1, 1] < -0.06                   # §6: the step helps, then hurts
    assert (pd.rf_error > pd.linear_floor).all()                            # no RF goes below the floor
    assert pd.r[0] == 0.0 and pd.c[1] == pytest.approx(1.961, abs=5e-4)
    rows = pd.as_rows()
    assert len(rows) == 8 and rows[5]["test_error"] == pd.test_error[1, 1]


def test_grid_bad_input():
    m = channel_model(cui_to_srf(1.0, 1.0, "tanh", "tanh"), "tanh", "tanh")
    for kwargs, name in (({"alphas": [-1.0]}, "alpha"), ({"betas": [0.0]}, "beta"), ({"lams": [-1.0]}, "lam")):
        base = {"alphas": [1.0], "betas": [1.0], "lams": [0.01], **kwargs}
        with pytest.raises(ParameterError) as e:
            spiked_rf_grid([m], **base)
        assert e.value.name == name
    k2 = channel_model(cui_to_srf(1.0, 1.0, "tanh", "tanh", readout=[0.5, 1.5]), "tanh", "tanh")
    with pytest.raises(ParameterError):
        spiked_rf_grid([k2], [1.0], [1.0], [0.01])
    with pytest.raises(ParameterError):
        phase_diagram([1.0], [-1.0], alpha0=1.0)
    # failures are rows without numbers, never numbers: λ = 0 below the interpolation threshold
    g = spiked_rf_grid([m], [0.5, 3.0], [1.0], [0.0])
    assert not g.converged[0, 0, 0, 0] and math.isnan(g.test_error[0, 0, 0, 0]) and g.converged[0, 0, 0, 1]
    assert g.solution(0, 0, 0, 0).as_dict()["test_error"] is None


def test_phase_diagram_boundary_is_the_root_of_the_gain():
    from scipy import optimize

    from asymptotics.theory.spiked_rf import one_step_spiked_rf
    from asymptotics.theory.spiked_rf.special_cases import random_features_error

    alpha = 1.5
    rf = random_features_error(alpha, 1.0, 0.01, "tanh", "tanh").test_error
    root = optimize.brentq(lambda e: one_step_spiked_rf(alpha, 1.0, 1.0, e, 0.01, "tanh", "tanh").test_error - rf,
                           3.0, 4.0, xtol=1e-10)
    pd = phase_diagram([alpha], np.linspace(3.3, 3.8, 11), alpha0=1.0, lam=0.01)
    xs, ys = pd.boundary("rf")
    assert xs.tolist() == [alpha] and ys[0] == pytest.approx(root, abs=2e-4)   # linear interpolation, step 0.05
    with pytest.raises(ParameterError):
        pd.boundary("kernel")
