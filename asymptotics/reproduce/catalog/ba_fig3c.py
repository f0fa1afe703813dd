"""Ba et al. (2022) Fig. 3(c): risk against ψ1 for learning rates η = N^a, a ∈ [0, 1/2] (erf/erf)."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from . import _erf_setting as S
from . import _large_step as L
from ._common import NOISE_TEX, RISK_LABEL, add_comparisons, fmt, points_from, sim_caption, standard_plot

EXPONENTS = (0.0, 0.125, 0.25, 0.375, 0.5)
SIZES = {
    "toy": {"d": 100, "seeds": 4, "n_test": 2000, "psi1": [4.0, 16.0], "exponents": [0.0, 0.5]},
    "quick": {"d": 128, "seeds": 4, "n_test": 4000, "psi1": [4.0, 16.0], "exponents": [0.0, 0.25, 0.5]},
    "default": {"d": 256, "seeds": 4, "n_test": 10_000, "psi1": [4.0, 8.0, 16.0], "exponents": list(EXPONENTS)},
    "full": {"d": 512, "seeds": 20, "n_test": 10_000, "psi1": [2.0, 4.0, 8.0, 16.0, 32.0], "exponents": list(EXPONENTS)},
}
REL = 0.03
_FRACTION = {0.0: "0", 0.125: "1/8", 0.25: "1/4", 0.375: "3/8", 0.5: "1/2"}


def compute(ctx) -> FigureData:
    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    risk = ctx.theory("asymptotics.theory.one_step:risk")
    large = L.available(ctx)
    kw = dict(psi2=S.PSI2, lam=S.LAM, noise=S.NOISE, c=1.0)
    p = ctx.p
    model = OneStepModel.from_activations(S.STUDENT, S.TEACHER, noise=S.NOISE)
    data = FigureData("ba_fig3c", "psi1", params={"student": S.STUDENT, "teacher": S.TEACHER, "psi2": S.PSI2,
                                                  "lam": S.LAM, "noise": S.NOISE, **p})
    grid = np.geomspace(1.0, 40.0, 200)
    d, seeds = p["d"], p["seeds"]
    data.curves.append(Curve("a = 0 (η = 1): theory", grid, risk(model, grid, S.PSI2, S.LAM, 1.0).risk1, "risk1",
                             {"eta_exponent": 0.0}, group=0))
    if large:
        data.curves.append(Curve("a = 1/2 (η = √N): exact theory, N = ∞", S.LARGE_GRID,
                                 L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, S.LARGE_GRID, d=d, **kw), "risk1",
                                 {"eta_exponent": 0.5}, group=len(EXPONENTS) - 1))
    data.lines.append(RefLine("bound", model.kernel_bound, "kernel lower bound μ₂*²"))
    if large:
        N = int(round(S.PSI2 * d))
        data.curves.append(Curve(f"a = 1/2: exact theory at the simulated width N = {N}", S.LARGE_GRID,
                                 L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, S.LARGE_GRID, width=N, d=d, **kw), "risk1",
                                 {"eta_exponent": 0.5, "N": N}, style="--", group=len(EXPONENTS) - 1))
    xs = [float(x) for x in p["psi1"]]
    for g, a in enumerate(EXPONENTS):
        if a not in p["exponents"]:
            continue
        sims = ctx.simulate_all([S.config(d, x, a, p["n_test"]) for x in xs], seeds, f"a = {_FRACTION[a]}")
        pts = points_from(sims, xs, "risk1", f"a = {_FRACTION[a]} simulated", group=g, d=d, seeds=seeds,
                          params={"eta_exponent": a})
        data.points.append(pts)
        if a == 0.0:
            add_comparisons(data, pts, risk(model, np.array(xs), S.PSI2, S.LAM, 1.0).risk1, x_name="psi1",
                            fixed={"eta_exponent": a}, rel=REL)
        elif a == 0.5 and large:
            N = int(round(S.PSI2 * d))
            fin = L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, xs, width=N, d=d, check=ctx.size != "toy", **kw)
            add_comparisons(data, pts, fin, x_name="psi1", fixed={"eta_exponent": a, "N": N}, rel=0.05)
    data.caption = (f"σ = σ* = erf, ψ₂ = {fmt(S.PSI2)}, λ = {fmt(S.LAM)}, σ_ε = {fmt(S.NOISE)}; learning rate η = N^a. "
                    + sim_caption(d, seeds, p["n_test"]))
    data.notes.append("Theory exists for a = 0 (small step, the deterministic equivalent) and a = 1/2 (the exact "
                      "large-step theory of this project); for 0 < a < 1/2 only the spike count is known "
                      "(ℓ spikes when (ℓ−1)/(2ℓ) < a < ℓ/(2ℓ+2)), so those are simulation only.")
    if not large:
        data.notes.append(f"The a = 1/2 theory curve needs `{L.TARGET}` (not available yet).")
    return data


def plot(data, ctx):
    p = data.params
    return standard_plot(data, [
        {"xlabel": "ψ₁ = n/d", "ylabel": RISK_LABEL, "xscale": "log", "yscale": "log",
         "title": f"σ = σ* = erf, ψ₂ = {fmt(p['psi2'])}, λ = {fmt(p['lam'])}, {NOISE_TEX} = {fmt(p['noise'])}, η = N$^a$",
         "legend_loc": "figure", "legend_ncols": 2},
    ], suptitle="Ba et al. Fig. 3(c): from a small to a large step", width=6.4, height=5.2)


register(Item(
    name="ba_fig3c",
    title="Risk against ψ1 for learning rates η = N^a (erf)",
    paper="Ba et al. (2022), Fig. 3(c)",
    checks="The risk decreases monotonically with the step exponent a; a = 0 matches the small-step theory and "
           "a = 1/2 drops below the kernel bound μ2*².",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.one_step:risk", "validation.simulator:BaConfig"),
    order=40,
))
