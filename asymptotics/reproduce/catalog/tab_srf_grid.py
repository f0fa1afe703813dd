"""Cui et al. (2024): the reference grid of test errors (theory only), tanh student, p = d, λ = 0.01."""

from __future__ import annotations

from ..item import Item, sizes
from . import _cui_setting as C

STEPS = ((None, None), (1.0, 0.5), (1.0, 2.0), (3.0, 2.0), (3.0, 20.0), (5.0, 20.0))
TARGETS = ("tanh", "sin")
ALPHAS = (1.0, 3.0)


def data(ctx):
    fig = ctx.figure("alpha", student="tanh", beta=1.0, lam=0.01)
    for t in TARGETS:
        for et, a0 in STEPS:
            te, prm = C.curve(ALPHAS, student="tanh", teacher=t, beta=1.0, lam=0.01, eta_tilde=et, alpha0=a0)
            fig.table.append({"target": t, "step": "RF (no step)" if et is None else f"η̃ = {et:g}, α0 = {a0:g}",
                              "test_error_alpha_1": float(te[0]), "test_error_alpha_3": float(te[1]),
                              "r": prm.r, "c": prm.bulk[0], "gamma": prm.gamma})
    fig.caption = "sRF theory (MP closed form, solved to 1e-12): ε_g at α = 1 and α = 3, tanh student, p = d, λ = 0.01."
    return fig


ITEM = Item(
    name="tab_srf_grid",
    title="Reference grid of sRF test errors",
    paper="Cui et al. (2024) (docs/spiked-rf.md, accuracy)",
    checks="The sRF test error for six first steps (including none) and two targets, as a citable table.",
    sizes=sizes(),  # theory only: the same at every size
    data=data,
    order=230,
)
