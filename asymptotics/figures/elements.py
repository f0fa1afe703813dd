"""Drawing elements with one meaning each: theory lines, simulation markers, thresholds, bounds."""

from __future__ import annotations

import numpy as np

from .style import MARKERS, color

__all__ = [
    "ERRORBAR_SE",
    "theory_line",
    "simulation_markers",
    "threshold_line",
    "kernel_bound_line",
    "rate_line",
]

#: Error bars of simulation markers span ± this many standard errors (over seeds).
ERRORBAR_SE = 2.0


def theory_line(ax, x, y, *, label: str | None = None, i: int = 0, style: str = "-", **kw):
    """A d → ∞ theory curve (solid line by default); NaN points (e.g. no outlier) leave gaps."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    kw.setdefault("color", color(i))
    kw.setdefault("zorder", 2)
    (line,) = ax.plot(x, y, style, label=label, **kw)
    return line


def simulation_markers(ax, x, mean, se, *, label: str | None = None, i: int = 0, marker: str | None = None, **kw):
    """Simulation means with error bars of ±:data:`ERRORBAR_SE` standard errors (open markers)."""
    x = np.asarray(x, dtype=float)
    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    c = kw.pop("color", color(i))
    kw.setdefault("zorder", 3)
    return ax.errorbar(
        x,
        mean,
        yerr=ERRORBAR_SE * se,
        fmt=marker or MARKERS[i % len(MARKERS)],
        color=c,
        markerfacecolor="white",
        markeredgewidth=1.2,
        elinewidth=1.0,
        linestyle="none",
        label=label,
        **kw,
    )


def threshold_line(ax, x: float, *, label: str | None = None, color: str = "0.35", **kw):
    """A vertical dotted line at a threshold (e.g. the BBP threshold η_c)."""
    kw.setdefault("zorder", 1)
    return ax.axvline(x, linestyle=":", linewidth=1.3, color=color, label=label, **kw)


def kernel_bound_line(ax, y: float, *, label: str | None = None, color: str = "0.15", **kw):
    """A horizontal dashed line at a lower bound (e.g. the kernel bound μ2*²)."""
    kw.setdefault("zorder", 1)
    return ax.axhline(y, linestyle="--", linewidth=1.2, color=color, label=label, **kw)


def rate_line(ax, x, anchor_x: float, anchor_y: float, slope: float, *, label: str | None = None, **kw):
    """A reference power law y = anchor_y (x/anchor_x)^slope (thin grey dash-dot), e.g. Θ(d/n)."""
    x = np.asarray(x, dtype=float)
    kw.setdefault("color", "0.45")
    kw.setdefault("linewidth", 1.0)
    kw.setdefault("zorder", 1)
    (line,) = ax.plot(x, anchor_y * (x / anchor_x) ** slope, "-.", label=label, **kw)
    return line
