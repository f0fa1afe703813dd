"""Built-in activations, as sympy expressions in the real variable ``x`` (their names, aliases,
canonical forms and parities, known without sympy, live in :mod:`.builtins`)."""

from __future__ import annotations

import sympy as sp

from .builtins import builtin_name
from .parser import ALLOWED_FUNCTIONS, X

__all__ = ["BUILTINS", "builtin_expression"]

#: name -> (expression, one-line description)
BUILTINS: dict[str, tuple[sp.Expr, str]] = {
    "erf": (sp.erf(X), "error function erf(x)"),
    "tanh": (sp.tanh(X), "hyperbolic tangent"),
    "relu": (ALLOWED_FUNCTIONS["relu"][0](X), "max(x, 0)"),
    "softplus": (ALLOWED_FUNCTIONS["softplus"][0](X), "log(1 + e^x)"),
    "sigmoid": (ALLOWED_FUNCTIONS["sigmoid"][0](X), "logistic 1/(1 + e^-x)"),
    "sin": (sp.sin(X), "sine"),
    "linear": (X, "identity x"),
    "gelu": (ALLOWED_FUNCTIONS["gelu"][0](X), "x Φ(x)"),
    "silu": (ALLOWED_FUNCTIONS["silu"][0](X), "x sigmoid(x) (swish)"),
    "he2": (X**2 - 1, "Hermite He2 = x² − 1"),
    "he3": (X**3 - 3 * X, "Hermite He3 = x³ − 3x"),
    "quadratic": (X**2, "x²"),
}


def builtin_expression(name: str) -> sp.Expr | None:
    """The expression of a built-in (or alias), or ``None`` if ``name`` is not one."""
    key = builtin_name(name)
    return None if key is None else BUILTINS[key][0]
