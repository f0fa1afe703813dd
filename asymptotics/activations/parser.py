"""Safe parsing of activation expressions in ``x``.

The string is parsed with Python's :mod:`ast` and the tree is *walked* into a sympy expression:
nothing is ever evaluated, so only numbers, the variable ``x``, the constants ``pi`` and ``E``, the
arithmetic operators and a whitelist of functions can appear. Anything else — attribute access,
subscripts, keywords, lambdas, dunder names, strings — is rejected with :class:`ExpressionError`.

The cost is bounded before sympy folds anything: at most :data:`MAX_NODES` syntax nodes and
nesting depth :data:`MAX_DEPTH`; every constant subexpression is first evaluated in float64 and
must be a finite real number of magnitude at most :data:`MAX_CONSTANT` (so ``9**9**9**9`` is
refused at once instead of being folded to a number with 10^369693099 digits); a numeric power of
an expression in ``x`` has an exponent of magnitude at most :data:`MAX_EXPONENT`.

>>> parse_expression("tanh(x) + 0.1*x**3")
0.1*x**3 + tanh(x)
"""

from __future__ import annotations

import ast
import math

import sympy as sp

from ..errors import ExpressionError, shorten

__all__ = ["X", "parse_expression", "ALLOWED_FUNCTIONS", "MAX_LENGTH", "MAX_NODES", "MAX_CONSTANT"]

#: The single real variable of an activation.
X = sp.Symbol("x", real=True)

#: Longest expression accepted (characters).
MAX_LENGTH = 500
_MAX_LENGTH = MAX_LENGTH
#: Most syntax nodes, deepest nesting.
MAX_NODES = 200
MAX_DEPTH = 60
#: Largest magnitude of a constant subexpression, and of a numeric exponent of x.
MAX_CONSTANT = 1e300
MAX_EXPONENT = 100


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

def _softplus_f(a):
    return max(a, 0.0) + math.log1p(math.exp(-abs(a)))


def _sigmoid_f(a):
    return 1.0 / (1.0 + math.exp(-a)) if a >= 0 else math.exp(a) / (1.0 + math.exp(a))


#: float64 versions used to evaluate constant subexpressions before sympy folds them.
_FLOAT_FUNCTIONS = {
    "exp": math.exp,
    "log": math.log,
    "log1p": math.log1p,
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "atan": math.atan,
    "arctan": math.atan,
    "erf": math.erf,
    "erfc": math.erfc,
    "abs": abs,
    "Abs": abs,
    "sign": lambda a: math.copysign(1.0, a) if a else 0.0,
    "heaviside": lambda a: 1.0 if a > 0 else (0.5 if a == 0 else 0.0),
    "max": max,
    "Max": max,
    "min": min,
    "Min": min,
    "relu": lambda a: max(a, 0.0),
    "softplus": _softplus_f,
    "sigmoid": _sigmoid_f,
    "gelu": lambda a: a * (1 + math.erf(a / math.sqrt(2))) / 2,
    "silu": lambda a: a * _sigmoid_f(a),
}

_NAMES = {"x": X, "pi": sp.pi, "E": sp.E, "e": sp.E}
_FLOAT_NAMES = {"x": None, "pi": math.pi, "E": math.e, "e": math.e}

_FLOAT_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: math.pow(a, b),
    ast.BitXor: lambda a, b: math.pow(a, b),
}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
    ast.BitXor: lambda a, b: a**b,  # "x^3" is a power, as on paper
}


def _src(node: ast.AST) -> str:
    return shorten(ast.unparse(node), 60)


def _fold(node: ast.AST, fn, *args: float) -> float:
    """Evaluate a constant subexpression in float64; refuse it unless finite, real and bounded."""
    try:
        v = fn(*args)
    except (OverflowError, ValueError, ZeroDivisionError, TypeError):
        v = math.nan
    if isinstance(v, complex) or not math.isfinite(v) or abs(v) > MAX_CONSTANT:
        raise ExpressionError(
            f"the constant {_src(node)} is not a finite real number of magnitude <= {MAX_CONSTANT:g}"
        )
    return float(v)


