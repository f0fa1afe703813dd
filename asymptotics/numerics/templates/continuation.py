r"""Template: continuation — following a root as the parameters move — the one compiled
continuation of the package: along the rows of a parameter grid (warm starts) and in one
parameter with step control.

A template of :mod:`asymptotics.rendering.templates`, *included* after the dense linear algebra
and the Newton template (``include=(SMALL_LINALG, …/newton.py, …/continuation.py)``) by a rendered
module that defines the problem (``residual``, ``residual_scale``, ``jacobian`` of
:mod:`asymptotics.numerics.templates.newton`) and the placeholders below: ``start(p)``, values that
solve F(x; p) = 0 (or lie in the basin of the wanted root) where the continued parameter has its
starting value, ``outputs(x, p)``, the named outputs, and their number ``N_OUTPUTS``. The kernels
return the integer codes of :class:`asymptotics.numerics.status.Status`.

**One parameter** (:func:`continue_parameter`). Parameter ``index`` of p moves from ``value`` (where
``start`` is reliable) to its target p[index] as τ goes from 0 to 1: geometrically,
value·(target/value)^τ, between positive reals, else linearly, value + (target − value)·τ. Newton
(with the line search) from ``start`` at τ = 0; then steps τ → τ + h (h = ``h0`` first, the last
step ending at τ = 1), each corrected by Newton from the previous solution, or, with ``secant``,
starting at the secant predictor x_k + (x_k − x_{k−1})(τ_{k+1} − τ_k)/(τ_k − τ_{k−1}). A step is accepted
when Newton converges *and* the corrector moved the predicted point by at most ``delta`` (the
distance max_i |x_i − x̂_i|/max(1, |x̂_i|)): a larger move means Newton left the branch being
followed. A rejected step is halved; after an accepted step whose move was below ``delta``/4 the
step doubles, up to ``hmax``. Below ``hmin`` the continuation fails (the status of the last
Newton, or ``SINGULAR`` when it converged but moved too far; its x and residual are returned),
never silently. Fixed steps (:func:`homotopy`) are the case h0 = hmin = hmax = 1/steps, delta = ∞
(the first failure ends it).

**Grids.** :func:`solve_grid_full` solves every row of a parameter grid: from the previous
converged row (warm start), else from the given start, else by :func:`homotopy` of parameter
``homotopy_index`` from ``homotopy_value``; :func:`continue_grid` solves every row by
:func:`continue_parameter` of one parameter from 0 with the secant predictor.

The placeholders below complete the reference problem of the Newton template (imported from it
when this file runs as plain Python; rendering includes the Newton kernels instead):
F_0 = a² − 2q², F_1 = ab − 2kq, root a = q√2, b = k√2, start (q, k), output a/b = q/k.
"""

import math

import numpy as np
from numba import njit

from .newton import (  # placeholders: included by rendering (the Newton template)
    CONVERGED,
    MAX_STEPS,
    SINGULAR,
    newton,
)

N_OUTPUTS = 1  # placeholder: the number of outputs


@njit(cache=True)
def start(p):  # placeholder: the start where the continued parameter has its starting value
    return p[:2].copy()


@njit(cache=True)
def outputs(x, p):  # placeholder: the named outputs (here a/b = q/k)
    out = np.zeros(N_OUTPUTS, dtype=x.dtype)
    out[0] = x[0] / x[1]
    return out


# ---- kernels (copied into the rendered module) ----


@njit(cache=True)
def distance(a, b):
    """max_i |a_i − b_i|/max(1, |b_i|) (∞ when not finite): how far a corrector moved."""
    d = 0.0
    for i in range(a.shape[0]):
        s = abs(a[i] - b[i]) / max(1.0, abs(b[i]))
        if not math.isfinite(s):
            return math.inf
        if s > d:
            d = s
    return d


@njit(cache=True)
def path_value(value, target, tau):
    """The continued parameter at τ ∈ [0, 1]: geometric between positive reals, else linear."""
    if value.real > 0 and target.real > 0 and value.imag == 0 and target.imag == 0:
        return value * (target / value) ** tau
    return value + (target - value) * tau


@njit(cache=True)
def _predict(x, xprev, tau, tau_prev, tau_next, secant):
    """The start of the next corrector: the secant predictor, or the last solution."""
    if secant and tau_prev >= 0.0:
        return x + (x - xprev) * ((tau_next - tau) / (tau - tau_prev))
    return x.copy()


