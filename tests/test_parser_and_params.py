"""The expression parser rejects unsafe input; parameter validation names what is wrong."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asymptotics.activations import parse_expression
from asymptotics.errors import ExpressionError, ParameterError
from asymptotics.grids import cartesian, parse_values
from asymptotics.params import check_int, check_parameters, check_positive

MALICIOUS = [
    "__import__('os').system('echo pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "x.__class__",
    "eval('1')",
    "exec('import os')",
    "open('/etc/passwd')",
    "lambda: x",
    "[x for x in ()]",
    "x if x else x",
    "'abc'",
    "globals()",
    "getattr(x, 'real')",
    "sympy.tanh(x)",
    "tanh(x, y=1)",
    "x; import os",
    "y + 1",
    "3.0",
]


@pytest.mark.parametrize("text", MALICIOUS)
def test_malicious_expressions_rejected(text):
    with pytest.raises(ExpressionError):
        parse_expression(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_parser_never_raises_anything_else(text):
    try:
        parse_expression(text)
    except ExpressionError:
        pass


_atoms = st.sampled_from(["x", "2", "0.5", "pi"])
_unary = st.sampled_from(["tanh", "erf", "sin", "relu", "sigmoid", "exp", "softplus"])


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(_atoms)
    kind = draw(st.sampled_from(["un", "bin"]))
    if kind == "un":
        return f"{draw(_unary)}({draw(expressions(depth=depth - 1))})"
    op = draw(st.sampled_from(["+", "-", "*"]))
    return f"({draw(expressions(depth=depth - 1))}) {op} ({draw(expressions(depth=depth - 1))})"


@settings(max_examples=100, deadline=None)
@given(expressions())
def test_whitelisted_expressions_parse(text):
    try:
        e = parse_expression(text)
    except ExpressionError as exc:  # constant expressions are rejected: they must depend on x
        assert "depend on x" in str(exc)
    else:
        assert e.free_symbols


BAD_VALUES = [0, -1, -1e-300, float("nan"), float("inf"), -float("inf"), "abc", None, True, [1]]


@pytest.mark.parametrize("name", ["psi1", "psi2", "alpha", "alpha0", "beta"])
@pytest.mark.parametrize("value", BAD_VALUES)
def test_positive_parameters_rejected(name, value):
    with pytest.raises(ParameterError) as exc:
        check_parameters(**{name: value})
    assert name in str(exc.value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf"))))
def test_positive_hypothesis(value):
    with pytest.raises(ParameterError) as exc:
        check_positive("psi1", value)
    assert "psi1" in str(exc.value) and "(0, inf)" in str(exc.value)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-300, max_value=1e300))
def test_positive_accepts(value):
    assert check_positive("psi2", value) == value


@pytest.mark.parametrize("name", ["lam", "eta", "noise", "eta_tilde"])
def test_nonnegative(name):
    assert check_parameters(**{name: 0})[name] == 0.0
    for bad in (-0.1, float("nan"), "x"):
        with pytest.raises(ParameterError, match=name):
            check_parameters(**{name: bad})


@pytest.mark.parametrize("value", [1.5, 0, 1, -3, "1e3.5", float("nan"), None])
def test_integers(value):
    with pytest.raises(ParameterError, match="d="):
        check_int("d", value, 2)


def test_integer_accepts_integral_float():
    assert check_int("d", 1000.0, 2) == 1000 and check_int("d", "2000", 2) == 2000


def test_unknown_parameter():
    with pytest.raises(ParameterError, match="unknown"):
        check_parameters(psi3=1.0)


def test_grid_syntax():
    assert parse_values("psi1", "1,2,4") == [1.0, 2.0, 4.0]
    assert parse_values("eta", "0:1:5") == [0.0, 0.25, 0.5, 0.75, 1.0]
    vals = parse_values("lam", "log:1e-4:1:5")
    assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(vals, [1e-4, 1e-3, 1e-2, 1e-1, 1.0], strict=True))
    for bad in ["", "1:2", "log:0:1:3", "a,b", "1:2:0", "log:1:2"]:
        with pytest.raises(ParameterError):
            parse_values("lam", bad)
    g = cartesian(a=[1, 2], b=[3, 4, 5])
    assert len(g) == 6 and g[0] == {"a": 1, "b": 3} and g[-1] == {"a": 2, "b": 5}


# ---- one home for array checks: the scalar checks' message ------------------------------------------
@pytest.mark.parametrize("kind, bad", [("positive", 0.0), ("positive", -2.0), ("nonnegative", -1e-9),
                                       ("finite", float("inf")), ("positive", float("nan"))])
def test_array_checks_match_the_scalar_message(kind, bad):
    from asymptotics.params import check_array, check_nonnegative, check_positive

    scalar = {"positive": check_positive, "nonnegative": check_nonnegative}.get(kind)
    with pytest.raises(ParameterError) as arr_err:
        check_array("psi1", [1.0, bad, 3.0], kind)
    if scalar is not None:
        with pytest.raises(ParameterError) as sc_err:
            scalar("psi1", bad)
        assert str(arr_err.value) == str(sc_err.value)
    assert "psi1" in str(arr_err.value)


def test_array_check_accepts_and_converts():
    import numpy as np

    from asymptotics.params import check_array

    out = check_array("lam", np.array([[0.0, 1.0]]), "nonnegative")
    assert out.dtype == np.float64 and out.shape == (1, 2)
    for bad in ("1", None, True, []):
        with pytest.raises(ParameterError):
            check_array("lam", bad)


def test_integer_range():
    from asymptotics.params import check_int

    assert check_int("--seeds", "1e3", 1, 1000) == 1000
    with pytest.raises(ParameterError, match=r"an integer in \[1, 1000\]"):
        check_int("--seeds", 1001, 1, 1000)


@pytest.mark.parametrize("text, fragment", [("1,,2", "empty item"), ("1,2,", "empty item"), (",", "empty item"),
                                            ("0:1", "three parts"), ("log:1:2", "three parts"),
                                            ("1:2:2000000", "[1, 1000000]"), ("", "empty")])
def test_grid_syntax_errors(text, fragment):
    with pytest.raises(ParameterError) as info:
        parse_values("psi1", text)
    assert fragment in str(info.value) and "psi1" in str(info.value)


def test_cartesian_size_limit():
    from asymptotics.grids import cartesian

    with pytest.raises(ParameterError, match="at most 10 points"):
        cartesian(max_points=10, a=list(range(4)), b=list(range(3)))
    assert len(cartesian(max_points=12, a=list(range(4)), b=list(range(3)))) == 12


def test_memory_sizes_and_preflight():
    from asymptotics.errors import ResourceError
    from asymptotics.memory import check_memory, parse_memory

    assert parse_memory("1.5GiB") == 3 * 2**29 and parse_memory("2GB") == 2 * 10**9
    for bad in ("lots", "-1GiB", "0", "1 parsec", float("inf")):
        with pytest.raises(ParameterError):
            parse_memory(bad, "--max-memory")
    check_memory("x", 2**20, "1MiB")
    with pytest.raises(ResourceError, match=r"needs about 2.00 MiB \(limit 1.00 MiB; --max-memory\)"):
        check_memory("x", 2**21, "1MiB")
