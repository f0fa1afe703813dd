r"""Template: the one small dense linear algebra of the compiled kernels.

A template (:mod:`asymptotics.rendering.templates`) without placeholders: a theory or solver
template gets these kernels by ``render_template(..., include=(SMALL_LINALG,))``
(``asymptotics.rendering.templates.SMALL_LINALG`` names this file), which copies everything from
the marker line on into the rendered module, so that the module's name, the hash of its whole
source, changes with this file. Imported as a plain module it runs the same kernels (the tests do).

**Gaussian elimination with partial pivoting** (:func:`gauss_solve`; :func:`pivot_row`,
:func:`swap_rows`, :func:`swap_entries`). For M X = B (M: n × n, B: n × m), column j: pick the
first row p ≥ j with the largest |A_pj|, exchange rows j and p of A and Y (Y = B on entry), and
eliminate row_i ← row_i − (A_ij/A_jj)·row_j of A and Y for i > j (LAPACK getrf/getrs order); then
back substitution X_i = (Y_i − Σ_{q>i} A_iq X_q)/A_ii. The callers' contracts are parameters, not merged: a pivot
counts as zero when its modulus is ≤ ``tol`` (0: only an exactly singular matrix fails; the
Newton family passes a tolerance relative to the largest entry), and ``skip_zero`` skips the
update of a row whose multiplier is 0 (the Newton family's order of operations).
:func:`lu_solve` (one right-hand side) and :func:`lu_solve_many` (X ← NaN on failure) are the
exact-singularity contract (tol = 0).

**One-sided (Hestenes) Jacobi SVD** (:func:`jacobi_rotation`, :func:`rotate_pair`,
:func:`jacobi_svd`). For two columns a_p, a_q with α = ‖a_p‖², β = ‖a_q‖², γ = a_p·a_q ≠ 0, the
rotation [[c, s], [−s, c]] with ζ = (β − α)/(2γ), t = sign(ζ)/(|ζ| + √(1 + ζ²)) (the smaller root
of t² + 2ζt − 1 = 0), c = 1/√(1 + t²), s = ct makes them orthogonal. Sweeping all pairs until
every |γ| ≤ ε√(αβ) (at most 60 sweeps) turns A (n × k) into U·Σ with AV = UΣ, V the product of
the rotations; the singular values are the column norms, accurate to high *relative* precision
(Demmel & Veselić 1992), which is what a rank decision needs.

**Minimum-norm least squares** (:func:`lstsq_min_norm`): with A = UΣVᵀ, the solution of
min ‖Fγ − r‖ of least norm is γ = Σ_{σ_j > rcond·σ_max} v_j (u_jᵀr)/σ_j — LAPACK gelsd's rank
rule (singular values ≤ rcond·σ_max are treated as zero); it returns the rank and σ_min, σ_max
for the caller's conditioning test.

**Spectral radius of a 2×2 matrix** (:func:`spectral_radius_2x2`): the eigenvalues of
[[a, b], [c, d]] are h ± √(h² − det) with h = (a + d)/2; for a complex pair |λ|² = det.
"""

import math

import numpy as np
from numba import njit

# ---- kernels (copied into the rendered module) ----

#: the machine epsilon of float64, 2⁻⁵² (numpy.finfo(float).eps)
EPS = 2.220446049250313e-16


# ---- Gaussian elimination with partial pivoting -------------------------------------------------

@njit(cache=True, nogil=True)
def pivot_row(A, k):
    """``(p, |A[p, k]|)``: the first row p ≥ k with the largest |A[p, k]| (partial pivoting)."""
    p = k
    best = abs(A[k, k])
    for i in range(k + 1, A.shape[0]):
        v = abs(A[i, k])
        if v > best:
            best = v
            p = i
    return p, best


@njit(cache=True, nogil=True)
def swap_rows(A, i, j):
    """Exchange rows i and j of the matrix A in place."""
    for c in range(A.shape[1]):
        tmp = A[i, c]
        A[i, c] = A[j, c]
        A[j, c] = tmp


