r"""Compiled fixed point of the spiked-RF ridge readout: acceleration, assembly, continuation, grids.

This file is a template (:mod:`asymptotics.rendering.templates`):
:func:`~asymptotics.theory.spiked_rf.kernels.solver_kernels` binds its linear algebra to the rendered
``_linalg_template.py``, defines the Marchenko–Pastur moments from the source of :mod:`.prior_mp`
and renders it into the user cache (one
header, named by the hash of its source) so that ``numba.njit(cache=True)`` keeps its machine code
between processes. Everything from the marker line on is copied verbatim.

The mathematics is that of :mod:`asymptotics.theory.spiked_rf.fixed_point` (docs/spiked-rf.md,
"How it is computed"), written as loops over the κ nodes and reproducing the arithmetic of the
plain-numpy functions it replaces:

* the reduced response system x = (log V1, log V2) ↦ log(⟨λ/S⟩, ⟨1/S⟩) for one readout type with
  the Marchenko–Pastur prior (closed-form resolvent moments) or a finite spectrum (sums);
* Anderson acceleration (type II, memory m) of that map with the stagnation guard of
  :class:`asymptotics.solvers.Anderson`: the history is cleared when the residual grows by more
  than ``restart`` over the best one seen, and shortened to its newest pair when the least-squares
  problem is rank deficient or ill-conditioned (σ_min < 10⁻¹² σ_max; singular values by one-sided
  Jacobi); the residual test |r_i| ≤ atol + rtol·|x_i| of :mod:`asymptotics.solvers`;
* the assembly of the solution (:mod:`._solver_assembly`, same file): means (m, t) by the exact
  linear system, ψ explicit, variances by (I − L𝒜)q = La + f with the spectral radius of L𝒜,
  errors, and every equation of the full fixed point evaluated once (the residual);
* continuation along a sorted α path (each solve starts from the last converged one); the kernels
  release the GIL (``nogil``), so :mod:`asymptotics.theory.spiked_rf.grid` runs many curves on
  threads, each curve sequential (results do not depend on the number of threads).

Status codes are those of :class:`asymptotics.solvers.Status`; assembly codes are the
``ASSEMBLY_*`` constants below (the Python wrapper turns them into the library's messages).

**Extension point (mean directions).** The zero-cost mean direction enters through
:func:`mean_directions` only: its 2×2 system (G + diag(0, 1/((α/β)T))) θ = b. A finite-width
theory of the mean directions adds its penalty to the m-block of that matrix (``pen_m``, 0 here)
and its variance source to ``f`` in :func:`assemble_scalar` — both are one-line changes.
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.status import Status

# isort: off
from ._linalg_template import (  # placeholders: bound to the rendered _linalg_template.py
    RUNNING, anderson_iterate, anderson_workspace, lstsq_jacobi, lu_solve, scaled_residual,
    spectral_radius_2x2,
)
# isort: on
from .prior_mp import _moments_beta_le_1, mp_moments  # placeholders: defined by rendering from this source

# ---- kernels (copied into the rendered module) ----

CONVERGED = int(Status.CONVERGED)
MAX_STEPS = int(Status.MAX_STEPS)
NONFINITE = int(Status.NONFINITE)

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


# ---- Marchenko–Pastur resolvent moments and the scalar priors ---------------------------------

# compiled from the plain-Python source of prior_mp.py, rendered above (the one home of the formulas)
_moments_beta_le_1 = njit(**JIT)(_moments_beta_le_1)
mp_moments = njit(**JIT)(mp_moments)


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
def scalar_traces(V1h, V2h, lam, beta, c, kind, eig, F, H, P):
    """Prior traces at the conjugates: returns (V1, V2, T, Hresp) with t = T t̂ and ψ = Hresp ψ̂,
    and the 2×4 second-order map P: (q1, q2) = P (q̂1, q̂2, t̂², ψ̂²) (prior_mp.py)."""
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
def scalar_map(x, out, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n):
    """The reduced response system on logarithms: out = log(responses(conjugates(eˣ)))."""
    V1h, V2h = scalar_conjugates(math.exp(x[0]), math.exp(x[1]), ratio, w, mu1, mu2, n)
    a, b = scalar_responses(V1h, V2h, lam, beta, c, kind, eig)
    out[0] = np.log(a)
    out[1] = np.log(b)


@njit(**JIT)
def scalar_start(x, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n):
    """log of the responses at the conjugates of V = 0 (the start of a solve)."""
    V1h, V2h = scalar_conjugates(0.0, 0.0, ratio, w, mu1, mu2, n)
    a, b = scalar_responses(V1h, V2h, lam, beta, c, kind, eig)
    x[0] = np.log(a)
    x[1] = np.log(b)


@njit(**JIT)
def solve_scalar(x, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n, atol, rtol, min_steps, max_steps,
                 memory, damping, restart):
    """Anderson on the scalar reduced map from x (overwritten with the result). Returns
    (status, iterations, residual) as the Python solver would."""
    g = np.empty(x.shape[0])
    ws = anderson_workspace(memory, x.shape[0])
    for k in range(1, max_steps + 1):
        scalar_map(x, g, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n)
        status, res = anderson_iterate(g, x, ws, k >= min_steps, atol, rtol, memory, damping, restart)
        if status != RUNNING:
            return status, k, res
    return MAX_STEPS, max_steps, scaled_residual(ws[0], x)


# ---- assembly of the solution (one readout type) -----------------------------------------------

@njit(**JIT)
def mean_directions(w, kappa, mu0, mu1, Vk, h, T, n, pen_m):
    """(m, t) of the zero-cost mean direction and the spike overlap, given V(κ) and (α/β)T
    (channel.solve_mean_directions for K = 1; ``pen_m`` is added to the m-block, 0 at p = ∞)."""
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
        lstsq_jacobi(A, b, 1e-13, gam)
        return gam[0], gam[1]
    if keep0:
        theta[0] = b0 / A[0, 0]
    if keep1:
        theta[1] = b1 / A[1, 1]
    return theta[0], theta[1]


@njit(**JIT)
def assemble_scalar(x, ratio, lam, beta, c, noise_var, kind, eig, F, H, w, kappa, mu0, mu1, mu2, h, h1t, h2t,
                    n, out):
    """The full solution at the converged reduced point x (fixed_point._assemble for K = 1) into
    ``out`` (layout OUT_*); returns an ASSEMBLY_* code."""
    V1 = math.exp(x[0])
    V2 = math.exp(x[1])
    Vk = np.empty(n)
    what = np.empty(n)
    for i in range(n):
        Vk[i] = mu1[i] * V1 * mu1[i] + V2 * mu2[i]
        if Vk[i] < 0.0:
            return ASSEMBLY_NEGATIVE_RESPONSE
        what[i] = ratio / (1.0 + Vk[i])
    V1h = 0.0
    V2h = 0.0
    psih = 0.0
    for i in range(n):
        ww = w[i] * what[i]
        V1h += mu1[i] * ww * mu1[i]
        V2h += mu2[i] * ww
        psih += mu1[i] * (w[i] * what[i] * h1t[i])
    if not (lam + V2h > 0.0):
        return ASSEMBLY_SINGULAR_PRIOR
    P = np.empty((2, 4))
    pV1, pV2, T, Hr = scalar_traces(V1h, V2h, lam, beta, c, kind, eig, F, H, P)
    psi = Hr * psih
    m, t = mean_directions(w, kappa, mu0, mu1, Vk, h, ratio * T, n, 0.0)
    omega = np.empty(n)
    E0t = np.empty(n)
    th = 0.0
    for i in range(n):
        omega[i] = m * mu0[i] + kappa[i] * (t * mu1[i])
        th += mu1[i] * (w[i] * (what[i] / ratio) * kappa[i] * (h[i] - omega[i]))
    th = ratio * th
    for i in range(n):
        E0t[i] = h2t[i] + 0.0 - 2.0 * omega[i] * h[i] + omega[i] ** 2 - 2.0 * (psi * mu1[i]) * h1t[i] + 0.0
    # variances: (I − L𝒜) y = L a + f, 𝒜 = B diag(ww) Bᵀ, B = (μ1², μ2²)
    A00 = 0.0
    A01 = 0.0
    A11 = 0.0
    a0 = 0.0
    a1 = 0.0
    for i in range(n):
        ww = w[i] * what[i] / (1.0 + Vk[i])
        b0 = mu1[i] * mu1[i]
        b1 = mu2[i]
        e = ww * (E0t[i] + noise_var)
        a0 += b0 * e
        a1 += b1 * e
        A00 += b0 * ww * b0
        A01 += b0 * ww * b1
        A11 += b1 * ww * b1
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
    y = np.empty(2)
    if not lu_solve(M, rhs, y):
        return ASSEMBLY_SINGULAR
    out[OUT_MARGIN] = 1.0 - rad
    if not (rad < 1.0 - MIN_MARGIN):
        return ASSEMBLY_UNSTABLE
    Q1 = y[0]
    Q2 = y[1]
    Q1h = a0 + (A00 * Q1 + A01 * Q2)
    q2h = a1 + (A01 * Q1 + A11 * Q2)
    eg = 0.0
    et = 0.0
    mres = 0.0
    Qc1 = 0.0
    Qc2 = 0.0
    for i in range(n):
        q = mu1[i] * Q1 * mu1[i] + Q2 * mu2[i]
        Et = E0t[i] + q
        Er = E0t[i] + noise_var + q
        eg += Et * w[i]
        et += (Er / (1.0 + Vk[i]) ** 2) * w[i]
        mres += (mu0[i] * (h[i] - omega[i]) / (1.0 + Vk[i])) * w[i]
        ww = w[i] * what[i] * Er / (1.0 + Vk[i])
        Qc1 += mu1[i] * ww * mu1[i]
        Qc2 += mu2[i] * ww
    # every equation of the full fixed point, evaluated once at the solution
    res = max(abs(pV1 - V1), abs(pV2 - V2))
    res = max(res, abs(t - T * th))
    res = max(res, abs(mres))
    yc0 = P[0, 0] * Qc1 + P[0, 1] * Qc2 + P[0, 2] * th**2 + P[0, 3] * psih**2
    yc1 = P[1, 0] * Qc1 + P[1, 1] * Qc2 + P[1, 2] * th**2 + P[1, 3] * psih**2
    qscale = max(1.0, max(abs(Q1), abs(Q2)))
    res = max(res, max(abs(yc0 - Q1), abs(yc1 - Q2)) / qscale)
    scale = max(1.0, max(abs(V1), abs(V2)))
    out[OUT_RESIDUAL] = max(out[OUT_SOLVER_RESIDUAL], res / scale)
    out[OUT_TEST] = eg
    out[OUT_TRAIN] = et
    out[OUT_V1] = V1
    out[OUT_V2] = V2
    out[OUT_Q1] = Q1
    out[OUT_Q2] = Q2
    out[OUT_M] = m
    out[OUT_T] = t
    out[OUT_PSI] = psi
    out[OUT_V1HAT] = V1h
    out[OUT_V2HAT] = V2h
    out[OUT_Q1HAT] = Q1h
    out[OUT_Q2HAT] = q2h
    out[OUT_THAT] = th
    out[OUT_PSIHAT] = psih
    if not (math.isfinite(eg) and math.isfinite(et)):
        return ASSEMBLY_NONFINITE
    if Q1 < -1e-12 or Q2 < -1e-12 or eg < -1e-12:
        return ASSEMBLY_NEGATIVE_VARIANCE
    return ASSEMBLY_OK


# ---- continuation along α and grids of curves --------------------------------------------------

@njit(**JIT)
def solve_curve_scalar(alphas, beta, lam, c, noise_var, kind, eig, F, H, w, kappa, mu0, mu1, mu2, h, h1t, h2t,
                       n, x0, has_start, atol, rtol, min_steps, max_steps, memory, damping, restart, out, iout):
    """Solve and assemble along ``alphas`` (in the order given, normally increasing): each solve
    starts from the last converged reduced point (``x0`` when ``has_start``, else the start of
    the first solve). Rows of ``out`` (N_OUT) and ``iout`` (N_IOUT) per point."""
    x = np.empty(2)
    start = np.empty(2)
    have = has_start
    if have:
        start[0] = x0[0]
        start[1] = x0[1]
    for p in range(alphas.shape[0]):
        ratio = alphas[p] / beta
        if have:
            x[0] = start[0]
            x[1] = start[1]
        else:
            scalar_start(x, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n)
        status, its, resid = solve_scalar(x, ratio, lam, beta, c, kind, eig, w, mu1, mu2, n, atol, rtol,
                                          min_steps, max_steps, memory, damping, restart)
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
            iout[p, 2] = assemble_scalar(x, ratio, lam, beta, c, noise_var, kind, eig, F, H, w, kappa, mu0, mu1,
                                         mu2, h, h1t, h2t, n, out[p])

