"""The result of every solver: the value together with how it was obtained.

Status codes (shared by the Python solvers and the compiled kernels of
:mod:`asymptotics.solvers.compiled`):

====  ==============================================================
code  meaning
====  ==============================================================
0     converged: the residual test passed (after ``min_steps``)
1     ``max_steps`` reached without passing the residual test
2     a non-finite value (NaN or inf) appeared in the iterate, the residual or the Jacobian
3     singular Jacobian, or stagnation (no decrease of the residual along the Newton direction)
====  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "SolverResult",
    "CONVERGED",
    "MAX_STEPS",
    "NONFINITE",
    "SINGULAR",
    "STATUS_MESSAGES",
    "scaled_residual",
]

CONVERGED = 0
MAX_STEPS = 1
NONFINITE = 2
SINGULAR = 3

STATUS_MESSAGES = {
    CONVERGED: "converged",
    MAX_STEPS: "maximum number of steps reached without convergence",
    NONFINITE: "non-finite value (NaN or inf) encountered",
    SINGULAR: "singular Jacobian or stagnation (no decrease of the residual)",
}


def scaled_residual(r, x) -> float:
    """The residual norm reported by every solver: ``max_i |r_i| / max(1, |x_i|)``.

    Absolute for components of modulus ≤ 1 and relative for larger ones; NaN/inf give ``inf``.
    """
    r = np.abs(np.asarray(r))
    s = np.maximum(1.0, np.abs(np.asarray(x)))
    if r.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        v = float(np.max(r / s))
    return v if np.isfinite(v) else float("inf")


@dataclass(frozen=True)
class SolverResult:
    """Outcome of :func:`~asymptotics.solvers.fixed_point`, :func:`~asymptotics.solvers.root` or a
    compiled kernel.

    Attributes
    ----------
    value
        The solution (same kind as the starting point: a Python ``float``/``complex`` for a scalar
        problem, else a numpy array). For an unconverged result it is the last iterate.
    converged
        Whether the residual test ``|r_i| <= atol + rtol·|x_i|`` (every component) passed.
    iterations
        Number of iterations performed (evaluations of ``g`` for a fixed point; Newton steps).
    residual
        ``max_i |r_i| / max(1, |x_i|)`` at ``value``, where ``r = g(x) − x`` (fixed point) or
        ``r = F(x)`` (root); ``inf`` if non-finite.
    method
        ``"fixed_point"``, ``"anderson"``, ``"newton"`` or a compiled kernel's name.
    message
        Human-readable status.
    status
        The status code (0 converged, 1 max steps, 2 non-finite, 3 singular/stagnation).
    """

    value: object
    converged: bool
    iterations: int
    residual: float
    method: str
    message: str = "converged"
    status: int = CONVERGED

    def __repr__(self) -> str:  # short, readable
        return (
            f"SolverResult(value={self.value!r}, converged={self.converged}, iterations={self.iterations}, "
            f"residual={self.residual:.3g}, method={self.method!r}, message={self.message!r})"
        )
