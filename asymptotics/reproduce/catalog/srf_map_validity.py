"""How far the isotropic sRF map is from the one-step network over the (η̃, α0) plane
(docs/spiked-rf-finite-width.md, "The network map").

Left: theory against theory, with the network map (structured bulk + the step's self term) as the
reference: isotropic/network − 1 and structured/network − 1 along α0 for several η̃ (no sampling).
Right: the Cui-protocol network's test error extrapolated to d → ∞ from a ladder of d, relative to the
network map (filled) and to the isotropic map (open), ± its s.e.; each limit is judged against the
network map, and the claim that the isotropic map lies below the network is a computed verdict.
"""

from __future__ import annotations

import numpy as np

from ...theory.spiked_rf.network_map import network_one_step
from ..data import Curve, Points, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ..verdicts import above
from . import _cui_setting as C
from ._ladder import extrapolated

STUDENT = TEACHER = "tanh"
#: the simulated markers of one α0 are spread over α0·SPREAD^k so that they do not overlap
SPREAD = 1.1
ALPHA, BETA, LAM = 3.0, 1.0, 0.01
SIZES = sizes(eta_tilde=([5.0], [1.0, 3.0, 5.0], [1.0, 2.0, 3.0, 5.0], [1.0, 2.0, 3.0, 5.0]),
              alpha0=([0.5, 5.0],
                      np.geomspace(0.5, 20.0, 7).tolist(),
                      np.geomspace(0.5, 20.0, 12).tolist(),
                      np.geomspace(0.5, 20.0, 24).tolist()),
              sim_eta=([], [5.0], [1.0, 3.0, 5.0], [1.0, 3.0, 5.0]),
              sim_alpha0=([], [0.5], [0.5], [0.5, 2.0]),
              dims=([], [150, 250, 400], [250, 500, 1000], [250, 500, 707, 1000]),
              seeds=(0, 8, 8, 12))


def _theory_panel(fig, p):
    for g, eta in enumerate(p["eta_tilde"]):
        sols = [network_one_step(ALPHA, a0, BETA, eta, LAM, STUDENT, TEACHER) for a0 in p["alpha0"]]
        iso = [100 * (s.test_error_isotropic / s.test_error - 1) for s in sols]
        st = [100 * (s.test_error_structured / s.test_error - 1) for s in sols]
        fig.curves.append(Curve(f"isotropic, η̃ = {eta:g}", p["alpha0"], iso, "relative_error_percent",
                                {"eta_tilde": eta, "map": "isotropic"}, group=g))
        fig.curves.append(Curve(f"structured (no self term), η̃ = {eta:g}", p["alpha0"], st, "relative_error_percent",
                                {"eta_tilde": eta, "map": "structured"}, style="--", group=g))
        for a0, s in zip(p["alpha0"], sols, strict=True):
            fig.table.append({"eta_tilde": eta, "alpha0": a0, "network_map": s.test_error,
                              "structured_map": s.test_error_structured, "isotropic_map": s.test_error_isotropic,
                              "isotropic_rel_error": s.test_error_isotropic / s.test_error - 1,
                              "self_term": s.self_term, "bulk_excess": s.bulk_excess})
    fig.lines.append(RefLine("bound", 0.0, "network map (reference)"))


def _simulated_panel(ctx, fig, p):
    group = {eta: g for g, eta in enumerate(p["eta_tilde"])}
    for i, eta in enumerate(p["sim_eta"]):
        for a0 in p["sim_alpha0"]:
            s = network_one_step(ALPHA, a0, BETA, eta, LAM, STUDENT, TEACHER)
            cfgs = [C.network_config(d, ALPHA, student=STUDENT, teacher=TEACHER, beta=BETA, lam=LAM, eta_tilde=eta,
                                     alpha0=a0, n_test=10_000) for d in p["dims"]]
            sims = ctx.simulate_all(cfgs, p["seeds"], f"network η̃ = {eta:g}, α0 = {a0:g}")
            per_d = [[ps["test_error"] for ps in r.per_seed] for r in sims]
            where = {"eta_tilde": eta, "alpha0": a0, "alpha": ALPHA}
            lad = extrapolated(fig, "test_error", where, p["dims"], per_d, s.test_error)
            if lad is None:
                continue
            g = group.get(eta, 0)
            for j, (ref, name) in enumerate(((s.test_error, "network map"), (s.test_error_isotropic, "isotropic map"))):
                x = a0 * SPREAD ** (2 * i + j - len(p["sim_eta"]) + 0.5)     # spread in x for legibility
                fig.points.append(Points(f"limit d → ∞ / {name} − 1, η̃ = {eta:g} (d ≤ {max(p['dims'])}, "
                                         f"{p['seeds']} seeds)", [x], [100 * (lad.limit / ref - 1)],
                                         [100 * lad.limit_se / ref], "relative_error_percent",
                                         {"eta_tilde": eta, "map": name, "alpha0": a0}, d=max(p["dims"]),
                                         seeds=p["seeds"], group=g, panel=1))
            if eta >= 3.0 and a0 <= 1.0:
                fig.verdicts.append(above([lad.limit], [lad.limit_se], s.test_error_isotropic,
                                          f"the network's test error (η̃ = {eta:g}, α0 = {a0:g}, limit d → ∞) "
                                          "against the isotropic map", seeds=p["seeds"]))


def data(ctx):
    p = ctx.p
    fig = ctx.figure("alpha0", student=STUDENT, teacher=TEACHER, alpha=ALPHA, beta=BETA, lam=LAM)
    _theory_panel(fig, p)
    if p["sim_eta"]:
        _simulated_panel(ctx, fig, p)
        fig.lines.append(RefLine("bound", 0.0, "network map", panel=1))
    fig.caption = (f"Left: the isotropic map of Cui et al. (solid) and the structured map without the self term "
                   f"(dashed) relative to the network map (theory, no sampling); tanh student and teacher, α = {ALPHA:g}, "
                   f"β = {BETA:g}, λ = {LAM:g}. Right: the Cui-protocol network extrapolated to d → ∞ from d = "
                   f"{', '.join(map(str, p['dims'])) or '—'} ({p['seeds']} seeds each), relative to the network map "
                   "(left marker of each pair) and to the isotropic map (right), ± 1 s.e.; the markers of one α0 are spread "
                   "around it for legibility.")
    fig.notes.append("Grid study (η̃ ∈ {1, 3, 5} × α0 ∈ {0.5, 2, 20}, d = 500 and 1000): "
                     "python -m validation.studies.srf_network_map; table in docs/spiked-rf-finite-width.md.")
    return fig


ITEM = Item(
    name="srf_map_validity",
    title="The network map against the isotropic map over the (η̃, α0) plane",
    paper="Cui et al. (2024) network → sRF map at strong steps (docs/spiked-rf-finite-width.md)",
    checks="The isotropic map's error relative to the network map along α0 for η̃ = 1 … 5 (theory); the network, "
           "extrapolated to d → ∞, against the network map (judged) and above the isotropic map at strong steps.",
    sizes=SIZES,
    data=data,
    plot=PlotSpec((Panel("α0 = n0/d", "map / network map − 1 (%)", xscale="log", legend=None,
                         title="theory: σ = σ* = tanh, α = {alpha}, λ = {lam}"),
                   Panel("α0 = n0/d", "network (d → ∞) / map − 1 (%)", xscale="log", legend="figure", legend_ncols=3,
                         title="simulated network, extrapolated")),
                  title="Network → sRF map: the isotropic map against the network map", height=5.0),
    order=110,
)
