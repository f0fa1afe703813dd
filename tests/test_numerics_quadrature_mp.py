"""The numerics layer's Gaussian quadrature and Marchenko–Pastur transforms against independent
references: Gaussian moments and characteristic function in closed form, the ReLU moments in
closed form (compiled rule split at a moving kink), and mpmath values of the MP law (roots of
its quadratic at 40 digits, integrals of the closed-form density)."""

import math

import mpmath
import numpy as np
import pytest
from numba import njit

from asymptotics.numerics.marchenko_pastur import mp_resolvent_moments, mp_stieltjes, mp_stieltjes_derivative
from asymptotics.numerics.marchenko_pastur_numba import mp_moments_nb, mp_stieltjes_nb
from asymptotics.numerics.quadrature import gaussian_panels, legendre_rule
from asymptotics.numerics.templates.quadrature import gaussian_node, panel_edges

EDGES = np.linspace(-14.0, 14.0, 29)


@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("k", range(7))
def test_gaussian_even_moments(k, last):
    """E z^{2k} = (2k − 1)!! (to rounding: the rule is exact for these polynomials times φ up to
    the tail beyond 14), in both orders of the weight's product."""
    x, w = gaussian_panels(EDGES, 24, normalise_last=last)
    exact = math.prod(range(1, 2 * k, 2))
    assert float(np.sum(w * x ** (2 * k))) == pytest.approx(exact, rel=1e-13, abs=1e-15)
    assert abs(float(np.sum(w * x ** (2 * k + 1)))) < 1e-12 * max(1.0, exact)


@pytest.mark.parametrize("a", [0.0, 0.5, 1.0, 3.0, 7.0])
def test_gaussian_characteristic_function(a):
    """E cos(a z) = exp(−a²/2)."""
    x, w = gaussian_panels(EDGES, 24)
    assert abs(float(np.sum(w * np.cos(a * x))) - math.exp(-0.5 * a * a)) < 2e-15


def test_legendre_rule_is_cached_and_read_only():
    t, w = legendre_rule(12)
    assert legendre_rule(12)[0] is t
    assert not t.flags.writeable and not w.flags.writeable
    assert float(np.sum(w * t**22)) == pytest.approx(2.0 / 23.0, rel=1e-14)  # exact to degree 23


@njit
def _relu_moments(s, half_width, t, wt):
    """E max(0, s + z) and E max(0, s + z)² with the compiled rule, panels split at z = −s."""
    cuts = np.array([-s])
    edges = panel_edges(half_width, 1.0, cuts)
    m1 = 0.0
    m2 = 0.0
    for p in range(edges.shape[0] - 1):
        for j in range(t.shape[0]):
            z, w = gaussian_node(edges[p], edges[p + 1], t[j], wt[j])
            v = max(0.0, s + z)
            m1 += w * v
            m2 += w * v * v
    return m1, m2


@pytest.mark.parametrize("s", [0.0, 0.37, -1.3, 2.5, 5.0])
def test_compiled_rule_split_at_a_moving_kink(s):
    """E(s + z)₊ = sΦ(s) + φ(s), E(s + z)₊² = (1 + s²)Φ(s) + sφ(s)."""
    t, wt = legendre_rule(12)
    m1, m2 = _relu_moments(s, 12.0, t, wt)
    phi = math.exp(-0.5 * s * s) / math.sqrt(2 * math.pi)
    Phi = 0.5 * math.erfc(-s / math.sqrt(2))
    assert m1 == pytest.approx(s * Phi + phi, rel=1e-13, abs=1e-16)
    assert m2 == pytest.approx((1 + s * s) * Phi + s * phi, rel=1e-13, abs=1e-16)


