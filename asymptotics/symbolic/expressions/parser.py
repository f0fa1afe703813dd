r"""Safe parsing of a matrix expression into a tree with shapes and orders.

The text is parsed with Python's :mod:`ast` and the syntax tree is *walked* (never evaluated).
Allowed:

* declared matrices (``--dims``), ``A @ B``, ``A + B``, ``A - B``, ``-A``, ``c*A``, ``A/c``,
  ``A.T``, ``inv(A)``, integer powers ``A**k`` (|k| ≤ 8; negative: of the inverse);
* ``I`` (the identity, its size inferred from where it is used) or ``I(n)``;
* ``tr(A)`` = (1/size)·Trace(A) of a square A; the value is a scalar expression in such traces;
* scalars: numbers (``1j`` included), parameters (any other name; with ``params=`` only those),
  dimension names (``n``, ``d``: n = r_n·L), ``sqrt``, ``exp``, ``log``, ``+ - * / **``;
* definitions before the value, separated by ``;`` or new lines: ``F = X@W/sqrt(d); tr(...)``.

Bounded cost: at most 2000 characters, 400 syntax nodes, nesting depth 40, and every
refusal is one line naming the offending token:

>>> from .declarations import declare
>>> D = declare("X:n,d", "n/d=2")
>>> parse("tr(inv(X.T@X/d + lam*I))", D).value
_tr1
>>> parse("tr(X@X)", D)
Traceback (most recent call last):
...
asymptotics.errors.ExpressionError: non-conformable shapes in 'X @ X': X is n×d and X is n×d (inner dimensions d and n differ)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import sympy

from ...errors import ExpressionError
from .declarations import RESERVED, Declarations
from .tree import (
    Gaussian,
    Identity,
    Inverse,
    MatrixValue,
    Product,
    ScalarValue,
    Sum,
    Transpose,
    UnsizedIdentity,
    scale,
)

__all__ = ["parse", "Parsed", "MAX_LENGTH", "MAX_NODES", "MAX_DEPTH", "MAX_POWER"]

MAX_LENGTH = 2000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_POWER = 8
HALF = sympy.Rational(1, 2)


@dataclass(frozen=True)
class Parsed:
    """The parsed expression: ``value`` (a sympy scalar in the trace placeholders ``_tr1``, … and
    parameters), ``traces`` {placeholder: matrix node}, ``parameters`` (sorted names),
    ``text`` (the input)."""

    value: sympy.Expr
    traces: dict
    parameters: tuple
    text: str


def _token(node) -> str:
    s = ast.unparse(node)
    return s if len(s) <= 60 else s[:57] + "..."


def _fmt_shape(shape) -> str:
    return f"{shape[0]}×{shape[1]}"


def _depth(node, limit) -> int:
    best, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            raise ExpressionError(f"nesting too deep (more than {limit} levels) at {_token(n)!r}")
        best = max(best, d)
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(n))
    return best


class _Walker:
    def __init__(self, decl: Declarations, params, constants):
        self.decl = decl
        self.params = None if params is None else set(params)
        self.constants = set(constants or ())
        self.defs: dict = {}
        self.traces: dict = {}
        self.used: set = set()
        self.L = sympy.Symbol("L", positive=True)

    # ----------------------------------------------------------------- names
    def name(self, node: ast.Name):
        n = node.id
        if n.startswith("_"):
            raise ExpressionError(f"names starting with '_' are not allowed: {n!r}")
        if n in self.defs:
            return self.defs[n]
        if n in self.decl.matrices:
            r, c = self.decl.matrices[n]
            order = HALF if self.decl.entries == "unit" else sympy.Integer(0)
            return MatrixValue(Gaussian(n, r, c), order)
        if n in self.decl.ratios:
            return ScalarValue(self.decl.ratios[n], sympy.Integer(1))
        if n == "I":
            return UnsizedIdentity(sympy.Integer(1))
        if n == "pi":
            return ScalarValue(sympy.pi)
        if n in RESERVED:
            raise ExpressionError(f"{n!r} is a function: call it, e.g. {n}(...)")
        if self.params is not None and n not in self.params and n not in self.constants:
            known = ", ".join(self.decl.matrices)
            dims = ", ".join(self.decl.ratios)
            given = ", ".join(sorted(self.params | self.constants)) or "none"
            raise ExpressionError(
                f"unknown name {n!r}: not a declared matrix ({known}), a dimension ({dims}) "
                f"or a parameter (given: {given})"
            )
        self.used.add(n)
        return ScalarValue(sympy.Symbol(n))

    # ----------------------------------------------------------------- helpers
    def need_scalar(self, v, node, what):
        if isinstance(v, ScalarValue):
            return v
        if isinstance(v, UnsizedIdentity):
            raise ExpressionError(f"{what} needs a scalar, got the identity in {_token(node)!r}")
        raise ExpressionError(
            f"{what} needs a scalar, got a {_fmt_shape(v.shape)} matrix in {_token(node)!r}"
        )

    def add(self, a, b, node, sign):
        if isinstance(b, ScalarValue) and sign < 0:
            b = ScalarValue(-b.value, b.order)
        elif sign < 0:
            b = self.negate(b)
        kinds = (type(a), type(b))
        if kinds == (ScalarValue, ScalarValue):
            self.same_order(a, b, node)
            return ScalarValue(a.value + b.value, a.order)
        if ScalarValue in kinds:
            s = a if isinstance(a, ScalarValue) else b
            raise ExpressionError(
                f"cannot add the scalar {s.value} to a matrix in {_token(node)!r}: write {s.value}*I"
            )
        if kinds == (UnsizedIdentity, UnsizedIdentity):
            self.same_order(a, b, node)
            return UnsizedIdentity(a.coeff + b.coeff, a.order)
        if isinstance(a, UnsizedIdentity) or isinstance(b, UnsizedIdentity):
            m = b if isinstance(a, UnsizedIdentity) else a
            if not m.square:
                raise ExpressionError(
                    f"cannot add the identity to a non-square {_fmt_shape(m.shape)} matrix in {_token(node)!r}"
                )
            if isinstance(a, UnsizedIdentity):
                a = a.sized(m.shape[0])
            else:
                b = b.sized(m.shape[0])
        if a.shape != b.shape:
            raise ExpressionError(
                f"non-conformable shapes in {_token(node)!r}: {_token(node.left)} is {_fmt_shape(a.shape)} "
                f"and {_token(node.right)} is {_fmt_shape(b.shape)}"
            )
        self.same_order(a, b, node)
        ta = a.node.terms if isinstance(a.node, Sum) else (a.node,)
        tb = b.node.terms if isinstance(b.node, Sum) else (b.node,)
        return MatrixValue(Sum(ta + tb), a.order)

    def same_order(self, a, b, node):
        if a.order == b.order:
            return
        left, right = _token(node.left), _token(node.right)
        big, small = (left, right) if a.order > b.order else (right, left)
        k = abs(a.order - b.order)
        ref = self.decl.reference
        factor = ref if k == 1 else (f"sqrt({ref})" if k == HALF else f"{ref}**{k}")
        raise ExpressionError(
            f"terms of different orders in {_token(node)!r}: {big!r} is larger than {small!r} by a factor "
            f"{factor} as the dimensions grow (entries are N(0, 1) unless entries='scaled': normalise, e.g. X.T@X/{ref})"
        )

    def negate(self, v):
        if isinstance(v, ScalarValue):
            return ScalarValue(-v.value, v.order)
        if isinstance(v, UnsizedIdentity):
            return UnsizedIdentity(-v.coeff, v.order)
        return scale(v, ScalarValue(sympy.Integer(-1)))

    def mul(self, a, b, node):
        """``*``: scalar·scalar, scalar·matrix (a matrix·matrix product must be written with @)."""
        if isinstance(a, ScalarValue) and isinstance(b, ScalarValue):
            return ScalarValue(a.value * b.value, a.order + b.order)
        if isinstance(a, ScalarValue) or isinstance(b, ScalarValue):
            s, m = (a, b) if isinstance(a, ScalarValue) else (b, a)
            if isinstance(m, UnsizedIdentity):
                return UnsizedIdentity(s.value * m.coeff, s.order + m.order)
            return scale(m, s)
        raise ExpressionError(
            f"'*' between two matrices in {_token(node)!r} (elementwise products are not supported): use '@'"
        )

    def matmul(self, a, b, node):
        for v in (a, b):
            if isinstance(v, ScalarValue):
                raise ExpressionError(
                    f"'@' needs two matrices in {_token(node)!r}: {v.value} is a scalar (use '*'; the matrices "
                    "are the declared Gaussian ones and I: a deterministic matrix other than c*I is not supported)"
                )
        if isinstance(a, UnsizedIdentity) and isinstance(b, UnsizedIdentity):
            return UnsizedIdentity(a.coeff * b.coeff, a.order + b.order)
        if isinstance(a, UnsizedIdentity):
            return scale(b, ScalarValue(a.coeff, a.order))
        if isinstance(b, UnsizedIdentity):
            return scale(a, ScalarValue(b.coeff, b.order))
        if a.shape[1] != b.shape[0]:
            raise ExpressionError(
                f"non-conformable shapes in {_token(node)!r}: {_token(node.left)} is {_fmt_shape(a.shape)} "
                f"and {_token(node.right)} is {_fmt_shape(b.shape)} (inner dimensions {a.shape[1]} and {b.shape[0]} differ)"
            )
        fa = a.node.factors if isinstance(a.node, Product) else (a.node,)
        fb = b.node.factors if isinstance(b.node, Product) else (b.node,)
        return MatrixValue(Product(fa + fb), a.order + b.order)

    def inverse(self, v, node):
        if isinstance(v, ScalarValue):
            if v.value == 0:
                raise ExpressionError(f"division by zero in {_token(node)!r}")
            return ScalarValue(1 / v.value, -v.order)
        if isinstance(v, UnsizedIdentity):
            if v.coeff == 0:
                raise ExpressionError(f"inverse of the zero matrix in {_token(node)!r}")
            return UnsizedIdentity(1 / v.coeff, -v.order)
        if not v.square:
            raise ExpressionError(f"inv() needs a square matrix: {_token(node)!r} is {_fmt_shape(v.shape)}")
        if isinstance(v.node, Inverse):
            return MatrixValue(v.node.arg, -v.order)
        return MatrixValue(Inverse(v.node), -v.order)

    def transpose(self, v, node):
        if isinstance(v, (ScalarValue, UnsizedIdentity)):
            return v
        n = v.node
        if isinstance(n, Transpose):
            return MatrixValue(n.arg, v.order)
        if isinstance(n, Identity):
            return v
        return MatrixValue(Transpose(n), v.order)

    def power(self, a, b, node):
        if isinstance(a, ScalarValue):
            e = self.need_scalar(b, node, "an exponent")
            if e.order != 0:
                raise ExpressionError(f"exponent {_token(node.right)!r} grows with the dimensions")
            if a.order != 0 and not e.value.is_number:
                raise ExpressionError(f"{_token(node)!r}: a dimension to a symbolic power")
            return ScalarValue(a.value**e.value, a.order * e.value if a.order else sympy.Integer(0))
        if not (isinstance(b, ScalarValue) and b.value.is_Integer):
            raise ExpressionError(f"a matrix power needs an integer exponent: {_token(node)!r}")
        k = int(b.value)
        if k == 0 or abs(k) > MAX_POWER:
            raise ExpressionError(
                f"matrix power {k} in {_token(node)!r}: must be a nonzero integer in [-{MAX_POWER}, {MAX_POWER}]"
            )
        if isinstance(a, UnsizedIdentity):
            return UnsizedIdentity(a.coeff**k, a.order * k)
        if not a.square:
            raise ExpressionError(
                f"a matrix power needs a square matrix: {_token(node.left)!r} is {_fmt_shape(a.shape)}"
            )
        base = a if k > 0 else self.inverse(a, node)
        out = base
        for _ in range(abs(k) - 1):
            out = self.matmul(out, base, node)
        return out

    # ----------------------------------------------------------------- the walk
    def call(self, node: ast.Call):
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(f"construct not allowed: {_token(node)!r}")
        fname = node.func.id
        if node.keywords:
            raise ExpressionError(f"keyword arguments are not allowed: {_token(node)!r}")
        if len(node.args) != 1:
            raise ExpressionError(f"{fname}() takes one argument, got {len(node.args)} in {_token(node)!r}")
        arg_node = node.args[0]
        if fname == "I":
            if not isinstance(arg_node, ast.Name) or arg_node.id not in self.decl.ratios:
                raise ExpressionError(
                    f"I() takes a dimension name ({', '.join(self.decl.ratios)}): {_token(node)!r}"
                )
            return MatrixValue(Identity(arg_node.id))
        arg = self.walk(arg_node)
        if fname == "tr":
            if isinstance(arg, ScalarValue):
                raise ExpressionError(f"tr() needs a square matrix: {_token(arg_node)!r} is a scalar")
            if isinstance(arg, UnsizedIdentity):
                return ScalarValue(arg.coeff, arg.order)
            if not arg.square:
                raise ExpressionError(
                    f"tr() needs a square matrix: {_token(arg_node)!r} is {_fmt_shape(arg.shape)}"
                )
            for ph, known in self.traces.items():
                if known == arg.node:
                    return ScalarValue(ph, arg.order)
            ph = sympy.Symbol(f"_tr{len(self.traces) + 1}")
            self.traces[ph] = arg.node
            return ScalarValue(ph, arg.order)
        if fname == "inv":
            return self.inverse(arg, node)
        if fname in ("sqrt", "exp", "log"):
            s = self.need_scalar(arg, node, f"{fname}()")
            if fname == "sqrt":
                return ScalarValue(sympy.sqrt(s.value), s.order / 2)
            if s.order != 0:
                raise ExpressionError(
                    f"{fname}() of a quantity that grows with the dimensions: {_token(node)!r}"
                )
            return ScalarValue(getattr(sympy, fname)(s.value))
        allowed = "tr, inv, I, sqrt, exp, log"
        raise ExpressionError(f"function {fname!r} is not allowed; allowed: {allowed}")

    def walk(self, node):
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
                raise ExpressionError(f"only numeric constants are allowed, got {_token(node)!r}")
            if isinstance(v, complex):
                return ScalarValue(sympy.Rational(repr(v.real)) + sympy.I * sympy.Rational(repr(v.imag)))
            if isinstance(v, float):
                try:
                    return ScalarValue(sympy.Rational(repr(v)))
                except (TypeError, ValueError):
                    raise ExpressionError(f"not a finite number: {_token(node)!r}") from None
            return ScalarValue(sympy.Integer(v))
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Attribute):
            if node.attr != "T":
                raise ExpressionError(
                    f"attribute {node.attr!r} is not allowed (only .T, the transpose): {_token(node)!r}"
                )
            return self.transpose(self.walk(node.value), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.walk(node.operand)
            return self.negate(v) if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = self.walk(node.left), self.walk(node.right)
            op = type(node.op)
            if op is ast.Add:
                return self.add(a, b, node, +1)
            if op is ast.Sub:
                return self.add(a, b, node, -1)
            if op is ast.Mult:
                return self.mul(a, b, node)
            if op is ast.MatMult:
                return self.matmul(a, b, node)
            if op is ast.Div:
                if not isinstance(b, ScalarValue):
                    raise ExpressionError(
                        f"division by a matrix in {_token(node)!r}: write {_token(node.left)} @ inv({_token(node.right)})"
                    )
                return self.mul(a, self.inverse(b, node), node)
            if op in (ast.Pow, ast.BitXor):
                return self.power(a, b, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise ExpressionError(f"construct not allowed in a matrix expression: {_token(node)!r}")

    def statement(self, st):
        if isinstance(st, ast.Assign):
            if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
                raise ExpressionError(f"a definition assigns one name: {_token(st)!r}")
            n = st.targets[0].id
            if n.startswith("_") or n in RESERVED or n in self.decl.matrices or n in self.decl.ratios:
                raise ExpressionError(
                    f"cannot define {n!r}: it is reserved, a declared matrix or a dimension"
                )
            self.defs[n] = self.walk(st.value)
            return None
        if isinstance(st, ast.Expr):
            return self.walk(st.value)
        raise ExpressionError(
            f"statement not allowed: {_token(st)!r} (only NAME = EXPR definitions and the value)"
        )


def check_text(text: str) -> ast.Module:
    """The checks of an expression's text that need no declarations (a string, not empty, not too
    long, no ``__`` names, valid syntax, not too large or deep), so that a hostile or malformed
    expression is refused before its dimensions are looked at; returns its syntax tree."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ExpressionError("empty expression")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters")
    if "__" in text:
        raise ExpressionError("names with '__' are not allowed in expressions")
    try:
        tree = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse the expression {text[:60]!r}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError(f"nesting too deep (more than {MAX_DEPTH} levels)") from None
    count = sum(1 for _ in ast.walk(tree))
    if count > MAX_NODES:
        raise ExpressionError(f"expression too large: {count} syntax nodes (at most {MAX_NODES})")
    _depth(tree, MAX_DEPTH)
    return tree


