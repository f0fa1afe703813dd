"""The exact large-step risk (η = c√N, Gaussian readout) against the Ba-protocol network — a curve neither
paper has (Ba et al. only bound it): ``docs/large-step-exact.md``."""

from __future__ import annotations

from ..item import Item, sizes
from ..verdicts import below
from ._common import FINITE_WIDTH, add_simulated
from ._large_step import large_step_risk1

#: (student, teacher, ψ2, λ, σ_ε, ψ1 values) — settings (a) and (b) of docs/large-step-exact.md, c = 1
SETTINGS = (("erf", "erf", 2.0, 1e-3, 0.1, (4.0, 8.0, 16.0)), ("tanh", "tanh", 1.0, 1e-2, 0.1, (2.0, 8.0)))
SIZES = sizes(d=(100, 200, 500, 2000), seeds=(3, 8, 8, 8), n_test=(3000, 5000, 10_000, 10_000))


def data(ctx):
    from validation.simulator import BaConfig

    from ...activations import resolve_activation

    p = ctx.p
    d = p["d"]
    fig = ctx.figure("psi1", c=1.0)
    for s, t, psi2, lam, noise, psi1s in SETTINGS:
        xs = list(psi1s)
        N = int(round(psi2 * d))
        kw = dict(psi2=psi2, lam=lam, noise=noise, c=1.0, d=d, check=ctx.size != "toy")
        fin = large_step_risk1(s, t, xs, width=N, **kw)
        inf = large_step_risk1(s, t, xs, **kw)
        sims = ctx.sweep(BaConfig, "psi1", xs, f"{s}/{t} large step", student=s, teacher=t, psi2=psi2, eta=1.0,
                         eta_exponent=0.5, lam=lam, noise=noise, measure=("risk",))
        pts = add_simulated(ctx, fig, sims, xs, "risk1", f"{s}/{t}", fin, plotted=False, method=FINITE_WIDTH,
                            fixed={"pair": f"{s}/{t}", "psi2": psi2, "N": N})
        kb = resolve_activation(t, name="teacher").constants().mu2_sq
        # the claim of a large step (Ba et al. §5): below the kernel bound at large ψ1 — at the largest ψ1
        # simulated, at this width (the N = ∞ theory and the width-N theory are in the table beside it)
        fig.verdicts.append(below(pts.mean[-1:], pts.se[-1:], kb, f"the simulated {s}/{t} R₁ after one large step "
                                  f"at ψ₁ = {xs[-1]:g}, N = {N} (width-N theory {fin[-1]:.4g}, N = ∞ theory "
                                  f"{inf[-1]:.4g}), against the kernel bound μ2*²", seeds=p["seeds"]))
        for i, x in enumerate(xs):
            fig.table.append({"student": s, "teacher": t, "psi2": psi2, "lam": lam, "noise": noise, "psi1": x, "d": d,
                              "N": N, "risk1_mean": pts.mean[i], "risk1_se": pts.se[i], "theory_finite_N": float(fin[i]),
                              "theory_N_inf": float(inf[i]), "kernel_bound": kb})
    fig.caption = (f"Ba protocol with a large step η = √N (c = 1), Gaussian readout: the network's R1 (d = {d}, "
                   f"{p['seeds']} seeds, mean ± s.e.) against the exact theory at the same width N and at N = ∞.")
    return fig


ITEM = Item(
    name="tab_large_step",
    title="The exact large-step risk against the network",
    paper="Beyond Ba et al. (2022) §5 (which only bounds it): docs/large-step-exact.md",
    checks="The continuous-readout-type spiked-RF theory at the simulated width N predicts the network's risk after "
           "one large step (judged); whether that risk is below the kernel bound μ2*² is a computed verdict.",
    sizes=SIZES,
    data=data,
    order=240,
)