def test_panel_edges_match_the_numpy_rule():
    """Cuts inside panels split them; cuts on edges or outside change nothing; the compiled nodes
    and weights on those panels are the numpy rule's (the exponential to an ulp)."""
    e = panel_edges(3.0, 1.0, np.array([2.5, -0.25, 1.0, 7.0, -0.25]))
    assert e.tolist() == [-3.0, -2.0, -1.0, -0.25, 0.0, 1.0, 2.0, 2.5, 3.0]
    t, wt = legendre_rule(8)
    for last in (False, True):
        x, w = gaussian_panels(e, 8, normalise_last=last)
        for p in range(e.size - 1):
            for j in range(8):
                z, wz = gaussian_node(e[p], e[p + 1], t[j], wt[j], last)
                assert z == x[p, j]
                assert wz == pytest.approx(w[p, j], rel=3e-16)  # numba's exp and numpy's may differ by an ulp


def _mp_root_mp(z, g):
    """The Stieltjes root of γ z m² + (z + γ − 1) m + 1 = 0 at 40 digits (the one with Im m > 0
    for Im z > 0, m > 0 for real z < 0)."""
    with mpmath.workdps(40):
        z, g = mpmath.mpc(z), mpmath.mpf(g)
        roots = mpmath.polyroots([g * z, z + g - 1, 1], maxsteps=200, extraprec=80)
        if z.imag == 0:
            return max((r for r in roots if abs(r.imag) < 1e-30), key=lambda r: r.real if z.real < 0 else -r.real)
        return max(roots, key=lambda r: r.imag * mpmath.sign(z.imag))


@pytest.mark.parametrize("g", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("z", [-0.5, -4.0, 1.0 + 0.5j, 0.2 - 0.7j, 9.0 + 0.01j])
def test_mp_stieltjes_against_mpmath(z, g):
    ref = complex(_mp_root_mp(z, g))
    got = mp_stieltjes(z, g)
    assert abs(got - ref) < 1e-14 * max(1.0, abs(ref))
    assert abs(mp_stieltjes_nb(z, g) - ref) < 1e-14 * max(1.0, abs(ref))
    # m'(z): central difference of the 40-digit root (step 1e-15: error ~1e-30)
    with mpmath.workdps(40):
        h = mpmath.mpf("1e-15")
        dref = complex((_mp_root_mp(mpmath.mpc(z) + h, g) - _mp_root_mp(mpmath.mpc(z) - h, g)) / (2 * h))
    assert abs(mp_stieltjes_derivative(z, g) - dref) < 1e-12 * max(1.0, abs(dref))


@pytest.mark.parametrize("beta", [0.4, 1.0, 3.0])
@pytest.mark.parametrize("u", [0.0, 1e-6, 0.7, 40.0])
def test_mp_resolvent_moments_against_mpmath(beta, u):
    """E[(1, x)/(1 + ux)], E[(1, x, x²)/(1 + ux)²], x ~ MP(β), by mpmath quadrature of the
    closed-form density plus the atom 1 − 1/β at 0."""
    with mpmath.workdps(30):
        b, uu = mpmath.mpf(beta), mpmath.mpf(u)
        lo, hi = (1 - mpmath.sqrt(b)) ** 2, (1 + mpmath.sqrt(b)) ** 2
        c, r = (lo + hi) / 2, (hi - lo) / 2

        def expect(f):  # x = c + r cos θ removes the endpoint square roots
            def integrand(th):
                x = c + r * mpmath.cos(th)
                if x <= 0:  # β = 1: ρ ~ x^(-1/2) at 0, times r sin θ → 0
                    return mpmath.mpf(0)
                return f(x) * mpmath.sqrt((hi - x) * (x - lo)) / (2 * mpmath.pi * b * x) * r * mpmath.sin(th)

            val = mpmath.quad(integrand, [0, mpmath.pi / 2, mpmath.pi])
            return val + max(0, 1 - 1 / b) * f(mpmath.mpf(0))

        ref = [expect(lambda x: 1 / (1 + uu * x)), expect(lambda x: x / (1 + uu * x)),
               expect(lambda x: 1 / (1 + uu * x) ** 2), expect(lambda x: x / (1 + uu * x) ** 2),
               expect(lambda x: x * x / (1 + uu * x) ** 2)]
    ref = np.array([float(v) for v in ref])
    np.testing.assert_allclose(np.array(mp_resolvent_moments(u, beta), dtype=float), ref, rtol=1e-13)
    np.testing.assert_allclose(np.array(mp_moments_nb(u, beta)), ref, rtol=1e-13)