@njit(cache=True)
def continue_parameter(p, index, value, atol, rtol, max_steps, h0, hmin, hmax, delta, secant):
    """The root at ``p`` followed from p[index] = ``value`` (module docstring):
    ``(x, status, iterations, residual, at_floor)``, iterations of all Newton solves together."""
    q = p.copy()
    target = p[index]
    q[index] = path_value(value, target, 0.0)
    x, st, total, res, floor = newton(start(q), q, atol, rtol, max_steps)
    if st != CONVERGED:
        return x, st, total, res, floor
    tau = 0.0
    h = h0
    xprev = x.copy()
    tau_prev = -1.0
    while tau < 1.0:
        tau_next = min(1.0, tau + h)
        if tau_next > 1.0 - 0.5 * hmin:  # the last step ends at 1 (fixed steps: no rounding remainder)
            tau_next = 1.0
        xp = _predict(x, xprev, tau, tau_prev, tau_next, secant)
        q[index] = path_value(value, target, tau_next)
        xn, st, it, res, floor = newton(xp, q, atol, rtol, max_steps)
        total += it
        dist = distance(xn, xp)
        if st == CONVERGED and dist <= delta:
            xprev = x
            tau_prev = tau
            x = xn
            tau = tau_next
            if dist < 0.25 * delta:
                h = min(hmax, 2.0 * h)
        else:
            h = 0.5 * h
            if h < hmin or h <= 0.0:  # (h <= 0: a step control with hmin <= 0 still ends)
                return xn, (st if st != CONVERGED else SINGULAR), total, res, floor
    return x, CONVERGED, total, res, floor


@njit(cache=True)
def homotopy(p, atol, rtol, max_steps, index, value, steps):
    """Continuation of parameter ``index`` from ``value`` (where ``start`` is reliable) to
    ``p[index]`` in ``steps`` fixed steps (geometric between positive reals, else linear; the
    first failure ends it): ``(x, status, iterations, residual, at_floor)``."""
    h = 1.0 / steps
    return continue_parameter(p, index, value, atol, rtol, max_steps, h, h, h, math.inf, False)


@njit(cache=True)
def solve_grid_full(X0, P, atol, rtol, max_steps, warm, homotopy_index, homotopy_value, homotopy_steps):
    """One solve per row of P (n_points × n_params): ``(X, status, iterations, residual,
    at_floor, Y)`` with Y the outputs. X0 holds one start or one per row."""
    n = P.shape[0]
    dim = X0.shape[1]
    X = np.empty((n, dim), dtype=X0.dtype)
    Y = np.empty((n, N_OUTPUTS), dtype=X0.dtype)
    status = np.empty(n, dtype=np.int64)
    iters = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.float64)
    floors = np.zeros(n, dtype=np.bool_)
    have_prev = False
    prev = X0[0].copy()
    for i in range(n):
        x0 = X0[i] if X0.shape[0] == n else X0[0]
        st = MAX_STEPS
        it = 0
        res = math.inf
        fl = False
        x = x0
        if warm and have_prev:
            x, st, it, res, fl = newton(prev, P[i], atol, rtol, max_steps)
        if st != CONVERGED:
            x2, st2, it2, res2, fl2 = newton(x0, P[i], atol, rtol, max_steps)
            it += it2
            if st2 == CONVERGED or res2 < res:
                x, st, res, fl = x2, st2, res2, fl2
        if st != CONVERGED and homotopy_index >= 0:
            x3, st3, it3, res3, fl3 = homotopy(P[i], atol, rtol, max_steps, homotopy_index, homotopy_value,
                                               homotopy_steps)
            it += it3
            if st3 == CONVERGED or res3 < res:
                x, st, res, fl = x3, st3, res3, fl3
        X[i] = x
        status[i] = st
        iters[i] = it
        resid[i] = res
        floors[i] = fl
        Y[i] = outputs(x, P[i])
        if st == CONVERGED:
            prev = x.copy()
            have_prev = True
    return X, status, iters, resid, floors, Y


@njit(cache=True)
def solve_grid(X0, P, atol, rtol, max_steps, warm, homotopy_index, homotopy_value, homotopy_steps):
    """:func:`solve_grid_full` without the round-off flags: ``(X, status, iterations, residual, Y)``."""
    X, status, iters, resid, floors, Y = solve_grid_full(X0, P, atol, rtol, max_steps, warm, homotopy_index,
                                                         homotopy_value, homotopy_steps)
    return X, status, iters, resid, Y


@njit(cache=True)
def continue_grid(P, n_outputs, t_index, atol, rtol, max_steps, h0, hmin, hmax, delta):
    """Every row of P by the adaptive continuation of parameter ``t_index`` from 0 with the secant
    predictor (step control h0, hmin, hmax and the corrector's largest move ``delta``):
    ``(X, status, iterations, residual, Y)``."""
    n = P.shape[0]
    x0 = start(P[0])
    X = np.empty((n, x0.shape[0]), dtype=P.dtype)
    Y = np.empty((n, n_outputs), dtype=P.dtype)
    status = np.empty(n, dtype=np.int64)
    iters = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.float64)
    zero = P[0, t_index] * 0.0
    for i in range(n):
        x, st, it, res, _ = continue_parameter(P[i], t_index, zero, atol, rtol, max_steps, h0, hmin, hmax, delta,
                                               True)
        X[i] = x
        status[i] = st
        iters[i] = it
        resid[i] = res
        Y[i] = outputs(x, P[i])
    return X, status, iters, resid, Y
