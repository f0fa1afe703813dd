"""Paper-quality figures: one matplotlib style, and the few elements every figure of the project uses.

Figures are built on :class:`matplotlib.figure.Figure` directly (Agg canvas, no pyplot global
state, no display needed) inside :func:`paper_style`. The elements follow the field's idiom:
**lines** for d → ∞ theory, **markers with error bars** for simulations (±2 standard errors over
seeds), a **dashed horizontal line** for a kernel lower bound (μ2*², the energy of the teacher's
nonlinear part), a **dotted vertical line** for a BBP threshold, and a thin grey **rate line** (e.g.
Θ(d/n)) on log–log axes. Files are written atomically (a temporary file renamed into place).

>>> from asymptotics.figures import paper_style, new_figure, theory_line, save_figure
>>> with paper_style():
...     fig, ax = new_figure()
...     _ = theory_line(ax, [0, 1], [1, 0], label="theory")
"""

from .elements import (
    ERRORBAR_SE,
    kernel_bound_line,
    rate_line,
    simulation_markers,
    theory_line,
    threshold_line,
)
from .save import figure_bytes, save_figure
from .style import PALETTE, PAPER_RC, color, new_figure, paper_style

__all__ = [
    "PAPER_RC",
    "PALETTE",
    "color",
    "paper_style",
    "new_figure",
    "theory_line",
    "simulation_markers",
    "threshold_line",
    "kernel_bound_line",
    "rate_line",
    "ERRORBAR_SE",
    "save_figure",
    "figure_bytes",
]
