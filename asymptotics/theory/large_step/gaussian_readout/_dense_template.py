r"""Small dense linear algebra for the compiled large-step fixed point (a template).

This file is a template (:mod:`asymptotics.rendering.templates`) whose kernels are *included*
(copied) into the one rendered fixed-point module by :mod:`.compiled`; its only placeholders are the
pivoting kernels of the numerics layer's ``dense_linalg.py``, included beside it. A change here
gives the fixed-point module a new name (and fresh machine code).

Why not BLAS/LAPACK: the matrices are small (n ≤ 1000 κ nodes, K ≤ 4096 types) and the kernels
run in a loop over many grid points. A threaded OpenBLAS at these sizes is dominated by thread
start-up and, on a loaded machine, by contention: a 122 × 122 product takes 16 ms with two
threads on two busy cores and 0.1 ms with one (measured). These loops are row-oriented (the
inner loop is a contiguous ``axpy`` that LLVM vectorises) and deterministic. Failures are flags,
never exceptions: a kernel that loops over a grid must not stop.

* :func:`cholesky_upper` — H = UᵀU;  :func:`forward_rows` — Z = U⁻ᵀ R (both by
  :func:`subtract_rows`, four rows at a time); :func:`dot` — an inner product in order;
* :func:`lu_factor`, :func:`lu_solve_vec`, :func:`lu_solve_rows` — LU with partial pivoting (a
  zero or non-finite pivot is reported, as LAPACK's ``getrf`` does; the pivot search and row
  exchanges of ``numerics/templates/dense_linalg.py``). The factors are kept and reused for three
  solves at one point, which the numerics layer's Gaussian elimination (one elimination per call,
  a NaN pivot not reported) does not offer: this is the factor-once twin of its elimination, with
  the same pivot rule;
* :func:`weighted_gram` — Aᵀ diag(d) A;  :func:`gram_rows` — RᵀR;  :func:`matmul`,
  :func:`matmul_tn` (AᵀB), :func:`matvec`, :func:`rmatvec` (Aᵀx);
* :func:`householder` — a Householder reflector (LAPACK's ``dlarfg``).

The eigenvalue and singular-value kernels built on these are in ``_spectral_template.py``.
"""

import math

import numpy as np
from numba import njit

from ....numerics.templates.dense_linalg import pivot_row, swap_entries, swap_rows  # placeholders: included

# ---- kernels (copied into the rendered module) ----


@njit(cache=True, nogil=True)
def subtract_rows(out, F, col, R, count, lo, hi):
    """out[lo:hi] −= Σ_{i < count} F[i, col] R[i, lo:hi], four rows of R at a time (the inner loop of
    the triangular factorisation and solves)."""
    i = 0
    while i + 4 <= count:
        f0 = F[i, col]
        f1 = F[i + 1, col]
        f2 = F[i + 2, col]
        f3 = F[i + 3, col]
        r0 = R[i]
        r1 = R[i + 1]
        r2 = R[i + 2]
        r3 = R[i + 3]
        for j in range(lo, hi):
            out[j] = out[j] - f0 * r0[j] - f1 * r1[j] - f2 * r2[j] - f3 * r3[j]
        i += 4
    while i < count:
        f = F[i, col]
        ri = R[i]
        for j in range(lo, hi):
            out[j] -= f * ri[j]
        i += 1


@njit(cache=True, nogil=True)
def dot(x, y):
    """Σ_i x_i y_i over the entries of x, in order."""
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


