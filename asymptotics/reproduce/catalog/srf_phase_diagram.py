"""Cui et al. (2024), one large step: the (α, η̃) phase diagram of the sRF test error (theory only).

The two lines are the contours of ε_g(α, η̃) computed on a grid by the compiled fixed point
(:func:`asymptotics.theory.spiked_rf.phase_diagram`): ε_g = ε_RF(α), where the step starts to help or
to hurt against random features, and ε_g = the linear floor, below which the trained network beats
every random-features (kernel) ridge.
"""

from __future__ import annotations

import numpy as np

from ...theory.spiked_rf.phase_diagram import phase_diagram
from ..data import Curve
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ._common import fmt

STUDENT = TEACHER = "tanh"
BETA, LAM = 1.0, 0.01
#: first batches n0 = α0·d: a small one (the step can hurt) and a large one (it can beat kernels)
ALPHA0S = (1.0, 20.0)
#: grid points per axis: α log-spaced on [0.1, 10], η̃ on [0, 10]
SIZES = sizes(n=(20, 40, 100, 200))


_ORDINAL = ("first", "second", "further")


def _branches(alphas, etas):
    """Contour points (α, η̃) split into branches: the k-th crossing in η̃ at each α goes to branch k
    (a closed region crosses twice per α: its lower and upper edge)."""
    out = {}
    for a in np.unique(alphas):
        for k, e in enumerate(np.sort(etas[alphas == a])):
            out.setdefault(k, ([], []))
            out[k][0].append(a)
            out[k][1].append(e)
    return [(np.array(x), np.array(y)) for _, (x, y) in sorted(out.items())]


def data(ctx):
    n = int(ctx.p["n"])
    fig = ctx.figure("alpha", student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM,
                     alpha0=", ".join(fmt(a) for a in ALPHA0S))
    alphas, etas = np.geomspace(0.1, 10.0, n), np.linspace(0.0, 10.0, n)
    for k, a0 in enumerate(ALPHA0S):
        pd = phase_diagram(alphas, etas, alpha0=a0, beta=BETA, lam=LAM, student=STUDENT, teacher=TEACHER)
        for level, what, group in (("rf", "ε_g = ε_RF", 1 + k), ("floor", "ε_g = linear floor", 3 + k)):
            label = f"{what}, α₀ = {fmt(a0)}"
            branches = _branches(*pd.boundary(level))
            for b, (a, e) in enumerate(branches):
                name = label if len(branches) == 1 else f"{label} ({_ORDINAL[min(b, 2)]} crossing in η̃)"
                fig.curves.append(Curve(name, a, e, "eta_tilde", {"level": level, "alpha0": a0, "branch": b},
                                        style="-" if level == "rf" else "--", group=group))
            if not branches:
                fig.notes.append(f"α₀ = {fmt(a0)}: no point of the grid on the contour {what}.")
        ok = pd.converged
        helps = float(np.mean(pd.gain[ok] > 0)) if ok.any() else float("nan")
        fig.notes.append(f"α₀ = {fmt(a0)}: {100 * ok.mean():.0f} % of the {n * n} grid points converged (largest "
                         f"residual {float(np.nanmax(pd.residual)):.1e}); the step helps (ε_g < ε_RF) on "
                         f"{100 * helps:.0f} % of them; smallest ε_g {float(np.nanmin(pd.test_error)):.4f}, linear "
                         f"floor {pd.linear_floor:.4f}.")
    fig.params["grid"] = f"{n} × {n}"
    fig.caption = (f"sRF theory on a {n} × {n} grid (α log-spaced on [0.1, 10], η̃ on [0, 10]) for each α₀: "
                   f"σ = σ* = tanh, p = d, λ = {fmt(LAM)}, no label noise; MP closed form, solved to 1e-12. "
                   "Solid: where the step starts to help or to hurt against random features; dashed: where the "
                   "trained network reaches the linear floor of every random-features ridge.")
    return fig


ITEM = Item(
    name="srf_phase_diagram",
    title="Phase diagram of one large step: where the step helps, hurts, and beats kernels",
    paper="Cui et al. (2024) (docs/spiked-rf.md, the compiled path)",
    checks="The contours of the sRF test error over (α, η̃): ε_g = ε_RF and ε_g = the linear floor.",
    sizes=SIZES,
    data=data,
    plot=PlotSpec.single(Panel("α = n/d", "η̃", xscale="log", legend="upper right",
                                title="σ = σ* = tanh, p = d, λ = {lam}, α₀ ∈ {{{alpha0}}}"),
                         "Cui et al.: one-step phase diagram"),
    order=95,
)
