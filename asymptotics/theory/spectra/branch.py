r"""Stieltjes transforms on the real axis by continuation from large Im z (the explicit branch).

A self-consistent equation F(g; z) = 0 derived from a linear pencil has several solutions at a
given z; the Stieltjes transform of a probability law is the one that is analytic on ℂ₊, behaves
like the large-|z| limit g = q0⁻¹ (e.g. m(z) ≈ −1/z) and has Im m > 0. This module follows that
solution **continuously from a height where the large-|z| start is exact** down to the real axis:

* for each real x of a grid, the heights y_k = Y₀·r^k (Y₀ = ``start_height``·scale, geometric
  ratio r = ``ratio``) down to y_f = ``final_height``·scale; at each height Newton (or the level
  solver given) starts from the solution of the previous height at the same x;
* a level that fails from its predecessor is split at the geometric midpoint, at most
  ``max_refinements`` times (the ladder and its splitting are the plain-Python continuation
  :func:`asymptotics.solvers.continuation.follow_ladder`; this module gives it the heights, the
  level solve and the branch test);
* at every height the **branch test** Im g ≥ −tol is checked for the traces named in ``signs``
  (a Stieltjes trace has Im g > 0 on ℂ₊); leaving it is reported as a failure, never passed on;
* points with |x| < 10⁴·y_f (next to a hard edge or an atom at 0) continue further, to 10⁻⁶·|x|
  (when a step of that descent fails, the value at the last height reached is kept, and reported);
* finally one solve at y = 0 itself (the boundary value g(x + i0)) from the y_f solution; it is
  kept when it converges and stays on the branch (inside the support the conjugate root lies far
  away, outside the real root is reached), otherwise the y_f value is kept and its height
  reported.

The density of the law with transform m then follows by Stieltjes inversion,
ρ(x) = Im m(x + i0)/π.

Each call returns an :class:`AxisSolution` with the status code of every point
(:class:`asymptotics.solvers.Status`), its residual and the height of the value kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...solvers import Status
from ...solvers.continuation import follow_ladder

__all__ = [
    "BranchContinuation",
    "AxisSolution",
    "compiled_level_solver",
    "continue_to_axis",
    "continue_down",
    "real_axis_solve",
]


@dataclass(frozen=True)
class BranchContinuation:
    """Settings of the continuation in Im z (all heights in units of ``scale``, the size of the
    spectrum).

    Attributes:
        start_height: Y₀/scale, where the large-|z| start q0⁻¹ is used (default 10).
        ratio: geometric ratio between successive heights, in (0, 1) (default 0.1).
        final_height: y_f/scale, the last height before the boundary solve at y = 0 (default 1e-10).
        boundary: whether to solve at y = 0 itself after y_f (default True).
        atol, rtol: residual tolerances of each solve (``|F_i| <= atol + rtol·s_i``, s_i the size of
            equation i's terms; tight, because near an edge g is known only to about the square
            root of the residual).
        max_steps: Newton steps per solve.
        max_refinements: how often a failed level may be split in two.
        branch_tol: tolerance of the branch test Im g ≥ −branch_tol·max(1, |g|).
    """

    start_height: float = 10.0
    ratio: float = 0.1
    final_height: float = 1e-10
    boundary: bool = True
    atol: float = 1e-15
    rtol: float = 1e-14
    max_steps: int = 60
    max_refinements: int = 6
    branch_tol: float = 1e-10

    def __post_init__(self):
        if not (0 < self.ratio < 1):
            raise ParameterError("ratio", self.ratio, "in (0, 1)")
        if not (self.start_height > self.final_height > 0):
            raise ParameterError("final_height", self.final_height, f"in (0, start_height={self.start_height})")
        if not (isinstance(self.max_steps, int) and self.max_steps >= 1):
            raise ParameterError("max_steps", self.max_steps, "an integer >= 1")

    def heights(self, scale: float) -> np.ndarray:
        """The decreasing heights Y₀, Y₀r, …, down to (and including) y_f."""
        y0, yf = self.start_height * scale, self.final_height * scale
        k = int(np.ceil(np.log(yf / y0) / np.log(self.ratio)))
        return np.concatenate([y0 * self.ratio ** np.arange(k), [yf]])


@dataclass(frozen=True)
class AxisSolution:
    """Solutions on the real axis (one row per grid point).

    Attributes:
        x: the real points.
        values: the unknowns at x + i·height (complex, shape (n, unknowns)).
        status: :class:`~asymptotics.solvers.Status` code of each point (0 = converged on the branch).
        residual: residual of the kept solution (the solver's scaled residual).
        height: the imaginary part of the z at which ``values`` was solved (0 for the boundary value).
        unknowns: names of the unknowns (columns of ``values``).
    """

    x: np.ndarray
    values: np.ndarray
    status: np.ndarray
    residual: np.ndarray
    height: np.ndarray
    unknowns: tuple

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[:, self.unknowns.index(name)]

    @property
    def converged(self) -> bool:
        return bool(np.all(self.status == Status.CONVERGED))

    def raise_on_failure(self, what: str) -> None:
        """Raise :class:`ConvergenceError` naming the first failed point."""
        bad = np.flatnonzero(self.status != Status.CONVERGED)
        if bad.size:
            i = int(bad[0])
            st = Status(int(self.status[i]))
            raise ConvergenceError(
                f"{what}: {bad.size} of {self.status.size} point(s) failed ({st.message}); first at "
                f"x = {self.x[i]:.6g} (height {self.height[i]:.3g}, residual {self.residual[i]:.3g})", self)


#: a level solver: (z (n,) complex, start (n, k) complex) → (values, status, residual)
LevelSolver = Callable[[np.ndarray, np.ndarray], tuple]


def compiled_level_solver(system, params: dict, config: BranchContinuation | None = None) -> tuple:
    """(solver, start) for a compiled system (:class:`asymptotics.solvers.CompiledSystem`) whose
    parameter ``z`` is the spectral variable; the other parameters are fixed to ``params``.

    ``start(z)`` gives the system's large-|z| start values (q0⁻¹ on the support of the pencil)."""
    cfg = config or BranchContinuation()
    names = tuple(system.parameters)
    if "z" not in names:
        raise ParameterError("system", system.name, "a system with the spectral parameter z")
    missing = [p for p in names if p != "z" and p not in params]
    if missing:
        raise ParameterError("params", sorted(params), f"values for {', '.join(missing)}")
    mod = system.module
    fixed = [complex(params[p]) if p != "z" else 0j for p in names]
    iz = names.index("z")

    def grid(z):
        P = np.empty((z.size, len(names)), dtype=np.complex128)
        P[:] = fixed
        P[:, iz] = z
        return P

    def solve(z, X0):
        z = np.ascontiguousarray(z, dtype=np.complex128)
        P = grid(z)
        with np.errstate(all="ignore"):
            X, st, _, res, _ = mod.solve_grid(np.ascontiguousarray(X0, dtype=np.complex128), P, cfg.atol, cfg.rtol,
                                              cfg.max_steps, False, -1, 0j, 1)
        return X, st.astype(np.int64), res

    def start(z):
        P = grid(np.ascontiguousarray(z, dtype=np.complex128))
        return np.array([mod.start(P[i]) for i in range(P.shape[0])], dtype=np.complex128).reshape(z.size, -1)

    return solve, start


def _on_branch(X, signs, tol):
    if not signs:
        return np.ones(X.shape[0], dtype=bool)
    ok = np.ones(X.shape[0], dtype=bool)
    for j, s in signs.items():
        g = X[:, j]
        ok &= s * g.imag >= -tol * np.maximum(1.0, np.abs(g))
    return ok


def _geometric_midpoint(h_from, h_to):
    return np.sqrt(h_from * h_to)


def _rungs(solve, x, signs, cfg):
    """(solve_at, accept) of the ladder in Im z (:func:`asymptotics.solvers.continuation.advance`):
    the rows of x solved at heights h, accepted when finite and on the branch."""

    def solve_at(rows, h, X):
        return solve(x[rows] + 1j * h, X)

    def accept(X):
        return np.all(np.isfinite(X), axis=1) & _on_branch(X, signs, cfg.branch_tol)

    return solve_at, accept


def continue_down(solve, start, x, heights, signs: dict | None = None, config: BranchContinuation | None = None,
                  X0=None):
    """Follow the branch along vertical lines x + iy through the decreasing ``heights`` (> 0).

    Returns (values at the last height, status, residual). ``signs`` maps column indices of the
    unknowns to +1/−1: the sign Im g must have (branch test). ``X0``: values already on the
    branch at the first height (default: the large-|z| start there)."""
    cfg = config or BranchContinuation()
    x = np.asarray(x, dtype=float)
    hs = np.asarray(heights, dtype=float)
    X = start(x + 1j * hs[0]) if X0 is None else np.asarray(X0, dtype=np.complex128)
    X, st, res = solve(x + 1j * hs[0], X)
    status = np.where(st == Status.CONVERGED, Status.CONVERGED, st).astype(np.int64)
    good = (status == Status.CONVERGED) & _on_branch(X, signs or {}, cfg.branch_tol)
    status[~good & (status == Status.CONVERGED)] = Status.UNRESOLVED
    alive = np.flatnonzero(status == Status.CONVERGED)
    if alive.size and hs.size > 1:
        solve_at, accept = _rungs(solve, x, signs or {}, cfg)
        ladder = np.repeat(hs[:, None], alive.size, axis=1)
        X[alive], status[alive], res[alive], _ = follow_ladder(solve_at, accept, alive, X[alive], res[alive], ladder,
                                                               _geometric_midpoint, cfg.max_refinements)
    return X, status, res


def continue_to_axis(solve, start, x, scale: float, unknowns: tuple, signs: dict | None = None,
                     config: BranchContinuation | None = None) -> AxisSolution:
    """The branch on the real axis at the points ``x`` (see the module docstring)."""
    cfg = config or BranchContinuation()
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ParameterError("x", "grid", "a 1-D array of finite real numbers")
    if not (np.isfinite(scale) and scale > 0):
        raise ParameterError("scale", scale, "> 0")
    hs = cfg.heights(scale)
    X, status, res = continue_down(solve, start, x, hs, signs, cfg)
    height = np.full(x.size, hs[-1])
    # points close to 0 (a hard edge or an atom there): descend further, to 10⁻⁶·|x|
    near = (status == Status.CONVERGED) & (hs[-1] > 1e-4 * np.abs(x)) & (np.abs(x) > 1e-12 * scale)
    if np.any(near):
        idx = np.flatnonzero(near)
        target = 1e-6 * np.abs(x[idx])
        steps = int(np.ceil(np.max(np.log(hs[-1] / target) / -np.log(cfg.ratio))))
        ladder = np.vstack([np.full(idx.size, hs[-1])] + [hs[-1] * (target / hs[-1]) ** (k / steps)
                                                          for k in range(1, steps + 1)])
        solve_at, accept = _rungs(solve, x, signs or {}, cfg)
        # a failed rung stops the descent; the value at the last height reached is kept
        X[idx], _, res[idx], height[idx] = follow_ladder(solve_at, accept, idx, X[idx], res[idx], ladder,
                                                         _geometric_midpoint, cfg.max_refinements, keep_last=True)
    if cfg.boundary:
        ok = (status == Status.CONVERGED) & (np.abs(x) > 1e-12 * scale)
        if np.any(ok):
            Xb, stb, resb = solve(x[ok] + 0j, X[ok])
            keep = (stb == Status.CONVERGED) & np.all(np.isfinite(Xb), axis=1) & _on_branch(Xb, signs or {}, cfg.branch_tol)
            idx = np.flatnonzero(ok)[keep]
            X[idx] = Xb[keep]
            res[idx] = resb[keep]
            height[idx] = 0.0
    return AxisSolution(x=x, values=X, status=status, residual=res, height=height, unknowns=tuple(unknowns))


def real_axis_solve(system, params: dict, x, *, far: float, config: BranchContinuation | None = None):
    """The real solution at real points ``x`` outside the support, to the right of it, reached
    by continuation along the real axis from ``far`` (≫ the spectrum, where the start q0⁻¹ is
    exact) through a ladder of points whose distance to each x halves (compiled warm-started
    Newton; the branch may end at a fold, the edge, just left of x).

    Returns (values (n, k) real, status, residual)."""
    cfg = config or BranchContinuation()
    x = np.asarray(x, dtype=float)
    names = tuple(system.parameters)
    iz = names.index("z")
    order = np.argsort(-x)
    xs = x[order]
    # a ladder to each point whose distance to it halves (the branch may end at a fold just left of it)
    pts, marks, prev = [far], [], far
    for xi in xs:
        gap = prev - xi
        if gap > 0:
            k = int(np.ceil(np.log2(max(gap / (1e-13 * max(1.0, abs(xi))), 1.0))))
            pts += list(xi + gap * 0.5 ** np.arange(1, min(k, 60) + 1))
        marks.append(len(pts))
        pts.append(xi)
        prev = xi
    pts = np.asarray(pts)
    P = np.empty((pts.size, len(names)))
    for j, p in enumerate(names):
        P[:, j] = pts if j == iz else float(params[p])
    mod = system.module
    X0 = np.ascontiguousarray(mod.start(P[0])[None, :])
    with np.errstate(all="ignore"):
        X, st, _, res, _ = mod.solve_grid(X0, np.ascontiguousarray(P), cfg.atol, cfg.rtol, cfg.max_steps, True, -1, 0.0, 1)
    idx = np.asarray(marks)
    out = np.empty((x.size, X.shape[1]))
    out[order] = X[idx]
    status = np.empty(x.size, dtype=np.int64)
    status[order] = st[idx]
    resid = np.empty(x.size)
    resid[order] = res[idx]
    return out, status, resid
