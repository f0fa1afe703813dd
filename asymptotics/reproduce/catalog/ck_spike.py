"""The outlier of the trained conjugate kernel against the learning rate."""

from __future__ import annotations

import numpy as np

from ..data import Curve, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ._common import NOISE_TEX, add_simulated, fmt, one_step_setting, sim_caption

STUDENT = TEACHER = "tanh"
PSI1, PSI2, NOISE = 3.0, 1.0, 0.1
SIZES = sizes(d=(150, 500, 800, 1600), seeds=(3, 3, 3, 6),
              eta=([1.0, 8.0],
                   [1.0, 4.0, 6.0, 8.0],
                   [1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0],
                   [1.0, 2.0, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0]))


def data(ctx):
    from validation.simulator import BaConfig

    from ...theory.one_step import ck_outlier, spike

    model, fig = one_step_setting(ctx, "eta", student=STUDENT, teacher=TEACHER, psi1=PSI1, psi2=PSI2, noise=NOISE)
    grid = np.linspace(0.0, 10.5, 211)
    ck = ck_outlier(model, PSI1, PSI2, grid)
    sep = np.asarray(ck.separated, bool)
    out = np.where(sep, np.asarray(ck.top_eigenvalue, float), np.nan)
    fig.curves.append(Curve(r"$\lambda_{\max}$(CK): theory (outlier)", grid, out, "ck_outlier", group=0))
    edge = float(np.asarray(ck.bulk_edge).ravel()[0])
    fig.lines.append(RefLine("bound", edge, f"bulk edge of the CK spectrum ({edge:.3f})"))
    eta_c = float(spike(model, PSI1, PSI2, 1.0).eta_threshold)
    fig.lines.append(RefLine("threshold", eta_c, rf"BBP threshold of W₁, $\eta_c$ = {eta_c:.3f}"))
    if sep.any():
        eta_ck = float(grid[np.argmax(sep)])
        fig.params["eta_ck_separation"] = eta_ck
        fig.notes.append(f"The CK outlier leaves the bulk at η ≈ {eta_ck:.2f}, after the weight spike (η_c = {eta_c:.3f}): "
                         "the population spike μ1² s₁² + μ2² must exceed the spiked-covariance critical value.")
    p = ctx.p
    xs = [float(x) for x in p["eta"]]
    sims = ctx.sweep(BaConfig, "eta", xs, "trained CK", student=STUDENT, teacher=TEACHER, psi1=PSI1, psi2=PSI2,
                     noise=NOISE, measure=("ck",))
    th = np.asarray(ck_outlier(model, PSI1, PSI2, np.array(xs)).top_eigenvalue, float)
    # the formula is for a well-separated spike; near the separation the finite-d top eigenvalue is biased upwards
    add_simulated(ctx, fig, sims, xs, "ck_outlier", r"$\lambda_{\max}$(CK) simulated", th,
                  fixed={"psi1": PSI1, "psi2": PSI2}, skip=lambda x: abs(x - eta_c) < 0.5 * eta_c,
                  reason="the CK-outlier theory is d → ∞ only; its limit at η = 6 is judged by the extrapolation "
                         "of ge_check and `validate --finite-size` (one-step-ck-outlier-psi1-3-eta6)")
    fig.caption = (f"σ = σ* = tanh, ψ₁ = {fmt(PSI1)}, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}; largest eigenvalue of "
                   f"S = σ(X̃W₁)ᵀσ(X̃W₁)/n (N×N) on a fresh sample; below the separation it is the bulk edge. "
                   + sim_caption(p["d"], p["seeds"]))
    return fig


ITEM = Item(
    name="ck_spike",
    title="The outlier of the trained conjugate kernel against η",
    paper="Ba et al. (2022), the trained-CK spike (a hypothesis there); docs/one-step.md §2",
    checks="Above the threshold the trained CK has an outlier eigenvalue beside the spiked-covariance prediction "
           "(μ1²s₁² + μ2²)(1 + (ψ2/ψ1)(1/θ² + (μ2²/μ1²)/(ψ2 + θ²))) (d → ∞: shown, not judged at one d).",
    sizes=SIZES,
    data=data,
    plot=PlotSpec.single(Panel("learning rate η", "largest eigenvalue of the trained CK", legend="upper left",
                                title="σ = σ* = tanh, ψ₁ = {psi1}, ψ₂ = {psi2}, " + NOISE_TEX + " = {noise}"),
                         "Spike of the trained conjugate kernel"),
    order=70,
)
