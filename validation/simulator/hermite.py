r"""The conditioned Hermite expansion of the exact population risk, for any student σ.

The mathematics is in :mod:`validation.simulator.population` (and ``docs/simulator.md``). In brief:
condition on κ = Uᵀx for the m directions U along which the neurons share a common component,
write wᵢ·x = bᵢ·κ + tᵢξᵢ and the target argument ⟨β, x⟩ = β_U·κ + ‖β_⊥‖η, where the residual
Gaussians ξᵢ, η are independent of κ with small correlations ρ̃_ij = hᵢ·hⱼ/(tᵢtⱼ) and
rᵢ = hᵢ·β/(tᵢ‖β_⊥‖); Mehler's formula conditionally on κ then gives

    bᵀKb = Σᵢ bᵢ² E σ(‖wᵢ‖z)² + Σ_k E_κ[vₖ(κ)ᵀ(R̃^∘k − I)vₖ(κ)],   vₖ = b ∘ aₖ(·|κ),
    bᵀk  = Σᵢ bᵢ Σ_k E_κ[aₖ(i|κ) a*ₖ(κ)] rᵢ^k,   a*ₖ(κ) = E_η[σ*(β_U·κ + ‖β_⊥‖η) hₖ(η)],

both truncated with Cauchy–Schwarz bounds on the tails (|ρ̃|^{K+1}τᵢτⱼ and |rᵢ|^{K+1}τᵢτ*). Neurons
with |rᵢ| > 1/4 get their kᵢ from a two-dimensional integral instead.
"""

from __future__ import annotations

import math

import numpy as np

from asymptotics.activations import Activation

from .cross_term import MEHLER_RHO, QUAD_RTOL, cross_two_dim, test_neurons
from .kernels import population_kernels
from .quadrature import (
    HALF_RANGE,
    adaptive_rule,
    composite_rule,
    conditional_coefficients,
    hermite_table,
    inner_edges,
    inner_panels,
    refine_edges,
)
from .static_kernels import hadamard_apply, hadamard_multiply, residual_correlation

__all__ = ["hermite_risk", "MAX_ORDER", "MAX_CONDITIONING", "teacher_conditional"]

#: Largest Hermite order of the conditioned expansion.
MAX_ORDER = 60
#: At most this many conditioning directions.
MAX_CONDITIONING = 2
#: Up to this many vectors the entrywise power and its products share one pass over the matrix.
FUSED_COLUMNS = 24


# ---- the teacher, conditionally on κ ---------------------------------------------------------------
def _teacher_grid(teacher: Activation, s, t, edges, K):
    P = s.size
    A = np.empty((K + 1, P))
    S = np.empty(P)
    kinks = tuple(teacher.kinks)
    if not kinks:
        x, w = composite_rule(edges)
        F = np.asarray(teacher.numpy(s[:, None] + t[:, None] * x[None, :]), dtype=float)
        A[:] = (hermite_table(x, K) * w[None, :]) @ F.T
        S[:] = (F * F) @ w
        return A, S
    for p in range(P):
        if t[p] <= 0.0:
            f = float(teacher.numpy(np.array([s[p]]))[0])
            A[:, p] = 0.0
            A[0, p], S[p] = f, f * f
            continue
        x, w = composite_rule(edges, [(k - s[p]) / t[p] for k in kinks])
        f = np.asarray(teacher.numpy(s[p] + t[p] * x), dtype=float)
        A[:, p] = hermite_table(x, K) @ (w * f)
        S[p] = w @ (f * f)
    return A, S


def teacher_conditional(teacher: Activation, s, t, K: int, *, rtol: float = QUAD_RTOL):
    """a*_k(p) = E_η[σ*(sₚ + tₚη) h_k(η)] (k = 0 … K) and E_η σ*(sₚ + tₚη)², with the inner panels
    doubled until two counts agree to rtol (split at the kinks of σ*)."""
    s = np.asarray(s, dtype=float)
    t = np.asarray(t, dtype=float)
    prev = None
    for n in (8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256):
        cur = _teacher_grid(teacher, s, t, inner_panels(n), K)
        if prev is not None:
            scale = max(float(np.max(cur[1])), float(np.sqrt(np.max(cur[1]))), 1e-300)
            if max(np.max(np.abs(cur[0] - prev[0])), np.max(np.abs(cur[1] - prev[1]))) <= rtol * scale:
                return cur
        prev = cur
    return prev


