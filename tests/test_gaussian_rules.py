"""The float64 Gaussian quadrature rules of :mod:`asymptotics.gaussian` against closed forms:
E z^{2k} = (2k − 1)!!, E cos z = e^{−1/2}, E tanh(z)² from the reference data."""

import doctest
import json
import math
from pathlib import Path

import numpy as np
import pytest

import asymptotics.gaussian as gaussian
from asymptotics.gaussian import HERMITE_NUMPY_MAX, composite_rule, hermite_rule, trapezoid_rule

REF = json.loads((Path(__file__).parent / "reference" / "constants.json").read_text(encoding="utf-8"))["activations"]


def _double_factorial(m: int) -> int:
    return math.prod(range(m, 0, -2)) if m > 0 else 1


@pytest.mark.parametrize("n", [8, HERMITE_NUMPY_MAX, HERMITE_NUMPY_MAX + 1, 400, 1000])
def test_hermite_rule_any_degree(n):
    # numpy's hermegauss gives NaN weights from 375 nodes on; the rule must not
    x, w = hermite_rule(n)
    assert x.shape == w.shape == (n,) and np.all(np.isfinite(w)) and np.all(w >= 0)
    assert abs(w.sum() - 1) < 1e-14
    for k in range(1, min(n, 8)):  # exact for polynomials of degree < 2n; round-off grows like (2k−1)!!
        assert abs(w @ x ** (2 * k) - _double_factorial(2 * k - 1)) <= 1e-13 * _double_factorial(2 * k - 1)
    if n >= 20:  # the truncation error for cos, ≈ n!/(2n)!, is below 1e-29 by then
        assert abs(w @ np.cos(x) - math.exp(-0.5)) < 1e-14


def test_hermite_rule_is_cached_and_read_only():
    x, w = hermite_rule(400)
    assert hermite_rule(400)[0] is x
    with pytest.raises(ValueError):
        w[0] = 1.0


@pytest.mark.parametrize("step,error", [(0.5, 1e-6), (1 / 3, 1e-10), (0.25, 1e-14)])
def test_trapezoid_rule_spectral(step, error):
    # E tanh² (a strip |Im z| < π/2 of analyticity): the error ≈ exp(−2πd/h) falls as stated
    x, w = trapezoid_rule(step)
    ref = float(REF["tanh"]["raw"]["second_moment"])
    assert abs(w @ np.tanh(x) ** 2 - ref) < error


def test_composite_rule_at_a_kink():
    # E relu(z)² = 1/2 and E relu(z) = 1/√(2π) to round-off with the kink at 0 as a panel end
    x, w = composite_rule((0.0,))
    assert abs(w @ np.maximum(x, 0) ** 2 - 0.5) < 1e-15
    assert abs(w @ np.maximum(x, 0) - 1 / math.sqrt(2 * math.pi)) < 1e-15


def test_docstring_examples():
    failed, tried = doctest.testmod(gaussian)
    assert failed == 0 and tried >= 2