def _walk(node: ast.AST, depth: int = 0) -> tuple[sp.Expr, float | None]:
    """The sympy expression of ``node`` and, when it does not depend on x, its float64 value
    (computed first, so that sympy only ever folds bounded constants)."""
    if depth > MAX_DEPTH:
        raise ExpressionError(f"activation expression nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Expression):
        return _walk(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExpressionError(f"only numeric constants are allowed, got {shorten(node.value, 40)}")
        v = _fold(node, float, node.value)
        return (sp.Float(node.value) if isinstance(node.value, float) else sp.Integer(node.value)), v
    if isinstance(node, ast.Name):
        if node.id in _NAMES:
            return _NAMES[node.id], _FLOAT_NAMES[node.id]
        raise ExpressionError(f"unknown name {shorten(node.id, 40)}: the only variable is 'x' (constants: pi, E)")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        (a, fa), (b, fb) = _walk(node.left, depth + 1), _walk(node.right, depth + 1)
        op = type(node.op)
        if fa is not None and fb is not None:
            fv = _fold(node, _FLOAT_BINOPS[op], fa, fb)
        else:
            fv = None
            if op is ast.Div and fb == 0:
                raise ExpressionError(f"division by zero in {_src(node)}")
            if op in (ast.Pow, ast.BitXor) and fb is not None and abs(fb) > MAX_EXPONENT:
                raise ExpressionError(f"the exponent in {_src(node)} exceeds {MAX_EXPONENT} in magnitude")
        return _BINOPS[op](a, b), fv
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v, fv = _walk(node.operand, depth + 1)
        if isinstance(node.op, ast.USub):
            return -v, (None if fv is None else -fv)
        return v, fv
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in ALLOWED_FUNCTIONS:
            fname = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise ExpressionError(
                f"function {shorten(fname, 40)} is not allowed; allowed: {', '.join(sorted(ALLOWED_FUNCTIONS))}"
            )
        if node.keywords:
            raise ExpressionError("keyword arguments are not allowed in activation expressions")
        fn, arity = ALLOWED_FUNCTIONS[node.func.id]
        if len(node.args) != arity:
            raise ExpressionError(f"{node.func.id} takes {arity} argument(s), got {len(node.args)}")
        walked = [_walk(a, depth + 1) for a in node.args]
        floats = [f for _, f in walked]
        fv = None
        if all(f is not None for f in floats):
            fv = _fold(node, _FLOAT_FUNCTIONS[node.func.id], *floats)
        return fn(*[e for e, _ in walked]), fv
    raise ExpressionError(f"construct not allowed in an activation expression: {_src(node)}")


def parse_expression(text: str) -> sp.Expr:
    """Parse ``text`` into a sympy expression in the real symbol :data:`X`.

    Raises :class:`ExpressionError` for anything outside the whitelist, for expressions longer
    than :data:`MAX_LENGTH` characters or :data:`MAX_NODES` nodes, for constants that overflow,
    for expressions that do not depend on ``x``, and for expressions that are not real-valued
    numbers at ``x = 0.3``. Messages quote at most 60 characters of the expression.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an activation expression must be a string, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ExpressionError("empty activation expression")
    shown = shorten(text, 60)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"activation expression longer than {MAX_LENGTH} characters ({len(text)})")
    if "__" in text:
        raise ExpressionError(f"dunder names are not allowed in activation expressions: {shown}")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        msg = getattr(exc, "msg", None) or type(exc).__name__
        raise ExpressionError(f"cannot parse activation expression {shown}: {msg}") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError(f"activation expression with {nodes} syntax nodes (at most {MAX_NODES})")
    try:
        expr, _ = _walk(tree)
    except ExpressionError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, RecursionError, OverflowError) as exc:
        raise ExpressionError(f"invalid activation expression {shown}: {shorten(str(exc), 60)}") from None
    if not isinstance(expr, sp.Expr) or X not in expr.free_symbols:
        raise ExpressionError(f"activation expression {shown} must depend on x")
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise ExpressionError(f"activation expression {shown} is not finite")
    try:
        val = complex(expr.subs(X, sp.Float("0.3")).evalf())
    except (TypeError, ValueError):
        raise ExpressionError(f"activation expression {shown} does not evaluate to a number") from None
    if val.imag != 0 or val.real != val.real:
        raise ExpressionError(f"activation expression {shown} is not real-valued at x = 0.3")
    return expr
