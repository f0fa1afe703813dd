"""Gaussian constants of activations against the reference table (docs/activations.md), closed forms,
identities and an independent evaluation by sympy."""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from asymptotics import activation, dual_kernel
from asymptotics.activations import X

# (name, mu0, mu1, E sigma^2 (uncentred), mu2^2) — 30-digit quadrature table in docs/activations.md
TABLE = [
    ("erf", 0.0, 0.651470015870560, 0.464559054397540, 0.0401458728191524),
    ("tanh", 0.0, 0.605705509602159, 0.394294490397841, 0.0274153260354303),
    ("relu", 0.398942280401433, 0.5, 0.5, 0.0908450569081047),
    ("softplus", 0.806059183347440, 0.5, 0.921245908859300, 0.0215145018005587),
    ("sigmoid", 0.5, 0.206620964141907, 0.293379035858093, 0.000686813035161729),
    ("he3", 0.0, 0.0, 6.0, 6.0),
    ("he2", 0.0, 0.0, 2.0, 2.0),
]
# (name, k, c_k)
HERMITE = [
    ("erf", 3, -0.1773076802),
    ("tanh", 3, -0.1484371908),
    ("relu", 2, 1 / (2 * math.sqrt(math.pi))),
    ("relu", 4, -0.0814337520),
    ("softplus", 2, 0.1461030849),
    ("sigmoid", 3, -0.0254732579),
]


def _sig(a, b, digits):
    """a and b agree to `digits` significant digits (absolute when b == 0)."""
    scale = max(abs(b), 1e-300) if b != 0 else 1.0
    return abs(a - b) <= 10.0 ** (-digits) * scale


@pytest.mark.parametrize("name,mu0,mu1,m2,mu2sq", TABLE)
def test_constants_mpmath_path_12_digits(name, mu0, mu1, m2, mu2sq):
    c = activation(name, center=False).raw_constants("mpmath")
    # the table has 15 significant digits, so 12-digit agreement is a real test of both
    assert _sig(c.mu0, mu0, 12) or abs(c.mu0 - mu0) < 1e-14
    assert _sig(c.mu1, mu1, 12) or abs(c.mu1 - mu1) < 1e-14
    assert _sig(c.second_moment, m2, 12)
    assert _sig(c.mu2_sq, mu2sq, 12)


@pytest.mark.parametrize("name,mu0,mu1,m2,mu2sq", TABLE)
def test_constants_float64_path_1e10(name, mu0, mu1, m2, mu2sq):
    c = activation(name, center=False).raw_constants("float64")
    for got, want in [(c.mu0, mu0), (c.mu1, mu1), (c.second_moment, m2), (c.mu2_sq, mu2sq)]:
        assert abs(got - want) <= 1e-10
    assert c.error < 1e-10


@pytest.mark.parametrize("name,k,ck", HERMITE)
@pytest.mark.parametrize("method", ["float64", "mpmath", "auto"])
def test_hermite_coefficients(name, k, ck, method):
    c = activation(name).constants(method)
    assert abs(c.hermite[k] - ck) < 1e-10


@pytest.mark.parametrize("name", ["erf", "relu", "sin", "linear", "he2", "he3", "quadratic"])
def test_closed_forms_match_mpmath_quadrature(name):
    closed = activation(name, center=False).raw_constants("closed")
    quad = activation(name, center=False).raw_constants("mpmath")
    for a, b in zip(closed.hermite, quad.hermite, strict=True):
        assert abs(a - b) < 1e-13
    assert abs(closed.second_moment - quad.second_moment) < 1e-13 * max(1, quad.second_moment)
    assert abs(closed.mean_sq_derivative - quad.mean_sq_derivative) < 1e-13 * max(1, quad.mean_sq_derivative)


def test_polynomial_parseval_exact():
    # for polynomials of degree <= 12 the Hermite expansion is finite: E sigma^2 = sum c_k^2
    act = activation("x**5 - 2*x**2 + 0.5*x", center=False)
    c = act.raw_constants("float64")
    assert abs(sum(ck**2 for ck in c.hermite) - c.second_moment) < 1e-9
    # E x^10 = 9!! = 945, E x^4 = 3 etc. give E sigma^2 in closed form
    exact = 945 + 4 * 3 + 0.25 * 1 + 2 * (-2) * 0 - 2 * 0.5 * 0 + 2 * 0.5 * 15
    assert abs(c.second_moment - exact) < 1e-9


def test_identities_tanh_sigmoid():
    t = activation("tanh", center=False).raw_constants("mpmath")
    assert abs(t.second_moment - (1 - t.mu1)) < 1e-25 or abs(t.second_moment - (1 - t.mu1)) < 1e-14
    s = activation("sigmoid", center=False).raw_constants("mpmath")
    assert abs(s.second_moment - (0.5 - s.mu1)) < 1e-14


