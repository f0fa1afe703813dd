"""What τ* returns: one pair (:class:`TauStarResult`), a grid of input scales (:class:`TauStarGrid`)
and the objective itself (:class:`TauObjective`).

Two fields say how an answer came about, and they answer different questions:

* ``status`` — did the computation succeed? A member of :class:`asymptotics.solvers.Status`
  (``CONVERGED``, ``MAX_STEPS``, ``NONFINITE``, ``NO_STATIONARY``, ``AT_EDGE``, ``UNRESOLVED``),
  the one status vocabulary of the package; rows (:meth:`TauStarResult.as_dict`) show its label;
* ``infimum_at`` — where is the infimum inf_κ τ(κ)? One of :data:`INFIMUM_AT`: ``"interior"`` (a
  finite minimiser κ* ≠ 0), ``"zero"`` (κ* = 0), ``"to_plus_infinity"`` / ``"to_minus_infinity"``
  (no finite minimiser: the infimum is the limit κ → ±∞), or ``"undetermined"`` when the status is
  not ``"converged"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....solvers import Status

__all__ = ["TauStarResult", "TauStarGrid", "TauObjective", "INFIMUM_AT", "ATTAINED", "LIMITS"]

#: Where the infimum of τ(κ) lies (``infimum_at``).
INFIMUM_AT = ("interior", "zero", "to_plus_infinity", "to_minus_infinity", "undetermined")
#: The values of ``infimum_at`` for which it is attained at a finite κ*.
ATTAINED = ("interior", "zero")
#: The values of ``infimum_at`` for which it is a limit κ → ±∞.
LIMITS = ("to_plus_infinity", "to_minus_infinity")

#: The label a :class:`TauStarGrid`'s ``status`` array holds where the computation succeeded.
CONVERGED_LABEL = Status.CONVERGED.label


@dataclass(frozen=True)
class TauStarResult:
    """τ* for one (σ, σ*) pair.

    Attributes:
        tau_star: the infimum inf_κ τ(κ) (≥ 0).
        kappa_star: the minimiser; ``0.0`` when ``infimum_at`` is ``"zero"``; ``±inf`` when not
            attained.
        status: the :class:`~asymptotics.solvers.Status` of the computation (``CONVERGED``;
            otherwise only in a grid computed with ``on_failure="return"``); a label
            (``"converged"``) or integer code given at construction becomes the member.
        infimum_at: where the infimum lies, one of :data:`INFIMUM_AT`.
        attained: whether the infimum is attained at a finite κ.
        iterations: Newton/bisection iterations of the last solve (Newton steps for mpmath).
        error: estimate of the absolute error of ``tau_star`` (the difference from the next finer
            rule; for a limit κ → ±∞, the error estimate of that one-dimensional integral).
        kappa_error: estimate of the absolute error of ``kappa_star`` (the Newton step
            τ'/τ'' under the refined rule); 0 for closed forms, inf when not attained.
        derivative: τ'(κ*) (the residual of the stationarity condition); 0 when not attained.
        curvature: τ''(κ*) (≥ 0 at a minimum; 0 when not attained, and at the symmetric zero of an
            even student and an odd teacher, where the minimum is flatter than quadratic).
        method: ``"closed-form"``, ``"compiled"``, ``"mpmath"``.
        rule: the quadrature actually used (e.g. ``"trapezoid-h0.25"``, ``"composite-8(level 1)"``).
        student, teacher: the activation names.
        student_scale, teacher_scale: input scales a, b (σ(a x), σ*(b x)).
        centered: whether σ and σ* were centred.
        fit_constant: whether the oracle may add a constant.
        message: remarks (degeneracy, how the infimum was found, why it failed).
    """

    tau_star: float
    kappa_star: float
    status: Status
    infimum_at: str
    attained: bool
    iterations: int
    error: float
    kappa_error: float
    derivative: float
    curvature: float
    method: str
    rule: str
    student: str
    teacher: str
    student_scale: float = 1.0
    teacher_scale: float = 1.0
    centered: bool = True
    fit_constant: bool = False
    message: str = ""

    def __post_init__(self):
        object.__setattr__(self, "status", Status.of(self.status))

    @property
    def converged(self) -> bool:
        """Whether the computation succeeded (``status`` is ``Status.CONVERGED``)."""
        return self.status == Status.CONVERGED

    def as_dict(self) -> dict:
        """A JSON-friendly dictionary (``kappa_star`` is ``None`` when not attained; ``kappa_limit``
        is ``"+inf"``/``"-inf"`` for an infimum at κ → ±∞, else ``None``)."""
        limit = {"to_plus_infinity": "+inf", "to_minus_infinity": "-inf"}.get(self.infimum_at)
        return {
            "student": self.student,
            "teacher": self.teacher,
            "student_scale": self.student_scale,
            "teacher_scale": self.teacher_scale,
            "tau_star": self.tau_star,
            "kappa_star": self.kappa_star if math.isfinite(self.kappa_star) else None,
            "kappa_limit": limit,
            "status": self.status.label,
            "infimum_at": self.infimum_at,
            "attained": self.attained,
            "error": self.error,
            "kappa_error": self.kappa_error if math.isfinite(self.kappa_error) else None,
            "derivative": self.derivative,
            "curvature": self.curvature,
            "iterations": self.iterations,
            "method": self.method,
            "rule": self.rule,
            "centered": self.centered,
            "fit_constant": self.fit_constant,
            "message": self.message,
        }


@dataclass(frozen=True)
class TauStarGrid:
    """τ* over a grid of input scales (arrays broadcast to a common shape).

    Attributes are arrays of that shape: ``tau_star``, ``kappa_star`` (±inf when not attained),
    ``status`` (object array of :class:`~asymptotics.solvers.Status` labels; :meth:`result` gives
    the member) and ``infimum_at`` (object array of strings), ``iterations``, ``error``, ``kappa_error``, ``derivative``, ``curvature``, ``level`` (how many
    refinements were needed), and the broadcast ``student_scale``, ``teacher_scale``. ``rule``
    names the level-0 rule; ``messages`` maps a flat (C-order) index to its remarks.
    """

    tau_star: np.ndarray
    kappa_star: np.ndarray
    status: np.ndarray
    infimum_at: np.ndarray
    iterations: np.ndarray
    error: np.ndarray
    kappa_error: np.ndarray
    derivative: np.ndarray
    curvature: np.ndarray
    level: np.ndarray
    student_scale: np.ndarray
    teacher_scale: np.ndarray
    student: str
    teacher: str
    centered: bool
    fit_constant: bool
    rule: str
    messages: dict = field(default_factory=dict, compare=False)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tau_star.shape

    @property
    def converged(self) -> np.ndarray:
        """Boolean array: where the computation succeeded."""
        return self.status == CONVERGED_LABEL

    def result(self, index) -> TauStarResult:
        """The :class:`TauStarResult` at ``index`` (an index into the grid's shape)."""
        where = str(self.infimum_at[index])
        rule = self.rule if self.level[index] == 0 else f"{self.rule}(level {int(self.level[index])})"
        return TauStarResult(
            tau_star=float(self.tau_star[index]),
            kappa_star=float(self.kappa_star[index]),
            status=str(self.status[index]),  # the label; __post_init__ makes it the Status member
            infimum_at=where,
            attained=where in ATTAINED,
            iterations=int(self.iterations[index]),
            error=float(self.error[index]),
            kappa_error=float(self.kappa_error[index]),
            derivative=float(self.derivative[index]),
            curvature=float(self.curvature[index]),
            method="compiled",
            rule=rule,
            student=self.student,
            teacher=self.teacher,
            student_scale=float(self.student_scale[index]),
            teacher_scale=float(self.teacher_scale[index]),
            centered=self.centered,
            fit_constant=self.fit_constant,
            message=self.messages.get(np.ravel_multi_index(index, self.shape) if self.shape else 0, ""),
        )

    def results(self) -> list[TauStarResult]:
        """All points, in C order."""
        return [self.result(np.unravel_index(i, self.shape)) for i in range(self.tau_star.size)]

    def rows(self) -> list[dict]:
        """One JSON-friendly dict per grid point (see :meth:`TauStarResult.as_dict`)."""
        return [r.as_dict() for r in self.results()]


class TauObjective(tuple):
    """``(value, derivative, second_derivative, error)`` of τ at the requested κ (arrays)."""

    __slots__ = ()

    def __new__(cls, value, derivative, second_derivative, error):
        return tuple.__new__(cls, (value, derivative, second_derivative, error))

    value = property(lambda self: self[0])
    derivative = property(lambda self: self[1])
    second_derivative = property(lambda self: self[2])
    error = property(lambda self: self[3])