# ---- conditioning and the rule in κ ------------------------------------------------------------------
def conditioning_directions(C, s2, d):
    """Approximate eigenvectors g (N×m; U = W g after orthonormalisation) of D⁻¹CD⁻¹
    (D = diag ‖wᵢ‖) whose eigenvalues exceed both twice the Marchenko–Pastur edge (1 + √(N/d))²
    and 2N/√d: the common component they carry then beats the O(d^{-1/2}) random correlations.
    Any orthonormal U gives an exact expansion; U only has to capture the common component, so a
    few block power iterations (BLAS-3) suffice."""
    N = C.shape[0]
    if N < 3:
        return np.zeros((N, 0))
    dinv = 1.0 / np.sqrt(s2)
    k = min(MAX_CONDITIONING + 2, N - 1)
    if N <= 64:
        w, V = np.linalg.eigh(C * dinv[:, None] * dinv[None, :])
        w, V = w[::-1][:k], V[:, ::-1][:, :k]
    else:
        V = np.random.Generator(np.random.SFC64(20240601)).standard_normal((N, k))
        for _ in range(6):
            V, _r = np.linalg.qr(dinv[:, None] * (C @ (dinv[:, None] * V)))
        H = V.T @ (dinv[:, None] * (C @ (dinv[:, None] * V)))
        w, Z = np.linalg.eigh(0.5 * (H + H.T))
        w, V = w[::-1], (V @ Z)[:, ::-1]
    threshold = max(2.0 * (1.0 + math.sqrt(N / d)) ** 2, 2.0 * N / math.sqrt(d))
    m = int(np.sum(w[:MAX_CONDITIONING] > threshold))
    return dinv[:, None] * V[:, :m]


def _kappa_rule(B, t, kern, edges, kinks, rtol, teacher=None, beta_u=None, tperp=0.0):
    """Nodes (m×Q) and weights (Q) of the rule in κ: per direction an adaptive 1-D rule driven by
    the hardest neurons along it (and the conditional teacher), tensor products for m = 2."""
    m = B.shape[0]
    if m == 0:
        return np.zeros((0, 1)), np.ones(1)
    rules = []
    for j in range(m):
        test = test_neurons(np.abs(B[j]) / t)

        def fn(x, j=j, test=test):
            sp = (B[j, test, None] * x[None, :]).ravel()
            tp = np.repeat(t[test], x.size)
            A, S = conditional_coefficients(kern, sp, tp, edges, kinks, 1)
            rows = [A.reshape(2 * test.size, x.size), S.reshape(test.size, x.size)]
            if teacher is not None:
                At, St = teacher_conditional(teacher, beta_u[j] * x, np.full(x.size, tperp), 0)
                rows += [At, St[None, :]]
            return np.concatenate(rows)

        rules.append(adaptive_rule(fn, np.linspace(-HALF_RANGE, HALF_RANGE, 7), rtol=rtol))
    if m == 1:
        return rules[0][0][None, :], rules[0][1]
    (x1, w1), (x2, w2) = rules
    X1, X2 = np.meshgrid(x1, x2, indexing="ij")
    return np.stack([X1.ravel(), X2.ravel()]), np.outer(w1, w2).ravel()


# ---- the series --------------------------------------------------------------------------------------
def _compress(V, weights) -> np.ndarray:
    """Y with Y Yᵀ = V diag(w) Vᵀ up to relative 10⁻¹⁵ (the numerical rank of V√w)."""
    Vw = V * np.sqrt(weights)[None, :]
    if Vw.shape[1] > 2 and Vw.shape[0] > 4 * Vw.shape[1]:
        lam, Z = np.linalg.eigh(Vw.T @ Vw)
        keep = lam > 1e-15 * max(float(lam[-1]), 1e-300)
        Vw = Vw @ Z[:, keep]
    return np.ascontiguousarray(Vw)


