r"""Template: Anderson acceleration of a fixed point x = G(x), the one compiled Anderson solve.

**Mathematics** (type II, Walker & Ni 2011, "Anderson acceleration for fixed-point iterations",
SIAM J. Numer. Anal. 49:1715). With the residual f(x) = G(x) − x, damping ω and memory m, keep
the last differences of iterates and residuals

    ΔX_k = [x_{k−h+1} − x_{k−h}, …, x_k − x_{k−1}],   ΔF_k = [f_{k−h+1} − f_{k−h}, …, f_k − f_{k−1}]

(h ≤ m columns, oldest first), solve the least-squares problem γ_k = argmin_γ ‖f_k − ΔF_k γ‖₂
and step

    x_{k+1} = x_k + ω f_k − (ΔX_k + ω ΔF_k) γ_k,

which with h = 0 is the damped iteration x_{k+1} = x_k + ω f_k. γ is the minimum-norm solution
by the one-sided Jacobi SVD of ``dense_linalg.py`` with gelsd's rank rule (rcond = ε·max(n, h)).
The guards of :class:`asymptotics.solvers.Anderson` (whose plain-Python twin is
``asymptotics/solvers/fixed_point.py``, for complex and object arithmetic):

* **restart**: when ‖f_k‖_∞ > ``restart``·min_{j<k} ‖f_j‖_∞ (stagnation or divergence) the history
  is cleared and the pair (x_k, f_k) starts a new one;
* **ill-conditioned history**: when ΔF_k is rank deficient, σ_min < 10⁻¹² σ_max, or γ is not finite,
  only the newest pair is kept and γ = (Δf·f_k)/(Δf·Δf) (the one-column least squares; 0 when
  Δf = 0); a γ still not finite gives the damped step.

**Stopping rule** (that of :mod:`asymptotics.solvers`): x_k is accepted when every
|f_i(x_k)| ≤ atol + rtol·s_i, with s_i = |x_i| (x_i and G_i(x) ≈ x_i are the terms of f_i) or the
term sizes given by the problem (:func:`anderson_solve_scaled`), after at least ``min_steps``
evaluations of G. The returned value is the tested iterate x_k (not the untested G(x_k)); the
reported residual is max_i |f_i|/max(1, |x_i|) (∞ when not finite).

**Problem contract.** A template that includes this one (``render_template(..., include=(SMALL_LINALG,
ANDERSON))``, ``ANDERSON`` = this file) defines the one placeholder

    fixed_point_map(x, g, problem)     # g ← G(x); ``problem``: a tuple the theory defines

and calls :func:`anderson_solve` (x overwritten with the result), never its own loop. ``problem``
may hold anything numba types (a heterogeneous tuple of arrays and scalars, unpacked by name in
the map); a theory whose map computes a *state* it needs after convergence writes it into arrays
of ``problem`` (at CONVERGED the last evaluation was at the returned x) or evaluates the map once
more at the returned x. ``options`` = (atol, rtol, min_steps, max_steps, memory, damping,
restart). The status is an integer code of :class:`asymptotics.numerics.status.Status`
(CONVERGED, MAX_STEPS, NONFINITE).
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.status import Status

from .dense_linalg import EPS, lstsq_min_norm  # placeholders: included by rendering


@njit(cache=True)
def fixed_point_map(x, g, problem):  # placeholder: the problem's map, g ← G(x)
    """A reference problem (for running this file as plain Python): G(x) = cos(x/a) elementwise,
    ``problem`` = (a,); for a = 1 the fixed point is the Dottie number 0.7390851332151607."""
    (a,) = problem
    for i in range(x.shape[0]):
        g[i] = math.cos(x[i] / a)


# ---- kernels (copied into the rendered module) ----

CONVERGED = int(Status.CONVERGED)
MAX_STEPS = int(Status.MAX_STEPS)
NONFINITE = int(Status.NONFINITE)

#: smallest accepted σ_min/σ_max of the history ΔF (below it only the newest pair is kept)
ANDERSON_MIN_CONDITION = 1e-12


@njit(cache=True, nogil=True, error_model="numpy")
def anderson_residual_test(g, x, scale, r, atol, rtol):
    """r = g − x; returns ``(finite, converged)``: whether every r_i is finite and whether every
    |r_i| ≤ atol + rtol·s_i, s_i = ``scale[i]`` (|x_i| when ``scale`` is empty)."""
    finite = True
    conv = True
    own = scale.shape[0] == 0
    for i in range(x.shape[0]):
        r[i] = g[i] - x[i]
        if not math.isfinite(r[i]):
            finite = False
        s = abs(x[i]) if own else scale[i]
        if not (abs(r[i]) <= atol + rtol * s):
            conv = False
    return finite, conv


@njit(cache=True, nogil=True, error_model="numpy")
def scaled_residual(r, x):
    """max_i |r_i|/max(1, |x_i|) (∞ when non-finite), the residual every solver reports."""
    v = 0.0
    for i in range(r.shape[0]):
        if not math.isfinite(r[i]):
            return np.inf
        v = max(v, abs(r[i]) / max(1.0, abs(x[i])))
    return v


@njit(cache=True, nogil=True, error_model="numpy")
def record_difference(x, r, dX, dF, xp, fp, hist, best, memory, restart):
    """The restart guard and the history update of one step; returns the number h of stored
    differences. ``hist`` = [h, whether (xp, fp) hold the previous pair]; ``best`` = [the smallest
    ‖r‖_∞ seen]; dX, dF: (memory, n), oldest first (the oldest is dropped when full)."""
    n = x.shape[0]
    nrm = 0.0
    for i in range(n):
        nrm = max(nrm, abs(r[i]))
    if nrm > restart * best[0]:
        hist[0] = 0
        hist[1] = 0
    best[0] = min(best[0], nrm)
    h = hist[0]
    if hist[1] == 1:
        if h == memory:
            for j in range(memory - 1):
                for i in range(n):
                    dX[j, i] = dX[j + 1, i]
                    dF[j, i] = dF[j + 1, i]
            h -= 1
        for i in range(n):
            dX[h, i] = x[i] - xp[i]
            dF[h, i] = r[i] - fp[i]
        h += 1
        hist[0] = h
    for i in range(n):
        xp[i] = x[i]
        fp[i] = r[i]
    hist[1] = 1
    return h


@njit(cache=True, nogil=True, error_model="numpy")
def mixing_coefficients(r, dX, dF, h, hist, gamma):
    """γ = argmin ‖r − ΔF γ‖ over the h stored differences (minimum norm, gelsd's rank rule), into
    ``gamma``; an ill-conditioned history (rank < h, σ_min < 10⁻¹² σ_max, γ not finite, or more
    differences than unknowns) is cut to its newest pair. Returns the number of differences used."""
    n = r.shape[0]
    ok = False
    if h <= n:
        F = np.empty((n, h))
        for j in range(h):
            for i in range(n):
                F[i, j] = dF[j, i]
        rank, smin, smax = lstsq_min_norm(F, r, EPS * max(n, h), gamma)
        ok = rank == h and not (smin < ANDERSON_MIN_CONDITION * smax)
        for j in range(h):
            if not math.isfinite(gamma[j]):
                ok = False
    if ok:
        return h
    for i in range(n):
        dX[0, i] = dX[h - 1, i]
        dF[0, i] = dF[h - 1, i]
    hist[0] = 1
    ff = 0.0
    fr = 0.0
    for i in range(n):
        ff += dF[0, i] * dF[0, i]
        fr += dF[0, i] * r[i]
    gamma[0] = fr / ff if ff > 0.0 else 0.0
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def anderson_step(x, r, dX, dF, xp, fp, hist, best, memory, damping, restart):
    """x ← x + ω r − (ΔX + ω ΔF) γ, in place (module docstring), updating the history."""
    n = x.shape[0]
    h = record_difference(x, r, dX, dF, xp, fp, hist, best, memory, restart)
    if h == 0:
        for i in range(n):
            x[i] = x[i] + damping * r[i]
        return
    gamma = np.zeros(h)
    h = mixing_coefficients(r, dX, dF, h, hist, gamma)
    finite = True
    for j in range(h):
        if not math.isfinite(gamma[j]):
            finite = False
    for i in range(n):
        xi = x[i] + damping * r[i]
        if finite:
            acc = 0.0
            for j in range(h):
                acc += (dX[j, i] + damping * dF[j, i]) * gamma[j]
            xi -= acc
        x[i] = xi


@njit(cache=True, nogil=True, error_model="numpy")
def anderson_solve_scaled(x, scale, problem, options):
    """Anderson acceleration of x = ``fixed_point_map``(x, ·, problem) from x (overwritten with
    the accepted iterate, or the last one), with the term sizes ``scale`` in the residual test
    (read after every evaluation of the map, which may update it; empty: |x|). ``options`` =
    (atol, rtol, min_steps, max_steps, memory, damping, restart). Returns ``(status, iterations,
    residual)``."""
    atol, rtol, min_steps, max_steps, memory, damping, restart = options
    n = x.shape[0]
    g = np.empty(n)
    r = np.full(n, np.nan)
    dX = np.empty((memory, n))
    dF = np.empty((memory, n))
    xp = np.empty(n)
    fp = np.empty(n)
    hist = np.zeros(2, dtype=np.int64)
    best = np.full(1, np.inf)
    for k in range(1, max_steps + 1):
        fixed_point_map(x, g, problem)
        finite, conv = anderson_residual_test(g, x, scale, r, atol, rtol)
        if not finite:
            return NONFINITE, k, np.inf
        if k >= min_steps and conv:
            return CONVERGED, k, scaled_residual(r, x)
        anderson_step(x, r, dX, dF, xp, fp, hist, best, memory, damping, restart)
    return MAX_STEPS, max_steps, scaled_residual(r, x)


@njit(cache=True, nogil=True, error_model="numpy")
def anderson_solve(x, problem, options):
    """:func:`anderson_solve_scaled` with the term sizes |x_i| (the default stopping rule)."""
    return anderson_solve_scaled(x, np.empty(0), problem, options)
