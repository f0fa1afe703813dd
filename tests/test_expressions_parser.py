"""The expression language: declarations, shapes, orders in the dimension, and one clear line
for every bad expression (non-conformable shapes, a non-square inverse, unknown names, nesting
too deep, constructs outside the class)."""

import pytest
import sympy as sp

from asymptotics.errors import ExpressionError
from asymptotics.solvers.expression_values import evaluate_point
from asymptotics.symbolic.expressions import declare, derive, parse
from asymptotics.symbolic.expressions.linearise import realise, reduce
from asymptotics.symbolic.expressions.tree import Gaussian, Inverse, Product, Scaled, Sum, Transpose

D = declare("X:n,d; W:d,N", "n/d=2, N/d=1.5")


def test_declarations():
    assert D.reference == "d"
    assert D.matrices == {"X": ("n", "d"), "W": ("d", "N")}
    assert D.ratios == {"n": 2, "d": 1, "N": sp.Rational(3, 2)}
    assert D.variances == {"X": 1, "W": 1}
    E = declare("X:n,d:var=sigma2; Y:d", "n/d=1/phi", entries="scaled")
    assert E.variances["X"] == sp.Symbol("sigma2") and E.matrices["Y"] == ("d", "d")
    assert E.ratios["n"] == 1 / sp.Symbol("phi") and E.parameters == {sp.Symbol("sigma2"), sp.Symbol("phi")}
    assert declare({"X": ("n", "d")}, {"n/d": 2}).ratios["n"] == 2


def test_shapes_and_the_tree():
    p = parse("tr(inv(X.T@X/d + lam*I))", D)
    (node,) = p.traces.values()
    assert isinstance(node, Inverse) and isinstance(node.arg, Sum)
    assert p.parameters == ("lam",) and p.value == sp.Symbol("_tr1")
    # identical traces share one placeholder; definitions are substituted
    p = parse("A = X.T@X/d; tr(A) + 2*tr(X.T@X/d)", D)
    assert len(p.traces) == 1 and p.value == 3 * sp.Symbol("_tr1")
    # transposes of products are kept as transposes (the linearisation handles them)
    p = parse("tr((X@W).T@(X@W)/(d*n))", D)
    (node,) = p.traces.values()
    assert isinstance(node, Scaled) and node.coeff == sp.Rational(1, 2)  # d·n = 2d²: 1/(d·n) = d⁻²/2
    assert isinstance(node.arg, Product) and isinstance(node.arg.factors[0], Transpose)
    assert node.arg.factors[-1] == Gaussian("W", "d", "N")


def test_orders_in_the_dimension():
    # N(0, 1) entries: X.T@X is of order d; the normalised forms are accepted
    for ok in ("tr(X.T@X/n)", "tr(X.T@X/d + I)", "tr(W@W.T)/N", "sqrt(n/d)*tr(X.T@X)/d", "tr(inv(X.T@X/d))"):
        parse(ok, D)
    # with scaled entries N(0, 1/d) the same trace has no /d
    parse("tr(X.T@X + I)", declare("X:n,d", "n/d=2", entries="scaled"))


@pytest.mark.parametrize(
    "expr,message",
    [
        (
            "tr(X@X)",
            "non-conformable shapes in 'X @ X': X is n×d and X is n×d (inner dimensions d and n differ)",
        ),
        ("tr(X + W)", "non-conformable shapes in 'X + W': X is n×d and W is d×N"),
        ("tr(inv(X))", "inv() needs a square matrix: 'inv(X)' is n×d"),
        ("tr(X)", "tr() needs a square matrix: 'X' is n×d"),
        ("tr(inv(Y.T@Y))", "unknown name 'Y'"),
        ("tr(X.T@X/d + lam*I) + mu", "unknown name 'mu'"),
        (
            "tr(X.T@X + I)",
            "terms of different orders in 'X.T @ X + I': 'X.T @ X' is larger than 'I' by a factor d",
        ),
        ("tr(X.T@X/d)*d", "the value grows or vanishes like d**1"),
        ("tr(X.T@X/d + 2)", "cannot add the scalar 2 to a matrix"),
        ("tr(X.T*X)", "'*' between two matrices"),
        ("tr(Sigma@X.T@X/d)", "'@' needs two matrices in 'Sigma @ X.T': Sigma is a scalar"),
        ("tr(Sigma@X.T@X/d)", "a deterministic matrix other than c*I is not supported"),
        ("tr(X.T@X/d)/X", "division by a matrix"),
        ("X.T@X/d", "the value is a d×d matrix: take a normalised trace"),
        ("tr(X.T@X/d)**(1/d)", "exponent '1 / d' grows with the dimensions"),
        ("tr(expm(X.T@X/d))", "function 'expm' is not allowed"),
        ("tr(X.T@X/d).real", "attribute 'real' is not allowed"),
        ("__import__('os')", "'__' are not allowed"),
        ("tr(X.T@X/d)[0]", "construct not allowed"),
        ("lambda: 1", "construct not allowed"),
        ("import os", "statement not allowed"),
        ("tr((X.T@X/d)**20)", "matrix power 20"),
        ("tr(I(q))", "I() takes a dimension name"),
        ("x = 1", "must end with the value"),
        ("2 + lam", "contains no trace"),
        ("tr(X.T@X/d", "cannot parse the expression"),
        ("", "empty expression"),
    ],
)
def test_bad_expressions_give_one_clear_line(expr, message):
    with pytest.raises(ExpressionError) as e:
        parse(expr, D, params=["lam", "Sigma"])
    text = str(e.value)
    assert message in text and "\n" not in text


