r"""The compiled fixed point of the large-step risk with a Gaussian readout (a template).

Rendered by :mod:`.compiled` (:mod:`asymptotics.rendering.templates`) into one module that
*includes* the templates whose kernels the placeholders above the marker name: the dense linear
algebra (``_dense_template.py``), the spectral radius and truncated SVD (``_spectral_template.py``),
the spike–mean block (``_mean_block_template.py``) and the numerics layer's small dense linear
algebra. The equations are those of
``docs/large-step-exact.md`` (the prior: :mod:`asymptotics.theory.large_step.typed_prior`; the
spike–mean block: :mod:`asymptotics.theory.large_step.spike_mean_block`), evaluated here without
forming T = B(I + βMB)⁻¹: with H = I + β√B M √B = UᵀU and Y = U⁻ᵀ √B μ1ᵀ (n × K),

    P = μ1 T μ1ᵀ = YᵀY,   τ-map(u_j) = c_j P_jj,
    V(κ_a) = M_aa − β Σ_jl Λ_j μ1_ja P_jl Λ_l μ1_la + Σ_j (π_j/S_j) μ2²_ja,   Λ = π c/S,

so one evaluation of the response map costs K n²/2 + n³/6 + K n²/2 + 2 n K² multiply-adds. At the
solution, with E = P Λ μ1 (from the last evaluation): 𝒱 = M − β (Λμ1)ᵀE, A1 = μ1 − β E, and the
variance map
𝓛 = Ψᵀ diag(π/S²)(I − C)⁻¹ Ψ + β 𝒱∘𝒱 is symmetric, so 𝓛 diag(W) (W = B/(1 + V)) has the
eigenvalues of the symmetric √W 𝓛 √W.

The loop is the numerics layer's one compiled Anderson (``numerics/templates/anderson.py``, included:
type II, memory m, restart when the residual grows by ``restart`` over the best one, the history cut
to the newest pair when its least-squares problem is ill-conditioned) on x = (log V, log τ); this
template contributes its problem: :func:`fixed_point_map` (the response map, which leaves the state
of its last evaluation in the problem's arrays), the start :func:`cold_start` and the options
``ANDERSON_*``. Status codes are those of :class:`asymptotics.numerics.status.Status`; the outcome of the assembly at the solution is one of the
``ASSEMBLED`` … ``SINGULAR_SYSTEM`` codes below (read by :mod:`.compiled`).

Sources of the second-order traces are collected in :func:`variance_sources`: a further source
(e.g. the N^{-1/2} cross terms of the mean block with the other sources) is a new term there.
"""

import math

import numpy as np
from numba import njit

from ....numerics.templates.anderson import CONVERGED, anderson_solve  # placeholders: included

# isort: off
from ._dense_template import (  # placeholders: included
    cholesky_upper, dot, forward_rows, gram_rows, lu_factor, lu_solve_rows, lu_solve_vec, matmul, matmul_tn,
    matvec, rmatvec, spd_solve, weighted_gram,
)
# isort: on
from ._mean_block_template import mean_block_finite, mean_block_limit  # placeholders: included
from ._spectral_template import spectral_radius_symmetric  # placeholders: included

# ---- kernels (copied into the rendered module) ----

#: outcome of the assembly at a converged response solve
ASSEMBLED = 0
UNSTABLE = 1            # spectral radius of the variance map ≥ 1 − min_margin
NONFINITE_RISK = 2
NONFINITE_TRAIN = 3
NEGATIVE_VARIANCE = 4
SINGULAR_SYSTEM = 5

#: floor of the responses in the logarithmic variables
TAU_FLOOR = 1e-300

#: rows of the per-point vector output (the fields of ``compiled.PointVectors``, in this order)
VEC_ROWS = 7
ROW_V = 0               # V(κ)
ROW_Q = 1               # q(κ)
ROW_OMEGA_BAR = 2       # ω̄(κ) = ω0 + κ t
ROW_OMEGA0 = 3          # ω0(κ)
ROW_T = 4               # t(κ)
ROW_PSI = 5             # ψ(κ)
ROW_ERROR = 6           # the conditional test error E(κ)
#: entries of the per-point scalar output (the fields of ``compiled.PointScalars``, in this order)
SCAL_SIZE = 7
OUT_RISK1 = 0
OUT_TRAIN = 1
OUT_SPIKE_ERROR = 2
OUT_MEAN_RANK = 3
OUT_RESIDUAL = 4
OUT_RADIUS = 5          # spectral radius of the variance map
OUT_CODE = 6            # the assembly outcome

