"""Gaussian constants of activations against the high-precision reference data
(``tests/reference/constants.json``, made offline by ``tests/reference/make_constants.py``),
closed forms, identities and an independent evaluation by sympy."""

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from reference.make_constants import DOCS, docs_table, render_table

from asymptotics import activation, dual_kernel
from asymptotics.activations import BUILTINS, HERMITE_DEGREE, X

REFERENCE = json.loads((Path(__file__).parent / "reference" / "constants.json").read_text(encoding="utf-8"))
REF = REFERENCE["activations"]
SCALARS = ("mu0", "mu1", "second_moment", "mu2_sq", "mean_derivative", "mean_sq_derivative", "var_derivative")
#: The built-ins with closed-form constants (``method="closed"``).
CLOSED = ("erf", "relu", "sin", "linear", "he2", "he3", "quadratic")
#: Relative accuracy of a closed form or of the mpmath path once rounded to float64.
ROUNDING = 1e-14


def _scale(name: str, kind: str, key: str) -> float:
    """The size of an entry's terms, against which its rounding error is judged: ‖σ‖ = √(E σ²)
    for μ0, μ1, c_k (|c_k| ≤ ‖σ‖), ‖σ'‖ for E σ', E σ² of the raw function for the second moment
    (the centred one is E σ² − μ0²), the sum of the terms' magnitudes for μ2² and Var σ'."""
    raw, ref = REF[name]["raw"], REF[name][kind]
    f = {k: float(v) for k, v in ref.items() if k != "hermite"}
    if key in ("hermite", "mu0", "mu1"):
        return math.sqrt(f["second_moment"])
    if key == "mean_derivative":
        return math.sqrt(f["mean_sq_derivative"])
    if key == "second_moment":
        return float(raw["second_moment"])
    if key == "mu2_sq":
        return float(raw["second_moment"]) + float(raw["mu0"]) ** 2 + f["mu1"] ** 2
    if key == "var_derivative":
        return f["mean_sq_derivative"] + f["mean_derivative"] ** 2
    return abs(f[key])


def _propagation(name: str, kind: str, key: str) -> float:
    """How many times the absolute quadrature error of one expectation an entry can carry: a
    difference of expectations adds their errors (μ2² = E σ² − μ0² − μ1²: 1 + 2|μ0| + 2|μ1|)."""
    raw, ref = REF[name]["raw"], REF[name][kind]
    mu0, mu1, md = (abs(float(raw[k])) for k in ("mu0", "mu1", "mean_derivative"))
    if key == "mu2_sq":
        return 1 + 2 * mu0 + 2 * mu1
    if key == "var_derivative":
        return 1 + 2 * md
    if key == "second_moment" and ref is not raw:
        return 1 + 2 * mu0
    return 1.0


def test_reference_data_covers_every_builtin():
    assert set(REF) == set(BUILTINS)
    assert REFERENCE["dps"] >= 30 and REFERENCE["digits"] >= 30
    assert REFERENCE["mpmath_version"] and REFERENCE["date"]
    for entry in REF.values():
        for kind in ("raw", "centred"):
            assert len(entry[kind]["hermite"]) == HERMITE_DEGREE + 1


def test_reference_data_identities():
    # the data against closed forms and identities typed here (a check of the script)
    for name, entry in REF.items():
        with mpmath.workdps(40):
            r = {k: mpmath.mpf(v) for k, v in entry["raw"].items() if k != "hermite"}
            c = [mpmath.mpf(v) for v in entry["raw"]["hermite"]]
            assert abs(r["mean_derivative"] - r["mu1"]) < mpmath.mpf(10) ** -30  # Stein
            if name in ("linear", "he2", "he3", "quadratic"):  # polynomials: Parseval is finite
                assert abs(sum(ck**2 for ck in c) - r["second_moment"]) < mpmath.mpf(10) ** -30
    with mpmath.workdps(40):
        pi = mpmath.pi
        erf, relu, tanh = REF["erf"]["raw"], REF["relu"]["raw"], REF["tanh"]["raw"]
        assert abs(mpmath.mpf(erf["mu1"]) - 2 / mpmath.sqrt(3 * pi)) < mpmath.mpf(10) ** -31
        assert abs(mpmath.mpf(erf["second_moment"]) - 2 / pi * mpmath.asin(mpmath.mpf(2) / 3)) < mpmath.mpf(10) ** -31
        assert abs(mpmath.mpf(relu["mu2_sq"]) - (mpmath.mpf(1) / 4 - 1 / (2 * pi))) < mpmath.mpf(10) ** -31
        assert abs(mpmath.mpf(tanh["second_moment"]) - (1 - mpmath.mpf(tanh["mu1"]))) < mpmath.mpf(10) ** -31


