r"""Compiled fixed point of the spiked-RF ridge readout: the problem of the Anderson solve, assembly, continuation.

This file is a template (:mod:`asymptotics.rendering.templates`):
:func:`~asymptotics.theory.spiked_rf.kernels.solver_kernels` renders it into the user cache (one
header, named by the hash of its source, so that ``numba.njit(cache=True)`` keeps its machine code
between processes) with the numerics templates ``dense_linalg.py`` and ``anderson.py``
*included* and the Marchenko–Pastur resolvent moments ``mp_moments`` bound to the numerics layer's
compiled ones (:func:`asymptotics.numerics.marchenko_pastur_numba.mp_moments_nb`).
Everything from the marker line on is copied verbatim.

The mathematics is that of :mod:`asymptotics.theory.spiked_rf.fixed_point` (docs/spiked-rf.md,
"How it is computed"), written as loops over the κ nodes and reproducing the arithmetic of the
plain-numpy functions it replaces:

* the *problem* handed to the one compiled Anderson solve (``asymptotics/numerics/templates/anderson.py``:
  type II with its restart and history guards and the residual test |r_i| ≤ atol + rtol·|x_i|):
  the map :func:`fixed_point_map`, the reduced response system x = (log V1, log V2) ↦
  log(⟨λ/S⟩, ⟨1/S⟩) for one readout type with the Marchenko–Pastur prior (closed-form resolvent
  moments) or a finite spectrum (sums), and its start :func:`scalar_start`;
* the assembly of the solution: means (m, t) by the exact linear system (:func:`mean_directions`),
  ψ explicit, variances by (I − L𝒜)q = La + f with the spectral radius of L𝒜
  (:func:`solve_variances`), errors, and every equation of the full fixed point evaluated once
  (:func:`full_residual`);
* continuation along a sorted α path (each solve starts from the last converged one); the kernels
  release the GIL (``nogil``), so :mod:`asymptotics.theory.spiked_rf.grid` runs many curves on
  threads, each curve sequential (results do not depend on the number of threads).

Status codes are those of :class:`asymptotics.numerics.status.Status`; assembly codes are the
``ASSEMBLY_*`` constants below (the Python wrapper turns them into the library's messages).

**Extension point (mean directions).** The zero-cost mean direction enters through
:func:`mean_directions` only: its 2×2 system (G + diag(0, 1/((α/β)T))) θ = b. A finite-width
theory of the mean directions adds its penalty to the m-block of that matrix (``pen_m``, 0 here)
and its variance source to ``f`` in :func:`solve_variances` — both are one-line changes.
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.status import Status

from ...numerics.marchenko_pastur_numba import mp_moments_nb as mp_moments  # placeholder: bound by rendering

# placeholders: included by rendering (the numerics templates)
from ...numerics.templates.anderson import anderson_solve
from ...numerics.templates.dense_linalg import lstsq_min_norm, lu_solve, spectral_radius_2x2

# ---- kernels (copied into the rendered module) ----

CONVERGED = int(Status.CONVERGED)

#: assembly outcomes (0: a solution; otherwise the reason there is none)
ASSEMBLY_OK = 0
ASSEMBLY_NEGATIVE_RESPONSE = 1
ASSEMBLY_UNSTABLE = 2
ASSEMBLY_NONFINITE = 3
ASSEMBLY_NEGATIVE_VARIANCE = 4
ASSEMBLY_SINGULAR = 5
ASSEMBLY_SINGULAR_PRIOR = 6
ASSEMBLY_NOT_RUN = 7

#: layout of one assembled point (row of the float output)
OUT_TEST, OUT_TRAIN, OUT_V1, OUT_V2, OUT_Q1, OUT_Q2, OUT_M, OUT_T, OUT_PSI = 0, 1, 2, 3, 4, 5, 6, 7, 8
OUT_V1HAT, OUT_V2HAT, OUT_Q1HAT, OUT_Q2HAT, OUT_THAT, OUT_PSIHAT = 9, 10, 11, 12, 13, 14
OUT_RESIDUAL, OUT_MARGIN, OUT_X0, OUT_X1, OUT_SOLVER_RESIDUAL = 15, 16, 17, 18, 19
N_OUT = 20
#: layout of the integer output: solver status, iterations, assembly code
N_IOUT = 3

#: smallest accepted 1 − (spectral radius of the variance map) (MIN_STABILITY_MARGIN of fixed_point.py)
MIN_MARGIN = 1e-8

JIT = dict(cache=True, nogil=True, error_model="numpy")


# ---- the scalar priors (mp_moments: the numerics layer's compiled Marchenko–Pastur moments) -------


@njit(**JIT)
def scalar_conjugates(V1, V2, ratio, w, mu1, mu2, n):
    """(V̂1, V̂2) = (α/β)(E[μ1² ŵ], E[μ2² ŵ]), ŵ = 1/(1 + μ1²V1 + μ2²V2) (one readout type)."""
    s1 = 0.0
    s2 = 0.0
    for i in range(n):
        m1sq = mu1[i] * mu1[i]
        inv = w[i] / (1.0 + m1sq * V1 + mu2[i] * V2)
        s1 += m1sq * inv
        s2 += mu2[i] * inv
    return ratio * s1, ratio * s2


@njit(**JIT)
def scalar_responses(V1h, V2h, lam, beta, c, kind, eig):
    """(⟨λ/S⟩, ⟨1/S⟩) at the conjugates: MP closed form (kind 0) or finite sums (kind 1)."""
    if kind == 0:
        s0 = lam + V2h
        A0, A1, _, _, _ = mp_moments(V1h * c / s0, beta)
        return c * A1 / s0, A0 / s0
    p = eig.shape[0]
    a = 0.0
    b = 0.0
    for i in range(p):
        S = lam + V2h + V1h * eig[i]
        a += eig[i] / S
        b += 1.0 / S
    return a / p, b / p


@njit(**JIT)
def scalar_traces(V1h, V2h, lam, beta, c, prior, P):
    """Prior traces at the conjugates: returns (V1, V2, T, Hresp) with t = T t̂ and ψ = Hresp ψ̂,
    and the 2×4 second-order map P: (q1, q2) = P (q̂1, q̂2, t̂², ψ̂²) (prior_mp.py); ``prior`` =
    (kind, eigenvalues, F, H)."""
    kind, eig, F, H = prior
    if kind == 0:
        s0 = lam + V2h
        A0, A1, B0, B1, B2 = mp_moments(V1h * c / s0, beta)
        V2 = A0 / s0
        V1 = c * A1 / s0
        I0 = B0 / s0**2
        I1 = c * B1 / s0**2
        I2 = c * c * B2 / s0**2
        P[0, 0] = I2
        P[0, 1] = I1
        P[0, 2] = beta * c * I1
        P[0, 3] = beta * I2
        P[1, 0] = I1
        P[1, 1] = I0
        P[1, 2] = beta * c * I0
        P[1, 3] = beta * I1
        return V1, V2, beta * c * V2, beta * V1
    p = eig.shape[0]
    acc = np.zeros(12)
    for i in range(p):
        lm = eig[i]
        iS = 1.0 / (lam + V2h + V1h * lm)
        iS2 = iS * iS
        acc[0] += lm * iS
        acc[1] += iS
        acc[2] += lm * lm * iS2
        acc[3] += lm * iS2
        acc[4] += lm * F[i] * iS2
        acc[5] += lm * H[i] * iS2
        acc[6] += iS2
        acc[7] += F[i] * iS2
        acc[8] += H[i] * iS2
        acc[9] += F[i] * iS
        acc[10] += H[i] * iS
    P[0, 0] = acc[2] / p
    P[0, 1] = acc[3] / p
    P[0, 2] = acc[4] / p
    P[0, 3] = acc[5] / p
    P[1, 0] = acc[3] / p
    P[1, 1] = acc[6] / p
    P[1, 2] = acc[7] / p
    P[1, 3] = acc[8] / p
    return acc[0] / p, acc[1] / p, acc[9] / p, acc[10] / p


@njit(**JIT)
def fixed_point_map(x, g, problem):
    """The reduced response system on logarithms, g = log(responses(conjugates(eˣ))): the map of
    the Anderson solve (``anderson.py``). ``problem`` = (α/β, λ, β, c, prior kind, eigenvalues,
    w, μ1, μ2²) (:func:`scalar_problem`)."""
    ratio, lam, beta, c, kind, eig, w, mu1, mu2 = problem
    V1h, V2h = scalar_conjugates(math.exp(x[0]), math.exp(x[1]), ratio, w, mu1, mu2, w.shape[0])
    a, b = scalar_responses(V1h, V2h, lam, beta, c, kind, eig)
    g[0] = np.log(a)
    g[1] = np.log(b)


@njit(**JIT)
def scalar_problem(ratio, lam, beta, tables, prior):
    """The problem of :func:`fixed_point_map` at α/β = ``ratio`` for the channel ``tables`` and the
    ``prior`` (layouts in :func:`solve_curve_scalar`)."""
    w, _, _, mu1, mu2, _, _, _, c, _ = tables
    kind, eig, _, _ = prior
    return ratio, lam, beta, c, kind, eig, w, mu1, mu2


@njit(**JIT)
def scalar_start(x, problem):
    """log of the responses at the conjugates of V = 0 (the start of a solve)."""
    ratio, lam, beta, c, kind, eig, w, mu1, mu2 = problem
    V1h, V2h = scalar_conjugates(0.0, 0.0, ratio, w, mu1, mu2, w.shape[0])
    a, b = scalar_responses(V1h, V2h, lam, beta, c, kind, eig)
    x[0] = np.log(a)
    x[1] = np.log(b)


# ---- assembly of the solution (one readout type) -----------------------------------------------

@njit(**JIT)
def mean_directions(tables, Vk, T, pen_m):
    """(m, t) of the zero-cost mean direction and the spike overlap, given V(κ) and (α/β)T
    (channel.solve_mean_directions for K = 1; ``pen_m`` is added to the m-block, 0 at p = ∞)."""
    w, kappa, mu0, mu1, _, h, _, _, _, _ = tables
    n = w.shape[0]
    G00 = 0.0
    G01 = 0.0
    G11 = 0.0
    b0 = 0.0
    b1 = 0.0
    for i in range(n):
        wi = w[i] / (1.0 + Vk[i])
        f0 = mu0[i]
        f1 = kappa[i] * mu1[i]
        G00 += f0 * wi * f0
        G01 += f0 * wi * f1
        G11 += f1 * wi * f1
        b0 += f0 * (wi * h[i])
        b1 += f1 * (wi * h[i])
    pen = 1.0 / T if T > 0.0 else np.inf
    A = np.empty((2, 2))
    A[0, 0] = G00 + pen_m
    A[0, 1] = G01
    A[1, 0] = G01
    A[1, 1] = G11 + pen
    b = np.empty(2)
    b[0] = b0
    b[1] = b1
    d0 = A[0, 0]
    d1 = A[1, 1]
    keep0 = math.isfinite(d0)
    keep1 = math.isfinite(d1)
    big = 0.0
    if keep0:
        big = max(big, abs(d0))
    if keep1:
        big = max(big, abs(d1))
    big = max(big, 1e-300)
    keep0 = keep0 and abs(d0) > 1e-14 * big
    keep1 = keep1 and abs(d1) > 1e-14 * big
    theta = np.zeros(2)
    if keep0 and keep1:
        x = np.empty(2)
        if lu_solve(A, b, x):
            bmax = max(abs(b0), abs(b1))
            good = True
            for i in range(2):
                lhs = A[i, 0] * x[0] + A[i, 1] * x[1]
                if not (math.isfinite(x[i]) and abs(lhs - b[i]) <= 1e-14 * bmax + 1e-10 * abs(b[i])):
                    good = False
            if good:
                return x[0], x[1]
        gam = np.empty(2)
        lstsq_min_norm(A, b, 1e-13, gam)
        return gam[0], gam[1]
    if keep0:
        theta[0] = b0 / A[0, 0]
    if keep1:
        theta[1] = b1 / A[1, 1]
    return theta[0], theta[1]


@njit(**JIT)
def channel_conjugates(V1, V2, ratio, tables, Vk, what):
    """V(κ) = μ1²V1 + μ2²V2 and ŵ = (α/β)/(1 + V(κ)) into ``Vk``, ``what``; returns
    (V̂1, V̂2, ψ̂, whether every V(κ) ≥ 0)."""
    w, _, _, mu1, mu2, _, h1t, _, _, _ = tables
    n = w.shape[0]
    for i in range(n):
        Vk[i] = mu1[i] * V1 * mu1[i] + V2 * mu2[i]
        if Vk[i] < 0.0:
            return 0.0, 0.0, 0.0, False
        what[i] = ratio / (1.0 + Vk[i])
    V1h = 0.0
    V2h = 0.0
    psih = 0.0
    for i in range(n):
        ww = w[i] * what[i]
        V1h += mu1[i] * ww * mu1[i]
        V2h += mu2[i] * ww
        psih += mu1[i] * (w[i] * what[i] * h1t[i])
    return V1h, V2h, psih, True


@njit(**JIT)
def mean_errors(m, t, psi, ratio, tables, what, omega, E0t):
    """The mean prediction ω(κ) = m μ0 + κ t μ1 and the mean part of the conditional error
    E0(κ) = h̃2 − 2ωh + ω² − 2ψμ1h̃1 into ``omega``, ``E0t``; returns t̂."""
    w, kappa, mu0, mu1, _, h, h1t, h2t, _, _ = tables
    n = w.shape[0]
    th = 0.0
    for i in range(n):
        omega[i] = m * mu0[i] + kappa[i] * (t * mu1[i])
        th += mu1[i] * (w[i] * (what[i] / ratio) * kappa[i] * (h[i] - omega[i]))
    th = ratio * th
    for i in range(n):
        E0t[i] = h2t[i] + 0.0 - 2.0 * omega[i] * h[i] + omega[i] ** 2 - 2.0 * (psi * mu1[i]) * h1t[i] + 0.0
    return th


@njit(**JIT)
def variance_channel(tables, Vk, what, E0t):
    """The channel's part of the variance equations: 𝒜 = B diag(ww) Bᵀ (B = (μ1², μ2²),
    ww = wŵ/(1 + V)) and a = B (ww (E0 + σ_ε²)); returns (𝒜00, 𝒜01, 𝒜11, a0, a1)."""
    w, _, _, mu1, mu2, _, _, _, _, noise_var = tables
    A00 = 0.0
    A01 = 0.0
    A11 = 0.0
    a0 = 0.0
    a1 = 0.0
    for i in range(w.shape[0]):
        ww = w[i] * what[i] / (1.0 + Vk[i])
        b0 = mu1[i] * mu1[i]
        b1 = mu2[i]
        e = ww * (E0t[i] + noise_var)
        a0 += b0 * e
        a1 += b1 * e
        A00 += b0 * ww * b0
        A01 += b0 * ww * b1
        A11 += b1 * ww * b1
    return A00, A01, A11, a0, a1


@njit(**JIT)
def solve_variances(P, chan, th, psih, y):
    """(I − L𝒜) y = L a + f with L = P[:, :2], f = P[:, 2:] (t̂², ψ̂²) and ``chan`` =
    :func:`variance_channel`; returns (the spectral radius of L𝒜, whether the system was solved)."""
    A00, A01, A11, a0, a1 = chan
    LA00 = P[0, 0] * A00 + P[0, 1] * A01
    LA01 = P[0, 0] * A01 + P[0, 1] * A11
    LA10 = P[1, 0] * A00 + P[1, 1] * A01
    LA11 = P[1, 0] * A01 + P[1, 1] * A11
    rad = spectral_radius_2x2(LA00, LA01, LA10, LA11)
    M = np.empty((2, 2))
    M[0, 0] = 1.0 - LA00
    M[0, 1] = -LA01
    M[1, 0] = -LA10
    M[1, 1] = 1.0 - LA11
    rhs = np.empty(2)
    rhs[0] = (P[0, 0] * a0 + P[0, 1] * a1) + (P[0, 2] * th**2 + P[0, 3] * psih**2)
    rhs[1] = (P[1, 0] * a0 + P[1, 1] * a1) + (P[1, 2] * th**2 + P[1, 3] * psih**2)
    return rad, lu_solve(M, rhs, y)


@njit(**JIT)
def errors_and_variance_check(Q1, Q2, tables, Vk, what, omega, E0t):
    """(ε_g, ε_t, the mean equation's residual, Q̂1 and q̂2 recomputed from the errors) at the
    variances (Q1, Q2)."""
    w, _, mu0, mu1, mu2, h, _, _, _, noise_var = tables
    eg = 0.0
    et = 0.0
    mres = 0.0
    Qc1 = 0.0
    Qc2 = 0.0
    for i in range(w.shape[0]):
        q = mu1[i] * Q1 * mu1[i] + Q2 * mu2[i]
        Et = E0t[i] + q
        Er = E0t[i] + noise_var + q
        eg += Et * w[i]
        et += (Er / (1.0 + Vk[i]) ** 2) * w[i]
        mres += (mu0[i] * (h[i] - omega[i]) / (1.0 + Vk[i])) * w[i]
        ww = w[i] * what[i] * Er / (1.0 + Vk[i])
        Qc1 += mu1[i] * ww * mu1[i]
        Qc2 += mu2[i] * ww
    return eg, et, mres, Qc1, Qc2


@njit(**JIT)
def full_residual(resp, means, var_check, P, Q1, Q2, th, psih):
    """Every equation of the full fixed point at the solution, scaled: the responses ``resp`` =
    (prior V1, V2, solved V1, V2), the spike overlap ``means`` = (t, T), the mean equation and the
    variances (``var_check`` of :func:`errors_and_variance_check`)."""
    pV1, pV2, V1, V2 = resp
    t, T = means
    _, _, mres, Qc1, Qc2 = var_check
    res = max(abs(pV1 - V1), abs(pV2 - V2))
    res = max(res, abs(t - T * th))
    res = max(res, abs(mres))
    yc0 = P[0, 0] * Qc1 + P[0, 1] * Qc2 + P[0, 2] * th**2 + P[0, 3] * psih**2
    yc1 = P[1, 0] * Qc1 + P[1, 1] * Qc2 + P[1, 2] * th**2 + P[1, 3] * psih**2
    qscale = max(1.0, max(abs(Q1), abs(Q2)))
    res = max(res, max(abs(yc0 - Q1), abs(yc1 - Q2)) / qscale)
    scale = max(1.0, max(abs(V1), abs(V2)))
    return res / scale


@njit(**JIT)
def write_solution(out, order, conj, chan, var_check, Q1, Q2, th):
    """The row of one assembled point (layout OUT_*): ``order`` = (V1, V2, m, t, ψ), ``conj`` =
    (V̂1, V̂2, ψ̂), the variance conjugates Q̂1 = a0 + 𝒜00Q1 + 𝒜01Q2, q̂2 = a1 + 𝒜01Q1 + 𝒜11Q2."""
    V1, V2, m, t, psi = order
    V1h, V2h, psih = conj
    A00, A01, A11, a0, a1 = chan
    out[OUT_TEST] = var_check[0]
    out[OUT_TRAIN] = var_check[1]
    out[OUT_V1] = V1
    out[OUT_V2] = V2
    out[OUT_Q1] = Q1
    out[OUT_Q2] = Q2
    out[OUT_M] = m
    out[OUT_T] = t
    out[OUT_PSI] = psi
    out[OUT_V1HAT] = V1h
    out[OUT_V2HAT] = V2h
    out[OUT_Q1HAT] = a0 + (A00 * Q1 + A01 * Q2)
    out[OUT_Q2HAT] = a1 + (A01 * Q1 + A11 * Q2)
    out[OUT_THAT] = th
    out[OUT_PSIHAT] = psih


@njit(**JIT)
def assemble_scalar(x, ratio, lam, beta, tables, prior, out):
    """The full solution at the converged reduced point x (fixed_point._assemble for K = 1) into
    ``out`` (layout OUT_*); returns an ASSEMBLY_* code."""
    c = tables[8]
    n = tables[0].shape[0]
    V1 = math.exp(x[0])
    V2 = math.exp(x[1])
    Vk = np.empty(n)
    what = np.empty(n)
    V1h, V2h, psih, positive = channel_conjugates(V1, V2, ratio, tables, Vk, what)
    if not positive:
        return ASSEMBLY_NEGATIVE_RESPONSE
    if not (lam + V2h > 0.0):
        return ASSEMBLY_SINGULAR_PRIOR
    P = np.empty((2, 4))
    pV1, pV2, T, Hr = scalar_traces(V1h, V2h, lam, beta, c, prior, P)
    psi = Hr * psih
    m, t = mean_directions(tables, Vk, ratio * T, 0.0)
    omega = np.empty(n)
    E0t = np.empty(n)
    th = mean_errors(m, t, psi, ratio, tables, what, omega, E0t)
    chan = variance_channel(tables, Vk, what, E0t)
    y = np.empty(2)
    rad, solved = solve_variances(P, chan, th, psih, y)
    if not solved:
        return ASSEMBLY_SINGULAR
    out[OUT_MARGIN] = 1.0 - rad
    if not (rad < 1.0 - MIN_MARGIN):
        return ASSEMBLY_UNSTABLE
    Q1 = y[0]
    Q2 = y[1]
    var_check = errors_and_variance_check(Q1, Q2, tables, Vk, what, omega, E0t)
    res = full_residual((pV1, pV2, V1, V2), (t, T), var_check, P, Q1, Q2, th, psih)
    out[OUT_RESIDUAL] = max(out[OUT_SOLVER_RESIDUAL], res)
    write_solution(out, (V1, V2, m, t, psi), (V1h, V2h, psih), chan, var_check, Q1, Q2, th)
    eg = var_check[0]
    if not (math.isfinite(eg) and math.isfinite(var_check[1])):
        return ASSEMBLY_NONFINITE
    if Q1 < -1e-12 or Q2 < -1e-12 or eg < -1e-12:
        return ASSEMBLY_NEGATIVE_VARIANCE
    return ASSEMBLY_OK


# ---- continuation along α and grids of curves --------------------------------------------------

@njit(**JIT)
def solve_curve_scalar(alphas, beta, lam, tables, prior, x0, has_start, options, out, iout):
    """Solve and assemble along ``alphas`` (in the order given, normally increasing): each solve
    starts from the last converged reduced point (``x0`` when ``has_start``, else the start of
    the first solve). Rows of ``out`` (N_OUT) and ``iout`` (N_IOUT) per point.

    Named inputs: ``tables`` = (w, κ, μ0, μ1, μ2², h, h̃1, h̃2, c, σ_ε²) (the channel on the κ
    nodes, :class:`~asymptotics.theory.spiked_rf.compiled.KernelTables`), ``prior`` = (kind: 0 MP,
    1 finite; eigenvalues λ_i, F_i, H_i of a finite spectrum), ``options`` = the Anderson options
    (atol, rtol, min_steps, max_steps, memory, damping, restart)."""
    x = np.empty(2)
    start = np.empty(2)
    have = has_start
    if have:
        start[0] = x0[0]
        start[1] = x0[1]
    for p in range(alphas.shape[0]):
        ratio = alphas[p] / beta
        problem = scalar_problem(ratio, lam, beta, tables, prior)
        if have:
            x[0] = start[0]
            x[1] = start[1]
        else:
            scalar_start(x, problem)
        status, its, resid = anderson_solve(x, problem, options)
        for j in range(N_OUT):
            out[p, j] = np.nan
        out[p, OUT_X0] = x[0]
        out[p, OUT_X1] = x[1]
        out[p, OUT_SOLVER_RESIDUAL] = resid
        iout[p, 0] = status
        iout[p, 1] = its
        iout[p, 2] = ASSEMBLY_NOT_RUN
        if status == CONVERGED:
            start[0] = x[0]
            start[1] = x[1]
            have = True
            iout[p, 2] = assemble_scalar(x, ratio, lam, beta, tables, prior, out[p])
