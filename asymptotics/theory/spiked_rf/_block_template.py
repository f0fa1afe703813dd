r"""Compiled reduced response system of K readout types (block Marchenko–Pastur prior).

This file is a template (:mod:`asymptotics.rendering.templates`) rendered by
:func:`~asymptotics.theory.spiked_rf.kernels.block_kernels` with the numerics templates
``dense_linalg.py`` and ``anderson.py`` included; everything from the marker line on is copied
verbatim.

The mathematics is that of :mod:`asymptotics.theory.spiked_rf.priors` (``BlockMarchenkoPastur``)
and :mod:`asymptotics.theory.spiked_rf.readout_types` (docs/spiked-rf.md, "K readout types"),
written as loops with the arithmetic of the numpy functions they replace:

* the point of the reduced system x = (log V2_k, log V1_kk, V1_kl/√(V1_kk V1_ll) for k < l);
* one outer step: V(κ) → ŵ → (V̂1, V̂2) → D = λ + V̂2, τ = π/V2 − D → one block self-energy
  step τ ↦ c∘diag[(I + βV̂1Λ)⁻¹V̂1] → V1 = (Λ⁻¹ + βV̂1)⁻¹, V2 = π/(D + τ);
* the start: the exact block MP prior at the conjugates of V = 0, its self-energy
  τ = c∘diag[(I + βV̂1Λ(max(τ, 0)))⁻¹V̂1] solved by Anderson (memory 5, tolerance 10⁻¹³) as
  :func:`solve_self_energy`;
* continuation along α of the outer solve (the assembly of the solution stays in
  :mod:`asymptotics.theory.spiked_rf.fixed_point`).

Both fixed points are problems of the one compiled Anderson solve
(``asymptotics/numerics/templates/anderson.py``); its map :func:`fixed_point_map` reads which
one from the problem (``(which, outer, inner)``: ``which`` = :data:`OUTER` or
:data:`SELF_ENERGY`, the other part a placeholder of the same types).
"""


import numpy as np
from numba import njit

from asymptotics.numerics.status import Status

# placeholders: included by rendering (the numerics templates)
from ...numerics.templates.anderson import anderson_solve
from ...numerics.templates.dense_linalg import lu_solve_many

# ---- kernels (copied into the rendered module) ----

CONVERGED = int(Status.CONVERGED)
MAX_STEPS = int(Status.MAX_STEPS)

#: which fixed point a problem of :func:`fixed_point_map` is: the outer reduced system, or the
#: block self-energy of the start
OUTER = 0
SELF_ENERGY = 1

#: start status of a prior operator that is not positive (λ + V̂2_k ≤ 0 for some type)
BAD_PRIOR = -2

JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(**JIT)
def conjugates(V1, V2, ratio, w, mu1, mu2, clip):
    """(V̂1, V̂2) at the responses (V1, V2): ŵ = (α/β)/(1 + V(κ)), V(κ) = Σ μ1k μ1l V1_kl +
    Σ μ2k² V2_k (clipped at 0 when ``clip``)."""
    K, n = mu1.shape
    V1h = np.zeros((K, K))
    V2h = np.zeros(K)
    for i in range(n):
        v = 0.0
        for k in range(K):
            for l in range(K):
                v += mu1[k, i] * V1[k, l] * mu1[l, i]
        for k in range(K):
            v += V2[k] * mu2[k, i]
        if clip:
            v = max(v, 0.0)
        ww = w[i] * (ratio / (1.0 + v))
        for k in range(K):
            for l in range(K):
                V1h[k, l] += mu1[k, i] * ww * mu1[l, i]
            V2h[k] += mu2[k, i] * ww
    return V1h, V2h


@njit(**JIT)
def block_lambda(tau, D, c, pi):
    """Λ = diag(π c/(D + τ)) of the block self-energy, as a vector."""
    K = tau.shape[0]
    lam = np.empty(K)
    for k in range(K):
        lam[k] = pi[k] * c[k] / (D[k] + tau[k])
    return lam


@njit(**JIT)
def self_energy(tau, V1h, D, c, pi, beta):
    """τ ↦ c∘diag[(I + β V̂1 Λ(τ))⁻¹ V̂1], Λ = diag(π c/(D + τ)) (readout_types.block_self_energy)."""
    K = tau.shape[0]
    lam = block_lambda(tau, D, c, pi)
    M = np.empty((K, K))
    for k in range(K):
        for l in range(K):
            M[k, l] = (1.0 if k == l else 0.0) + beta * V1h[k, l] * lam[l]
    X = np.empty((K, K))
    lu_solve_many(M, V1h, X)
    out = np.empty(K)
    for k in range(K):
        out[k] = c[k] * X[k, k]
    return out


@njit(**JIT)
def traces(tau, V1h, D, c, pi, beta):
    """(V1, V2) from τ: V1 = (Λ⁻¹ + βV̂1)⁻¹ (symmetrised), V2 = π/(D + τ)."""
    K = tau.shape[0]
    lam = block_lambda(tau, D, c, pi)
    M = beta * V1h
    for k in range(K):
        M[k, k] += 1.0 / lam[k]
    Vi = np.empty((K, K))
    lu_solve_many(M, np.eye(K), Vi)
    V1 = 0.5 * (Vi + Vi.T)
    V2 = np.empty(K)
    for k in range(K):
        V2[k] = pi[k] / (D[k] + tau[k])
    return V1, V2


