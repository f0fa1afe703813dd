r"""Compiled kernels of the κ-mixture resolvent (:mod:`.mixture`): the residual of the
self-consistent equations in the unknowns (V_1…V_A, S_1…S_K), its exact Jacobian, and Newton at
every point of a batch.

Data (per call): κ weights w (A,), U = μ1(κ_a; u_j) (A, K), M2 = μ2²(κ_a; u_j) (A, K), type
weights π (K,), variances c (K,), ψ2, κ = ψ2/ψ1. Equations (at one z):

    B_a = w_a/(1 + κ V_a),  P = Uᵀ diag(B) U,  G = (diag(S/(π c)) + ψ2 P)⁻¹,
    F_V(a) = V_a − (U G Uᵀ)_aa − Σ_j π_j M2_aj/S_j,
    F_S(j) = S_j + z − Σ_a B_a M2_aj − S_j (P G)_jj/π_j.

Status codes as :class:`asymptotics.solvers.Status` (0 converged, 1 max steps, 2 non-finite,
3 singular Jacobian or stagnation).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...rendering.templates.system_solvers import (
    solve_linear as solve_linear_nb,  # the one compiled linear solve
)

__all__ = ["mixture_residual_jacobian", "mixture_newton_batch"]


@njit(cache=True)
def _inverse(H):
    k = H.shape[0]
    out = np.empty_like(H)
    e = np.zeros(k, dtype=H.dtype)
    for j in range(k):
        e[:] = 0.0
        e[j] = 1.0
        col, ok = solve_linear_nb(H, e)
        if not ok:
            return out, False
        out[:, j] = col
    return out, True


@njit(cache=True)
def mixture_residual_jacobian(X, z, w, U, M2, pi, c, psi2, kap):
    """(F, J, ok) at the unknowns X = (V, S) (complex, length A + K)."""
    A, K = U.shape
    n = A + K
    V = X[:A]
    S = X[A:]
    B = np.empty(A, dtype=X.dtype)
    beta = np.empty(A, dtype=X.dtype)
    for a in range(A):
        B[a] = w[a] / (1.0 + kap * V[a])
        beta[a] = -kap * B[a] * B[a] / w[a]
    P = np.zeros((K, K), dtype=X.dtype)
    for a in range(A):
        for j in range(K):
            t = B[a] * U[a, j]
            for k in range(K):
                P[j, k] += t * U[a, k]
    H = psi2 * P
    for j in range(K):
        H[j, j] += S[j] / (pi[j] * c[j])
    G, ok = _inverse(H)
    F = np.zeros(n, dtype=X.dtype)
    J = np.zeros((n, n), dtype=X.dtype)
    if not ok:
        return F, J, False
    UG = U.astype(X.dtype) @ G  # (A, K)
    PG = P @ G  # (K, K)
    PgT = UG @ P  # (P g_b)_j = Σ_k P_jk G_kl U_bl = (UG P)_bj by symmetry of P and G
    for a in range(A):
        q = 0.0j
        for k in range(K):
            q += UG[a, k] * U[a, k]
        s2 = 0.0j
        for j in range(K):
            s2 += pi[j] * M2[a, j] / S[j]
        F[a] = V[a] - q - s2
    for j in range(K):
        acc = 0.0j
        for a in range(A):
            acc += B[a] * M2[a, j]
        F[A + j] = S[j] + z - acc - S[j] * PG[j, j] / pi[j]
    # Jacobian of the map Φ (then J = I − dΦ)
    for a in range(A):
        for b in range(A):
            qab = 0.0j
            for k in range(K):
                qab += UG[a, k] * U[b, k]
            J[a, b] = -(-psi2 * beta[b] * qab * qab)
        for l in range(K):
            J[a, A + l] = -(-UG[a, l] * UG[a, l] / (pi[l] * c[l]) - pi[l] * M2[a, l] / (S[l] * S[l]))
    for j in range(K):
        for b in range(A):
            J[A + j, b] = -(beta[b] * (M2[b, j] + UG[b, j] * (U[b, j] - psi2 * PgT[b, j]) * S[j] / pi[j]))
        for l in range(K):
            v = -PG[j, l] * G[l, j] * S[j] / (pi[l] * c[l])
            if j == l:
                v += PG[j, j]
            J[A + j, A + l] = -(v / pi[j])
    for i in range(n):
        J[i, i] += 1.0
    return F, J, True


@njit(cache=True)
def _norm_sq(F):
    s = 0.0
    for i in range(F.shape[0]):
        s += abs(F[i]) ** 2
    return s


@njit(cache=True)
def _converged(F, x, atol, rtol):
    """Newton's stopping test: (every |F_i| ≤ atol + rtol·|x_i|, the scaled residual
    max_i |F_i| / max(1, |x_i|)); ``(False, inf)`` when an entry of F or x is not finite."""
    done = True
    res = 0.0
    for i in range(F.shape[0]):
        a = abs(F[i])
        ax = abs(x[i])
        if not (math.isfinite(a) and math.isfinite(ax)):
            return False, math.inf
        if a > atol + rtol * ax:
            done = False
        res = max(res, a / max(1.0, ax))
    return done, res


@njit(cache=True)
def _newton(x0, z, w, U, M2, pi, c, psi2, kap, atol, rtol, max_steps):
    """Plain Newton first (its first step may raise the residual before converging
    quadratically); when it does not converge, Newton with Armijo backtracking from x0."""
    x = x0.copy()
    for _ in range(min(max_steps, 25)):
        F, J, ok = mixture_residual_jacobian(x, z, w, U, M2, pi, c, psi2, kap)
        if not ok:
            break
        done, res = _converged(F, x, atol, rtol)
        if done:
            return x, 0, res
        if not math.isfinite(res):
            break
        dx, ok2 = solve_linear_nb(J, -F)
        if not ok2:
            break
        x = x + dx
    return _damped(x0, z, w, U, M2, pi, c, psi2, kap, atol, rtol, max_steps)


@njit(cache=True)
def _damped(x0, z, w, U, M2, pi, c, psi2, kap, atol, rtol, max_steps):
    x = x0.copy()
    F, J, ok = mixture_residual_jacobian(x, z, w, U, M2, pi, c, psi2, kap)
    res = math.inf
    for k in range(max_steps + 1):
        if not ok:
            return x, 3, res
        done, res = _converged(F, x, atol, rtol)
        if not math.isfinite(res):  # a non-finite residual or iterate
            return x, 2, math.inf
        if done:
            return x, 0, res
        if k == max_steps:
            return x, 1, res
        dx, ok2 = solve_linear_nb(J, -F)
        if not ok2:
            return x, 3, res
        phi0 = _norm_sq(F)
        t = 1.0
        accepted = False
        while t >= 2.0 ** -30:
            xn = x + t * dx
            Fn, Jn, okn = mixture_residual_jacobian(xn, z, w, U, M2, pi, c, psi2, kap)
            if okn:
                phin = _norm_sq(Fn)
                if math.isfinite(phin) and phin <= (1.0 - 1e-4 * t) * phi0:
                    accepted = True
                    break
            t *= 0.5
        if not accepted:
            return x, 3, res
        x, F, J, ok = xn, Fn, Jn, okn
    return x, 1, res


@njit(cache=True)
def mixture_newton_batch(X0, z, w, U, M2, pi, c, psi2, kap, atol, rtol, max_steps):
    """Newton at every row (point z_i, start X0_i): (X, status, residual)."""
    n = X0.shape[0]
    X = np.empty_like(X0)
    st = np.empty(n, dtype=np.int64)
    res = np.empty(n)
    for i in range(n):
        x, s, r = _newton(X0[i], z[i], w, U, M2, pi, c, psi2, kap, atol, rtol, max_steps)
        X[i] = x
        st[i] = s
        res[i] = r
    return X, st, res
