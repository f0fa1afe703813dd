"""Cui et al. (2024): the network map against the one-step network, the sRF theory against the sRF model.

The one-step network (Cui protocol) is held against the network map (the structured bulk and the step's
self term, docs/spiked-rf-finite-width.md), the sRF model at the mapped (c, r, γ) against the sRF theory
it is built from (the isotropic map); both are extrapolated to d → ∞ from a ladder of d and judged
there. The isotropic map's value for the network is in the table beside.
"""

from __future__ import annotations

from ..item import Item, sizes
from . import _cui_setting as C
from ._ladder import extrapolated

#: (student, teacher, η̃, α0, λ) — the theory-vs-network points of docs/spiked-rf.md
SETTINGS = (("tanh", "tanh", 5.0, 1.0, 0.01), ("tanh", "sin", 3.0, 20.0, 0.1))
ALPHAS = (0.5, 1.5, 3.0)
BETA = 1.0
SIZES = sizes(dims=([150], [150, 212, 300], [250, 354, 500], [500, 707, 1000, 1414]), seeds=(2, 8, 8, 12),
              n_test=(3000, 5000, 10_000, 10_000), alpha=([3.0], [3.0], list(ALPHAS), list(ALPHAS)),
              settings=([0], [0], [0, 1], [0, 1]))     # indices into SETTINGS (the sin point's n0 = 20d is costly)


def _ladder(ctx, fig, cfgs, dims, seeds, label, where, theory):
    """Simulate ``cfgs`` (one per d of ``dims``); the comparison of the d → ∞ limit with ``theory``; returns
    (limit, s.e.) (None when the ladder cannot be extrapolated) and the largest d's (mean, s.e.)."""
    sims = ctx.simulate_all(cfgs, seeds, label)
    lad = extrapolated(fig, "test_error", where, dims, [[ps["test_error"] for ps in r.per_seed] for r in sims],
                       theory)
    lim = (lad.limit, lad.limit_se) if lad is not None else (None, None)    # the table holds no NaN
    return lim, sims[-1].value("test_error")


def data(ctx):
    from validation.simulator import SRFConfig

    from ...theory.spiked_rf.network_map import network_one_step

    p = ctx.p
    dims, seeds = list(p["dims"]), p["seeds"]
    xs = [float(a) for a in p["alpha"]]
    fig = ctx.figure("alpha", settings=[list(s) for s in SETTINGS], beta=BETA)
    for s, t, et, a0, lam in (SETTINGS[i] for i in p["settings"]):
        kw = dict(student=s, teacher=t, beta=BETA, lam=lam)
        th, prm = C.curve(xs, eta_tilde=et, alpha0=a0, **kw)
        rf, _ = C.curve(xs, **kw)
        nm = [network_one_step(a, a0, BETA, et, lam, s, t).test_error for a in xs]
        fixed = {"setting": f"{s}/{t}", "eta_tilde": et, "alpha0": a0, "lam": lam}
        for i, a in enumerate(xs):
            net = [C.network_config(d, a, eta_tilde=et, alpha0=a0, n_test=p["n_test"], **kw) for d in dims]
            srf = [SRFConfig(student=s, teacher=t, d=d, alpha=a, beta=BETA, lam=lam, c=prm.bulk[0], r=prm.r,
                             gamma=prm.gamma, n_test=p["n_test"]) for d in dims]
            (nl, nls), (nd, nds) = _ladder(ctx, fig, net, dims, seeds, f"network {t}, α = {a:g}",
                                           {**fixed, "alpha": a, "model": "network (network map)"}, nm[i])
            (sl, sls), (sd, sds) = _ladder(ctx, fig, srf, dims, seeds, f"sRF {t}, α = {a:g}",
                                           {**fixed, "alpha": a, "model": "sRF (sRF theory)"}, float(th[i]))
            fig.table.append({"student": s, "teacher": t, "eta_tilde": et, "alpha0": a0, "lam": lam, "alpha": a,
                              "network_map": nm[i], "isotropic_map": float(th[i]), "random_features": float(rf[i]),
                              "network_limit": nl, "network_limit_se": nls,
                              f"network_d{dims[-1]}": nd, f"network_d{dims[-1]}_se": nds,
                              "srf_limit": sl, "srf_limit_se": sls, "c": prm.bulk[0], "r": prm.r, "gamma": prm.gamma})
    fig.caption = (f"Test error ε_g: the network map (structured bulk + self term, d → ∞), the isotropic map of Cui et al. "
                   f"(the sRF theory), random features (r = 0); the one-step network (Cui protocol) and the sRF model "
                   f"at the mapped (c, r, γ), each extrapolated to d → ∞ from d = {', '.join(map(str, dims))} "
                   f"({seeds} seeds each, {p['n_test']} test points); p = d.")
    return fig


ITEM = Item(
    name="tab_srf_network",
    title="The network map against the one-step network, the sRF theory against the sRF model",
    paper="Cui et al. (2024) (docs/spiked-rf.md, what the network does)",
    checks="The sRF fixed point predicts the sRF model at the mapped (c, r, γ); the network map predicts the trained "
           "network (both extrapolated to d → ∞), which the isotropic map does not at strong steps.",
    sizes=SIZES,
    data=data,
    order=220,
)
