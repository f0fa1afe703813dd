"""Cui et al. (2024): non-uniform readout initialisation — K readout types make the spike more expressive."""

from __future__ import annotations

import numpy as np

from ..data import Curve
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from . import _cui_setting as C
from ._common import FINITE_WIDTH, TEST_ERROR_LABEL, add_simulated, fmt, sim_caption

STUDENT, TEACHER = "tanh", "sin"
C_BULK, R, GAMMA = 1.0, 1.5, 1.0  # the checked point of docs/spiked-rf.md (α = 3: theory 0.0147, sRF 0.0149 ± 0.0009)
BETA, LAM = 1.0, 0.01
READOUTS = (((1.0,), (1.0,)), ((0.3, 1.7), (0.5, 0.5)))
LABELS = ("uniform readout u ≡ 1", "2 types u ∈ {0.3, 1.7}")
SIZES = sizes(d=(200, 300, 800, 2000), seeds=(4, 8, 8, 8), n_test=(3000, 5000, 10_000, 10_000),
              alpha=([3.0], [1.0, 3.0], [0.5, 1.0, 2.0, 3.0, 5.0], [0.5, 1.0, 2.0, 3.0, 5.0]))


def data(ctx):
    from validation.finite_size.spiked_rf import finite_width_theory
    from validation.simulator import SRFConfig

    p = ctx.p
    fig = ctx.figure("alpha", student=STUDENT, teacher=TEACHER, c=C_BULK, r=R, gamma=GAMMA, beta=BETA, lam=LAM)
    grid = np.geomspace(0.3, 6.0, 50)
    xs = [float(a) for a in p["alpha"]]
    kw = dict(student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM, srf=(C_BULK, R, GAMMA))
    for g, ((vals, props), label) in enumerate(zip(READOUTS, LABELS, strict=True)):
        ro = None if len(vals) == 1 else vals
        fig.curves.append(Curve(label, grid, C.curve(grid, readout=ro, **kw)[0], "test_error", {"readout": list(vals)},
                                group=g))
        sims = ctx.sweep(SRFConfig, "alpha", xs, f"K = {len(vals)}", student=STUDENT, teacher=TEACHER, beta=BETA,
                         lam=LAM, c=C_BULK, r=R, gamma=GAMMA, readout_values=vals, readout_proportions=props)
        # judged against the finite-p theory at the simulated width p = βd (p = ∞ is the curve)
        fin = [finite_width_theory(STUDENT, TEACHER, a, BETA, LAM, c=C_BULK, r=R, gamma=GAMMA, readout=vals,
                                   proportions=props)(p["d"]) for a in xs]
        fig.curves.append(Curve(f"finite-p theory at p = {round(BETA * p['d'])}, K = {len(vals)}", xs, fin,
                                "test_error", {"readout": list(vals)}, group=g, style=":"))
        add_simulated(ctx, fig, sims, xs, "test_error", f"sRF simulated, K = {len(vals)}", fin,
                      fixed={"K": len(vals)}, method=FINITE_WIDTH, group=g, params={"K": len(vals)})
    fig.caption = (f"sRF model σ(√c Wx + r u κ) with σ = tanh, target sin(⟨θ, x⟩), c = {fmt(C_BULK)}, "
                   f"r = {fmt(R)}, γ = {fmt(GAMMA)}, p = d, λ = {fmt(LAM)}; readout types u with equal proportions. "
                   + sim_caption(p["d"], p["seeds"], p["n_test"]))
    fig.notes.append("With a uniform readout the spike direction can only be fitted by m μ0(κ) + t κ μ1(κ), two "
                     "functions of κ = ⟨v, x⟩; each readout type adds its own pair (block order parameters, a K×K "
                     "mean system and an operator-valued Marchenko–Pastur prior).")
    return fig


ITEM = Item(
    name="cui_k_types",
    title="K readout types: a more expressive spike",
    paper="Cui et al. (2024), non-uniform readout initialisation (docs/spiked-rf.md)",
    checks="The block (K-type) sRF theory at the simulated width p predicts the simulated test error of the sRF "
           "model with a uniform and a two-type readout initialisation along α (judged; p = ∞ drawn as the curve).",
    sizes=SIZES,
    data=data,
    plot=PlotSpec.single(Panel("α = n/d", TEST_ERROR_LABEL, xscale="log", yscale="log", legend="lower left",
                                title="σ = tanh, σ* = sin, c = {c}, r = {r}, γ = {gamma}, p = d, λ = {lam}"),
                         "Cui et al.: non-uniform readout initialisation (K readout types)"),
    order=100,
)
