"""Roots ``F(x) = 0`` by Newton's method with a backtracking line search.

Step: solve ``J(x) Δ = −F(x)``; with ``line_search`` the step ``t Δ`` is halved until
``‖F(x + tΔ)‖² <= (1 − 10⁻⁴ t) ‖F(x)‖²`` (Armijo); if no ``t >= 2⁻³⁰`` passes, the solver
reports stagnation (status 3). Without a Jacobian, a central finite-difference Jacobian is used
(for complex ``x`` the function must be holomorphic, which the self-consistent equations of
random-matrix theory are). Convergence: every ``|F_i(x)| <= atol + rtol·|x_i|``.

>>> from asymptotics.solvers import root
>>> r = root(lambda m: -0.5 * m**2 + 1, 1.0)   # z m̄² + (1 + z − ψ2) m̄ + 1 at z = −1/2, ψ2 = 1/2
>>> round(r.value, 10), r.converged            # m̄ = √2
(1.4142135624, True)
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._common import converged, finish, pack
from .config import Newton
from .result import CONVERGED, MAX_STEPS, NONFINITE, SINGULAR

__all__ = ["root"]

_DEFAULT = Newton()  # configurations are immutable: one shared default


def _fd_jacobian(F, x, fx):
    n = x.size
    J = np.empty((fx.size, n), dtype=np.result_type(x, fx))
    for j in range(n):
        h = 1e-6 * max(1.0, abs(x[j]))
        e = np.zeros_like(x)
        e[j] = h
        J[:, j] = (F(x + e) - F(x - e)) / (2 * h)
    return J


def root(F, x0, *, jac=None, args=(), solver=_DEFAULT, on_failure="raise"):
    """Solve ``F(x, *args) = 0`` for a real or complex scalar or array ``x``.

    Parameters
    ----------
    F : callable
        Residual ``F(x, *args)`` with the shape of ``x0``.
    jac : callable, optional
        ``jac(x, *args)``: the Jacobian ``∂F_i/∂x_j`` (a number for a scalar problem, an
        ``n × n`` array for a flat vector of size n). Default: central finite differences.
    solver : Newton
    on_failure : "raise" | "return"
    """
    if not isinstance(solver, Newton):
        raise ParameterError(
            "solver", solver, "a Newton configuration (use fixed_point for FixedPoint/Anderson)"
        )
    packed = pack(x0)
    Ff = packed.wrap(F, args)
    n = packed.x.size

    if jac is None:

        def Jf(x, fx):
            return _fd_jacobian(Ff, x, fx)
    else:

        def Jf(x, fx):
            xu = x.reshape(packed.shape) if not packed.scalar else x[0]
            J = np.asarray(jac(xu, *args))
            return J.reshape(n, n)

    x = packed.x.copy()
    fx = Ff(x)
    status, k = MAX_STEPS, 0
    for k in range(solver.max_steps + 1):
        if not np.all(np.isfinite(fx)):
            status = NONFINITE
            break
        if converged(fx, x, solver.atol, solver.rtol):
            status = CONVERGED
            break
        if k == solver.max_steps:
            status = MAX_STEPS
            break
        J = Jf(x, fx)
        if not np.all(np.isfinite(J)):
            status = NONFINITE
            break
        try:
            dx = np.linalg.solve(J, -fx)
        except np.linalg.LinAlgError:
            status = SINGULAR
            break
        if not np.all(np.isfinite(dx)):
            status = SINGULAR
            break
        if not solver.line_search:
            x = x + dx
            fx = Ff(x)
            continue
        phi0 = float(np.sum(np.abs(fx) ** 2))
        t = 1.0
        accepted = False
        while t >= 2.0**-30:
            xn = x + t * dx
            fn = Ff(xn)
            if np.all(np.isfinite(fn)) and float(np.sum(np.abs(fn) ** 2)) <= (1 - 1e-4 * t) * phi0:
                accepted = True
                break
            t *= 0.5
        if not accepted:
            status = SINGULAR
            break
        x, fx = xn, fn
    return finish(packed, x, fx, status, k, "newton", on_failure)
