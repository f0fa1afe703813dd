r"""The spike–mean block of the compiled large-step fixed point, solved exactly (a template).

The equations are those of :mod:`asymptotics.theory.large_step.spike_mean_block`
(``docs/large-step-exact.md``): at finite width N one SPD system on the κ nodes,
(I + √B (N𝒢 + β diag(κ) M diag(κ)) √B) √B x = √B h; at N = ∞ the B-weighted projection of h on the
complement of the mean span (singular values below ``rcond`` of the largest dropped), then ω0 by
least squares on the kept span. Included by :mod:`.compiled` in the one fixed-point module, beside
the dense and spectral templates whose kernels its placeholders name. Both functions return (x = h − ω̄, ω0, t, t̂, ĝ0, rank, residual, ok).
"""

import math

import numpy as np
from numba import njit

# placeholders: included
from ._dense_template import cholesky_upper, matmul, matmul_tn, matvec, rmatvec, spd_solve, weighted_gram
from ._spectral_template import truncated_svd  # placeholders: included

# ---- kernels (copied into the rendered module) ----

#: singular values of the mean span below SPAN_DROP·‖Z‖ are not resolved (far below the cut rcond)
SPAN_DROP = 1e-15


@njit(cache=True, nogil=True)
def mean_block_finite(N, sb, S, M, mu0, mu1, kappa, h, pi, beta):
    """The spike–mean block at width N: (x, ω0, t, t̂, ĝ0, rank, residual, ok)."""
    K, n = mu0.shape
    G = weighted_gram(mu0, pi / S)
    A = np.empty((n, n))
    amax = 0.0
    for a in range(n):
        for c in range(n):
            A[a, c] = sb[a] * (N * G[a, c] + beta * (kappa[a] * M[a, c] * kappa[c])) * sb[c]
        A[a, a] += 1.0
        for c in range(n):
            amax = max(amax, abs(A[a, c]))
    Ua, ok = cholesky_upper(A)                               # A = I + √B Q √B is SPD
    if not ok:
        return h, h, h, np.zeros(K), np.zeros(K), K, math.inf, False
    y = spd_solve(Ua, sb * h)
    bx = sb * y
    omega0 = N * matvec(G, bx)
    t = beta * matvec(M, kappa * bx)
    x = h - omega0 - kappa * t
    g0 = matvec(mu0, bx)
    t_hat = matvec(mu1, kappa * bx)
    scale = max(1.0, amax * np.max(np.abs(y)))
    resid = np.max(np.abs(sb * x - y)) / scale
    return x, omega0, t, t_hat, g0, K, resid, True


@njit(cache=True, nogil=True)
def mean_block_limit(sb, M, mu0, mu1, kappa, h, beta, rcond):
    """The spike–mean block at N = ∞: the B-weighted projection of h on the complement of the mean
    span (singular-value cut ``rcond``), then ω0 by least squares on the kept span."""
    K, n = mu0.shape
    Z = np.empty((n, K))
    zmax = 0.0
    for a in range(n):
        for j in range(K):
            Z[a, j] = sb[a] * mu0[j, a]
            zmax = max(zmax, abs(Z[a, j]))
    r = 0
    Qt = np.zeros((0, n))                                    # rows: an orthonormal basis of the span
    Vt = np.zeros((0, K))
    sv = np.zeros(0)
    if zmax > 0.0:
        Ut, sv, Vt = truncated_svd(Z, SPAN_DROP)
        for i in range(sv.shape[0]):
            if sv[i] > rcond * sv[0]:
                r += 1
        Qt = np.ascontiguousarray(Ut[:r])
    Bm = np.empty((n, n))
    for a in range(n):
        for c in range(n):
            Bm[a, c] = sb[a] * (beta * (kappa[a] * M[a, c] * kappa[c])) * sb[c]
    # Pp Bm Pp = Bm − Q W'ᵀ − W' Qᵀ with W = Bm Q, W' = W − Q (QᵀW)/2 (Pp = I − QQᵀ); as rows:
    Wt = matmul(Qt, Bm)                                      # (r, n) = (Bm Q)ᵀ
    C = matmul(Wt, np.ascontiguousarray(Qt.T))              # QᵀBm Q (r, r)
    Wpt = Wt - 0.5 * matmul_tn(C, Qt)                       # rows of W'
    A = Bm - matmul_tn(Qt, Wpt) - matmul_tn(Wpt, Qt)
    for a in range(n):
        A[a, a] += 1.0
    rhs0 = sb * h
    rhs0 = rhs0 - rmatvec(Qt, matvec(Qt, rhs0))
    Ua, ok = cholesky_upper(A)                               # A = I + Pp Bm Pp is SPD
    if not ok:
        return h, h, h, np.zeros(K), np.zeros(K), r, math.inf, False
    y = spd_solve(Ua, rhs0)
    y = y - rmatvec(Qt, matvec(Qt, y))
    bx = sb * y
    t = beta * matvec(M, kappa * bx)
    rhs = sb * (h - kappa * t) - y
    # least squares Z m = rhs on the kept span: m = Σ_i v_i (u_iᵀ rhs)/σ_i
    coef = np.zeros(K)
    for i in range(r):
        ui = Qt[i]
        s = 0.0
        for a in range(n):
            s += ui[a] * rhs[a]
        s /= sv[i]
        vi = Vt[i]
        for j in range(K):
            coef[j] += s * vi[j]
    omega0 = rmatvec(mu0, coef)
    x = h - omega0 - kappa * t
    t_hat = matvec(mu1, kappa * bx)
    resid = 0.0
    if r > 0:
        resid = np.max(np.abs(matvec(Qt, y)))
    resid = max(resid, np.max(np.abs(sb * (x - h + omega0 + kappa * t))))
    return x, omega0, t, t_hat, np.zeros(K), r, resid, True
