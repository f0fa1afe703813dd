"""The Gaussian-equivalence check of the trained conjugate kernel (docs/spectra.md §5): the CK
outlier and the label alignment of its eigenvector for the true features σ(X̃W₁) and for the
Gaussian-equivalent features μ1X̃W₁ + μ2Z of the same W₁, against the theory, as d grows — after a
small step (η = Θ(1), where the equivalence holds) and after a large step η = c√N (where the
true features follow the conditional Gaussian equivalence instead)."""

from __future__ import annotations

import math

from ..data import Points, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ..verdicts import agrees, below
from ._common import NOISE_TEX, fmt
from ._ladder import convergence_label, convergence_x, extrapolated
from ._spectra import seed_stats

STUDENT = TEACHER = "tanh"
NOISE = 0.1
SMALL = {"psi1": 3.0, "psi2": 1.0, "eta": 6.0}  # η = Θ(1)
LARGE = {"psi1": 2.0, "psi2": 1.0, "eta": 1.0}  # η = c√N with c = 1
#: a ladder of d (ratio √2) per preset, ≥ 8 seeds at every rung where it is judged
SIZES = sizes(d=([80, 113, 160], [200, 283, 400], [250, 354, 500, 707],
                 [500, 707, 1000, 1414, 2000, 2828, 4000]),
              seeds=(3, 8, 8, 8))
#: finite-size exponents of the extrapolation: an outlier and its overlaps converge like d^{-1/2} or d^{-1}
OMEGAS = (0.5, 1.0)


def _theory():
    from ...theory.spectra import ba_step, ck_spectrum
    from ...theory.spectra.large_step import ck_outliers_large, large_step_features

    small = ck_spectrum(ba_step(STUDENT, TEACHER, noise=NOISE, **SMALL), points=50).outliers[0]
    big = ba_step(STUDENT, TEACHER, noise=NOISE, regime="large", **LARGE)
    feats = large_step_features(big)
    cget = ck_outliers_large(big, feats, math.inf, equivalence="conditional")[0]
    ge = ck_outliers_large(big, feats, math.inf, equivalence="gaussian")[0]
    return {"small": (small.location, small.overlaps["labels"]),
            "large_cget": (cget.location_per_width, cget.overlaps["labels"]),
            "large_ge": (ge.location_per_width, ge.overlaps["labels"])}


def _verdicts(fig, th, limits, seeds) -> None:
    """The item's claims, computed from the extrapolated limits."""
    def lim(key):
        lad = limits.get(key)
        return (lad.limit, lad.limit_se) if lad is not None else (math.nan, math.nan)

    for what, i, name in (("loc", 0, "CK outlier"), ("lab", 1, "label alignment")):
        m, s = lim(("small", "true", what))
        fig.verdicts.append(agrees(m, s, th["small"][i], f"η = Θ(1): the true-feature {name} extrapolated to d → ∞",
                                   seeds=seeds, theory_name="the Gaussian-equivalence theory"))
        m, s = lim(("large", "true", what))
        fig.verdicts.append(agrees(m, s, th["large_cget"][i], f"large step: the true-feature {name}"
                                   + ("/N" if what == "loc" else "") + " extrapolated to d → ∞", seeds=seeds,
                                   theory_name="the conditional Gaussian equivalence"))
    m, s = lim(("large", "true", "loc"))
    fig.verdicts.append(below([m], [s], th["large_ge"][0], "large step: the true-feature CK outlier/N extrapolated "
                              "to d → ∞ (the Gaussian-equivalence prediction)", seeds=seeds))


