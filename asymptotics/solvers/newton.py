r"""Roots ``F(x) = 0`` by Newton's method with a backtracking line search.

Step: solve ``J(x) Δ = −F(x)``; with ``line_search`` the step ``t Δ`` is halved until
``‖F(x + tΔ)‖² <= (1 − 10⁻⁴ t) ‖F(x)‖²`` (Armijo); if no ``t >= 2⁻³⁰`` passes, the solver
reports stagnation (status 3). Without a Jacobian, a central finite-difference Jacobian is used
(for complex ``x`` the function must be holomorphic, which the self-consistent equations of
random-matrix theory are).

**Stopping rule.** Every ``|F_i(x)| <= atol + rtol·s_i`` where s_i is the size of the terms of
equation i: ``scale(x, *args)`` when given (e.g. Σ_k |t_ik| over the terms of F_i = Σ_k t_ik), else
|x_i|. An equation whose terms are of size 10⁵ cannot be evaluated to better than ~10⁵·ε, so a
test scaled by a small unknown would fail at a converged point.

**Round-off floor.** When every |F_i| ≤ ROUNDOFF·ε·σ_i — σ_i = s_i with a ``scale`` function,
else max(|x_i|, Σ_j |J_ij x_j|), the size of the linear terms of F_i — the residual is at the
rounding level of its own evaluation: if then the full Newton step does not decrease ‖F‖² (or
``max_steps`` is reached) the root is accepted, with status 0 and ``at_roundoff_floor=True``.
This is the same rule as the compiled Newton (``asymptotics/numerics/templates/newton.py``), whose
plain-Python twin this is (for callables, complex and mpmath arithmetic).

>>> from asymptotics.solvers import root
>>> r = root(lambda m: -0.5 * m**2 + 1, 1.0)   # z m̄² + (1 + z − ψ2) m̄ + 1 at z = −1/2, ψ2 = 1/2
>>> round(r.value, 10), r.converged            # m̄ = √2
(1.4142135624, True)
>>> q = 2.0**40                                # a = q√2: terms of size 4q² ≈ 5·10²⁴
>>> r = root(lambda a: a * a - 2 * q * q, q, jac=lambda a: 2 * a, scale=lambda a: a * a + 2 * q * q)
>>> r.converged, abs(r.value / q - 2**0.5) < 1e-15
(True, True)
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._common import converged, finish, pack, scale_function
from .config import Newton
from .result import CONVERGED, MAX_STEPS, NONFINITE, ROUNDOFF, SINGULAR

__all__ = ["root"]

_DEFAULT = Newton()  # configurations are immutable: one shared default
_EPS = float(np.finfo(np.float64).eps)


def _fd_jacobian(F, x, fx):
    n = x.size
    J = np.empty((fx.size, n), dtype=np.result_type(x, fx))
    for j in range(n):
        h = 1e-6 * max(1.0, abs(x[j]))
        e = np.zeros_like(x)
        e[j] = h
        J[:, j] = (F(x + e) - F(x - e)) / (2 * h)
    return J


def _at_floor(fx, x, s, J, given_scale):
    """Whether every |F_i| ≤ ROUNDOFF·ε·σ_i (module docstring)."""
    sigma = s if given_scale else np.maximum(np.abs(x), np.abs(J) @ np.abs(x))
    return bool(np.all(np.abs(fx) <= ROUNDOFF * _EPS * sigma))


def _jacobian_function(packed, Ff, jac, args):
    """``J(x, F(x))`` on the flat vector: ``jac`` reshaped to n × n, or central differences."""
    n = packed.x.size
    if jac is None:

        def Jf(x, fx):
            return _fd_jacobian(Ff, x, fx)
    else:

        def Jf(x, fx):
            xu = x.reshape(packed.shape) if not packed.scalar else x[0]
            J = np.asarray(jac(xu, *args))
            return J.reshape(n, n)

    return Jf


def _line_search(Ff, x, fx, dx, floor: bool):
    """Armijo backtracking on ‖F‖²: ``(accepted, x + t·dx, F(x + t·dx))`` for the first t = 1, ½, …,
    2⁻³⁰ with a finite residual and ‖F‖² ≤ (1 − 10⁻⁴t)‖F(x)‖²; at the round-off floor only t = 1 is
    tried (backtracking would only sample rounding noise)."""
    phi0 = float(np.sum(np.abs(fx) ** 2))
    t = 1.0
    xn, fn = x, fx
    while t >= 2.0**-30:
        xn = x + t * dx
        fn = Ff(xn)
        if np.all(np.isfinite(fn)) and float(np.sum(np.abs(fn) ** 2)) <= (1 - 1e-4 * t) * phi0:
            return True, xn, fn
        if floor:
            break
        t *= 0.5
    return False, xn, fn


def root(F, x0, *, jac=None, args=(), scale=None, solver=_DEFAULT, on_failure="raise"):
    """Solve ``F(x, *args) = 0`` for a real or complex scalar or array ``x``.

    Parameters
    ----------
    F : callable
        Residual ``F(x, *args)`` with the shape of ``x0``.
    jac : callable, optional
        ``jac(x, *args)``: the Jacobian ``∂F_i/∂x_j`` (a number for a scalar problem, an
        ``n × n`` array for a flat vector of size n). Default: central finite differences.
    scale : callable, optional
        ``scale(x, *args)``: the size s_i of the terms of each equation (shape of ``x0``), used by
        the stopping rule and the round-off floor (module docstring). Default: |x|.
    solver : Newton
    on_failure : "raise" | "return"
    """
    if not isinstance(solver, Newton):
        raise ParameterError(
            "solver", solver, "a Newton configuration (use fixed_point for FixedPoint/Anderson)"
        )
    packed = pack(x0)
    Ff = packed.wrap(F, args)
    S = scale_function(packed, scale, args)
    Jf = _jacobian_function(packed, Ff, jac, args)
    x = packed.x.copy()
    fx = Ff(x)
    status, k, floor = MAX_STEPS, 0, False
    for k in range(solver.max_steps + 1):
        s = S(x)
        if not (np.all(np.isfinite(fx)) and np.all(np.isfinite(s))):
            status = NONFINITE
            break
        if converged(fx, s, solver.atol, solver.rtol):
            status = CONVERGED
            break
        J = Jf(x, fx)
        if not np.all(np.isfinite(J)):
            status = NONFINITE
            break
        floor = _at_floor(fx, x, s, J, scale is not None)
        if k == solver.max_steps:
            status = CONVERGED if floor else MAX_STEPS
            break
        try:
            dx = np.linalg.solve(J, -fx)
        except np.linalg.LinAlgError:
            status, floor = SINGULAR, False
            break
        if not np.all(np.isfinite(dx)):
            status, floor = SINGULAR, False
            break
        if not solver.line_search:
            x = x + dx
            fx = Ff(x)
            continue
        accepted, xn, fn = _line_search(Ff, x, fx, dx, floor)
        if not accepted:
            status = CONVERGED if floor else SINGULAR
            break
        x, fx = xn, fn
    floor = floor and status == CONVERGED and not converged(fx, S(x), solver.atol, solver.rtol)
    return finish(packed, x, fx, status, k, "newton", on_failure, s=S(x), at_floor=floor)
