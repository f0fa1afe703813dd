r"""Template: an elementwise Newton map for two positive unknowns, over a grid.

:func:`asymptotics.codegen.newton_map.render_newton_map` renders, from a system
F(g; p) = 0 with two unknowns g = (g_0, g_1) > 0 and (optionally) a source parameter s, the
per-point *expressions* below — printed from sympy, nothing else — and copies the algorithm from
the marker line on (see :mod:`asymptotics.rendering.templates`):

``newton_terms(g0, g1, P, i)`` → (F_0, F_1, J_00, J_01, J_10, J_11)
    the equations and their Jacobian J = ∂F/∂g at g and row i of P;
``finish_terms(g0, g1, P, i)`` → (F, J, ∂F/∂s) (eight numbers; ∂F/∂s = 0 without a source);
``term_sizes(g0, g1, P, i)`` → (s_0, s_1)
    s_k = Σ |terms of F_k| (the stopping rule of :mod:`asymptotics.numerics.templates.newton`);
``point_outputs(g0, g1, t0, t1, P, i, Y)``
    the outputs into row i of Y, given the tangents t = dg/ds.

The algorithm (written once, here):

* ``log_newton_step(U, P, i)``: the Newton step in the log-unknowns u = log g (positivity built
  in), J_u Δ = F with J_u = ∂F/∂u = J·diag(g), solved by Cramer's rule (:func:`solve_2x2`);
* ``newton_map(U, P)`` takes ONE step at every point, u ← u − clip(Δ) with each component
  clipped to |Δ| ≤ CLIP (so that a bad start cannot jump far); the iteration to convergence is
  :func:`asymptotics.solvers.fixed_point` (the project's solver loop, which tests every component);
* ``finish_point(U, P, i, Y)``: at the solution, the tangents by the implicit function theorem,
  J g' = −∂F/∂s (the same 2×2 solve), the outputs, and the residual max_k |F_k|/max(1, s_k);
  ``finish(U, P)`` → (Y, R) at every point. Allocation-free: ~30 ns per point and step for route
  C's equations.

The placeholders are a reference system with a closed form, solved by the tests when this file
is imported directly: F_0 = g_0² − p_0 − s, F_1 = g_0 g_1 − p_1 (g_0 = √p_0, g_1 = p_1/√p_0,
dg_0/ds = 1/(2g_0)), outputs (g_0 g_1, dg_0/ds).
"""

import math

import numpy
from numba import njit

N_OUTPUTS = 2  # placeholder: the number of outputs


def newton_terms(g0, g1, P, i):  # placeholder: F and J = ∂F/∂g at the point
    return g0**2 - P[i, 0], g0 * g1 - P[i, 1], 2.0 * g0, 0.0, g1, g0


def finish_terms(g0, g1, P, i):  # placeholder: F, J and ∂F/∂s at the point
    return g0**2 - P[i, 0], g0 * g1 - P[i, 1], 2.0 * g0, 0.0, g1, g0, -1.0, 0.0


def term_sizes(g0, g1, P, i):  # placeholder: the size of the terms of each equation
    return abs(g0**2) + abs(P[i, 0]), abs(g0 * g1) + abs(P[i, 1])


def point_outputs(g0, g1, t0, t1, P, i, Y):  # placeholder: the outputs into Y[i] (t: the tangents)
    Y[i, 0] = g0 * g1
    Y[i, 1] = t0


# ---- kernels (copied into the rendered module) ----


#: Largest log-step per iteration (a factor e² on each unknown).
CLIP = 2.0

# the per-point expressions (rendered above as plain Python) compiled for use by the kernels
newton_terms = njit(cache=True, inline="always")(newton_terms)
finish_terms = njit(cache=True, inline="always")(finish_terms)
term_sizes = njit(cache=True, inline="always")(term_sizes)
point_outputs = njit(cache=True, inline="always")(point_outputs)


@njit(cache=True, inline="always")
def solve_2x2(a, b, c, d, f0, f1):
    """x with [[a, b], [c, d]] x = f, by Cramer's rule: x = (d f_0 − b f_1, a f_1 − c f_0)/(ad − bc)."""
    det = a * d - b * c
    return (d * f0 - b * f1) / det, (a * f1 - c * f0) / det


@njit(cache=True, inline="always")
def log_newton_step(U, P, i):
    """Δ = J_u⁻¹F at point i, in the log-unknowns (J_u = J·diag(g), g = exp(U[:, i]))."""
    g0 = math.exp(U[0, i])
    g1 = math.exp(U[1, i])
    f0, f1, j00, j01, j10, j11 = newton_terms(g0, g1, P, i)
    return solve_2x2(j00 * g0, j01 * g1, j10 * g0, j11 * g1, f0, f1)


@njit(cache=True, inline="always")
def finish_point(U, P, i, Y):
    """At the solution of point i: the tangents J g' = −∂F/∂s, the outputs into Y[i], and the
    residual max_k |F_k|/max(1, s_k)."""
    g0 = math.exp(U[0, i])
    g1 = math.exp(U[1, i])
    f0, f1, a, b, c, d, e0, e1 = finish_terms(g0, g1, P, i)
    t0, t1 = solve_2x2(a, b, c, d, e0, e1)
    point_outputs(g0, g1, -t0, -t1, P, i, Y)
    s0, s1 = term_sizes(g0, g1, P, i)
    return max(abs(f0) / max(1.0, s0), abs(f1) / max(1.0, s1))


@njit(cache=True)
def newton_map(U, P):
    """One clipped Newton step in the log-unknowns at every grid point (U: 2 × n, P: n × n_params)."""
    out = numpy.empty_like(U)
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
    Y = numpy.empty((U.shape[1], N_OUTPUTS))
    R = numpy.empty(U.shape[1])
    for i in range(U.shape[1]):
        R[i] = finish_point(U, P, i, Y)
    return Y, R
