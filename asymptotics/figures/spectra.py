r"""Spectrum figures: an empirical eigenvalue histogram over the limiting density, with the support's
edges and the outliers marked (theory: dotted verticals; simulated top eigenvalues: ticks on the
axis).

The inputs are plain arrays, so a figure can be drawn from :func:`asymptotics.theory.spectra.ck_spectrum`
or :func:`~asymptotics.theory.spectra.weights_spectrum` results and any empirical spectrum (the
simulator's ``validation.simulator.spectrum``, or the user's own eigenvalues).

>>> import numpy as np
>>> from asymptotics.figures import paper_style, new_figure
>>> from asymptotics.figures.spectra import spectrum_panel
>>> edges = np.linspace(0.0, 4.0, 21)
>>> with paper_style():
...     fig, ax = new_figure()
...     spectrum_panel(ax, edges, np.full(20, 0.25), x=[0, 4], density=[0.25, 0.25], support_edges=[0, 4],
...                    outliers=[5.0], observed=[4.9])
"""

from __future__ import annotations

import numpy as np

from .elements import simulation_markers, theory_line, threshold_line
from .style import color

__all__ = ["histogram_steps", "spectrum_panel"]


def histogram_steps(ax, edges, density, *, label: str | None = None, i: int = 1, alpha: float = 0.35, **kw):
    """An empirical density (counts/(N·width) per bin) as a filled step histogram."""
    edges = np.asarray(edges, float)
    density = np.asarray(density, float)
    kw.setdefault("zorder", 1)
    return ax.stairs(density, edges, fill=True, alpha=alpha, color=color(i), label=label, **kw)


def spectrum_panel(ax, edges, empirical, *, se=None, x=None, density=None, support_edges=(), outliers=(),
                   observed=(), label_empirical: str = "simulation", label_theory: str = "theory (d → ∞)",
                   i: int = 0) -> None:
    """One panel: the histogram ``empirical`` on ``edges`` (± 2 s.e. markers at the bin centres when
    ``se`` is given), the theoretical ``density`` on ``x``, dotted verticals at the ``support_edges``
    and the theoretical ``outliers`` (grey and coloured), and the ``observed`` top eigenvalues as
    ticks on the horizontal axis."""
    edges = np.asarray(edges, float)
    histogram_steps(ax, edges, empirical, label=label_empirical, i=i + 1)
    if se is not None:
        c = 0.5 * (edges[1:] + edges[:-1])
        simulation_markers(ax, c, empirical, se, i=i + 1, markersize=2.5)
    if x is not None and density is not None:
        theory_line(ax, x, density, label=label_theory, i=i)
    for k, e in enumerate(support_edges):
        threshold_line(ax, float(e), label="support edges" if k == 0 else None)
    for k, o in enumerate(outliers):
        threshold_line(ax, float(o), color=color(i), label="theory outlier" if k == 0 else None)
    obs = np.asarray(list(observed), float)
    if obs.size:
        ax.plot(obs, np.zeros_like(obs), "|", color=color(i + 1), markersize=14, markeredgewidth=1.5,
                label="simulated top eigenvalues", zorder=4, clip_on=False)
    ax.set_ylim(bottom=0.0)
