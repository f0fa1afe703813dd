"""Activation calculus: built-ins and safe user expressions, symbolic derivatives, compiled
kernels, Gaussian constants (μ0, μ1, μ2, Hermite coefficients) and dual kernels.

Importing the package imports no sympy: a built-in activation whose constants are in the cache is
used without it. The sympy objects (``BUILTINS``, ``X``, ``parse_expression``) are imported on first
use (PEP 562).
"""

from .activation import Activation, activation, dual_kernel, find_kinks, resolve_activation
from .builtins import ALIASES
from .constants import HERMITE_DEGREE, GaussianConstants

__all__ = [
    "Activation",
    "activation",
    "resolve_activation",
    "dual_kernel",
    "find_kinks",
    "GaussianConstants",
    "HERMITE_DEGREE",
    "BUILTINS",
    "ALIASES",
    "X",
    "parse_expression",
]


def __getattr__(name: str):
    if name == "BUILTINS":
        from .builtin_expressions import BUILTINS

        return BUILTINS
    if name in ("X", "parse_expression"):
        from . import parser

        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
