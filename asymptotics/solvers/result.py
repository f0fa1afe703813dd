r"""The result of every solver: the value together with how it was obtained.

:class:`SolverResult` carries the one status vocabulary, :class:`~asymptotics.numerics.status.Status`
(defined in the numerics layer, where the compiled algorithms return its integer codes, and
re-exported here with :data:`STATUS_MESSAGES`, :data:`ROUNDOFF` and :func:`scaled_residual`).

>>> SolverResult(1.0, True, 3, 0.0, "newton").status.label
'converged'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..numerics.status import (
    CONVERGED,
    FLOOR_MESSAGE,
    MAX_STEPS,
    NONFINITE,
    ROUNDOFF,
    SINGULAR,
    STATUS_MESSAGES,
    Status,
    scaled_residual,
)

__all__ = [
    "Status",
    "SolverResult",
    "CONVERGED",
    "MAX_STEPS",
    "NONFINITE",
    "SINGULAR",
    "STATUS_MESSAGES",
    "ROUNDOFF",
    "FLOOR_MESSAGE",
    "scaled_residual",
]


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
        Whether the residual test ``|r_i| <= atol + rtol·s_i`` (every component; module
        docstring) passed, or the iteration reached the round-off floor.
    iterations
        Number of iterations performed (evaluations of ``g`` for a fixed point; Newton steps).
    residual
        ``max_i |r_i| / max(1, s_i)`` at ``value``, where ``r = g(x) − x`` (fixed point) or
        ``r = F(x)`` (root); ``inf`` if non-finite.
    method
        ``"fixed_point"``, ``"anderson"``, ``"newton"`` or a compiled kernel's name.
    message
        Human-readable status.
    status
        The :class:`Status` code (0 converged, 1 max steps, 2 non-finite, 3 singular/stagnation).
    at_roundoff_floor
        True when Newton stopped because the residual reached the rounding level of its own
        evaluation, |F_i| ≤ ROUNDOFF·ε·s_i, and could not be decreased further (status 0; the
        tolerance ``rtol`` asked for could not be verified, but the value is as accurate as float64
        evaluation of the equations allows).
    """

    value: object
    converged: bool
    iterations: int
    residual: float
    method: str
    message: str = "converged"
    status: Status = CONVERGED
    at_roundoff_floor: bool = False

    def __post_init__(self):
        # the one vocabulary: a compiled kernel's integer code becomes its Status here
        object.__setattr__(self, "status", Status(self.status))

    def __repr__(self) -> str:  # short, readable
        return (
            f"SolverResult(value={self.value!r}, converged={self.converged}, iterations={self.iterations}, "
            f"residual={self.residual:.3g}, method={self.method!r}, message={self.message!r})"
        )
