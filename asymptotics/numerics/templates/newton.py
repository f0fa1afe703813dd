r"""Template: Newton's method with the Armijo line search, the term-scaled stopping rule and the
round-off floor — the one compiled Newton of the package.

A template of :mod:`asymptotics.rendering.templates`. A rendered module *includes* it after the
dense linear algebra (``include=(SMALL_LINALG, …/newton.py)``: its kernels copied in) and
defines its problem, the three placeholders below, as compiled module-level functions:

* ``residual(x, p)`` — F(x; p), a 1-D array of the dtype of x (real or complex);
* ``residual_scale(x, p)`` — s_i ≥ 0, the size of the terms of equation i (float64);
* ``jacobian(x, p)`` — ∂F_i/∂x_j (n × n).

``p`` is passed through untouched: an array of parameters (a lowered equation system), or a tuple
(a theory's problem with array data, e.g. the κ-mixture resolvent of :mod:`asymptotics.theory.spectra`).
The kernels return the integer codes of :class:`asymptotics.numerics.status.Status`.

**Stopping rule.** A point is converged when every

    |F_i(x)| ≤ atol + rtol·s_i(x),

a relative test on each equation's own scale: an equation whose terms are of size 10⁵ cannot be
evaluated to better than ~10⁵·ε (ε = 2.2·10⁻¹⁶), whatever the size of the unknowns. The reported
residual is max_i |F_i|/max(1, s_i).

**Round-off floor.** When every |F_i| ≤ ROUNDOFF·ε·σ_i, σ_i = max(s_i, Σ_j |J_ij x_j|) (the
rounding of F_i also scales with the intermediate quantities its linear terms show), the residual
is at the level of the rounding errors of its own evaluation; if then the full Newton step does
not decrease ‖F‖² (or ``max_steps`` is reached, or J is singular) the point is accepted as
converged and flagged ``at_floor`` — as accurate as float64 evaluation of the equations allows,
though tighter than the ``rtol`` asked for could not be verified.

**Step.** J Δ = −F by Gaussian elimination with partial pivoting (``gauss_solve`` of the dense
linear algebra; a pivot ≤ PIVOT_TOL·max|J_ij| counts as singular); with the line search, Armijo
backtracking ‖F(x + tΔ)‖² ≤ (1 − 10⁻⁴t)‖F(x)‖², t = 1, ½, …, ≥ 2⁻³⁰ (at the round-off floor only
t = 1: backtracking would only sample rounding noise); without it the full step x + Δ.

The placeholders below are a reference problem with a closed form, which the tests solve by
importing this file directly: unknowns (a, b), parameters (q, k),

    F_0 = a² − 2q²,   F_1 = ab − 2kq   ⇒   a = q√2, b = k√2,

terms of size s_0 = 4q², s_1 = 4|kq|.
"""

import math

import numpy as np
from numba import njit

from .dense_linalg import EPS, gauss_solve  # placeholders: included by rendering (SMALL_LINALG)


@njit(cache=True)
def residual(x, p):  # placeholder: the problem's F(x; p)
    out = np.zeros(2, dtype=x.dtype)
    out[0] = x[0] ** 2 - 2.0 * p[0] ** 2
    out[1] = x[0] * x[1] - 2.0 * p[1] * p[0]
    return out


@njit(cache=True)
def residual_scale(x, p):  # placeholder: s_i, the size of the terms of equation i
    out = np.zeros(2, dtype=np.float64)
    out[0] = abs(x[0] ** 2) + abs(2.0 * p[0] ** 2)
    out[1] = abs(x[0] * x[1]) + abs(2.0 * p[1] * p[0])
    return out


@njit(cache=True)
def jacobian(x, p):  # placeholder: ∂F_i/∂x_j
    out = np.zeros((2, 2), dtype=x.dtype)
    out[0, 0] = 2.0 * x[0]
    out[1, 0] = x[1]
    out[1, 1] = x[0]
    return out


# ---- kernels (copied into the rendered module) ----


#: Status codes: those of :class:`asymptotics.numerics.status.Status` (a test checks that they agree).
CONVERGED, MAX_STEPS, NONFINITE, SINGULAR = 0, 1, 2, 3
#: Round-off floor: |F_i| ≤ ROUNDOFF·ε·s_i is indistinguishable from 0 in float64.
ROUNDOFF = 64.0
#: Smallest line-search step and the Armijo constant.
MIN_STEP, ARMIJO = 2.0**-30, 1e-4
#: Relative size of a pivot below which a matrix counts as singular.
PIVOT_TOL = 1e-14


