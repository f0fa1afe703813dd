"""Helpers shared by the catalogue: labels, the standard plot, finite-size allowances."""

from __future__ import annotations

import math

import numpy as np

from ...figures import (
    ERRORBAR_SE,
    color,
    kernel_bound_line,
    new_figure,
    rate_line,
    simulation_markers,
    theory_line,
    threshold_line,
)

__all__ = ["act_label", "standard_plot", "allowance", "fmt", "sim_caption", "log_grid"]

_NAMES = {"tanh": "tanh", "erf": "erf", "relu": "ReLU", "softplus": "SoftPlus", "sin": "sin", "sigmoid": "sigmoid"}
_ODD = {"tanh", "erf", "sin"}


def act_label(name: str) -> str:
    """'tanh', 'centred ReLU', … (non-odd built-ins are centred by the theory's convention)."""
    base = _NAMES.get(name, name)
    return base if name in _ODD else f"centred {base}"


def fmt(v) -> str:
    """A parameter value for a title or caption: 1e-4 → 10⁻⁴, 2.0 → 2."""
    if isinstance(v, float):
        if v != 0 and (abs(v) < 1e-2 or abs(v) >= 1e4):
            e = int(math.floor(math.log10(abs(v))))
            m = v / 10**e
            sup = str(e).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
            return f"10{sup}" if abs(m - 1) < 1e-12 else f"{m:g}·10{sup}"
        return f"{v:g}"
    return str(v)


def log_grid(lo: float, hi: float, num: int) -> np.ndarray:
    return np.geomspace(lo, hi, num)


def allowance(theory: float, d: int, rel: float, *, absolute: float = 0.0, d_ref: int = 1000) -> float:
    """Finite-size allowance ``rel·|theory|·√(d_ref/d) + absolute·√(d_ref/d)``: the O(d^{-1/2})
    bias of a finite network relative to the d → ∞ theory (stated per figure with ``rel``)."""
    scale = math.sqrt(d_ref / d)
    return (rel * abs(theory) + absolute) * scale


def sim_caption(d: int, seeds: int, n_test: int | None = None, extra: str = "") -> str:
    s = f"Simulations: d = {d}, {seeds} seeds"
    if n_test:
        s += f", {n_test} test points"
    s += f"; error bars ± {ERRORBAR_SE:g} s.e."
    return s + (f"; {extra}" if extra else "")


def standard_plot(data, *, xlabel: str, ylabel: str, title: str, xscale: str = "linear", yscale: str = "linear",
                  legend_loc: str = "best", ylim=None, xlim=None, width: float = 4.8, height: float = 3.5):
    """Draw a :class:`FigureData`: curves (lines), points (markers ± 2 s.e.), bounds (dashed),
    thresholds (dotted), rate lines (dash-dot). Returns the figure."""
    fig, ax = new_figure(width=width, height=height)
    for c in data.curves:
        theory_line(ax, c.x, c.y, label=c.label, i=c.group, style=c.style)
    for p in data.points:
        simulation_markers(ax, p.x, p.mean, p.se, label=p.label, i=p.group)
    xs = [v for c in data.curves for v in c.x] + [v for p in data.points for v in p.x]
    for ln in data.lines:
        col = color(ln.group) if ln.group is not None else None
        if ln.kind == "bound":
            kw = {"color": col} if col else {}
            kernel_bound_line(ax, ln.value, label=ln.label, **kw)
        elif ln.kind == "threshold":
            kw = {"color": col} if col else {}
            threshold_line(ax, ln.value, label=ln.label, **kw)
        elif ln.kind == "rate" and xs:
            x = np.geomspace(min(xs), max(xs), 50)
            rate_line(ax, x, ln.value, ln.anchor_y, ln.slope, label=ln.label)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    if ylim:
        ax.set_ylim(*ylim)
    if xlim:
        ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc=legend_loc)
    return fig
