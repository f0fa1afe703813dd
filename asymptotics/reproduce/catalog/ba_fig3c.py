"""Ba et al. (2022) Fig. 3(c): risk against ψ1 for learning rates η = N^a, a ∈ [0, 1/2] (erf/erf)."""

from __future__ import annotations

import numpy as np

from ..data import Curve, RefLine
from ..item import Item, sizes
from ..verdicts import monotone
from . import _erf_setting as S
from ._common import FINITE_WIDTH, INFINITE, add_simulated, fmt, sim_caption
from ._large_step import large_step_risk1
from .ba_fig1 import SMALL_STEP_REASON

EXPONENTS = (0.0, 0.125, 0.25, 0.375, 0.5)
SIZES = sizes(d=(100, 128, 256, 512), seeds=(4, 8, 8, 20), n_test=(2000, 4000, 10_000, 10_000),
              psi1=([4.0, 16.0], [4.0, 16.0], [4.0, 8.0, 16.0], [2.0, 4.0, 8.0, 16.0, 32.0]),
              exponents=([0.0, 0.5], [0.0, 0.25, 0.5], list(EXPONENTS), list(EXPONENTS)))
_FRACTION = {0.0: "0", 0.125: "1/8", 0.25: "1/4", 0.375: "3/8", 0.5: "1/2"}


def data(ctx):
    from ...theory.one_step import risk

    p = ctx.p
    model = S.small_step_model()
    fig = ctx.figure("psi1", **S.PARAMS)
    grid = np.geomspace(1.0, 40.0, 200)
    d = p["d"]
    N = int(round(S.PSI2 * d))
    large = len(EXPONENTS) - 1
    fig.curves.append(Curve("a = 0 (η = 1): theory", grid, risk(model, grid, S.PSI2, S.LAM, 1.0).risk1, "risk1",
                            {"eta_exponent": 0.0}, group=0))
    fig.curves.append(Curve("a = 1/2 (η = √N): exact theory, N = ∞", S.LARGE_GRID,
                            large_step_risk1(S.STUDENT, S.TEACHER, S.LARGE_GRID, d=d, **S.LARGE_STEP), "risk1",
                            {"eta_exponent": 0.5}, group=large))
    fig.lines.append(RefLine("bound", model.kernel_bound, "kernel lower bound μ₂*²"))
    fig.curves.append(Curve(f"a = 1/2: exact theory at the simulated width N = {N}", S.LARGE_GRID,
                            large_step_risk1(S.STUDENT, S.TEACHER, S.LARGE_GRID, width=N, d=d, **S.LARGE_STEP),
                            "risk1", {"eta_exponent": 0.5, "N": N}, style="--", group=large))
    xs = [float(x) for x in p["psi1"]]
    series = {}
    for g, a in enumerate(EXPONENTS):
        if a not in p["exponents"]:
            continue
        sims = ctx.simulate_all([S.config(d, x, a, p["n_test"]) for x in xs], p["seeds"], f"a = {_FRACTION[a]}")
        fixed, th, method, reason = {"eta_exponent": a}, None, INFINITE, ""
        if a == 0.0:
            th, reason = risk(model, np.array(xs), S.PSI2, S.LAM, 1.0).risk1, SMALL_STEP_REASON
        elif a == 0.5:
            fixed, method = {"eta_exponent": a, "N": N}, FINITE_WIDTH
            th = large_step_risk1(S.STUDENT, S.TEACHER, xs, width=N, d=d, check=ctx.size != "toy", **S.LARGE_STEP)
        series[a] = add_simulated(ctx, fig, sims, xs, "risk1", f"a = {_FRACTION[a]} simulated", th, fixed=fixed,
                                  method=method, reason=reason, group=g, params={"eta_exponent": a})
    exps = sorted(series)
    for i, x in enumerate(xs):
        fig.verdicts.append(monotone(exps, [series[a].mean[i] for a in exps], [series[a].se[i] for a in exps],
                                     "decreasing", f"the risk R₁ at ψ₁ = {fmt(x)}", seeds=p["seeds"], x_name="a"))
    fig.caption = (f"σ = σ* = erf, ψ₂ = {fmt(S.PSI2)}, λ = {fmt(S.LAM)}, σ_ε = {fmt(S.NOISE)}; learning rate η = N^a. "
                   + sim_caption(d, p["seeds"], p["n_test"]))
    fig.notes.append("Theory exists for a = 0 (small step, the deterministic equivalent) and a = 1/2 (the exact "
                     "large-step theory of this project); for 0 < a < 1/2 only the spike count is known "
                     "(ℓ spikes when (ℓ−1)/(2ℓ) < a < ℓ/(2ℓ+2)), so those are simulation only.")
    return fig


ITEM = Item(
    name="ba_fig3c",
    title="Risk against ψ1 for learning rates η = N^a (erf)",
    paper="Ba et al. (2022), Fig. 3(c)",
    checks="The risk decreases monotonically with the step exponent a (a computed verdict at each ψ1); a = 1/2 is "
           "judged against the exact large-step theory at the simulated width N.",
    sizes=SIZES,
    data=data,
    plot=S.plot("Ba et al. Fig. 3(c): from a small to a large step", ", η = N$^a$"),
    order=40,
)
