r"""Compiled small dense linear algebra and the Anderson step, shared by the sRF kernels.

This file is a template (:mod:`asymptotics.rendering.templates`) without placeholders:
:func:`~asymptotics.theory.spiked_rf.kernels.linalg_kernels` renders it into the user cache, and
the solver templates of this package bind their placeholders to its functions. Everything from
the marker line on is copied verbatim.

* :func:`jacobi_svd`, :func:`lstsq_jacobi` — one-sided Jacobi SVD (singular values to high relative
  accuracy) and the minimum-norm least-squares solution with LAPACK gelsd's rank rule;
* :func:`lu_solve`, :func:`lu_solve_many` — Gaussian elimination with partial pivoting (small
  systems, one or several right-hand sides; ``rendering/templates/small_linalg.py``, included by
  rendering, with its exact-singularity contract);
* :func:`spectral_radius_2x2` — the largest |λ| of a 2×2 matrix in closed form;
* :func:`anderson_update` — one step of :class:`asymptotics.solvers.Anderson` (type II, with the
  restart and history guards of ``asymptotics/solvers/fixed_point.py``), on preallocated
  histories; :func:`anderson_workspace`, :func:`anderson_iterate` — the workspace and one pass
  (residual test, then the step) of every Anderson loop of the solver templates; :func:`scaled_residual` — the residual
  every solver of the package reports.
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.status import Status

# placeholders: included
from ...rendering.templates.small_linalg import gauss_solve, jacobi_rotation, rotate_pair

# ---- kernels (copied into the rendered module) ----

EPS = 2.220446049250313e-16
CONVERGED = int(Status.CONVERGED)
NONFINITE = int(Status.NONFINITE)
#: status of an Anderson pass that took a step: the loop goes on, and a loop that stops after it has
#: run out of steps (MAX_STEPS, never returned by a pass otherwise; no code outside the vocabulary)
RUNNING = int(Status.MAX_STEPS)

JIT = dict(cache=True, nogil=True, error_model="numpy")


# ---- small dense linear algebra --------------------------------------------------------------

@njit(**JIT)
def jacobi_svd(A, V):
    """One-sided Jacobi SVD of A (n × k, k ≤ n), in place: on exit the columns of A are U·Σ and V
    (k × k) the right singular vectors; returns the singular values (column norms)."""
    n, k = A.shape
    for i in range(k):
        for j in range(k):
            V[i, j] = 1.0 if i == j else 0.0
    for _sweep in range(60):
        rotated = False
        for p in range(k - 1):
            for q in range(p + 1, k):
                a = 0.0
                b = 0.0
                g = 0.0
                for i in range(n):
                    a += A[i, p] * A[i, p]
                    b += A[i, q] * A[i, q]
                    g += A[i, p] * A[i, q]
                if g == 0.0 or abs(g) <= EPS * math.sqrt(a * b):
                    continue
                rotated = True
                _, cs, sn = jacobi_rotation(a, b, g)
                rotate_pair(A[:, p], A[:, q], cs, sn)
                rotate_pair(V[:, p], V[:, q], cs, sn)
        if not rotated:
            break
    s = np.empty(k)
    for j in range(k):
        acc = 0.0
        for i in range(n):
            acc += A[i, j] * A[i, j]
        s[j] = math.sqrt(acc)
    return s


@njit(**JIT)
def lstsq_jacobi(F, r, rcond, gamma):
    """Minimum-norm least squares F γ ≈ r by the Jacobi SVD (singular values ≤ rcond·σ_max are
    dropped, as LAPACK's gelsd). Returns (rank, σ_min, σ_max); γ written in place."""
    n, k = F.shape
    A = F.copy()
    V = np.empty((k, k))
    s = jacobi_svd(A, V)
    smax = 0.0
    smin = np.inf
    for j in range(k):
        smax = max(smax, s[j])
        smin = min(smin, s[j])
    rank = 0
    for j in range(k):
        gamma[j] = 0.0
    for j in range(k):
        if s[j] > rcond * smax:
            rank += 1
            ur = 0.0
            for i in range(n):
                ur += A[i, j] * r[i]
            c = ur / (s[j] * s[j])
            for i in range(k):
                gamma[i] += V[i, j] * c
    return rank, smin, smax


@njit(**JIT)
def lu_solve(M, b, x):
    """Solve M x = b by Gaussian elimination with partial pivoting (LAPACK's getrf/getrs order);
    returns False for an exactly singular matrix."""
    n = M.shape[0]
    return gauss_solve(M, b.reshape((n, 1)), x.reshape((n, 1)), 0.0, False)


@njit(**JIT)
def lu_solve_many(M, B, X):
    """Solve M X = B (B, X: n × m) by Gaussian elimination with partial pivoting; returns False
    (X filled with NaN) for an exactly singular matrix."""
    if gauss_solve(M, B, X, 0.0, False):
        return True
    X[:, :] = np.nan
    return False


@njit(**JIT)
def spectral_radius_2x2(a, b, c, d):
    """max |λ| over the eigenvalues of [[a, b], [c, d]]."""
    half = 0.5 * (a + d)
    det = a * d - b * c
    disc = half * half - det
    if disc >= 0.0:
        root = math.sqrt(disc)
        return max(abs(half + root), abs(half - root))
    return math.sqrt(det)


# ---- Anderson acceleration ---------------------------------------------------------------------

@njit(**JIT)
def anderson_update(x, r, dX, dF, hist, xp, fp, state, memory, damping, restart, xnew):
    """One Anderson step (asymptotics.solvers.fixed_point._AndersonStep): xnew from x, r = g(x) − x.

    ``hist`` = [number of stored differences, whether (xp, fp) hold the previous pair];
    ``state`` = [best residual seen]. Histories dX, dF are (memory, n), oldest first.
    """
    n = x.shape[0]
    nrm = 0.0
    for i in range(n):
        nrm = max(nrm, abs(r[i]))
    if nrm > restart * state[0]:
        hist[0] = 0
        hist[1] = 0
    state[0] = min(state[0], nrm)
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
    for i in range(n):
        xnew[i] = x[i] + damping * r[i]
    if h == 0:
        return
    gamma = np.zeros(h)
    ok = False
    if h <= n:
        F = np.empty((n, h))
        for j in range(h):
            for i in range(n):
                F[i, j] = dF[j, i]
        rank, smin, smax = lstsq_jacobi(F, r, EPS * max(n, h), gamma)
        ok = rank == h and not (smin < 1e-12 * smax)
        for j in range(h):
            if not math.isfinite(gamma[j]):
                ok = False
    if not ok:
        # ill-conditioned history: keep only the newest pair
        for i in range(n):
            dX[0, i] = dX[h - 1, i]
            dF[0, i] = dF[h - 1, i]
        h = 1
        hist[0] = 1
        ff = 0.0
        fr = 0.0
        for i in range(n):
            ff += dF[0, i] * dF[0, i]
            fr += dF[0, i] * r[i]
        gamma[0] = fr / ff if ff > 0.0 else 0.0
    for j in range(h):
        if not math.isfinite(gamma[j]):
            return
    for i in range(n):
        acc = 0.0
        for j in range(h):
            acc += (dX[j, i] + damping * dF[j, i]) * gamma[j]
        xnew[i] -= acc


@njit(**JIT)
def anderson_workspace(memory, n):
    """The preallocated state of :func:`anderson_update` for n unknowns:
    ``(r, xnew, dX, dF, xp, fp, hist, state)`` (no history, best residual ∞)."""
    return (np.empty(n), np.empty(n), np.empty((memory, n)), np.empty((memory, n)), np.empty(n), np.empty(n),
            np.zeros(2, dtype=np.int64), np.full(1, np.inf))


@njit(**JIT)
def residual_step(g, x, r, atol, rtol):
    """r = g − x; returns (finite, converged): whether every r_i is finite and whether every
    |r_i| ≤ atol + rtol·|x_i| (the residual test of :mod:`asymptotics.solvers`)."""
    finite = True
    conv = True
    for i in range(x.shape[0]):
        r[i] = g[i] - x[i]
        if not math.isfinite(r[i]):
            finite = False
        if not (abs(r[i]) <= atol + rtol * abs(x[i])):
            conv = False
    return finite, conv


@njit(**JIT)
def anderson_iterate(g, x, ws, may_stop, atol, rtol, memory, damping, restart):
    """One pass of the Anderson loop at g = map(x): ``(status, residual)`` — NONFINITE (residual
    ∞) for a non-finite r = g − x, CONVERGED when ``may_stop`` and the residual test passes (x kept),
    otherwise RUNNING with x ← the Anderson step (:func:`anderson_update` on the workspace ``ws``
    of :func:`anderson_workspace`)."""
    r, xnew, dX, dF, xp, fp, hist, state = ws
    finite, conv = residual_step(g, x, r, atol, rtol)
    if not finite:
        return NONFINITE, np.inf
    if may_stop and conv:
        return CONVERGED, scaled_residual(r, x)
    anderson_update(x, r, dX, dF, hist, xp, fp, state, memory, damping, restart, xnew)
    for i in range(x.shape[0]):
        x[i] = xnew[i]
    return RUNNING, np.inf


@njit(**JIT)
def scaled_residual(r, x):
    """max_i |r_i|/max(1, |x_i|) (inf when non-finite), the residual every solver reports."""
    v = 0.0
    for i in range(r.shape[0]):
        if not math.isfinite(r[i]):
            return np.inf
        v = max(v, abs(r[i]) / max(1.0, abs(x[i])))
    return v
