"""The stopping rule of the Python solvers: each residual scaled by the size of its equation's
terms, and Newton's round-off floor — on systems where a test scaled by the unknowns fails
deterministically (independent of the CPU's rounding), with values checked against closed forms.

Two ways to make the old rule |F_i| ≤ atol + rtol·|x_i| fail for certain:

* a = q√2 with q a power of two: a² − 2q² never vanishes in float64 (√2 is irrational, and
  a = q·x scales the rounding of x² exactly), and its smallest value near the root, ≈ 2.7e-16·q²,
  exceeds rtol·|a| ≈ 1e-13·1.4q once q ≳ 10³ — checked exhaustively on the ulp-neighbourhood;
* a deterministic ±1-ulp perturbation of the size of the terms, ε·s_i·h(x), h = ±1 from a hash
  of the bits of x: |F_i| ≥ ε·s_i/2 at every point near the root.
"""

import math
import zlib

import numpy as np
import pytest

from asymptotics.errors import ConvergenceError
from asymptotics.solvers import FixedPoint, Newton, fixed_point, root
from asymptotics.solvers.result import ROUNDOFF, Status

EPS = float(np.finfo(float).eps)
SQRT2 = math.sqrt(2.0)


def sign_noise(x) -> float:
    """A deterministic ±1 'rounding noise' of the bits of x."""
    return 1.0 if zlib.crc32(np.ascontiguousarray(x, dtype=float).tobytes()) & 1 else -1.0


def sqrt2_system(q, k):
    """F = (a² − 2q², ab − 2kq): a = q√2, b = k√2; terms of size (4q², 4|kq|)."""

    def F(x):
        return np.array([x[0] * x[0] - 2 * q * q, x[0] * x[1] - 2 * k * q])

    def J(x):
        return np.array([[2 * x[0], 0.0], [x[1], x[0]]])

    def S(x):
        return np.array([x[0] * x[0] + 2 * q * q, abs(x[0] * x[1]) + 2 * abs(k * q)])

    return F, J, S


@pytest.mark.parametrize("q", [2.0**17, 2.0**23, 2.0**26], ids=["1e5", "8e6", "7e7"])
def test_term_scaled_rule_converges_where_the_unknown_scaled_rule_cannot(q):
    F, J, S = sqrt2_system(q, 1.0)
    a_ref = q * SQRT2  # exact scaling of the double nearest √2
    # the old rule cannot pass anywhere near the root: every double within 8 ulps of q√2
    a = a_ref
    for _ in range(8):
        a = np.nextafter(a, 0.0)
    for _ in range(17):
        assert abs(a * a - 2 * q * q) > 1e-13 + 1e-13 * abs(a)
        a = np.nextafter(a, np.inf)
    x0 = np.array([q, 1.0])
    new = root(F, x0, jac=J, scale=S, solver=Newton(atol=1e-13, rtol=1e-13))
    assert new.converged and new.status == Status.CONVERGED and not new.at_roundoff_floor
    assert abs(new.value[0] - a_ref) <= 4 * np.spacing(a_ref)
    assert abs(new.value[1] - SQRT2) <= 1e-15 * SQRT2 * 8
    assert new.residual <= 1e-13
    # without a scale function the same point is reached and accepted at the round-off floor
    floor = root(F, x0, jac=J, solver=Newton(atol=1e-13, rtol=1e-13))
    assert floor.converged and floor.at_roundoff_floor and "round-off floor" in floor.message
    np.testing.assert_allclose(floor.value, new.value, rtol=8 * EPS)


def noisy_system():
    """u² = A, uv = B with u = √2·10⁵, v = 3·10⁷: F perturbed by ε·s_i·h(x)."""
    A, B = 2e10, SQRT2 * 1e5 * 3e7

    def F(x):
        h = sign_noise(x)
        s = S(x)
        return np.array([x[0] ** 2 - A + EPS * s[0] * h, x[0] * x[1] - B - EPS * s[1] * h])

    def J(x):
        return np.array([[2 * x[0], 0.0], [x[1], x[0]]])

    def S(x):
        return np.array([x[0] ** 2 + A, abs(x[0] * x[1]) + B])

    return F, J, S, np.array([math.sqrt(A), B / math.sqrt(A)])


