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

#: σ_ε for matplotlib titles (mathtext)
NOISE_TEX = r"$\sigma_\varepsilon$"
RISK_LABEL = "prediction risk  E(f̂(x) − f*(x))²"

__all__ = ["NOISE_TEX", "RISK_LABEL", "act_label", "standard_plot", "allowance", "fmt", "sim_caption", "log_grid"]

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


def standard_plot(data, panels, *, suptitle: str | None = None, width: float = 4.8, height: float = 3.6):
    """Draw a :class:`FigureData` on ``len(panels)`` side-by-side axes.

    Each panel is a dict with ``xlabel``, ``ylabel``, ``title`` and optionally ``xscale``, ``yscale``,
    ``xlim``, ``ylim``, ``legend_loc`` (``None``: no legend). Curves are lines, points are markers
    with ± 2 s.e. error bars, ``bound`` lines dashed horizontals, ``threshold`` lines dotted
    verticals, ``rate`` lines thin dash-dot power laws. Returns the figure.
    """
    fig, axes = new_figure(ncols=len(panels), width=width, height=height)
    axes = np.atleast_1d(axes)
    for k, (ax, spec) in enumerate(zip(axes, panels, strict=True)):
        for c in data.curves:
            if c.panel == k:
                theory_line(ax, c.x, c.y, label=c.label, i=c.group, style=c.style)
        for p in data.points:
            if p.panel == k:
                simulation_markers(ax, p.x, p.mean, p.se, label=p.label, i=p.group)
        xs = [v for c in data.curves if c.panel == k for v in c.x] + [v for p in data.points if p.panel == k for v in p.x]
        for ln in data.lines:
            if ln.panel != k:
                continue
            kw = {"color": color(ln.group)} if ln.group is not None else {}
            if ln.kind == "bound":
                kernel_bound_line(ax, ln.value, label=ln.label, **kw)
            elif ln.kind == "threshold":
                threshold_line(ax, ln.value, label=ln.label, **kw)
            elif ln.kind == "rate" and xs:
                x = np.geomspace(max(min(xs), ln.value / 10), max(xs), 50)  # one decade up to the anchor
                rate_line(ax, x, ln.value, ln.anchor_y, ln.slope, label=ln.label)
        ax.set_xscale(spec.get("xscale", "linear"))
        ax.set_yscale(spec.get("yscale", "linear"))
        _plain_log_ticks(ax)
        if spec.get("xlim"):
            ax.set_xlim(*spec["xlim"])
        if spec.get("ylim"):
            ax.set_ylim(*spec["ylim"])
        ax.set_xlabel(spec["xlabel"])
        ax.set_ylabel(spec["ylabel"])
        if spec.get("title"):
            ax.set_title(spec["title"])
        loc = spec.get("legend_loc", "best")
        if loc == "figure":
            handles, labels = [], []
            for a in axes:
                for h, lab in zip(*a.get_legend_handles_labels(), strict=True):
                    if lab not in labels:
                        handles.append(h)
                        labels.append(lab)
            fig.legend(handles, labels, loc="outside lower center", ncols=spec.get("legend_ncols", 4))
        elif loc is not None:
            ax.legend(loc=loc, ncols=spec.get("legend_ncols", 1))
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def _plain_log_ticks(ax):
    """Log axes labelled 0.2, 0.5, 1, 2, 5, … (no 3×10⁻¹ clutter) when they span less than 3 decades."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, scale, lim in ((ax.xaxis, ax.get_xscale(), ax.get_xlim()), (ax.yaxis, ax.get_yscale(), ax.get_ylim())):
        if scale != "log" or lim[0] <= 0:
            continue
        if np.log10(lim[1] / lim[0]) < 3:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(NullFormatter())


def points_from(sims, xs, quantity: str, label: str, *, group: int = 0, panel: int = 0, d: int | None = None,
                seeds: int | None = None, params: dict | None = None):
    """A :class:`Points` series from simulation results (one per x)."""
    from ..data import Points

    means, ses = zip(*(s.value(quantity) for s in sims), strict=True) if sims else ((), ())
    return Points(label, list(xs), list(means), list(ses), quantity, params=dict(params or {}), d=d, seeds=seeds,
                  group=group, panel=panel)


def add_comparisons(data, points, theory, *, x_name: str, fixed: dict, rel: float, absolute: float = 0.0,
                    z_max: float = 3.0, note: str = "", skip=None):
    """Append one comparison per simulated point of ``points`` against ``theory`` (same order).

    ``rel``/``absolute``: the finite-size allowance at d = 1000, scaled as √(1000/d) (see
    :func:`allowance`); ``skip(x)`` excludes points (e.g. at a threshold, stated in the notes)."""
    from ..data import compare

    for x, m, s, t in zip(points.x, points.mean, points.se, theory, strict=True):
        if skip is not None and skip(x):
            continue
        if not (math.isfinite(m) and math.isfinite(t)):
            continue
        data.comparisons.append(compare(data.name, points.quantity, {**fixed, x_name: x}, t, m, s,
                                        d=points.d, allowance=allowance(t, points.d, rel, absolute=absolute),
                                        z_max=z_max, note=note))
