"""Marchenko–Pastur layer against independent references: closed forms, quadrature of the
closed-form density (docs/engine.md §7), published reference values, and a small Monte-Carlo."""

import math

import numpy as np
import pytest
from scipy import integrate

from asymptotics.errors import ParameterError
from asymptotics.numerics.marchenko_pastur import (
    gram_stieltjes,
    gram_stieltjes_derivative,
    mp_atom,
    mp_companion_stieltjes,
    mp_density,
    mp_edges,
    mp_stieltjes,
    mp_stieltjes_derivative,
    wtw_stieltjes,
    wtw_stieltjes_derivative,
)
from asymptotics.numerics.marchenko_pastur_numba import (
    gram_stieltjes_derivative_nb,
    gram_stieltjes_nb,
    mp_density_nb,
    mp_stieltjes_derivative_nb,
    mp_stieltjes_nb,
    wtw_stieltjes_nb,
)

RATIOS = [0.3, 1.0, 2.5]


def density_closed_form(x, g):
    """√((λ₊ − x)(x − λ₋))/(2πγx) on [λ₋, λ₊] (docs/engine.md §7), written out independently."""
    lo, hi = (1 - math.sqrt(g)) ** 2, (1 + math.sqrt(g)) ** 2
    if not lo < x < hi:
        return 0.0
    return math.sqrt((hi - x) * (x - lo)) / (2 * math.pi * g * x)


def stieltjes_by_quadrature(z, g, power=1):
    """∫ρ(dx)/(x − z)^power over the closed-form density, plus the atom at 0."""
    lo, hi = (1 - math.sqrt(g)) ** 2, (1 + math.sqrt(g)) ** 2
    # substitution x = c + r cos θ removes the square-root endpoint singularities
    c, r = (lo + hi) / 2, (hi - lo) / 2

    def part(fn):
        val, _ = integrate.quad(
            lambda t: fn(c + r * math.cos(t)) * density_closed_form(c + r * math.cos(t), g) * r * math.sin(t),
            0,
            math.pi,
            epsabs=1e-14,
            epsrel=1e-13,
            limit=200,
        )
        return val

    re = part(lambda x: ((1 / (x - z)) ** power).real)
    im = part(lambda x: ((1 / (x - z)) ** power).imag)
    atom = max(0.0, 1 - 1 / g)
    return re + 1j * im + atom * (1 / (0 - z)) ** power


def test_reference_values():
    # reference values: MP(γ = 0.5) at z = −0.5: m = 0.82843, companion 1.41421
    assert abs(mp_stieltjes(-0.5, 0.5) - 0.82843) < 5e-6
    assert abs(mp_companion_stieltjes(-0.5, 0.5) - 1.41421) < 5e-6
    # closed forms of the quadratics: m = −2 + 2√2, m̄ = √2
    assert abs(mp_stieltjes(-0.5, 0.5) - (2 * math.sqrt(2) - 2)) < 1e-15
    assert abs(gram_stieltjes(-0.5, 0.5) - math.sqrt(2)) < 1e-15


ZS = [-3.0, -0.5, -1e-3, 1.0 + 1.0j, 0.5 + 1e-3j, 2.0 - 0.5j, 50.0 + 0.1j, 9.0, -1e5]


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")  # near-axis z: quad is pessimistic
@pytest.mark.parametrize("g", RATIOS)
@pytest.mark.parametrize("z", ZS)
def test_stieltjes_equals_integral_of_the_density(z, g):
    lo, hi = mp_edges(g)
    if isinstance(z, float) and lo <= z <= hi:
        pytest.skip("on the support")
    m = mp_stieltjes(z, g)
    ref = stieltjes_by_quadrature(z, g)
    assert abs(m - ref) <= 1e-9 * max(1, abs(ref))
    assert isinstance(m, float if isinstance(z, float) else complex)
    # and it solves the quadratic
    assert abs(g * z * m * m + (z + g - 1) * m + 1) <= 1e-12 * max(1, abs(z) * abs(m) ** 2)
    dm = mp_stieltjes_derivative(z, g)
    assert abs(dm - stieltjes_by_quadrature(z, g, power=2)) <= 1e-8 * max(1, abs(dm))


def test_branch_properties():
    g = 0.7
    rng = np.random.default_rng(1)
    z = rng.normal(size=500) * 3 + 1j * np.abs(rng.normal(size=500)) * 2 + 1e-6j
    m = mp_stieltjes(z, g)
    assert np.all(m.imag > 0)  # Herglotz: Im m > 0 for Im z > 0
    np.testing.assert_allclose(mp_stieltjes(np.conj(z), g), np.conj(m), rtol=1e-14)
    assert np.all(mp_stieltjes(-np.geomspace(1e-4, 1e4, 50), g) > 0)
    big = np.array([1e7, -1e7, 1e7j, 3e6 - 4e6j])
    np.testing.assert_allclose(mp_stieltjes(big, g) * big, -1.0, rtol=1e-6)  # m ~ −1/z
    # real z to the right of the support: m real negative; between 0 and λ₋ (γ < 1): positive
    assert mp_stieltjes(10.0, g) < 0 < mp_stieltjes(0.01, g)


