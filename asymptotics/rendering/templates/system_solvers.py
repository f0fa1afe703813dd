r"""Template: the compiled solver loops of a lowered equation system F(x; p) = 0.

:func:`asymptotics.codegen.lower` renders a system's expressions — ``residual``,
``residual_scale``, ``jacobian``, ``outputs``, ``start`` and the constant ``N_OUTPUTS`` — in place
of the placeholders below and copies the kernels from the marker line on (see
:mod:`asymptotics.rendering.templates`). The kernels are the one compiled Newton family of the
package; they return the integer codes of :class:`asymptotics.solvers.Status`.

**Stopping rule.** With s_i(x) = Σ_k |t_ik(x)| the size of the terms of equation i
(F_i = Σ_k t_ik; ``residual_scale``), a point is converged when every

    |F_i(x)| ≤ atol + rtol·s_i(x),

a relative test on each equation's own scale: an equation whose terms are of size 10⁵ cannot be
evaluated to better than ~10⁵·ε (ε = 2.2·10⁻¹⁶), whatever the size of the unknowns. The reported
residual is max_i |F_i|/max(1, s_i).

**Round-off floor.** When every |F_i| ≤ ROUNDOFF·ε·s_i the residual is at the level of the
rounding errors of its own evaluation; if then the full Newton step does not decrease ‖F‖²
(or ``max_steps`` is reached) the point is accepted as converged and flagged ``at_floor`` — the
solution is as accurate as float64 evaluation of the equations allows, though tighter than the
``rtol`` asked for could not be verified.

**Newton.** J Δ = −F by Gaussian elimination with partial pivoting (small dense systems; no
LAPACK binding to compile); Armijo backtracking ‖F(x + tΔ)‖² ≤ (1 − 10⁻⁴t)‖F(x)‖², t ≥ 2⁻³⁰.

**Grids.** ``solve_grid_full`` solves every row of a parameter grid: from the previous converged
point (warm start), else from the given start, else by continuation of parameter
``homotopy_index`` from ``homotopy_value`` (where the start is exact) in geometric steps.

The placeholders are a reference system with a closed form, which the tests solve by importing
this file directly: unknowns (a, b), parameters (q, k),

    F_0 = a² − 2q²,   F_1 = ab − 2kq   ⇒   a = q√2, b = k√2,

terms of size s_0 = 4q², s_1 = 4|kq|. For q a power of two the residual of F_0 never vanishes in
float64 (√2 is irrational; a = 2^m·x scales the rounding of x² exactly), so a test scaled by the
unknowns instead of the terms fails deterministically once q ≳ 10⁵.
"""

import math

import numpy as np
from numba import njit

from .small_linalg import gauss_solve  # placeholder: included by rendering

N_OUTPUTS = 1  # placeholder: the number of outputs


def residual(x, p):  # placeholder: the system's F(x; p)
    out = np.zeros(2, dtype=x.dtype)
    out[0] = x[0] ** 2 - 2.0 * p[0] ** 2
    out[1] = x[0] * x[1] - 2.0 * p[1] * p[0]
    return out


def residual_scale(x, p):  # placeholder: Σ_k |t_ik| for each equation
    out = np.zeros(2, dtype=np.float64)
    out[0] = abs(x[0] ** 2) + abs(2.0 * p[0] ** 2)
    out[1] = abs(x[0] * x[1]) + abs(2.0 * p[1] * p[0])
    return out


def jacobian(x, p):  # placeholder: ∂F_i/∂x_j
    out = np.zeros((2, 2), dtype=x.dtype)
    out[0, 0] = 2.0 * x[0]
    out[1, 0] = x[1]
    out[1, 1] = x[0]
    return out


def outputs(x, p):  # placeholder: the named outputs (here a/b = q/k)
    out = np.zeros(N_OUTPUTS, dtype=x.dtype)
    out[0] = x[0] / x[1]
    return out


def start(p):  # placeholder: starting values
    out = np.zeros(2, dtype=p.dtype)
    out[0] = p[0]
    out[1] = p[1]
    return out


# ---- kernels (copied into the rendered module) ----


