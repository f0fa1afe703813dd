"""The outlier of W₁ᵀW₁ against the learning rate η (η = Θ(1)): its location and the squared
overlaps of its singular vector with the gradient direction and the teacher, with the BBP
threshold θ⁴ = ψ2 (docs/spectra.md §2)."""

from __future__ import annotations

import math

import numpy as np

from ..data import Curve, Points, RefLine
from ..item import Item, sizes
from ..plot import Panel, PlotSpec
from ._common import NOISE_TEX, fmt, sim_caption
from ._ladder import convergence_label, ladder_series
from ._spectra import compare_seeds, seed_stats

STUDENT = TEACHER = "tanh"
PSI1, PSI2, NOISE = 3.0, 1.0, 0.1
SIZES = sizes(d=(150, 500, 1000, 2000), seeds=(2, 2, 3, 4),
              eta=([3.0, 8.0],
                   [1.0, 2.0, 3.0, 4.0, 6.0, 9.0, 12.0],
                   [1.0, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 12.0],
                   [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0]),
              # the judged part: a ladder of d at learning rates far above η_c, ≥ 8 seeds per d
              ladder=([80, 113, 160], [200, 283, 400], [250, 354, 500, 707, 1000], [500, 707, 1000, 1414, 2000]),
              ladder_eta=([8.0], [6.0, 12.0], [6.0, 12.0], [6.0, 12.0]), ladder_seeds=(3, 8, 8, 10))
#: why the rows are not judged here
REASON = ("the rank-one outlier theory is d → ∞ only (O(d^{-1/2}) bias at finite d); judged by this item's ladder of d "
          "at η far above η_c (right panels)")


def _ladder(ctx, fig, theory) -> None:
    """The judged comparisons: at each ladder η, the d → ∞ extrapolation over the ladder of d of the outlier
    (panel 2) and of its overlaps (panel 3), against the rank-one theory."""
    from validation.simulator import BaConfig
    from validation.simulator.spectrum import measure_spectra

    p = ctx.p
    dims = [int(d) for d in p["ladder"]]
    fig.params["xlabel_ladder"] = convergence_label(dims)
    keys = (("weights_outlier", "λ₁", 2, 1, lambda m: m["weights"].top[0].location),
            ("overlap_gradient", "⟨u₁, Xᵀy⟩²", 3, 0, lambda m: m["weights"].top[0].overlaps["gradient"]),
            ("overlap_teacher", "⟨u₁, β*⟩²", 3, 2, lambda m: m["weights"].top[0].overlaps["teacher"]))
    for k, eta in enumerate(p["ladder_eta"]):
        per_d = {q: [] for q, *_ in keys}
        for d in dims:
            cfg = BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=PSI1, psi2=PSI2, eta=eta, noise=NOISE,
                           measure=("spike",))
            ms = measure_spectra(cfg, p["ladder_seeds"], ctx.root_seed, matrices=("weights",), top=1)
            for q, *_, get in keys:
                per_d[q].append([get(m) for m in ms])
        th = dict(zip(("weights_outlier", "overlap_gradient", "overlap_teacher"), theory(eta)[:3], strict=True))
        for q, name, panel, g, _ in keys:
            ladder_series(fig, q, f"{name}, η = {fmt(eta)}", {"psi1": PSI1, "psi2": PSI2, "eta": eta}, dims, per_d[q],
                          th[q], panel=panel, group=g + 3 * k, seeds=p["ladder_seeds"])


