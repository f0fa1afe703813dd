"""What a figure computes: theory curves, simulation points, reference lines, comparisons.

A :class:`FigureData` is plain data (JSON-serialisable), so a figure can be re-plotted without
recomputing, exported as a table, and summarised in the report.

**Comparisons** (:class:`Comparison`, made by :func:`compare`) hold a theory at a simulated point
against the simulated mean ± s.e., with the *method* that makes the comparison defensible and no
allowance of any kind:

* ``method=FINITE_WIDTH`` — the theory evaluated at the simulated size (finite N, p or d);
* ``method=EXTRAPOLATION`` — the d → ∞ limit extrapolated from a ladder of d
  (:mod:`validation.finite_size.fit`), its ``se`` the limit's;
* ``method=INFINITE`` — the d → ∞ theory at one d: reported, never judged (its finite-size bias is
  not known there).

A comparison is *judged* when its method is one of the first two, it has at least
:data:`~asymptotics.reproduce.verdicts.MIN_SEEDS` seeds (or a stated within-seed s.e.), and its
numbers are finite; it then passes when |simulation − theory| ≤ z_max·s.e. (z_max = 3). Otherwise
its status is ``not judged`` with the reason. **Verdicts** (:class:`~asymptotics.reproduce.verdicts.Verdict`,
``FigureData.verdicts``) are the item's computed claims (below a bound, monotone, a sign pattern).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .verdicts import MIN_SEEDS, Z_MAX, Verdict

__all__ = ["Curve", "Points", "RefLine", "FigureData", "Comparison", "compare", "FINITE_WIDTH", "EXTRAPOLATION",
           "INFINITE", "METHODS"]

#: the theory evaluated at the simulated size (judged)
FINITE_WIDTH = "finite-width theory"
#: the d → ∞ limit extrapolated from a ladder of d, against the d → ∞ theory (judged)
EXTRAPOLATION = "extrapolation d → ∞"
#: the d → ∞ theory at a single d (reported, not judged)
INFINITE = "d → ∞ theory at one d"
METHODS = (FINITE_WIDTH, EXTRAPOLATION, INFINITE)


@dataclass(frozen=True)
class Comparison:
    """One theory-vs-simulation row: ``status`` is ``passed``, ``failed`` or ``not judged`` (with
    ``reason``). ``seeds``: the seeds behind ``se`` (``None``: a within-seed s.e., stated in ``reason``
    or ``note``). ``d``: the simulated dimension (the largest of a ladder for an extrapolation)."""

    figure: str
    quantity: str
    params: dict
    theory: float
    simulation: float
    se: float
    d: int | None
    seeds: int | None
    method: str
    judged: bool
    reason: str = ""
    note: str = ""
    z_max: float = Z_MAX

    @property
    def z(self) -> float:
        """(simulation − theory)/s.e. (NaN without a positive s.e.)."""
        if self.se > 0 and math.isfinite(self.se):
            return (self.simulation - self.theory) / self.se
        return math.nan

    @property
    def status(self) -> str:
        if not self.judged:
            return "not judged"
        return "passed" if abs(self.simulation - self.theory) <= self.z_max * self.se else "failed"

    @property
    def passed(self) -> bool | None:
        """True/False when judged, None when not."""
        return None if not self.judged else self.status == "passed"

    def as_row(self) -> dict:
        row = asdict(self)
        row["params"] = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.params.items())
        row["z"] = self.z if math.isfinite(self.z) else None
        row["status"] = self.status
        return row


@dataclass
class Curve:
    """A d → ∞ theory curve: ``y(x)`` of ``quantity`` at fixed ``params``."""

    label: str
    x: list[float]
    y: list[float]
    quantity: str
    params: dict = field(default_factory=dict)
    style: str = "-"
    group: int = 0  # colour index shared with the simulation points of the same setting
    panel: int = 0  # which axes of a multi-panel figure

    def __post_init__(self):
        self.x = [float(v) for v in np.asarray(self.x, dtype=float)]
        self.y = [float(v) for v in np.asarray(self.y, dtype=float)]


@dataclass
class Points:
    """Simulation means ± standard errors at the points ``x`` (d, seeds and config recorded)."""

    label: str
    x: list[float]
    mean: list[float]
    se: list[float]
    quantity: str
    params: dict = field(default_factory=dict)
    d: int | None = None
    seeds: int | None = None
    group: int = 0
    panel: int = 0

    def __post_init__(self):
        self.x = [float(v) for v in self.x]
        self.mean = [float(v) for v in self.mean]
        self.se = [float(v) for v in self.se]


@dataclass
class RefLine:
    """A reference line: ``kind`` is ``bound`` (horizontal at ``value``), ``threshold`` (vertical at
    ``value``) or ``rate`` (the power law ``anchor_y·(x/value)^slope``)."""

    kind: str
    value: float
    label: str
    group: int | None = None
    anchor_y: float | None = None
    slope: float | None = None
    panel: int = 0


@dataclass
class FigureData:
    """Everything a figure shows, with the parameters that produced it."""

    name: str
    x_name: str
    curves: list[Curve] = field(default_factory=list)
    points: list[Points] = field(default_factory=list)
    lines: list[RefLine] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    table: list[dict] = field(default_factory=list)  # for table items: the rows of the paper's table
    params: dict = field(default_factory=dict)
    caption: str = ""  # parameters and sizes in words (shown under the figure in the report)
    notes: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)  # the item's computed claims

    def as_dict(self) -> dict:
        """JSON-ready: non-finite numbers (gaps in a curve, a missing standard error) become None."""
        d = asdict(self)
        d["comparisons"] = [c.as_row() for c in self.comparisons]
        d["verdicts"] = [v.as_dict() for v in self.verdicts]
        return _nan_to_none(d)

    def tidy_rows(self) -> list[dict]:
        """Long-format rows: one per theory point, simulation point and reference line."""
        rows = []
        for c in self.curves:
            for x, y in zip(c.x, c.y, strict=True):
                rows.append({"figure": self.name, "panel": c.panel, "series": c.label, "kind": "theory", "quantity": c.quantity,
                             self.x_name: x, "value": _finite_or_none(y), "se": None, "d": None, "seeds": None})
        for p in self.points:
            for x, m, s in zip(p.x, p.mean, p.se, strict=True):
                rows.append({"figure": self.name, "panel": p.panel, "series": p.label, "kind": "simulation", "quantity": p.quantity,
                             self.x_name: x, "value": _finite_or_none(m), "se": _finite_or_none(s), "d": p.d,
                             "seeds": p.seeds})
        for ln in self.lines:
            rows.append({"figure": self.name, "panel": ln.panel, "series": ln.label, "kind": ln.kind, "quantity": ln.kind,
                         self.x_name: ln.value if ln.kind == "threshold" else None,
                         "value": ln.value if ln.kind != "threshold" else None, "se": None, "d": None, "seeds": None})
        return rows


def _nan_to_none(obj):
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_to_none(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _finite_or_none(v):
    return float(v) if v is not None and math.isfinite(v) else None


def compare(figure: str, quantity: str, params: dict, theory: float, mean: float, se: float, *, d: int | None,
            seeds: int | None, method: str, reason: str = "", note: str = "", z_max: float = Z_MAX) -> Comparison:
    """A theory-vs-simulation :class:`Comparison`, judged when ``method`` is :data:`FINITE_WIDTH` or
    :data:`EXTRAPOLATION`, ``seeds`` ≥ MIN_SEEDS (``seeds=None``: a within-seed s.e., its reason in
    ``note``) and the numbers are finite with se > 0; else ``not judged`` with ``reason`` (given, or
    the first of these that fails).

    >>> compare("f", "x", {}, 1.0, 1.1, 0.01, d=500, seeds=8, method=FINITE_WIDTH).status
    'failed'
    >>> compare("f", "x", {}, 1.0, 1.1, 0.01, d=500, seeds=3, method=FINITE_WIDTH).reason
    '3 seeds (< 8): the standard error itself is too uncertain'
    """
    if method not in METHODS:
        raise ValueError(f"compare: method {method!r} is not one of {METHODS}")
    theory, mean, se = float(theory), float(mean), float(se)
    why = ""
    if method == INFINITE:
        why = reason or (f"the d → ∞ theory at a single d = {d}: its finite-size bias is not known here" if d
                         else "the d → ∞ theory at a single size")
    elif seeds is not None and seeds < MIN_SEEDS:
        why = f"{seeds} seeds (< {MIN_SEEDS}): the standard error itself is too uncertain"
    elif not (math.isfinite(theory) and math.isfinite(mean) and math.isfinite(se) and se > 0):
        why = "no finite theory, mean or standard error"
    elif reason:
        why = reason
    return Comparison(figure, quantity, dict(params), theory, mean, se, None if d is None else int(d), seeds, method,
                      not why, why, note, float(z_max))
