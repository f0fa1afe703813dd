"""Ba et al. (2022) Fig. 1: what one gradient step buys — random features, a small step, a large step,
against the kernel lower bound (erf student and teacher)."""

from __future__ import annotations

import numpy as np

from ..data import Curve, RefLine
from ..item import Item, sizes
from ..verdicts import above, below
from . import _erf_setting as S
from ._common import FINITE_WIDTH, add_simulated, fmt, sim_caption
from ._large_step import large_step_risk1

SIZES = sizes(d=(100, 128, 256, 512), seeds=(4, 8, 8, 20), n_test=(2000, 4000, 10_000, 10_000),
              psi1=([4.0, 16.0], [4.0, 16.0], [4.0, 8.0, 16.0, 32.0], [2.0, 4.0, 8.0, 16.0, 32.0]))
#: why the small-step rows are not judged here
SMALL_STEP_REASON = ("the small-step theory is d → ∞ only; its d → ∞ limit is judged by `validate --finite-size` "
                     "(one-step risk variants)")


def data(ctx):
    from ...theory.one_step import risk

    p = ctx.p
    model = S.small_step_model()
    fig = ctx.figure("psi1", **S.PARAMS)
    grid = np.geomspace(1.0, 40.0, 200)
    r = risk(model, grid, S.PSI2, S.LAM, 1.0)
    fig.curves.append(Curve("random features R₀ (no step)", grid, r.risk0, "risk0", group=6))
    fig.curves.append(Curve("small step η = 1: R₁", grid, r.risk1, "risk1", {"eta": 1.0}, group=0))
    kb = model.kernel_bound
    fig.lines.append(RefLine("bound", kb, "kernel lower bound μ₂*²"))

    d, xs = p["d"], [float(x) for x in p["psi1"]]
    small = ctx.simulate_all([S.config(d, x, 0.0, p["n_test"]) for x in xs], p["seeds"], "small step")
    big = ctx.simulate_all([S.config(d, x, 0.5, p["n_test"]) for x in xs], p["seeds"], "large step")
    th = risk(model, np.array(xs), S.PSI2, S.LAM, 1.0)
    add_simulated(ctx, fig, small, xs, "risk0", "R₀ simulated", th.risk0, fixed={"eta": 1.0},
                  reason=SMALL_STEP_REASON, group=6)
    small_pts = add_simulated(ctx, fig, small, xs, "risk1", "small step simulated", th.risk1, fixed={"eta": 1.0},
                              reason=SMALL_STEP_REASON, group=0, params={"eta": 1.0})
    # the exact large-step theory: the N = ∞ curve, and the finite-N prediction at the simulated width
    N = int(round(S.PSI2 * d))
    fig.curves.append(Curve("large step η = √N: exact theory (N = ∞)", S.LARGE_GRID,
                            large_step_risk1(S.STUDENT, S.TEACHER, S.LARGE_GRID, d=d, **S.LARGE_STEP), "risk1",
                            {"eta_exponent": 0.5}, group=1))
    fig.curves.append(Curve(f"large step: exact theory at the simulated width N = {N}", S.LARGE_GRID,
                            large_step_risk1(S.STUDENT, S.TEACHER, S.LARGE_GRID, width=N, d=d, **S.LARGE_STEP),
                            "risk1", {"eta_exponent": 0.5, "N": N}, style="--", group=1))
    fin = large_step_risk1(S.STUDENT, S.TEACHER, xs, width=N, d=d, check=ctx.size != "toy", **S.LARGE_STEP)
    big_pts = add_simulated(ctx, fig, big, xs, "risk1", "large step η = √N simulated", fin,
                            fixed={"eta_exponent": 0.5, "N": N}, method=FINITE_WIDTH, group=1,
                            params={"eta_exponent": 0.5})
    # Θ(d/n) reference through the large-step point at the largest ψ1
    fig.lines.append(RefLine("rate", big_pts.x[-1], "Θ(d/n)", anchor_y=big_pts.mean[-1], slope=-1.0))
    fig.notes.append("Large-step simulations are compared with the finite-N prediction (width N = ψ2·d); the line "
                     "is the N = ∞ limit, which the network approaches slowly (excess ∝ N^{-0.7}).")
    seeds = p["seeds"]
    fig.verdicts.append(above(small_pts.mean, small_pts.se, kb, "the small-step risk R₁ (η = 1)", seeds=seeds))
    fig.verdicts.append(below(big_pts.mean[-1:], big_pts.se[-1:], kb,
                              f"the large-step risk R₁ (η = √N) at ψ₁ = {fmt(big_pts.x[-1])}", seeds=seeds))
    fig.caption = (f"σ = σ* = erf, ψ₂ = {fmt(S.PSI2)}, λ = {fmt(S.LAM)}, σ_ε = {fmt(S.NOISE)} (not stated for Fig. 1; "
                   f"those of Fig. 3(c)); small step η = 1, large step η = √N. "
                   + sim_caption(d, p["seeds"], p["n_test"]))
    return fig


ITEM = Item(
    name="ba_fig1",
    title="Random features, small step, large step and the kernel bound (erf)",
    paper="Ba et al. (2022), Fig. 1",
    checks="A small step improves on random features but stays above the kernel bound μ2*², while a large step "
           "η = √N goes below it at large ψ1 (computed verdicts below); the large-step risk is judged against the "
           "exact theory at the simulated width N.",
    sizes=SIZES,
    data=data,
    plot=S.plot("Ba et al. Fig. 1: one gradient step against the kernel bound"),
    order=10,
)
