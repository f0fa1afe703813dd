r"""The large-step risk over a (ψ1, λ) grid: :func:`gaussian_readout_risk_grid`.

Phase diagrams over (ψ1, λ) need many points of :func:`~.risk.gaussian_readout_risk`. Here every
row (one ψ1) is solved level by level of the refinement (:func:`~.risk.risk_row`): one compiled
call per level walks the ridges that still need that level, each starting from the previous
converged ridge (continuation along λ; a failure there is retried from the cold start), and the
tables of each (ψ1, K, n) are computed once. Every point follows exactly the refinement it would
follow alone, so each number equals the single-point call up to the convergence tolerance of the
fixed point (with ``continuation=False``: identically).

>>> g = gaussian_readout_risk_grid("erf", "erf", [4.0, 8.0], [1e-3, 1e-2], psi2=2, noise=0.1, check=False)
>>> g.risk1.shape, [round(float(v), 4) for v in g.risk1[:, 0, 0]]      # R1(∞) = .0625, .0259
((2, 2, 1), [0.0625, 0.0259])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from ....errors import ParameterError
from ....params import check_int, check_nonnegative, check_positive
from .model import DEFAULT_KAPPA_NODES
from .result import GaussianReadoutRisk
from .risk import risk_row, risk_settings

__all__ = ["GaussianReadoutGrid", "gaussian_readout_risk_grid", "MAX_GRID_RESULTS"]

#: the most (ψ1, λ, width) results one call keeps (each holds its functions of κ: ≈ 8 KB at n = 122)
MAX_GRID_RESULTS = 1_000_000


@dataclass(frozen=True)
class GaussianReadoutGrid:
    r"""Results of :func:`gaussian_readout_risk_grid`.

    Attributes:
        psi1, lam: the grid axes (P,), (L,).
        widths: the widths N (``math.inf``: the limit), W of them.
        results: ``results[i][j][k]``: the :class:`~.result.GaussianReadoutRisk` at ψ1[i], λ[j],
            widths[k].
    """

    psi1: np.ndarray
    lam: np.ndarray
    widths: tuple
    results: tuple

    def _field(self, name, fill=math.nan):
        return np.array([[[getattr(r, name) if r.converged else fill for r in cell] for cell in row]
                         for row in self.results], dtype=float)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.psi1.size, self.lam.size, len(self.widths))

    @property
    def risk1(self) -> np.ndarray:
        """R1, shape (P, L, W) (NaN where a point failed)."""
        return self._field("risk1")

    @property
    def train_error(self) -> np.ndarray:
        return self._field("train_error")

    @property
    def converged(self) -> np.ndarray:
        return np.array([[[r.converged for r in cell] for cell in row] for row in self.results], dtype=bool)

    @property
    def status(self) -> np.ndarray:
        """The :class:`~asymptotics.solvers.Status` code of every point, shape (P, L, W)."""
        return np.array([[[int(r.status) for r in cell] for cell in row] for row in self.results], dtype=int)

    def result(self, i: int, j: int, k: int = 0) -> GaussianReadoutRisk:
        return self.results[i][j][k]

    def rows(self) -> list[dict]:
        """One :meth:`~.result.GaussianReadoutRisk.as_dict` row per point, ψ1 slowest, then λ, then N."""
        return [r.as_dict() for row in self.results for cell in row for r in cell]


def _axis(name, values, check) -> np.ndarray:
    vals = np.atleast_1d(np.asarray(values, dtype=float))
    if vals.ndim != 1 or vals.size == 0:
        raise ParameterError(name, values, "a non-empty list of numbers")
    return np.array([check(name, float(v)) for v in vals])


def gaussian_readout_risk_grid(student, teacher, psi1, lam, *, psi2: float, c: float = 1.0, noise: float = 0.0,
                               width=math.inf, readout: str = "hermite", types: int | None = None,
                               readout_values=None, readout_proportions=None,
                               kappa_nodes: int = DEFAULT_KAPPA_NODES, tol: float = 1e-12, type_tol: float = 1e-8,
                               max_types: int = 256, kappa_tol: float = 1e-8, max_kappa_nodes: int = 488,
                               check: bool = True, max_steps: int = 3000, continuation: bool = True,
                               warm_levels: bool = False, on_failure: str = "return", workers: int = 1,
                               initial_columns: str = "unit", gradient: str = "labels",
                               progress: Callable[[int, int], None] | None = None) -> GaussianReadoutGrid:
    r"""R1 after one large step at every (ψ1, λ) of a grid (Gaussian readout, Ba et al. protocol).

    The arguments are those of :func:`~.risk.gaussian_readout_risk` with ``psi1`` and ``lam`` lists
    (the grid axes) and ``width`` a number or a list (every point gets every width). Besides:

    continuation : start each λ from the previous converged one (default); ``False``: every point
        starts cold, as the single-point call does (the same numbers, slower).
    warm_levels : start each level of the refinement (more readout types, more κ nodes) from the
        level before (:func:`~.compiled.transfer_start`; fewer iterations). The numbers then differ
        from the single-point call within the fixed point's tolerance (as with ``continuation``), and
        so do the reported iterations and residuals.
    on_failure : ``"return"`` (default: failed points are results with ``converged=False`` and a
        status) or ``"raise"`` (:class:`~asymptotics.errors.ConvergenceError` at the first one).
    workers : rows (values of ψ1) solved at once in threads (the compiled kernels release the GIL;
        the cGET tables are numpy); the results do not depend on it.
    progress : ``progress(done, total)`` after each ψ1 row, counting (ψ1, λ) points.
    """
    p_axis = _axis("psi1", psi1, check_positive)
    l_axis = _axis("lam", lam, check_nonnegative)
    s = risk_settings(student, teacher, psi2, c=c, noise=noise, width=width, readout=readout, types=types,
                      readout_values=readout_values, readout_proportions=readout_proportions, kappa_nodes=kappa_nodes,
                      tol=tol, type_tol=type_tol,
                      max_types=max_types, kappa_tol=kappa_tol, max_kappa_nodes=max_kappa_nodes, check=check,
                      max_steps=max_steps, on_failure=on_failure, warm_levels=warm_levels, initial_columns=initial_columns,
                      gradient=gradient)
    total = p_axis.size * l_axis.size
    if total * len(s.widths) > MAX_GRID_RESULTS:
        raise ParameterError("psi1 × lam × width", total * len(s.widths),
                             f"at most {MAX_GRID_RESULTS} results in one call (split the grid)")
    workers = check_int("workers", workers, 1)

    def row(p1):
        return tuple(tuple(cell) for cell in risk_row(s, float(p1), l_axis.tolist(), continuation=continuation))

    rows = [None] * p_axis.size
    if workers == 1 or p_axis.size == 1:
        for i, p1 in enumerate(p_axis):
            rows[i] = row(p1)
            if progress is not None:
                progress((i + 1) * l_axis.size, total)
    else:
        # the first row in this thread: it loads (and on a cold cache compiles) the kernels and the
        # generated modules once, before the threads need them
        rows[0] = row(p_axis[0])
        if progress is not None:
            progress(l_axis.size, total)
        with ThreadPoolExecutor(max_workers=min(workers, p_axis.size - 1)) as pool:
            futures = {pool.submit(row, p1): i for i, p1 in enumerate(p_axis) if i > 0}
            for done, fut in enumerate(as_completed(futures), start=2):
                rows[futures[fut]] = fut.result()
                if progress is not None:
                    progress(done * l_axis.size, total)
    return GaussianReadoutGrid(p_axis, l_axis, s.widths, tuple(rows))