@njit(cache=True)
def residual_test(r, x, s, atol, rtol):
    """``(ok, finite, residual, floor)``: whether every |r_i| ≤ atol + rtol·s_i, whether r, x
    and s are finite, max_i |r_i|/max(1, s_i), and whether every |r_i| ≤ ROUNDOFF·ε·s_i."""
    ok = True
    floor = True
    res = 0.0
    for i in range(r.shape[0]):
        a = abs(r[i])
        si = s[i]
        if not (math.isfinite(a) and math.isfinite(si)):
            return False, False, math.inf, False
        if a > atol + rtol * si:
            ok = False
        if a > ROUNDOFF * EPS * si:
            floor = False
        q = a / max(1.0, si)
        if q > res:
            res = q
    for i in range(x.shape[0]):
        if not math.isfinite(abs(x[i])):
            return False, False, math.inf, False
    return ok, True, res, floor


@njit(cache=True)
def _at_jacobian_floor(r, J, x, s):
    """Whether every |r_i| ≤ ROUNDOFF·ε·max(s_i, Σ_j |J_ij x_j|)."""
    for i in range(r.shape[0]):
        t = 0.0
        for j in range(x.shape[0]):
            t += abs(J[i, j] * x[j])
        if abs(r[i]) > ROUNDOFF * EPS * max(abs(s[i]), t):
            return False
    return True


@njit(cache=True)
def _sq(v):
    """‖v‖² = Σ_i |v_i|²."""
    t = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        t += a * a
    return t


@njit(cache=True)
def _max_abs(A):
    """max_ij |A_ij|."""
    scale = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            scale = max(scale, abs(A[i, j]))
    return scale


@njit(cache=True)
def solve_linear(A, b):
    """``(y, ok)``: y = A⁻¹b by Gaussian elimination with partial pivoting (``gauss_solve``);
    ``ok`` is False for a zero or negligible pivot (|pivot| ≤ PIVOT_TOL·max|A_ij|: singular)."""
    n = b.shape[0]
    y = b.copy()
    scale = _max_abs(A)
    if not (scale > 0.0):
        return y, False
    col = y.reshape((n, 1))
    return y, gauss_solve(A, col, col, PIVOT_TOL * scale, True)


@njit(cache=True)
def _line_search(x, fx, dx, p, floor):
    """``(accepted, x + tΔ, F(x + tΔ))``: the first t = 1, ½, … ≥ MIN_STEP with a finite
    ‖F(x + tΔ)‖² ≤ (1 − ARMIJO·t)‖F(x)‖²; at the round-off floor only t = 1."""
    phi0 = _sq(fx)
    t = 1.0
    xn = x
    fn = fx
    while t >= MIN_STEP:
        xn = x + t * dx
        fn = residual(xn, p)
        phin = _sq(fn)
        if math.isfinite(phin) and phin <= (1.0 - ARMIJO * t) * phi0:
            return True, xn, fn
        if floor:
            break
        t *= 0.5
    return False, xn, fn


@njit(cache=True)
def newton_steps(x0, p, atol, rtol, max_steps, line_search):
    """Newton from ``x0`` at ``p`` (module docstring), with the Armijo line search or full steps:
    ``(x, status, iterations, residual, at_floor)``."""
    x = x0.copy()
    fx = residual(x, p)
    res = math.inf
    for k in range(max_steps + 1):
        s = residual_scale(x, p)
        ok, finite, res, floor = residual_test(fx, x, s, atol, rtol)
        if not finite:
            return x, NONFINITE, k, math.inf, False
        if ok:
            return x, CONVERGED, k, res, False
        if k == max_steps:
            return x, (CONVERGED if floor else MAX_STEPS), k, res, floor
        jx = jacobian(x, p)
        for v in jx.ravel():
            if not math.isfinite(abs(v)):
                return x, NONFINITE, k, res, False
        floor = floor or _at_jacobian_floor(fx, jx, x, s)
        dx, solved = solve_linear(jx, -fx)
        if not solved:
            return x, (CONVERGED if floor else SINGULAR), k, res, floor
        if line_search:
            accepted, xn, fn = _line_search(x, fx, dx, p, floor)
            if not accepted:
                return x, (CONVERGED if floor else SINGULAR), k, res, floor
            x = xn
            fx = fn
        else:
            x = x + dx
            fx = residual(x, p)
    return x, MAX_STEPS, max_steps, res, False


@njit(cache=True)
def newton(x0, p, atol, rtol, max_steps):
    """Newton with the line search from ``x0`` at ``p``: ``(x, status, iterations, residual, at_floor)``."""
    return newton_steps(x0, p, atol, rtol, max_steps, True)
