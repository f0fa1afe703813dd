"""What the catalogue's data functions share: labels, finite-size allowances, captions, and the one
step that turns simulations into plotted points with their theory-vs-simulation comparisons."""

from __future__ import annotations

import math

from ...figures import ERRORBAR_SE
from ..data import Points, compare
from ..plot import fmt

#: σ_ε for matplotlib titles (mathtext)
NOISE_TEX = r"$\sigma_\varepsilon$"
RISK_LABEL = "prediction risk  E(f̂(x) − f*(x))²"
TEST_ERROR_LABEL = r"test error $\varepsilon_g$"

__all__ = ["NOISE_TEX", "RISK_LABEL", "TEST_ERROR_LABEL", "act_label", "allowance", "fmt", "sim_caption",
           "add_simulated", "add_comparisons", "points_from", "one_step_setting"]

_NAMES = {"tanh": "tanh", "erf": "erf", "relu": "ReLU", "softplus": "SoftPlus", "sin": "sin", "sigmoid": "sigmoid"}
_ODD = {"tanh", "erf", "sin"}


def act_label(name: str) -> str:
    """'tanh', 'centred ReLU', … (non-odd built-ins are centred by the theory's convention)."""
    base = _NAMES.get(name, name)
    return base if name in _ODD else f"centred {base}"


def allowance(theory: float, d: int, rel: float, *, absolute: float = 0.0, d_ref: int = 1000) -> float:
    """Finite-size allowance ``rel·|theory|·√(d_ref/d) + absolute·√(d_ref/d)``: the O(d^{-1/2})
    bias of a finite network relative to the d → ∞ theory (stated per figure with ``rel``)."""
    scale = math.sqrt(d_ref / d)
    return (rel * abs(theory) + absolute) * scale


def one_step_setting(ctx, x_name: str, **params):
    """The one-step model of a setting (``params`` holds its ``student``, ``teacher`` and ``noise``) and
    the item's empty figure along ``x_name`` recording ``params``."""
    from ...theory.one_step import OneStepModel

    model = OneStepModel.from_activations(params["student"], params["teacher"], noise=params["noise"])
    return model, ctx.figure(x_name, **params)


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


def add_comparisons(data, points, theory, *, x_name: str | None, fixed: dict, rel: float, absolute: float = 0.0,
                    z_max: float = 3.0, note: str = "", skip=None):
    """Append one comparison per simulated point of ``points`` against ``theory`` (same order).

    ``rel``/``absolute``: the finite-size allowance at d = 1000, scaled as √(1000/d) (see
    :func:`allowance`); ``skip(x)`` excludes points (e.g. at a threshold, stated in the notes);
    ``x_name=None``: the point is named by ``fixed`` alone."""
    for x, m, s, t in zip(points.x, points.mean, points.se, theory, strict=True):
        if skip is not None and skip(x):
            continue
        if not (math.isfinite(m) and math.isfinite(t)):
            continue
        where = dict(fixed) if x_name is None else {**fixed, x_name: x}
        data.comparisons.append(compare(data.name, points.quantity, where, t, m, s, d=points.d,
                                        allowance=allowance(t, points.d, rel, absolute=absolute), z_max=z_max,
                                        note=note))


def add_simulated(ctx, data, sims, xs, quantity: str, label: str, theory=None, *, fixed: dict | None = None,
                  rel: float = 0.0, absolute: float = 0.0, skip=None, group: int = 0, panel: int = 0,
                  params: dict | None = None, plotted: bool = True, x_name: str | None = "") -> Points:
    """The simulated ``quantity`` at ``xs`` (one result of ``sims`` per x, at this size's d and seeds):
    drawn as markers (unless ``plotted=False``, for tables) and, when ``theory`` is given, compared
    point by point (:func:`add_comparisons`; ``x_name`` defaults to the figure's x). Returns the
    series."""
    p = ctx.p
    pts = points_from(sims, xs, quantity, label, group=group, panel=panel, d=p["d"], seeds=p["seeds"], params=params)
    if plotted:
        data.points.append(pts)
    if theory is not None:
        add_comparisons(data, pts, theory, x_name=data.x_name if x_name == "" else x_name, fixed=dict(fixed or {}),
                        rel=rel, absolute=absolute, skip=skip)
    return pts
