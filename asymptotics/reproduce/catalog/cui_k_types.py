"""Cui et al. (2024): non-uniform readout initialisation — K readout types make the spike more expressive."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData
from ..registry import Item, register
from . import _cui_setting as C
from ._common import add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT, TEACHER = "tanh", "sin"
C_BULK, R, GAMMA = 1.0, 1.5, 1.0  # the checked point of 30-spiked-rf.md §7 (α = 3: theory 0.0147, sRF 0.0149 ± 0.0009)
BETA, LAM = 1.0, 0.01
READOUTS = (((1.0,), (1.0,)), ((0.3, 1.7), (0.5, 0.5)))
LABELS = ("uniform readout u ≡ 1", "2 types u ∈ {0.3, 1.7}")
SIZES = {
    "toy": {"d": 200, "seeds": 4, "n_test": 3000, "alpha": [3.0]},
    "quick": {"d": 300, "seeds": 4, "n_test": 5000, "alpha": [1.0, 3.0]},
    "default": {"d": 800, "seeds": 3, "n_test": 10_000, "alpha": [0.5, 1.0, 2.0, 3.0, 5.0]},
    "full": {"d": 2000, "seeds": 3, "n_test": 10_000, "alpha": [0.5, 1.0, 2.0, 3.0, 5.0]},
}
REL = 0.05


def compute(ctx) -> FigureData:
    from validation.simulator import SRFConfig

    p = ctx.p
    data = FigureData("cui_k_types", "alpha", params={"student": STUDENT, "teacher": TEACHER, "c": C_BULK, "r": R,
                                                      "gamma": GAMMA, "beta": BETA, "lam": LAM, **p})
    grid = np.geomspace(0.3, 6.0, 50)
    d, seeds = p["d"], p["seeds"]
    xs = [float(a) for a in p["alpha"]]
    for g, ((vals, props), label) in enumerate(zip(READOUTS, LABELS, strict=True)):
        ro = None if len(vals) == 1 else vals
        te, _ = C.curve(ctx, grid, student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM, srf=(C_BULK, R, GAMMA), readout=ro)
        data.curves.append(Curve(label, grid, te, "test_error", {"readout": list(vals)}, group=g))
        cfgs = [SRFConfig(student=STUDENT, teacher=TEACHER, d=d, alpha=a, beta=BETA, lam=LAM, c=C_BULK, r=R, gamma=GAMMA,
                          readout_values=vals, readout_proportions=props, n_test=p["n_test"]) for a in xs]
        sims = ctx.simulate_all(cfgs, seeds, f"K = {len(vals)}")
        th, _ = C.curve(ctx, xs, student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM, srf=(C_BULK, R, GAMMA), readout=ro)
        pts = points_from(sims, xs, "test_error", f"sRF simulated, K = {len(vals)}", group=g, d=d, seeds=seeds,
                          params={"K": len(vals)})
        data.points.append(pts)
        add_comparisons(data, pts, th, x_name="alpha", fixed={"K": len(vals)}, rel=REL)
    data.caption = (f"sRF model σ(√c Wx + r u κ) with σ = tanh, target sin(⟨θ, x⟩), c = {fmt(C_BULK)}, "
                    f"r = {fmt(R)}, γ = {fmt(GAMMA)}, p = d, λ = {fmt(LAM)}; readout types u with equal proportions. "
                    + sim_caption(d, seeds, p["n_test"]))
    data.notes.append("With a uniform readout the spike direction can only be fitted by m μ0(κ) + t κ μ1(κ), two "
                      "functions of κ = ⟨v, x⟩; each readout type adds its own pair (block order parameters, a K×K "
                      "mean system and an operator-valued Marchenko–Pastur prior).")
    return data


def plot(data, ctx):
    return standard_plot(data, [
        {"xlabel": "α = n/d", "ylabel": r"test error $\varepsilon_g$", "xscale": "log", "yscale": "log",
         "title": f"σ = tanh, σ* = sin, c = {fmt(C_BULK)}, r = {fmt(R)}, γ = {fmt(GAMMA)}, p = d, λ = {fmt(LAM)}",
         "legend_loc": "lower left"},
    ], suptitle="Cui et al.: non-uniform readout initialisation (K readout types)", width=5.6, height=4.2)


register(Item(
    name="cui_k_types",
    title="K readout types: a more expressive spike",
    paper="Cui et al. (2024), non-uniform readout initialisation (theory notes 30-spiked-rf.md §7)",
    checks="The block (K-type) sRF theory predicts the simulated test error of the sRF model with a uniform and a "
           "two-type readout initialisation along α.",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.spiked_rf:spiked_rf_curve", "validation.simulator:SRFConfig"),
    order=100,
))
