r"""Claim statements: safe expressions over a quantity's output columns, parsed into a margin.

The text is parsed with :mod:`ast` and *walked* (never evaluated), with the bounds and the function
whitelist of the activation parser (:mod:`asymptotics.activations.parser`: at most
:data:`~asymptotics.activations.parser.MAX_LENGTH` characters, :data:`~asymptotics.activations.parser.MAX_NODES`
syntax nodes, nesting depth :data:`~asymptotics.activations.parser.MAX_DEPTH`, no dunder names).
Allowed:

* comparisons ``a >= b``, ``a <= b``, ``a > b``, ``a < b``, ``a == b`` (equal within the claim's
  relative ``tolerance``); chains ``a <= b <= c`` mean ``a <= b and b <= c``;
* ``and`` / ``or`` of those (margin: the minimum / maximum);
* ``increasing(expr, param)`` / ``decreasing(expr, param)``: monotone in one parameter, compared
  between the point p and a neighbour p·(1+h) (log ranges) or p + h·(high − low) (linear);
* in the terms: numbers, output columns, parameters of the point, ``True``/``False``, ``pi``,
  ``+ - * / **`` and the activation parser's functions (``abs``, ``sqrt``, ``log``, ``min``, …).

**Margin.** Each atom has a signed margin, positive where it holds: ``a - b`` for ``a >= b``,
``b - a`` for ``a <= b``, ``tol·S - |a - b|`` for ``a == b``, and the signed difference of the
two values for monotonicity. Its **size** S is the sum of the magnitudes of the terms compared,
propagated through the arithmetic (``size(a ± b) = size(a) + size(b)``, a product's first-order
bound, a column's own magnitude): the float64 round-off of the margin is a few ``eps·S``. The
**relative margin** is ``margin / (S + tiny)``.

>>> s = parse_statement("risk1 >= kernel_bound and delta >= 0", ["risk1", "kernel_bound", "delta"])
>>> sorted(s.names)
['delta', 'kernel_bound', 'risk1']
>>> m = s.evaluate({"risk1": np.array([0.3]), "kernel_bound": np.array([0.1]), "delta": np.array([-0.01])})
>>> float(m.margin[0]), float(m.relative[0])
(-0.01, -1.0)
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..activations.parser import ALLOWED_FUNCTIONS, MAX_DEPTH, MAX_LENGTH, MAX_NODES
from ..errors import ExpressionError, shorten

__all__ = ["Statement", "Margins", "parse_statement", "MONOTONE", "TINY"]

TINY = np.finfo(float).tiny
#: The monotonicity predicates.
MONOTONE = ("increasing", "decreasing")


def _np_softplus(a):
    return np.logaddexp(0.0, a)


def _np_sigmoid(a):
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def _np_erf(a):
    from scipy.special import erf

    return erf(a)


def _np_erfc(a):
    from scipy.special import erfc

    return erfc(a)


def _np_gelu(a):
    return a * (1 + _np_erf(a / math.sqrt(2))) / 2


#: numpy versions of the activation parser's whitelist (same names, same arity).
_NUMPY = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "atan": np.arctan, "arctan": np.arctan,
    "erf": _np_erf, "erfc": _np_erfc, "abs": np.abs, "Abs": np.abs, "sign": np.sign,
    "heaviside": lambda a: np.heaviside(a, 0.5), "max": np.maximum, "Max": np.maximum, "min": np.minimum,
    "Min": np.minimum, "relu": lambda a: np.maximum(a, 0.0), "softplus": _np_softplus, "sigmoid": _np_sigmoid,
    "gelu": _np_gelu, "silu": lambda a: a * _np_sigmoid(a),
}  # fmt: skip
assert set(_NUMPY) == set(ALLOWED_FUNCTIONS)
def _mp_function(name: str):
    import mpmath as mp

    table = {
        "exp": mp.exp, "log": mp.log, "log1p": mp.log1p, "sqrt": mp.sqrt, "sin": mp.sin, "cos": mp.cos,
        "tan": mp.tan, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "atan": mp.atan, "arctan": mp.atan,
        "erf": mp.erf, "erfc": mp.erfc, "abs": abs, "Abs": abs, "sign": mp.sign,
        "heaviside": lambda a: mp.mpf(1) if a > 0 else (mp.mpf(0.5) if a == 0 else mp.mpf(0)),
        "max": max, "Max": max, "min": min, "Min": min, "relu": lambda a: max(a, mp.mpf(0)),
        "softplus": lambda a: mp.log1p(mp.exp(a)), "sigmoid": lambda a: 1 / (1 + mp.exp(-a)),
        "gelu": lambda a: a * (1 + mp.erf(a / mp.sqrt(2))) / 2, "silu": lambda a: a / (1 + mp.exp(-a)),
    }  # fmt: skip
    return table[name]


_CONSTANTS = {"pi": math.pi, "True": 1.0, "False": 0.0, "true": 1.0, "false": 0.0}
_OPS = {ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=", ast.Lt: "<", ast.Eq: "=="}


@dataclass(frozen=True)
class Margins:
    """The margins of a statement over a set of points (arrays of one length).

    Attributes:
        margin: the signed margin (positive = holds; NaN where a term is missing).
        relative: ``margin / (size + tiny)``.
        size: the size of the terms compared (the scale of the margin's round-off).
        strict: whether the deciding atom is strict (``>``, ``<``): a zero margin violates it.
    """

    margin: np.ndarray
    relative: np.ndarray
    size: np.ndarray
    strict: np.ndarray


# ---- the parsed tree: small nodes that evaluate on {name: array} ----------------------------------
@dataclass(frozen=True)
class _Term:
    kind: str  # "num", "name", "neg", "bin", "call"
    value: object = None
    args: tuple = ()

    def eval(self, env: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(value, size): size propagates the magnitudes of the leaves (first-order round-off)."""
        if self.kind == "num":
            v = np.asarray(self.value, dtype=float)
            return v, np.abs(v)
        if self.kind == "name":
            v = np.asarray(env[self.value], dtype=float)
            return v, np.abs(v)
        if self.kind == "neg":
            v, s = self.args[0].eval(env)
            return -v, s
        if self.kind == "bin":
            (a, sa), (b, sb) = self.args[0].eval(env), self.args[1].eval(env)
            with np.errstate(all="ignore"):
                if self.value == "+":
                    return a + b, sa + sb
                if self.value == "-":
                    return a - b, sa + sb
                if self.value == "*":
                    return a * b, sa * np.abs(b) + np.abs(a) * sb
                if self.value == "/":
                    return a / b, sa / np.abs(b) + np.abs(a) * sb / (b * b)
                v = np.power(a, b)
                return v, np.abs(v)
        with np.errstate(all="ignore"):  # a whitelisted function
            vals = [t.eval(env)[0] for t in self.args]
            v = _NUMPY[self.value](*vals)
        return np.asarray(v, dtype=float), np.abs(v)

    def eval_mp(self, env: Mapping[str, object]):
        """(value, size) in mpmath at the working precision (one point)."""
        import mpmath as mp

        if self.kind == "num":
            v = mp.mpf(self.value)
            return v, abs(v)
        if self.kind == "name":
            v = mp.mpf(env[self.value])
            return v, abs(v)
        if self.kind == "neg":
            v, s = self.args[0].eval_mp(env)
            return -v, s
        if self.kind == "bin":
            (a, sa), (b, sb) = self.args[0].eval_mp(env), self.args[1].eval_mp(env)
            if self.value in "+-":
                return (a + b if self.value == "+" else a - b), sa + sb
            if self.value == "*":
                return a * b, sa * abs(b) + abs(a) * sb
            if self.value == "/":
                return a / b, sa / abs(b) + abs(a) * sb / (b * b)
            v = mp.power(a, b)
            return v, abs(v)
        v = _mp_function(self.value)(*[t.eval_mp(env)[0] for t in self.args])
        return v, abs(v)

    def names(self) -> set[str]:
        out = {self.value} if self.kind == "name" else set()
        for a in self.args:
            out |= a.names()
        return out


@dataclass(frozen=True)
class _Atom:
    kind: str  # "cmp" or "mono" or "and" or "or"
    op: str = ""
    args: tuple = ()
    param: str = ""

    def names(self) -> set[str]:
        out = {self.param} if self.param else set()
        for a in self.args:
            out |= a.names()
        return out


class _Walker:
    def __init__(self, known: set[str] | None, params: set[str] | None, text: str):
        self.known, self.params, self.text = known, params, text

    def fail(self, msg: str):
        raise ExpressionError(f"statement {shorten(self.text, 60)}: {msg}")

    def term(self, node, depth: int) -> _Term:
        if depth > MAX_DEPTH:
            self.fail(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return _Term("num", float(node.value))
            if not isinstance(node.value, (int, float)) or not math.isfinite(float(node.value)):
                self.fail(f"only finite numbers are allowed, got {shorten(node.value, 40)}")
            return _Term("num", float(node.value))
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            t = self.term(node.operand, depth + 1)
            return _Term("neg", args=(t,)) if isinstance(node.op, ast.USub) else t
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
            if type(node.op) not in ops:
                self.fail(f"operator not allowed: {shorten(ast.unparse(node), 60)}")
            return _Term("bin", ops[type(node.op)], (self.term(node.left, depth + 1), self.term(node.right, depth + 1)))
        if isinstance(node, ast.Call):
            fname = node.func.id if isinstance(node.func, ast.Name) else shorten(ast.unparse(node.func), 40)
            if fname not in ALLOWED_FUNCTIONS or node.keywords:
                self.fail(f"function {fname} is not allowed in a term; allowed: {', '.join(sorted(ALLOWED_FUNCTIONS))}")
            arity = ALLOWED_FUNCTIONS[fname][1]
            if len(node.args) != arity:
                self.fail(f"{fname} takes {arity} argument(s), got {len(node.args)}")
            return _Term("call", fname, tuple(self.term(a, depth + 1) for a in node.args))
        self.fail(f"construct not allowed: {shorten(ast.unparse(node), 60)}")

    def name(self, name: str) -> _Term:
        if name in _CONSTANTS:
            return _Term("num", _CONSTANTS[name])
        if self.known is not None and name not in self.known:
            self.fail(f"unknown column {name!r}; the quantity's columns and parameters: {', '.join(sorted(self.known))}")
        return _Term("name", name)

    def atom(self, node, depth: int) -> _Atom:
        if depth > MAX_DEPTH:
            self.fail(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.BoolOp):
            kind = "and" if isinstance(node.op, ast.And) else "or"
            return _Atom(kind, args=tuple(self.atom(v, depth + 1) for v in node.values))
        if isinstance(node, ast.Compare):
            if any(type(op) not in _OPS for op in node.ops):
                self.fail("comparisons are >=, <=, >, <, == (!= and 'in' are not testable margins)")
            terms = [self.term(node.left, depth + 1)] + [self.term(c, depth + 1) for c in node.comparators]
            pairs = [_Atom("cmp", _OPS[type(op)], (terms[i], terms[i + 1])) for i, op in enumerate(node.ops)]
            return pairs[0] if len(pairs) == 1 else _Atom("and", args=tuple(pairs))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MONOTONE:
            if node.keywords or len(node.args) != 2 or not isinstance(node.args[1], ast.Name):
                self.fail(f"{node.func.id}(expression, parameter) takes a term and a parameter name")
            p = node.args[1].id
            if self.params is not None and p not in self.params:
                self.fail(f"{node.func.id}: {p!r} is not a parameter of the domain ({', '.join(sorted(self.params))})")
            return _Atom("mono", node.func.id, (self.term(node.args[0], depth + 1),), p)
        self.fail("a statement is a comparison (a >= b), increasing(col, param), decreasing(col, param), "
                  "or an 'and'/'or' of them")


@dataclass(frozen=True)
class Statement:
    """A parsed statement.

    Attributes:
        text: the statement as given.
        tree: the parsed atoms.
        names: every column and parameter it reads.
        monotone: the parameters of its ``increasing``/``decreasing`` atoms (each needs a
            neighbouring evaluation).
    """

    text: str
    tree: _Atom
    names: frozenset
    monotone: tuple[str, ...]

    def evaluate(self, env: Mapping[str, np.ndarray], neighbours: Mapping[str, tuple] | None = None,
                 tolerance: float = 0.0) -> Margins:
        """The margins at the points of ``env`` ({name: array}). ``neighbours[param] = (env2,
        direction)``: the same points with ``param`` moved, ``direction`` +1 where it moved up and
        −1 where down (needed by each monotone atom)."""
        m, s, strict = _margins(self.tree, env, neighbours or {}, float(tolerance))
        with np.errstate(all="ignore"):
            rel = m / (s + TINY)
        return Margins(margin=m, relative=rel, size=s, strict=strict)


    def evaluate_mp(self, env: Mapping[str, object], neighbours: Mapping[str, tuple] | None = None,
                    tolerance: float = 0.0):
        """The margin at one point in mpmath: ``(margin, size, strict)`` (mpf, mpf, bool);
        ``env`` maps names to mpf values, ``neighbours[param] = (env2, direction)``."""
        return _margins_mp(self.tree, env, neighbours or {}, tolerance)


def _margins_mp(a: _Atom, env, neighbours, tol):
    import mpmath as mp

    if a.kind in ("and", "or"):
        parts = [_margins_mp(x, env, neighbours, tol) for x in a.args]
        key = [p[0] / (p[1] + mp.mpf(TINY)) for p in parts]
        i = key.index(min(key) if a.kind == "and" else max(key))
        return parts[i]
    if a.kind == "cmp":
        (x, sx), (y, sy) = a.args[0].eval_mp(env), a.args[1].eval_mp(env)
        s = sx + sy
        m = {">=": x - y, ">": x - y, "<=": y - x, "<": y - x}.get(a.op)
        if m is None:
            m = mp.mpf(tol) * s - abs(x - y)
        return m, s, a.op in (">", "<")
    env2, direction = neighbours[a.param]
    v1, v2 = a.args[0].eval_mp(env)[0], a.args[0].eval_mp(env2)[0]
    sign = (1 if direction > 0 else -1) * (1 if a.op == "increasing" else -1)
    return sign * (v2 - v1), abs(v1) + abs(v2), False


def _margins(a: _Atom, env, neighbours, tol):
    if a.kind in ("and", "or"):
        parts = [_margins(x, env, neighbours, tol) for x in a.args]
        rel = np.array([p[0] / (p[1] + TINY) for p in parts])
        pick = np.nanargmin(np.where(np.isnan(rel), -np.inf, rel), axis=0) if a.kind == "and" else \
            np.nanargmax(np.where(np.isnan(rel), -np.inf, rel), axis=0)
        idx = np.arange(rel.shape[1])
        m = np.array([p[0] for p in parts])[pick, idx]
        s = np.array([p[1] for p in parts])[pick, idx]
        st = np.array([p[2] for p in parts])[pick, idx]
        nan = np.isnan(rel).any(axis=0)
        return np.where(nan, np.nan, m), s, st
    if a.kind == "cmp":
        (x, sx), (y, sy) = a.args[0].eval(env), a.args[1].eval(env)
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        s = np.broadcast_to(sx + sy, x.shape).astype(float)
        m = {">=": x - y, ">": x - y, "<=": y - x, "<": y - x}.get(a.op)
        if m is None:  # equality within the relative tolerance
            m = tol * s - np.abs(x - y)
        strict = np.full(x.shape, a.op in (">", "<"))
        return m, s, strict
    env2, direction = neighbours[a.param]
    v1, v2 = a.args[0].eval(env)[0], a.args[0].eval(env2)[0]
    sign = np.asarray(direction, float) * (1.0 if a.op == "increasing" else -1.0)
    m = sign * (v2 - v1)
    return m, np.broadcast_to(np.abs(v1) + np.abs(v2), np.shape(m)).astype(float), np.zeros(np.shape(m), bool)


def parse_statement(text: str, columns: Iterable[str] | None = None, params: Iterable[str] | None = None) -> Statement:
    """Parse ``text``; ``columns`` (the quantity's output columns and the point's parameters) and
    ``params`` (the parameters a monotone atom may move), when given, are the only names allowed.
    Raises :class:`~asymptotics.errors.ExpressionError` (one line) for anything else."""
    if not isinstance(text, str):
        raise ExpressionError(f"a statement must be a string, got {type(text).__name__}")
    t = text.strip()
    if not t:
        raise ExpressionError("empty statement")
    if len(t) > MAX_LENGTH:
        raise ExpressionError(f"statement longer than {MAX_LENGTH} characters ({len(t)})")
    if "__" in t:
        raise ExpressionError(f"statement {shorten(t, 60)}: dunder names are not allowed")
    try:
        tree = ast.parse(t, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"cannot parse statement {shorten(t, 60)}: {getattr(exc, 'msg', None) or type(exc).__name__}") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError(f"statement with {nodes} syntax nodes (at most {MAX_NODES})")
    known = None if columns is None else set(columns) | (set(params) if params is not None else set())
    walker = _Walker(known, None if params is None else set(params), t)
    atom = walker.atom(tree.body, 0)
    mono = tuple(dict.fromkeys(_monotone(atom)))
    return Statement(text=t, tree=atom, names=frozenset(atom.names()), monotone=mono)


def _monotone(a: _Atom) -> list[str]:
    out = [a.param] if a.kind == "mono" else []
    for x in a.args:
        if isinstance(x, _Atom):
            out += _monotone(x)
    return out