def _orders(R, c, A, S, kw, rho_max, tol_abs):
    """The terms k = 0 … K of the off-diagonal series of bᵀKb and its truncation bound; stops at the
    first K whose bound is ≤ tol_abs. Order k needs P = R̃^∘k (one entrywise product) and the
    quadratic forms of P with the order-k vectors and, at even k, the tail vectors of orders k and
    k − 1: all in one product P @ [Y_k, T_k, T_{k−1}] (fused with the entrywise product when the
    vectors are few)."""
    K = A.shape[0] - 1
    V0 = c[:, None] * A[0]
    terms = [float(kw @ (V0.sum(axis=0) ** 2 - (V0**2).sum(axis=0)))]
    energy = np.cumsum(A**2, axis=0)  # Σ_{j≤k} aⱼ²
    ac = np.abs(c)[:, None]

    def tail(k):
        return _compress(ac * np.sqrt(np.maximum(S - energy[k], 0.0)), kw)

    P = np.empty_like(R)
    bound, used = math.inf, K
    for k in range(1, K + 1):
        blocks = [_compress(c[:, None] * A[k], kw)]
        if k % 2 == 0:
            blocks += [tail(k), tail(k - 1)]
        M = np.ascontiguousarray(np.concatenate(blocks, axis=1))
        if k == 1:
            np.copyto(P, R)
        if M.shape[1] <= FUSED_COLUMNS:
            PM = np.empty_like(M)
            hadamard_apply(P, R, M, PM, k > 1)
        else:
            if k > 1:
                hadamard_multiply(P, R)
            PM = P @ M
        prod = np.einsum("iq,iq->q", M, PM)
        widths = np.cumsum([0] + [b.shape[1] for b in blocks])
        q = [float(prod[widths[j] : widths[j + 1]].sum()) for j in range(len(blocks))]
        terms.append(q[0])
        if k % 2 == 0:
            b_even = rho_max * q[1]  # |ρ̃|^{k+1} ≤ ρ_max ρ̃^k
            b_odd = q[2]  # |ρ̃|^k = ρ̃^k
            if b_even <= tol_abs:
                return terms, b_even, k
            if b_odd <= tol_abs:
                terms.pop()
                return terms, b_odd, k - 1
            bound, used = b_even, k
    return terms, bound, used


def _cross(c, A, S, kw, r, Astar, Sstar):
    """bᵀk by the conditioned series and its tail bound, per neuron: (values, bounds)."""
    K = A.shape[0] - 1
    powers = r[None, :] ** np.arange(K + 1)[:, None]  # (K+1, N)
    vals = np.einsum("kiq,kq,ki,q->i", A, Astar, powers, kw)
    tau = np.sqrt(np.maximum(S - np.sum(A**2, axis=0), 0.0))  # (N, Q)
    tau_star = np.sqrt(np.maximum(Sstar - np.sum(Astar**2, axis=0), 0.0))  # (Q,)
    bounds = np.abs(c) * np.abs(r) ** (K + 1) * (tau @ (kw * tau_star))
    return c * vals, bounds