#: Anderson's options for the response map: the fewest evaluations, memory, damping, restart factor
ANDERSON_MIN_STEPS = 1
ANDERSON_MEMORY = 5
ANDERSON_DAMPING = 1.0
ANDERSON_RESTART = 1e3


@njit(cache=True, nogil=True)
def safe_log(v):
    """log max(v, floor), NaN kept."""
    if v >= TAU_FLOOR:
        return math.log(v)
    if v == v:
        return math.log(TAU_FLOOR)
    return math.nan


@njit(cache=True, nogil=True)
def spike_factor(M, sb, beta):
    """``(U, ok)``: the Cholesky factor of H = I + β√B M √B (``sb`` = √B; ``ok`` False when H is not
    numerically positive definite)."""
    n = sb.shape[0]
    H = np.empty((n, n))
    for a in range(n):
        for c in range(n):
            H[a, c] = beta * (sb[a] * M[a, c] * sb[c])
        H[a, a] += 1.0
    return cholesky_upper(H)


@njit(cache=True, nogil=True)
def prior_core(b, tau, lam_c, mu1, mu2_sq, bulk, pi, beta):
    """The deterministic equivalent at (B, D = λ_C + μ2²·b) and τ: the state (S, M, P, E = PΛμ1,
    Λμ1, τ-map, V) and whether I + β√B M √B was positive definite."""
    K, n = mu1.shape
    D = np.empty(K)
    S = np.empty(K)
    lam = np.empty(K)
    for j in range(K):
        s = dot(mu2_sq[j], b)
        D[j] = lam_c + s
        S[j] = D[j] + tau[j]
        lam[j] = pi[j] * bulk[j] / S[j]
    M = weighted_gram(mu1, lam)
    sb = np.sqrt(b)
    U, ok = spike_factor(M, sb, beta)
    R = np.empty((n, K))
    for a in range(n):
        for j in range(K):
            R[a, j] = sb[a] * mu1[j, a]
    Y = forward_rows(U, R)
    P = gram_rows(Y)
    tau_map = np.empty(K)
    for j in range(K):
        tau_map[j] = bulk[j] * P[j, j]
    LM = np.empty((K, n))
    for j in range(K):
        for a in range(n):
            LM[j, a] = lam[j] * mu1[j, a]
    E = matmul(P, LM)                                        # P Λ μ1 (K × n)
    s2 = np.zeros(n)
    s3 = np.zeros(n)
    for j in range(K):
        cj = pi[j] / S[j]
        lj = LM[j]
        ej = E[j]
        mj = mu2_sq[j]
        for a in range(n):
            s2[a] += lj[a] * ej[a]
            s3[a] += cj * mj[a]
    V = np.empty(n)
    for a in range(n):
        V[a] = M[a, a] - beta * s2[a] + s3[a]
    return (S, M, P, E, LM, tau_map, V), ok


@njit(cache=True, nogil=True)
def response_map(x, w, ratio, lam_c, mu1, mu2_sq, bulk, pi, beta):
    """(log V, log τ) ↦ (log V-map, log τ-map) with B = diag(w ψ1/ψ2 / (1 + V)); also the state."""
    n = w.shape[0]
    K = bulk.shape[0]
    b = np.empty(n)
    for a in range(n):
        b[a] = w[a] * ratio / (1.0 + math.exp(x[a]))
    tau = np.empty(K)
    for j in range(K):
        tau[j] = math.exp(x[n + j])
    out = np.empty(n + K)
    state, ok = prior_core(b, tau, lam_c, mu1, mu2_sq, bulk, pi, beta)
    if not ok:
        out[:] = math.nan
        return out, state
    _, _, _, _, _, tau_map, V = state
    for a in range(n):
        out[a] = safe_log(V[a])
    for j in range(K):
        out[n + j] = safe_log(tau_map[j])
    return out, state


