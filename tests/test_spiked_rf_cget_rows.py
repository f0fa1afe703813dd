"""The cGET moments of every readout type, from the one compiled trapezoid ladder (one call for all
types) and from its Gauss–Legendre fallback (a type whose grid would be too large), against an
independent reference: adaptive scipy quadrature of E σ(sκ + √c z), E z σ(sκ + √c z) = √c μ1 and
E σ(sκ + √c z)² − μ0² − (√c μ1)² = μ2² (the variance left after the linear part)."""

import math

import numpy as np
import pytest
from scipy import integrate, special

from asymptotics.theory.spiked_rf import cget as C

SIGMA = {"tanh": np.tanh, "erf": special.erf}


def _reference(sigma, shift, scale):
    def expect(g):
        f = lambda z: g(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        return integrate.quad(f, -14, 14, epsabs=1e-13, epsrel=1e-12, limit=400, points=[0.0])[0]

    m0 = expect(lambda z: sigma(shift + scale * z))
    ez = expect(lambda z: z * sigma(shift + scale * z))
    m2 = expect(lambda z: sigma(shift + scale * z) ** 2)
    return m0, ez / scale, max(m2 - m0 * m0 - ez * ez, 0.0)


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_every_type_matches_quadrature_including_the_fallback(name):
    kappa = np.array([-2.5, -0.7, 0.0, 0.4, 1.9])
    spikes = np.array([-3.0, -0.4, 0.0, 0.7, 2.5, 4e4])  # the last needs a grid > MAX_TRAPEZOID_GRID
    bulk = np.array([0.3, 1.0, 2.0, 0.8, 1.5, 1.0])
    co = C.cget_coefficients(name, spikes, bulk, kappa)
    rules = [rule[0] for rule, _ in co.inner]
    assert rules[:-1] == ["trapezoid"] * 5 and rules[-1] == "legendre"
    for i, (s, c) in enumerate(zip(spikes, bulk, strict=True)):
        for j, kap in enumerate(kappa):
            ref = _reference(SIGMA[name], s * kap, math.sqrt(c))
            got = (co.mu0[i, j], co.mu1[i, j], co.mu2_sq[i, j])
            # the ladder's tolerance is 1e-12 (a tenth of 1e-11); the reference is good to ~1e-13
            np.testing.assert_allclose(got, ref, rtol=0, atol=5e-11)