@pytest.mark.parametrize(
    "expr",
    ["tanh(x) + 0.1*x**3", "sin(2*x)*exp(-x**2/4)", "relu(x) - 0.3*abs(x)", "softplus(2*x)/2", "x*erf(x)"],
)
def test_stein_identity_user_expressions(expr):
    c = activation(expr).constants("float64")
    assert abs(c.mu1 - c.mean_derivative) < 1e-10


def test_centring_is_exact_and_default():
    raw = activation("relu", center=False).constants()
    cen = activation("relu").constants()
    assert cen.mu0 == 0.0 and cen.hermite[0] == 0.0
    assert abs(cen.second_moment - (raw.second_moment - raw.mu0**2)) < 1e-15
    assert cen.mu1 == raw.mu1 and cen.mu2_sq == raw.mu2_sq
    act = activation("relu")
    zs = np.linspace(-3, 3, 7)
    assert np.allclose(act.numpy(zs), np.maximum(zs, 0) - 1 / math.sqrt(2 * math.pi), atol=1e-15)


@pytest.mark.parametrize("name", ["erf", "tanh", "softplus", "sigmoid", "gelu", "silu", "sin", "he3"])
def test_compiled_kernels_against_sympy(name):
    act = activation(name, center=False)
    f1 = sp.diff(act.raw, X)
    f2 = sp.diff(f1, X)
    for x in [-2.3, -0.4, 0.0, 0.7, 3.1]:
        want = [float(e.subs(X, x).evalf(30)) for e in (act.raw, f1, f2)]
        got = [act.f(x), act.df(x), act.d2f(x)]
        for g, w in zip(got, want, strict=True):
            assert abs(g - w) <= 1e-14 * max(1, abs(w))
        assert abs(act.numpy(np.array([x]))[0] - want[0]) <= 1e-14 * max(1, abs(want[0]))


def test_relu_kernels_and_kink():
    act = activation("relu", center=False)
    assert act.kinks == (0.0,)
    assert act.f(-1.0) == 0.0 and act.f(2.0) == 2.0
    assert act.df(-1.0) == 0.0 and act.df(2.0) == 1.0 and act.df(0.0) == 0.5
    assert act.d2f(1.0) == 0.0


def test_softplus_does_not_overflow():
    act = activation("softplus", center=False)
    assert act.f(800.0) == 800.0
    assert act.f(-800.0) == 0.0
    assert np.isfinite(act.numpy(np.array([1e4, -1e4]))).all()


RHOS = [-0.95, -0.5, 0.0, 0.3, 0.8, 0.999]


@pytest.mark.parametrize("name", ["erf", "relu"])
@pytest.mark.parametrize("center", [False, True])
def test_dual_kernel_closed_forms(name, center):
    act = activation(name, center=center)
    closed = dual_kernel(act, RHOS)
    r = np.array(RHOS)
    if name == "erf":
        ref = 2 / np.pi * np.arcsin(2 * r / 3)
    else:
        ref = (np.sqrt(1 - r**2) + (np.pi - np.arccos(r)) * r) / (2 * np.pi) - (1 / (2 * np.pi) if center else 0)
    assert np.allclose(closed, ref, atol=1e-15)
    quad = dual_kernel(act, RHOS, method="float64")
    assert np.max(np.abs(quad - ref)) < 1e-10


def test_dual_kernel_endpoints_generic():
    act = activation("tanh(x) + 0.2*relu(x)")
    c = act.constants()
    assert abs(dual_kernel(act, 1.0, method="float64") - c.second_moment) < 1e-10
    assert abs(dual_kernel(act, 0.0, method="float64") - c.mu0**2) < 1e-10
    # small rho: k(rho) = sum c_k^2 rho^k, so (k(rho) - mu0^2)/rho -> mu1^2
    rho = 1e-3
    k = dual_kernel(act, rho, method="float64")
    series = sum(ck**2 * rho**i for i, ck in enumerate(c.hermite))
    assert abs(k - series) < 1e-10


def test_dual_kernel_mpmath_path():
    act = activation("erf")
    assert abs(dual_kernel(act, 0.4, method="mpmath", dps=12) - 2 / np.pi * np.arcsin(0.8 / 3)) < 1e-10


def test_mpmath_reference_erf_closed_form():
    # E erf(z)^2 = (2/pi) arcsin(2/3), mu1 = 2/sqrt(3 pi): closed forms against direct mpmath quadrature
    with mpmath.workdps(30):
        q = mpmath.quad(lambda t: mpmath.erf(t) ** 2 * mpmath.exp(-t * t / 2), [-mpmath.inf, mpmath.inf]) / mpmath.sqrt(
            2 * mpmath.pi
        )
    c = activation("erf").constants("closed")
    assert abs(c.second_moment - float(q)) < 1e-15
