r"""The one printer of generated code: sympy expressions and ``sympy.codegen.ast`` statements → Python.

Every module the package generates — lowered equation systems (:mod:`asymptotics.codegen.systems`),
route C's elementwise Newton map (:mod:`asymptotics.codegen.newton_map`) and an activation's σ, σ',
σ'' (:mod:`asymptotics.activations.lowering`) — prints its expressions, and the statements around
them (:mod:`asymptotics.codegen.expressions`), with :class:`NumbaExprPrinter`. The expressions are
*scalar* for numba (one grid point, one unknown at a time); the targets differ in the module of the
elementary functions and in what must be vectorised or kept exact:

``"generic"`` (default)
    ``numpy.sqrt``, ``numpy.exp``, …: the same code runs on ``float64`` and ``complex128``
    scalars (numba specialises per type) — equation systems, solved at real or complex z;
``"real"``
    ``math.sqrt``, ``math.erf``, …: real ``float64`` scalars only, with the real-only rewrites
    below — an activation's compiled σ, σ', σ'';
``"numpy"``
    the same rules vectorised over float64 arrays (``numpy`` ufuncs, ``scipy.special.erf``,
    ``numpy.heaviside``, ``numpy.maximum``; a negative integer power as ``b**(-k.0)``, numpy's
    ``power``) — an activation's ``f_np``;
``"mpmath"``
    ``mpmath`` functions, float literals exact (``mpmath.mpf`` of the binary value, rationals as
    ``mpmath.mpf(p)/mpmath.mpf(q)``, integers exact) — an activation's high-precision ``f_mp``.

Shared rules (precision and numba-compatibility):

* :func:`prepare` first applies ``sympy.codegen.rewriting.optims_c99``: ``log(1 + u)`` →
  ``log1p(u)``, ``exp(u) − 1`` → ``expm1(u)``, …;
* float literals: integers as ``k.0``, rationals as ``(p.0/q.0)`` (no integer division, no integer
  overflow), floats at full double precision (``repr(float)``);
* integer powers 1…16 kept exact (``b**k``, repeated multiplication in numba; ``(1.0/(b**k))``
  for negative k), ``b**(±1/2)`` as a square root;
* ``Heaviside(u)`` as a branch (H(0) = ½ unless given), ``DiracDelta`` as 0 (a distributional
  derivative, zero almost everywhere), ``Max``/``Min`` as nested ``max``/``min``;
* real and numpy targets: softplus ``log1p(exp(u))`` as the overflow-free
  ``max(u, 0) + log1p(exp(−|u|))``; real target: ``sign(u)`` by ``math.copysign``;
* statements: :class:`Identifier` (a name of the generated code) verbatim, array positions and
  shapes (``Indexed``, ``FunctionCall``) as Python ints.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> NumbaExprPrinter({x: "x_"}).doprint(prepare(sp.log(1 + x) / x**2))
'numpy.log1p(x_)/x_**2'
>>> NumbaExprPrinter(target="real").doprint(prepare(sp.log(1 + sp.exp(x)) + sp.Heaviside(x)))
'(1.0 if (x) > 0 else ((1.0/2.0) if (x) == 0 else 0.0)) + (max(x, 0.0) + math.log1p(math.exp(-abs(x))))'
>>> NumbaExprPrinter(target="numpy").doprint(prepare(sp.Max(x, 0) + (1 + x**2) ** -2))
'numpy.maximum(0.0, x) + (x**2 + 1.0)**(-2.0)'
>>> NumbaExprPrinter(target="mpmath").doprint(sp.erf(x) / 3 - sp.Float(0.1))
'(mpmath.mpf(1)/mpmath.mpf(3))*mpmath.erf(x) + mpmath.mpf((1, 3602879701896397, -55, 52))'
"""

from __future__ import annotations

import keyword
import re
import types

import sympy as sp
from sympy.codegen.rewriting import optimize, optims_c99
from sympy.printing.numpy import NumPyPrinter, SciPyPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

__all__ = ["NumbaExprPrinter", "Identifier", "function_source", "safe_name", "prepare", "nested_call", "TARGETS"]

#: The targets of :class:`NumbaExprPrinter` (see the module docstring).
TARGETS = ("generic", "real", "numpy", "mpmath")

