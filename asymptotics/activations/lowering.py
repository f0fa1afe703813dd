"""Lowering of an activation's sympy expressions to a generated module on disk.

For an expression σ(x) the module defines, from σ, σ' and σ'' derived symbolically:

* ``f, df, d2f`` — scalar ``numba.njit(cache=True)`` functions, callable from other compiled
  kernels (pass them as first-class function arguments or close over them);
* ``f_np, df_np, d2f_np`` — numpy-vectorised versions (scipy.special for erf);
* ``f_mp, df_mp`` — mpmath versions for the high-precision path.

The module is the template ``asymptotics/codegen/templates/activation.py`` with its placeholders
printed from σ, σ', σ''; the compiled functions are printed by the package's one numba printer,
:class:`asymptotics.codegen.printing.NumbaExprPrinter` with the real target (``math`` functions):
``log(1 + u)`` becomes ``log1p(u)``, ``exp(u) − 1`` becomes ``expm1(u)`` and ``log1p(exp(u))``
(softplus) becomes the overflow-free ``max(u, 0) + log1p(exp(−|u|))``. Distributional derivatives
(DiracDelta from a kink) are 0 almost everywhere and printed as 0; Heaviside(0) = 1/2. The numpy
and mpmath versions are other targets, printed by the two small printers below with the same
rules. The module goes through the one module cache (:mod:`asymptotics.codegen.modules`: one
header, named by the hash of its source).

>>> import math
>>> m = lower_activation(sp.log(1 + sp.exp(X)))
>>> m.f(800.0), math.isclose(m.f_np(0.0), math.log(2.0))
(800.0, True)
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.printing.numpy import SciPyPrinter
from sympy.printing.pycode import MpmathPrinter

from ..codegen.modules import load_generated_module
from ..codegen.printing import NumbaExprPrinter, nested_call, prepare
from ..codegen.templates import ACTIVATION, render_template
from .parser import X

__all__ = ["lower_activation", "derivatives"]


class _NumpyPrinter(SciPyPrinter):
    """Vectorised numpy/scipy target (float literals at full precision, like the numba target)."""

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Heaviside(self, expr):
        a = self._print(expr.args[0])
        h0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"numpy.heaviside({a}, {h0})"

    def _print_DiracDelta(self, expr):
        return f"numpy.zeros_like({self._print(expr.args[0])})"

    def _print_Max(self, expr):
        return nested_call("numpy.maximum", [self._print(a) for a in expr.args])

    def _print_Min(self, expr):
        return nested_call("numpy.minimum", [self._print(a) for a in expr.args])

    def _print_log1p(self, expr):
        (u,) = expr.args
        if isinstance(u, sp.exp):  # softplus, overflow-free
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


def render_source(expr: sp.Expr) -> str:
    """The source text of the generated module for ``expr``: the template
    ``asymptotics/codegen/templates/activation.py`` with its placeholders printed from σ, σ', σ''."""
    f, d1, d2 = derivatives(expr)
    nb, npp, mp = NumbaExprPrinter(target="real"), _NumpyPrinter(), _MpPrinter()
    lines = []
    for name, e in (("f", f), ("df", d1), ("d2f", d2)):
        pe = prepare(e)
        lines += [f"def {name}(x):", f"    return float({nb.doprint(pe)})", ""]
        lines += [
            f"def {name}_np(x):",
            "    x = numpy.asarray(x, dtype=numpy.float64)",
            f"    return numpy.asarray({npp.doprint(pe)}, dtype=numpy.float64) + numpy.zeros_like(x)",
            "",
        ]
    for name, e in (("f", f), ("df", d1)):
        lines += [f"def {name}_mp(x):", f"    return {mp.doprint(e)}", ""]
    return render_template(ACTIVATION, origin="asymptotics.activations.lowering", definitions="\n".join(lines),
                           notes=(f"sigma(x) = {sp.sstr(f)}",))


@lru_cache(maxsize=256)
def lower_activation(expr: sp.Expr):
    """Render and import the module for ``expr``; returns the module."""
    return load_generated_module(render_source(expr), prefix="act")
