r"""Convergence figures of finite-size studies: the simulated value against d^{-ω}, the fit, the limit.

One panel per quantity. The horizontal axis is x = d^{-ω} with ω of the fit of largest Akaike
weight (the smallest ω of a two-term model), so that d → ∞ is x = 0 and a one-term power law is a
straight line. Shown: the simulated means with ± 2 s.e. error bars (open markers), the fitted model
(solid line) with its pointwise ± 2 s.e. band (shaded), the extrapolated limit L ± 2 se(L) at x = 0
(filled marker), the d → ∞ theory (dashed horizontal line and a star at x = 0), and a finite-width
theory at the simulated d when there is one (dotted line through its values).

The input is a study result (:class:`validation.finite_size.results.StudyResult`) or its
``as_dict()`` (e.g. read back from ``validate --finite-size --studies-out``): this module needs no
import of the validation layer.

>>> from asymptotics.figures import paper_style
>>> study = {"variant": "demo", "description": "", "quantities": [{"name": "x", "label": "x", "theory": 1.0,
...     "dims": [100, 200, 400], "means": [0.9, 0.95, 0.975], "ses": [0.01, 0.01, 0.01], "finite_theory": None,
...     "extrapolation": {"limit": 1.0, "limit_se": 0.01, "models": [{"omega": 1.0, "terms": 1,
...     "coef": [1.0, -10.0], "cov": [[1e-4, 0.0], [0.0, 1.0]], "weight": 1.0, "model": "L + b·d^-1",
...     "chi2": 0.0, "dof": 1}]}, "limit_verdict": {"z": 0.0}, "verdict": {"passed": True, "kind": "extrapolation"}}]}
>>> panel = convergence_series(study)[0]
>>> panel.get("omega"), panel.get("x")
(1.0, [0.01, 0.005, 0.0025])
>>> with paper_style():
...     fig = convergence_figure(study)
"""

from __future__ import annotations

import math

import numpy as np

from .elements import ERRORBAR_SE, simulation_markers, theory_line
from .style import color, new_figure

__all__ = ["convergence_series", "convergence_figure", "omega_label"]


def omega_label(omega: float) -> str:
    """d^{-ω} for an axis label (mathtext)."""
    txt = {0.5: "1/2", 1.0: "1", 2.0: "2", 1.5: "3/2"}.get(float(omega), f"{omega:g}")
    return rf"$d^{{-{txt}}}$"


def _as_dict(study) -> dict:
    return study.as_dict() if hasattr(study, "as_dict") else dict(study)


def _best(models: list[dict]) -> dict:
    return max(models, key=lambda m: m.get("weight") or 0.0)


