"""Lowering of an activation's sympy expressions to a generated module on disk.

For an expression σ(x) the module defines, from σ, σ' and σ'' derived symbolically:

* ``f, df, d2f`` — scalar ``numba.njit(cache=True)`` functions, callable from other compiled
  kernels (pass them as first-class function arguments or close over them);
* ``f_np, df_np, d2f_np`` — numpy-vectorised versions (scipy.special for erf);
* ``f_mp, df_mp`` — mpmath versions for the high-precision path.

Printing is precision-aware: ``log(1 + u)`` becomes ``log1p(u)``, ``exp(u) − 1`` becomes
``expm1(u)`` and ``log1p(exp(u))`` (softplus) becomes the overflow-free
``max(u, 0) + log1p(exp(−|u|))``. Distributional derivatives (DiracDelta from a kink) are 0 almost
everywhere and printed as 0; Heaviside(0) = 1/2.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.rewriting import optimize, optims_c99
from sympy.printing.numpy import SciPyPrinter
from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

from .._cache import load_generated_module
from .parser import X

__all__ = ["lower_activation", "derivatives"]


def _is_softplus_arg(expr):
    return isinstance(expr, sp.exp)


class _NumbaPrinter(PythonCodePrinter):
    """Scalar printer whose output numba compiles (math module, float literals)."""

    def __init__(self):
        super().__init__({"standard": "python3", "fully_qualified_modules": True, "strict": True})

    def _print_Integer(self, expr):
        return f"{int(expr)}.0"

    def _print_Rational(self, expr):
        return f"({int(expr.p)}.0/{int(expr.q)}.0)"

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e.is_Integer and abs(int(e)) <= 8:
            base = self.parenthesize(b, sp.printing.precedence.PRECEDENCE["Pow"])
            return f"{base}**{int(e)}" if int(e) > 0 else f"1.0/({base}**{-int(e)})"
        return super()._print_Pow(expr, rational=rational)

    def _print_Heaviside(self, expr):
        a = self._print(expr.args[0])
        h0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"(1.0 if ({a}) > 0 else ({h0} if ({a}) == 0 else 0.0))"

    def _print_DiracDelta(self, expr):
        return "0.0"

    def _print_sign(self, expr):
        a = self._print(expr.args[0])
        return f"(0.0 if ({a}) == 0 else math.copysign(1.0, {a}))"

    def _print_Max(self, expr):
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"max({out}, {a})"
        return out

    def _print_Min(self, expr):
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"min({out}, {a})"
        return out

    def _print_log1p(self, expr):
        (u,) = expr.args
        if _is_softplus_arg(u):
            a = self._print(u.args[0])
            return f"(max({a}, 0.0) + math.log1p(math.exp(-abs({a}))))"
        return f"math.log1p({self._print(u)})"


class _NumpyPrinter(SciPyPrinter):
    def _print_Heaviside(self, expr):
        a = self._print(expr.args[0])
        h0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"numpy.heaviside({a}, {h0})"

    def _print_DiracDelta(self, expr):
        return f"numpy.zeros_like({self._print(expr.args[0])})"

    def _print_Max(self, expr):
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"numpy.maximum({out}, {a})"
        return out

    def _print_Min(self, expr):
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"numpy.minimum({out}, {a})"
        return out

    def _print_log1p(self, expr):
        (u,) = expr.args
        if _is_softplus_arg(u):
            a = self._print(u.args[0])
            return f"(numpy.maximum({a}, 0.0) + numpy.log1p(numpy.exp(-numpy.abs({a}))))"
        return f"numpy.log1p({self._print(u)})"


class _MpPrinter(MpmathPrinter):
    def _print_Heaviside(self, expr):
        a = self._print(expr.args[0])
        return f"(mpmath.mpf(1) if ({a}) > 0 else (mpmath.mpf(1)/2 if ({a}) == 0 else mpmath.mpf(0)))"

    def _print_DiracDelta(self, expr):
        return "mpmath.mpf(0)"

    def _print_Max(self, expr):
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Min(self, expr):
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"


def derivatives(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """σ, σ', σ'' of ``expr`` (derivatives of Max/Abs give Heaviside/sign; DiracDelta → 0)."""
    d1 = sp.diff(expr, X)
    d2 = sp.diff(d1, X).replace(sp.DiracDelta, lambda *a: sp.Integer(0))
    return expr, sp.simplify(d1) if d1.count_ops() < 40 else d1, d2


def _prep(expr: sp.Expr) -> sp.Expr:
    return optimize(expr, optims_c99)


def render_source(expr: sp.Expr) -> str:
    """The source text of the generated module for ``expr``."""
    f, d1, d2 = derivatives(expr)
    nb, npp, mp = _NumbaPrinter(), _NumpyPrinter(), _MpPrinter()
    lines = [
        "# Generated by asymptotics.activations.lowering; do not edit.",
        f"# sigma(x) = {sp.sstr(f)}",
        "import math",
        "import mpmath",
        "import numpy",
        "import scipy.special",
        "from numba import njit",
        "",
    ]
    for name, e in (("f", f), ("df", d1), ("d2f", d2)):
        pe = _prep(e)
        body = nb.doprint(pe)
        lines += ["@njit(cache=True, fastmath=False)", f"def {name}(x):", f"    return float({body})", ""]
        body_np = npp.doprint(pe)
        lines += [
            f"def {name}_np(x):",
            "    x = numpy.asarray(x, dtype=numpy.float64)",
            f"    return numpy.asarray({body_np}, dtype=numpy.float64) + numpy.zeros_like(x)",
            "",
        ]
    for name, e in (("f", f), ("df", d1)):
        lines += [f"def {name}_mp(x):", f"    return {mp.doprint(e)}", ""]
    return "\n".join(lines)


@lru_cache(maxsize=256)
def lower_activation(expr: sp.Expr):
    """Render and import the module for ``expr``; returns the module."""
    return load_generated_module(render_source(expr), prefix="act")
