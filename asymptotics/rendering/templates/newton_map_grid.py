r"""Template: the grid loops of an elementwise Newton map for two positive unknowns.

:func:`asymptotics.codegen.newton_map.render_newton_map` renders, from a system
F(g; p) = 0 with two unknowns g = (g_0, g_1) > 0, the per-point placeholders below and copies
the loops from the marker line on (see :mod:`asymptotics.rendering.templates`):

``log_newton_step(U, P, i)`` → (Δ_0, Δ_1)
    the Newton step in the log-unknowns u = log g at grid point i (column i of U, row i of P):
    J_u Δ = F with J_u = ∂F/∂u = J·diag(g), the 2×2 solve written out (Cramer);
``finish_point(U, P, i, Y)`` → residual
    at the solution: the outputs into row i of Y and the residual max_k |F_k|/max(1, s_k), with
    s_k = Σ |terms of F_k| (the stopping rule of :mod:`asymptotics.rendering.templates.system_solvers`).

The loops: ``newton_map(U, P)`` takes ONE step at every point, u ← u − clip(Δ) with each
component clipped to |Δ| ≤ CLIP (so that g = eᵘ stays positive — the Stieltjes branch — and a
bad start cannot jump far); the iteration to convergence is
:func:`asymptotics.solvers.fixed_point` (the project's solver loop, which tests every component).
``finish(U, P)`` → (Y, R) evaluates :func:`finish_point` at every point. Allocation-free: ~30 ns
per point and step for route C's equations.

The placeholders are a reference system with a closed form, solved by the tests when this file
is imported directly: F_0 = g_0² − p_0, F_1 = g_0 g_1 − p_1 (g_0 = √p_0, g_1 = p_1/√p_0), outputs
(g_0 g_1).
"""

import math

import numpy as np
from numba import njit

N_OUTPUTS = 1  # placeholder: the number of outputs


def log_newton_step(U, P, i):  # placeholder: the Newton step in log-unknowns at point i
    g0 = math.exp(U[0, i])
    g1 = math.exp(U[1, i])
    f0 = g0**2 - P[i, 0]
    f1 = g0 * g1 - P[i, 1]
    a = 2.0 * g0 * g0
    b = 0.0
    c = g1 * g0
    d = g0 * g1
    det = a * d - b * c
    return (d * f0 - b * f1) / det, (a * f1 - c * f0) / det


def finish_point(U, P, i, Y):  # placeholder: outputs into Y[i] and the scaled residual
    g0 = math.exp(U[0, i])
    g1 = math.exp(U[1, i])
    Y[i, 0] = g0 * g1
    r0 = abs(g0**2 - P[i, 0]) / max(1.0, abs(g0**2) + abs(P[i, 0]))
    r1 = abs(g0 * g1 - P[i, 1]) / max(1.0, abs(g0 * g1) + abs(P[i, 1]))
    return max(r0, r1)


# ---- kernels (copied into the rendered module) ----


#: Largest log-step per iteration (a factor e² on each unknown).
CLIP = 2.0

# the per-point functions (rendered above as plain Python) compiled for use by the loops
log_newton_step = njit(cache=True, inline="always")(log_newton_step)
finish_point = njit(cache=True, inline="always")(finish_point)


@njit(cache=True)
def newton_map(U, P):
    """One clipped Newton step in the log-unknowns at every grid point (U: 2 × n, P: n × n_params)."""
    out = np.empty_like(U)
    for i in range(U.shape[1]):
        s0, s1 = log_newton_step(U, P, i)
        s0 = min(CLIP, max(-CLIP, s0))
        s1 = min(CLIP, max(-CLIP, s1))
        out[0, i] = U[0, i] - s0
        out[1, i] = U[1, i] - s1
    return out


@njit(cache=True)
def finish(U, P):
    """``(Y, R)``: the outputs (n × N_OUTPUTS) and the scaled residual (n) at every grid point."""
    Y = np.empty((U.shape[1], N_OUTPUTS))
    R = np.empty(U.shape[1])
    for i in range(U.shape[1]):
        R[i] = finish_point(U, P, i, Y)
    return Y, R
