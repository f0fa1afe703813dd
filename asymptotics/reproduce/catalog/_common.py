"""What the catalogue's data functions share: labels, captions, and the one step that turns simulations
into plotted points with their theory-vs-simulation comparisons.

The comparison API (no allowance anywhere; :mod:`asymptotics.reproduce.data`):

* ``add_simulated(ctx, data, sims, xs, quantity, label, theory, method=..., reason=...)`` draws the
  simulated points and compares each with ``theory``. ``method`` says what ``theory`` is:
  ``FINITE_WIDTH`` (evaluated at the simulated size: judged), ``INFINITE`` (the d → ∞ theory at this
  one d: reported as *not judged*, ``reason`` saying why or where it is judged instead — e.g. the
  finite-size variant of ``validate --finite-size``). The default is ``INFINITE``.
* A comparison is judged only with ≥ ``MIN_SEEDS`` seeds (8); fewer makes it *not judged*.
* ``extrapolated(fig, quantity, where, dims, per_d, theory)`` and ``ladder_series(fig, quantity, name,
  where, dims, per_d, theory, panel=, group=, seeds=)`` (in :mod:`._ladder`; ``per_d``: one list of
  per-seed values per d) judge the d → ∞ limit of a ladder of d against the d → ∞ theory (method
  ``EXTRAPOLATION``), the latter also drawing a convergence panel (x = d^{-1/2}, the limit at 0).
* The finite-width theories: ``_large_step.large_step_risk1(..., width=N)`` (the exact large-step risk
  of the simulated Ba network) and ``validation.finite_size.spiked_rf.finite_width_theory(...)(d)``
  (the finite-p sRF theory, K readout types).
* Claims are :class:`~asymptotics.reproduce.verdicts.Verdict` objects appended to ``data.verdicts``
  (``below``, ``above``, ``agrees``, ``monotone``, ``signs``), never literal prose.
"""

from __future__ import annotations

import math

from ...figures import ERRORBAR_SE
from ..data import EXTRAPOLATION, FINITE_WIDTH, INFINITE, Points, compare
from ..plot import fmt
from ..verdicts import MIN_SEEDS

#: σ_ε for matplotlib titles (mathtext)
NOISE_TEX = r"$\sigma_\varepsilon$"
RISK_LABEL = "prediction risk  E(f̂(x) − f*(x))²"
TEST_ERROR_LABEL = r"test error $\varepsilon_g$"

__all__ = ["NOISE_TEX", "RISK_LABEL", "TEST_ERROR_LABEL", "act_label", "fmt", "sim_caption", "sim_label",
           "add_simulated", "add_comparisons", "points_from", "one_step_setting", "FINITE_WIDTH", "EXTRAPOLATION",
           "INFINITE", "MIN_SEEDS"]

_NAMES = {"tanh": "tanh", "erf": "erf", "relu": "ReLU", "softplus": "SoftPlus", "sin": "sin", "sigmoid": "sigmoid"}
_ODD = {"tanh", "erf", "sin"}


def act_label(name: str) -> str:
    """'tanh', 'centred ReLU', … (non-odd built-ins are centred by the theory's convention)."""
    base = _NAMES.get(name, name)
    return base if name in _ODD else f"centred {base}"


def one_step_setting(ctx, x_name: str, **params):
    """The one-step model of a setting (``params`` holds its ``student``, ``teacher`` and ``noise``) and
    the item's empty figure along ``x_name`` recording ``params``."""
    from ...theory.one_step import OneStepModel

    model = OneStepModel.from_activations(params["student"], params["teacher"], noise=params["noise"])
    return model, ctx.figure(x_name, **params)


def sim_label(label: str, d: int | None, seeds: int | None) -> str:
    """A marker's legend entry with what was simulated: ``"R₁ simulated (d = 200, 8 seeds)"``."""
    what = ", ".join(x for x in ((f"d = {d}" if d else ""), (f"{seeds} seeds" if seeds else "")) if x)
    return f"{label} ({what})" if what else label


def sim_caption(d: int, seeds: int, n_test: int | None = None, extra: str = "") -> str:
    s = f"Simulations: d = {d}, {seeds} seeds"
    if n_test:
        s += f", {n_test} test points"
    s += f"; error bars ± {ERRORBAR_SE:g} s.e."
    return s + (f"; {extra}" if extra else "")


def points_from(sims, xs, quantity: str, label: str, *, group: int = 0, panel: int = 0, d: int | None = None,
                seeds: int | None = None, params: dict | None = None) -> Points:
    """A :class:`Points` series from simulation results (one per x)."""
    means, ses = zip(*(s.value(quantity) for s in sims), strict=True) if sims else ((), ())
    return Points(label, list(xs), list(means), list(ses), quantity, params=dict(params or {}), d=d, seeds=seeds,
                  group=group, panel=panel)


def add_comparisons(data, points, theory, *, x_name: str | None, fixed: dict, method: str = INFINITE,
                    reason: str = "", note: str = "", skip=None):
    """Append one comparison per simulated point of ``points`` against ``theory`` (same order).

    ``method``: what ``theory`` is (``FINITE_WIDTH``: at the simulated size, judged; ``INFINITE``: the
    d → ∞ theory, not judged, ``reason`` says why or where it is judged); ``skip(x)`` excludes points
    (stated in the notes); ``x_name=None``: the point is named by ``fixed`` alone."""
    for x, m, s, t in zip(points.x, points.mean, points.se, theory, strict=True):
        if skip is not None and skip(x):
            continue
        if not (math.isfinite(m) and math.isfinite(t)):
            continue
        where = dict(fixed) if x_name is None else {**fixed, x_name: x}
        data.comparisons.append(compare(data.name, points.quantity, where, t, m, s, d=points.d, seeds=points.seeds,
                                        method=method, reason=reason, note=note))


def add_simulated(ctx, data, sims, xs, quantity: str, label: str, theory=None, *, fixed: dict | None = None,
                  method: str = INFINITE, reason: str = "", skip=None, group: int = 0, panel: int = 0,
                  params: dict | None = None, plotted: bool = True, x_name: str | None = "") -> Points:
    """The simulated ``quantity`` at ``xs`` (one result of ``sims`` per x, at this size's d and seeds):
    drawn as markers labelled with d and the seeds (unless ``plotted=False``, for tables) and, when
    ``theory`` is given, compared point by point (:func:`add_comparisons`, ``method``/``reason`` as
    there; ``x_name`` defaults to the figure's x). Returns the series."""
    p = ctx.p
    pts = points_from(sims, xs, quantity, sim_label(label, p["d"], p["seeds"]), group=group, panel=panel, d=p["d"],
                      seeds=p["seeds"], params=params)
    if plotted:
        data.points.append(pts)
    if theory is not None:
        add_comparisons(data, pts, theory, x_name=data.x_name if x_name == "" else x_name, fixed=dict(fixed or {}),
                        method=method, reason=reason, skip=skip)
    return pts
