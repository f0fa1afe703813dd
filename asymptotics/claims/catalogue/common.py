r"""Shared pieces of the papers' catalogues: the assumptions' meaning and margins that compare a
quantity with a second evaluation of the theory (callable statements).

**Assumptions** (:func:`pair_satisfies`), as the papers state them, of a (student σ, teacher σ*) pair,
both used centred (the API's default): ``"odd"`` / ``"even"`` / ``"smooth"`` (no kink) /
``"bounded"`` / ``"mu1!=0"`` / ``"mu1==0"`` / ``"mu2!=0"`` are the **student's**; ``"centred"`` is both
(always true when centred); ``"teacher:<assumption>"`` is the teacher's (``"teacher:mu1!=0"``:
μ1* ≠ 0, an information exponent of 1).

A **callable statement** ``rows -> margins`` gets the quantity's output rows (one per evaluated
point) and returns one relative margin per row (positive = the claim holds there; NaN where the
reference could not be computed, which leaves the point unresolved).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ...errors import ParameterError

__all__ = ["ASSUMPTIONS", "pair_satisfies", "pair_violations", "relative_gap", "reference_margin"]

#: every assumption a catalogue may state (a ``teacher:`` prefix applies it to the teacher).
ASSUMPTIONS = ("odd", "even", "smooth", "bounded", "centred", "mu1!=0", "mu1==0", "mu2!=0")
_BOUNDED = {"tanh", "erf", "sigmoid", "sin"}
_EPS = 1e-12


def _constants(spec: str):
    from ...activations import activation

    return activation(spec).constants()


def _holds(assumption: str, spec: str) -> bool:
    from ...activations import activation
    from ...activations.builtins import PARITY

    act = activation(spec)
    name = getattr(act, "builtin", None) or spec
    if assumption == "odd":
        return PARITY.get(name) == -1
    if assumption == "even":
        return PARITY.get(name) == 1
    if assumption == "smooth":
        return len(tuple(act.kinks)) == 0
    if assumption == "bounded":
        return name in _BOUNDED
    if assumption == "centred":
        return abs(_constants(spec).mu0) <= _EPS
    c = _constants(spec)
    if assumption == "mu1!=0":
        return abs(c.mu1) > _EPS
    if assumption == "mu1==0":
        return abs(c.mu1) <= _EPS
    if assumption == "mu2!=0":
        return c.mu2_sq > _EPS
    raise ParameterError("assumption", assumption, "one of " + ", ".join(ASSUMPTIONS) + " (or teacher:<one of them>)")


def pair_satisfies(assumption: str, student: str, teacher: str) -> bool:
    """Whether the (student, teacher) pair satisfies ``assumption`` (see the module docstring)."""
    if assumption.startswith("teacher:"):
        return _holds(assumption.split(":", 1)[1], teacher)
    if assumption == "centred":
        return _holds("centred", student) and _holds("centred", teacher)
    return _holds(assumption, student)


def pair_violations(claim) -> list[str]:
    """``"student/teacher: assumption"`` for every pair of ``claim`` violating one of its assumptions."""
    return [f"{s}/{t}: {a}" for s, t in claim.activations for a in claim.assumptions if not pair_satisfies(a, s, t)]


def relative_gap(a: float, b: float) -> float:
    """(a − b)/(|a| + |b|): the signed gap relative to the size of the terms (0 when both are 0)."""
    s = abs(a) + abs(b)
    return 0.0 if s == 0 else (a - b) / s


def reference_margin(quantity: str, student: str, teacher: str, change: Callable[[Mapping], dict],
                     margin: Callable[[Mapping, Mapping], float], column: str) -> Callable[[Sequence[Mapping]], np.ndarray]:
    """A callable statement: for each row (whose ``column`` is a number), evaluate the API function
    ``quantity`` at ``change(row)`` (its keyword arguments) and return ``margin(row, reference_row)``.
    A failed reference gives NaN (unresolved), never support."""
    import asymptotics.api as api

    fn = getattr(api, quantity)

    def statement(rows: Sequence[Mapping]) -> np.ndarray:
        out = np.full(len(rows), math.nan)
        for i, row in enumerate(rows):
            if row.get(column) is None or (row.get("status") not in (None, "converged")):
                continue
            try:
                ref = fn(student=student, teacher=teacher, **change(row)).rows[0]
            except Exception:  # noqa: BLE001 — a failed reference is an unresolved point
                continue
            if ref.get("status") in (None, "converged"):
                try:
                    out[i] = float(margin(row, ref))
                except (KeyError, TypeError, ZeroDivisionError):
                    continue
        return out

    statement.__name__ = f"{quantity}_reference_margin"
    return statement
