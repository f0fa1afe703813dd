"""asymptotics — exact high-dimensional theory of feature learning after one gradient step.

Layers (each imports only those before it): activations → symbolic derivation → generated code →
solvers → theory → tables, figures, CLI. The Monte-Carlo simulator lives in the separate package
:mod:`validation` and shares no code with the theory it checks.

The activation names below are imported on first use (PEP 562), so that ``import asymptotics``
— and the command line's cheap paths: ``--help``, usage errors — do not pay for sympy.
"""

from ._version import __version__
from .errors import AsymptoticsError, ConvergenceError, ExpressionError, ParameterError

__all__ = [
    "__version__",
    "Activation",
    "activation",
    "dual_kernel",
    "AsymptoticsError",
    "ConvergenceError",
    "ExpressionError",
    "ParameterError",
]

_LAZY = {"Activation", "activation", "dual_kernel"}


def __getattr__(name):
    if name in _LAZY:
        from . import activations

        return getattr(activations, name)
    raise AttributeError(f"module 'asymptotics' has no attribute {name!r}")
