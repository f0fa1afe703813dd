"""Solvers for self-consistent equations (layer 4).

Python solvers (any callables, scalars or arrays, real or complex):

* :func:`fixed_point` — ``x = g(x)`` with :class:`FixedPoint` (damped) or :class:`Anderson`
  (or :class:`Newton` on ``g(x) − x``);
* :func:`root` — ``F(x) = 0`` with :class:`Newton` (generated or finite-difference Jacobian);
* :func:`continuation` — follow a solution along a parameter path with warm starts.

Each returns a :class:`SolverResult` (value, converged, iterations, residual, method, message,
status) and raises :class:`~asymptotics.errors.ConvergenceError` on failure unless
``on_failure="return"``. Convergence is always tested on the residual,
``|r_i| <= atol + rtol·|x_i|`` componentwise.

Derived systems (:mod:`asymptotics.symbolic`) compiled and solved over grids:
:func:`compile_system` → :class:`CompiledSystem` (``.solve(**params)``, ``.solve_grid(**arrays)``).

Compiled kernels taking numba callables: :mod:`asymptotics.solvers.compiled`
(``fixed_point_nb``, ``newton_nb``, ``newton_grid_nb``).
"""

from .config import Anderson, FixedPoint, Newton
from .continuation import continuation
from .fixed_point import fixed_point
from .newton import root
from .result import CONVERGED, MAX_STEPS, NONFINITE, SINGULAR, STATUS_MESSAGES, SolverResult, Status
from .systems import CompiledSystem, GridSolution, SystemSolution, compile_system

__all__ = [
    "Status",
    "SolverResult",
    "FixedPoint",
    "Anderson",
    "Newton",
    "fixed_point",
    "root",
    "continuation",
    "compile_system",
    "CompiledSystem",
    "SystemSolution",
    "GridSolution",
    "CONVERGED",
    "MAX_STEPS",
    "NONFINITE",
    "SINGULAR",
    "STATUS_MESSAGES",
]
