"""Printing sympy expressions as numba-compilable Python (precision-aware).

* ``sympy.codegen.rewriting.optimize(expr, optims_c99)`` first: ``log(1 + u)`` → ``log1p(u)``,
  ``exp(u) − 1`` → ``expm1(u)``, ``log(exp(a) + exp(b))`` → ``logaddexp`` etc.;
* numpy functions (``numpy.sqrt``, ``numpy.log1p``, …) so that the same code runs on ``float64``
  and ``complex128`` values (numba specialises per type);
* common subexpressions are shared (``sympy.cse``) across residual, Jacobian and outputs.
"""

from __future__ import annotations

import keyword
import re

import sympy as sp
from sympy.codegen.rewriting import optimize, optims_c99
from sympy.printing.numpy import NumPyPrinter

__all__ = ["NumbaExprPrinter", "safe_name", "prepare"]


def safe_name(prefix: str, sym) -> str:
    """A Python identifier for a symbol (``prefix`` + sanitised name; never a keyword)."""
    name = re.sub(r"\W", "_", str(sym))
    out = f"{prefix}{name}"
    return out + "_" if keyword.iskeyword(out) else out


class NumbaExprPrinter(NumPyPrinter):
    """NumPy printer with integer powers kept exact and float literals at full precision."""

    def __init__(self, symbol_names: dict | None = None):
        super().__init__({"fully_qualified_modules": True, "strict": False})
        self._names = symbol_names or {}

    def _print_Symbol(self, expr):
        return self._names.get(expr, super()._print_Symbol(expr))

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Rational(self, expr):
        return f"({int(expr.p)}.0/{int(expr.q)}.0)"

    def _print_Integer(self, expr):
        return f"{int(expr)}.0" if abs(int(expr)) < 2**53 else repr(float(expr))

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e.is_Integer and 0 < abs(int(e)) <= 16:
            base = self.parenthesize(b, sp.printing.precedence.PRECEDENCE["Pow"])
            k = abs(int(e))
            return f"{base}**{k}" if int(e) > 0 else f"(1.0/({base}**{k}))"
        if e == sp.Rational(1, 2):
            return f"numpy.sqrt({self._print(b)})"
        if e == sp.Rational(-1, 2):
            return f"(1.0/numpy.sqrt({self._print(b)}))"
        return super()._print_Pow(expr, rational=rational)


def prepare(expr) -> sp.Expr:
    """Precision-aware rewriting before printing."""
    return optimize(sp.sympify(expr), optims_c99)
