"""Lowering of an activation's sympy expressions to a generated module on disk.

For an expression σ(x) the module defines, from σ, σ' and σ'' derived symbolically:

* ``f, df, d2f`` — scalar ``numba.njit(cache=True)`` functions, callable from other compiled
  kernels (pass them as first-class function arguments or close over them);
* ``f_np, df_np, d2f_np`` — numpy-vectorised versions (scipy.special for erf);
* ``f_mp, df_mp`` — mpmath versions for the high-precision path.

The module is the template ``asymptotics/rendering/templates/activation.py`` with its placeholders
printed from σ, σ', σ''; the compiled functions are printed by the package's one numba printer,
:class:`asymptotics.rendering.printing.NumbaExprPrinter` with the real target (``math`` functions):
``log(1 + u)`` becomes ``log1p(u)``, ``exp(u) − 1`` becomes ``expm1(u)`` and ``log1p(exp(u))``
(softplus) becomes the overflow-free ``max(u, 0) + log1p(exp(−|u|))``. Distributional derivatives
(DiracDelta from a kink) are 0 almost everywhere and printed as 0; Heaviside(0) = 1/2. The numpy
and mpmath versions are other targets, printed by the two small printers below with the same
rules. The module goes through the one module cache (:mod:`asymptotics.rendering.modules`: one
header, named by the hash of its source), found by a second process through the derivation index.

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

from ..rendering.modules import DerivationIndex, code_hash, package_files
from ..rendering.printing import NumbaExprPrinter, nested_call, prepare
from ..rendering.templates import ACTIVATION, render_template
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


def _fractional_powers_of_signed(expr: sp.Expr) -> set:
    """The powers b**p in ``expr`` with a non-integer p and a base b not known to be ≥ 0: complex
    (NaN in float64) where b < 0."""
    out = set()
    for p in expr.atoms(sp.Pow):
        e = p.exp
        integral = e.is_integer or (e.is_number and e.is_real and float(e).is_integer())
        if not integral and not p.base.is_nonnegative:
            out.add(p)
    return out


def _simplified(d1: sp.Expr) -> sp.Expr:
    """``sp.simplify(d1)``, unless that introduces a fractional power of a possibly negative base
    (it turns d|x|^p/dx = p|x|^(p−1) sign(x) into p x/Abs(x**(2−p)), NaN for x < 0): then ``d1``."""
    if d1.count_ops() >= 40:
        return d1
    s = sp.simplify(d1)
    return d1 if _fractional_powers_of_signed(s) - _fractional_powers_of_signed(d1) else s


def derivatives(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """σ, σ', σ'' of ``expr`` (derivatives of Max/Abs give Heaviside/sign; DiracDelta → 0).

    σ' is simplified when that keeps it real on the real line:

    >>> derivatives(sp.Abs(X) ** sp.Float(1.5))[1]
    1.5*Abs(x)**0.5*sign(x)
    """
    d1 = sp.diff(expr, X)
    d2 = sp.diff(d1, X).replace(sp.DiracDelta, lambda *a: sp.Integer(0))
    return expr, _simplified(d1), d2


def render_source(expr: sp.Expr) -> str:
    """The source text of the generated module for ``expr``: the template
    ``asymptotics/rendering/templates/activation.py`` with its placeholders printed from σ, σ', σ''."""
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


_INDEX = DerivationIndex()


@lru_cache(maxsize=256)
def lower_activation(expr: sp.Expr):
    """Render and import the module for ``expr``; returns the module.

    A second process finds the module through the derivation index (key: the canonical
    expression ``srepr(expr)`` and :func:`~asymptotics.rendering.modules.code_hash` of
    ``asymptotics/activations`` and ``asymptotics/codegen``), without deriving or printing."""
    key = code_hash(package_files("activations", "rendering"), extra=f"activation|{sp.srepr(expr)}")
    return _INDEX.load(key, "act", lambda: render_source(expr))[0]
