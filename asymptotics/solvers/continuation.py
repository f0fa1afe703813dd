r"""Continuation in plain Python — the one twin of the compiled continuation
(``asymptotics/numerics/templates/continuation.py``), for callables (complex, mpmath, lambdified).

This is how a branch is followed: start where the wanted root is unambiguous (large |z|, large
Im z, large λ, the free limit t = 0) and move toward the target in steps small enough that each
solve stays in the basin of the same branch.

* :func:`continuation` — along a given list of parameters, each solve warm-started from the last
  converged one (the compiled grid driver's warm start);
* :func:`continue_parameter` — in one parameter τ from 0 to 1 with the compiled template's step
  control: first step ``h0``; a step is accepted when the corrector converges *and* moves the
  predicted point by at most ``delta`` (max_i |x_i − x̂_i|/max(1, |x̂_i|)), the step then doubling
  (up to ``hmax``) when the move was below ``delta``/4; a rejected step is halved, and below
  ``hmin`` the continuation fails; the predictor is the secant through the last two solutions.
"""

from __future__ import annotations

import numpy as np

from .result import SINGULAR

__all__ = ["continuation", "continue_parameter"]


def continuation(solve_one, x0, params_list):
    """Solve along ``params_list`` with warm starts.

    ``solve_one(x_start, params) -> SolverResult``. The first solve starts from ``x0``; each
    later one from the last *converged* value (an unconverged result does not move the start).
    Returns the list of results, one per parameter. A :class:`ConvergenceError` raised by
    ``solve_one`` propagates.
    """
    results = []
    x_start = x0
    for params in params_list:
        res = solve_one(x_start, params)
        results.append(res)
        if res.converged:
            x_start = res.value
    return results


def _distance(xn, xp) -> float:
    """max_i |x_i − x̂_i|/max(1, |x̂_i|), the corrector's move (NaN/inf: ∞)."""
    with np.errstate(all="ignore"):
        d = float(np.max(np.abs(xn - xp) / np.maximum(1.0, np.abs(xp))))
    return d if np.isfinite(d) else float("inf")


def continue_parameter(newton_at, x_start, h0: float, hmin: float, hmax: float, delta: float):
    """Follow a root from τ = 0 to τ = 1 (module docstring).

    ``newton_at(x, tau) -> SolverResult`` corrects ``x`` at τ (``on_failure="return"``);
    ``x_start`` starts the solve at τ = 0. Returns ``(x, status, iterations, residual)``: at
    τ = 1 with status 0, or, on failure, the last accepted solution with the failing solve's
    status (``SINGULAR`` when it converged but moved too far) and residual.
    """
    r = newton_at(x_start, 0.0)
    x, its, res = np.asarray(r.value), r.iterations, r.residual
    if not r.converged:
        return x, int(r.status), its, res
    t, h, xprev, tprev = 0.0, h0, x, -1.0
    while t < 1.0:
        tn = min(1.0, t + h)
        xp = x + (x - xprev) * ((tn - t) / (t - tprev)) if tprev >= 0 else x.copy()
        r = newton_at(xp, tn)
        its += r.iterations
        xn = np.asarray(r.value)
        dist = _distance(xn, xp)
        if r.converged and dist <= delta:
            xprev, tprev, x, t, res = x, t, xn, tn, r.residual
            if dist < 0.25 * delta:
                h = min(hmax, 2 * h)
        else:
            h /= 2
            if h < hmin:
                return x, int(r.status) if not r.converged else int(SINGULAR), its, r.residual
    return x, 0, its, res
