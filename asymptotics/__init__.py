"""asymptotics — exact high-dimensional theory of feature learning after one gradient step.

>>> import asymptotics as asy
>>> r = asy.risk(student="tanh", teacher="softplus", psi1=[0.5, 4, 20], psi2=2, lam=1e-4, eta=4, noise=0.25)
>>> round(float(r["risk1"][1]), 6)
0.125124

One function per command of the ``asymptotics`` command line, same names, parameters, checks and
output columns (:mod:`asymptotics.api`; ``docs/api/index.md``):

* theory: :func:`risk`, :func:`alignment`, :func:`ck_spike`, :func:`limits` (one step,
  η = Θ(1)); :func:`spiked_rf` (Cui et al.'s spiked random features); :func:`large_step` (the exact
  large-step risk), :func:`tau_star`, :func:`bounds` (Ba et al.'s large-step bounds);
  :func:`spectrum` (the eigenvalue spectrum of the learned weights or conjugate kernel);
* :func:`activation` (an activation with its Gaussian constants), :func:`simulate` (the
  Monte-Carlo ground truth), :func:`validate` (theory against simulation), :func:`sweep`
  (resumable sweeps on a cluster), :func:`check` (a claim checked numerically: the claims
  package, :mod:`asymptotics.claims.public`).

Each returns a :class:`Result` that a notebook shows as a table (``to_frame()``, ``plot()``).

Layers (each imports only those before it): activations → symbolic derivation → generated code →
solvers → theory → tables, figures, API, CLI. The Monte-Carlo simulator lives in the separate
package :mod:`validation` and shares no code with the theory it checks.

Every name below is imported on first use (PEP 562), so that ``import asymptotics`` — and the
command line's cheap paths: ``--help``, usage errors — pay for neither numpy, sympy nor numba.
"""

from ._version import __version__
from .api import FUNCTIONS as _API
from .errors import AsymptoticsError, ConvergenceError, ExpressionError, ParameterError

_ACTIVATIONS = ("Activation", "dual_kernel")
__all__ = ["__version__", *_API, "check", "Result", "Status", *_ACTIVATIONS]
__all__ += ["AsymptoticsError", "ConvergenceError", "ExpressionError", "ParameterError"]


def __getattr__(name):
    if name == "check":  # asy.check lives with the claims it checks (claims -> api, never back)
        from .claims.public import check

        return check
    if name in _API:
        from . import api

        return getattr(api, name)
    if name in _ACTIVATIONS:
        from . import activations

        return getattr(activations, name)
    if name == "Result":
        from .results import Result

        return Result
    if name == "Status":
        from .numerics.status import Status

        return Status
    raise AttributeError(f"module 'asymptotics' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