#: Status codes: those of :class:`asymptotics.solvers.Status` (a test checks that they agree).
CONVERGED, MAX_STEPS, NONFINITE, SINGULAR = 0, 1, 2, 3
#: Round-off floor: |F_i| ≤ ROUNDOFF·ε·s_i is indistinguishable from 0 in float64.
ROUNDOFF = 64.0
EPS = 2.220446049250313e-16
#: Smallest line-search step and the Armijo constant.
MIN_STEP, ARMIJO = 2.0**-30, 1e-4
#: Relative size of a pivot below which the Jacobian counts as singular.
PIVOT_TOL = 1e-14

# the system's functions (rendered above as plain Python) compiled for use by the kernels
residual = njit(cache=True)(residual)
residual_scale = njit(cache=True)(residual_scale)
jacobian = njit(cache=True)(jacobian)
outputs = njit(cache=True)(outputs)
start = njit(cache=True)(start)


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
    t = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        t += a * a
    return t


@njit(cache=True)
def solve_linear(A, b):
    """``(y, ok)``: y = A⁻¹b by Gaussian elimination with partial pivoting (``small_linalg``);
    ``ok`` is False for a zero or negligible pivot (|pivot| ≤ PIVOT_TOL·max|A_ij|: singular)."""
    n = b.shape[0]
    y = b.copy()
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(A[i, j]))
    if not (scale > 0.0):
        return y, False
    col = y.reshape((n, 1))
    return y, gauss_solve(A, col, col, PIVOT_TOL * scale, True)


@njit(cache=True)
def newton(x0, p, atol, rtol, max_steps):
    """Newton from ``x0`` at parameters ``p``: ``(x, status, iterations, residual, at_floor)``."""
    x = x0.copy()
    fx = residual(x, p)
    res = math.inf
    for k in range(max_steps + 1):
        ok, finite, res, floor = residual_test(fx, x, residual_scale(x, p), atol, rtol)
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
        # the rounding of F_i also scales with Σ_j |∂F_i/∂x_j x_j| (intermediate quantities the
        # top-level terms do not show): the floor is judged on the larger of the two sizes
        floor = floor or _at_jacobian_floor(fx, jx, x, residual_scale(x, p))
        dx, solved = solve_linear(jx, -fx)
        if not solved:
            return x, (CONVERGED if floor else SINGULAR), k, res, floor
        phi0 = _sq(fx)
        t = 1.0
        accepted = False
        xn = x
        fn = fx
        while t >= MIN_STEP:
            xn = x + t * dx
            fn = residual(xn, p)
            phin = _sq(fn)
            if math.isfinite(phin) and phin <= (1.0 - ARMIJO * t) * phi0:
                accepted = True
                break
            if floor:  # at the round-off floor: backtracking only samples rounding noise
                break
            t *= 0.5
        if not accepted:
            return x, (CONVERGED if floor else SINGULAR), k, res, floor
        x = xn
        fx = fn
    return x, MAX_STEPS, max_steps, res, False


@njit(cache=True)
def homotopy(x0, p, atol, rtol, max_steps, index, value, steps):
    """Continuation of parameter ``index`` from ``value`` (where ``start`` is reliable) to
    ``p[index]`` in ``steps`` steps (geometric between positive reals, else linear)."""
    q = p.copy()
    target = p[index]
    x = x0.copy()
    it = 0
    st = MAX_STEPS
    res = math.inf
    floor = False
    for k in range(steps + 1):
        w = k / steps
        if value.real > 0 and target.real > 0 and value.imag == 0 and target.imag == 0:
            q[index] = value * (target / value) ** w
        else:
            q[index] = value + (target - value) * w
        if k == 0:
            x = start(q)
        x, st, it_k, res, floor = newton(x, q, atol, rtol, max_steps)
        it += it_k
        if st != CONVERGED:
            return x, st, it, res, floor
    return x, st, it, res, floor


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
            x3, st3, it3, res3, fl3 = homotopy(x0, P[i], atol, rtol, max_steps, homotopy_index,
                                               homotopy_value, homotopy_steps)
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
