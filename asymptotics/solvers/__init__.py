"""Solvers for self-consistent equations (layer 4).

Python solvers (any callables, scalars or arrays, real or complex):

* :func:`fixed_point` — ``x = g(x)`` with :class:`FixedPoint` (damped) or :class:`Anderson`
  (or :class:`Newton` on ``g(x) − x``);
* :func:`root` — ``F(x) = 0`` with :class:`Newton` (generated or finite-difference Jacobian);
* :func:`continuation` — follow a solution along a parameter path with warm starts.

Each returns a :class:`SolverResult` (value, converged, iterations, residual, method, message,
status, at_roundoff_floor) and raises :class:`~asymptotics.errors.ConvergenceError` on failure
unless ``on_failure="return"``. Convergence is always tested on the residual,
``|r_i| <= atol + rtol·s_i`` componentwise with s_i the size of the terms of component i (|x_i|,
or a ``scale`` function); Newton also accepts a root at the round-off floor
(:mod:`asymptotics.solvers.newton`). One status vocabulary: :class:`Status`, defined in
:mod:`asymptotics.numerics.status` and re-exported here. These are the plain-Python twins of the
numerics layer's compiled algorithms (``asymptotics/numerics/templates/``): :mod:`.newton` of
``newton.py``, :mod:`.fixed_point` of ``anderson.py``, :mod:`.continuation` (``continuation``,
``continue_parameter``, ``follow_ladder``, ``advance``) of ``continuation.py``.

Derived systems (:mod:`asymptotics.symbolic`) compiled and solved over grids:
:func:`compile_system` → :class:`CompiledSystem` (``.solve(**params)``, ``.solve_grid(**arrays)``).
The compiled Newton, its round-off stopping rule, the continuation and the grid drivers are the
numerics templates ``asymptotics/numerics/templates/{newton,continuation}.py``, included in every
lowered system's module by :func:`asymptotics.codegen.lower` beside the system's printed functions
(``asymptotics/rendering/templates/system_solvers.py`` compiles those): numba caches a kernel bound
to module-level functions across processes, but not one that takes compiled callables as arguments.

>>> from asymptotics.solvers import fixed_point, Anderson
>>> r = fixed_point(lambda m, z, p: 1 / (-z + p / (1 + m)), 1.0, args=(-0.5, 0.5), solver=Anderson())
>>> round(r.value, 12), int(r.status), r.status.label
(1.414213562373, 0, 'converged')
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