def _predict(model: dict, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = float(model["omega"])
    x = d ** (-w)
    X = np.column_stack([np.ones_like(x), x] + ([x * x] if model.get("terms", 1) == 2 else []))
    coef = np.asarray(model["coef"], dtype=float)
    cov = np.asarray(model["cov"], dtype=float)
    return X @ coef, np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", X, cov, X), 0.0))


def convergence_series(study) -> list[dict]:
    """What each panel shows, as plain numbers: ``x`` (d^{-ω} of the simulated d), ``means``,
    ``ses``, ``fit_x``/``fit_y``/``fit_se`` (the fitted model from x = 0 to the smallest d), the
    ``limit`` ± ``limit_se``, the ``theory``, the ``finite_theory`` (or None), ``omega``, the
    ``model`` and a one-line ``summary``."""
    s = _as_dict(study)
    out = []
    for q in s["quantities"]:
        ex = q.get("extrapolation")
        dims = np.asarray(q["dims"], dtype=float)
        panel = {"name": q["name"], "label": q.get("label") or q["name"], "theory": q["theory"],
                 "means": list(q["means"]), "ses": list(q["ses"]), "dims": [int(d) for d in dims],
                 "finite_theory": q.get("finite_theory"), "passed": q["verdict"]["passed"],
                 "verdict": q["verdict"].get("kind", "")}
        if ex:
            best = _best(ex["models"])
            w = float(best["omega"])
            dd = np.geomspace(dims.min(), 1e12, 200)  # 1e12: x = 0 to plotting precision
            y, se = _predict(best, dd)
            panel.update(omega=w, model=best["model"], limit=ex["limit"], limit_se=ex["limit_se"],
                         fit_x=[float(v) for v in dd ** (-w)], fit_y=[float(v) for v in y],
                         fit_se=[float(v) for v in se])
            z = (q.get("limit_verdict") or {}).get("z")
            chi = best["chi2"] / best["dof"] if best.get("dof") else math.nan
            panel["summary"] = (f"L = {ex['limit']:.5g} ± {ex['limit_se']:.2g}, theory {q['theory']:.5g}"
                                + (f", z = {z:+.2f}" if z is not None else "") + f", χ²/dof = {chi:.2f}")
        else:
            w = 1.0
            panel.update(omega=w, model=None, limit=None, limit_se=None, fit_x=[], fit_y=[], fit_se=[],
                         summary="no extrapolation")
        panel["x"] = [float(v) for v in dims ** (-w)]
        out.append(panel)
    return out


def convergence_figure(study, *, width: float = 4.2, height: float = 3.4):
    """The convergence figure of ``study`` (see the module docstring); call inside
    :func:`~asymptotics.figures.paper_style`, save with :func:`~asymptotics.figures.save_figure`."""
    from matplotlib.ticker import MaxNLocator

    s = _as_dict(study)
    panels = convergence_series(s)
    fig, axes = new_figure(ncols=len(panels), width=width, height=height)
    axes = np.atleast_1d(axes)
    for ax, p in zip(axes, panels, strict=True):
        if p["fit_x"]:
            fx, fy, fs = (np.asarray(p[k]) for k in ("fit_x", "fit_y", "fit_se"))
            ax.fill_between(fx, fy - ERRORBAR_SE * fs, fy + ERRORBAR_SE * fs, color=color(0), alpha=0.18, lw=0,
                            label=f"fit ± {ERRORBAR_SE:g} s.e.")
            theory_line(ax, fx, fy, label=f"fit {p['model']}", i=0)
            ax.errorbar([0.0], [p["limit"]], yerr=[ERRORBAR_SE * p["limit_se"]], fmt="o", color=color(0),
                        zorder=4, label="limit d → ∞ (model average)")
        simulation_markers(ax, p["x"], p["means"], p["ses"], label="simulation", i=1)
        if p["finite_theory"]:
            ax.plot(p["x"], p["finite_theory"], ":", color=color(2), marker=".", label="finite-width theory")
        ax.axhline(p["theory"], linestyle="--", linewidth=1.1, color="0.15", zorder=1, label="theory d = ∞")
        ax.plot([0.0], [p["theory"]], "*", color="0.15", markersize=9, zorder=5)
        ax.set_xlim(left=-0.03 * max(p["x"]))
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.set_xlabel(omega_label(p["omega"]) + "   (d → ∞ at 0)")
        ax.set_ylabel(p["label"])
        verdict = "passes" if p["passed"] else "fails"
        ax.set_title(f"{p['label']}: {verdict}\n{p['summary']}", fontsize=8)
        ax.legend(loc="best", fontsize=7)
        shown = set(_nice_dims(p["dims"]))
        for x, m, s_, d in zip(p["x"], p["means"], p["ses"], p["dims"], strict=True):
            if d in shown:
                ax.annotate(f"d={d}", (x, m + ERRORBAR_SE * s_), textcoords="offset points", xytext=(0, 3),
                            ha="center", fontsize=6, color="0.3")
    fig.suptitle(f"{s['variant']}: {s.get('description', '')}", fontsize=9)
    return fig


def _nice_dims(dims) -> list[int]:
    """Every other rung (a readable top axis)."""
    dims = sorted(dims)
    return dims[::2] if len(dims) > 5 else dims
