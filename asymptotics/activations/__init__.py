"""Activation calculus: built-ins and safe user expressions, symbolic derivatives, compiled
kernels, Gaussian constants (μ0, μ1, μ2, Hermite coefficients) and dual kernels."""

from .activation import Activation, activation, dual_kernel, find_kinks, resolve_activation
from .builtins import ALIASES, BUILTINS
from .constants import HERMITE_DEGREE, GaussianConstants
from .parser import X, parse_expression

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
