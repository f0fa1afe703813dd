r"""The study modes: which ladder of dimensions, how many pilot seeds, the caps on seeds and time.

A ladder is geometric with ratio √2 (each doubling of d gets two rungs), so that a power law in d
is sampled evenly in log d. The modes (a variant may give its own ladder per mode when its
simulations are expensive, e.g. a wide network):

=========  ====================  ======  =========  ==============  ============
mode       dimensions            pilot   max seeds  budget/variant  target × ...
=========  ====================  ======  =========  ==============  ============
toy        60 … 240 (5 rungs)    3       8          20 s            4 (tests only)
quick      200 … 800 (5 rungs)   3       16         40 s            2
default    250 … 4000 (9 rungs)  4       48         1200 s          1
full       500 … 8000 (9 rungs)  4       96         4 h             0.5
=========  ====================  ======  =========  ==============  ============

"target × …" multiplies each quantity's target standard error per d (quick runs are coarser).
The budget is an estimate of simulation time (from the pilot's timings) that the seed allocation
may not exceed; see :mod:`validation.finite_size.allocation`.

>>> geometric_ladder(250, 4000)
(250, 354, 500, 707, 1000, 1414, 2000, 2828, 4000)
>>> MODES["quick"].dims
(200, 283, 400, 566, 800)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from asymptotics.errors import ParameterError

__all__ = ["StudyMode", "MODES", "geometric_ladder", "mode"]


def geometric_ladder(d_min: int, d_max: int, ratio: float = math.sqrt(2.0)) -> tuple[int, ...]:
    """d_min·ratio^j rounded to integers, up to d_max (included when it lies on the ladder)."""
    if not (isinstance(d_min, int) and isinstance(d_max, int) and 2 <= d_min <= d_max):
        raise ParameterError("ladder", (d_min, d_max), "integers 2 ≤ d_min ≤ d_max")
    out = []
    j = 0
    while True:
        d = int(round(d_min * ratio**j))
        if d > d_max * (1 + 1e-9):
            break
        if not out or d != out[-1]:
            out.append(d)
        j += 1
    return tuple(out)


@dataclass(frozen=True)
class StudyMode:
    """One preset of a finite-size study.

    Attributes:
        name: ``toy``, ``quick``, ``default`` or ``full``.
        dims: the default ladder of dimensions d.
        pilot: seeds simulated at every d before the allocation.
        max_seeds: the largest number of seeds at one d.
        budget_s: estimated simulation seconds per variant the allocation may spend (pilot included).
        target_factor: multiplies every quantity's target standard error.
    """

    name: str
    dims: tuple[int, ...]
    pilot: int
    max_seeds: int
    budget_s: float
    target_factor: float


MODES = {
    "toy": StudyMode("toy", geometric_ladder(60, 240), 3, 8, 20.0, 4.0),
    "quick": StudyMode("quick", geometric_ladder(200, 800), 3, 16, 40.0, 2.0),
    "default": StudyMode("default", geometric_ladder(250, 4000), 4, 48, 1200.0, 1.0),
    "full": StudyMode("full", geometric_ladder(500, 8000), 4, 96, 4 * 3600.0, 0.5),
}


def mode(name: str) -> StudyMode:
    """The :class:`StudyMode` called ``name`` (a clear error lists the valid ones)."""
    if name not in MODES:
        raise ParameterError("mode", name, "one of " + ", ".join(MODES))
    return MODES[name]