@njit(**JIT)
def unpack(x, K):
    V2 = np.exp(x[:K])
    d = np.exp(x[K:2 * K])
    V1 = np.diag(d)
    p = 2 * K
    for k in range(K):
        for l in range(k + 1, K):
            off = min(max(x[p], -1.0), 1.0) * np.sqrt(d[k] * d[l])
            V1[k, l] = off
            V1[l, k] = off
            p += 1
    return V1, V2


@njit(**JIT)
def pack(V1, V2, out):
    K = V2.shape[0]
    for k in range(K):
        out[k] = np.log(V2[k])
        out[K + k] = np.log(V1[k, k])
    p = 2 * K
    for k in range(K):
        for l in range(k + 1, K):
            out[p] = V1[k, l] / np.sqrt(V1[k, k] * V1[l, l])
            p += 1


@njit(**JIT)
def block_map(x, out, ratio, lam, beta, c, pi, w, mu1, mu2):
    """One outer step of the reduced block system (priors._block_step), on the packed point."""
    K = c.shape[0]
    V1, V2 = unpack(x, K)
    V1h, V2h = conjugates(V1, V2, ratio, w, mu1, mu2, True)
    D = lam + V2h
    tau = np.empty(K)
    for k in range(K):
        tau[k] = max(pi[k] / V2[k] - D[k], 0.0)
    tau_new = self_energy(tau, V1h, D, c, pi, beta)
    V1n, V2n = traces(tau_new, V1h, D, c, pi, beta)
    pack(V1n, V2n, out)


@njit(**JIT)
def fixed_point_map(x, g, problem):
    """The map of the Anderson solve (``anderson.py``): ``problem`` = (which, outer, inner) with
    outer = (α/β, λ, β, c, π, w, μ1, μ2²) (:func:`block_map`) and inner = (V̂1, D, c, π, β)
    (g = the self-energy at max(x, 0), :func:`self_energy`)."""
    which, outer, inner = problem
    if which == OUTER:
        ratio, lam, beta, c, pi, w, mu1, mu2 = outer
        block_map(x, g, ratio, lam, beta, c, pi, w, mu1, mu2)
        return
    V1h, D, c, pi, beta = inner
    t = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        t[k] = max(x[k], 0.0)
    g[:] = self_energy(t, V1h, D, c, pi, beta)


@njit(**JIT)
def solve_self_energy(V1h, D, c, pi, beta, tau, tol=1e-13):
    """Anderson (memory 5, tolerance ``tol``, 5000 steps) on τ = self_energy(max(τ, 0)) from τ
    (overwritten). Returns (status, iterations, residual) (readout_types.solve_block_mp)."""
    outer = (0.0, 0.0, beta, c, pi, np.empty(0), np.empty((0, 0)), np.empty((0, 0)))
    return anderson_solve(tau, (SELF_ENERGY, outer, (V1h, D, c, pi, beta)), (tol, tol, 1, 5000, 5, 1.0, 1e3))


@njit(**JIT)
def block_start(x, ratio, lam, beta, types):
    """The exact block MP prior at the conjugates of V = 0, packed into x. Returns the inner
    solve's (status, iterations, residual)."""
    c, pi, w, mu1, mu2 = types
    K = c.shape[0]
    V1h, V2h = conjugates(np.zeros((K, K)), np.zeros(K), ratio, w, mu1, mu2, False)
    D = lam + V2h
    for k in range(K):
        if not D[k] > 0.0:
            return BAD_PRIOR, 0, np.inf
    tau = np.empty(K)
    for k in range(K):
        tau[k] = c[k] * V1h[k, k]
    st, it, res = solve_self_energy(V1h, D, c, pi, beta, tau)
    for k in range(K):
        tau[k] = max(tau[k], 0.0)
    V1, V2 = traces(tau, V1h, D, c, pi, beta)
    pack(V1, V2, x)
    return st, it, res


@njit(**JIT)
def solve_curve_block(alphas, beta, lam, types, x0, has_start, options, X, iout, fres):
    """Continuation along ``alphas``: row p of X the reduced point, iout[p] = (status, iterations,
    start status), fres[p] the residual. A failed start (inner self-energy) stops the path: its
    row has start status ≠ 0 and the rows after it are not solved (status MAX_STEPS after 0
    iterations).

    Named inputs: ``types`` = (c, π, w, μ1, μ2²) (bulk variances and proportions of the K types,
    the κ weights and the K × n tables), ``options`` = the Anderson options (atol, rtol,
    min_steps, max_steps, memory, damping, restart)."""
    c, pi, w, mu1, mu2 = types
    m = X.shape[1]
    K = c.shape[0]
    x = np.empty(m)
    start = x0.copy()
    have = has_start
    inner = (np.empty((K, K)), np.empty(K), c, pi, beta)
    for p in range(alphas.shape[0]):
        iout[p, 0] = MAX_STEPS
        iout[p, 1] = 0
        iout[p, 2] = CONVERGED
        fres[p] = np.inf
    for p in range(alphas.shape[0]):
        ratio = alphas[p] / beta
        if have:
            for i in range(m):
                x[i] = start[i]
        else:
            st, it, res0 = block_start(x, ratio, lam, beta, types)
            if st != CONVERGED:
                iout[p, 2] = st
                iout[p, 1] = it
                fres[p] = res0
                return
        outer = (ratio, lam, beta, c, pi, w, mu1, mu2)
        status, its, res = anderson_solve(x, (OUTER, outer, inner), options)
        for i in range(m):
            X[p, i] = x[i]
        iout[p, 0] = status
        iout[p, 1] = its
        fres[p] = res
        if status == CONVERGED:
            for i in range(m):
                start[i] = x[i]
            have = True
