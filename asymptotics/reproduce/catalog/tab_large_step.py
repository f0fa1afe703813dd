"""The exact large-step risk (η = c√N, Gaussian readout) against the Ba-protocol network — a curve neither
paper has (Ba et al. only bound it): ``35-large-step-gaussian-readout.md`` §3."""

from __future__ import annotations

from ..data import FigureData
from ..registry import Item, register
from . import _large_step as L
from ._common import add_comparisons, points_from

#: (student, teacher, ψ2, λ, σ_ε, ψ1 values) — settings (a) and (b) of the notes, c = 1
SETTINGS = (("erf", "erf", 2.0, 1e-3, 0.1, (4.0, 8.0, 16.0)), ("tanh", "tanh", 1.0, 1e-2, 0.1, (2.0, 8.0)))
SIZES = {
    "toy": {"d": 100, "seeds": 3, "n_test": 3000},
    "quick": {"d": 200, "seeds": 3, "n_test": 5000},
    "default": {"d": 500, "seeds": 3, "n_test": 10_000},
    "full": {"d": 2000, "seeds": 3, "n_test": 10_000},
}


def compute(ctx) -> FigureData:
    from validation.simulator import BaConfig

    p = ctx.p
    d, seeds = p["d"], p["seeds"]
    data = FigureData("tab_large_step", "psi1", params={"c": 1.0, **p})
    for s, t, psi2, lam, noise, psi1s in SETTINGS:
        xs = list(psi1s)
        N = int(round(psi2 * d))
        kw = dict(psi2=psi2, lam=lam, noise=noise, c=1.0)
        fin = L.large_step_risk1(ctx, s, t, xs, width=N, d=d, check=ctx.size != "toy", **kw)
        inf = L.large_step_risk1(ctx, s, t, xs, d=d, check=ctx.size != "toy", **kw)
        if fin is None:
            from ..context import NeedsError

            raise NeedsError(L.TARGET)
        cfgs = [BaConfig(student=s, teacher=t, d=d, psi1=x, psi2=psi2, eta=1.0, eta_exponent=0.5, lam=lam, noise=noise,
                         n_test=p["n_test"], measure=("risk",)) for x in xs]
        sims = ctx.simulate_all(cfgs, seeds, f"{s}/{t} large step")
        pts = points_from(sims, xs, "risk1", f"{s}/{t}", d=d, seeds=seeds)
        add_comparisons(data, pts, fin, x_name="psi1", fixed={"pair": f"{s}/{t}", "psi2": psi2, "N": N}, rel=0.05)
        from ...activations import activation

        kb = activation(t).constants().mu2_sq
        for i, x in enumerate(xs):
            data.table.append({"student": s, "teacher": t, "psi2": psi2, "lam": lam, "noise": noise, "psi1": x, "d": d,
                               "N": N, "risk1_mean": pts.mean[i], "risk1_se": pts.se[i], "theory_finite_N": float(fin[i]),
                               "theory_N_inf": float(inf[i]), "kernel_bound": kb})
    data.caption = (f"Ba protocol with a large step η = √N (c = 1), Gaussian readout: the network's R1 (d = {d}, "
                    f"{seeds} seeds, mean ± s.e.) against the exact theory at the same width N and at N = ∞.")
    return data


register(Item(
    name="tab_large_step",
    title="The exact large-step risk against the network",
    paper="Beyond Ba et al. (2022) §5 (which only bounds it): theory notes 35-large-step-gaussian-readout.md §3",
    checks="The continuous-readout-type spiked-RF theory predicts the network's risk after one large step at finite "
           "width, below the kernel bound μ2*², approaching its N = ∞ limit slowly.",
    kind="table",
    sizes=SIZES,
    compute=compute,
    requires=(L.TARGET, "validation.simulator:BaConfig"),
    order=240,
))
