"""Generic compiled solver loops (QuantEcon style): small ``numba.njit`` kernels that take
numba-compiled callables.

The variable ``x`` is a 1-D ``float64`` or ``complex128`` array and ``params`` whatever the
callables expect (typically a 1-D ``float64`` array). The callables are

* ``g(x, params) -> array`` (fixed-point map), ``F(x, params) -> array`` (residual),
* ``J(x, params) -> 2-D array`` (Jacobian ``∂F_i/∂x_j``, same dtype as ``x``).

Every kernel returns ``(x, status, iterations, residual)`` with the status codes of
:mod:`asymptotics.solvers.result` (0 converged, 1 max steps, 2 non-finite, 3 singular Jacobian or
stagnation) and ``residual = max_i |r_i| / max(1, |x_i|)``. Kernels never raise on bad numerics:
the Python caller checks the status (see :func:`check_status`).

Passing a compiled callable specialises the kernel for it; numba cannot cache such
specialisations across processes, so systems that must start fast (generated equations) render
their own driver into their generated module (:mod:`asymptotics.codegen`), which is cached.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def F(x, p):
...     return np.array([p[0] * x[0] ** 2 + (1 + p[0] - p[1]) * x[0] + 1])
>>> @njit
... def J(x, p):
...     return np.array([[2 * p[0] * x[0] + 1 + p[0] - p[1]]])
>>> x, status, it, res = newton_nb(F, J, np.array([1.0]), np.array([-0.5, 0.5]), 1e-13, 1e-13, 50)
>>> round(float(x[0]), 12), status          # m̄ = √2 at z = −1/2, ψ2 = 1/2
(1.414213562373, 0)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..errors import ConvergenceError
from .result import CONVERGED, STATUS_MESSAGES, SolverResult

__all__ = [
    "fixed_point_nb",
    "newton_nb",
    "newton_grid_nb",
    "residual_test_nb",
    "solve_linear_nb",
    "check_status",
]


@njit(cache=True)
def residual_test_nb(r, x, atol, rtol):
    """``(ok, finite, residual)``: the componentwise test ``|r_i| <= atol + rtol|x_i|``, whether
    every component is finite, and ``max_i |r_i| / max(1, |x_i|)``."""
    ok = True
    res = 0.0
    for i in range(r.shape[0]):
        a = abs(r[i])
        ax = abs(x[i])
        if not (math.isfinite(a) and math.isfinite(ax)):
            return False, False, math.inf
        if a > atol + rtol * ax:
            ok = False
        s = a / max(1.0, ax)
        if s > res:
            res = s
    return ok, True, res


@njit(cache=True)
def fixed_point_nb(g, x0, params, damping, atol, rtol, min_steps, max_steps):
    """Damped iteration ``x ← x + ω (g(x) − x)``; returns ``(x, status, iterations, residual)``."""
    x = x0.copy()
    res = math.inf
    for k in range(1, max_steps + 1):
        gx = g(x, params)
        r = gx - x
        ok, finite, res = residual_test_nb(r, x, atol, rtol)
        if not finite:
            return x, 2, k, math.inf
        if ok and k >= min_steps:
            return x, 0, k, res
        x = x + damping * r
    return x, 1, max_steps, res


@njit(cache=True)
def _sq(v):
    s = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        s += a * a
    return s


@njit(cache=True)
def solve_linear_nb(A, b):
    """``(y, ok)``: y = A⁻¹b by Gaussian elimination with partial pivoting (small dense systems;
    avoids compiling LAPACK bindings); ``ok`` is False for a zero or negligible pivot."""
    n = b.shape[0]
    M = A.copy()
    y = b.copy()
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(M[i, j]))
    if not (scale > 0.0):
        return y, False
    for k in range(n):
        piv = k
        best = abs(M[k, k])
        for i in range(k + 1, n):
            if abs(M[i, k]) > best:
                best = abs(M[i, k])
                piv = i
        if best <= 1e-14 * scale:
            return y, False
        if piv != k:
            for j in range(n):
                tmp = M[k, j]
                M[k, j] = M[piv, j]
                M[piv, j] = tmp
            tmp = y[k]
            y[k] = y[piv]
            y[piv] = tmp
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            if f != 0:
                for j in range(k, n):
                    M[i, j] -= f * M[k, j]
                y[i] -= f * y[k]
    for k in range(n - 1, -1, -1):
        acc = y[k]
        for j in range(k + 1, n):
            acc -= M[k, j] * y[j]
        y[k] = acc / M[k, k]
    return y, True


@njit(cache=True)
def newton_nb(F, J, x0, params, atol, rtol, max_steps):
    """Newton with Armijo backtracking on ``‖F‖²``; returns ``(x, status, iterations, residual)``."""
    x = x0.copy()
    fx = F(x, params)
    res = math.inf
    for k in range(max_steps + 1):
        ok, finite, res = residual_test_nb(fx, x, atol, rtol)
        if not finite:
            return x, 2, k, math.inf
        if ok:
            return x, 0, k, res
        if k == max_steps:
            return x, 1, k, res
        jx = J(x, params)
        for v in jx.ravel():
            if not math.isfinite(abs(v)):
                return x, 2, k, res
        dx, ok = solve_linear_nb(jx, -fx)
        if not ok:  # singular Jacobian
            return x, 3, k, res
        phi0 = _sq(fx)
        t = 1.0
        accepted = False
        while t >= 2.0**-30:
            xn = x + t * dx
            fn = F(xn, params)
            phin = _sq(fn)
            if math.isfinite(phin) and phin <= (1.0 - 1e-4 * t) * phi0:
                accepted = True
                break
            t *= 0.5
        if not accepted:
            return x, 3, k, res
        x = xn
        fx = fn
    return x, 1, max_steps, res


@njit(cache=True)
def newton_grid_nb(F, J, x0, params_grid, atol, rtol, max_steps):
    """Newton at every row of ``params_grid`` (``n_points × n_params``) with warm starts: each
    point starts from the previous converged solution (``x0`` for the first point and after a
    failure). Returns ``(X, status, iterations, residual)`` with ``X`` of shape ``n_points × dim``."""
    n = params_grid.shape[0]
    X = np.empty((n, x0.shape[0]), dtype=x0.dtype)
    status = np.empty(n, dtype=np.int64)
    iters = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.float64)
    start = x0.copy()
    for i in range(n):
        x, st, it, res = newton_nb(F, J, start, params_grid[i], atol, rtol, max_steps)
        if st != 0:  # retry from the user's starting point
            x2, st2, it2, res2 = newton_nb(F, J, x0, params_grid[i], atol, rtol, max_steps)
            if st2 == 0 or res2 < res:
                x, st, res = x2, st2, res2
            it += it2
        X[i] = x
        status[i] = st
        iters[i] = it
        resid[i] = res
        if st == 0:
            start = x
    return X, status, iters, resid


def check_status(x, status, iterations, residual, method, on_failure="raise"):
    """Turn a compiled kernel's ``(x, status, iterations, residual)`` into a :class:`SolverResult`
    (arrays of statuses: the worst one), raising :class:`ConvergenceError` on failure unless
    ``on_failure="return"``."""
    st = np.asarray(status)
    worst = int(st.max()) if st.size else CONVERGED
    bad = int(np.count_nonzero(st))
    res = SolverResult(
        value=x,
        converged=worst == CONVERGED,
        iterations=int(np.max(iterations)) if np.size(iterations) else 0,
        residual=float(np.max(residual)) if np.size(residual) else 0.0,
        method=method,
        message=STATUS_MESSAGES[worst]
        if st.ndim == 0
        else ("converged" if bad == 0 else f"{bad} of {st.size} point(s) failed: {STATUS_MESSAGES[worst]}"),
        status=worst,
    )
    if worst != CONVERGED and on_failure == "raise":
        raise ConvergenceError(f"{method}: {res.message}; residual {res.residual:.3g}", res)
    return res