#: Per target: the module of the elementary functions and the known functions and constants (the
#: builtins abs, min, max under each).
_TABLES = {
    "generic": ("numpy", {**PythonCodePrinter._kf, **NumPyPrinter._kf}, dict(NumPyPrinter._kc)),
    "real": ("math", dict(PythonCodePrinter._kf), dict(PythonCodePrinter._kc)),
    "numpy": ("numpy", {**PythonCodePrinter._kf, **SciPyPrinter._kf}, dict(SciPyPrinter._kc)),
    "mpmath": ("mpmath", dict(MpmathPrinter._kf), dict(MpmathPrinter._kc)),
}

#: Per target: sympy's printers of that language, whose own print methods print what the shared
#: rules of :class:`NumbaExprPrinter` do not cover (arrays: ``numpy.select`` for a Piecewise,
#: ``numpy.less`` for a relation, ``numpy.logical_and``, …), most specific last.
_DIALECTS = {"numpy": (NumPyPrinter, SciPyPrinter), "mpmath": (MpmathPrinter,)}

#: Largest |k| of an integer power printed as an exact power ``b**k``.
MAX_EXACT_POWER = 16


class Identifier(sp.Symbol):
    """A name of the generated code itself — an array argument, a local, a dtype expression such
    as ``x.dtype`` — printed verbatim; never equal to a symbol of the mathematics (a different
    class), so the printer's symbol → identifier map cannot rename it."""


def function_source(name: str, args, body, printer) -> str:
    """``def name(args): body`` — a :class:`sympy.codegen.ast.FunctionDefinition` printed by
    ``printer``; ``args`` are names (a list, or one string ``"x, p"``) or symbols (printed by the
    printer's symbol map), ``body`` a sequence of ``sympy.codegen.ast`` statements.

    >>> from sympy.codegen.ast import Return
    >>> x = sp.Symbol("x")
    >>> print(function_source("f", [x], [Return(sp.log(1 + sp.exp(x)))], NumbaExprPrinter(target="mpmath")))
    def f(x):
        return mpmath.log(mpmath.exp(x) + 1)
    """
    from sympy.codegen.ast import CodeBlock, FunctionDefinition, Variable, none

    if isinstance(args, str):
        args = [a.strip() for a in args.split(",")]
    params = [Variable(Identifier(a) if isinstance(a, str) else a) for a in args]
    return printer.doprint(FunctionDefinition(none, name, params, CodeBlock(*body)))


def safe_name(prefix: str, sym) -> str:
    """A Python identifier for a symbol (``prefix`` + sanitised name; never a keyword)."""
    name = re.sub(r"\W", "_", str(sym))
    out = f"{prefix}{name}"
    return out + "_" if keyword.iskeyword(out) else out


def nested_call(fn: str, args) -> str:
    """``fn(fn(a, b), c)`` for the printed ``args`` (a binary max/min applied to many arguments)."""
    out = args[0]
    for a in args[1:]:
        out = f"{fn}({out}, {a})"
    return out


def prepare(expr) -> sp.Expr:
    """Precision-aware rewriting before printing (``sympy.codegen.rewriting.optims_c99``)."""
    return optimize(sp.sympify(expr), optims_c99)


