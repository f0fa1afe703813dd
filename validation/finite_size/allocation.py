r"""Seeds per dimension chosen to reach a target standard error, within a stated budget.

After the pilot (the same few seeds at every d) the seed-to-seed variance σ_q²(d) of every
quantity q is known (pooled over the ladder, :mod:`validation.finite_size.variance`), and so is the
time t(d) of one seed. The number of seeds at d is the smallest that brings every quantity to its
target t_q:

    k(d) = clip( max_q ⌈σ_q²(d) / t_q²⌉,  pilot,  max_seeds ).

If the extra seeds Σ_d (k(d) − pilot)·t(d) would exceed what is left of the budget, every k(d) is
scaled by one common factor s < 1 (the largest that fits, found by bisection; never below the
pilot), and the plan says so with the standard errors it expects — a capped budget gives wider
error bars, never a silent loss of precision.

>>> import numpy as np
>>> p = allocate_seeds([100, 400], 3, {"x": np.array([1.0, 0.25])}, {"x": 0.1}, np.array([0.1, 1.0]),
...                    max_seeds=200, budget_s=1000.0, spent_s=0.0)
>>> p.seeds, p.capped_by
((100, 25), 'none')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["SeedPlan", "allocate_seeds"]


@dataclass(frozen=True)
class SeedPlan:
    """How many seeds each d gets, and why.

    Attributes:
        dims: the ladder.
        pilot: seeds of the pilot at every d.
        seeds: the planned seeds per d (≥ pilot).
        required: max_q ⌈σ_q²(d)/t_q²⌉ before any cap.
        targets: quantity → target standard error per d.
        expected_se: quantity → expected standard error per d with ``seeds``.
        estimated_s: estimated simulation time of the whole plan (pilot included).
        budget_s: the budget.
        scale: the common factor applied to meet the budget (1: none).
        capped_by: ``none``, ``max_seeds`` or ``budget``.
        note: the plan in words.
    """

    dims: tuple[int, ...]
    pilot: int
    seeds: tuple[int, ...]
    required: tuple[int, ...]
    targets: dict
    expected_se: dict
    estimated_s: float
    budget_s: float
    scale: float
    capped_by: str
    note: str

    def as_dict(self) -> dict:
        return {"dims": list(self.dims), "pilot": self.pilot, "seeds": list(self.seeds),
                "required": list(self.required), "targets": dict(self.targets),
                "expected_se": {q: [float(v) for v in s] for q, s in self.expected_se.items()},
                "estimated_s": self.estimated_s, "budget_s": self.budget_s, "scale": self.scale,
                "capped_by": self.capped_by, "note": self.note}


def allocate_seeds(dims, pilot: int, variances: Mapping[str, np.ndarray], targets: Mapping[str, float],
                   seconds_per_seed, *, max_seeds: int, budget_s: float, spent_s: float) -> SeedPlan:
    """The :class:`SeedPlan` (see the module docstring).

    Args:
        dims: the ladder.
        pilot: seeds already simulated at every d.
        variances: quantity → σ²(d) of one seed at each d.
        targets: quantity → target standard error of the mean at each d.
        seconds_per_seed: t(d), measured in the pilot.
        max_seeds: cap per d.
        budget_s: total simulation time allowed (pilot included).
        spent_s: time the pilot took.
    """
    dims = tuple(int(d) for d in dims)
    t = np.asarray(seconds_per_seed, dtype=float)
    need = np.full(len(dims), pilot, dtype=int)
    for q, var in variances.items():
        tq = float(targets[q])
        kq = np.ceil(np.asarray(var, dtype=float) / tq**2)
        kq = np.where(np.isfinite(kq), kq, max_seeds)
        need = np.maximum(need, kq.astype(int))
    required = tuple(int(v) for v in need)
    k = np.clip(need, pilot, max_seeds)
    capped = "max_seeds" if np.any(need > max_seeds) else "none"
    left = max(budget_s - spent_s, 0.0)

    def cost(kk):
        return float(np.sum((kk - pilot) * t))

    scale = 1.0
    if cost(k) > left:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if cost(np.maximum(pilot, np.ceil(mid * k).astype(int))) <= left:
                lo = mid
            else:
                hi = mid
        scale = lo
        k = np.maximum(pilot, np.ceil(scale * k).astype(int))
        capped = "budget"
    seeds = tuple(int(v) for v in k)
    expected = {q: np.sqrt(np.asarray(var, dtype=float) / k) for q, var in variances.items()}
    est = spent_s + cost(k)
    worst = max((float(np.max(expected[q] / targets[q])) for q in variances), default=math.nan)
    note = f"pilot {pilot} seeds at every d, then seeds for a target s.e. per d; seeds {list(seeds)}"
    if capped == "max_seeds":
        note += f"; capped at {max_seeds} seeds per d"
    if capped == "budget":
        note += f"; the time budget {budget_s:.0f} s scaled the seeds by {scale:.2f}"
    if worst > 1.0 + 1e-9:
        note += f"; expected s.e. up to {worst:.2f}× the target"
    return SeedPlan(dims, int(pilot), seeds, required, {q: float(v) for q, v in targets.items()}, expected,
                    est, float(budget_s), float(scale), capped, note)
