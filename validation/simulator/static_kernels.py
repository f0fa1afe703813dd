"""Compiled kernels that do not depend on the activation.

Each is a loop over rows (``prange``): every entry is computed by one thread in a fixed order,
so results do not depend on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["subtract_outer", "residual_correlation", "hadamard_multiply", "hadamard_apply"]


@njit(cache=True, parallel=True, nogil=True)
def subtract_outer(G, x, y, alpha):
    """G ← G − α x yᵀ, in place (no d×N temporary)."""
    d, N = G.shape
    for i in prange(d):
        ax = alpha * x[i]
        for j in range(N):
            G[i, j] -= ax * y[j]


@njit(cache=True, parallel=True, nogil=True)
def residual_correlation(C, B, t):
    """C ← the correlation matrix of the residuals hᵢ = wᵢ − U bᵢ, in place, zero diagonal.

    On entry C = WᵀW (N×N) and B = UᵀW (m×N) for an orthonormal U (d×m); hᵢ·hⱼ = Cᵢⱼ − bᵢ·bⱼ
    and t = (‖hᵢ‖). On exit Cᵢⱼ = hᵢ·hⱼ/(tᵢtⱼ) for i ≠ j, Cᵢᵢ = 0. Returns max |Cᵢⱼ| per row.
    """
    N = C.shape[0]
    m = B.shape[0]
    rowmax = np.zeros(N)
    for i in prange(N):
        best = 0.0
        for j in range(N):
            if j == i:
                C[i, j] = 0.0
                continue
            v = C[i, j]
            for k in range(m):
                v -= B[k, i] * B[k, j]
            v /= t[i] * t[j]
            C[i, j] = v
            if abs(v) > best:
                best = abs(v)
        rowmax[i] = best
    return rowmax


@njit(cache=True, parallel=True, nogil=True)
def hadamard_multiply(P, R):
    """P ← P ∘ R (entrywise), in place."""
    n, m = P.shape
    for i in prange(n):
        for j in range(m):
            P[i, j] *= R[i, j]


@njit(cache=True, parallel=True, nogil=True)
def hadamard_apply(P, R, M, out, multiply):
    """P ← P ∘ R (when ``multiply``) and out = P @ M, in one pass over P (for few columns of M)."""
    n, m = P.shape
    q = M.shape[1]
    for i in prange(n):
        acc = np.zeros(q)
        for j in range(m):
            p = P[i, j]
            if multiply:
                p *= R[i, j]
                P[i, j] = p
            for k in range(q):
                acc[k] += p * M[j, k]
        for k in range(q):
            out[i, k] = acc[k]
