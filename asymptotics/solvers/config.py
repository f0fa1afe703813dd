"""Immutable solver configurations (validated on construction).

Every configuration carries the residual tolerances ``atol`` and ``rtol``: a solver stops when
every component of the residual satisfies ``|r_i| <= atol + rtol·s_i``, s_i the size of the terms
of component i (|x_i| unless a ``scale`` function is given; see :mod:`asymptotics.numerics.status`),
and, for iterations, at least ``min_steps`` iterations were made — never on the step size alone.
Newton also accepts a root at the round-off floor (:mod:`asymptotics.solvers.newton`).

>>> Newton(rtol=1e-13).max_steps
100
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError

__all__ = ["FixedPoint", "Anderson", "Newton"]


def _check_tols(atol, rtol):
    for name, v in (("atol", atol), ("rtol", rtol)):
        if not (isinstance(v, (int, float)) and v >= 0 and v < 1):
            raise ParameterError(name, v, "a real number in [0, 1)")
    if atol == 0 and rtol == 0:
        raise ParameterError("atol", atol, "> 0 when rtol = 0 (a zero tolerance can never be met)")


def _check_steps(min_steps, max_steps):
    if not (isinstance(max_steps, int) and max_steps >= 1):
        raise ParameterError("max_steps", max_steps, "an integer >= 1")
    if not (isinstance(min_steps, int) and 0 <= min_steps <= max_steps):
        raise ParameterError("min_steps", min_steps, f"an integer in [0, max_steps={max_steps}]")


def _check_damping(damping):
    if not (isinstance(damping, (int, float)) and 0 < damping <= 1):
        raise ParameterError("damping", damping, "in (0, 1]")


@dataclass(frozen=True)
class FixedPoint:
    """Damped fixed-point iteration ``x ← (1 − ω) x + ω g(x)``.

    Attributes: ``damping`` ω ∈ (0, 1]; ``atol``, ``rtol`` residual tolerances; ``min_steps``,
    ``max_steps`` bounds on the number of evaluations of ``g``.
    """

    damping: float = 1.0
    atol: float = 1e-12
    rtol: float = 1e-12
    min_steps: int = 1
    max_steps: int = 10_000

    def __post_init__(self):
        _check_damping(self.damping)
        _check_tols(self.atol, self.rtol)
        _check_steps(self.min_steps, self.max_steps)

    name = "fixed_point"


@dataclass(frozen=True)
class Anderson:
    """Anderson acceleration (type II) of the damped fixed-point map.

    Attributes: ``memory`` number of previous residuals used; ``damping`` mixing ω ∈ (0, 1];
    tolerances and step bounds as :class:`FixedPoint`. Stagnation guard: the history is cleared
    and a plain damped step is taken when the least-squares problem is ill-conditioned or the
    residual grows by more than ``restart_factor`` over the best one seen.
    """

    memory: int = 5
    damping: float = 1.0
    atol: float = 1e-12
    rtol: float = 1e-12
    min_steps: int = 1
    max_steps: int = 2_000
    restart_factor: float = 1e3

    def __post_init__(self):
        if not (isinstance(self.memory, int) and self.memory >= 1):
            raise ParameterError("memory", self.memory, "an integer >= 1")
        _check_damping(self.damping)
        _check_tols(self.atol, self.rtol)
        _check_steps(self.min_steps, self.max_steps)
        if not (isinstance(self.restart_factor, (int, float)) and self.restart_factor > 1):
            raise ParameterError("restart_factor", self.restart_factor, "> 1")

    name = "anderson"


@dataclass(frozen=True)
class Newton:
    """Newton's method with an optional backtracking (Armijo) line search on ``‖F‖²``.

    Attributes: ``atol``, ``rtol`` residual tolerances (``|F_i(x)| <= atol + rtol·s_i``);
    ``max_steps`` maximum number of Newton steps; ``line_search``.
    """

    atol: float = 1e-12
    rtol: float = 1e-12
    max_steps: int = 100
    line_search: bool = True

    def __post_init__(self):
        _check_tols(self.atol, self.rtol)
        _check_steps(0, self.max_steps)

    name = "newton"
