"""The outlier of the trained conjugate kernel against the learning rate."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from ._common import NOISE_TEX, add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT = TEACHER = "tanh"
PSI1, PSI2, NOISE = 3.0, 1.0, 0.1
SIZES = {
    "toy": {"d": 150, "seeds": 3, "eta": [1.0, 8.0]},
    "quick": {"d": 500, "seeds": 3, "eta": [1.0, 4.0, 6.0, 8.0]},
    "default": {"d": 800, "seeds": 3, "eta": [1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0]},
    "full": {"d": 1600, "seeds": 6, "eta": [1.0, 2.0, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0]},
}


def compute(ctx) -> FigureData:
    from validation.simulator import BaConfig

    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    ck_outlier = ctx.theory("asymptotics.theory.one_step:ck_outlier")
    spike = ctx.theory("asymptotics.theory.one_step:spike")
    p = ctx.p
    model = OneStepModel.from_activations(STUDENT, TEACHER, noise=NOISE)
    data = FigureData("ck_spike", "eta", params={"student": STUDENT, "teacher": TEACHER, "psi1": PSI1, "psi2": PSI2,
                                                 "noise": NOISE, **p})
    grid = np.linspace(0.0, 10.5, 211)
    ck = ck_outlier(model, PSI1, PSI2, grid)
    sep = np.asarray(ck.separated, bool)
    top = np.asarray(ck.top_eigenvalue, float)
    out = np.where(sep, top, np.nan)
    data.curves.append(Curve(r"$\lambda_{\max}$(CK): theory (outlier)", grid, out, "ck_outlier", group=0))
    edge = float(np.asarray(ck.bulk_edge).ravel()[0])
    data.lines.append(RefLine("bound", edge, f"bulk edge of the CK spectrum ({edge:.3f})"))
    eta_c = float(spike(model, PSI1, PSI2, 1.0).eta_threshold)
    data.lines.append(RefLine("threshold", eta_c, rf"BBP threshold of W₁, $\eta_c$ = {eta_c:.3f}"))
    if sep.any():
        eta_ck = float(grid[np.argmax(sep)])
        data.params["eta_ck_separation"] = eta_ck
        data.notes.append(f"The CK outlier leaves the bulk at η ≈ {eta_ck:.2f}, after the weight spike (η_c = {eta_c:.3f}): "
                          "the population spike μ1² s₁² + μ2² must exceed the spiked-covariance critical value.")
    d, seeds = p["d"], p["seeds"]
    xs = [float(x) for x in p["eta"]]
    cfgs = [BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=PSI1, psi2=PSI2, eta=x, noise=NOISE, measure=("ck",))
            for x in xs]
    sims = ctx.simulate_all(cfgs, seeds, "trained CK")
    pts = points_from(sims, xs, "ck_outlier", r"$\lambda_{\max}$(CK) simulated", group=0, d=d, seeds=seeds)
    data.points.append(pts)
    th = np.asarray(ck_outlier(model, PSI1, PSI2, np.array(xs)).top_eigenvalue, float)
    # the formula is for a well-separated spike; near the separation the finite-d top eigenvalue is biased upwards
    add_comparisons(data, pts, th, x_name="eta", fixed={"psi1": PSI1, "psi2": PSI2}, rel=0.03,
                    skip=lambda x: abs(x - eta_c) < 0.5 * eta_c)
    data.caption = (f"σ = σ* = tanh, ψ₁ = {fmt(PSI1)}, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}; largest eigenvalue of "
                    f"S = σ(X̃W₁)ᵀσ(X̃W₁)/n (N×N) on a fresh sample; below the separation it is the bulk edge. "
                    + sim_caption(d, seeds))
    return data


def plot(data, ctx):
    p = data.params
    return standard_plot(data, [
        {"xlabel": "learning rate η", "ylabel": "largest eigenvalue of the trained CK",
         "title": f"σ = σ* = tanh, ψ₁ = {fmt(p['psi1'])}, ψ₂ = {fmt(p['psi2'])}, {NOISE_TEX} = {fmt(p['noise'])}",
         "legend_loc": "upper left"},
    ], suptitle="Spike of the trained conjugate kernel", width=5.6, height=4.2)


register(Item(
    name="ck_spike",
    title="The outlier of the trained conjugate kernel against η",
    paper="Ba et al. (2022), the trained-CK spike (a hypothesis there); theory notes 10-one-step.md §4",
    checks="Above the threshold the trained CK has an outlier eigenvalue at the spiked-covariance prediction "
           "(μ1²s₁² + μ2²)(1 + (ψ2/ψ1)(1/θ² + (μ2²/μ1²)/(ψ2 + θ²))).",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.one_step:ck_outlier", "validation.simulator:BaConfig"),
    order=70,
))
