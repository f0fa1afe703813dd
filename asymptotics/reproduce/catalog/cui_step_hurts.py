"""Cui et al. (2024): too large a step can hurt — the one-step network crosses above random features."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..data import Curve, RefLine
from ..plot import Panel, PlotSpec
from ..registry import Item, sizes
from . import _cui_setting as C
from ._common import TEST_ERROR_LABEL, add_simulated, fmt, sim_caption

STUDENT = TEACHER = "tanh"
BETA, LAM, ETA_TILDE, ALPHA0 = 1.0, 0.01, 5.0, 1.0
SIZES = sizes(d=(150, 300, 600, 2000), seeds=(3, 3, 4, 3), n_test=(3000, 5000, 10_000, 10_000),
              alpha=([0.5, 3.0],
                     [0.5, 1.5, 3.0],
                     [0.3, 0.5, 1.0, 1.5, 2.0, 3.0],
                     [0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]))
REL = 0.05
_KW = dict(student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM)
_STEP = dict(eta_tilde=ETA_TILDE, alpha0=ALPHA0)


def _crossing(fig, grid, rf, one, prm) -> None:
    """The α where the one-step network becomes worse than random features (a threshold line)."""
    sign_change = np.nonzero(np.diff(np.sign(one - rf)))[0]
    if not sign_change.size:
        return
    i = int(sign_change[0])

    def f(a):
        return float(C.curve([a], **_STEP, **_KW)[0][0] - C.curve([a], **_KW)[0][0])

    a_x = brentq(f, grid[i], grid[i + 1], xtol=1e-10)
    fig.params["crossing_alpha"] = a_x
    fig.lines.append(RefLine("threshold", a_x, f"crossing α = {a_x:.3f}"))
    fig.notes.append(f"Theory: the one-step network is worse than random features for α > {a_x:.3f} "
                     f"(sRF parameters γ = {prm.gamma:.3f}, c = {prm.bulk[0]:.3f}, r = {prm.r:.3f}).")


def data(ctx):
    p = ctx.p
    fig = ctx.figure("alpha", student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM, **_STEP)
    grid = np.geomspace(0.2, 5.0, 80)
    rf, _ = C.curve(grid, **_KW)
    one, prm = C.curve(grid, **_STEP, **_KW)
    fig.curves.append(Curve("random features (no step)", grid, rf, "test_error", group=6))
    fig.curves.append(Curve(f"one step η̃ = {fmt(ETA_TILDE)}, α₀ = {fmt(ALPHA0)}", grid, one, "test_error",
                            dict(_STEP), group=1))
    _crossing(fig, grid, rf, one, prm)
    xs = [float(a) for a in p["alpha"]]
    cfgs = [C.network_config(p["d"], a, n_test=p["n_test"], **_STEP, **_KW) for a in xs]
    sims = ctx.simulate_all(cfgs, p["seeds"], "network and RF")
    pts = add_simulated(ctx, fig, sims, xs, "test_error", "one step simulated", C.curve(xs, **_STEP, **_KW)[0],
                        fixed=dict(_STEP), rel=REL, group=1)
    pts0 = add_simulated(ctx, fig, sims, xs, "test_error0", "random features simulated", C.curve(xs, **_KW)[0],
                         fixed={"eta_tilde": 0.0}, rel=REL, group=6)
    fig.notes.append("Simulated difference (one step − RF, same seeds): " + ", ".join(
        f"α = {fmt(x)}: {m1 - m0:+.4f}" for x, m1, m0 in zip(xs, pts.mean, pts0.mean, strict=True)) + ".")
    fig.caption = (f"σ = σ* = tanh, p = d, λ = {fmt(LAM)}, η̃ = {fmt(ETA_TILDE)}, α₀ = {fmt(ALPHA0)}, no label noise. "
                   + sim_caption(p["d"], p["seeds"], p["n_test"], "random features = the same network's readout at W⁰"))
    return fig


ITEM = Item(
    name="cui_step_hurts",
    title="Too large a step hurts: the one-step network crosses above random features",
    paper="Cui et al. (2024) (docs/spiked-rf.md, special cases)",
    checks="With η̃ = 5 and a small first batch (α0 = 1) the trained network is better than random features at small "
           "α and worse beyond the predicted crossing; theory and simulation agree on both curves.",
    sizes=SIZES,
    data=data,
    plot=PlotSpec.single(Panel("α = n/d", TEST_ERROR_LABEL, xscale="log", legend="lower left",
                                title="σ = σ* = tanh, p = d, λ = {lam}, η̃ = {eta_tilde}, α₀ = {alpha0}"),
                         "Cui et al.: too large a step hurts"),
    order=90,
)
