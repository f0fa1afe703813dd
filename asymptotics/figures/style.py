"""The project's matplotlib style for papers.

Sizes are those of a single-column figure (3.4 × 2.6 in at 10 pt) scaled up a little so that the PNG
is readable on screen; fonts are serif (mathtext in Computer-Modern style, no LaTeX installation
needed); the palette is Okabe–Ito (readable by colour-blind readers and in greyscale together with
the marker shapes).
"""

from __future__ import annotations

import contextlib

import matplotlib

matplotlib.use("Agg", force=False)  # never needs a display; harmless if already chosen

from matplotlib.figure import Figure  # noqa: E402

__all__ = ["PAPER_RC", "PALETTE", "MARKERS", "color", "paper_style", "new_figure"]

#: Okabe–Ito colour-blind-safe palette (black first for the reference curve).
PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow (last: poor on white)
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

PAPER_RC = {
    "font.family": "serif",
    "font.serif": ["DejaVu Serif", "Times New Roman", "Times"],
    "mathtext.fontset": "cm",
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.linewidth": 0.8,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "errorbar.capsize": 2.5,
    "legend.frameon": True,
    "legend.framealpha": 0.85,
    "legend.edgecolor": "0.8",
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.03,
    "pdf.fonttype": 42,  # TrueType in PDFs (editable text, accepted by journals)
    "axes.prop_cycle": matplotlib.cycler(color=list(PALETTE)),
}


def color(i: int) -> str:
    """The ``i``-th colour of the palette (cycling)."""
    return PALETTE[i % len(PALETTE)]


@contextlib.contextmanager
def paper_style(**overrides):
    """Context manager applying :data:`PAPER_RC` (plus ``overrides``) to figures created inside."""
    rc = dict(PAPER_RC)
    rc.update(overrides)
    with matplotlib.rc_context(rc):
        yield


def new_figure(ncols: int = 1, nrows: int = 1, width: float = 4.6, height: float = 3.4, **kwargs):
    """A new :class:`~matplotlib.figure.Figure` (no pyplot state) with a grid of axes.

    Returns ``(fig, ax)`` for one panel, else ``(fig, axes)``; call inside :func:`paper_style`.
    """
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=True, **kwargs)
    return fig, axes