@njit(cache=True, nogil=True)
def cholesky_upper(H):
    """``(U, ok)`` with H = UᵀU, U upper triangular (row k from the rows above it, four at a time);
    ``ok`` is False when H is not numerically positive definite or not finite."""
    n = H.shape[0]
    U = np.zeros((n, n))
    for k in range(n):
        row = U[k]
        k4 = (k // 4) * 4                        # aligned start; row[k4:k] is scratch, zeroed below
        for j in range(k4, n):
            row[j] = H[k, j]
        subtract_rows(row, U, k, U, k, k4, n)
        for j in range(k4, k):
            row[j] = 0.0
        d = row[k]
        if not (d > 0.0 and d < math.inf):
            return U, False
        d = math.sqrt(d)
        inv = 1.0 / d
        row[k] = d
        for j in range(k + 1, n):
            row[j] *= inv
    return U, True


@njit(cache=True, nogil=True)
def forward_rows(U, R):
    """Z = L⁻¹ R with L = Uᵀ, for R of shape (n, m): Z[a] = (R[a] − Σ_{b<a} U[b, a] Z[b]) / U[a, a]."""
    n = U.shape[0]
    m = R.shape[1]
    Z = np.empty((n, m))
    for a in range(n):
        za = Z[a]
        for j in range(m):
            za[j] = R[a, j]
        subtract_rows(za, U, a, Z, a, 0, m)
        inv = 1.0 / U[a, a]
        for j in range(m):
            za[j] *= inv
    return Z


@njit(cache=True, nogil=True)
def lu_factor(A):
    """``(LU, piv, ok)``: PA = LU with partial pivoting (``piv``: the row order); ``ok`` is False for
    a zero or non-finite pivot (an exactly singular matrix, as LAPACK reports it)."""
    n = A.shape[0]
    LU = A.copy()
    piv = np.arange(n)
    rk = np.zeros(n)
    for k in range(n):
        p, best = pivot_row(LU, k)
        if not (best > 0.0 and best < math.inf):
            return LU, piv, False
        if p != k:
            swap_rows(LU, k, p)
            swap_entries(piv, k, p)
        inv = 1.0 / LU[k, k]
        k4 = ((k + 1) // 4) * 4                  # aligned start: the pivot row is padded with zeros
        for j in range(k4, n):
            rk[j] = LU[k, j] if j > k else 0.0
        for i in range(k + 1, n):
            f = LU[i, k] * inv
            if f != 0.0:
                ri = LU[i]
                for j in range(k4, n):
                    ri[j] -= f * rk[j]
            LU[i, k] = f
    return LU, piv, True


@njit(cache=True, nogil=True)
def lu_solve_vec(LU, piv, b):
    """x = A⁻¹ b from :func:`lu_factor`."""
    n = b.shape[0]
    x = np.empty(n)
    for i in range(n):
        x[i] = b[piv[i]]
    for i in range(n):
        s = x[i]
        for j in range(i):
            s -= LU[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * x[j]
        x[i] = s / LU[i, i]
    return x


@njit(cache=True, nogil=True)
def lu_solve_rows(LU, piv, B):
    """X = A⁻¹ B for B of shape (n, m), by rows."""
    n, m = B.shape
    X = np.empty((n, m))
    for i in range(n):
        X[i] = B[piv[i]]
    for i in range(n):
        xi = X[i]
        for j in range(i):
            f = LU[i, j]
            if f != 0.0:
                xj = X[j]
                for c in range(m):
                    xi[c] -= f * xj[c]
    for i in range(n - 1, -1, -1):
        xi = X[i]
        for j in range(i + 1, n):
            f = LU[i, j]
            if f != 0.0:
                xj = X[j]
                for c in range(m):
                    xi[c] -= f * xj[c]
        inv = 1.0 / LU[i, i]
        for c in range(m):
            xi[c] *= inv
    return X


@njit(cache=True, nogil=True)
def _gram_into(G, A, d, use_d):
    """G[a, c] += Σ_j d_j A[j, a] A[j, c] for c ≥ a: row a of G accumulates four rows of A at a time
    (aligned start; the entries left of the diagonal are overwritten by the mirror)."""
    K, n = A.shape
    for a in range(n):
        ga = G[a]
        a4 = (a // 4) * 4
        j = 0
        while j + 4 <= K:
            f0 = A[j, a] * (d[j] if use_d else 1.0)
            f1 = A[j + 1, a] * (d[j + 1] if use_d else 1.0)
            f2 = A[j + 2, a] * (d[j + 2] if use_d else 1.0)
            f3 = A[j + 3, a] * (d[j + 3] if use_d else 1.0)
            r0 = A[j]
            r1 = A[j + 1]
            r2 = A[j + 2]
            r3 = A[j + 3]
            for c in range(a4, n):
                ga[c] = ga[c] + f0 * r0[c] + f1 * r1[c] + f2 * r2[c] + f3 * r3[c]
            j += 4
        while j < K:
            f = A[j, a] * (d[j] if use_d else 1.0)
            rj = A[j]
            for c in range(a4, n):
                ga[c] += f * rj[c]
            j += 1
    for a in range(n):
        for c in range(a):
            G[a, c] = G[c, a]


@njit(cache=True, nogil=True)
def weighted_gram(A, d):
    """Aᵀ diag(d) A for A of shape (K, n)."""
    G = np.zeros((A.shape[1], A.shape[1]))
    _gram_into(G, A, d, True)
    return G


@njit(cache=True, nogil=True)
def gram_rows(R):
    """RᵀR for R of shape (n, m)."""
    G = np.zeros((R.shape[1], R.shape[1]))
    _gram_into(G, R, np.empty(0), False)
    return G


@njit(cache=True, nogil=True)
def accumulate_rows(out, coef, B):
    """out += Σ_l coef[l] B[l] (four rows of B at a time)."""
    k = coef.shape[0]
    q = out.shape[0]
    l = 0
    while l + 4 <= k:
        f0 = coef[l]
        f1 = coef[l + 1]
        f2 = coef[l + 2]
        f3 = coef[l + 3]
        b0 = B[l]
        b1 = B[l + 1]
        b2 = B[l + 2]
        b3 = B[l + 3]
        for c in range(q):
            out[c] = out[c] + f0 * b0[c] + f1 * b1[c] + f2 * b2[c] + f3 * b3[c]
        l += 4
    while l < k:
        f = coef[l]
        bl = B[l]
        for c in range(q):
            out[c] += f * bl[c]
        l += 1


@njit(cache=True, nogil=True)
def matmul(A, B):
    """A B for A (m, k), B (k, q)."""
    m = A.shape[0]
    C = np.zeros((m, B.shape[1]))
    for i in range(m):
        accumulate_rows(C[i], A[i], B)
    return C


@njit(cache=True, nogil=True)
def matmul_tn(A, B):
    """AᵀB for A (k, m), B (k, q)."""
    k, m = A.shape
    C = np.zeros((m, B.shape[1]))
    col = np.empty(k)
    for i in range(m):
        for l in range(k):
            col[l] = A[l, i]
        accumulate_rows(C[i], col, B)
    return C


@njit(cache=True, nogil=True)
def matvec(A, x):
    """A x for A (m, k)."""
    m = A.shape[0]
    y = np.empty(m)
    for i in range(m):
        y[i] = dot(A[i], x)
    return y


@njit(cache=True, nogil=True)
def rmatvec(A, x):
    """Aᵀ x for A (m, k)."""
    y = np.zeros(A.shape[1])
    accumulate_rows(y, x, A)
    return y


@njit(cache=True, nogil=True)
def householder(x):
    """(v, tau, beta) with (I − τ v vᵀ) x = β e1, v[0] = 1 (LAPACK's dlarfg)."""
    m = x.shape[0]
    v = x.copy()
    alpha = x[0]
    s = 0.0
    for i in range(1, m):
        s += x[i] * x[i]
    if s == 0.0:
        v[0] = 1.0
        for i in range(1, m):
            v[i] = 0.0
        return v, 0.0, alpha
    nrm = math.sqrt(alpha * alpha + s)
    beta = -nrm if alpha >= 0.0 else nrm
    tau = (beta - alpha) / beta
    inv = 1.0 / (alpha - beta)
    v[0] = 1.0
    for i in range(1, m):
        v[i] = x[i] * inv
    return v, tau, beta


@njit(cache=True, nogil=True)
def spd_solve(U, b):
    """x = (UᵀU)⁻¹ b for the Cholesky factor U of :func:`cholesky_upper`."""
    n = b.shape[0]
    y = np.empty(n)
    for i in range(n):                                         # Uᵀ y = b
        s = b[i]
        for k in range(i):
            s -= U[k, i] * y[k]
        y[i] = s / U[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):                             # U x = y
        s = y[i]
        ui = U[i]
        for k in range(i + 1, n):
            s -= ui[k] * x[k]
        x[i] = s / U[i, i]
    return x