@njit(cache=True, nogil=True)
def cold_start(w, psi1, psi2, lam_c, mu1, mu2_sq, bulk, pi, beta):
    """The responses at V = 0 and τ = c ∘ diag(μ1 B μ1ᵀ) (the self-energy at M = 0), in logs."""
    K, n = mu1.shape
    b0 = w * psi1 / psi2
    tau0 = np.empty(K)
    for j in range(K):
        s = 0.0
        for a in range(n):
            s += (mu1[j, a] * b0[a]) * mu1[j, a]
        tau0[j] = bulk[j] * s
    (_, _, _, _, _, tau_map, V), ok = prior_core(b0, tau0, lam_c, mu1, mu2_sq, bulk, pi, beta)
    x0 = np.empty(n + K)
    for a in range(n):
        x0[a] = safe_log(V[a]) if ok else 0.0
    for j in range(K):
        x0[n + j] = safe_log(tau_map[j]) if ok else 0.0
    return x0


@njit(cache=True, nogil=True)
def empty_state(n, K):
    """Arrays for the state of one evaluation of the response map: (S, M, P, E, Λμ1, τ-map, V)."""
    return (np.empty(K), np.empty((n, n)), np.empty((K, K)), np.empty((K, n)), np.empty((K, n)), np.empty(K),
            np.empty(n))


@njit(cache=True, nogil=True)
def fixed_point_map(x, g, problem):
    """The Anderson problem (the placeholder of ``anderson.py``): g ← the response map at x; the state
    of this evaluation is copied into the arrays of ``problem``'s last entry (so at a converged solve
    they hold the state at the returned x). ``problem`` = (w, ψ1/ψ2, λ_C, μ1, μ2², c, π, β, state)."""
    w, ratio, lam_c, mu1, mu2_sq, bulk, pi, beta, state = problem
    gx, (S1, M1, P1, E1, LM1, tau_map1, V1) = response_map(x, w, ratio, lam_c, mu1, mu2_sq, bulk, pi, beta)
    S, M, P, E, LM, tau_map, V = state
    g[:] = gx
    S[:] = S1
    M[:, :] = M1
    P[:, :] = P1
    E[:, :] = E1
    LM[:, :] = LM1
    tau_map[:] = tau_map1
    V[:] = V1


@njit(cache=True, nogil=True)
def variance_sources(N, finite, bulk, beta, t_hat, g0):
    """The source on D of the second-order traces: g = β c t̂² (+ N ĝ0² at finite width).
    (The source on B is diag(ŵE/(1+V)) + β y yᵀ with y = B h̃1, applied in the assembly.)"""
    g = beta * bulk * t_hat**2
    if finite:
        g = g + N * g0**2
    return g


@njit(cache=True, nogil=True)
def variance_response(Vop, A1, Psi, LUc, pivc, wS2, bulk, beta, s, y, g):
    """q(κ) = −dV(κ) along B' = diag(s) + β y yᵀ, D' = Σ_a s_a μ2²(κ_a; ·) + g."""
    rhs = matvec(Psi, s)
    q = beta * matvec(Vop**2, s)
    ay = matvec(A1, y)
    rhs = rhs + beta * bulk * ay**2
    vy = beta * matvec(Vop, y)
    q = q + vy**2
    rhs = rhs + g
    dS = lu_solve_vec(LUc, pivc, rhs)
    return q + rmatvec(Psi, wS2 * dS)


@njit(cache=True, nogil=True)
def response_operators(M, E, LM, mu1, beta):
    """At the solution: 𝒱 = M − β (Λμ1)ᵀ P Λμ1 (symmetrised) and A1 = μ1 (I − βTM) = μ1 − β P Λμ1."""
    Vop = M - beta * matmul_tn(LM, E)
    Vop = 0.5 * (Vop + Vop.T)
    A1 = mu1 - beta * E
    return Vop, A1


@njit(cache=True, nogil=True)
def spike_mean(width, sb, S, M, mu0, mu1, kappa, h, pi, beta, rcond):
    """The spike–mean block at width N (``inf``: the limit, mean span cut at ``rcond``):
    (x, ω0, t, t̂, ĝ0, rank, residual, ok)."""
    if math.isinf(width):
        return mean_block_limit(sb, M, mu0, mu1, kappa, h, beta, rcond)
    return mean_block_finite(width, sb, S, M, mu0, mu1, kappa, h, pi, beta)


