r"""Convergence figures of the finite-size studies (``asymptotics figure finite-size-<variant>``).

One item per variant of :mod:`validation.finite_size.catalogue`: the study at the size preset's
mode (toy, quick, default, full; per-seed results kept in ``finite-size/`` inside the simulation
cache), drawn as the convergence figure of :mod:`asymptotics.figures.finite_size` — simulated value against d^{-ω}
with ± 2 s.e. error bars, the fitted model and its ± 2 s.e. band (dotted lines here), the limit
at d = ∞ and the d → ∞ theory (dashed). The item's table holds the study's rows (verdict
without allowance); its comparisons hold the limit against the theory (and, with a finite-width
theory, every d against it).
"""

from __future__ import annotations

import math

from ...figures.finite_size import convergence_series, omega_label
from ..data import EXTRAPOLATION, FINITE_WIDTH, Curve, Points, RefLine, compare
from ..item import SIZES, Item
from ..plot import Panel, PlotSpec

__all__ = ["ITEMS", "finite_size_item", "study_data"]

#: The columns of an item's table.
COLUMNS = ("quantity", "theory", "limit", "limit_se", "z", "omega", "chi2_dof", "p_value", "verdict", "passed")


def study_data(ctx, variant):
    """Run the study of ``variant`` at ``ctx``'s size and turn it into the item's FigureData."""
    from validation.finite_size.store import SeedStore
    from validation.finite_size.study import run_study

    from ..cache import simulator_fingerprint

    # per-seed results next to the run's simulation cache (so --cache-dir and --no-cache apply)
    store = SeedStore(ctx.cache.root / "finite-size") if ctx.cache.enabled else None
    task = ctx.progress.add_task(f"{ctx.item.name}: finite-size study", total=None)
    try:
        study = run_study(variant, ctx.size, root_seed=ctx.root_seed, store=store, code_version=simulator_fingerprint(),
                          progress=lambda _text: ctx.progress.advance(task))
    finally:
        ctx.progress.remove_task(task)
    fig = ctx.figure("d^-omega", variant=variant.name, description=variant.description)
    for k, p in enumerate(convergence_series(study)):
        # x = 10^e·d^-ω with 1 ≤ max x < 10, so that the generic plot's tick labels stay short
        e = -math.floor(math.log10(max(p["x"]))) if p["x"] and max(p["x"]) > 0 else 0
        scale = 10.0**e
        p = dict(p, x=[scale * x for x in p["x"]], fit_x=[scale * x for x in p["fit_x"]])
        fig.params[f"xlabel_{k}"] = (f"$10^{{{e}}}$·" if e else "") + omega_label(p["omega"]) + " (d → ∞ at 0)"
        fig.params[f"title_{k}"] = f"{p['label']}: {'passes' if p['passed'] else 'fails'}"
        q = next((q for q in study.quantities if q.name == p["name"]), None)
        what = (f"simulation (d = {q.dims[0]}…{q.dims[-1]}, {min(q.seeds)}–{max(q.seeds)} seeds)"
                if q is not None and q.dims and q.seeds else "simulation")
        fig.points.append(Points(what, p["x"], p["means"], p["ses"], p["name"], d=None, group=1, panel=k))
        if p["fit_x"]:
            fig.curves.append(Curve(f"fit {p['model']}", p["fit_x"], p["fit_y"], p["name"], group=0, panel=k))
            lo = [y - 2 * s for y, s in zip(p["fit_y"], p["fit_se"], strict=True)]
            hi = [y + 2 * s for y, s in zip(p["fit_y"], p["fit_se"], strict=True)]
            fig.curves.append(Curve("fit ± 2 s.e.", p["fit_x"], lo, p["name"], style=":", group=0, panel=k))
            fig.curves.append(Curve("", p["fit_x"], hi, p["name"], style=":", group=0, panel=k))
            fig.points.append(Points("limit d → ∞", [0.0], [p["limit"]], [p["limit_se"]], p["name"], group=0, panel=k))
        if p["finite_theory"]:
            fig.curves.append(Curve("finite-width theory", p["x"], p["finite_theory"], p["name"], style=".:", group=2,
                                    panel=k))
        fig.lines.append(RefLine("bound", p["theory"], "theory d = ∞", panel=k))
        fig.notes.append(f"{p['name']}: {p['summary']}")
    for q in study.quantities:
        seeds, se_note = _seeds(q)
        if q.extrapolation is not None:
            p = q.extrapolation.best.p_value
            why = (f"the extrapolation model does not fit (p = {p:.2g} < 0.01)"
                   if p is not None and math.isfinite(p) and p < 0.01 else "")
            fig.comparisons.append(compare(variant.name, f"{q.name} (limit d → ∞)", variant.point(), q.theory,
                                           q.extrapolation.limit, q.extrapolation.limit_se, d=max(q.dims), seeds=seeds,
                                           method=EXTRAPOLATION, reason=why,
                                           note="; ".join(x for x in (se_note, q.limit_verdict.reason) if x)))
        if q.finite_theory is not None:
            for d, m, s, t in zip(q.dims, q.means, q.ses, q.finite_theory, strict=True):
                fig.comparisons.append(compare(variant.name, f"{q.name} vs finite-width theory", {"d": d}, t, m, s,
                                               d=d, seeds=seeds, method=FINITE_WIDTH, note=se_note))
    rows = study.rows()
    fig.table = [{c: r.get(c) for c in COLUMNS} for r in rows]
    fig.caption = (f"{variant.description}. Seeds per d: {study.plan.note if study.plan else '—'}. Error bars ± 2 s.e.; "
                   "verdict without allowance (docs/finite-size.md).")
    return fig


def _seeds(q) -> tuple[int | None, str]:
    """The seeds behind a quantity's standard errors: the fewest at one d, or None (with the reason) when
    the s.e. come from the study's pooled variance model over the whole ladder."""
    if q.se_method == "pooled":
        return None, f"s.e. from a variance model pooled over the ladder ({q.variance_dof:.0f} degrees of freedom)"
    return (min(q.seeds) if q.seeds else None), ""


def finite_size_item(variant, order: int = 400) -> Item:
    """The reproduce item ``finite-size-<variant name>``."""
    n = len(variant.quantities)
    panels = tuple(Panel(f"{{xlabel_{k}}}", q.label or q.name, title=f"{{title_{k}}}", legend="best")
                   for k, q in enumerate(variant.quantities))
    return Item(
        name=f"finite-size-{variant.name}",
        title=f"Finite-size study: {variant.name}",
        paper=f"validation case {variant.case}; docs/finite-size.md",
        checks="The simulated values extrapolate (weighted fit of L + b·d^-ω) to the d → ∞ theory within 3 s.e., "
               "with an acceptable fit, and no allowance.",
        sizes={s: {"mode": s} for s in SIZES},
        data=lambda ctx, v=variant: study_data(ctx, v),
        plot=PlotSpec(panels, title="{variant}", width=4.2, height=3.4 if n > 1 else 3.6),
        order=order,
        only_sizes=("full",),  # in `reproduce --full`; any size by name
    )


def _items():
    from validation.finite_size.catalogue import VARIANTS

    return tuple(finite_size_item(v, 400 + i) for i, v in enumerate(VARIANTS))


ITEMS = _items()