@njit(cache=True, nogil=True)
def swap_entries(v, i, j):
    """Exchange entries i and j of the vector v in place."""
    tmp = v[i]
    v[i] = v[j]
    v[j] = tmp


@njit(cache=True, nogil=True)
def gauss_solve(M, B, X, tol, skip_zero):
    """Solve M X = B (B, X: n × m; M and B are not changed) by Gaussian elimination with partial
    pivoting. Returns False, X untouched, when a pivot's modulus is ≤ ``tol``; ``skip_zero``: rows
    whose multiplier is 0 are not updated."""
    n = M.shape[0]
    m = B.shape[1]
    A = M.copy()
    Y = B.copy()
    for j in range(n):
        p, big = pivot_row(A, j)
        if big <= tol:
            return False
        if p != j:
            swap_rows(A, j, p)
            swap_rows(Y, j, p)
        for i in range(j + 1, n):
            f = A[i, j] / A[j, j]
            if skip_zero and f == 0:
                continue
            for c in range(j + 1, n):
                A[i, c] -= f * A[j, c]
            for c in range(m):
                Y[i, c] -= f * Y[j, c]
    for c in range(m):
        for i in range(n - 1, -1, -1):
            acc = Y[i, c]
            for q in range(i + 1, n):
                acc -= A[i, q] * X[q, c]
            X[i, c] = acc / A[i, i]
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def lu_solve(M, b, x):
    """Solve M x = b (vectors) by :func:`gauss_solve`; returns False for an exactly singular matrix."""
    n = M.shape[0]
    return gauss_solve(M, b.reshape((n, 1)), x.reshape((n, 1)), 0.0, False)


@njit(cache=True, nogil=True, error_model="numpy")
def lu_solve_many(M, B, X):
    """Solve M X = B (B, X: n × m) by :func:`gauss_solve`; returns False (X filled with NaN) for an
    exactly singular matrix."""
    if gauss_solve(M, B, X, 0.0, False):
        return True
    X[:, :] = np.nan
    return False


# ---- one-sided Jacobi SVD and minimum-norm least squares ----------------------------------------

@njit(cache=True, nogil=True)
def jacobi_rotation(a, b, g):
    """``(t, c, s)``: the rotation [[c, s], [−s, c]] (t = s/c, the smaller root) that makes two vectors
    with squared norms a, b and inner product g ≠ 0 orthogonal."""
    zeta = (b - a) / (2.0 * g)
    t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
    c = 1.0 / math.sqrt(1.0 + t * t)
    return t, c, c * t


@njit(cache=True, nogil=True)
def rotate_pair(x, y, c, s):
    """(x, y) ← (c x − s y, s x + c y), elementwise in place."""
    for i in range(x.shape[0]):
        xi = x[i]
        yi = y[i]
        x[i] = c * xi - s * yi
        y[i] = s * xi + c * yi


@njit(cache=True, nogil=True, error_model="numpy")
def jacobi_svd(A, V):
    """One-sided Jacobi SVD of A (n × k), in place: on exit the columns of A are U·Σ and V (k × k)
    holds the right singular vectors; returns the singular values (the column norms, unsorted)."""
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


@njit(cache=True, nogil=True, error_model="numpy")
def lstsq_min_norm(F, r, rcond, gamma):
    """The minimum-norm least-squares solution of F γ ≈ r (F: n × k; F and r are not changed),
    written into ``gamma``, with the singular values ≤ ``rcond``·σ_max treated as zero (LAPACK
    gelsd's rule). Returns ``(rank, σ_min, σ_max)``."""
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
            c = ur / (s[j] * s[j])  # (u_j·r)/σ_j with u_j = A[:, j]/σ_j
            for i in range(k):
                gamma[i] += V[i, j] * c
    return rank, smin, smax


# ---- eigenvalues of 2×2 matrices ----------------------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def spectral_radius_2x2(a, b, c, d):
    """max |λ| over the eigenvalues of [[a, b], [c, d]]."""
    half = 0.5 * (a + d)
    det = a * d - b * c
    disc = half * half - det
    if disc >= 0.0:
        root = math.sqrt(disc)
        return max(abs(half + root), abs(half - root))
    return math.sqrt(det)
