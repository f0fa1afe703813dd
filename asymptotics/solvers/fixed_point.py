"""Fixed points ``x = g(x)``: damped iteration and Anderson acceleration.

Mathematics. With residual ``f(x) = g(x) − x``, the damped iteration is
``x_{k+1} = x_k + ω f(x_k)``. Anderson acceleration (type II, Walker & Ni 2011) with memory m
uses the differences ``ΔF = [f_{k−m+1} − f_{k−m}, …]``, ``ΔX`` likewise, solves the least-squares
problem ``γ = argmin ‖f_k − ΔF γ‖`` and steps ``x_{k+1} = x_k + ω f_k − (ΔX + ω ΔF) γ``.

Convergence is tested on the residual: every component ``|g(x)_i − x_i| <= atol + rtol·s_i``,
after at least ``min_steps`` evaluations of ``g``, where s_i is the size of the terms of component
i: |x_i| by default (x_i and g_i(x) ≈ x_i are the terms of g_i(x) − x_i), or ``scale(x, *args)``
when the map is a sum of much larger terms. The returned value is the iterate ``x`` at which the
test passed (not the untested ``g(x)``).

This is the plain-Python twin (for callables, complex and object arithmetic) of the one compiled
Anderson solve, ``anderson_solve`` of ``asymptotics/numerics/templates/anderson.py``, which a
compiled theory includes and calls on its placeholder ``fixed_point_map``.

>>> from asymptotics.solvers import fixed_point, FixedPoint
>>> r = fixed_point(lambda m: 1 / (0.5 + 0.5 / (1 + m)), 1.0)   # MP m̄ at z = −0.5, ψ2 = 0.5
>>> round(r.value, 10), r.converged
(1.4142135624, True)
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._common import converged, finish, pack, scale_function
from .config import Anderson, FixedPoint, Newton
from .result import CONVERGED, MAX_STEPS, NONFINITE

__all__ = ["fixed_point"]

_DEFAULT = FixedPoint()  # configurations are immutable: one shared default


def fixed_point(g, x0, *, args=(), solver=_DEFAULT, scale=None, on_failure="raise"):
    """Solve ``x = g(x, *args)`` for a real or complex scalar or array ``x``.

    Parameters
    ----------
    g : callable
        ``g(x, *args)`` returning an object of the shape of ``x0``.
    x0 : float, complex or array
        Starting point (its dtype decides real or complex arithmetic; a complex value returned
        by ``g`` promotes the iteration to complex).
    solver : FixedPoint | Anderson | Newton
        :class:`FixedPoint` (damped iteration), :class:`Anderson`, or :class:`Newton` applied to
        ``g(x) − x`` (finite-difference Jacobian).
    scale : callable, optional
        ``scale(x, *args)``: the size s_i of the terms of each component (shape of ``x0``); the
        default is |x|.
    on_failure : "raise" | "return"
        Raise :class:`~asymptotics.errors.ConvergenceError` (carrying the result) or return the
        unconverged :class:`SolverResult`.
    """
    if isinstance(solver, Newton):
        from .newton import root

        return root(
            lambda x, *a: np.asarray(g(x, *a)) - np.asarray(x),
            x0,
            args=args,
            solver=solver,
            scale=scale,
            on_failure=on_failure,
        )
    if not isinstance(solver, (FixedPoint, Anderson)):
        raise ParameterError("solver", solver, "a FixedPoint, Anderson or Newton configuration")
    packed = pack(x0)
    G = packed.wrap(g, args)
    S = scale_function(packed, scale, args)
    if isinstance(solver, Anderson):
        step, method = _AndersonStep(solver), "anderson"
    else:
        w = solver.damping
        step, method = (lambda x, r: x + w * r), "fixed_point"
    x, r, status, it = _iterate(G, S, packed.x.copy(), solver, step)
    return finish(packed, x, r, status, it, method, on_failure, s=S(x))


def _iterate(G, S, x, cfg, step):
    """The one loop: evaluate r = g(x) − x, stop on a non-finite value or on the residual test
    (after ``min_steps``), else ``x ← step(x, r)``."""
    r = None
    for k in range(1, cfg.max_steps + 1):
        r = G(x) - x
        if not np.all(np.isfinite(r)):
            return x, r, NONFINITE, k
        if k >= cfg.min_steps and converged(r, S(x), cfg.atol, cfg.rtol):
            return x, r, CONVERGED, k
        x = step(x, r)
    return x, r, MAX_STEPS, cfg.max_steps


class _AndersonStep:
    """The Anderson step (module docstring), with its history of differences."""

    def __init__(self, cfg: Anderson):
        self.cfg = cfg
        self.dX, self.dF = [], []
        self.x_prev = self.f_prev = None
        self.best = np.inf

    def __call__(self, x, r):
        cfg, dX, dF, w = self.cfg, self.dX, self.dF, self.cfg.damping
        nrm = float(np.max(np.abs(r)))
        if nrm > cfg.restart_factor * self.best:  # stagnation / divergence guard: restart
            dX.clear()
            dF.clear()
            self.x_prev = self.f_prev = None
        self.best = min(self.best, nrm)
        if self.x_prev is not None:
            dX.append(x - self.x_prev)
            dF.append(r - self.f_prev)
            if len(dX) > cfg.memory:
                dX.pop(0)
                dF.pop(0)
        self.x_prev, self.f_prev = x, r
        step = w * r
        if dF:
            F = np.stack(dF, axis=1)
            X = np.stack(dX, axis=1)
            gamma, _, rank, sv = np.linalg.lstsq(F, r, rcond=None)
            if rank < F.shape[1] or sv[-1] < 1e-12 * sv[0] or not np.all(np.isfinite(gamma)):
                # ill-conditioned history: keep only the newest pair
                dX[:] = dX[-1:]
                dF[:] = dF[-1:]
                F, X = F[:, -1:], X[:, -1:]
                gamma, *_ = np.linalg.lstsq(F, r, rcond=None)
            if np.all(np.isfinite(gamma)):
                step = step - (X + w * F) @ gamma
        return x + step
