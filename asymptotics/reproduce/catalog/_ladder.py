"""The d → ∞ extrapolation of a ladder of d inside a reproduce item (the ``validate --finite-size``
machinery, :mod:`validation.finite_size.fit`): per-seed values at each d → the weighted fit
L + b·d^{-ω} (Akaike-averaged over ω and a second term where the ladder allows it, the limit's
unconditional s.e.) → one comparison of L against the d → ∞ theory, |L − theory| ≤ 3 s.e. and
nothing added.

The comparison is judged when every rung has at least MIN_SEEDS seeds, there are at least three
rungs (one degree of freedom), and the fit is acceptable (p ≥ 0.01, the F test with the seeds'
degrees of freedom); otherwise it is *not judged* with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..data import EXTRAPOLATION, Curve, Points, RefLine, compare

__all__ = ["Ladder", "extrapolated", "ladder_series", "convergence_x", "convergence_label"]


def convergence_x(dims) -> list[float]:
    """The abscissa of a convergence panel: d^{-1/2} (d → ∞ at 0)."""
    return [float(d) ** -0.5 for d in dims]


def convergence_label(dims) -> str:
    """``1/√d (d = 200, 283, 400; d → ∞ at 0)``."""
    return f"1/√d  (d = {', '.join(str(int(d)) for d in dims)}; d → ∞ at 0)"


@dataclass(frozen=True)
class Ladder:
    """What an extrapolation produced: the ladder's means and s.e., the limit ± s.e., the fit's
    p-value, its rule, and the fitted curve (``fit_d``, ``fit_y``)."""

    dims: tuple[int, ...]
    means: tuple[float, ...]
    ses: tuple[float, ...]
    limit: float
    limit_se: float
    p_value: float
    rule: str
    fit_d: tuple[float, ...] = ()
    fit_y: tuple[float, ...] = ()


def _stats(values):
    v = np.asarray(list(values), float)
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
    return float(v.mean()), se, int(v.size)


def extrapolated(fig, quantity: str, where: dict, dims, per_d, theory: float, *, omegas=(0.5, 1.0),
                 panel: int | None = None, group: int = 0, label: str = "", fit_curve: bool = True) -> Ladder | None:
    """Append the comparison of the extrapolated limit of ``per_d`` (one list of per-seed values per
    d of ``dims``) with the d → ∞ ``theory``; with ``panel`` (a convergence panel whose x is d^{-1/2},
    :func:`convergence_x`), also draw the limit ± s.e. at x = 0 and (``fit_curve``) the fitted curve
    (dash-dot). Returns the :class:`Ladder` (None when there is nothing to fit)."""
    from validation.finite_size.fit import extrapolate

    stats = [_stats(v) for v in per_d]
    means, ses, counts = (np.array([s[k] for s in stats]) for k in range(3))
    dims = np.asarray(dims, float)
    seeds = int(counts.min()) if counts.size else 0
    ok = np.isfinite(means) & np.isfinite(ses) & (ses > 0)
    reason = ""
    if dims.size < 3:
        reason = f"only {dims.size} dimension(s) in the ladder (≥ 3 needed to extrapolate)"
    elif not ok.all():
        reason = "a rung without a finite mean or standard error"
    if reason:
        fig.comparisons.append(compare(fig.name, f"{quantity} (limit d → ∞)", where, theory, math.nan, math.nan,
                                       d=int(dims.max()) if dims.size else None, seeds=seeds, method=EXTRAPOLATION,
                                       reason=reason))
        return None
    ex = extrapolate(dims, means, ses, omegas=omegas, max_terms=2, variance_dof=float(np.sum(counts - 1)))
    best = ex.best
    p = float(best.p_value) if best.p_value is not None else math.nan
    why = ""
    if math.isfinite(p) and p < 0.01:
        why = f"the extrapolation model does not fit the ladder (p = {p:.2g} < 0.01)"
    fig.comparisons.append(compare(fig.name, f"{quantity} (limit d → ∞)", where, theory, ex.limit, ex.limit_se,
                                   d=int(dims.max()), seeds=seeds, method=EXTRAPOLATION, reason=why,
                                   note=f"d = {', '.join(str(int(x)) for x in dims)}; {ex.rule}; fit p = {p:.2g}"))
    # the convergence panel: x = d^{-1/2}, so that d → ∞ is x = 0 where the limit is drawn
    grid_x = np.linspace(0.0, dims.min() ** -0.5, 41)
    with np.errstate(divide="ignore"):
        fit_y = _fitted(ex, np.where(grid_x > 0, grid_x, 0.0) ** -2.0)
    lad = Ladder(tuple(int(x) for x in dims), tuple(means), tuple(ses), ex.limit, ex.limit_se, p, ex.rule,
                 tuple(grid_x), tuple(fit_y))
    if panel is not None:
        if fit_curve:
            fig.curves.append(Curve(f"{label}fit L + b·d^-ω", grid_x, fit_y, quantity, style="-.", group=group,
                                    panel=panel))
        fig.points.append(Points(f"{label}limit d → ∞: {ex.limit:.4g} ± {ex.limit_se:.2g}", [0.0], [ex.limit],
                                 [ex.limit_se], quantity, group=group, panel=panel))
    return lad


def _fitted(ex, grid) -> np.ndarray:
    """The Akaike-weighted fitted curve at ``grid``."""
    y = np.zeros_like(grid)
    for f, w in zip(ex.fits, ex.weights, strict=True):
        y += w * (f.model.design(grid) @ np.asarray(f.coef, float))
    return y



def ladder_series(fig, quantity: str, name: str, where: dict, dims, per_d, theory: float, *, panel: int, group: int,
                  seeds: int, omegas=(0.5, 1.0), fit_curve: bool = True) -> Ladder | None:
    """One quantity on a convergence panel: its mean ± s.e. at each d against d^{-1/2}, the d → ∞ theory
    (dashed), the fit and its limit at 0, and the judged comparison (:func:`extrapolated`)."""
    stats = [_stats(v) for v in per_d]
    fig.points.append(Points(f"{name} ({seeds} seeds per d)", convergence_x(dims), [s[0] for s in stats],
                             [s[1] for s in stats], quantity, group=group, panel=panel))
    fig.lines.append(RefLine("bound", theory, f"theory {theory:.4g}", group=group, panel=panel))
    return extrapolated(fig, quantity, where, dims, per_d, theory, omegas=omegas, panel=panel, group=group,
                        label=f"{name}: ", fit_curve=fit_curve)