class NumbaExprPrinter(PythonCodePrinter):
    """Scalar Python printer whose output numba compiles (see the module docstring).

    ``symbol_names`` maps sympy symbols to the identifiers used in the generated code (other
    symbols print as their names); ``target`` is ``"generic"`` (numpy functions: float64 or
    complex128), ``"real"`` (math functions, real-only rewrites), ``"numpy"`` (vectorised) or
    ``"mpmath"`` (exact literals). Unsupported functions raise at printing time, not at compile
    time.
    """

    def __init__(self, symbol_names: dict | None = None, *, target: str = "generic"):
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
        super().__init__({"standard": "python3", "fully_qualified_modules": True, "strict": True})
        self.target = target
        self._module, self.known_functions, self.known_constants = _TABLES[target]
        self._names = symbol_names or {}
        for dialect in _DIALECTS.get(target, ()):
            self.printmethod = dialect.printmethod
            for name, method in vars(dialect).items():
                if name.startswith("_print_") and name not in vars(NumbaExprPrinter):
                    setattr(self, name, types.MethodType(method, self))

    # ---- symbols and numbers ------------------------------------------------------------
    def _print_Symbol(self, expr):
        return self._names.get(expr, super()._print_Symbol(expr))

    def _print_Identifier(self, expr):
        return expr.name

    def _print_Float(self, expr):
        if self.target == "mpmath":
            return MpmathPrinter._print_Float(self, expr)
        return repr(float(expr))

    def _print_Rational(self, expr):
        if self.target == "mpmath":
            return MpmathPrinter._print_Rational(self, expr)
        return f"({int(expr.p)}.0/{int(expr.q)}.0)"

    def _print_Half(self, expr):
        return self._print_Rational(expr)

    def _print_Integer(self, expr):
        if self.target == "mpmath":
            return str(int(expr))
        return f"{int(expr)}.0" if abs(int(expr)) < 2**53 else repr(float(expr))

    # ---- powers -------------------------------------------------------------------------
    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e.is_Integer and 0 < abs(int(e)) <= MAX_EXACT_POWER:
            base = self.parenthesize(b, PRECEDENCE["Pow"])
            k = abs(int(e))
            if int(e) > 0:
                return f"{base}**{k}"
            return f"{base}**(-{k}.0)" if self.target == "numpy" else f"(1.0/({base}**{k}))"
        sqrt = f"{self._module}.sqrt"
        if e == sp.Rational(1, 2):
            return f"{sqrt}({self._print(b)})"
        if e == sp.Rational(-1, 2):
            return f"(1.0/{sqrt}({self._print(b)}))"
        return self._hprint_Pow(expr, rational=rational, sqrt=sqrt)

    # ---- non-smooth functions -------------------------------------------------------------
    def _print_Heaviside(self, expr):
        a = self._print(expr.args[0])
        h0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        if self.target == "numpy":
            return f"numpy.heaviside({a}, {h0})"
        return f"(1.0 if ({a}) > 0 else ({h0} if ({a}) == 0 else 0.0))"

    def _print_DiracDelta(self, expr):
        return f"numpy.zeros_like({self._print(expr.args[0])})" if self.target == "numpy" else "0.0"

    def _print_sign(self, expr):
        a = self._print(expr.args[0])
        if self.target == "real":
            return f"(0.0 if ({a}) == 0 else math.copysign(1.0, {a}))"
        return f"{'mpmath' if self.target == 'mpmath' else 'numpy'}.sign({a})"

    def _print_Max(self, expr):
        return nested_call("numpy.maximum" if self.target == "numpy" else "max", [self._print(a) for a in expr.args])

    def _print_Min(self, expr):
        return nested_call("numpy.minimum" if self.target == "numpy" else "min", [self._print(a) for a in expr.args])

    def _print_log1p(self, expr):
        (u,) = expr.args
        if self.target in ("real", "numpy") and isinstance(u, sp.exp):  # softplus, overflow-free
            a = self._print(u.args[0])
            m = self._module
            if m == "numpy":
                return f"(numpy.maximum({a}, 0.0) + numpy.log1p(numpy.exp(-numpy.abs({a}))))"
            return f"(max({a}, 0.0) + math.log1p(math.exp(-abs({a}))))"
        return f"{self._module}.log1p({self._print(u)})"

    # ---- statements (sympy.codegen.ast) -----------------------------------------------------
    def _print_Indexed(self, expr):
        """``a[i, 0]``: integer positions print as Python ints (not as float literals)."""
        base, *index = expr.args
        return f"{self._print(base.label)}[{', '.join(map(self._print_index, index))}]"

    def _print_FunctionCall(self, expr):
        """A call statement (an allocation such as ``numpy.zeros(3, x.dtype)``): integer arguments
        are shapes, printed as Python ints."""
        return f"{expr.name}({', '.join(map(self._print_index, expr.function_args))})"

    def _print_index(self, expr):
        """An integer position or shape (a tuple of them) as Python ints; anything else printed."""
        if isinstance(expr, sp.Tuple):
            return f"({', '.join(map(self._print_index, expr))}{',' if len(expr) == 1 else ''})"
        return str(int(expr)) if expr.is_Integer else self._print(expr)
