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
objective there, for the risk a full solve). :func:`refine_batch` runs the same loop for many items
at once, with the work of each level done in one batch (the exact risk over a grid of ridges).

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

__all__ = ["Check", "Refinement", "refine", "refine_batch"]


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
    (out,) = refine_batch(
        lambda level, items, previous: [solve(level, None if previous is None else previous[0])],
        levels,
        lambda answers, level, finer, items: [check(answers[0], level, finer)],
        count=1,
        stop=stop,
    )
    return out


def refine_batch(
    solve: Callable[[object, list, list | None], list],
    levels: Sequence,
    check: Callable[[list, object, object, list], list],
    *,
    count: int,
    stop: Callable[[object], Status | None] | None = None,
) -> list[Refinement]:
    """:func:`refine` for ``count`` independent items at once, so that the work of one level can be
    done in one batch (e.g. one compiled call over many grid points).

    ``solve(level, items, previous)`` returns the answers of the listed items (indices) at
    ``level`` (``previous``: their answers at the level before, or ``None`` at the first level);
    ``check(answers, level, finer, items)`` returns one :class:`Check` per listed item. Every item
    follows exactly the sequence of levels it would follow alone: all items still unresolved are at
    the same level, and an item leaves the loop as soon as :func:`refine` would return it.
    """
    levels = list(levels)
    if len(levels) < 2:
        raise ValueError("refine needs at least two resolutions")
    items = list(range(int(count)))
    answer = dict(zip(items, solve(levels[0], items, None), strict=True))
    sequence = {i: [(levels[0], answer[i])] for i in items}
    last: dict = dict.fromkeys(items)
    out: dict = {}
    active = items
    level = levels[0]
    for k, finer in enumerate(levels[1:], start=1):
        go = []
        for i in active:
            status = stop(answer[i]) if stop is not None else None
            if status is not None:  # this answer is not checked
                out[i] = Refinement(answer[i], level, None, tuple(sequence[i]), status)
            else:
                go.append(i)
        if not go:
            active = []
            break
        checks = check([answer[i] for i in go], level, finer, go)
        active, unsolved = [], []
        for i, chk in zip(go, checks, strict=True):
            last[i] = chk
            if chk.agrees:
                if chk.finer is not None:
                    sequence[i].append((finer, chk.finer))
                out[i] = Refinement(answer[i], level, chk, tuple(sequence[i]), Status.CONVERGED)
            elif chk.finer is not None:
                answer[i] = chk.finer
                sequence[i].append((finer, chk.finer))
                active.append(i)
            elif k < len(levels) - 1:
                unsolved.append(i)
            else:  # the last level was only probed: the most resolved answer stays
                out[i] = _unresolved(answer[i], level, chk, sequence[i], stop)
        if unsolved:
            for i, a in zip(unsolved, solve(finer, unsolved, [answer[i] for i in unsolved]), strict=True):
                answer[i] = a
                sequence[i].append((finer, a))
                active.append(i)
            active.sort()
        level = finer
    for i in active:
        out[i] = _unresolved(answer[i], level, last[i], sequence[i], stop)
    return [out[i] for i in items]


def _unresolved(answer, level, last, sequence, stop) -> Refinement:
    status = stop(answer) if stop is not None else None
    return Refinement(answer, level, last, tuple(sequence), Status.UNRESOLVED if status is None else status)