def parse(text: str, decl: Declarations, *, params=None, constants=()) -> Parsed:
    """Parse ``text`` (see the module docstring) against the declarations ``decl``.

    ``params``: the allowed parameter names (``None``: any name that is not a matrix, a dimension
    or reserved is a parameter); ``constants``: names with values supplied elsewhere (activation
    constants ``mu1``, ``mu2``, …), always allowed.
    """
    tree = check_text(text)
    text = text.strip()
    w = _Walker(decl, params, constants)
    for st in tree.body:
        if not isinstance(st, (ast.Assign, ast.Expr)):
            raise ExpressionError(
                f"statement not allowed: {_token(st)!r} (only NAME = EXPR definitions and the value)"
            )
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise ExpressionError("the expression must end with the value to compute, e.g. tr(inv(A + lam*I))")
    value = None
    try:
        for st in tree.body:
            value = w.statement(st)
    except (RecursionError, ZeroDivisionError) as exc:
        raise ExpressionError(f"invalid expression: {type(exc).__name__}") from None
    if isinstance(value, UnsizedIdentity):
        raise ExpressionError("the value is a matrix (the identity): take a normalised trace, tr(...)")
    if isinstance(value, MatrixValue):
        raise ExpressionError(
            f"the value is a {_fmt_shape(value.shape)} matrix: take a normalised trace, tr(...)"
        )
    if value.order != 0:
        ref = decl.reference
        raise ExpressionError(
            f"the value grows or vanishes like {ref}**{value.order} as the dimensions grow: normalise it"
        )
    if not w.traces:
        raise ExpressionError("the expression contains no trace tr(...) of a random matrix")
    params_used = sorted(w.used | {s.name for s in decl.parameters})
    return Parsed(sympy.sympify(value.value), dict(w.traces), tuple(params_used), text)
