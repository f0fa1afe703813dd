"""The verdicts as a :class:`~asymptotics.results.Result`: one row per claim.

Columns: ``claim, source, verdict, expected, finding, points, unresolved, undecided,
min_relative_margin``, ``at_<name>`` (the parameters and the activation pair where the minimal
margin — or the counterexample — was found), ``value`` (the margin there, float64),
``precise_value`` and ``precise_digits`` (its high-precision value, when re-decided),
``confirm_z``, ``confirm_verdict``, ``confirm_seeds`` (the network's, with ``--confirm``),
``seconds`` and ``note``.
"""

from __future__ import annotations

from ..results import Columns, Result, base_meta, scalar
from .claim import ClaimVerdict

__all__ = ["verdict_rows", "verdicts_result", "TABLE"]

#: The console table's columns.
TABLE = Columns((), ("claim", "verdict", "points", "unresolved", "min_relative_margin", "value", "precise_value",
                     "confirm_z", "seconds"))


def _plain(v):
    if isinstance(v, str) or v is None or isinstance(v, bool):
        return v
    return scalar(v)


def verdict_rows(verdicts: list[ClaimVerdict]) -> list[dict]:
    """One row per verdict (the module docstring's columns; NaN written as ``None``)."""
    rows = []
    for v in verdicts:
        row = {"claim": v.claim, "source": v.source, "verdict": v.verdict, "expected": v.expected,
               "finding": v.finding, "points": int(v.points), "unresolved": int(v.unresolved),
               "undecided": int(v.undecided), "min_relative_margin": _plain(v.min_relative_margin)}
        row.update({f"at_{k}": _plain(x) for k, x in v.at.items()})
        c = v.confirm
        row.update(value=_plain(v.value), precise_value=v.precise_value, precise_digits=v.precise_digits,
                   confirm_z=None if c is None else _plain(c.z), confirm_verdict=None if c is None else c.verdict,
                   confirm_seeds=None if c is None else int(c.seeds), seconds=round(float(v.seconds), 3),
                   note=v.note or None)
        rows.append(row)
    return rows


def verdicts_result(verdicts: list[ClaimVerdict], **meta) -> Result:
    """The verdicts as a Result (``meta``: the check's settings)."""
    rows = verdict_rows(verdicts)
    ats = tuple(dict.fromkeys(k for r in rows for k in r if k.startswith("at_") and k not in ("at_student", "at_teacher")))
    cols = Columns((), TABLE.values[:5] + ats + TABLE.values[5:])
    return Result(rows=rows, meta=base_meta(command="check", **meta), columns=cols)
