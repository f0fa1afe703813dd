"""Cui et al. (2024): too large a step can hurt — the one-step network crosses above random features."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from . import _cui_setting as C
from ._common import add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT = TEACHER = "tanh"
BETA, LAM, ETA_TILDE, ALPHA0 = 1.0, 0.01, 5.0, 1.0
SIZES = {
    "toy": {"d": 150, "seeds": 3, "n_test": 3000, "alpha": [0.5, 3.0]},
    "quick": {"d": 300, "seeds": 3, "n_test": 5000, "alpha": [0.5, 1.5, 3.0]},
    "default": {"d": 600, "seeds": 4, "n_test": 10_000, "alpha": [0.3, 0.5, 1.0, 1.5, 2.0, 3.0]},
    "full": {"d": 2000, "seeds": 3, "n_test": 10_000, "alpha": [0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]},
}
REL = 0.05


def compute(ctx) -> FigureData:
    p = ctx.p
    data = FigureData("cui_step_hurts", "alpha", params={"student": STUDENT, "teacher": TEACHER, "beta": BETA,
                                                         "lam": LAM, "eta_tilde": ETA_TILDE, "alpha0": ALPHA0, **p})
    grid = np.geomspace(0.2, 5.0, 80)
    kw = dict(student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM)
    rf, _ = C.curve(ctx, grid, **kw)
    one, prm = C.curve(ctx, grid, eta_tilde=ETA_TILDE, alpha0=ALPHA0, **kw)
    data.curves.append(Curve("random features (no step)", grid, rf, "test_error", group=6))
    data.curves.append(Curve(f"one step η̃ = {fmt(ETA_TILDE)}, α₀ = {fmt(ALPHA0)}", grid, one, "test_error",
                             {"eta_tilde": ETA_TILDE, "alpha0": ALPHA0}, group=1))
    diff = one - rf
    sign_change = np.nonzero(np.diff(np.sign(diff)))[0]
    if sign_change.size:
        i = int(sign_change[0])

        def f(a):
            return float(C.curve(ctx, [a], eta_tilde=ETA_TILDE, alpha0=ALPHA0, **kw)[0][0]
                         - C.curve(ctx, [a], **kw)[0][0])

        a_x = brentq(f, grid[i], grid[i + 1], xtol=1e-10)
        data.params["crossing_alpha"] = a_x
        data.lines.append(RefLine("threshold", a_x, f"crossing α = {a_x:.3f}"))
        data.notes.append(f"Theory: the one-step network is worse than random features for α > {a_x:.3f} "
                          f"(sRF parameters γ = {prm.gamma:.3f}, c = {prm.bulk[0]:.3f}, r = {prm.r:.3f}).")
    d, seeds = p["d"], p["seeds"]
    xs = [float(a) for a in p["alpha"]]
    cfgs = [C.network_config(d, a, eta_tilde=ETA_TILDE, alpha0=ALPHA0, n_test=p["n_test"], **kw) for a in xs]
    sims = ctx.simulate_all(cfgs, seeds, "network and RF")
    th_one, _ = C.curve(ctx, xs, eta_tilde=ETA_TILDE, alpha0=ALPHA0, **kw)
    th_rf, _ = C.curve(ctx, xs, **kw)
    pts = points_from(sims, xs, "test_error", "one step simulated", group=1, d=d, seeds=seeds)
    data.points.append(pts)
    add_comparisons(data, pts, th_one, x_name="alpha", fixed={"eta_tilde": ETA_TILDE, "alpha0": ALPHA0}, rel=REL)
    pts0 = points_from(sims, xs, "test_error0", "random features simulated", group=6, d=d, seeds=seeds)
    data.points.append(pts0)
    add_comparisons(data, pts0, th_rf, x_name="alpha", fixed={"eta_tilde": 0.0}, rel=REL)
    worse = [(x, m1 - m0) for x, m1, m0 in zip(xs, pts.mean, pts0.mean, strict=True)]
    data.notes.append("Simulated difference (one step − RF, same seeds): " +
                      ", ".join(f"α = {fmt(x)}: {dv:+.4f}" for x, dv in worse) + ".")
    data.caption = (f"σ = σ* = tanh, p = d, λ = {fmt(LAM)}, η̃ = {fmt(ETA_TILDE)}, α₀ = {fmt(ALPHA0)}, no label noise. "
                    + sim_caption(d, seeds, p["n_test"], "random features = the same network's readout at W⁰"))
    return data


def plot(data, ctx):
    return standard_plot(data, [
        {"xlabel": "α = n/d", "ylabel": r"test error $\varepsilon_g$", "xscale": "log",
         "title": f"σ = σ* = tanh, p = d, λ = {fmt(LAM)}, η̃ = {fmt(ETA_TILDE)}, α₀ = {fmt(ALPHA0)}",
         "legend_loc": "lower left"},
    ], suptitle="Cui et al.: too large a step hurts", width=5.6, height=4.2)


register(Item(
    name="cui_step_hurts",
    title="Too large a step hurts: the one-step network crosses above random features",
    paper="Cui et al. (2024) (theory notes 30-spiked-rf.md §6)",
    checks="With η̃ = 5 and a small first batch (α0 = 1) the trained network is better than random features at small "
           "α and worse beyond the predicted crossing; theory and simulation agree on both curves.",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.spiked_rf:spiked_rf_curve", "validation.simulator:CuiConfig"),
    order=90,
))
