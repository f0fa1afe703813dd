"""Cui et al. (2024): learning curves of the ridge readout after one large step, against random
features and the linear (kernel) floor."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from . import _cui_setting as C
from ._common import add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT = "tanh"
TARGETS = ("tanh", "sin")
BETA, LAM = 1.0, 0.01
STEPS = ((1.0, 0.5), (3.0, 20.0))  # (η̃, α0): the authors' stored run, and a strong step with a large first batch
SIZES = {
    "toy": {"d": 150, "seeds": 3, "n_test": 3000, "alpha": [1.0, 3.0], "targets": ["tanh"]},
    "quick": {"d": 250, "seeds": 3, "n_test": 5000, "alpha": [0.5, 3.0], "targets": list(TARGETS)},
    "default": {"d": 500, "seeds": 3, "n_test": 10_000, "alpha": [0.5, 1.0, 2.0, 3.0], "targets": list(TARGETS)},
    "full": {"d": 2000, "seeds": 3, "n_test": 10_000, "alpha": [0.25, 0.5, 1.0, 1.5, 2.0, 3.0], "targets": list(TARGETS)},
}
REL = 0.05  # network vs d → ∞ theory at d = 1000 (the notes: 5 % at d = 1500, α = 0.5)


def compute(ctx) -> FigureData:
    linear_floor = ctx.theory("asymptotics.theory.spiked_rf.special_cases:linear_floor")
    p = ctx.p
    data = FigureData("cui_learning_curves", "alpha", params={"student": STUDENT, "beta": BETA, "lam": LAM,
                                                              "steps": [list(s) for s in STEPS], **p})
    grid = np.geomspace(0.1, 5.0, 60)
    d, seeds = p["d"], p["seeds"]
    xs = [float(a) for a in p["alpha"]]
    for k, teacher in enumerate(TARGETS):
        rf, _ = C.curve(ctx, grid, student=STUDENT, teacher=teacher, beta=BETA, lam=LAM)
        data.curves.append(Curve("random features (no step)", grid, rf, "test_error", {"teacher": teacher}, group=6, panel=k))
        for g, (et, a0) in enumerate(STEPS):
            te, prm = C.curve(ctx, grid, student=STUDENT, teacher=teacher, beta=BETA, lam=LAM, eta_tilde=et, alpha0=a0)
            data.curves.append(Curve(f"one step η̃ = {fmt(et)}, α₀ = {fmt(a0)}", grid, te, "test_error",
                                     {"teacher": teacher, "eta_tilde": et, "alpha0": a0}, group=g, panel=k))
        floor = linear_floor(teacher)
        data.lines.append(RefLine("bound", floor, "linear floor h₂* − h₁*² (no kernel goes below)", panel=k))
        data.params[f"linear_floor_{teacher}"] = floor
        if teacher not in p["targets"]:
            continue
        for g, (et, a0) in enumerate(STEPS):
            cfgs = [C.network_config(d, a, student=STUDENT, teacher=teacher, beta=BETA, lam=LAM, eta_tilde=et,
                                     alpha0=a0, n_test=p["n_test"]) for a in xs]
            sims = ctx.simulate_all(cfgs, seeds, f"{teacher}, η̃ = {fmt(et)}, α₀ = {fmt(a0)}")
            fixed = {"teacher": teacher, "eta_tilde": et, "alpha0": a0}
            th, _ = C.curve(ctx, xs, student=STUDENT, teacher=teacher, beta=BETA, lam=LAM, eta_tilde=et, alpha0=a0)
            pts = points_from(sims, xs, "test_error", f"network, η̃ = {fmt(et)}, α₀ = {fmt(a0)}", group=g, panel=k, d=d,
                              seeds=seeds, params=fixed)
            data.points.append(pts)
            add_comparisons(data, pts, th, x_name="alpha", fixed=fixed, rel=REL)
            if g == 0:  # the same seeds' readout on W⁰: random features
                rf_th, _ = C.curve(ctx, xs, student=STUDENT, teacher=teacher, beta=BETA, lam=LAM)
                pts = points_from(sims, xs, "test_error0", "random features simulated", group=6, panel=k, d=d,
                                  seeds=seeds, params={"teacher": teacher})
                data.points.append(pts)
                add_comparisons(data, pts, rf_th, x_name="alpha", fixed={"teacher": teacher, "eta_tilde": 0.0}, rel=REL)
    data.caption = (f"σ = tanh, targets σ* = tanh (left) and sin (right), p = d (β = {fmt(BETA)}), λ = {fmt(LAM)}, "
                    "no label noise; first step on n₀ = α₀d samples, readout on n = αd fresh samples. "
                    + sim_caption(d, seeds, p["n_test"], "random features = the same network's readout at W⁰"))
    data.notes.append("Random features saturate well above the linear floor; after one large step with enough "
                      "first-batch data (α₀ = 20) the readout goes below it.")
    return data


def plot(data, ctx):
    panels = []
    for k, teacher in enumerate(TARGETS):
        panels.append({"xlabel": "α = n/d", "ylabel": r"test error $\varepsilon_g$" if k == 0 else "", "xscale": "log", "yscale": "log",
                       "title": f"σ* = {teacher} (linear floor {data.params[f'linear_floor_{teacher}']:.4f})", "legend_loc": "figure" if k == len(TARGETS) - 1 else None,
                       "legend_ncols": 3})
    return standard_plot(data, panels, height=4.2, suptitle=(f"Cui et al.: learning curves after one large step "
                                                 f"(σ = tanh, p = d, λ = {fmt(LAM)})"))


register(Item(
    name="cui_learning_curves",
    title="Learning curves: random features vs one large step vs the linear floor",
    paper="Cui et al. (2024), learning curves (theory notes 30-spiked-rf.md §6, §8)",
    checks="The sRF fixed point predicts the test error of the trained network along α, random features stay "
           "above the linear floor h2* − h1*², and one large step with α0 = 20 goes below it.",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.spiked_rf:spiked_rf_curve", "validation.simulator:CuiConfig"),
    order=80,
))
