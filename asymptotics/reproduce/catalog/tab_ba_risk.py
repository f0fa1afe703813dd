"""The risk table of the one-step theory: R0, R1, δ against the network for four activation pairs."""

from __future__ import annotations

from ..registry import Item, sizes
from ._common import add_simulated

#: (student, teacher, σ_ε, λ, ψ1, ψ2, η) — the checked points of docs/one-step.md §6
POINTS = (
    ("tanh", "softplus", 0.25, 1e-4, 4.0, 2.0, 3.0),
    ("tanh", "relu", 0.1, 1e-2, 5.0, 1.0, 2.0),
    ("erf", "erf", 0.1, 1e-3, 3.0, 2.0, 2.0),
    ("tanh", "tanh", 0.1, 0.1, 1.0, 0.5, 3.0),
)
SIZES = sizes(d=(100, 150, 400, 800), seeds=(4, 4, 4, 10), n_test=(2000, 5000, 10_000, 10_000))


def data(ctx):
    from validation.simulator import BaConfig

    from ...theory.one_step import OneStepModel, risk

    p = ctx.p
    fig = ctx.figure("point", points=[list(x) for x in POINTS])
    cfgs = [BaConfig(student=s, teacher=t, d=p["d"], psi1=p1, psi2=p2, eta=eta, lam=lam, noise=noise,
                     n_test=p["n_test"], measure=("risk",)) for s, t, noise, lam, p1, p2, eta in POINTS]
    sims = ctx.simulate_all(cfgs, p["seeds"], "four activation pairs")
    for (s, t, noise, lam, p1, p2, eta), sim in zip(POINTS, sims, strict=True):
        model = OneStepModel.from_activations(s, t, noise=noise)
        th = risk(model, p1, p2, lam, eta)
        row = {"student": s, "teacher": t, "noise": noise, "lam": lam, "psi1": p1, "psi2": p2, "eta": eta}
        for q in ("risk0", "risk1", "delta"):
            m, se = sim.value(q)
            row[f"{q}_theory"] = float(getattr(th, q))
            row[f"{q}_mean"], row[f"{q}_se"] = m, se
            add_simulated(ctx, fig, [sim], [0.0], q, f"{s}/{t}", [float(getattr(th, q))], plotted=False, x_name=None,
                          fixed={"pair": f"{s}/{t}", "psi1": p1, "psi2": p2, "lam": lam, "eta": eta},
                          reason="the deterministic equivalent is d → ∞ only; this point's limit is judged by "
                                 f"`validate --finite-size` (one-step-risk-{s}-{t})")
        row["kernel_bound"] = model.kernel_bound
        fig.table.append(row)
    fig.caption = (f"Theory (d → ∞, deterministic-equivalent route) against the simulated network at d = {p['d']}, "
                   f"{p['seeds']} seeds, {p['n_test']} test points (mean ± s.e.); δ on common random numbers.")
    return fig


ITEM = Item(
    name="tab_ba_risk",
    title="R0, R1 and δ: theory against the network for four activation pairs",
    paper="Ba et al. (2022), Thm. (δ ≥ 0) (docs/one-step.md §3 and §6)",
    checks="The one-step risk theory, including the noisy spike θ2 that makes δ depend on μ2* and σ_ε, beside "
           "the nonlinear network for odd and non-odd teachers (d → ∞: not judged at one d; the finite-size "
           "variants one-step-risk-* judge its limit).",
    sizes=SIZES,
    data=data,
    order=210,
)
