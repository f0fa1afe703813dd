"""Ba et al. (2022) Fig. 1: what one gradient step buys — random features, a small step, a large step,
against the kernel lower bound (erf student and teacher)."""

from __future__ import annotations

import numpy as np

from ..data import Curve, FigureData, RefLine
from ..registry import Item, register
from . import _erf_setting as S
from . import _large_step as L
from ._common import NOISE_TEX, RISK_LABEL, add_comparisons, fmt, points_from, sim_caption, standard_plot

SIZES = {
    "toy": {"d": 100, "seeds": 4, "n_test": 2000, "psi1": [4.0, 16.0]},
    "quick": {"d": 128, "seeds": 4, "n_test": 4000, "psi1": [4.0, 16.0]},
    "default": {"d": 256, "seeds": 4, "n_test": 10_000, "psi1": [4.0, 8.0, 16.0, 32.0]},
    "full": {"d": 512, "seeds": 20, "n_test": 10_000, "psi1": [2.0, 4.0, 8.0, 16.0, 32.0]},
}
REL = 0.03


def compute(ctx) -> FigureData:
    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    risk = ctx.theory("asymptotics.theory.one_step:risk")
    large = L.available(ctx)
    p = ctx.p
    model = OneStepModel.from_activations(S.STUDENT, S.TEACHER, noise=S.NOISE)
    data = FigureData("ba_fig1", "psi1", params={"student": S.STUDENT, "teacher": S.TEACHER, "psi2": S.PSI2,
                                                 "lam": S.LAM, "noise": S.NOISE, **p})
    grid = np.geomspace(1.0, 40.0, 200)
    r = risk(model, grid, S.PSI2, S.LAM, 1.0)
    data.curves.append(Curve("random features R₀ (no step)", grid, r.risk0, "risk0", group=6))
    data.curves.append(Curve("small step η = 1: R₁", grid, r.risk1, "risk1", {"eta": 1.0}, group=0))
    kb = model.kernel_bound
    data.lines.append(RefLine("bound", kb, "kernel lower bound μ₂*²"))

    d, seeds = p["d"], p["seeds"]
    xs = [float(x) for x in p["psi1"]]
    small = ctx.simulate_all([S.config(d, x, 0.0, p["n_test"]) for x in xs], seeds, "small step")
    big = ctx.simulate_all([S.config(d, x, 0.5, p["n_test"]) for x in xs], seeds, "large step")
    th = risk(model, np.array(xs), S.PSI2, S.LAM, 1.0)
    pts = points_from(small, xs, "risk0", "R₀ simulated", group=6, d=d, seeds=seeds)
    data.points.append(pts)
    add_comparisons(data, pts, th.risk0, x_name="psi1", fixed={"eta": 1.0}, rel=REL)
    pts = points_from(small, xs, "risk1", "small step simulated", group=0, d=d, seeds=seeds, params={"eta": 1.0})
    data.points.append(pts)
    add_comparisons(data, pts, th.risk1, x_name="psi1", fixed={"eta": 1.0}, rel=REL)
    big_pts = points_from(big, xs, "risk1", "large step η = √N simulated", group=1, d=d, seeds=seeds,
                          params={"eta_exponent": 0.5})
    data.points.append(big_pts)
    if large:
        _large_step_theory(ctx, data, grid, big_pts, d)
    # Θ(d/n) reference through the large-step point at the largest ψ1
    data.lines.append(RefLine("rate", big_pts.x[-1], "Θ(d/n)", anchor_y=big_pts.mean[-1], slope=-1.0))
    below = [(x, m, s) for x, m, s in zip(big_pts.x, big_pts.mean, big_pts.se, strict=True) if m + 2 * s < kb]
    data.notes.append("Large step below the kernel bound μ2*² = {:.4f} at ψ1 = {}: {}.".format(
        kb, ", ".join(fmt(x) for x, _, _ in below) or "none",
        "; ".join(f"{m:.4f} ± {s:.4f}" for _, m, s in below) or "—"))
    data.caption = (f"σ = σ* = erf, ψ₂ = {fmt(S.PSI2)}, λ = {fmt(S.LAM)}, σ_ε = {fmt(S.NOISE)} (not stated for Fig. 1; "
                    f"those of Fig. 3(c)); small step η = 1, large step η = √N. "
                    + sim_caption(d, seeds, p["n_test"]))
    if not large:
        data.notes.append(f"The exact large-step theory curve is not drawn yet (needs `{L.TARGET}`); "
                          "the large step is shown by simulation only, as in the paper (which has only a bound).")
    return data


def _large_step_theory(ctx, data, grid, pts, d):
    """The exact large-step curve (N = ∞) and its finite-N prediction at the simulated points."""
    kw = dict(psi2=S.PSI2, lam=S.LAM, noise=S.NOISE, c=1.0)
    inf = L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, S.LARGE_GRID, d=d, **kw)
    data.curves.append(Curve("large step η = √N: exact theory (N = ∞)", S.LARGE_GRID, inf, "risk1", {"eta_exponent": 0.5}, group=1))
    N = int(round(S.PSI2 * d))
    data.curves.append(Curve(f"large step: exact theory at the simulated width N = {N}", S.LARGE_GRID,
                             L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, S.LARGE_GRID, width=N, d=d, **kw), "risk1",
                             {"eta_exponent": 0.5, "N": N}, style="--", group=1))
    fin = L.large_step_risk1(ctx, S.STUDENT, S.TEACHER, pts.x, width=N, d=d, check=ctx.size != "toy", **kw)
    add_comparisons(data, pts, fin, x_name="psi1", fixed={"eta_exponent": 0.5, "N": N}, rel=0.05)
    data.notes.append("Large-step simulations are compared with the finite-N prediction (width N = ψ2·d); the line "
                      "is the N = ∞ limit, which the network approaches slowly (excess ∝ N^{-0.7}).")


def plot(data, ctx):
    p = data.params
    return standard_plot(data, [
        {"xlabel": "ψ₁ = n/d", "ylabel": RISK_LABEL, "xscale": "log", "yscale": "log",
         "title": f"σ = σ* = erf, ψ₂ = {fmt(p['psi2'])}, λ = {fmt(p['lam'])}, {NOISE_TEX} = {fmt(p['noise'])}",
         "legend_loc": "figure", "legend_ncols": 2},
    ], suptitle="Ba et al. Fig. 1: one gradient step against the kernel bound", width=6.4, height=5.2)


register(Item(
    name="ba_fig1",
    title="Random features, small step, large step and the kernel bound (erf)",
    paper="Ba et al. (2022), Fig. 1",
    checks="A small step improves on random features but stays above the kernel bound μ2*², while a large step "
           "η = √N goes below it and decays like d/n.",
    kind="figure",
    sizes=SIZES,
    compute=compute,
    plot=plot,
    requires=("asymptotics.theory.one_step:risk", "validation.simulator:BaConfig"),
    order=10,
))
