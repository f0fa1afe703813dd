"""What the spectrum items share: the empirical histogram as simulation points, the theoretical
density as a curve, edges and outliers as reference lines, and seed statistics."""

from __future__ import annotations

import math

import numpy as np

from ..data import INFINITE, Curve, Points, RefLine, compare

__all__ = ["seed_stats", "histogram_points", "density_curve", "mark_spectrum", "compare_seeds"]


def seed_stats(values) -> tuple[float, float]:
    """Mean and standard error over seeds (NaN s.e. for one seed)."""
    v = np.asarray(list(values), float)
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
    return float(v.mean()), se


def histogram_points(measurements, name: str, edges, label: str, *, d: int, group: int = 1, panel: int = 0,
                     scale: float = 1.0) -> Points:
    """The seed-averaged histogram density of matrix ``name`` (counts/(N·width)) at the bin centres,
    ± its s.e. over seeds; ``scale`` divides the eigenvalues first (λ/N at the large step)."""
    from validation.simulator.spectrum import pooled_histogram

    edges = np.asarray(edges, float)
    if scale == 1.0:
        mean, se = pooled_histogram(measurements, name, edges)
    else:
        dens = [np.histogram(m[name].eigenvalues / scale, edges)[0] / (m[name].size * np.diff(edges))
                for m in measurements]
        mean = np.mean(dens, axis=0)
        se = np.std(dens, axis=0, ddof=1) / math.sqrt(len(dens)) if len(dens) > 1 else np.full(mean.size, math.nan)
    centres = 0.5 * (edges[1:] + edges[:-1])
    return Points(label, centres, mean, se, f"density_{name}", d=d, seeds=len(measurements), group=group, panel=panel)


def density_curve(result, label: str, *, group: int = 0, panel: int = 0, style: str = "-") -> Curve:
    """The limiting density ρ(x) of a :class:`~asymptotics.theory.spectra.SpectrumResult`."""
    return Curve(label, result.x, result.density, f"density_{result.matrix}", group=group, panel=panel, style=style)


def mark_spectrum(fig, result, *, panel: int = 0, group: int = 0, what: str = "", outliers: bool = True) -> None:
    """Dotted verticals at the support's edges (grey) and, with ``outliers``, at the outliers (coloured)
    of ``result``."""
    for e in result.edges:
        if e > 1e-9:
            fig.lines.append(RefLine("threshold", e, f"{what}edge {e:.3f}", panel=panel))
    for o in result.outliers if outliers else ():
        if o.location is not None:
            fig.lines.append(RefLine("threshold", o.location, f"{what}outlier {o.location:.3f}", group=group,
                                     panel=panel))


def compare_seeds(fig, quantity: str, where: dict, theory: float, values, *, d: int, method: str = INFINITE,
                  reason: str = "", note: str = "") -> None:
    """One theory-vs-simulation row from per-seed values (``method`` and ``reason`` as in
    :func:`asymptotics.reproduce.data.compare`: the d → ∞ theory at one d is reported, not judged)."""
    m, se = seed_stats(values)
    if not (math.isfinite(m) and math.isfinite(theory)):
        return
    fig.comparisons.append(compare(fig.name, quantity, where, theory, m, se if math.isfinite(se) else math.nan, d=d,
                                   seeds=len(list(values)), method=method, reason=reason, note=note))
