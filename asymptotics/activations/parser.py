"""Safe parsing of activation expressions in ``x``.

The string is parsed with Python's :mod:`ast` and the tree is *walked* into a sympy expression:
nothing is ever evaluated, so only numbers, the variable ``x``, the constants ``pi`` and ``E``, the
arithmetic operators and a whitelist of functions can appear. Anything else — attribute access,
subscripts, keywords, lambdas, dunder names, strings — is rejected with :class:`ExpressionError`.

>>> parse_expression("tanh(x) + 0.1*x**3")
0.1*x**3 + tanh(x)
"""

from __future__ import annotations

import ast

import sympy as sp

from ..errors import ExpressionError

__all__ = ["X", "parse_expression", "ALLOWED_FUNCTIONS"]

#: The single real variable of an activation.
X = sp.Symbol("x", real=True)

_MAX_LENGTH = 500


def _relu(a):
    return sp.Max(a, 0)


def _softplus(a):
    return sp.log(1 + sp.exp(a))


def _sigmoid(a):
    return 1 / (1 + sp.exp(-a))


def _gelu(a):
    return a * (1 + sp.erf(a / sp.sqrt(2))) / 2


def _silu(a):
    return a / (1 + sp.exp(-a))


#: Functions a user expression may call, with their arity.
ALLOWED_FUNCTIONS = {
    "exp": (sp.exp, 1),
    "log": (sp.log, 1),
    "log1p": (lambda a: sp.log(1 + a), 1),
    "sqrt": (sp.sqrt, 1),
    "sin": (sp.sin, 1),
    "cos": (sp.cos, 1),
    "tan": (sp.tan, 1),
    "sinh": (sp.sinh, 1),
    "cosh": (sp.cosh, 1),
    "tanh": (sp.tanh, 1),
    "atan": (sp.atan, 1),
    "arctan": (sp.atan, 1),
    "erf": (sp.erf, 1),
    "erfc": (sp.erfc, 1),
    "abs": (sp.Abs, 1),
    "Abs": (sp.Abs, 1),
    "sign": (sp.sign, 1),
    "heaviside": (lambda a: sp.Heaviside(a, sp.Rational(1, 2)), 1),
    "max": (sp.Max, 2),
    "Max": (sp.Max, 2),
    "min": (sp.Min, 2),
    "Min": (sp.Min, 2),
    "relu": (_relu, 1),
    "softplus": (_softplus, 1),
    "sigmoid": (_sigmoid, 1),
    "gelu": (_gelu, 1),
    "silu": (_silu, 1),
}

_NAMES = {"x": X, "pi": sp.pi, "E": sp.E, "e": sp.E}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
    ast.BitXor: lambda a, b: a**b,  # "x^3" is a power, as on paper
}


def _walk(node: ast.AST) -> sp.Expr:
    if isinstance(node, ast.Expression):
        return _walk(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExpressionError(f"only numeric constants are allowed, got {node.value!r}")
        return sp.Float(node.value) if isinstance(node.value, float) else sp.Integer(node.value)
    if isinstance(node, ast.Name):
        if node.id in _NAMES:
            return _NAMES[node.id]
        raise ExpressionError(f"unknown name {node.id!r}: the only variable is 'x' (constants: pi, E)")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_walk(node.left), _walk(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _walk(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in ALLOWED_FUNCTIONS:
            fname = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise ExpressionError(
                f"function {fname!r} is not allowed; allowed: {', '.join(sorted(ALLOWED_FUNCTIONS))}"
            )
        if node.keywords:
            raise ExpressionError("keyword arguments are not allowed in activation expressions")
        fn, arity = ALLOWED_FUNCTIONS[node.func.id]
        if len(node.args) != arity:
            raise ExpressionError(f"{node.func.id} takes {arity} argument(s), got {len(node.args)}")
        return fn(*[_walk(a) for a in node.args])
    raise ExpressionError(f"construct not allowed in an activation expression: {ast.unparse(node)!r}")


def parse_expression(text: str) -> sp.Expr:
    """Parse ``text`` into a sympy expression in the real symbol :data:`X`.

    Raises :class:`ExpressionError` for anything outside the whitelist, for expressions that do
    not depend on ``x``, and for expressions that are not real-valued numbers at ``x = 0.3``.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an activation expression must be a string, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ExpressionError("empty activation expression")
    if len(text) > _MAX_LENGTH:
        raise ExpressionError(f"activation expression longer than {_MAX_LENGTH} characters")
    if "__" in text:
        raise ExpressionError(f"dunder names are not allowed in activation expressions: {text!r}")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse activation expression {text!r}: {exc.msg}") from None
    try:
        expr = _walk(tree)
    except (TypeError, ValueError, ZeroDivisionError, RecursionError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"invalid activation expression {text!r}: {exc}") from None
    if not isinstance(expr, sp.Expr) or X not in expr.free_symbols:
        raise ExpressionError(f"activation expression {text!r} must depend on x")
    try:
        val = complex(expr.subs(X, sp.Float("0.3")).evalf())
    except (TypeError, ValueError):
        raise ExpressionError(f"activation expression {text!r} does not evaluate to a number") from None
    if val.imag != 0 or val.real != val.real:
        raise ExpressionError(f"activation expression {text!r} is not real-valued at x = 0.3")
    return expr
