"""Compiled kernels that do not depend on the activation."""

from __future__ import annotations

from numba import njit, prange

__all__ = ["subtract_outer"]


@njit(cache=True, parallel=True, nogil=True)
def subtract_outer(G, x, y, alpha):
    """G ← G − α x yᵀ, in place (no d×N temporary)."""
    d, N = G.shape
    for i in prange(d):
        ax = alpha * x[i]
        for j in range(N):
            G[i, j] -= ax * y[j]
