r"""Extreme eigenvalues and a truncated SVD for the compiled large-step fixed point (a template).

Included by :mod:`.compiled` in the one rendered fixed-point module; its placeholders are kernels of
``_dense_template.py`` and of the numerics layer's ``dense_linalg.py``, included beside it; BLAS-free
for the reasons given in ``_dense_template.py``.

* :func:`symmetric_extreme_eigenvalues`, :func:`spectral_radius_symmetric` — Householder reduction to
  a tridiagonal matrix, then bisection on Sturm counts (to the spacing of floating-point numbers);
* :func:`truncated_svd` — Householder QR with column pivoting, then the numerics layer's one-sided (Hestenes) Jacobi SVD of
  the leading rows of the triangular factor (the singular triplets above a relative cut).
"""

import math

import numpy as np
from numba import njit

from ....numerics.templates.dense_linalg import EPS, jacobi_svd  # placeholders: included
from ._dense_template import accumulate_rows, householder  # placeholders: included

# ---- kernels (copied into the rendered module) ----


@njit(cache=True, nogil=True)
def _sturm_count(d, e2, x):
    """Number of eigenvalues < x of the symmetric tridiagonal (d, off-diagonal squares e2)."""
    n = d.shape[0]
    cnt = 0
    q = d[0] - x
    if q < 0.0:
        cnt += 1
    for i in range(1, n):
        if q == 0.0:
            q = EPS * (abs(x) + 1e-300)
        q = d[i] - x - e2[i - 1] / q
        if q < 0.0:
            cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _bisect(d, e2, lo, hi, target):
    """The smallest x in [lo, hi] with Sturm count ≥ ``target`` (to floating-point spacing)."""
    a, b = lo, hi
    for _ in range(2000):
        mid = 0.5 * (a + b)
        if mid <= a or mid >= b:
            break
        if _sturm_count(d, e2, mid) >= target:
            b = mid
        else:
            a = mid
    return 0.5 * (a + b)