@njit(cache=True, nogil=True)
def variance_operator(P, S, A1, Vop, mu2_sq, bulk, pi, beta):
    """The variance map 𝓛 = Ψᵀ diag(π/S²)(I − C)⁻¹ Ψ + β 𝒱∘𝒱 with Ψ_ja = c_j A1_ja² + μ2²_ja and
    C_jq = β c_j (π_q c_q/S_q²) P_jq²: (𝓛, LU of I − C, its pivots, Ψ, π/S², ok); ``ok`` is False
    when I − C is singular."""
    K, n = A1.shape
    S2 = S**2
    wS2 = pi / S2
    ImC = np.empty((K, K))
    for j in range(K):
        for q in range(K):
            ImC[j, q] = -beta * bulk[j] * (pi[q] * bulk[q] / S2[q]) * P[j, q] ** 2
        ImC[j, j] += 1.0
    Psi = np.empty((K, n))
    for j in range(K):
        for a in range(n):
            Psi[j, a] = bulk[j] * A1[j, a] ** 2 + mu2_sq[j, a]
    LUc, pivc, ok = lu_factor(ImC)
    if not ok:
        return Vop, LUc, pivc, Psi, wS2, False
    X2 = lu_solve_rows(LUc, pivc, Psi)
    Lmat = beta * Vop**2
    for j in range(K):
        for a in range(n):
            f = Psi[j, a] * wS2[j]
            if f != 0.0:
                for c in range(n):
                    Lmat[a, c] += f * X2[j, c]
    return Lmat, LUc, pivc, Psi, wS2, True


@njit(cache=True, nogil=True)
def symmetric_variance_map(Lmat, b, V):
    """(√W 𝓛 √W, W, √W) with W = B/(1 + V): the symmetric matrix similar to 𝓛 diag(W)."""
    n = b.shape[0]
    Wd = b / (1.0 + V)
    sw = np.sqrt(Wd)
    Ssym = np.empty((n, n))
    for a in range(n):
        for c in range(n):
            Ssym[a, c] = 0.5 * (Lmat[a, c] + Lmat[c, a]) * sw[a] * sw[c]
    return Ssym, Wd, sw


@njit(cache=True, nogil=True)
def solve_variances(Lmat, Ssym, Wd, sw, E0, f_fixed):
    """q = (I − 𝓛W)⁻¹ f, f = 𝓛 W E0 + f_fixed, by push-through: q = f + 𝓛 √W (I − √W𝓛√W)⁻¹ √W f
    (an SPD solve). Returns (q, ok); ``ok`` is False when I − √W𝓛√W is not positive definite."""
    n = E0.shape[0]
    ImS = -Ssym
    for a in range(n):
        ImS[a, a] += 1.0
    Us, ok = cholesky_upper(ImS)
    if not ok:
        return E0, False
    fq = matvec(Lmat, Wd * E0) + f_fixed
    u = spd_solve(Us, sw * fq)
    return fq + matvec(Lmat, sw * u), True


@njit(cache=True, nogil=True)
def equation_residual(solve_resid, V, V_map, tau, tau_map, blk_resid, q, q_chk):
    """The largest scaled violation of the equations at the solution (the response solve's, V and τ
    against their maps, the spike–mean block's, q against its equation) and the scale of q."""
    qscale = max(1.0, np.max(np.abs(q)))
    vscale = max(1.0, np.max(V))
    tres = 0.0
    for j in range(tau.shape[0]):
        tres = max(tres, abs(tau_map[j] - tau[j]) / max(1.0, abs(tau[j])))
    resid = max(solve_resid, np.max(np.abs(V_map - V)) / vscale, tres, blk_resid,
                np.max(np.abs(q_chk - q)) / qscale)
    return resid, qscale


@njit(cache=True, nogil=True)
def assembly_code(risk1, train, q, qscale):
    """The outcome of an assembly that reached the risk: ``ASSEMBLED`` unless a number is not finite
    or a variance is negative."""
    if not (abs(risk1) < math.inf):
        return NONFINITE_RISK
    if not (abs(train) < math.inf):
        return NONFINITE_TRAIN
    if np.any(q < -1e-10 * qscale) or risk1 < -1e-12:
        return NEGATIVE_VARIANCE
    return ASSEMBLED


