r"""Computed verdicts: every claim of ``report.md`` is a :class:`Verdict` made from the numbers and their
standard errors, never a sentence written in advance.

A verdict has three states:

* ``holds=True`` — the claim holds here, every number of it beyond ``z_max`` standard errors on the
  claimed side (or, for :func:`agrees`, within ``z_max`` s.e.);
* ``holds=False`` — **does not hold here**: a number lies beyond ``z_max`` s.e. on the wrong side;
  the sentence says so, with the numbers;
* ``holds=None`` — not decided: the numbers are within ``z_max`` s.e. of the boundary, or there are
  too few seeds (:data:`MIN_SEEDS`) for a standard error to mean something.

``z`` is the signed distance (in s.e.) of the number that decides the verdict, ``size`` its absolute
distance. The report lists every verdict (``Verdict:`` lines under each item) and counts those that
do not hold as findings.

>>> below([0.0347, 0.020], [0.001, 0.001], 0.0274, "R1 after a large step").holds
False
>>> agrees(0.5, 0.01, 0.51, "the outlier", seeds=8).holds
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["MIN_SEEDS", "Z_MAX", "Verdict", "agrees", "below", "above", "monotone", "signs", "not_judged", "fmt_pm"]

#: the fewest seeds whose standard error is used to judge anything (a two-seed s.e. is uncertain by ±70 %)
MIN_SEEDS = 8
#: number of standard errors that decide a verdict (no allowance is ever added)
Z_MAX = 3.0


@dataclass(frozen=True)
class Verdict:
    """A computed claim: ``holds`` (True, False, or None when undecided), the ``sentence`` that states
    it with its numbers, ``z`` (signed, in s.e.) and ``size`` (absolute) of the deciding number, and
    ``what`` the claim in a few words."""

    holds: bool | None
    sentence: str
    z: float = math.nan
    size: float = math.nan
    what: str = ""

    @property
    def state(self) -> str:
        """``holds``, ``does not hold`` or ``undecided``."""
        return {True: "holds", False: "does not hold", None: "undecided"}[self.holds]

    def as_dict(self) -> dict:
        d = asdict(self)
        d["state"] = self.state
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


def fmt_pm(value: float, se: float) -> str:
    """``0.0347 ± 0.0012`` (4 significant digits, the s.e. with 2)."""
    if not math.isfinite(se):
        return f"{value:.4g}"
    return f"{value:.4g} ± {se:.2g}"


def _few_seeds(what: str, seeds: int | None) -> Verdict | None:
    if seeds is not None and seeds < MIN_SEEDS:
        return Verdict(None, f"{what}: not judged — {seeds} seeds (< {MIN_SEEDS}: the standard error itself is "
                             "too uncertain).", what=what)
    return None


def not_judged(what: str, reason: str) -> Verdict:
    """An undecided verdict with its reason."""
    return Verdict(None, f"{what}: not judged — {reason}.", what=what)


def agrees(sim: float, se: float, theory: float, what: str, *, seeds: int | None = None, z_max: float = Z_MAX,
           theory_name: str = "the theory") -> Verdict:
    """``what`` (simulated ``sim`` ± ``se``) agrees with ``theory``: |sim − theory| ≤ z_max·se."""
    few = _few_seeds(what, seeds)
    if few is not None:
        return few
    if not (math.isfinite(sim) and math.isfinite(theory) and math.isfinite(se) and se > 0):
        return not_judged(what, "no finite value or standard error")
    z = (sim - theory) / se
    nums = f"{fmt_pm(sim, se)} against {theory_name} {theory:.4g}, z = {z:+.1f}"
    if abs(z) <= z_max:
        return Verdict(True, f"{what} agrees with {theory_name}: {nums}.", z, abs(sim - theory), what)
    return Verdict(False, f"{what} follows {theory_name} — does not hold here: {nums}.", z, abs(sim - theory), what)


def _side(values, ses, bound, what, sign: int, word: str, seeds, z_max) -> Verdict:
    few = _few_seeds(what, seeds)
    if few is not None:
        return few
    v = np.asarray(values, float)
    s = np.asarray(ses, float)
    if v.size == 0 or not (np.all(np.isfinite(v)) and np.all(np.isfinite(s)) and np.all(s > 0)):
        return not_judged(f"{what} {word} {bound:.4g}", "no finite value or standard error")
    z = sign * (bound - v) / s  # > 0: on the claimed side
    k = int(np.argmin(z))
    nums = ", ".join(fmt_pm(a, b) for a, b in zip(v, s, strict=True))
    claim = f"{what} {word} {bound:.4g}"
    if z[k] > z_max:
        return Verdict(True, f"{claim}: holds ({nums}; the closest is {z[k]:.1f} s.e. {word} it).", float(z[k]),
                       float(abs(bound - v[k])), claim)
    if z[k] < -z_max:
        return Verdict(False, f"{claim} — does not hold here: {fmt_pm(v[k], s[k])} is {-z[k]:.1f} s.e. on the "
                              f"other side (all: {nums}).", float(z[k]), float(abs(bound - v[k])), claim)
    return Verdict(None, f"{claim}: undecided — {fmt_pm(v[k], s[k])} is within {z_max:g} s.e. of it (z = "
                         f"{z[k]:+.1f}; all: {nums}).", float(z[k]), float(abs(bound - v[k])), claim)


def below(values: Sequence[float], ses: Sequence[float], bound: float, what: str, *, seeds: int | None = None,
          z_max: float = Z_MAX) -> Verdict:
    """Every value of ``what`` is below ``bound`` (by more than z_max s.e.)."""
    return _side(values, ses, bound, what, +1, "below", seeds, z_max)


def above(values: Sequence[float], ses: Sequence[float], bound: float, what: str, *, seeds: int | None = None,
          z_max: float = Z_MAX) -> Verdict:
    """Every value of ``what`` is above ``bound`` (by more than z_max s.e.)."""
    return _side(values, ses, bound, what, -1, "above", seeds, z_max)


def monotone(xs: Sequence[float], values: Sequence[float], ses: Sequence[float], direction: str, what: str, *,
             seeds: int | None = None, z_max: float = Z_MAX, x_name: str = "x") -> Verdict:
    """``what`` changes monotonically (``direction`` ``increasing`` or ``decreasing``) along ``xs``.

    Holds when the change from the first to the last point is beyond z_max s.e. in ``direction`` and
    no consecutive step goes beyond z_max s.e. the other way (the s.e. of a step: √(se₁² + se₂²),
    as for independent points — conservative on common random numbers); does not hold when a step
    goes significantly the other way; undecided otherwise."""
    few = _few_seeds(what, seeds)
    if few is not None:
        return few
    if direction not in ("increasing", "decreasing"):
        raise ValueError(f"monotone: direction {direction!r} is not 'increasing' or 'decreasing'")
    x = np.asarray(xs, float)
    v = np.asarray(values, float)
    s = np.asarray(ses, float)
    claim = f"{what} is {direction} in {x_name}"
    if v.size < 2 or not (np.all(np.isfinite(v)) and np.all(np.isfinite(s)) and np.all(s > 0)):
        return not_judged(claim, "fewer than two finite points")
    sign = 1.0 if direction == "increasing" else -1.0
    steps = sign * np.diff(v) / np.hypot(s[1:], s[:-1])
    k = int(np.argmin(steps))
    total = sign * (v[-1] - v[0]) / math.hypot(s[-1], s[0])
    nums = ", ".join(f"{x_name} = {a:g}: {fmt_pm(b, c)}" for a, b, c in zip(x, v, s, strict=True))
    if steps[k] < -z_max:
        return Verdict(False, f"{claim} — does not hold here: from {x_name} = {x[k]:g} to {x[k + 1]:g} it goes "
                              f"{-steps[k]:.1f} s.e. the other way ({nums}).", float(steps[k]),
                       float(abs(v[k + 1] - v[k])), claim)
    if total > z_max:
        return Verdict(True, f"{claim}: holds (first to last {total:.1f} s.e.; no step against it beyond "
                             f"{z_max:g} s.e.; {nums}).", float(total), float(abs(v[-1] - v[0])), claim)
    return Verdict(None, f"{claim}: undecided — the change is within {z_max:g} s.e. (first to last z = "
                         f"{total:+.1f}; {nums}).", float(total), float(abs(v[-1] - v[0])), claim)


def signs(xs: Sequence[float], values: Sequence[float], ses: Sequence[float], expected: Sequence[int], what: str, *,
          seeds: int | None = None, z_max: float = Z_MAX, x_name: str = "x") -> Verdict:
    """``what`` has the ``expected`` sign (+1, −1; 0: no claim) at each x: does not hold if a value is
    beyond z_max s.e. on the wrong side of 0; holds if every claimed sign is met beyond z_max s.e.;
    undecided otherwise."""
    few = _few_seeds(what, seeds)
    if few is not None:
        return few
    x = np.asarray(xs, float)
    v = np.asarray(values, float)
    s = np.asarray(ses, float)
    e = np.asarray(expected, float)
    claim = f"the sign of {what} along {x_name}"
    use = e != 0
    if not use.any() or not (np.all(np.isfinite(v[use])) and np.all(s[use] > 0)):
        return not_judged(claim, "no claimed sign with a finite value and standard error")
    z = np.where(use, e * v / np.where(s > 0, s, 1.0), np.inf)
    k = int(np.argmin(z))
    nums = ", ".join(f"{x_name} = {a:g}: {b:+.4f} ± {c:.2g} (expected {'+' if f > 0 else '−' if f < 0 else 'any'})"
                     for a, b, c, f in zip(x, v, s, e, strict=True))
    if z[k] < -z_max:
        return Verdict(False, f"{claim} — does not hold here: at {x_name} = {x[k]:g} it is {-z[k]:.1f} s.e. on the "
                              f"wrong side ({nums}).", float(z[k]), float(abs(v[k])), claim)
    if z[k] > z_max:
        return Verdict(True, f"{claim}: holds, each beyond {z_max:g} s.e. ({nums}).", float(z[k]), float(abs(v[k])),
                       claim)
    return Verdict(None, f"{claim}: undecided — at {x_name} = {x[k]:g} it is within {z_max:g} s.e. of 0 ({nums}).",
                   float(z[k]), float(abs(v[k])), claim)
