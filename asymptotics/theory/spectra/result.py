r"""What a spectrum computation returns: a frozen result with the density on a grid, the
support and its edges, the atom at zero, the outliers with their eigenvector overlaps, and how
it was solved.

``SpectrumResult.rows()`` are the json rows ``{x, density}``; ``SpectrumResult.meta()`` the json
metadata ``support`` (list of intervals), ``atom``, ``outliers`` (list of
``{location, overlaps: {...}, …}``), ``edges``, ``mass``, ``status``, ``residual``, ``law``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...solvers import Status
from .support import Support

__all__ = ["Outlier", "SpectrumResult"]


@dataclass(frozen=True)
class Outlier:
    """One eigenvalue outside the bulk and its eigenvector.

    Attributes:
        location: the limit of the eigenvalue; at the large step the value at the given width N
            (``None`` when the width is infinite: the eigenvalue grows like N).
        overlaps: squared overlaps of the eigenvector with the named directions (see the docs of
            :func:`~.weights.weights_spectrum` and :func:`~.ck.ck_spectrum` for each name).
        strength: the spike strength that makes it (θ², the population spike ℓ, or the kernel
            eigenvalue λ at the large step).
        threshold: the strength at which it leaves the bulk (BBP), when one exists.
        location_per_width: lim λ/N at the large step (``None`` at η = Θ(1)).
        order: ``"1"`` (η = Θ(1): the location is O(1)) or ``"N"`` (the large step).
        formula: the equation that gives it.
    """

    location: float | None
    overlaps: dict
    strength: float
    threshold: float | None = None
    location_per_width: float | None = None
    order: str = "1"
    formula: str = ""

    def as_dict(self) -> dict:
        out = {"location": self.location, "overlaps": dict(self.overlaps), "strength": self.strength,
               "threshold": self.threshold, "order": self.order, "formula": self.formula}
        if self.location_per_width is not None:
            out["location_per_width"] = self.location_per_width
        return out


@dataclass(frozen=True)
class SpectrumResult:
    """The limiting spectrum of one matrix at one parameter point.

    Attributes:
        matrix: ``"weights"`` (W₁ᵀW₁, N×N) or ``"ck"`` ((1/n)FᵀF, N×N).
        protocol, regime: ``"ba"``/``"cui"``, ``"small"``/``"large"``.
        before: True for the matrix before the step (W₀, the random-features CK).
        equivalence: ``"gaussian"`` or ``"conditional"`` (the CK's feature model; ``""`` for weights).
        x, density: the grid and the density of the continuous part, ρ(x) = Im m(x + i0)/π.
        support: the :class:`~.support.Support` (intervals, edges, atom at 0).
        outliers: the :class:`Outlier` s, largest first.
        mass: ∫ρ over the support (= 1 − atom up to the quadrature error).
        status: worst :class:`~asymptotics.solvers.Status` code over the grid.
        residual: largest solver residual over the grid.
        height: largest Im z at which a grid value was kept (0: every value is the boundary value).
        law: description of the bulk (pencil system or mixture, and its parameters).
        parameters: the step (protocol parameters and activations).
        notes: caveats (e.g. a non-odd σ for the Gaussian-equivalent CK).
    """

    matrix: str
    protocol: str
    regime: str
    before: bool
    equivalence: str
    x: np.ndarray
    density: np.ndarray
    support: Support
    outliers: tuple
    mass: float
    status: int
    residual: float
    height: float
    law: dict
    parameters: dict
    notes: tuple = field(default_factory=tuple)

    @property
    def atom(self) -> float:
        return self.support.atom

    @property
    def edges(self) -> tuple:
        """All edges, in increasing order."""
        return tuple(e.location for e in self.support.edges)

    @property
    def converged(self) -> bool:
        return self.status == Status.CONVERGED

    def rows(self) -> list:
        """json rows ``{x, density}``."""
        return [{"x": float(a), "density": float(b)} for a, b in zip(self.x, self.density, strict=True)]

    def meta(self) -> dict:
        """json metadata (see the module docstring)."""
        return {
            "matrix": self.matrix, "protocol": self.protocol, "regime": self.regime, "before": self.before,
            "equivalence": self.equivalence or None,
            "support": [list(i) for i in self.support.intervals], "atom": self.support.atom,
            "atom_error": self.support.atom_error, "edges": [e.as_dict() for e in self.support.edges],
            "edge_tolerance": self.support.tolerance,
            "outliers": [o.as_dict() for o in self.outliers], "mass": self.mass,
            "status": Status(self.status).label, "residual": self.residual, "height": self.height,
            "law": self.law, "parameters": self.parameters, "notes": list(self.notes),
        }
