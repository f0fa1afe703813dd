"""Cui et al. (2024): learning curves of the ridge readout after one large step, against random
features and the linear (kernel) floor.

The curves are the paper's sRF theory (the isotropic map); the dashed curves are the network map
(structured bulk + the step's self term, docs/spiked-rf-finite-width.md), the theory of the simulated
network, against which the network's points are compared."""

from __future__ import annotations

import numpy as np

from ..data import Curve, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from . import _cui_setting as C
from ._common import TEST_ERROR_LABEL, add_simulated, fmt, sim_caption

STUDENT = "tanh"
TARGETS = ("tanh", "sin")
BETA, LAM = 1.0, 0.01
STEPS = ((1.0, 0.5), (3.0, 20.0))  # (η̃, α0): the authors' stored run, and a strong step with a large first batch
SIZES = sizes(d=(150, 250, 500, 2000), seeds=(3, 3, 3, 3), n_test=(3000, 5000, 10_000, 10_000),
              alpha=([1.0, 3.0], [0.5, 3.0], [0.5, 1.0, 2.0, 3.0], [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]),
              targets=(["tanh"], list(TARGETS), list(TARGETS), list(TARGETS)),
              network_curve_points=(5, 6, 12, 24))


def data(ctx):
    from ...theory.spiked_rf import linear_floor
    from ...theory.spiked_rf.network_map import network_one_step

    p = ctx.p
    fig = ctx.figure("alpha", student=STUDENT, beta=BETA, lam=LAM, steps=[list(s) for s in STEPS])
    grid = np.geomspace(0.1, 5.0, 60)
    net_grid = np.geomspace(0.1, 5.0, p["network_curve_points"])
    xs = [float(a) for a in p["alpha"]]
    kw = dict(student=STUDENT, beta=BETA, lam=LAM)
    for k, teacher in enumerate(TARGETS):
        rf, _ = C.curve(grid, teacher=teacher, **kw)
        fig.curves.append(Curve("random features (no step)", grid, rf, "test_error", {"teacher": teacher}, group=6, panel=k))
        for g, (et, a0) in enumerate(STEPS):
            te, _ = C.curve(grid, teacher=teacher, eta_tilde=et, alpha0=a0, **kw)
            fig.curves.append(Curve(f"one step η̃ = {fmt(et)}, α₀ = {fmt(a0)} (sRF, isotropic map)", grid, te,
                                    "test_error", {"teacher": teacher, "eta_tilde": et, "alpha0": a0}, group=g,
                                    panel=k))
            nm = [network_one_step(a, a0, BETA, et, LAM, STUDENT, teacher).test_error for a in net_grid]
            fig.curves.append(Curve(f"η̃ = {fmt(et)}, α₀ = {fmt(a0)}: network map", net_grid, nm, "test_error",
                                    {"teacher": teacher, "eta_tilde": et, "alpha0": a0, "map": "network"},
                                    style="--", group=g, panel=k))
        floor = linear_floor(teacher)
        fig.lines.append(RefLine("bound", floor, "linear floor h₂* − h₁*² (no kernel goes below)", panel=k))
        fig.params[f"linear_floor_{teacher}"] = floor
        if teacher not in p["targets"]:
            continue
        for g, (et, a0) in enumerate(STEPS):
            cfgs = [C.network_config(p["d"], a, teacher=teacher, eta_tilde=et, alpha0=a0, n_test=p["n_test"], **kw)
                    for a in xs]
            sims = ctx.simulate_all(cfgs, p["seeds"], f"{teacher}, η̃ = {fmt(et)}, α₀ = {fmt(a0)}")
            fixed = {"teacher": teacher, "eta_tilde": et, "alpha0": a0}
            th = [network_one_step(a, a0, BETA, et, LAM, STUDENT, teacher).test_error for a in xs]
            add_simulated(ctx, fig, sims, xs, "test_error", f"network, η̃ = {fmt(et)}, α₀ = {fmt(a0)}", th,
                          fixed={**fixed, "theory": "network map"}, group=g, panel=k, params=fixed,
                          reason=f"the d → ∞ network map at a single d = {p['d']}; the network map is judged by "
                                 "extrapolation in srf_map_validity and tab_srf_network")
            if g == 0:  # the same seeds' readout on W⁰: random features
                add_simulated(ctx, fig, sims, xs, "test_error0", "random features simulated",
                              C.curve(xs, teacher=teacher, **kw)[0], fixed={"teacher": teacher, "eta_tilde": 0.0},
                              group=6, panel=k, params={"teacher": teacher})
    fig.caption = (f"σ = tanh, targets σ* = tanh (left) and sin (right), p = d (β = {fmt(BETA)}), λ = {fmt(LAM)}, "
                   "no label noise; first step on n₀ = α₀d samples, readout on n = αd fresh samples. "
                   + sim_caption(p["d"], p["seeds"], p["n_test"], "random features = the same network's readout at W⁰"))
    fig.notes.append("Random features saturate well above the linear floor; after one large step with enough "
                     "first-batch data (α₀ = 20) the readout goes below it.")
    return fig


ITEM = Item(
    name="cui_learning_curves",
    title="Learning curves: random features vs one large step vs the linear floor",
    paper="Cui et al. (2024), learning curves (docs/spiked-rf.md)",
    checks="The paper's learning curves (sRF theory) beside the network map, the theory of the simulated network, "
           "along α; random features stay above the linear floor h2* − h1*², and one large step with α0 = 20 goes "
           "below it.",
    sizes=SIZES,
    data=data,
    plot=PlotSpec(
        (Panel("α = n/d", TEST_ERROR_LABEL, xscale="log", yscale="log", legend=None,
               title="σ* = tanh (linear floor {linear_floor_tanh:.4f})"),
         Panel("α = n/d", "", xscale="log", yscale="log", legend="figure", legend_ncols=3,
               title="σ* = sin (linear floor {linear_floor_sin:.4f})")),
        title="Cui et al.: learning curves after one large step (σ = tanh, p = d, λ = {lam})", height=4.2),
    order=80,
)
