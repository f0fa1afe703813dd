"""Built-in activations, as sympy expressions in the real variable ``x``."""

from __future__ import annotations

import sympy as sp

from .parser import ALLOWED_FUNCTIONS, X

__all__ = ["BUILTINS", "ALIASES", "builtin_expression"]

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

ALIASES = {"identity": "linear", "id": "linear", "swish": "silu", "logistic": "sigmoid"}


def builtin_expression(name: str) -> sp.Expr | None:
    """The expression of a built-in (or alias), or ``None`` if ``name`` is not one."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    entry = BUILTINS.get(key)
    return None if entry is None else entry[0]
