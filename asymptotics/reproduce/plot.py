r"""The plot spec of a figure, and the one function that draws every figure from it.

A :class:`PlotSpec` is plain data: side-by-side :class:`Panel`\ s (labels, scales, limits, legend)
and a title. Titles and labels are templates filled from the figure's ``params``: ``{psi2}`` is the
value written as in a caption (:func:`fmt`: 1e-4 → 10⁻⁴, 2.0 → 2), ``{eta_c:.3f}`` uses the format
given; literal braces are doubled (``{{``). :func:`draw` puts a
:class:`~asymptotics.reproduce.data.FigureData` on the panels: curves as lines, points as markers
with ± 2 s.e. error bars, ``bound`` lines dashed horizontals, ``threshold`` lines dotted verticals,
``rate`` lines thin dash-dot power laws (:mod:`asymptotics.figures`).

>>> fmt(1e-4), fmt(2.0), Panel("ψ₁", "risk", title="ψ₂ = {psi2}").text("title", {"psi2": 2.0})
('10⁻⁴', '2', 'ψ₂ = 2')
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["Panel", "PlotSpec", "draw", "fmt"]

_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt(v) -> str:
    """A parameter value for a title or caption: 1e-4 → 10⁻⁴, 2.0 → 2."""
    if isinstance(v, float):
        if v != 0 and (abs(v) < 1e-2 or abs(v) >= 1e4):
            e = int(math.floor(math.log10(abs(v))))
            m = v / 10**e
            sup = str(e).translate(_SUPERSCRIPTS)
            return f"10{sup}" if abs(m - 1) < 1e-12 else f"{m:g}·10{sup}"
        return f"{v:g}"
    return str(v)


class _ParamFormatter(string.Formatter):
    def format_field(self, value, format_spec):
        return format(value, format_spec) if format_spec else fmt(value)


_FORMATTER = _ParamFormatter()


@dataclass(frozen=True)
class Panel:
    """One axes of a figure.

    Attributes:
        xlabel, ylabel, title: templates filled from the figure's params.
        xscale, yscale: ``"linear"`` or ``"log"``.
        xlim, ylim: axis limits (``None``: automatic).
        legend: a matplotlib ``loc`` (``"best"``, ``"upper left"``, …), ``"figure"`` (one legend
            below the panels, for all of them) or ``None`` (none).
        legend_ncols: columns of the legend.
    """

    xlabel: str
    ylabel: str
    title: str = ""
    xscale: str = "linear"
    yscale: str = "linear"
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    legend: str | None = "best"
    legend_ncols: int = 1

    def text(self, field: str, params: Mapping) -> str:
        return _FORMATTER.format(getattr(self, field), **params)


@dataclass(frozen=True)
class PlotSpec:
    """How a figure is drawn: its panels (side by side), a title template and the size of a panel
    in inches."""

    panels: tuple[Panel, ...]
    title: str = ""
    width: float = 4.8
    height: float = 3.6

    @classmethod
    def single(cls, panel: Panel, title: str) -> PlotSpec:
        """A one-panel figure at the catalogue's one-panel size (5.6 × 4.2 inches)."""
        return cls((panel,), title=title, width=5.6, height=4.2)


def draw(spec: PlotSpec, data):
    """The figure of ``data`` drawn as ``spec`` says (see the module docstring)."""
    from ..figures import new_figure

    fig, axes = new_figure(ncols=len(spec.panels), width=spec.width, height=spec.height)
    axes = np.atleast_1d(axes)
    for k, (ax, panel) in enumerate(zip(axes, spec.panels, strict=True)):
        _draw_series(ax, data, k)
        ax.set_xscale(panel.xscale)
        ax.set_yscale(panel.yscale)
        _plain_log_ticks(ax)
        if panel.xlim:
            ax.set_xlim(*panel.xlim)
        if panel.ylim:
            ax.set_ylim(*panel.ylim)
        ax.set_xlabel(panel.text("xlabel", data.params))
        ax.set_ylabel(panel.text("ylabel", data.params))
        if panel.title:
            ax.set_title(panel.text("title", data.params))
        if panel.legend == "figure":
            handles, labels = _all_legend_entries(axes)
            fig.legend(handles, labels, loc="outside lower center", ncols=panel.legend_ncols)
        elif panel.legend is not None:
            ax.legend(loc=panel.legend, ncols=panel.legend_ncols)
    if spec.title:
        fig.suptitle(_FORMATTER.format(spec.title, **data.params))
    return fig


def _draw_series(ax, data, k: int) -> None:
    from ..figures import color, kernel_bound_line, rate_line, simulation_markers, theory_line, threshold_line

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


def _all_legend_entries(axes):
    handles, labels = [], []
    for a in axes:
        for h, lab in zip(*a.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    return handles, labels


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
