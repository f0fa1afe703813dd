"""Exceptions raised by :mod:`asymptotics`.

Every error a user can trigger derives from :class:`AsymptoticsError`, so a caller can catch the
library's errors without catching programming errors. Messages are one line: a value echoed back
is shortened by :func:`shorten` (a 40,000-character expression is never printed whole).
"""

from __future__ import annotations

__all__ = [
    "AsymptoticsError",
    "ParameterError",
    "ExpressionError",
    "ConvergenceError",
    "ResourceError",
    "DegenerateWarning",
    "shorten",
]

#: Longest echo of a user's value in an error message.
MAX_ECHO = 80


def shorten(value: object, limit: int = MAX_ECHO) -> str:
    """``repr(value)`` on one line, cut to ``limit`` characters (``…`` marks the cut).

    >>> shorten("x" * 1000, 12)
    "'xxxxxxxxxx…"
    """
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AsymptoticsError(Exception):
    """Base class of every error the library raises on purpose."""


class ParameterError(AsymptoticsError, ValueError):
    """A physical or numerical parameter is outside its valid range.

    The message always names the parameter, the offending value and the valid range:
    ``invalid psi1=-1.0: psi1 must be > 0 (valid range: (0, inf))``.
    """

    def __init__(self, name: str, value: object, valid: str, hint: str = ""):
        self.name = name
        self.value = value
        self.valid = valid
        self.hint = hint
        msg = f"invalid {name}={shorten(value)}: {name} must be {valid}"
        if hint:
            msg += f" ({' '.join(str(hint).split())})"
        super().__init__(msg)


class ExpressionError(AsymptoticsError, ValueError):
    """An activation expression could not be parsed safely, or its Gaussian moments are not
    finite (the message says which)."""


class ConvergenceError(AsymptoticsError, ArithmeticError):
    """A solver did not converge; carries the solver's result for inspection."""

    def __init__(self, message: str, result: object = None):
        self.result = result
        super().__init__(message)


class ResourceError(AsymptoticsError, MemoryError):
    """A computation would need more memory (or more points) than allowed; refused before it
    starts. The message says what it needs, the limit and the option that raises it."""


class DegenerateWarning(UserWarning):
    """The problem is valid but degenerate (e.g. an activation with μ1 = 0)."""
