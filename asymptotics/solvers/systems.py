r"""Solving derived equation systems with their compiled modules.

:func:`compile_system` lowers a system (an :class:`~asymptotics.symbolic.EquationSystem` or the
name of a registered one, see :func:`asymptotics.symbolic.list_systems`) with
:func:`asymptotics.codegen.lower` and wraps it:

>>> from asymptotics.solvers import compile_system
>>> rf = compile_system("rf_ridge_traces")        # doctest: +SKIP
>>> sol = rf.solve(lam=0.1, phi=1.5, psi=0.8, eta=0.3408450569081046, zeta=0.25)   # doctest: +SKIP
>>> round(sol["tau1"], 6)                          # doctest: +SKIP
3.598963
>>> grid = rf.solve_grid(lam=np.geomspace(1e-3, 10, 1000), phi=1.5, psi=0.8, eta=0.34, zeta=0.25)  # doctest: +SKIP
>>> grid["tau2"].shape                             # doctest: +SKIP
(1000,)

Every point is solved by Newton (generated Jacobian, Armijo line search) on the residual test
``|F_i| <= atol + rtol·s_i``, s_i = Σ_k |t_ik| the size of the terms of equation i (rendered from
the system), accepting a root at the round-off floor (|F_i| ≤ 64·ε·s_i and no further decrease;
flagged ``at_roundoff_floor``); along a grid each point starts from the previous converged one
(warm start), then from the system's start values, then by continuation of the system's
homotopy parameter from where the start is exact (e.g. λ → ∞). The loops are the numerics
layer's compiled Newton and continuation (``asymptotics/numerics/templates/{newton,continuation}.py``),
included in every lowered system's module. Failures raise
:class:`~asymptotics.errors.ConvergenceError` (or, with ``on_failure="return"``, are flagged in
``status`` with NaN outputs — never silently). Statuses are :class:`~asymptotics.solvers.Status`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConvergenceError, ParameterError
from .result import CONVERGED, FLOOR_MESSAGE, SolverResult, Status

__all__ = ["compile_system", "CompiledSystem", "SystemSolution", "GridSolution"]


@dataclass(frozen=True)
class SystemSolution:
    """One solved point: ``result`` (a :class:`SolverResult` whose value is the vector of
    unknowns), ``values`` {unknown: value}, ``outputs`` {name: value}, ``params`` {name: value}.
    ``sol["tau1"]`` reads an output (or an unknown)."""

    result: SolverResult
    values: dict
    outputs: dict
    params: dict

    def __getitem__(self, key):
        if key in self.outputs:
            return self.outputs[key]
        return self.values[key]

    @property
    def converged(self) -> bool:
        return self.result.converged


@dataclass(frozen=True)
class GridSolution:
    """Solutions over a grid of n points: ``values`` (n × unknowns), ``outputs`` {name: (n,)},
    ``params`` {name: (n,)}, ``status``, ``iterations``, ``residual``, ``at_roundoff_floor`` (n,)
    arrays. Outputs of failed points (status ≠ 0) are NaN. ``grid["tau1"]`` reads an output
    column."""

    values: np.ndarray
    outputs: dict
    params: dict
    status: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray
    unknowns: tuple
    at_roundoff_floor: np.ndarray | None = None
    method: str = "newton (compiled, warm starts)"

    def __getitem__(self, key):
        if key in self.outputs:
            return self.outputs[key]
        return self.values[:, self.unknowns.index(key)]

    def __len__(self):
        return self.status.shape[0]

    @property
    def converged(self) -> bool:
        return bool(np.all(self.status == CONVERGED))

    def rows(self) -> list:
        """One dict per point: parameters, outputs, status, iterations, residual."""
        out = []
        for i in range(len(self)):
            row = {k: _py(v[i]) for k, v in self.params.items()}
            row.update({k: _py(v[i]) for k, v in self.outputs.items()})
            row.update(
                status=Status(int(self.status[i])).label,
                iterations=int(self.iterations[i]),
                residual=float(self.residual[i]),
            )
            out.append(row)
        return out


def _py(v):
    return complex(v) if np.iscomplexobj(v) else float(v)


#: The options of :meth:`CompiledSystem.solve` (everything else is a parameter of the system).
_SOLVE_OPTIONS = ("x0", "atol", "rtol", "max_steps", "homotopy_steps", "on_failure")


class CompiledSystem:
    """A lowered system ready to solve (see the module docstring). Attributes: ``name``,
    ``unknowns``, ``parameters``, ``outputs`` (names), ``path`` (the generated module),
    ``lowered`` (the :class:`~asymptotics.codegen.LoweredSystem`)."""

    def __init__(self, lowered):
        self.lowered = lowered
        self.module = lowered.module
        self.name = lowered.name
        self.unknowns = lowered.unknowns
        self.parameters = lowered.parameters
        self.outputs = lowered.outputs
        self.path = lowered.path

    def __repr__(self):
        return (
            f"CompiledSystem({self.name!r}, unknowns={self.unknowns}, parameters={self.parameters}, "
            f"outputs={self.outputs})"
        )

    # ------------------------------------------------------------------ parameters
    def _param_vector(self, params: dict, grid: bool):
        missing = [p for p in self.parameters if p not in params]
        extra = [p for p in params if p not in self.parameters]
        if missing or extra:
            raise ParameterError(
                "parameters",
                sorted(params),
                f"exactly {', '.join(self.parameters)} for system {self.name!r}"
                + (f" (missing {', '.join(missing)})" if missing else "")
                + (f" (unknown {', '.join(extra)})" if extra else ""),
            )
        cols = []
        for p in self.parameters:
            v = np.asarray(params[p])
            if v.dtype.kind not in "biufc":
                raise ParameterError(p, params[p], "a real or complex number (or 1-D array on a grid)")
            if not grid and v.ndim != 0:
                raise ParameterError(p, params[p], "a scalar (use solve_grid for arrays)")
            if grid and v.ndim > 1:
                raise ParameterError(p, params[p], "a scalar or a 1-D array")
            if not np.all(np.isfinite(v)):
                raise ParameterError(p, params[p], "finite")
            cols.append(v)
        is_complex = any(c.dtype.kind == "c" for c in cols)
        dt = np.complex128 if is_complex else np.float64
        if not grid:
            return np.array([c.astype(dt) for c in cols], dtype=dt), dt
        try:
            cols = np.broadcast_arrays(*[np.atleast_1d(c).astype(dt) for c in cols])
        except ValueError:
            raise ParameterError(
                "grid",
                {p: np.shape(params[p]) for p in self.parameters},
                "scalars and 1-D arrays of one common length",
            ) from None
        return np.ascontiguousarray(np.column_stack(cols)), dt

    def _x0(self, x0, P, dt):
        if x0 is None:
            return np.ascontiguousarray(self.module.start(P[0])[None, :].astype(dt))
        x = np.atleast_2d(np.asarray(x0, dtype=dt))
        if x.shape[1] != len(self.unknowns) or x.shape[0] not in (1, P.shape[0]):
            raise ParameterError(
                "x0",
                np.shape(x0),
                f"{len(self.unknowns)} values (one per unknown {self.unknowns}), or one row per grid point",
            )
        return np.ascontiguousarray(x)

    def _homotopy(self):
        idx, val = self.lowered.homotopy
        return int(idx), float(val)

    # ------------------------------------------------------------------ solving
    def solve(self, **kwargs) -> SystemSolution:
        """Solve at one parameter point: keyword arguments named as :attr:`parameters`, and the
        options of :meth:`solve_grid` (``x0, atol, rtol, max_steps, homotopy_steps, on_failure``)."""
        options = {k: kwargs.pop(k) for k in _SOLVE_OPTIONS if k in kwargs}
        p, dt = self._param_vector(kwargs, grid=False)
        g = self.solve_grid(**options, **{k: np.asarray([v]) for k, v in kwargs.items()})
        st = Status(int(g.status[0]))
        floor = bool(g.at_roundoff_floor[0])
        res = SolverResult(
            value=g.values[0].copy(),
            converged=st == CONVERGED,
            iterations=int(g.iterations[0]),
            residual=float(g.residual[0]),
            method="newton (compiled)",
            message=FLOOR_MESSAGE if floor else st.message,
            status=int(st),
            at_roundoff_floor=floor,
        )
        conv = (lambda v: complex(v)) if dt == np.complex128 else (lambda v: float(np.real(v)))
        return SystemSolution(
            result=res,
            values={u: conv(v) for u, v in zip(self.unknowns, g.values[0], strict=True)},
            outputs={k: conv(v[0]) for k, v in g.outputs.items()},
            params={k: conv(v) for k, v in zip(self.parameters, p, strict=True)},
        )

    def solve_grid(
        self,
        *,
        x0=None,
        warm=True,
        atol=1e-13,
        rtol=1e-13,
        max_steps=100,
        homotopy_steps=40,
        on_failure="raise",
        **params,
    ) -> GridSolution:
        """Solve at every point of a grid: each parameter a scalar or a 1-D array (broadcast to
        one common length n). Compiled loop with warm starts; see the module docstring."""
        if on_failure not in ("raise", "return"):
            raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
        for name, v in (("atol", atol), ("rtol", rtol)):
            if not (0 <= v < 1):
                raise ParameterError(name, v, "in [0, 1)")
        if not (isinstance(max_steps, int) and max_steps >= 1):
            raise ParameterError("max_steps", max_steps, "an integer >= 1")
        P, dt = self._param_vector(params, grid=True)
        X0 = self._x0(x0, P, dt)
        hi, hv = self._homotopy()
        with np.errstate(all="ignore"):
            X, status, iters, resid, floors, Y = self.module.solve_grid_full(
                X0, P, float(atol), float(rtol), int(max_steps), bool(warm), hi, dt(hv), int(homotopy_steps)
            )
        bad = status != CONVERGED
        if np.any(bad):
            Y = Y.copy()
            Y[bad] = np.nan
        outs = {
            k: (Y[:, i] if dt == np.complex128 else Y[:, i].real.copy()) for i, k in enumerate(self.outputs)
        }
        pr = {
            k: (P[:, i] if dt == np.complex128 else P[:, i].real.copy())
            for i, k in enumerate(self.parameters)
        }
        sol = GridSolution(
            values=X if dt == np.complex128 else X.real,
            outputs=outs,
            params=pr,
            status=status,
            iterations=iters,
            residual=resid,
            unknowns=self.unknowns,
            at_roundoff_floor=floors,
        )
        if np.any(bad) and on_failure == "raise":
            i = int(np.flatnonzero(bad)[0])
            worst = int(status.max())
            at = {k: _py(v[i]) for k, v in pr.items()}
            raise ConvergenceError(
                f"system {self.name!r}: {int(bad.sum())} of {len(status)} point(s) did not converge "
                f"({Status(worst).message}); first at {at}, residual {resid[i]:.3g}",
                sol,
            )
        return sol

    def residual(self, x, **params):
        """F(x; p) (numpy array) at one point."""
        p, dt = self._param_vector(params, grid=False)
        return self.module.residual(np.asarray(x, dtype=dt), p)

    def jacobian(self, x, **params):
        """∂F/∂x at one point."""
        p, dt = self._param_vector(params, grid=False)
        return self.module.jacobian(np.asarray(x, dtype=dt), p)


_COMPILED: dict = {}


def compile_system(system, *, refresh: bool = False) -> CompiledSystem:
    """Lower ``system`` (an EquationSystem or a registered name) and return a
    :class:`CompiledSystem` (cached per process)."""
    from ..codegen import lower

    low = lower(system, refresh=refresh)
    key = (low.name, str(low.path))
    if refresh or key not in _COMPILED:
        _COMPILED[key] = CompiledSystem(low)
    return _COMPILED[key]