def data(ctx):
    from validation.simulator import BaConfig
    from validation.simulator.spectrum import measure_spectra

    from ...theory.spectra import ba_step, mp_bulk, weights_spectrum
    from ...theory.spectra.rank_one import rectangular_outlier

    p = ctx.p
    d = p["d"]
    fig = ctx.figure("eta", student=STUDENT, teacher=TEACHER, psi1=PSI1, psi2=PSI2, noise=NOISE)
    edge = weights_spectrum(ba_step(STUDENT, TEACHER, psi1=PSI1, psi2=PSI2, eta=1.0, noise=NOISE), points=50).edges[-1]
    bulk = mp_bulk(PSI2)

    def theory(eta):
        step = ba_step(STUDENT, TEACHER, psi1=PSI1, psi2=PSI2, eta=eta, noise=NOISE)
        root = rectangular_outlier(bulk, step.theta_sq, edge)
        if not root.separated:
            return math.nan, math.nan, math.nan, root.threshold, step
        return root.location, root.overlaps["left"], step.teacher_overlap_sq * root.overlaps["left"], root.threshold, step

    grid = np.linspace(0.25, 1.05 * max(p["eta"] + [12.0]), 60)
    rows = [theory(e) for e in grid]
    loc, grad, teach = (np.array([r[k] for r in rows]) for k in range(3))
    th1 = rows[0][4].theta_sq / grid[0] ** 2  # θ² = η² μ1² s²
    eta_c = math.sqrt(rows[0][3] / th1)
    fig.params["eta_c"] = eta_c
    fig.curves.append(Curve("outlier λ₁ (theory)", grid, loc, "weights_outlier", panel=0))
    fig.lines.append(RefLine("bound", edge, f"bulk edge (1 + √ψ₂)² = {edge:.3f}", panel=0))
    fig.curves.append(Curve("⟨u₁, Xᵀy⟩² (theory)", grid, grad, "overlap_gradient", panel=1, group=0))
    fig.curves.append(Curve("⟨u₁, β*⟩² (theory)", grid, teach, "overlap_teacher", panel=1, group=2))
    for k in (0, 1):
        fig.lines.append(RefLine("threshold", eta_c, f"BBP threshold η_c = {eta_c:.3f}", panel=k))
    xs = [float(x) for x in p["eta"]]
    series = {"weights_outlier": [], "overlap_gradient": [], "overlap_teacher": []}
    for eta in xs:
        cfg = BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=PSI1, psi2=PSI2, eta=eta, noise=NOISE,
                       measure=("spike",))
        ms = measure_spectra(cfg, p["seeds"], ctx.root_seed, matrices=("weights",), top=1)
        vals = {"weights_outlier": [m["weights"].top[0].location for m in ms],
                "overlap_gradient": [m["weights"].top[0].overlaps["gradient"] for m in ms],
                "overlap_teacher": [m["weights"].top[0].overlaps["teacher"] for m in ms]}
        t_loc, t_grad, t_teach, _, _ = theory(eta)
        for q, v in vals.items():
            series[q].append(seed_stats(v))
        if abs(eta - eta_c) > 0.5 * eta_c and math.isfinite(t_loc):  # near the threshold: the finite-d bias is O(1)
            where = {"psi1": PSI1, "psi2": PSI2, "eta": eta}
            for q in ("weights_outlier", "overlap_gradient", "overlap_teacher"):
                compare_seeds(fig, q, where, {"weights_outlier": t_loc, "overlap_gradient": t_grad,
                                              "overlap_teacher": t_teach}[q], vals[q], d=d, reason=REASON)
    for q, label, panel, group in (("weights_outlier", "λ₁ simulated", 0, 1),
                                   ("overlap_gradient", "⟨u₁, Xᵀy⟩² simulated", 1, 0),
                                   ("overlap_teacher", "⟨u₁, β*⟩² simulated", 1, 2)):
        m, s = zip(*series[q], strict=True)
        fig.points.append(Points(f"{label} (d = {d}, {p['seeds']} seeds)", xs, m, s, q, d=d, seeds=p["seeds"],
                                 panel=panel, group=group))
    _ladder(ctx, fig, theory)
    fig.caption = (f"σ = σ* = tanh, ψ₁ = {fmt(PSI1)}, ψ₂ = {fmt(PSI2)}, σ_ε = {fmt(NOISE)}. Left: the largest "
                   "eigenvalue of W₁ᵀW₁ (below η_c: the bulk edge); right: the squared overlaps of the top left "
                   "singular vector with the gradient direction Xᵀy (→ 1) and with β*. Theory: θ²D(x) = 1, "
                   f"overlap m̄/(θ²D'); points within η_c/2 of η_c are not compared. " + sim_caption(d, p["seeds"]))
    return fig


ITEM = Item(
    name="spectrum_outlier_eta",
    title="The outlier of W₁ᵀW₁ and its alignment against η",
    paper="Ba et al. (2022), the BBP transition of the trained weights; docs/spectra.md §2",
    checks="Above the BBP threshold η_c the top eigenvalue of W₁ᵀW₁ leaves the bulk beside the rank-one root "
           "θ²D(x) = 1 and its singular vector aligns with the gradient direction as η grows (d → ∞: shown, not "
           "judged at one d); judged by the d → ∞ extrapolation of a ladder of d at η far above η_c (right panels).",
    sizes=SIZES,
    data=data,
    plot=PlotSpec((Panel("learning rate η", "largest eigenvalue of W₁ᵀW₁", legend="upper left"),
                   Panel("learning rate η", "squared overlap", legend="lower right", ylim=(0.0, 1.05)),
                   Panel("{xlabel_ladder}", "largest eigenvalue of W₁ᵀW₁", title="convergence in d: λ₁",
                         legend="best"),
                   Panel("{xlabel_ladder}", "squared overlap", title="convergence in d: overlaps", legend="best")),
                  title="The spike of W₁: σ = σ* = tanh, ψ₁ = {psi1}, ψ₂ = {psi2}, " + NOISE_TEX + " = {noise}",
                  width=4.8, height=3.8),
    order=73,
)
