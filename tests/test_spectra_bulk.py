"""The bulks of the spectra: densities, edges, atoms and masses against closed forms and against
independent derivations (a second pencil, the spiked-covariance outlier map, the engine's typed
pencil)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from asymptotics.numerics.marchenko_pastur import mp_atom, mp_density, mp_edges
from asymptotics.symbolic import dyson_system, eliminate, get_system
from asymptotics.theory.one_step import OneStepModel, ck_bulk_edge
from asymptotics.theory.spectra import ba_step, ck_spectrum, ge_ck_bulk, mp_bulk, weights_spectrum
from asymptotics.theory.spectra.branch import BranchContinuation
from asymptotics.theory.spectra.mixture import KappaMixtureBulk, TypedGramBulk
from asymptotics.theory.spectra.pencils import typed_gram_pencil
from asymptotics.theory.spectra.support import bulk_mass, density, find_support


@pytest.mark.parametrize("psi2", [0.5, 1.0, 1.5, 3.0])
def test_marchenko_pastur_from_the_pencil(psi2):
    """Density, edges (1 ± √ψ2)², atom max(0, 1 − 1/ψ2) and mass = 1 − atom of W₀ᵀW₀."""
    bulk = mp_bulk(psi2)
    sup = find_support(bulk)
    lo, hi = mp_edges(psi2)
    assert len(sup.intervals) == 1
    assert sup.intervals[0][0] == pytest.approx(lo, abs=1e-11)
    assert sup.intervals[0][1] == pytest.approx(hi, abs=1e-11)
    assert sup.atom == pytest.approx(mp_atom(psi2), abs=1e-9)
    assert bulk_mass(bulk, sup.intervals) == pytest.approx(1 - mp_atom(psi2), abs=1e-8)
    x = np.linspace(0.01, hi + 0.5, 400)
    rho, _, sol = density(bulk, x)
    assert sol.converged
    np.testing.assert_allclose(rho, mp_density(x, psi2), atol=1e-12)


def test_the_branch_is_the_stieltjes_one_off_the_axis():
    """m(z) of the pencil at complex z equals the closed-form MP transform (Im m > 0 on ℂ₊)."""
    from asymptotics.numerics.marchenko_pastur import wtw_stieltjes

    bulk = mp_bulk(1.5)
    z = np.array([0.3 + 0.2j, 2.0 + 1e-3j, 6.0 + 0.5j, -1.0 + 0.1j])
    X, st = bulk.off_axis(z.real, np.concatenate([BranchContinuation().heights(bulk.scale)[:-1], [0.1]]))
    # off_axis ends at height 0.1 for every point; compare there
    m = bulk.m_of(X, z.real + 0.1j)
    assert np.all(st == 0)
    np.testing.assert_allclose(m, wtw_stieltjes(z.real + 0.1j, 1.5), rtol=1e-11)
    assert np.all(m.imag > 0)


def test_weights_spectrum_result_fields_and_grid():
    res = weights_spectrum(ba_step(psi1=2.0, psi2=1.5, eta=1.0, noise=0.1), points=200)
    assert res.x.size == 200 and res.converged and res.height == 0.0
    assert res.mass == pytest.approx(1 - res.atom, abs=1e-8)
    assert res.outliers == ()                        # η = 1 is below the BBP threshold here
    assert any("BBP" in n for n in res.notes)
    rows = res.rows()
    assert set(rows[0]) == {"x", "density"}
    meta = res.meta()
    assert meta["support"] == [list(i) for i in res.support.intervals] and meta["status"] == "converged"


def test_ge_ck_pencil_reduces_to_marchenko_pastur_without_the_linear_part():
    """μ1 = 0: (1/n)FᵀF = μ2² ZᵀZ/n, the law μ2²·MP(ψ2/ψ1)."""
    mu2_sq, psi1, psi2 = 0.3, 2.0, 1.5
    bulk = ge_ck_bulk(0.0, mu2_sq, psi1, psi2)
    x = np.linspace(0.01, 1.2, 300)
    rho, _, sol = density(bulk, x)
    assert sol.converged
    c = psi2 / psi1
    np.testing.assert_allclose(rho, mp_density(x / mu2_sq, c) / mu2_sq, atol=1e-11)


@pytest.mark.parametrize("psi1,psi2", [(3.0, 1.0), (2.0, 2.0), (1.0, 0.5), (1.0, 2.0)])
def test_ge_ck_edge_and_atom_against_the_outlier_map(psi1, psi2):
    """The right edge of the CK bulk from the pencil's fold equals x(ℓ_c) of the spiked-covariance
    outlier map (an independent derivation); the atom is max(0, 1 − ψ1/ψ2) (rank n of FᵀF)."""
    m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    bulk = ge_ck_bulk(m.mu1, m.mu2_sq, psi1, psi2)
    sup = find_support(bulk)
    assert sup.intervals[-1][1] == pytest.approx(ck_bulk_edge(m, psi1, psi2), rel=1e-11)
    assert sup.atom == pytest.approx(max(0.0, 1 - psi1 / psi2), abs=1e-8)
    assert bulk_mass(bulk, sup.intervals) == pytest.approx(1 - sup.atom, abs=1e-7)


def test_ck_spectrum_mass_and_edges_are_consistent():
    res = ck_spectrum(ba_step(psi1=3.0, psi2=1.0, eta=6.0, noise=0.1), points=300)
    assert res.converged and res.mass == pytest.approx(1 - res.atom, abs=1e-7)
    assert all(e.method == "fold" for e in res.support.edges)
    # the density vanishes outside the support and is positive inside
    a, b = res.support.intervals[0]
    inside = (res.x > a + 1e-6) & (res.x < b - 1e-6)
    assert np.all(res.density[inside] > 0) and np.all(res.density[(res.x > b + 1e-9)] == 0)


def test_kappa_mixture_without_spike_is_the_ge_pencil():
    """r = 0, c = 1 (constant cGET coefficients): the κ-mixture equals the Gaussian-equivalent
    pencil (two independent derivations of the random-features CK bulk)."""
    from asymptotics.gaussian import hermite_rule

    m = OneStepModel.from_activations("tanh", "tanh")
    _, w = hermite_rule(4)
    mix = KappaMixtureBulk(2.0, 1.5, np.asarray(w), np.full((1, 4), m.mu1), np.full((1, 4), m.mu2_sq),
                           np.ones(1), np.ones(1), 3.0)
    pen = ge_ck_bulk(m.mu1, m.mu2_sq, 2.0, 1.5)
    x = np.linspace(0.01, 3.0, 200)
    m1, s1 = mix.stieltjes_axis(x)
    m2, s2 = pen.stieltjes_axis(x)
    assert s1.converged and s2.converged
    np.testing.assert_allclose(m1, m2, atol=1e-11)


def test_kappa_mixture_jacobian_is_the_derivative_of_its_residual():
    rng = np.random.default_rng(0)
    A, K = 5, 3
    mix = KappaMixtureBulk(2.0, 1.5, np.full(A, 1 / A), rng.uniform(0.3, 0.8, (K, A)), rng.uniform(0.01, 0.1, (K, A)),
                           np.array([1.0, 1.5, 2.0]), np.array([0.2, 0.5, 0.3]), 5.0)
    X = rng.standard_normal(A + K) + 1j * rng.standard_normal(A + K)
    z = 1.0 + 0.5j
    _, J = mix.residual_jacobian(X, z)
    h = 1e-6
    fd = np.array([(mix.residual_jacobian(X + h * e, z)[0] - mix.residual_jacobian(X - h * e, z)[0]) / (2 * h)
                   for e in np.eye(A + K)]).T
    np.testing.assert_allclose(J, fd, atol=1e-7 * np.max(np.abs(J)))


def test_typed_gram_against_the_engine_and_marchenko_pastur():
    """Two column-variance types: the mixture equations equal the Dyson system the engine derives
    from the typed pencil; one type c is c·MP(ψ2)."""
    c, w, psi2 = np.array([1.0, 2.5]), np.array([0.3, 0.7]), 1.5
    bulk = TypedGramBulk(psi2, c, w, 1.02 * 2.5 * (1 + math.sqrt(psi2)) ** 2)
    z = 2.0 + 0.3j
    X, st = bulk.off_axis(np.array([z.real]), np.concatenate([BranchContinuation().heights(bulk.scale)[:5], [z.imag]]))
    assert st[0] == 0
    g = X[0, 0]
    sysm = dyson_system(typed_gram_pencil(2))
    red = eliminate(sysm, keep=[sp.Symbol("g11")])
    vals = {sp.Symbol("z"): z, sp.Symbol("psi2"): psi2, sp.Symbol("c1"): c[0], sp.Symbol("c2"): c[1],
            sp.Symbol("w1"): w[0], sp.Symbol("w2"): w[1], sp.Symbol("g11"): g}
    scale = max(abs(complex(t.subs(vals))) for t in sp.Add.make_args(sp.expand(red.equations[0])))
    assert abs(complex(red.equations[0].subs(vals))) <= 1e-12 * scale
    one = TypedGramBulk(2.0, np.array([1.7]), np.ones(1), 1.02 * 1.7 * (1 + math.sqrt(2.0)) ** 2)
    x = np.linspace(0.05, 10.0, 200)
    rho, _, sol = density(one, x)
    assert sol.converged
    np.testing.assert_allclose(rho, mp_density(x / 1.7, 2.0) / 1.7, atol=1e-10)


def test_registered_spectral_systems_exist():
    assert get_system("spectrum_ck_ge").unknowns == (sp.Symbol("g11"), sp.Symbol("g22"))
    assert get_system("spectrum_ck_ge_edges").outputs["edge"] == sp.Symbol("z")
