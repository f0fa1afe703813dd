"""The risk table of the one-step theory: R0, R1, δ against the network for four activation pairs."""

from __future__ import annotations

from ..item import Item, sizes

#: (student, teacher, σ_ε, λ, ψ1, ψ2, η) — the checked points of docs/one-step.md §6
POINTS = (
    ("tanh", "softplus", 0.25, 1e-4, 4.0, 2.0, 3.0),
    ("tanh", "relu", 0.1, 1e-2, 5.0, 1.0, 2.0),
    ("erf", "erf", 0.1, 1e-3, 3.0, 2.0, 2.0),
    ("tanh", "tanh", 0.1, 0.1, 1.0, 0.5, 3.0),
)
#: a ladder of d per preset (≥ 8 seeds where judged); the table shows its largest d and the limit
SIZES = sizes(dims=([60, 85, 120], [100, 141, 200, 283], [200, 283, 400, 566], [400, 566, 800, 1131, 1600]),
              seeds=(3, 8, 8, 10), n_test=(2000, 5000, 10_000, 10_000))
#: finite-size exponents (validation/finite_size/one_step.py): a ridge risk of random features has the
#: O(1/d) bias of its deterministic equivalent; the trained features' bias is d^-1/2 or 1/d
OMEGAS = {"risk0": (1.0,), "risk1": (0.5, 1.0), "delta": (0.5, 1.0)}


def data(ctx):
    from validation.simulator import BaConfig

    from ...theory.one_step import OneStepModel, risk
    from ._ladder import extrapolated

    p = ctx.p
    dims = [int(d) for d in p["dims"]]
    fig = ctx.figure("point", points=[list(x) for x in POINTS])
    for s, t, noise, lam, p1, p2, eta in POINTS:
        cfgs = [BaConfig(student=s, teacher=t, d=d, psi1=p1, psi2=p2, eta=eta, lam=lam, noise=noise,
                         n_test=p["n_test"], measure=("risk",)) for d in dims]
        sims = ctx.simulate_all(cfgs, p["seeds"], f"{s}/{t}: ladder of d")
        model = OneStepModel.from_activations(s, t, noise=noise)
        th = risk(model, p1, p2, lam, eta)
        row = {"student": s, "teacher": t, "noise": noise, "lam": lam, "psi1": p1, "psi2": p2, "eta": eta,
               "d": dims[-1]}
        where = {"pair": f"{s}/{t}", "psi1": p1, "psi2": p2, "lam": lam, "eta": eta}
        for q in ("risk0", "risk1", "delta"):
            m, se = sims[-1].value(q)
            row[f"{q}_theory"] = float(getattr(th, q))
            row[f"{q}_mean"], row[f"{q}_se"] = m, se
            lad = extrapolated(fig, q, where, dims, [[r[q] for r in sim.per_seed] for sim in sims],
                               float(getattr(th, q)), omegas=OMEGAS[q])
            row[f"{q}_limit"] = lad.limit if lad is not None else None
            row[f"{q}_limit_se"] = lad.limit_se if lad is not None else None
        row["kernel_bound"] = model.kernel_bound
        fig.table.append(row)
    fig.caption = (f"Theory (d → ∞, deterministic-equivalent route) against the simulated network: mean ± s.e. at "
                   f"d = {dims[-1]} and the limit d → ∞ extrapolated from d = {', '.join(map(str, dims))} "
                   f"({p['seeds']} seeds each, {p['n_test']} test points; weighted fit L + b·d^-ω, ω = 1 for R0, "
                   "ω ∈ {1/2, 1} for R1 and δ), compared with |L − theory| ≤ 3 s.e.; δ on common random numbers.")
    return fig


ITEM = Item(
    name="tab_ba_risk",
    title="R0, R1 and δ: theory against the network for four activation pairs",
    paper="Ba et al. (2022), Thm. (δ ≥ 0) (docs/one-step.md §3 and §6)",
    checks="The one-step risk theory, including the noisy spike θ2 that makes δ depend on μ2* and σ_ε, against "
           "the d → ∞ extrapolation of the nonlinear network over a ladder of d, for odd and non-odd teachers.",
    sizes=SIZES,
    data=data,
    order=210,
)