def hermite_risk(C, c, s2, proj, student: Activation, teacher: Activation, tol_abs: float, d: int) -> dict:
    """bᵀKb and bᵀk by the conditioned Hermite expansion; C (= WᵀW) is overwritten by R̃.

    ``proj`` = Wᵀβ. Returns quad, cross, their bounds, the orders, m, max |ρ̃|, the κ nodes and
    the quadrature error of the κ rule (against the exact one-dimensional integrals)."""
    kern = population_kernels(student)
    kinks = np.asarray(student.kinks, dtype=float)
    N = C.shape[0]
    s = np.sqrt(s2)
    # exact diagonal E σ(‖wᵢ‖z)² and mean E σ(‖wᵢ‖z)
    edges_diag = inner_edges(kern, kinks, [s.min(), s.max(), float(np.median(s))])
    A1, diag = conditional_coefficients(kern, np.zeros(N), s, edges_diag, kinks, 0)
    mean = A1[0]
    # conditioning: U = W G M^{-1/2}, B = UᵀW = M^{-1/2} Gᵀ C, Uᵀβ = M^{-1/2} Gᵀ Wᵀβ (Gram matrix only)
    G = conditioning_directions(C, s2, d)
    m = G.shape[1]
    if m:
        lam, Z = np.linalg.eigh(G.T @ C @ G)
        Minv = (Z / np.sqrt(lam)[None, :]) @ Z.T
        B = Minv @ (G.T @ C)
        beta_u = Minv @ (G.T @ proj)
    else:
        B, beta_u = np.zeros((0, N)), np.zeros(0)
    t = np.sqrt(np.maximum(s2 - np.einsum("mi,mi->i", B, B), 1e-300))
    tperp = math.sqrt(max(0.0, 1.0 - float(beta_u @ beta_u)))
    r = np.clip((proj - B.T @ beta_u) / (t * tperp), -1.0, 1.0) if tperp > 1e-12 else np.zeros(N)
    rho_max = float(residual_correlation(C, B, t).max()) if N > 1 else 0.0
    R = C  # now R̃, zero diagonal
    edges = inner_edges(kern, kinks, [t.min(), t.max(), float(np.median(t))])
    # orders: a first guess from the crude bound ρ_max^{K+1} (Σ|bᵢ|)² max σ², doubled if needed
    crude = float(np.abs(c).sum()) ** 2 * float(diag.max())
    if rho_max <= 0.0 or crude <= tol_abs:
        K = 2
    elif rho_max < 1.0:
        K = int(math.ceil(math.log(tol_abs / crude) / math.log(rho_max)))
    else:
        K = MAX_ORDER
    K = int(min(MAX_ORDER, max(2, K + 1)))
    K += K % 2
    rule_rtol, refine = QUAD_RTOL, 0
    kn, kw = _kappa_rule(B, t, kern, edges, kinks, rule_rtol, teacher, beta_u, tperp)
    while True:
        Q = kw.size
        sp = (B.T @ kn).ravel() if m else np.zeros(N)
        A, S = conditional_coefficients(kern, sp, np.repeat(t, Q), edges, kinks, K)
        A = A.reshape(K + 1, N, Q)
        S = S.reshape(N, Q)
        quad_err = max(float(np.max(np.abs(S @ kw - diag))), float(np.max(np.abs(A[0] @ kw - mean))))
        if quad_err > 1e-12 * max(float(diag.max()), 1e-300) and refine < 2 and m:
            refine += 1  # a finer rule in κ, and in ξ
            rule_rtol *= 1e-2
            edges = refine_edges(edges)
            kn, kw = _kappa_rule(B, t, kern, edges, kinks, rule_rtol, teacher, beta_u, tperp)
            continue
        terms, bound, used = _orders(R, c, A, S, kw, rho_max, tol_abs)
        if bound <= tol_abs or K >= MAX_ORDER:
            break
        K = min(MAX_ORDER, 2 * K)
    # the cross term: the conditioned series, two-dimensional integrals for the aligned neurons
    Astar, Sstar = teacher_conditional(teacher, beta_u @ kn if m else np.zeros(1), np.full(Q, tperp), K)
    vals, bounds = _cross(c, A, S, kw, r, Astar, Sstar)
    aligned = np.abs(r) > MEHLER_RHO
    # neurons whose tail bounds are largest go to the two-dimensional integral until the rest is within tolerance
    order = np.argsort(-np.where(aligned, 0.0, bounds), kind="stable")
    rest = np.cumsum(np.where(aligned, 0.0, bounds)[order][::-1])[::-1]  # bound of order[j:], j = 0 … N−1
    excess = int(np.searchsorted(-rest, -0.5 * tol_abs))  # first j with rest[j] <= tol/2
    aligned[order[:excess]] = True
    cross, cross_bound = float(vals[~aligned].sum()), float(bounds[~aligned].sum())
    if np.any(aligned):
        rho = np.clip(proj[aligned] / s[aligned], -1.0, 1.0)
        cross += cross_two_dim(c[aligned], rho * s[aligned], s[aligned] * np.sqrt(np.maximum(0.0, 1.0 - rho**2)),
                               student, teacher)  # fmt: skip
    return {
        "quad": float(c**2 @ diag) + math.fsum(terms), "bound": bound, "cross": cross, "cross_bound": cross_bound,
        "orders": used, "m": m, "rho_max": rho_max, "nodes": Q, "quad_error": quad_err * float(c @ c),
    }  # fmt: skip
