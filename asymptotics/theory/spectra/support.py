r"""Density, support, edges and the atom at zero of a bulk law.

* **Density** by Stieltjes inversion, ρ(x) = Im m(x + i0)/π, with m on the branch continued from
  large Im z (:mod:`.branch`).
* **Support and edges.** A scan of ρ on a uniform grid over [−0.02, 1.02]·scale (scale: an upper
  bound of the support) gives the intervals where ρ > 10⁻⁸·max ρ; each boundary is bracketed
  between the last grid point outside and the first inside, then located by **bisection on the
  support indicator** (ρ(x) > 10⁻¹⁰·max ρ, from the boundary solve at y = 0; seven interior
  points per bracket and step) to ``tol``·scale (default 10⁻¹² for a pencil, 10⁻⁹ for a mixture),
  and — when the bulk has a fold system (a pencil) — polished by **Newton on
  the fold** F(g; x) = 0, det ∂F/∂g = 0 from the real solution just outside (accepted only
  inside the bisection bracket). Intervals narrower than the scan step can be missed (raise
  ``points``).
* **Atom at zero**: μ({0}) = lim_{y→0} a(y), a(y) = y·Im m(iy) = ∫ y²/(t² + y²) dμ(t), evaluated
  at y = 10⁻³ … 10⁻⁶ (times the scale) on the imaginary axis and extrapolated as
  a(y) = atom + C yᵖ (p = 2 next to a soft edge, p = 1/2 at a hard edge at 0; fitted from the
  successive differences). The difference of two extrapolations is the error estimate; values
  below max(10⁻¹², 2·error) are reported as 0.
* **Mass** of the continuous part: x = a + (b − a)(1 − cos t)/2 on each interval [a, b] (which
  removes the square-root edges) and an adaptive composite Gauss–Legendre rule in t (panels
  refined geometrically towards both ends, then split where the 12- and 24-node values differ);
  it should equal 1 − atom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics.quadrature import legendre_rule
from ...solvers import Status

__all__ = ["Edge", "Support", "density", "find_support", "atom_at_zero", "bulk_mass", "default_grid", "evaluate_bulk"]


@dataclass(frozen=True)
class Edge:
    """One edge of the support.

    Attributes:
        location: the edge.
        side: ``"left"`` or ``"right"`` end of its interval.
        method: ``"fold"`` (Newton on the fold system), ``"bisection"`` or ``"zero"`` (a hard edge at 0).
        bracket: the final bisection bracket (outside, inside).
    """

    location: float
    side: str
    method: str
    bracket: tuple

    def as_dict(self) -> dict:
        return {"location": self.location, "side": self.side, "method": self.method, "bracket": list(self.bracket)}


@dataclass(frozen=True)
class Support:
    """The support of the continuous part and the atom at 0.

    Attributes:
        intervals: ((a₁, b₁), (a₂, b₂), …) in increasing order.
        edges: the :class:`Edge` of each interval end (left, right, left, right, …).
        atom: mass of the atom at 0.
        atom_error: its error estimate.
        scan_points: points of the scan.
        tolerance: the edge tolerance (absolute).
    """

    intervals: tuple
    edges: tuple
    atom: float
    atom_error: float
    scan_points: int
    tolerance: float

    @property
    def right_edge(self) -> float:
        return self.intervals[-1][1]

    def as_dict(self) -> dict:
        return {"intervals": [list(i) for i in self.intervals], "edges": [e.as_dict() for e in self.edges],
                "atom": self.atom, "atom_error": self.atom_error, "scan_points": self.scan_points,
                "tolerance": self.tolerance}


def density(bulk, x):
    """(ρ(x), m(x + i0), AxisSolution): the density of the continuous part at real x (Im m below
    10⁻¹³·|m| is the rounding of a real root and gives ρ = 0; a failed point gives NaN, which the
    callers turn into an error)."""
    m, sol = bulk.stieltjes_axis(np.asarray(x, dtype=float))
    im = np.where(m.imag > 1e-13 * np.abs(m), m.imag, 0.0)  # below: rounding of a real root (outside)
    rho = np.where(sol.status == Status.CONVERGED, im / np.pi, np.nan)
    return rho, m, sol


def _inside(bulk, x, thr):
    rho, _, sol = density(bulk, x)
    sol.raise_on_failure(f"density of {bulk.label}")
    return rho > thr, sol


def _bisect(bulk, out_pts, in_pts, tol, thr, split: int = 8):
    """Shrink every bracket (outside, inside) to ``tol`` by evaluating ``split − 1`` interior points
    per bracket and step (log2(split) bits per step; all brackets in one solve)."""
    a = np.array(out_pts, dtype=float)
    b = np.array(in_pts, dtype=float)
    frac = np.arange(1, split) / split
    for _ in range(200):
        if np.max(np.abs(b - a)) <= tol:
            break
        pts = a[:, None] + (b - a)[:, None] * frac[None, :]
        ins, _ = _inside(bulk, pts.ravel(), thr)
        ins = ins.reshape(pts.shape)
        grid = np.concatenate([a[:, None], pts, b[:, None]], axis=1)
        flags = np.concatenate([np.zeros((a.size, 1), bool), ins, np.ones((a.size, 1), bool)], axis=1)
        k = flags.argmax(axis=1)  # first inside point (≥ 1: the outside end is not inside)
        rows = np.arange(a.size)
        a, b = grid[rows, k - 1], grid[rows, k]
    return a, b


def find_support(bulk, *, points: int = 1500, tol: float | None = None) -> Support:
    """The support of ``bulk`` (see the module docstring)."""
    s = bulk.scale
    x = np.linspace(-0.02 * s, 1.02 * s, int(points))
    x = x[np.abs(x) > 1e-9 * s]
    rho, _, sol = density(bulk, x)
    sol.raise_on_failure(f"density of {bulk.label}")
    thr = 1e-8 * float(np.max(rho))
    ins = rho > thr
    if not np.any(ins):
        raise ValueError(f"{bulk.label}: no continuous part found on [−0.02, 1.02]·{s:g}")
    if ins[-1]:
        raise ValueError(f"{bulk.label}: the density does not vanish at the scan end {x[-1]:g} (scale too small)")
    # interval boundaries on the grid
    starts = np.flatnonzero(ins & ~np.r_[False, ins[:-1]])
    ends = np.flatnonzero(ins & ~np.r_[ins[1:], False])
    out_pts, in_pts, sides = [], [], []
    for i0, i1 in zip(starts, ends, strict=True):
        out_pts += [x[i0 - 1] if i0 > 0 else x[0], x[i1 + 1]]
        in_pts += [x[i0], x[i1]]
        sides += ["left", "right"]
    tol = (1e-12 if hasattr(bulk, "fold") else 1e-9) if tol is None else tol
    abs_tol = tol * s
    thr_b = 1e-10 * float(np.max(rho))
    # a support reaching x ≤ 0 on the grid: a hard edge at 0 when the density is already positive at
    # x = 10⁻⁷·scale (no bisection through the singular point 0), else bisect from there
    zero_edge = [False] * len(sides)
    probe = np.array([1e-7 * s])
    for k in range(len(sides)):
        if sides[k] == "left" and out_pts[k] <= 1e-7 * s:
            if _inside(bulk, probe, thr_b)[0][0]:
                zero_edge[k] = True
                out_pts[k], in_pts[k] = 0.0, float(probe[0])
            else:
                out_pts[k] = float(probe[0])
    todo = [k for k in range(len(sides)) if not zero_edge[k]]
    a = np.array(out_pts, dtype=float)
    b = np.array(in_pts, dtype=float)
    if todo:
        a[todo], b[todo] = _bisect(bulk, a[todo], b[todo], abs_tol, thr_b)
    edges = []
    for k in range(len(sides)):
        loc, method = 0.5 * (a[k] + b[k]), "bisection"
        if zero_edge[k]:
            loc, method = 0.0, "zero"
        elif hasattr(bulk, "fold") and a[k] > 0:
            g_out = bulk.axis(np.array([a[k]])).values[0]
            e, st, _, _ = bulk.fold(a[k], g_out)
            lo, hi = min(a[k], b[k]), max(a[k], b[k])
            if st == Status.CONVERGED and lo - 1e-9 * s <= e <= hi + 1e-9 * s:
                loc, method = e, "fold"
        edges.append(Edge(float(loc), sides[k], method, (float(a[k]), float(b[k]))))
    intervals = tuple((edges[2 * j].location, edges[2 * j + 1].location) for j in range(len(edges) // 2))
    atom, err = atom_at_zero(bulk)
    return Support(intervals, tuple(edges), atom, err, int(points), abs_tol)


def atom_at_zero(bulk) -> tuple:
    """(μ({0}), error estimate) from a(y) = y·Im m(iy) at y = 10⁻³, …, 10⁻⁶ (times the scale),
    extrapolated in y as a(y) = atom + C yᵖ with p fitted from successive differences."""
    s = bulk.scale
    hs = bulk.config.heights(s)
    ys = s * 10.0 ** -np.arange(3.0, 6.5, 1.0)
    ladder = np.unique(np.concatenate([hs[hs > ys[0]], ys]))[::-1]
    a = []
    X, top = None, ladder[0]
    for y in ys:
        seg = ladder[(ladder <= top) & (ladder >= y)]
        X, st = bulk.off_axis(np.zeros(1), seg, X)
        if st[0] != Status.CONVERGED:
            return float("nan"), float("inf")
        a.append(float(y * bulk.m_of(X, 1j * y)[0].imag))
        top = y
    a = np.array(a)

    def extrapolate(a1, a2, a3):
        d1, d2 = a1 - a2, a2 - a3
        if abs(d2) < 1e-14 or d1 * d2 <= 0:
            return a3
        ratio = d1 / d2  # = 10^p per decade
        return a3 - d2 / (ratio - 1) if ratio > 1 + 1e-6 else a3

    e1, e2 = extrapolate(*a[:3]), extrapolate(*a[1:])
    err = abs(e2 - e1) + 1e-15
    atom = 0.0 if abs(e2) < max(1e-12, 2 * err) else min(max(float(e2), 0.0), 1.0)
    return float(atom), float(err)


def _panels():
    """Initial panels on t ∈ [0, π], refined geometrically towards both ends (hard edges)."""
    half = np.concatenate([[0.0], 0.5 * np.pi * 2.0 ** -np.arange(14.0, 0.0, -1.0), [0.5 * np.pi]])
    brk = np.unique(np.concatenate([half, np.pi - half]))
    return brk[:-1], brk[1:]


def bulk_mass(bulk, intervals, nodes: int = 12, tol: float = 1e-10, max_levels: int = 30) -> float:
    """∫ρ over the intervals: x = a + (b − a)(1 − cos t)/2 (which removes square-root edges) and an
    adaptive composite Gauss–Legendre rule in t (``nodes`` and 2·``nodes`` per panel; a panel whose
    two values differ by more than ``tol`` is split in two). At a hard edge at 0 the piece
    [0, 10⁻⁷·scale] is 2ερ(ε) (ρ ∝ 1/√x there)."""
    g1, w1 = legendre_rule(nodes)
    g2, w2 = legendre_rule(2 * nodes)
    total = 0.0
    for a, b in intervals:
        if a == 0.0:  # a hard edge at 0, ρ ≈ C/√x: ∫_0^ε ρ = 2ερ(ε) with ε = 10⁻⁷·scale
            eps = 1e-7 * bulk.scale
            rho_e, _, sol_e = density(bulk, np.array([eps]))
            sol_e.raise_on_failure(f"mass of {bulk.label}")
            total += 2 * eps * float(rho_e[0])
            a = eps

        def integrand(t, a=a, b=b):
            xs = a + (b - a) * (1 - np.cos(t)) / 2
            rho, _, sol = density(bulk, xs)
            sol.raise_on_failure(f"mass of {bulk.label}")
            return rho * (b - a) * np.sin(t) / 2

        lo, hi = _panels()
        for _ in range(max_levels):
            h, c = 0.5 * (hi - lo), 0.5 * (hi + lo)
            t = np.concatenate([(c[:, None] + h[:, None] * g1).ravel(), (c[:, None] + h[:, None] * g2).ravel()])
            f = integrand(t)
            n1 = lo.size * nodes
            q1 = h * (f[:n1].reshape(lo.size, nodes) @ w1)
            q2 = h * (f[n1:].reshape(lo.size, 2 * nodes) @ w2)
            bad = np.abs(q1 - q2) > tol * max(1.0, float(np.sum(np.abs(q2)))) / 64
            total += float(np.sum(q2[~bad]))
            if not np.any(bad):
                break
            lo, hi = np.concatenate([lo[bad], c[bad]]), np.concatenate([c[bad], hi[bad]])
        else:
            total += float(np.sum(q2[bad]))
    return total


def default_grid(support: Support, points: int) -> np.ndarray:
    """``points`` points over the support with 5 % margins (from a small positive x when the
    support starts at 0)."""
    a, b = support.intervals[0][0], support.intervals[-1][1]
    w = b - a
    lo = a - 0.05 * w if a - 0.05 * w > 0 else (0.5 * a if a > 0 else 1e-4 * w)
    return np.linspace(lo, b + 0.05 * w, int(points))


def evaluate_bulk(bulk, x=None, *, points: int = 1000, scan_points: int = 1500) -> dict:
    """Support, grid and density of ``bulk``: a dict with ``support``, ``x``, ``density``,
    ``mass``, ``status`` (worst code), ``residual`` and ``height`` (largest height kept)."""
    from ...errors import ParameterError

    sup = find_support(bulk, points=scan_points)
    if x is None:
        if not (isinstance(points, (int, np.integer)) and 2 <= points <= 10_000_000):
            raise ParameterError("points", points, "an integer in [2, 10000000]")
        xs = default_grid(sup, points)
    else:
        xs = np.atleast_1d(np.asarray(x, dtype=float))
        if xs.ndim != 1 or xs.size == 0 or not np.all(np.isfinite(xs)):
            raise ParameterError("x", x, "a non-empty 1-D grid of finite real numbers")
    # x ≈ 0 is singular (an atom or a hard edge there; the equations cannot be solved to the
    # residual tolerance much closer to 0): |x| ≤ 10⁻⁷·scale outside the support gives ρ = 0 (no
    # solve), at a hard edge at 0 the value at 10⁻⁷·scale is reported
    tiny = 1e-7 * bulk.scale
    near0 = np.abs(xs) <= tiny
    hard = sup.intervals[0][0] <= tiny
    solve_at = ~near0 | hard
    rho = np.zeros(xs.size)
    status, resid, height = 0, 0.0, 0.0
    if np.any(solve_at):
        r, _, sol = density(bulk, np.where(near0, tiny, xs)[solve_at])
        sol.raise_on_failure(f"density of {bulk.label}")
        rho[solve_at] = r
        status, resid, height = int(np.max(sol.status)), float(np.max(sol.residual)), float(np.max(sol.height))
    return {"support": sup, "x": xs, "density": rho, "mass": bulk_mass(bulk, sup.intervals),
            "status": status, "residual": resid, "height": height}
