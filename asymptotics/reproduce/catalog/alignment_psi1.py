"""Alignment of W₁ with the teacher against the sample ratio ψ1, at several learning rates."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..data import Curve, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ._common import NOISE_TEX, add_simulated, fmt, one_step_setting, sim_caption

STUDENT = TEACHER = "tanh"
PSI2, NOISE = 1.5, 0.1
ETAS = (2.0, 2.5, 5.0)
SIZES = sizes(d=(200, 400, 600, 2000), seeds=(3, 3, 3, 10),
              psi1=([0.5, 8.0],
                    [0.25, 1.0, 4.0, 16.0],
                    [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0],
                    [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]),
              sim_etas=([5.0], [2.0, 5.0], list(ETAS), list(ETAS)))
LO, HI = 0.2, 20.0


def data(ctx):
    from validation.simulator import BaConfig

    from ...theory.one_step import spike

    p = ctx.p
    model, fig = one_step_setting(ctx, "psi1", student=STUDENT, teacher=TEACHER, psi2=PSI2, noise=NOISE,
                                  etas=list(ETAS))
    grid = np.geomspace(LO, HI, 300)
    thresholds = {}
    for g, eta in enumerate(ETAS):
        sp = spike(model, grid, PSI2, eta)
        fig.curves.append(Curve(f"η = {fmt(eta)}", grid, sp.overlap_beta, "overlap_beta", {"eta": eta}, group=g))
        # the spike separates iff η > η_c(ψ1); η_c increases with ψ1 (less sampling noise in the gradient)
        f = lambda x, eta=eta: float(spike(model, x, PSI2, 1.0).eta_threshold) - eta  # noqa: E731
        if f(LO) < 0 < f(HI):
            x_c = brentq(f, LO, HI, xtol=1e-12)
            thresholds[eta] = x_c
            fig.lines.append(RefLine("threshold", x_c, f"BBP threshold for η = {fmt(eta)}: ψ₁ = {x_c:.3g}", group=g))
    rho = model.mu1_star**2 / (model.mu1_star**2 + model.label_energy / grid)
    fig.curves.append(Curve("ρ² (η → ∞ limit)", grid, rho, "rho_sq", group=6, style="--"))
    fig.params["thresholds_psi1"] = {str(k): v for k, v in thresholds.items()}

    xs = [float(x) for x in p["psi1"]]
    for g, eta in enumerate(ETAS):
        if eta not in p["sim_etas"]:
            continue
        sims = ctx.sweep(BaConfig, "psi1", xs, f"η = {fmt(eta)}", student=STUDENT, teacher=TEACHER, psi2=PSI2, eta=eta,
                         noise=NOISE, measure=("spike",))
        x_c = thresholds.get(eta)
        add_simulated(ctx, fig, sims, xs, "overlap_beta", f"simulated, η = {fmt(eta)}",
                      spike(model, np.array(xs), PSI2, eta).overlap_beta, fixed={"eta": eta, "psi2": PSI2},
                      reason="the spike theory is d → ∞ only; its limit at ψ1 = 2, η = 5 and 10 is judged by the "
                             "ladder of d of alignment_eta and `validate --finite-size` (one-step-alignment-*)",
                      group=g, params={"eta": eta},
                      skip=None if x_c is None else (lambda x, x_c=x_c: abs(np.log(x / x_c)) < 0.5))
    fig.caption = (f"σ = σ* = tanh, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}; ⟨u₁, β*⟩² of the top left singular vector "
                   f"of W₁. " + sim_caption(p["d"], p["seeds"]))
    fig.notes.append("Few samples make the gradient noisy: the spike is then strong (θ2² ∝ 1/ψ1) but points away "
                     "from β* (ρ² small); many samples align it (ρ² → 1) but weaken it, and for small η it falls "
                     "below the BBP threshold θ⁴ = ψ2 (dotted lines).")
    fig.notes.append("Points within a factor e^{±1/2} of a threshold are plotted but not scored (largest finite-size error).")
    return fig


ITEM = Item(
    name="alignment_psi1",
    title="Alignment with the teacher against ψ1 (BBP threshold marked)",
    paper="Ba et al. (2022), appendix (alignment vs ψ1); docs/one-step.md §1",
    checks="⟨u₁, β*⟩² beside ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)) across ψ1, vanishing beyond the BBP threshold when the "
           "step is small (a d → ∞ theory at one d: shown, not judged here).",
    sizes=SIZES,
    data=data,
    plot=PlotSpec.single(Panel("ψ₁ = n/d", "alignment ⟨u₁, β*⟩²", xscale="log", ylim=(-0.02, 1.0),
                                legend="upper left", title="σ = σ* = tanh, ψ₂ = {psi2}, " + NOISE_TEX + " = {noise}"),
                         "Alignment with the teacher after one step, against ψ₁"),
    order=60,
)
