"""Alignment of W₁ with the teacher against the sample ratio ψ1, at several learning rates."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from ._common import NOISE_TEX, add_comparisons, fmt, points_from, sim_caption, standard_plot

STUDENT = TEACHER = "tanh"
PSI2, NOISE = 1.5, 0.1
ETAS = (2.0, 2.5, 5.0)
SIZES = {
    "toy": {"d": 200, "seeds": 3, "psi1": [0.5, 8.0], "sim_etas": [5.0]},
    "quick": {"d": 400, "seeds": 3, "psi1": [0.25, 1.0, 4.0, 16.0], "sim_etas": [2.0, 5.0]},
    "default": {"d": 600, "seeds": 3, "psi1": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0], "sim_etas": list(ETAS)},
    "full": {"d": 2000, "seeds": 10, "psi1": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0], "sim_etas": list(ETAS)},
}
LO, HI = 0.2, 20.0


def compute(ctx) -> FigureData:
    from validation.simulator import BaConfig

    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    spike = ctx.theory("asymptotics.theory.one_step:spike")
    p = ctx.p
    model = OneStepModel.from_activations(STUDENT, TEACHER, noise=NOISE)
    data = FigureData("alignment_psi1", "psi1", params={"student": STUDENT, "teacher": TEACHER, "psi2": PSI2,
                                                        "noise": NOISE, "etas": list(ETAS), **p})
    grid = np.geomspace(LO, HI, 300)
    thresholds = {}
    for g, eta in enumerate(ETAS):
        sp = spike(model, grid, PSI2, eta)
        data.curves.append(Curve(f"η = {fmt(eta)}", grid, sp.overlap_beta, "overlap_beta", {"eta": eta}, group=g))
        # the spike separates iff η > η_c(ψ1); η_c increases with ψ1 (less sampling noise in the gradient)
        f = lambda x, eta=eta: float(spike(model, x, PSI2, 1.0).eta_threshold) - eta  # noqa: E731
        if f(LO) < 0 < f(HI):
            x_c = brentq(f, LO, HI, xtol=1e-12)
            thresholds[eta] = x_c
            data.lines.append(RefLine("threshold", x_c, f"BBP threshold for η = {fmt(eta)}: ψ₁ = {x_c:.3g}", group=g))
    rho = model.mu1_star**2 / (model.mu1_star**2 + model.label_energy / grid)
    data.curves.append(Curve("ρ² (η → ∞ limit)", grid, rho, "rho_sq", group=6, style="--"))
    data.params["thresholds_psi1"] = {str(k): v for k, v in thresholds.items()}

    d, seeds = p["d"], p["seeds"]
    xs = [float(x) for x in p["psi1"]]
    for g, eta in enumerate(ETAS):
        if eta not in p["sim_etas"]:
            continue
        cfgs = [BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=x, psi2=PSI2, eta=eta, noise=NOISE,
                         measure=("spike",)) for x in xs]
        sims = ctx.simulate_all(cfgs, seeds, f"η = {fmt(eta)}")
        pts = points_from(sims, xs, "overlap_beta", f"simulated, η = {fmt(eta)}", group=g, d=d, seeds=seeds,
                          params={"eta": eta})
        data.points.append(pts)
        th = spike(model, np.array(xs), PSI2, eta).overlap_beta
        x_c = thresholds.get(eta)
        skip = None if x_c is None else (lambda x, x_c=x_c: abs(np.log(x / x_c)) < 0.5)
        add_comparisons(data, pts, th, x_name="psi1", fixed={"eta": eta, "psi2": PSI2}, rel=0.02, absolute=0.02,
                        skip=skip)
    data.caption = (f"σ = σ* = tanh, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}; ⟨u₁, β*⟩² of the top left singular vector "
                    f"of W₁. " + sim_caption(d, seeds))
    data.notes.append("Few samples make the gradient noisy: the spike is then strong (θ2² ∝ 1/ψ1) but points away "
                      "from β* (ρ² small); many samples align it (ρ² → 1) but weaken it, and for small η it falls "
                      "below the BBP threshold θ⁴ = ψ2 (dotted lines).")
    data.notes.append("Points within a factor e^{±1/2} of a threshold are plotted but not scored (largest finite-size error).")
    return data


def plot(data, ctx):
    p = data.params
    return standard_plot(data, [
        {"xlabel": "ψ₁ = n/d", "ylabel": "alignment ⟨u₁, β*⟩²", "xscale": "log", "ylim": (-0.02, 1.0),
         "title": f"σ = σ* = tanh, ψ₂ = {fmt(p['psi2'])}, {NOISE_TEX} = {fmt(p['noise'])}", "legend_loc": "upper left"},
    ], suptitle="Alignment with the teacher after one step, against ψ₁", width=5.6, height=4.2)


register(Item(
    name="alignment_psi1",
    title="Alignment with the teacher against ψ1 (BBP threshold marked)",
    paper="Ba et al. (2022), appendix (alignment vs ψ1); theory notes 10-one-step.md §3",
    checks="⟨u₁, β*⟩² follows ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)) across ψ1, vanishing beyond the BBP threshold when the "
           "step is small.",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.one_step:spike", "validation.simulator:BaConfig"),
    order=60,
))
