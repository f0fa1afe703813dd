r"""The bulk law of a Gram matrix: its Stieltjes transform at complex z, on the real axis and to
the right of the support.

A bulk is described by the level solver of its self-consistent equations (a compiled pencil
system, or the κ-mixture solver of :mod:`.mixture`), the unknown that carries the Stieltjes
transform m(z) = ∫ρ(dt)/(t − z) of the N×N matrix, and a scale (an upper bound of the support)
that sets the heights of the continuation (:mod:`.branch`).

:class:`PencilBulk` is the bulk of a registered pencil system; it also knows the z-derivative
system (for the outlier equations) and the fold system (for the edges).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...errors import ParameterError
from ...solvers import compile_system
from .branch import (
    AxisSolution,
    BranchContinuation,
    compiled_level_solver,
    continue_down,
    continue_to_axis,
    real_axis_solve,
)

__all__ = ["BranchBulk", "PencilBulk", "RealTransforms"]


@dataclass(frozen=True)
class RealTransforms:
    """m, m', and the companion transform m̲, m̲' (of the other side of the Gram) at real points
    to the right of the support (all real; status per point).

    Attributes:
        x: the points.
        m, dm: Stieltjes transform of the N×N law and its derivative.
        m_other, dm_other: the transform of the other side (W₀W₀ᵀ for the weights, FFᵀ/n for the CK).
        status, residual: per point.
    """

    x: np.ndarray
    m: np.ndarray
    dm: np.ndarray
    m_other: np.ndarray
    dm_other: np.ndarray
    status: np.ndarray
    residual: np.ndarray


class BranchBulk:
    """What every bulk provides on top of its level solver (``_solver`` = (solve, start)),
    ``unknowns``, ``signs``, ``scale``, ``label``, ``config`` and :meth:`m_of`: the traces on
    the real axis and off it, by continuation from large Im z (:mod:`.branch`)."""

    def axis(self, x) -> AxisSolution:
        """The traces at x + i0 (continuation from large Im z)."""
        solve, start = self._solver
        return continue_to_axis(solve, start, x, self.scale, self.unknowns, self.signs, self.config)

    def off_axis(self, x, heights, X0=None) -> tuple:
        """The traces at x + i·heights[-1] by continuation through ``heights`` (from ``X0`` at
        heights[0] when given): (values, status)."""
        solve, start = self._solver
        X, st, _ = continue_down(solve, start, x, heights, self.signs, self.config, X0)
        return X, st

    def stieltjes_axis(self, x) -> tuple:
        """(m(x + i0), AxisSolution)."""
        sol = self.axis(x)
        z = sol.x + 1j * sol.height
        return self.m_of(sol.values, z), sol


@dataclass(frozen=True)
class PencilBulk(BranchBulk):
    """The bulk law of a registered pencil system (see :mod:`.pencils`).

    Attributes:
        system: name of the registered system in (g11, g22) with spectral parameter z.
        params: values of its other parameters.
        main: which trace gives m(z) of the N×N matrix: ``"g11"`` or ``"g22/z"``.
        scale: an upper bound of the support (sets the continuation heights and the scan range).
        label: what the law is (for messages and metadata).
        config: the continuation settings.
    """

    system: str
    params: dict
    main: str
    scale: float
    label: str
    config: BranchContinuation = field(default_factory=BranchContinuation)

    def __post_init__(self):
        if self.main not in ("g11", "g22/z"):
            raise ParameterError("main", self.main, "'g11' or 'g22/z'")
        if not (np.isfinite(self.scale) and self.scale > 0):
            raise ParameterError("scale", self.scale, "> 0")

    # ------------------------------------------------------------------ compiled pieces
    @cached_property
    def compiled(self):
        return compile_system(self.system)

    @cached_property
    def compiled_dz(self):
        return compile_system(self.system + "_dz")

    @cached_property
    def compiled_edges(self):
        return compile_system(self.system + "_edges")

    @cached_property
    def _solver(self):
        return compiled_level_solver(self.compiled, self.params, self.config)

    @property
    def unknowns(self) -> tuple:
        return tuple(self.compiled.unknowns)

    @property
    def signs(self) -> dict:
        """Both traces are Stieltjes-like (Im ≥ 0 on ℂ₊: g11 = m, g22 = z m̲ with t ≥ 0)."""
        return {0: 1, 1: 1}

    def m_of(self, values: np.ndarray, z) -> np.ndarray:
        """m(z) of the N×N law from the traces."""
        if self.main == "g11":
            return values[:, 0]
        return values[:, 1] / z

    def m_other_of(self, values: np.ndarray, z) -> np.ndarray:
        """The transform of the other side of the Gram."""
        if self.main == "g11":
            return values[:, 1] / z
        return values[:, 0]

    # ------------------------------------------------------------------ evaluation
    def real_transforms(self, x) -> RealTransforms:
        """m, m', m̲, m̲' at real x right of the support (continuation along the real axis)."""
        x = np.asarray(x, dtype=float)
        if np.any(x <= 0):
            raise ParameterError("x", float(np.min(x)), "> 0 (to the right of the support)")
        cs = self.compiled_dz
        vals, st, res = real_axis_solve(cs, self.params, x, far=1e3 * self.scale + float(np.max(x)), config=self.config)
        names = cs.unknowns
        g1, g2 = vals[:, names.index("g11")], vals[:, names.index("g22")]
        d1, d2 = vals[:, names.index("dg11_dz")], vals[:, names.index("dg22_dz")]
        # g22 = z·m̲ ⇒ m̲ = g22/z, m̲' = g22'/z − g22/z²
        if self.main == "g11":
            m, dm, mo, dmo = g1, d1, g2 / x, d2 / x - g2 / x**2
        else:
            m, dm, mo, dmo = g2 / x, d2 / x - g2 / x**2, g1, d1
        return RealTransforms(x, m, dm, mo, dmo, st, res)

    def real_values(self, x) -> tuple:
        """(m, m_other, status) at real x right of the support, from the plain system (no
        derivative unknowns: well conditioned up to the fold itself)."""
        x = np.asarray(x, dtype=float)
        cs = self.compiled
        vals, st, _ = real_axis_solve(cs, self.params, x, far=1e3 * self.scale + float(np.max(x)), config=self.config)
        return self.m_of(vals, x), self.m_other_of(vals, x), st

    def fold(self, x_start: float, g_start) -> tuple:
        """Newton on the fold system from (g_start, x_start): (edge, status, residual, values),
        ``values`` the (m, m_other) at the edge."""
        cs = self.compiled_edges
        names = cs.unknowns
        x0 = np.empty(len(names))
        x0[names.index("g11")], x0[names.index("g22")] = np.real(g_start[0]), np.real(g_start[1])
        x0[names.index("z")] = x_start
        p = np.array([float(self.params[k]) for k in cs.parameters])
        with np.errstate(all="ignore"):
            # tight: at a fold the unknowns are known only to about the square root of the residual
            x, st, _, res, _floor = cs.module.newton(x0, p, 1e-300, 1e-16, 60)
        e = float(x[names.index("z")])
        g = np.array([[x[names.index("g11")], x[names.index("g22")]]])
        return e, int(st), float(res), (float(self.m_of(g, e)[0]), float(self.m_other_of(g, e)[0]))

    def as_dict(self) -> dict:
        return {"system": self.system, "parameters": {k: float(v) for k, v in self.params.items()},
                "transform": self.main, "law": self.label}