@njit(cache=True, nogil=True)
def _tridiagonal(A):
    """(d, e): the symmetric tridiagonal matrix orthogonally similar to A (Householder)."""
    n = A.shape[0]
    T = A.copy()
    d = np.empty(n)
    e = np.zeros(max(n - 1, 1))
    vf = np.zeros(n)
    p = np.zeros(n)
    for k in range(n - 2):
        off = k + 1
        a0 = (off // 4) * 4                      # aligned start; vf, p are zero below off
        v, tau, beta = householder(T[k, off:].copy())
        d[k] = T[k, k]
        e[k] = beta
        if tau == 0.0:
            continue
        vf[:] = 0.0
        vf[off:] = v
        p[:] = 0.0
        accumulate_rows(p[a0:], vf[off:], T[off:, a0:])   # p = τ A22 v (A22 symmetric: rows times v_i)
        pv = 0.0
        for j in range(off, n):
            p[j] *= tau
            pv += p[j] * vf[j]
        for j in range(off, n):                  # w = p − (τ/2)(pᵀv) v
            p[j] -= 0.5 * tau * pv * vf[j]
        for j in range(a0, off):
            p[j] = 0.0
        for i in range(off, n):                  # A22 −= v wᵀ + w vᵀ
            ri = T[i]
            vi = vf[i]
            wi = p[i]
            for j in range(a0, n):
                ri[j] -= vi * p[j] + wi * vf[j]
    if n >= 2:
        d[n - 2] = T[n - 2, n - 2]
        e[n - 2] = T[n - 2, n - 1]
    d[n - 1] = T[n - 1, n - 1]
    return d, e


@njit(cache=True, nogil=True)
def _gershgorin(d, e):
    n = d.shape[0]
    lo = math.inf
    hi = -math.inf
    for i in range(n):
        r = 0.0
        if i > 0:
            r += abs(e[i - 1])
        if i < n - 1:
            r += abs(e[i])
        lo = min(lo, d[i] - r)
        hi = max(hi, d[i] + r)
    span = max(abs(lo), abs(hi), 1e-300)
    return lo - EPS * span, hi + EPS * span


@njit(cache=True, nogil=True)
def symmetric_extreme_eigenvalues(A):
    """(λmin, λmax) of the symmetric matrix A (finite): Householder reduction to a tridiagonal
    matrix, then bisection on Sturm counts to the spacing of floating-point numbers."""
    d, e = _tridiagonal(A)
    e2 = e * e
    lo, hi = _gershgorin(d, e)
    n = d.shape[0]
    return _bisect(d, e2, lo, hi, 1), _bisect(d, e2, lo, hi, n)


@njit(cache=True, nogil=True)
def spectral_radius_symmetric(A):
    """max |λ| of the symmetric matrix A (finite): λmax by bisection; λmin only when some
    eigenvalue lies below −λmax (one Sturm count decides)."""
    d, e = _tridiagonal(A)
    e2 = e * e
    lo, hi = _gershgorin(d, e)
    n = d.shape[0]
    lmax = _bisect(d, e2, lo, hi, n)
    if _sturm_count(d, e2, -abs(lmax)) == 0:
        return abs(lmax)
    lmin = _bisect(d, e2, lo, hi, 1)
    return max(abs(lmin), abs(lmax))


@njit(cache=True, nogil=True)
def descending_order(v):
    """Indices sorting v in descending order (insertion sort: short vectors, cheap to compile)."""
    k = v.shape[0]
    order = np.arange(k)
    for i in range(1, k):
        j = i
        while j > 0 and v[order[j - 1]] < v[order[j]]:
            t = order[j - 1]
            order[j - 1] = order[j]
            order[j] = t
            j -= 1
    return order


@njit(cache=True, nogil=True)
def _largest_remaining_column(W, k):
    """``(p, ‖w_p[k:]‖²)``: the first of the rows w_j, j ≥ k, of W with the largest norm of its
    entries from k on (the pivot of column-pivoted QR)."""
    K, n = W.shape
    best = -1.0
    p = k
    for j in range(k, K):
        wj = W[j]
        s = 0.0
        for i in range(k, n):
            s += wj[i] * wj[i]
        if s > best:
            best = s
            p = j
    return p, best


@njit(cache=True, nogil=True)
def _exchange_columns(W, perm, Rw, k, p):
    """Exchange columns k and p of the QR in progress (rows of W, entries of ``perm``, the columns
    of the rows of R already computed)."""
    tmp = W[k].copy()
    W[k] = W[p]
    W[p] = tmp
    t = perm[k]
    perm[k] = perm[p]
    perm[p] = t
    for i in range(k):
        x = Rw[i, k]
        Rw[i, k] = Rw[i, p]
        Rw[i, p] = x


@njit(cache=True, nogil=True)
def _reflect_remaining(W, Rw, v, tau, k):
    """Apply I − τ v vᵀ to the entries k: of the remaining columns w_c, c > k, and record row k of R."""
    K, n = W.shape
    for c in range(k + 1, K):
        wc = W[c]
        s = 0.0
        for i in range(n - k):
            s += v[i] * wc[k + i]
        s *= tau
        for i in range(n - k):
            wc[k + i] -= s * v[i]
        Rw[k, c] = wc[k]


@njit(cache=True, nogil=True)
def pivoted_qr(Z, drop):
    """Householder QR with column pivoting of Z (n × K), Z Π = Q [R11 R12; 0 R22], stopped when the
    largest remaining column norm is ≤ ``drop``·|R_00|/√K (so ‖R22‖ ≤ ``drop``·‖Z‖).

    Returns (r, Rw, perm, Vh, taus): the rank kept, the rows of R (column order ``perm``), and the
    reflectors H_k = I − τ_k v_k v_kᵀ (v_k = Vh[k, k:]) whose product is Q."""
    n, K = Z.shape
    W = np.ascontiguousarray(Z.T)                             # rows: the columns z_j (permuted below)
    perm = np.arange(K)
    kmax = min(n, K)
    Vh = np.zeros((kmax, n))
    taus = np.zeros(kmax)
    Rw = np.zeros((kmax, K))                                   # rows of R (permuted column order)
    r = 0
    top = 0.0
    for k in range(kmax):
        p, best = _largest_remaining_column(W, k)
        if k == 0:
            top = math.sqrt(best)
            if not (top > 0.0):
                break
        elif math.sqrt(best) <= drop * top / math.sqrt(K):
            break
        if p != k:
            _exchange_columns(W, perm, Rw, k, p)
        v, tau, beta = householder(W[k, k:].copy())
        taus[k] = tau
        Vh[k, k:] = v
        Rw[k, k] = beta
        _reflect_remaining(W, Rw, v, tau, k)
        r = k + 1
    return r, Rw, perm, Vh, taus


@njit(cache=True, nogil=True)
def _apply_q(Ut, Vh, taus, r):
    """Each row y of Ut (its first r entries set, the rest 0) ← Q y = H_0 ⋯ H_{r−1} y, in place."""
    n = Ut.shape[1]
    for i in range(Ut.shape[0]):
        y = Ut[i]
        for j in range(r - 1, -1, -1):
            tau = taus[j]
            if tau != 0.0:
                vj = Vh[j]
                s = 0.0
                for a in range(j, n):
                    s += vj[a] * y[a]
                s *= tau
                for a in range(j, n):
                    y[a] -= s * vj[a]


@njit(cache=True, nogil=True)
def truncated_svd(Z, drop):
    """The singular triplets of Z (n × K) above ``drop``·‖Z‖: (Ut, sv, Vt) with the left vectors as
    the rows of Ut (r × n), σ descending, the right vectors as the rows of Vt (r × K).

    :func:`pivoted_qr` drops R22 (every singular value moves by at most ``drop``·‖Z‖), then
    the one-sided Jacobi SVD of the numerics layer (``dense_linalg.jacobi_svd``) on [R11 R12]ᵀ
    (K × r): [R11 R12]ᵀ W = U Σ, so the right vectors of Z are the normalised rows of the rotated
    [R11 R12] (in the original column order) and its left vectors Q [w_i; 0] with w_i the columns
    of W."""
    n, K = Z.shape
    r, Rw, perm, Vh, taus = pivoted_qr(Z, drop)
    if r == 0:
        return np.zeros((0, n)), np.zeros(0), np.zeros((0, K))
    At = Rw[:r].copy()                                         # [R11 R12]: rows of length K
    W = np.empty((r, r))
    sv = jacobi_svd(At.T, W)                                   # [R11 R12]ᵀ W = U Σ: At rows σ_i u_iᵀ
    order = descending_order(sv)
    Ut = np.zeros((r, n))
    Vt = np.zeros((r, K))
    svs = np.empty(r)
    for i in range(r):
        oi = order[i]
        svs[i] = sv[oi]
        for j in range(r):                                     # left vector of R: column oi of W
            Ut[i, j] = W[j, oi]
        if sv[oi] > 0.0:
            for j in range(K):                                 # right vector, original column order
                Vt[i, perm[j]] = At[oi, j] / sv[oi]
    _apply_q(Ut, Vh, taus, r)                                  # left vectors of Z: Q [w; 0]
    return Ut, svs, Vt
