"""The batched trapezoid ladder of cget_coefficients (one compiled call for every type) gives the
numbers, rules and error estimates of the per-type ladder, bit for bit, including the rows that
fall back to Gauss–Legendre (grid too large)."""

import math

import numpy as np
import pytest

from asymptotics.theory.spiked_rf import cget as C


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_batched_ladder_equals_per_type_ladder(name):
    kappa = np.polynomial.hermite_e.hermegauss(41)[0]
    spikes = np.array([-3.0, -0.4, 0.0, 0.7, 2.5, 4e4])       # the last needs a grid > MAX_TRAPEZOID_GRID
    bulk = np.array([0.3, 1.0, 2.0, 0.8, 1.5, 1.0])
    co = C.cget_coefficients(name, spikes, bulk, kappa)
    kern = C.moment_kernels(C.as_activation(name, "student"))
    for i, (s, c) in enumerate(zip(spikes, bulk, strict=True)):
        sc = math.sqrt(c)
        (m0, m1, m2), e, rule = C._moments_or_fixed(kern, s * kappa, sc, (), 1e-11, None, None)
        assert co.inner[i] == (rule, e)
        assert np.array_equal(co.mu0[i], m0)
        assert np.array_equal(co.mu1[i], m1 / sc)
        assert np.array_equal(co.mu2_sq[i], np.maximum(m2 - m0 * m0 - m1 * m1, 0.0))
    assert co.inner[-1][0][0] == "legendre" and co.inner[0][0][0] == "trapezoid"
