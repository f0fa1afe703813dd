"""Exceptions raised by :mod:`asymptotics`.

Every error a user can trigger derives from :class:`AsymptoticsError`, so a caller can catch the
library's errors without catching programming errors.
"""

from __future__ import annotations


class AsymptoticsError(Exception):
    """Base class of every error the library raises on purpose."""


class ParameterError(AsymptoticsError, ValueError):
    """A physical or numerical parameter is outside its valid range.

    The message always names the parameter, the offending value and the valid range.
    """

    def __init__(self, name: str, value: object, valid: str, hint: str = ""):
        self.name = name
        self.value = value
        self.valid = valid
        msg = f"invalid {name}={value!r}: {name} must be {valid}"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class ExpressionError(AsymptoticsError, ValueError):
    """An activation expression could not be parsed safely."""


class ConvergenceError(AsymptoticsError, ArithmeticError):
    """A solver did not converge; carries the solver's result for inspection."""

    def __init__(self, message: str, result: object = None):
        self.result = result
        super().__init__(message)


class DegenerateWarning(UserWarning):
    """The problem is valid but degenerate (e.g. an activation with μ1 = 0)."""
