"""The risk table of the one-step theory: R0, R1, δ against the network for four activation pairs."""

from __future__ import annotations

from ..data import FigureData
from ..registry import Item, register
from ._common import add_comparisons, points_from

#: (student, teacher, σ_ε, λ, ψ1, ψ2, η) — the points of 10-one-step.md §5 "Checks"
POINTS = (
    ("tanh", "softplus", 0.25, 1e-4, 4.0, 2.0, 3.0),
    ("tanh", "relu", 0.1, 1e-2, 5.0, 1.0, 2.0),
    ("erf", "erf", 0.1, 1e-3, 3.0, 2.0, 2.0),
    ("tanh", "tanh", 0.1, 0.1, 1.0, 0.5, 3.0),
)
SIZES = {
    "toy": {"d": 100, "seeds": 4, "n_test": 2000},
    "quick": {"d": 150, "seeds": 4, "n_test": 5000},
    "default": {"d": 400, "seeds": 4, "n_test": 10_000},
    "full": {"d": 800, "seeds": 10, "n_test": 10_000},
}


def compute(ctx) -> FigureData:
    from validation.simulator import BaConfig

    OneStepModel = ctx.theory("asymptotics.theory.one_step:OneStepModel")
    risk = ctx.theory("asymptotics.theory.one_step:risk")
    p = ctx.p
    d, seeds = p["d"], p["seeds"]
    data = FigureData("tab_ba_risk", "point", params={"points": [list(x) for x in POINTS], **p})
    cfgs = [BaConfig(student=s, teacher=t, d=d, psi1=p1, psi2=p2, eta=eta, lam=lam, noise=noise, n_test=p["n_test"],
                     measure=("risk",)) for s, t, noise, lam, p1, p2, eta in POINTS]
    sims = ctx.simulate_all(cfgs, seeds, "four activation pairs")
    for (s, t, noise, lam, p1, p2, eta), sim in zip(POINTS, sims, strict=True):
        model = OneStepModel.from_activations(s, t, noise=noise)
        th = risk(model, p1, p2, lam, eta)
        row = {"student": s, "teacher": t, "noise": noise, "lam": lam, "psi1": p1, "psi2": p2, "eta": eta}
        for q in ("risk0", "risk1", "delta"):
            m, se = sim.value(q)
            row[f"{q}_theory"] = float(getattr(th, q))
            row[f"{q}_mean"], row[f"{q}_se"] = m, se
            pts = points_from([sim], [0.0], q, f"{s}/{t}", d=d, seeds=seeds)
            fixed = {"pair": f"{s}/{t}", "psi1": p1, "psi2": p2, "lam": lam, "eta": eta}
            add_comparisons(data, pts, [float(getattr(th, q))], x_name="_", fixed=fixed,
                            rel=0.15 if q == "delta" else 0.03)
        row["kernel_bound"] = model.kernel_bound
        data.table.append(row)
    for c in data.comparisons:  # the dummy x of the single-point series is not a parameter
        c.params.pop("_", None)
    data.caption = (f"Theory (d → ∞, deterministic-equivalent route) against the simulated network at d = {d}, "
                    f"{seeds} seeds, {p['n_test']} test points (mean ± s.e.); δ on common random numbers.")
    return data


register(Item(
    name="tab_ba_risk",
    title="R0, R1 and δ: theory against the network for four activation pairs",
    paper="Ba et al. (2022), Thm. (δ ≥ 0) (theory notes 10-one-step.md §5, checks table)",
    checks="The one-step risk theory, including the noisy spike θ2 that makes δ depend on μ2* and σ_ε, matches "
           "the nonlinear network for odd and non-odd teachers.",
    kind="table",
    sizes=SIZES,
    compute=compute,
    requires=("asymptotics.theory.one_step:risk", "validation.simulator:BaConfig"),
    order=210,
))
