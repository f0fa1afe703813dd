"""Lowering of an activation's sympy expressions to a generated module on disk.

For an expression σ(x) the module defines, from σ, σ' and σ'' derived symbolically:

* ``f, df, d2f`` — scalar ``numba.njit(cache=True)`` functions, callable from other compiled
  kernels (pass them as first-class function arguments or close over them);
* ``f_np, df_np, d2f_np`` — numpy-vectorised versions (scipy.special for erf);
* ``f_mp, df_mp`` — mpmath versions for the high-precision path.

The module is the template ``asymptotics/rendering/templates/activation.py`` with its placeholders
printed from σ, σ', σ'' as ``sympy.codegen.ast`` function definitions by the package's one
printer, :class:`asymptotics.rendering.printing.NumbaExprPrinter`, with one target per kind: the
compiled functions with ``"real"`` (``math`` functions: ``log(1 + u)`` becomes ``log1p(u)``,
``exp(u) − 1`` becomes ``expm1(u)`` and ``log1p(exp(u))`` (softplus) the overflow-free
``max(u, 0) + log1p(exp(−|u|))``), the vectorised ones with ``"numpy"`` (the same rules over
arrays) and the high-precision ones with ``"mpmath"`` (exact literals). Distributional derivatives
(DiracDelta from a kink) are 0 almost everywhere and printed as 0; Heaviside(0) = 1/2. The module
goes through the one module cache (:mod:`asymptotics.rendering.modules`: one header, named by the
hash of its source), found by a second process through the derivation index.

>>> import math
>>> m = lower_activation(sp.log(1 + sp.exp(X)))
>>> m.f(800.0), math.isclose(m.f_np(0.0), math.log(2.0))
(800.0, True)
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.ast import Return

from ..rendering.modules import DerivationIndex, code_hash, package_files
from ..rendering.printing import NumbaExprPrinter, function_source, prepare
from ..rendering.templates import ACTIVATION, render_template
from .parser import X

__all__ = ["lower_activation", "derivatives"]


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


#: The placeholders of the template, by printer target: (target, name suffix, derivatives printed).
_KINDS = (("real", "", 3), ("numpy", "_np", 3), ("mpmath", "_mp", 2))


def render_source(expr: sp.Expr) -> str:
    """The source text of the generated module for ``expr``: the template
    ``asymptotics/rendering/templates/activation.py`` with its placeholders ``expr_<name>(x)``
    printed from σ, σ', σ'' by the one printer, one target per kind (float64 expressions
    :func:`prepared <asymptotics.rendering.printing.prepare>`; mpmath ones as derived)."""
    exprs = derivatives(expr)
    definitions = []
    for target, suffix, count in _KINDS:
        printer = NumbaExprPrinter(target=target)
        for name, e in zip(("f", "df", "d2f")[:count], exprs, strict=False):
            body = [Return(e if target == "mpmath" else prepare(e))]
            definitions.append(function_source(f"expr_{name}{suffix}", [X], body, printer))
    return render_template(ACTIVATION, origin="asymptotics.activations.lowering", definitions="\n\n\n".join(definitions),
                           notes=(f"sigma(x) = {sp.sstr(exprs[0])}",))


_INDEX = DerivationIndex()


@lru_cache(maxsize=256)
def lower_activation(expr: sp.Expr):
    """Render and import the module for ``expr``; returns the module.

    A second process finds the module through the derivation index (key: the canonical
    expression ``srepr(expr)`` and :func:`~asymptotics.rendering.modules.code_hash` of
    ``asymptotics/activations`` and ``asymptotics/codegen``), without deriving or printing."""
    key = code_hash(package_files("activations", "rendering"), extra=f"activation|{sp.srepr(expr)}")
    return _INDEX.load(key, "act", lambda: render_source(expr))[0]
