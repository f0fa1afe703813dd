r"""Shared pieces of the papers' catalogues: monotonicity claims (:func:`monotone_claim`) and
margins that compare a quantity with a second evaluation of the theory (callable statements).
(The assumptions' meaning is :mod:`asymptotics.claims.assumptions`.)

A **callable statement** ``rows -> margins`` gets the quantity's output rows (a data frame, or a
list of row dicts; one row per evaluated point) and returns one relative margin per row (positive = the claim holds there; NaN where the
reference could not be computed, which leaves the point unresolved).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from ..claim import Claim, Domain

__all__ = ["monotone_claim", "relative_gap", "reference_margin"]


def monotone_claim(name: str, quantity: str, trend: str, domain: Domain, *, activations, assumptions, source: str,
                   unless: str | None = None, **kw) -> Claim:
    """The claim that a column of ``quantity`` moves one way with a parameter: ``trend`` is the
    statement's monotone atom, ``"increasing(column, param)"`` or ``"decreasing(column, param)"``
    (:mod:`asymptotics.claims.statement`), with ``unless`` the condition under which it is not
    asserted (``"<trend> or <unless>"``). ``kw``: the other fields of :class:`~asymptotics.claims.Claim`."""
    statement = trend if unless is None else f"{trend} or {unless}"
    return Claim(name, quantity, statement, domain, activations=activations, assumptions=assumptions,
                 source=source, **kw)


def relative_gap(a: float, b: float) -> float:
    """(a − b)/(|a| + |b|): the signed gap relative to the size of the terms (0 when both are 0)."""
    s = abs(a) + abs(b)
    return 0.0 if s == 0 else (a - b) / s


def _clean(row: Mapping) -> dict:
    """A row without its missing values (NaN in a frame, None in a row)."""
    return {
        k: v for k, v in dict(row).items() if v is not None and not (isinstance(v, float) and math.isnan(v))
    }


def reference_margin(
    quantity: str,
    student: str,
    teacher: str,
    change: Callable[[Mapping], dict],
    margin: Callable[[Mapping, Mapping], float],
    column: str,
) -> Callable:
    """A callable statement: for each row (whose ``column`` is a number), evaluate the API function
    ``quantity`` at ``change(row)`` (its keyword arguments) and return ``margin(row, reference_row)``.
    A failed reference gives NaN (unresolved), never support."""
    import asymptotics.api as api

    fn = getattr(api, quantity)

    def statement(rows) -> np.ndarray:
        rows = [_clean(r) for r in (rows.to_dict("records") if hasattr(rows, "to_dict") else rows)]
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