def data(ctx):
    from validation.simulator import BaConfig
    from validation.simulator.spectrum import measure_spectra

    p = ctx.p
    ds = [int(d) for d in p["d"]]
    fig = ctx.figure("d", student=STUDENT, teacher=TEACHER, noise=NOISE, **{f"small_{k}": v for k, v in SMALL.items()},
                     **{f"large_{k}": v for k, v in LARGE.items()})
    th = _theory()
    fig.params["xlabel"] = convergence_label(ds)
    fig.params.update({f"theory_{k}_outlier": v[0] for k, v in th.items()})
    fig.params.update({f"theory_{k}_labels": v[1] for k, v in th.items()})
    lines = (
        (0, "small", 0, f"Gaussian-equivalence theory: {th['small'][0]:.4f}"),
        (1, "large_cget", 0, f"conditional GE: λ₁/N → {th['large_cget'][0]:.4f}"),
        (1, "large_ge", 2, f"Gaussian equivalence: λ₁/N → {th['large_ge'][0]:.4f}"),
        (2, "small", 0, f"η = Θ(1), theory {th['small'][1]:.3f}"),
        (2, "large_cget", 1, f"large step, conditional GE {th['large_cget'][1]:.3f}"),
        (2, "large_ge", 2, f"large step, Gaussian equivalence {th['large_ge'][1]:.3f}"),
    )
    for panel, key, group, label in lines:
        fig.lines.append(RefLine("bound", th[key][0 if panel < 2 else 1], label, group=group, panel=panel))
    seeds = p["seeds"]
    per_d: dict = {}
    for regime, setting in (("small", SMALL), ("large", LARGE)):
        for d in ds:
            cfg = BaConfig(student=STUDENT, teacher=TEACHER, d=d, noise=NOISE, measure=("ck",),
                           eta_exponent=0.0 if regime == "small" else 0.5, **setting)
            ms = measure_spectra(cfg, seeds, ctx.root_seed, matrices=("ck",), top=1)
            scale = 1.0 if regime == "small" else float(cfg.N)
            for fm in ("true", "ge"):
                per_d.setdefault((regime, fm, "loc"), []).append([m[f"ck_{fm}"].top[0].location / scale for m in ms])
                per_d.setdefault((regime, fm, "lab"), []).append([m[f"ck_{fm}"].top[0].overlaps["labels"] for m in ms])
    panels = {("small", "loc"): 0, ("large", "loc"): 1, ("small", "lab"): 2, ("large", "lab"): 2}
    limits = {}
    for (regime, fm, what), vals in per_d.items():
        key = "small" if regime == "small" else ("large_cget" if fm == "true" else "large_ge")
        theory = th[key][0 if what == "loc" else 1]
        q = (f"ck_{fm}_outlier" + ("" if regime == "small" else "_per_width")) if what == "loc" else f"ck_{fm}_labels"
        group = {("small", "true"): 1 if what == "loc" else 0, ("small", "ge"): 3, ("large", "true"): 1,
                 ("large", "ge"): 2}[(regime, fm)]
        label = f"{'η = Θ(1)' if regime == 'small' else 'large step'}, {'true' if fm == 'true' else 'GE'} features"
        stats = [seed_stats(v) for v in vals]
        fig.points.append(Points(f"{label} ({seeds} seeds per d)", convergence_x(ds), [m for m, _ in stats],
                                 [s for _, s in stats],
                                 f"ck_{fm}_{what}_{regime}", d=None, seeds=seeds, panel=panels[(regime, what)],
                                 group=group))
        limits[(regime, fm, what)] = extrapolated(fig, q, {"regime": regime}, ds, vals, theory, omegas=OMEGAS,
                                                  panel=panels[(regime, what)], group=group, label=f"{label}: ",
                                                  fit_curve=what == "loc")
    _verdicts(fig, th, limits, seeds)
    fig.caption = (f"σ = σ* = tanh, σ_ε = {fmt(NOISE)}. Left: η = Θ(1) (ψ₁ = {fmt(SMALL['psi1'])}, ψ₂ = "
                   f"{fmt(SMALL['psi2'])}, η = {fmt(SMALL['eta'])}), the largest eigenvalue of the CK Gram; middle: "
                   f"the large step η = {fmt(LARGE['eta'])}·√N (ψ₁ = {fmt(LARGE['psi1'])}, ψ₂ = {fmt(LARGE['psi2'])}), "
                   "λ₁/N; right: the squared overlap of the top eigenvector (in ℝⁿ) with the centred labels. True "
                   "features σ(X̃W₁) and Gaussian-equivalent features μ₁X̃W₁ + μ₂Z of the same W₁. "
                   + f"Simulations at d = {', '.join(map(str, ds))}, {p['seeds']} seeds each, drawn against 1/√d "
                   "(error bars ± 2 s.e.); dash-dot: the weighted fit L + b·d^-ω (ω ∈ {1/2, 1}, Akaike-averaged), "
                   "its limit L drawn at 1/√d = 0 and compared with the theory (horizontal lines): "
                   "|L − theory| ≤ 3 s.e.(L), nothing added.")
    return fig


ITEM = Item(
    name="ge_check",
    title="Gaussian equivalence of the trained CK: outlier and label alignment as d grows",
    paper="Ba et al. (2022), the trained-CK hypothesis (open there); docs/spectra.md §5",
    checks="The d → ∞ extrapolation of a ladder of d (no allowance) of the CK outlier and its label alignment, for "
           "true and Gaussian-equivalent features, against the Gaussian-equivalence theory (η = Θ(1)) and the "
           "conditional one (large step); the claims are computed verdicts.",
    sizes=SIZES,
    data=data,
    plot=PlotSpec((Panel("{xlabel}", "CK outlier λ₁", legend="best", title="η = Θ(1)"),
                   Panel("{xlabel}", "CK outlier λ₁/N", legend="best",
                         title="large step η = c√N"),
                   Panel("{xlabel}", "label alignment", legend="lower right",
                         ylim=(0.3, 0.8), title="top eigenvector vs labels")),
                  title="Gaussian equivalence of the trained conjugate kernel, " + NOISE_TEX + " = {noise}",
                  width=4.4, height=3.8),
    order=74,
)
