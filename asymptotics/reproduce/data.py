"""What a figure computes: theory curves, simulation points, reference lines, comparisons.

A :class:`FigureData` is plain data (JSON-serialisable), so a figure can be re-plotted without
recomputing, exported as a table, and summarised in the report. Comparisons are
:class:`validation.registry.Check` rows: theory at a simulated point, the simulated mean ± s.e.,
the z-score and a tolerance ``z_max·s.e. + allowance`` (the allowance is a stated finite-size
allowance).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from validation.registry import Check

__all__ = ["Curve", "Points", "RefLine", "FigureData", "compare"]


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
    comparisons: list[Check] = field(default_factory=list)
    table: list[dict] = field(default_factory=list)  # for table items: the rows of the paper's table
    params: dict = field(default_factory=dict)
    caption: str = ""  # parameters and sizes in words (shown under the figure in the report)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-ready: non-finite numbers (gaps in a curve, a missing standard error) become None."""
        d = asdict(self)
        d["comparisons"] = [c.as_row() for c in self.comparisons]
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


def compare(figure: str, quantity: str, params: dict, theory: float, mean: float, se: float, *, d: int,
            allowance: float = 0.0, z_max: float = 3.0, note: str = "") -> Check:
    """A theory-vs-simulation :class:`~validation.registry.Check` for the report's table."""
    return Check(figure, quantity, dict(params), float(theory), float(mean), float(se), allowance=float(allowance),
                 z_max=float(z_max), d=int(d), note=note)