@njit(cache=True, nogil=True)
def write_vectors(vec, V, q, omega0, t, kappa, psi, E_test):
    """The per-node outputs, in the rows ``ROW_V`` … ``ROW_ERROR``."""
    vec[ROW_V] = V
    vec[ROW_Q] = q
    vec[ROW_OMEGA_BAR] = omega0 + kappa * t
    vec[ROW_OMEGA0] = omega0
    vec[ROW_T] = t
    vec[ROW_PSI] = psi
    vec[ROW_ERROR] = E_test


@njit(cache=True, nogil=True)
def assemble(x, state, solve_resid, w, kappa, mu0, mu1, mu2_sq, h, h1t, h2t, noise_var, bulk, pi, beta, ratio, lam_c,
             width, rcond, min_margin, vec, scal):
    """Every equation at the converged responses x for width N (``inf``: the limit). Fills ``vec``
    (rows ``ROW_V`` … ``ROW_ERROR``) and ``scal`` (``OUT_RISK1`` … ``OUT_CODE``); returns the code."""
    n = mu1.shape[1]
    V = np.exp(x[:n])
    tau = np.exp(x[n:])
    b = w * ratio / (1.0 + V)
    sb = np.sqrt(b)
    S, M, P, E, LM, tau_map, V_map = state
    scal[:] = math.nan
    Vop, A1 = response_operators(M, E, LM, mu1, beta)
    xb, omega0, t, t_hat, g0, rank, blk_resid, ok = spike_mean(width, sb, S, M, mu0, mu1, kappa, h, pi, beta, rcond)
    if not ok:
        scal[OUT_CODE] = SINGULAR_SYSTEM
        return SINGULAR_SYSTEM
    y1 = b * h1t
    psi = beta * matvec(Vop, y1)
    E0 = xb**2 + h2t - h**2 - 2.0 * psi * h1t + noise_var
    g = variance_sources(width, not math.isinf(width), bulk, beta, t_hat, g0)
    Lmat, LUc, pivc, Psi, wS2, ok = variance_operator(P, S, A1, Vop, mu2_sq, bulk, pi, beta)
    if not ok:
        scal[OUT_CODE] = SINGULAR_SYSTEM
        return SINGULAR_SYSTEM
    f_fixed = variance_response(Vop, A1, Psi, LUc, pivc, wS2, bulk, beta, np.zeros(n), y1, g)
    Ssym, Wd, sw = symmetric_variance_map(Lmat, b, V)
    if not np.all(np.isfinite(Ssym)):
        scal[OUT_CODE] = NONFINITE_RISK
        return NONFINITE_RISK
    rad = spectral_radius_symmetric(Ssym)
    scal[OUT_RADIUS] = rad
    if not rad < 1.0 - min_margin:
        scal[OUT_CODE] = UNSTABLE
        return UNSTABLE
    q, ok = solve_variances(Lmat, Ssym, Wd, sw, E0, f_fixed)
    if not ok:
        scal[OUT_CODE] = SINGULAR_SYSTEM
        return SINGULAR_SYSTEM
    E_train = E0 + q
    E_test = E_train - noise_var
    q_chk = variance_response(Vop, A1, Psi, LUc, pivc, wS2, bulk, beta, b * E_train / (1.0 + V), y1, g)
    resid, qscale = equation_residual(solve_resid, V, V_map, tau, tau_map, blk_resid, q, q_chk)
    write_vectors(vec, V, q, omega0, t, kappa, psi, E_test)
    scal[OUT_RISK1] = np.sum(w * E_test)
    scal[OUT_TRAIN] = np.sum(w * (E_train / (1.0 + V) ** 2))
    scal[OUT_SPIKE_ERROR] = np.sum(w * xb**2)
    scal[OUT_MEAN_RANK] = rank
    scal[OUT_RESIDUAL] = resid
    code = assembly_code(scal[OUT_RISK1], scal[OUT_TRAIN], q, qscale)
    scal[OUT_CODE] = code
    return code


