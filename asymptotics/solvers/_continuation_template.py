"""Template of the compiled continuation in the Gaussian scale t (rendered per system by
:func:`asymptotics.rendering.templates.load_template`, the placeholders bound to the functions of
the system's generated module).

At each parameter point: start at t = 0 from the exact free-limit solution ``start(p)``
(g = q0⁻¹), then step t → 1 with a secant predictor and Newton as corrector. A step is accepted
when Newton converges *and* the corrector moved the predicted point by at most ``delta``
(relative, componentwise): a larger move means Newton left the branch being followed, and the
step is halved instead. Accepted steps with a small correction double the step (up to ``hmax``);
below ``hmin`` the point is reported as failed (status 3), never silently. Returns for every
point the solution, status, Newton iterations (all steps together), residual and outputs.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def start(p):  # placeholder: the free-limit start g = q0⁻¹
    return p


@njit(cache=True)
def outputs(x, p):  # placeholder: the system's outputs
    return x


@njit(cache=True)
def newton(x0, p, atol, rtol, max_steps):  # placeholder: the system's compiled Newton
    return x0, 0, 0, 0.0, False  # (x, status, iterations, residual, at_roundoff_floor)


# ---- kernels (copied into the rendered module) ----


@njit(cache=True)
def _distance(a, b):
    d = 0.0
    for i in range(a.shape[0]):
        s = abs(a[i] - b[i]) / max(1.0, abs(b[i]))
        if not math.isfinite(s):
            return math.inf
        if s > d:
            d = s
    return d


@njit(cache=True)
def continue_point(p, t_index, atol, rtol, max_steps, h0, hmin, hmax, delta):
    q = p.copy()
    q[t_index] = 0.0
    x, st, total, res, _ = newton(start(q), q, atol, rtol, max_steps)
    if st != 0:
        return x, st, total, res
    t = 0.0
    h = h0
    xprev = x.copy()
    tprev = -1.0
    while t < 1.0:
        tn = min(1.0, t + h)
        if tprev >= 0.0:
            xp = x + (x - xprev) * ((tn - t) / (t - tprev))
        else:
            xp = x.copy()
        q[t_index] = tn
        xn, st, it, res, _ = newton(xp, q, atol, rtol, max_steps)
        total += it
        dist = _distance(xn, xp)
        if st == 0 and dist <= delta:
            xprev = x
            tprev = t
            x = xn
            t = tn
            if dist < 0.25 * delta:
                h = min(hmax, 2.0 * h)
        else:
            h = 0.5 * h
            if h < hmin:
                return x, (st if st != 0 else 3), total, res
    return x, 0, total, res


@njit(cache=True)
def continue_grid(P, n_outputs, t_index, atol, rtol, max_steps, h0, hmin, hmax, delta):
    n = P.shape[0]
    x0 = start(P[0])
    X = np.empty((n, x0.shape[0]), dtype=P.dtype)
    Y = np.empty((n, n_outputs), dtype=P.dtype)
    status = np.empty(n, dtype=np.int64)
    iters = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.float64)
    for i in range(n):
        x, st, it, res = continue_point(P[i], t_index, atol, rtol, max_steps, h0, hmin, hmax, delta)
        X[i] = x
        status[i] = st
        iters[i] = it
        resid[i] = res
        Y[i] = outputs(x, P[i])
    return X, status, iters, resid, Y
