"""The priors of the sRF fixed point (docs/spiked-rf.md, "How it is computed"): one interface, and the
ties of their typed closed forms to the engine's derivations.

* Marchenko–Pastur (typed closed form, :mod:`asymptotics.theory.spiked_rf.prior_mp`): the five
  resolvent moments equal the engine's MP pencil (registry ``mp_gram``: the W₀ᵀW₀ transform m with
  ψ2 = β, and its z-derivative by the engine's implicit differentiation, lowered by
  :func:`asymptotics.codegen.lower`) at z = −1/u, on random points, to 1e-12.
* Block MP (typed closed form, :mod:`.readout_types`): tied to the engine's 2K-block pencil in
  ``tests/test_spiked_rf.py::test_block_mp_derived_by_engine``; here, at K = 1 it equals the MP prior
  (two independent closed forms).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from asymptotics.codegen import lower
from asymptotics.errors import ParameterError
from asymptotics.symbolic import get_system, implicit_derivatives
from asymptotics.theory.spiked_rf import (
    BlockMarchenkoPastur,
    FiniteSpectrum,
    MarchenkoPastur,
    channel_model,
    choose_prior,
    mp_resolvent_moments,
    sample_spectrum,
    srf_parameters,
)


@pytest.fixture(scope="module")
def engine_mp():
    """m(z) of W₀ᵀW₀ (ψ2 = N/d) and m'(z), from the MP pencil with its z-tangent, compiled."""
    return lower(implicit_derivatives(get_system("mp_gram"), sp.Symbol("z"), outputs=["m"]))


def _engine_m(L, z, ratio):
    vals = {"z": z, "psi2": ratio}
    p = np.array([vals[str(q)] for q in L.parameters], dtype=float)
    x, status, _, res, _floor = L.module.newton(L.module.start(p), p, 1e-300, 1e-15, 100)
    assert res < 1e-13, (status, res, z, ratio)
    y = dict(zip(L.outputs, L.module.outputs(x, p), strict=True))
    return y["m"], y["dm_dz"]


def test_mp_closed_form_is_the_engine_mp_pencil(engine_mp):
    """MP(β) (law of GGᵀ/d, G ∈ ℝ^{p×d}) is the law of W₀ᵀW₀ with ψ2 = β; at z = −1/u:
    A0 = m/u, B0 = m'/u², A1 = (1 − A0)/u, B1 = (A0 − B0)/u, B2 = (1 − 2A0 + B0)/u²."""
    rng = np.random.default_rng(np.random.SeedSequence(29))
    for _ in range(300):
        u, beta = 10 ** rng.uniform(-1, 1.5), 10 ** rng.uniform(-0.7, 0.7)  # β on both sides of 1 (the atom)
        m, dm = _engine_m(engine_mp, -1.0 / u, beta)
        A0, B0 = m / u, dm / u**2
        ref = np.array([A0, (1 - A0) / u, B0, (A0 - B0) / u, (1 - 2 * A0 + B0) / u**2])
        np.testing.assert_allclose(np.array(mp_resolvent_moments(u, beta)), ref, rtol=1e-12, atol=0)


@pytest.fixture(scope="module")
def models():
    one = channel_model(srf_parameters(1.4, 1.2, 0.7), "tanh", "sin")
    two = channel_model(srf_parameters(1.0, 1.0, 1.0, (0.3, 1.7)), "tanh", "sin")
    return one, two


def test_prior_is_chosen_once_with_clear_errors(models):
    one, two = models
    assert isinstance(choose_prior(one), MarchenkoPastur) and isinstance(choose_prior(two), BlockMarchenkoPastur)
    assert isinstance(choose_prior(one, "block-mp"), BlockMarchenkoPastur)
    spec = sample_spectrum(60, 40, 1.4, seed=1)
    assert isinstance(choose_prior(one, spec), FiniteSpectrum) and choose_prior(one, spec).spectrum is spec
    assert [choose_prior(one, p).name for p in (None, "block-mp", spec)] == ["mp", "block-mp", "finite"]
    with pytest.raises(ParameterError, match="block-mp"):
        choose_prior(two, "mp")
    with pytest.raises(ParameterError, match="K = 1"):
        choose_prior(two, spec)
    with pytest.raises(ParameterError, match="prior"):
        choose_prior(one, "wishart")


def test_block_prior_with_one_type_equals_the_mp_prior(models):
    one, _ = models
    rng = np.random.default_rng(np.random.SeedSequence(31))
    for _ in range(20):
        lam, beta = 10 ** rng.uniform(-3, 0), 10 ** rng.uniform(-0.5, 0.5)
        V1h, V2h = np.array([[10 ** rng.uniform(-2, 1)]]), np.array([10 ** rng.uniform(-3, 0)])
        mp = MarchenkoPastur().at(one, lam, beta, V1h, V2h, None)
        blk = BlockMarchenkoPastur().at(one, lam, beta, V1h, V2h, mp.V2)
        th, ph = rng.normal(size=1), rng.normal(size=1)
        Q1h, q2h = np.array([[rng.uniform(0, 1)]]), rng.uniform(0, 1, 1)
        for a, b in ((mp.V1, blk.V1), (mp.V2, blk.V2), (mp.spike_response, blk.spike_response),
                     (mp.orthogonal_overlap(ph), blk.orthogonal_overlap(ph)), (mp.variance_map, blk.variance_map),
                     (mp.variance_source(th, ph), blk.variance_source(th, ph)),
                     (mp.second_order(Q1h, q2h, th, ph), blk.second_order(Q1h, q2h, th, ph))):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("which", ["mp", "block-mp", "finite"])
def test_second_order_traces_split_into_variance_map_and_sources(models, which):
    """The solver uses (q1, q2) = L (q̂1, q̂2) + f(t̂, ψ̂); the published prior equations give the same."""
    one, two = models
    model = two if which == "block-mp" else one
    prior = choose_prior(model, sample_spectrum(300, 200, 1.4, seed=2) if which == "finite" else which)
    K = model.K
    rng = np.random.default_rng(np.random.SeedSequence(37))
    A = rng.uniform(0.1, 1, (K, K))
    V1h, V2h = A @ A.T, rng.uniform(0.01, 0.5, K)
    pt = prior.at(model, 0.05, 0.8, V1h, V2h, np.full(K, 1.0))
    B = rng.uniform(0, 1, (K, K))
    Q1h, q2h, th, ph = B @ B.T, rng.uniform(0, 1, K), rng.normal(size=K), rng.normal(size=K)
    y = pt.variance_map @ np.concatenate([Q1h.ravel(), q2h]) + pt.variance_source(th, ph)
    np.testing.assert_allclose(pt.second_order(Q1h, q2h, th, ph), y, rtol=1e-12, atol=1e-15)
