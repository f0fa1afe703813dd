r"""Template: the problems of the mixture bulks (:mod:`.mixture`) — residuals and exact Jacobians
of their self-consistent equations — handed to the numerics layer's compiled Newton.

A template of :mod:`asymptotics.rendering.templates`, rendered by :func:`.mixture.mixture_kernels`
with ``include=(DENSE_LINALG, NEWTON)`` (:mod:`asymptotics.numerics.templates`) and the definition
``PROBLEM = KAPPA_MIXTURE`` or ``TYPED_GRAM``: the chosen problem becomes the Newton template's
``residual``, ``jacobian`` and ``residual_scale`` (s_i = |x_i|, the size of the unknown that
appears as a term of equation i). Parameters p = (z, data), z the spectral variable; statuses
are the codes of :class:`asymptotics.numerics.status.Status`. (Imported as plain Python, the
relative imports give the Newton template's own reference problem: only the rendered module
solves these problems.)

**κ-mixture.** Data (w, U, M2, π, c, ψ2, κ): κ weights w (A,), U = μ1(κ_a; u_j) (A, K),
M2 = μ2²(κ_a; u_j) (A, K), type weights π (K,), variances c (K,), ψ2, κ = ψ2/ψ1. Unknowns
(V_1…V_A, S_1…S_K); equations at one z:

    B_a = w_a/(1 + κ V_a),  P = Uᵀ diag(B) U,  G = (diag(S/(π c)) + ψ2 P)⁻¹,
    F_V(a) = V_a − (U G Uᵀ)_aa − Σ_j π_j M2_aj/S_j,
    F_S(j) = S_j + z − Σ_a B_a M2_aj − S_j (P G)_jj/π_j.

A singular H = diag(S/(πc)) + ψ2 P gives a non-finite residual (the Newton status ``nonfinite``).

**Typed Gram.** Data (c, w, ψ2): variances c_k and weights w_k of the column types. One unknown g:

    F = g (−z − ψ2 Σ_k w_k c_k h_k) − 1,   h_k = −1/(1 + c_k g).
"""

import math

import numpy as np
from numba import njit

from ...numerics.templates.dense_linalg import gauss_solve  # placeholder: included by rendering
from ...numerics.templates.newton import PIVOT_TOL, newton_steps  # placeholders: included by rendering

PROBLEM = 0  # placeholder: which problem the rendered module solves (KAPPA_MIXTURE or TYPED_GRAM)


# ---- kernels (copied into the rendered module) ----


#: The problems of this template (the value of ``PROBLEM``).
KAPPA_MIXTURE, TYPED_GRAM = 0, 1


@njit(cache=True)
def _inverse(H):
    """``(H⁻¹, ok)``: one elimination with the unit vectors as right-hand sides; ``ok`` False for
    a negligible pivot (|pivot| ≤ PIVOT_TOL·max|H_ij|, the Newton family's contract)."""
    k = H.shape[0]
    eye = np.zeros((k, k), dtype=H.dtype)
    for j in range(k):
        eye[j, j] = 1.0
    out = eye.copy()
    scale = 0.0
    for i in range(k):
        for j in range(k):
            scale = max(scale, abs(H[i, j]))
    if not (scale > 0.0):
        return out, False
    return out, gauss_solve(H, eye, out, PIVOT_TOL * scale, True)


@njit(cache=True)
def _kappa_state(X, w, U, M2, pi, c, psi2, kap):
    """``(B, β, P, G, UG, PG, ok)`` of the κ-mixture at X = (V, S), β_a = dB_a/dV_a = −κB_a²/w_a."""
    A, K = U.shape
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
    UG = U.astype(X.dtype) @ G  # (A, K)
    PG = P @ G  # (K, K)
    return B, beta, P, G, UG, PG, ok


@njit(cache=True)
def kappa_residual(X, p):
    """F = (F_V, F_S) of the κ-mixture at X, p = (z, (w, U, M2, π, c, ψ2, κ)) (module docstring)."""
    z, data = p
    w, U, M2, pi, c, psi2, kap = data
    A, K = U.shape
    F = np.zeros(A + K, dtype=X.dtype)
    B, beta, P, G, UG, PG, ok = _kappa_state(X, w, U, M2, pi, c, psi2, kap)
    if not ok:
        F[:] = math.nan
        return F
    V = X[:A]
    S = X[A:]
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
    return F


@njit(cache=True)
def kappa_jacobian(X, p):
    """∂F/∂X of the κ-mixture: J = I − dΦ, Φ the map whose fixed point the equations state."""
    z, data = p
    w, U, M2, pi, c, psi2, kap = data
    A, K = U.shape
    n = A + K
    J = np.zeros((n, n), dtype=X.dtype)
    B, beta, P, G, UG, PG, ok = _kappa_state(X, w, U, M2, pi, c, psi2, kap)
    if not ok:
        J[:, :] = math.nan
        return J
    S = X[A:]
    PgT = UG @ P  # (P g_b)_j = Σ_k P_jk G_kl U_bl = (UG P)_bj by symmetry of P and G
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
    return J


@njit(cache=True)
def typed_residual(X, p):
    """F = g(−z − ψ2 Σ_k w_k c_k h_k) − 1 of the typed Gram, p = (z, (c, w, ψ2))."""
    z, data = p
    c, w, psi2 = data
    g = X[0]
    sum_h = 0.0j
    for k in range(c.shape[0]):
        sum_h += (-1.0 / (1.0 + c[k] * g)) * c[k] * w[k]
    F = np.empty(1, dtype=X.dtype)
    F[0] = g * (-z - psi2 * sum_h) - 1.0
    return F


@njit(cache=True)
def typed_jacobian(X, p):
    """dF/dg = (−z − ψ2 Σ_k w_k c_k h_k) − g ψ2 Σ_k w_k c_k²/(1 + c_k g)² of the typed Gram."""
    z, data = p
    c, w, psi2 = data
    g = X[0]
    sum_h = 0.0j
    sum_d = 0.0j
    for k in range(c.shape[0]):
        den = 1.0 + c[k] * g
        sum_h += (-1.0 / den) * c[k] * w[k]
        sum_d += c[k] ** 2 / den**2 * w[k]
    J = np.empty((1, 1), dtype=X.dtype)
    J[0, 0] = (-z - psi2 * sum_h) - g * psi2 * sum_d
    return J


@njit(cache=True)
def unknown_scale(X, p):
    """s_i = |x_i|: each equation has its unknown as a term."""
    return np.abs(X)


residual = typed_residual if PROBLEM == TYPED_GRAM else kappa_residual
jacobian = typed_jacobian if PROBLEM == TYPED_GRAM else kappa_jacobian
residual_scale = unknown_scale


@njit(cache=True)
def newton_batch(X0, z, data, atol, rtol, max_steps, plain_steps):
    """Newton at every row (point z_i, start X0_i, p = (z_i, data)): first ``plain_steps`` full
    steps (the first step may raise the residual before Newton converges quadratically), and when
    they do not converge Newton with the line search from X0_i. Returns (X, status, residual)."""
    n = X0.shape[0]
    X = np.empty_like(X0)
    st = np.empty(n, dtype=np.int64)
    res = np.empty(n)
    for i in range(n):
        p = (z[i], data)
        s = 1
        if plain_steps > 0:
            x, s, _, r, _ = newton_steps(X0[i], p, atol, rtol, plain_steps, False)
        if s != 0:
            x, s, _, r, _ = newton_steps(X0[i], p, atol, rtol, max_steps, True)
        X[i] = x
        st[i] = s
        res[i] = r
    return X, st, res
