"""The spike of W₁ against the learning rate: BBP transition, alignment with the teacher and the readout."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from ._common import NOISE_TEX, add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT = TEACHER = "tanh"
PSI1, PSI2, NOISE = 2.0, 1.5, 0.1
SIZES = {
    "toy": {"d": 200, "seeds": 3, "eta": [1.0, 6.0, 10.0]},
    "quick": {"d": 400, "seeds": 3, "eta": [1.0, 2.0, 4.0, 6.0, 10.0]},
    "default": {"d": 800, "seeds": 3, "eta": [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0]},
    "full": {"d": 2000, "seeds": 10, "eta": [0.5, 1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.5, 10.0, 12.0]},
}


def compute(ctx) -> FigureData:
    from validation.simulator import BaConfig

    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    spike = ctx.theory("asymptotics.theory.one_step:spike")
    p = ctx.p
    model = OneStepModel.from_activations(STUDENT, TEACHER, noise=NOISE)
    data = FigureData("alignment_eta", "eta", params={"student": STUDENT, "teacher": TEACHER, "psi1": PSI1,
                                                      "psi2": PSI2, "noise": NOISE, **p})
    grid = np.linspace(0.0, 12.0, 481)
    sp = spike(model, PSI1, PSI2, grid)
    eta_c = float(spike(model, PSI1, PSI2, 1.0).eta_threshold)
    data.params["eta_threshold"] = eta_c
    data.curves.append(Curve("⟨u₁, β*⟩² (teacher)", grid, sp.overlap_beta, "overlap_beta", group=0))
    data.curves.append(Curve("⟨v₁, a⟩² (readout)", grid, sp.overlap_a, "overlap_a", group=1))
    data.curves.append(Curve("ρ² = lim⟨u, β*⟩² (large-step limit)", grid, np.full_like(grid, float(sp.rho_sq[0])),
                             "rho_sq", group=0, style=":"))
    data.curves.append(Curve("s₁(W₁)² theory", grid, sp.top_sv2, "top_sv2", group=2, panel=1))
    edge = (1 + np.sqrt(PSI2)) ** 2
    data.lines.append(RefLine("threshold", eta_c, rf"BBP threshold $\eta_c$ = {eta_c:.3f}"))
    data.lines.append(RefLine("threshold", eta_c, "BBP threshold", panel=1))
    data.lines.append(RefLine("bound", edge, "bulk edge (1 + √ψ₂)²", panel=1))

    d, seeds = p["d"], p["seeds"]
    xs = [float(x) for x in p["eta"]]
    cfgs = [BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=PSI1, psi2=PSI2, eta=x, noise=NOISE,
                     measure=("spike",)) for x in xs]
    sims = ctx.simulate_all(cfgs, seeds, "spike")
    th = spike(model, PSI1, PSI2, np.array(xs))

    def near(x):  # finite-size effects are largest just above the threshold (checked: 0.209 vs 0.242 at d = 1000)
        return abs(x - eta_c) < 0.35 * eta_c

    for q, label, g, panel, rel, ab in (("overlap_beta", "⟨u₁, β*⟩² simulated", 0, 0, 0.02, 0.02),
                                        ("overlap_a", "⟨v₁, a⟩² simulated", 1, 0, 0.02, 0.03),
                                        ("top_sv2", "s₁(W₁)² simulated", 2, 1, 0.03, 0.0)):
        pts = points_from(sims, xs, q, label, group=g, panel=panel, d=d, seeds=seeds)
        data.points.append(pts)
        add_comparisons(data, pts, getattr(th, q), x_name="eta", fixed={"psi1": PSI1, "psi2": PSI2}, rel=rel,
                        absolute=ab, skip=near, note="")
    data.caption = (f"σ = σ* = tanh, ψ₁ = {fmt(PSI1)}, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}; W₁ = W₀ + η√N G₀ "
                    f"with the exact first gradient. " + sim_caption(d, seeds))
    data.notes.append(f"Points within 35 % of the threshold η_c = {eta_c:.3f} are plotted but not scored: the "
                      "finite-size error of the overlap is largest there (O(d^{-1/3}) near a BBP transition).")
    return data


def plot(data, ctx):
    p = data.params
    return standard_plot(data, [
        {"xlabel": "learning rate η", "ylabel": "squared overlap", "ylim": (-0.02, 1.0),
         "title": "alignment of the top singular vectors", "legend_loc": "lower right"},
        {"xlabel": "learning rate η", "ylabel": "top singular value² of W₁", "title": "outlier s₁(W₁)²",
         "legend_loc": "upper left"},
    ], suptitle=(f"Spike of W₁ after one step (BBP transition): σ = σ* = tanh, ψ₁ = {fmt(p['psi1'])}, "
                 f"ψ₂ = {fmt(p['psi2'])}, {NOISE_TEX} = {fmt(p['noise'])}"))


register(Item(
    name="alignment_eta",
    title="Alignment with the teacher against the learning rate (BBP threshold)",
    paper="Ba et al. (2022), §3 and appendix (alignment vs η); theory notes 10-one-step.md §3",
    checks="The top singular vectors of W₁ align with β* and a only above the BBP threshold η_c, with the "
           "predicted overlaps and outlier s₁².",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.one_step:spike", "validation.simulator:BaConfig"),
    order=50,
))