def test_ulp_noise_of_the_terms_size_old_rule_fails_new_rule_converges():
    F, J, S, ref = noisy_system()
    x0 = np.array([1.2e5, 2e7])
    # the old rule |F_i| ≤ atol + rtol·|x_i| fails at every point near the root: |F_i| ≥ ε s_i / 2
    for du in range(-3, 4):
        x = ref * (1 + du * EPS)
        assert np.all(np.abs(F(x)) > 1e-13 + 1e-13 * np.abs(x))
    r = root(F, x0, jac=J, scale=S, solver=Newton(atol=1e-13, rtol=1e-13))
    assert r.converged and not r.at_roundoff_floor
    np.testing.assert_allclose(r.value, ref, rtol=1e-13)
    # with rtol below the floor, the root is accepted at the floor and reported as such
    r = root(F, x0, jac=J, scale=S, solver=Newton(atol=1e-300, rtol=1e-18))
    assert r.converged and r.at_roundoff_floor and r.status == 0
    np.testing.assert_allclose(r.value, ref, rtol=1e-13)
    # no scale function: the floor test estimates the terms by Σ_j |J_ij x_j|
    r = root(F, x0, jac=J, solver=Newton(atol=1e-13, rtol=1e-13))
    assert r.converged and r.at_roundoff_floor
    np.testing.assert_allclose(r.value, ref, rtol=1e-13)


def test_the_floor_is_not_a_licence_to_stop_early():
    """A residual above ROUNDOFF·ε·s is not accepted: a system without a root still fails, and a
    root is reached to full accuracy, not merely to the floor's tolerance."""
    with pytest.raises(ConvergenceError) as info:
        root(lambda x: x * x + 1.0, 0.0 + 0.5, jac=lambda x: 2 * x, scale=lambda x: x * x + 1.0)
    assert info.value.result.status in (Status.MAX_STEPS, Status.SINGULAR)
    assert not info.value.result.at_roundoff_floor
    F, J, S = sqrt2_system(1.0, 1.0)
    r = root(F, np.array([1.0, 1.0]), jac=J, scale=S, solver=Newton(atol=1e-300, rtol=1e-15))
    assert r.converged and abs(r.value[0] - SQRT2) <= 2 * EPS * SQRT2
    assert ROUNDOFF * EPS < 1e-13  # the floor never loosens the default tolerances


def test_fixed_point_scale_function():
    """x = 0.1x + 0.9√2 + n_k: the map is evaluated with an error n_k = ±ε·10⁹ alternating
    between calls (a sum of terms of size 10⁹, accurate to ~2e-7). The iterates settle at
    e_k = x_k − √2 = ±n/1.1 and the residual at |r| = 1.8n: scaled by |x| ≈ 1.4 the test can
    never pass; scaled by the terms' size it passes."""
    S9 = 1e9
    calls = [0]

    def g(x):
        calls[0] += 1
        return 0.1 * x + 0.9 * SQRT2 + EPS * S9 * (-1.0) ** calls[0]

    cfg = FixedPoint(atol=1e-12, rtol=1e-12, max_steps=200)
    r = fixed_point(g, 1.0, solver=cfg, on_failure="return")
    assert not r.converged and r.status == Status.MAX_STEPS
    tight = FixedPoint(atol=1e-300, rtol=1e-15, max_steps=200)  # rtol·s = 1e-6 > |r| = 4e-7
    r = fixed_point(g, 1.0, solver=tight, scale=lambda x: S9)
    assert r.converged and r.residual <= 1e-15
    assert abs(r.value - SQRT2) <= 1e-6 / 0.9  # |e| = |r|/0.9 (contraction factor 0.1)


def test_default_scales_keep_the_old_rule():
    """Without a scale function the tests are the unknown-scaled ones (behaviour preserved)."""
    r = fixed_point(lambda m: 1 / (0.5 + 0.5 / (1 + m)), 1.0, solver=FixedPoint(atol=1e-6, rtol=0.0))
    assert abs(1 / (0.5 + 0.5 / (1 + r.value)) - r.value) <= 1e-6
    r = root(lambda m: -0.5 * m**2 + 1, 1.0)  # default atol = rtol = 1e-12
    assert r.converged and not r.at_roundoff_floor
    assert abs(-0.5 * r.value**2 + 1) <= 1e-12 + 1e-12 * abs(r.value)
    assert abs(r.value - SQRT2) <= (1e-12 + 1e-12 * SQRT2) / SQRT2 * 1.01  # |Δm| = |F|/|F'(m)|