@pytest.mark.parametrize("g", [0.25, 1.0, 4.0])
def test_density_integrates_to_one_with_the_atom(g):
    lo, hi = mp_edges(g)
    mass, _ = integrate.quad(lambda x: mp_density(x, g), lo, hi, limit=200, epsabs=1e-13)
    mean, _ = integrate.quad(lambda x: x * mp_density(x, g), lo, hi, limit=200, epsabs=1e-13)
    atom = mp_atom(g)
    assert atom == pytest.approx(max(0.0, 1 - 1 / g), abs=1e-15)
    assert mass + atom == pytest.approx(1.0, abs=1e-9)
    assert mean == pytest.approx(1.0, abs=1e-9)  # E x = tr M / p = 1
    xs = np.linspace(lo - 0.5, hi + 0.5, 301)
    np.testing.assert_allclose(mp_density(xs, g), [density_closed_form(x, g) for x in xs], atol=1e-13)
    np.testing.assert_allclose([mp_density_nb(x, g) for x in xs], [density_closed_form(x, g) for x in xs],
                               atol=1e-13)  # the same formula compiled


def test_density_is_the_stieltjes_inversion_limit():
    g = 0.5
    xs = np.linspace(0.2, 2.8, 27)
    for eps in (1e-8,):
        approx = mp_stieltjes(xs + 1j * eps, g).imag / math.pi
        np.testing.assert_allclose(approx, mp_density(xs, g), atol=1e-6)


@pytest.mark.parametrize("psi2", [0.5, 1.0, 2.0])
def test_gram_and_wtw_transforms(psi2):
    z = np.array([-2.0, -0.3, -1e-3, 0.4 + 0.2j, 3.0 - 1j, 20.0])
    mbar = gram_stieltjes(z, psi2)
    m = wtw_stieltjes(z, psi2)
    assert np.max(np.abs(z * mbar**2 + (1 + z - psi2) * mbar + 1)) < 1e-12 * np.max(np.abs(mbar)) ** 2 + 1e-12
    np.testing.assert_allclose(mbar, psi2 * m + (psi2 - 1) / z, rtol=1e-10)  # docs/mathematics.md
    np.testing.assert_allclose(m, -1 / (z * (1 + mbar)), rtol=1e-10)
    d = gram_stieltjes_derivative(z, psi2)
    np.testing.assert_allclose(d, mbar**2 * (1 + mbar) ** 2 / ((1 + mbar) ** 2 - psi2 * mbar**2), rtol=1e-10)
    np.testing.assert_allclose(
        wtw_stieltjes_derivative(z, psi2), mp_stieltjes_derivative(z, psi2), rtol=1e-14
    )
    # the d×d and N×N traces: same nonzero spectrum
    assert np.all(np.asarray(gram_stieltjes(-np.geomspace(1e-3, 10, 20), psi2)) > 0)


def test_gram_against_monte_carlo():
    d, psi2 = 400, 1.5
    N = int(psi2 * d)
    rng = np.random.default_rng(np.random.SeedSequence(20240601))
    ev = np.linalg.eigvalsh((lambda W: W @ W.T)(rng.standard_normal((d, N)) / math.sqrt(d)))
    for z in (-0.5, -0.05, 1.0 + 0.5j):
        emp = np.mean(1 / (ev - z))
        # fluctuations of linear statistics are O(1/d); the bias of the mean is O(1/d) too
        assert abs(emp - gram_stieltjes(z, psi2)) < 10 / d


def test_compiled_twins_against_quadrature_of_the_density():
    """The compiled scalar twins (the numpy formulas compiled by numba) against ∫ρ(dx)/(x − z)^k
    of the closed-form density, and the ψ2-relations of the d×d and N×N transforms."""
    for g in (0.3, 1.0, 2.5):
        for z in (-0.5, -3.0, 1.0 + 1.0j, 0.2 - 0.4j, 12.0):
            a = mp_stieltjes_nb(z, g)
            assert type(a) is type(z) or (isinstance(z, float) and isinstance(a, float))
            assert abs(a - stieltjes_by_quadrature(z, g)) < 1e-10 * max(1, abs(a))
            d = mp_stieltjes_derivative_nb(z, g)
            assert abs(d - stieltjes_by_quadrature(z, g, power=2)) < 1e-9 * max(1, abs(d))
            assert wtw_stieltjes_nb(z, g) == a
            # W0 W0^T = psi2 MP(1/psi2): mbar(z) = m_{1/psi2}(z/psi2)/psi2, mbar' = m'_{1/psi2}(z/psi2)/psi2^2
            p = 1.0 / g
            mb = stieltjes_by_quadrature(z / p, g) / p
            assert abs(gram_stieltjes_nb(z, p) - mb) < 1e-10 * max(1, abs(mb))
            dmb = stieltjes_by_quadrature(z / p, g, power=2) / p**2
            assert abs(gram_stieltjes_derivative_nb(z, p) - dmb) < 1e-9 * max(1, abs(dmb))


def test_bad_input_is_a_parameter_error():
    with pytest.raises(ParameterError, match="z=1.0"):
        mp_stieltjes(1.0, 0.5)  # on the support
    with pytest.raises(ParameterError, match="atom"):
        mp_stieltjes(0.0, 2.0)  # the atom at 0
    with pytest.raises(ParameterError, match="atom"):
        gram_stieltjes(0.0, 0.5)
    assert gram_stieltjes(0.0, 2.0) > 0  # no atom of W₀W₀ᵀ when N > d: m̄(0) finite
    with pytest.raises(ParameterError, match="ratio"):
        mp_stieltjes(-1.0, 0.0)
    with pytest.raises(ParameterError, match="psi2"):
        gram_stieltjes(-1.0, -2.0)
    with pytest.raises(ParameterError, match="z"):
        mp_stieltjes(float("nan"), 0.5)
    with pytest.raises(ParameterError, match="z"):
        mp_stieltjes(np.array([-1.0, 2.0]), 1.0)