@njit(cache=True, nogil=True)
def transfer_types(x, w, ratio, lam_c, mu1, mu2_sq, bulk, pi, beta, mu1_new, bulk_new):
    """A start for new readout types on the same κ nodes: V(κ) kept, τ(u) = c(u) μ1(·; u)ᵀ T μ1(·; u)
    with T = √B (I + β√B M √B)⁻¹ √B of the solution x (one step of the self-energy map)."""
    K, n = mu1.shape
    Kn = bulk_new.shape[0]
    V = np.exp(x[:n])
    b = w * ratio / (1.0 + V)
    sb = np.sqrt(b)
    lam = np.empty(K)
    for j in range(K):
        s = dot(mu2_sq[j], b)
        lam[j] = pi[j] * bulk[j] / (lam_c + s + math.exp(x[n + j]))
    M = weighted_gram(mu1, lam)
    U, ok = spike_factor(M, sb, beta)
    out = np.empty(n + Kn)
    out[:n] = x[:n]
    if not ok:
        out[n:] = math.nan
        return out
    R = np.empty((n, Kn))
    for a in range(n):
        for j in range(Kn):
            R[a, j] = sb[a] * mu1_new[j, a]
    Y = forward_rows(U, R)
    for j in range(Kn):
        s = 0.0
        for a in range(n):
            s += Y[a, j] * Y[a, j]
        out[n + j] = safe_log(bulk_new[j] * s)
    return out


@njit(cache=True, nogil=True)
def solve_path(x_start, start_kind, continuation, w, kappa, mu0, mu1, mu2_sq, h, h1t, h2t, bulk, pi, par, lam_cs,
               widths, atol, rtol, max_steps, rcond, min_margin):
    """The fixed point at every λ_C of ``lam_cs`` (in order) and every width, for one tabulated model.

    ``par`` = (ψ1, ψ2, σ_ε²). Point p starts from ``x_start[p]`` when ``start_kind[p]`` is 1 (as
    given) or 2 (a warm start: retried from the cold start if it fails), else from the previous
    converged point (``continuation``; retried cold likewise), else cold. The widths share the
    response solve; a width after one that assembled reports 1 iteration (the solve restarted at the
    solution passes at once), as the Python driver does.

    Returns (X, status, iterations, residual, vec, scal, width_iterations)."""
    psi1, psi2, noise_var = par[0], par[1], par[2]
    beta = psi2
    ratio = psi1 / psi2
    K, n = mu1.shape
    m = n + K
    npt = lam_cs.shape[0]
    nw = widths.shape[0]
    X = np.empty((npt, m))
    status = np.empty(npt, dtype=np.int64)
    iters = np.empty(npt, dtype=np.int64)
    resid = np.empty(npt)
    vec = np.full((npt, nw, VEC_ROWS, n), math.nan)
    scal = np.full((npt, nw, SCAL_SIZE), math.nan)
    wit = np.empty((npt, nw), dtype=np.int64)
    have = False
    xprev = np.empty(m)
    state = empty_state(n, K)
    options = (atol, rtol, ANDERSON_MIN_STEPS, max_steps, ANDERSON_MEMORY, ANDERSON_DAMPING, ANDERSON_RESTART)
    for p in range(npt):
        lam_c = lam_cs[p]
        warm = False
        if start_kind[p] > 0:
            x0 = x_start[p].copy()
            warm = start_kind[p] == 2
        elif continuation and have:
            x0 = xprev.copy()
            warm = True
        else:
            x0 = cold_start(w, psi1, psi2, lam_c, mu1, mu2_sq, bulk, pi, beta)
        problem = (w, ratio, lam_c, mu1, mu2_sq, bulk, pi, beta, state)
        x = x0
        st, it, resid[p] = anderson_solve(x, problem, options)
        if warm and st != CONVERGED:
            x = cold_start(w, psi1, psi2, lam_c, mu1, mu2_sq, bulk, pi, beta)
            st, it, resid[p] = anderson_solve(x, problem, options)
        X[p] = x
        status[p] = st
        iters[p] = it
        if st == CONVERGED:
            have = True
            xprev[:] = x
        any_ok = False
        for k in range(nw):
            wit[p, k] = 1 if any_ok else it
            if st == CONVERGED:
                code = assemble(x, state, resid[p], w, kappa, mu0, mu1, mu2_sq, h, h1t, h2t, noise_var, bulk,
                                pi, beta, ratio, lam_c, widths[k], rcond, min_margin, vec[p, k], scal[p, k])
                if code == ASSEMBLED:
                    any_ok = True
    return X, status, iters, resid, vec, scal, wit
