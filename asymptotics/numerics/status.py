r"""The one status vocabulary of every solver, compiled kernel and theory driver.

One status vocabulary for the whole package (:class:`Status`), in the numerics layer: the Python
solvers (:mod:`asymptotics.solvers`, which re-exports it), the compiled kernels (which return the
integer code; see the algorithm templates of ``asymptotics/numerics/templates/``: ``newton.py``,
``continuation.py``, ``anderson.py``) and the theory drivers all report one of these, and a result
row shows its :attr:`Status.label`.

====  =================  ==========================================================================
code  label              meaning
====  =================  ==========================================================================
0     ``converged``      the residual test passed (after ``min_steps``), or a Newton iteration
                         reached the round-off floor (``at_roundoff_floor``)
1     ``max_steps``      ``max_steps`` reached without passing the residual test
2     ``nonfinite``      a non-finite value (NaN or inf) in the iterate, the residual or the Jacobian
3     ``singular``       singular Jacobian, or stagnation (no decrease of the residual)
4     ``no_stationary``  an optimisation found no stationary point in its bracket
5     ``at_edge``        an optimisation's best value lies at an end of the searched range
6     ``unresolved``     a discretisation (quadrature nodes, readout types) did not converge under
                         refinement
====  =================  ==========================================================================

**The residual test.** Each component r_i of the residual is compared with the size s_i of the
terms it is made of: converged when every |r_i| ≤ atol + rtol·s_i. For a fixed point
r = g(x) − x the terms are x_i and g_i(x) ≈ x_i, so s_i = |x_i| by default; for a root F(x) = 0
s_i is given by a ``scale`` function (generated systems render s_i = Σ_k |t_ik| over the terms
of F_i = Σ_k t_ik), with |x_i| as the default. The reported residual is max_i |r_i|/max(1, s_i)
(:func:`scaled_residual`): absolute for small scales, relative for large ones.

>>> from asymptotics.numerics.status import Status, scaled_residual
>>> Status(3).label, Status.SINGULAR.message
('singular', 'singular Jacobian or stagnation (no decrease of the residual)')
>>> scaled_residual([1e-9, 1e-3], [1e4, 1e7])
1e-10
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

__all__ = [
    "Status",
    "CONVERGED",
    "MAX_STEPS",
    "NONFINITE",
    "SINGULAR",
    "STATUS_MESSAGES",
    "ROUNDOFF",
    "FLOOR_MESSAGE",
    "scaled_residual",
]


class Status(IntEnum):
    """Outcome of a solve (the codes are those the compiled kernels return)."""

    CONVERGED = 0
    MAX_STEPS = 1
    NONFINITE = 2
    SINGULAR = 3
    NO_STATIONARY = 4
    AT_EDGE = 5
    UNRESOLVED = 6

    @property
    def label(self) -> str:
        """The name shown in result rows (``"converged"``, ``"max_steps"``, …)."""
        return self.name.lower()

    @classmethod
    def of(cls, value) -> Status:
        """``value`` as a member: a member, its integer code or its label (``"converged"``).

        >>> Status.of("max_steps") is Status.MAX_STEPS, Status.of(3).label
        (True, 'singular')
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls[value.upper()]
            except KeyError:
                raise ValueError(f"not a Status label: {value!r}") from None
        return cls(int(value))

    @property
    def message(self) -> str:
        """A human-readable sentence."""
        return STATUS_MESSAGES[self]


CONVERGED = Status.CONVERGED
MAX_STEPS = Status.MAX_STEPS
NONFINITE = Status.NONFINITE
SINGULAR = Status.SINGULAR

STATUS_MESSAGES = {
    Status.CONVERGED: "converged",
    Status.MAX_STEPS: "maximum number of steps reached without convergence",
    Status.NONFINITE: "non-finite value (NaN or inf) encountered",
    Status.SINGULAR: "singular Jacobian or stagnation (no decrease of the residual)",
    Status.NO_STATIONARY: "no stationary point in the bracket",
    Status.AT_EDGE: "the best value lies at an end of the searched range",
    Status.UNRESOLVED: "the discretisation did not converge under refinement",
}

#: The round-off floor of Newton's method: |F_i| ≤ ROUNDOFF·ε·s_i (ε = 2.2·10⁻¹⁶) is
#: indistinguishable from 0 in float64 (the compiled template uses the same constant).
ROUNDOFF = 64.0

#: The message of a result accepted at the round-off floor.
FLOOR_MESSAGE = "converged at the round-off floor (the residual is at the rounding level of its terms)"


def scaled_residual(r, scale) -> float:
    """The residual norm reported by every solver: ``max_i |r_i| / max(1, s_i)``.

    ``scale`` is s_i, the size of the terms of component i (|x_i| for a fixed point). Absolute
    for components of scale ≤ 1 and relative for larger ones; NaN/inf give ``inf``.
    """
    r = np.abs(np.asarray(r))
    s = np.maximum(1.0, np.abs(np.asarray(scale)))
    if r.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        v = float(np.max(r / s))
    return v if np.isfinite(v) else float("inf")
