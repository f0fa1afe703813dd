"""asymptotics — exact high-dimensional theory of feature learning after one gradient step.

Layers (each imports only those before it): activations → symbolic derivation → generated code →
solvers → theory → tables, figures, CLI. The Monte-Carlo simulator lives in the separate package
:mod:`validation` and shares no code with the theory it checks.
"""

from ._version import __version__
from .activations import Activation, activation, dual_kernel
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
