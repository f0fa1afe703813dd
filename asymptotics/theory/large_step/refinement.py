r"""Refine a discretisation until the answer stops changing.

Every large-step answer is computed on a finite resolution — K readout types and n κ nodes for the
exact risk (:func:`~asymptotics.theory.large_step.gaussian_readout.gaussian_readout_risk`), the
quadrature level of τ* (:mod:`asymptotics.theory.large_step.tau_star`). :func:`refine` is the one
loop that raises the resolution along a ladder until an answer is confirmed by the next finer one:

1. ``solve(level, previous)`` gives the answer at ``level`` (``previous``: the answer at the level
   before, for a warm start; ``None`` at the first level);
2. ``check(answer, level, finer)`` compares it with the resolution ``finer`` and returns a
   :class:`Check` — whether they agree, the error estimate, and the answer at ``finer`` when the
   check had to solve there (it is then reused, not solved again);
3. the first answer that agrees is accepted (:attr:`~asymptotics.solvers.Status.CONVERGED`); when
   the ladder ends first, the most resolved answer is returned with
   :attr:`~asymptotics.solvers.Status.UNRESOLVED`. ``stop(answer)`` may end the loop early with
   another status (a solve that failed).

The last level of the ladder is only ever used by ``check`` (for τ* a single evaluation of the
objective there, for the risk a full solve).

>>> from asymptotics.solvers import Status
>>> ladder = [4, 8, 16, 32]                    # midpoint rule for ∫₀¹ x² dx = 1/3
>>> def solve(n, previous):
...     return sum(((i + 0.5) / n) ** 2 for i in range(n)) / n
>>> def check(value, n, finer):
...     fine = solve(finer, value)
...     return Check(abs(value - fine) <= 1e-3, abs(value - fine), fine)
>>> r = refine(solve, ladder, check)
>>> r.status == Status.CONVERGED, r.level, round(r.answer, 6), round(r.check.finer, 6)
(True, 8, 0.332031, 0.333008)
>>> refine(solve, [4, 8], check).status == Status.CONVERGED      # 4 vs 8 differ by 3.9e-3
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...solvers import Status

__all__ = ["Check", "Refinement", "refine"]


@dataclass(frozen=True)
class Check:
    """How an answer compares with the next finer resolution.

    Attributes:
        agrees: whether the two agree within the caller's tolerance.
        error: the caller's error estimate (a number, or one per item of a compound answer).
        finer: the answer at the finer resolution, when the check solved there (reused as the next
            answer); ``None`` when the check only probed it.
    """

    agrees: bool
    error: object = None
    finer: object = None


@dataclass(frozen=True)
class Refinement:
    """The outcome of :func:`refine`.

    Attributes:
        answer: the accepted answer (status ``CONVERGED``), else the most resolved one.
        level: the resolution of ``answer``.
        check: the last check made: the one that accepted ``answer``, or the last comparison when
            unresolved; ``None`` when ``stop`` ended the loop on an answer it had not checked.
        sequence: ``((level, answer), …)`` for every answer obtained, in order.
        status: ``Status.CONVERGED``, ``Status.UNRESOLVED`` or the status given by ``stop``.
    """

    answer: object
    level: object
    check: Check | None
    sequence: tuple
    status: Status

    @property
    def converged(self) -> bool:
        return self.status == Status.CONVERGED


def refine(
    solve: Callable[[object, object], object],
    levels: Sequence,
    check: Callable[[object, object, object], Check],
    *,
    stop: Callable[[object], Status | None] | None = None,
) -> Refinement:
    """Solve along ``levels`` until an answer agrees with the next finer resolution (see the module
    docstring). ``levels`` needs at least two entries."""
    levels = list(levels)
    if len(levels) < 2:
        raise ValueError("refine needs at least two resolutions")
    answer = solve(levels[0], None)
    level = levels[0]
    sequence = [(level, answer)]
    last = None
    for i, finer in enumerate(levels[1:], start=1):
        status = stop(answer) if stop is not None else None
        if status is not None:  # this answer is not checked
            return Refinement(answer, level, None, tuple(sequence), status)
        last = check(answer, level, finer)
        if last.agrees:
            if last.finer is not None:
                sequence.append((finer, last.finer))
            return Refinement(answer, level, last, tuple(sequence), Status.CONVERGED)
        if last.finer is not None:
            answer = last.finer
        elif i < len(levels) - 1:
            answer = solve(finer, answer)
        else:
            break
        level = finer
        sequence.append((level, answer))
    status = stop(answer) if stop is not None else None
    return Refinement(answer, level, last, tuple(sequence), Status.UNRESOLVED if status is None else status)
