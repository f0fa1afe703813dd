r"""Superseded: an older copy of the Gaussian elimination and Jacobi kernels of the numerics layer.

The one small dense linear algebra of the package is ``asymptotics/numerics/templates/dense_linalg.py``
(:data:`asymptotics.rendering.templates.SMALL_LINALG` names it): that is the file every rendered
module includes (``render_template(..., include=(SMALL_LINALG,))``: the lowered equation systems,
the spiked-RF and large-step kernels). No rendered module includes this one and no module of the
package imports it; only ``tests/test_codegen_small_linalg.py`` still imports it directly. Its
kernels below have the same arithmetic as those of ``dense_linalg.py``:

* :func:`pivot_row` — the pivot of a column (the first row with the largest modulus);
* :func:`swap_rows`, :func:`swap_entries` — row exchanges of a matrix, of a vector;
* :func:`gauss_solve` — M X = B for one or several right-hand sides (LAPACK's getrf/getrs order of
  operations). The callers' contracts differ and are parameters, not merged: a pivot counts as
  zero when its modulus is ≤ ``tol`` (0: only an exactly singular matrix fails; the Newton family
  passes a tolerance relative to the largest entry), and ``skip_zero`` skips the update of a row
  whose multiplier is 0 (the Newton family's order of operations);
* :func:`jacobi_rotation`, :func:`rotate_pair` — the plane rotation of one-sided (Hestenes)
  Jacobi that makes two vectors orthogonal, and its application to a pair of rows or columns.
"""

import math

from numba import njit

# ---- kernels (copied into the rendered module) ----


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