def _methods(name):
    return (("closed",) if name in CLOSED else ()) + ("float64", "mpmath", "auto")


CASES = [(name, kind, method) for name in BUILTINS for kind in ("raw", "centred") for method in _methods(name)]


@pytest.mark.parametrize("name,kind,method", CASES)
def test_constants_against_reference(name, kind, method):
    """Every path within its stated accuracy: closed forms and mpmath to ROUNDING of the terms'
    size; float64 quadrature (alone or beside closed forms) within its own error estimate."""
    c = activation(name, center=kind == "centred").constants(method)
    ref = REF[name][kind]
    assert c.error < 1e-11  # the estimate is not vacuous
    if method == "closed":
        assert c.error == 0.0
    for key in SCALARS:
        tol = ROUNDING * _scale(name, kind, key) + 2 * c.error * _propagation(name, kind, key)
        assert abs(getattr(c, key) - float(ref[key])) <= tol, (key, getattr(c, key), ref[key], tol)
    tol = ROUNDING * _scale(name, kind, "hermite") + 2 * c.error
    for k, (got, want) in enumerate(zip(c.hermite, ref["hermite"], strict=True)):
        assert abs(got - float(want)) <= tol, (k, got, want, tol)
    assert c.mu2 == pytest.approx(math.sqrt(float(ref["mu2_sq"])), abs=math.sqrt(tol))


def test_docs_table_matches_reference_data():
    table = docs_table(DOCS.read_text(encoding="utf-8"))
    assert table is not None, "docs/activations.md lost its generated constants table"
    assert table == render_table(REFERENCE), "run: python tests/reference/make_constants.py --docs-only"


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


def test_piecewise_derivative_in_every_target():
    """σ = min(x, 1) + |x − 2|: sympy writes σ' as a Piecewise, printed as a branch (compiled and
    mpmath) and as numpy.select over arrays; all equal the closed form H(1 − x) + sign(x − 2)
    (exact in float64) away from the kinks."""
    act = activation("min(x, 1) + abs(x - 2)", center=False)
    xs = np.array([-3.0, -0.25, 0.5, 1.5, 2.5, 7.0])
    f_ref = np.minimum(xs, 1.0) + np.abs(xs - 2.0)
    df_ref = (xs < 1.0).astype(float) + np.sign(xs - 2.0)
    assert np.array_equal(act.numpy(xs), f_ref) and np.array_equal(act.numpy_derivative(xs), df_ref)
    assert [act.f(x) for x in xs] == list(f_ref) and [act.df(x) for x in xs] == list(df_ref)
    f_mp, df_mp = act.mpmath()
    with mpmath.workdps(30):
        assert [float(f_mp(mpmath.mpf(x))) for x in xs] == list(f_ref)
        assert [float(df_mp(mpmath.mpf(x))) for x in xs] == list(df_ref)


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


def test_mpmath_accessor():
    # (σ, σ') in mpmath: raw and centred relu at 1, against 1 − 1/√(2π) and σ' = 1
    with mpmath.workdps(30):
        f, df = activation("relu").mpmath()
        fr, dfr = activation("relu").mpmath(raw=True)
        one = mpmath.mpf(1)
        assert abs(f(one) - (1 - 1 / mpmath.sqrt(2 * mpmath.pi))) < mpmath.mpf(10) ** -28
        assert fr(one) == 1 and df(one) == 1 and dfr(-one) == 0
        g, dg = activation("tanh").mpmath()
        assert abs(dg(mpmath.mpf("0.3")) - mpmath.sech(mpmath.mpf("0.3")) ** 2) < mpmath.mpf(10) ** -28


def test_module_doctests():
    import doctest
    import sys

    import asymptotics.activations.activation  # noqa: F401 - the package attribute is the function

    mod = sys.modules["asymptotics.activations.activation"]
    failed, tried = doctest.testmod(mod)
    assert failed == 0 and tried >= 4