def test_nesting_too_deep_and_cost_bounds():
    deep = "tr(" + "inv(" * 45 + "X.T@X/d" + ")" * 45 + ")"
    with pytest.raises(ExpressionError, match="nesting too deep"):
        parse(deep, D)
    with pytest.raises(ExpressionError, match="longer than"):
        parse("tr(X.T@X/d)" + " + tr(X.T@X/d)" * 200, D)
    with pytest.raises(ExpressionError, match="too large"):
        parse(" + ".join(["tr(X.T@X/d)"] * 60), D)
    # deeply nested parentheses beyond Python's own parser limit: still one line
    with pytest.raises(ExpressionError):
        parse("(" * 300 + "1" + ")" * 300, D)


@pytest.mark.parametrize(
    "dims,ratios,message",
    [
        ("X:n,d; W:d,N", "n/d=2", "no ratio for dimension 'N'"),
        ("X:n,d", "n/d=2, d/n=0.5", "ratios must share one reference dimension"),
        ("X:n,d", "n/d=-1", "must be a positive number"),
        ("X:n,d", None, "need ratios"),
        ("X:n,d; X:d,d", "n/d=2", "declared twice"),
        ("X:n,d,q", "n/d=2", "a shape is two dimensions"),
        ("X:n,d:sd=2", "n/d=2", "the third field is var=VALUE"),
        ("X:n,d:var=-2", "n/d=2", "must be > 0"),
        ("inv:n,d", "n/d=2", "reserved"),
        ("X:n,X", "n/d=2", "both as a matrix and as a dimension"),
        ("X:n,d", "m/d=2", "'m' is not a dimension"),
        ("X:n,d", "n/d=X", "cannot be used here"),
        ("", None, "no matrices declared"),
    ],
)
def test_bad_declarations(dims, ratios, message):
    with pytest.raises(ExpressionError) as e:
        declare(dims, ratios)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_refusals_of_the_linearisation_and_the_evaluation():
    # an expression whose pencil would be too large for the Dyson equations
    with pytest.raises(ExpressionError, match="blocks after reduction"):
        derive("tr((X.T@X/n)**8 @ (X.T@X/n)**8)", dims="X:n,d", ratios="n/d=2")
    # a parameter given that is not in the expression, a missing one, a complex ratio
    Dv = derive("tr(inv(X.T@X/n + lam*I))", dims="X:n,d", ratios="n/d=1/phi")
    from asymptotics.errors import ParameterError

    with pytest.raises(ParameterError, match="missing phi"):
        evaluate_point(Dv, at={"lam": 0.1}, backend="python")
    with pytest.raises(ParameterError, match="not in the expression: mu"):
        evaluate_point(Dv, at={"lam": 0.1, "phi": 1.0, "mu": 2}, backend="python")
    with pytest.raises(ParameterError, match="it sets a dimension ratio"):
        evaluate_point(Dv, at={"lam": 0.1, "phi": -1.0}, backend="python")
    with pytest.raises(ParameterError, match="wrt"):
        Dv.derivative("z")


def test_linearisation_of_a_product_is_reduced_to_the_mp_pencil():
    p = parse("tr(inv(W@W.T/N - z*I))", D)
    r = realise(next(iter(p.traces.values())))
    assert r.blocks == 6  # 2 + 2 (W, Wᵀ) + 1 (z·I) + 1 (the inverse)
    reduce(r)
    assert r.blocks == 2 and r.dims == ["d", "N"]
