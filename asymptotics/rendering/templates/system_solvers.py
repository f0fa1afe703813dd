r"""Template: a lowered equation system's printed functions, compiled for the numerics kernels.

:func:`asymptotics.codegen.lower` renders a system's expressions — ``residual``,
``residual_scale``, ``jacobian``, ``outputs``, ``start`` (plain Python printed from sympy) and the
constant ``N_OUTPUTS`` — in place of the placeholders below, and includes the numerics layer's
dense linear algebra, Newton and continuation (:mod:`asymptotics.numerics.templates.newton`,
``continuation``: the stopping rule, the round-off floor, the step control and the grid drivers
``solve_grid_full``, ``solve_grid``, ``continue_grid`` are documented there), for which the
printed functions are the problem. What is specific to a lowered system is what follows the
marker: compiling the printed functions (see :mod:`asymptotics.rendering.templates`).

The placeholders are the reference system of the numerics templates: unknowns (a, b), parameters
(q, k), F_0 = a² − 2q², F_1 = ab − 2kq ⇒ a = q√2, b = k√2, terms of size s_0 = 4q², s_1 = 4|kq|.
"""

import numpy as np
from numba import njit

N_OUTPUTS = 1  # placeholder: the number of outputs


def residual(x, p):  # placeholder: the system's F(x; p)
    out = np.zeros(2, dtype=x.dtype)
    out[0] = x[0] ** 2 - 2.0 * p[0] ** 2
    out[1] = x[0] * x[1] - 2.0 * p[1] * p[0]
    return out


def residual_scale(x, p):  # placeholder: Σ_k |t_ik| for each equation
    out = np.zeros(2, dtype=np.float64)
    out[0] = abs(x[0] ** 2) + abs(2.0 * p[0] ** 2)
    out[1] = abs(x[0] * x[1]) + abs(2.0 * p[1] * p[0])
    return out


def jacobian(x, p):  # placeholder: ∂F_i/∂x_j
    out = np.zeros((2, 2), dtype=x.dtype)
    out[0, 0] = 2.0 * x[0]
    out[1, 0] = x[1]
    out[1, 1] = x[0]
    return out


def outputs(x, p):  # placeholder: the named outputs (here a/b = q/k)
    out = np.zeros(N_OUTPUTS, dtype=x.dtype)
    out[0] = x[0] / x[1]
    return out


def start(p):  # placeholder: starting values
    out = np.zeros(2, dtype=p.dtype)
    out[0] = p[0]
    out[1] = p[1]
    return out


# ---- kernels (copied into the rendered module) ----


# the system's functions (rendered above as plain Python) compiled for use by the kernels
residual = njit(cache=True)(residual)
residual_scale = njit(cache=True)(residual_scale)
jacobian = njit(cache=True)(jacobian)
outputs = njit(cache=True)(outputs)
start = njit(cache=True)(start)
