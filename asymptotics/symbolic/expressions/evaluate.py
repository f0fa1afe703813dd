r"""Evaluating a :class:`~.derive.Derivation`: the compiled solver over a grid of parameters.

The reduced system (with the Gaussian scale t as a parameter) is lowered once by
:func:`asymptotics.codegen.lower` (a generated module on disk, numba-cached) and solved by its
compiled ``solve_grid``: at every point Newton (generated Jacobian, Armijo line search) along the
continuation t = 0 → 1 in equal steps, starting from the exact free-limit solution g = q0⁻¹ at
t = 0; points that fail are retried with finer steps. The value is the system's output, checked
to be finite. Residuals are ``max_i |F_i| / max(1, |x_i|)`` of the reduced equations, status
codes those of :class:`asymptotics.solvers.Status`.

This is the one module of :mod:`asymptotics.symbolic.expressions` that uses the solvers layer
(it is imported only when a value is asked for).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from ...errors import ConvergenceError, ParameterError
from ...grids import cartesian
from ...solvers import SolverResult, Status
from .assemble import SCALE

__all__ = [
    "ExpressionGrid",
    "PythonBackend",
    "evaluate_grid",
    "evaluate_point",
    "BRANCHES",
    "BACKENDS",
    "HOMOTOPY_STEPS",
]

BRANCHES = ("scale", "grid")
BACKENDS = ("compiled", "python")
#: Continuation steps in t: first try, then the retry of the points that failed.
HOMOTOPY_STEPS = (16, 400)
_MAX_STEPS = 100


@dataclass(frozen=True)
class ExpressionGrid:
    """Values over a grid of n points.

    Attributes: ``params`` {name: (n,) array}; ``value`` (n,) (float, or complex for complex
    arguments; NaN where the status is not 0); ``status``, ``iterations`` (Newton steps, all
    continuation steps together), ``residual`` (n,); ``method`` (how it was solved).
    """

    params: dict
    value: np.ndarray
    status: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray
    method: str

    def __len__(self):
        return self.value.shape[0]

    @property
    def converged(self) -> bool:
        return bool(np.all(self.status == Status.CONVERGED))

    def rows(self) -> list:
        """One dict per point: the parameters, ``value`` (or ``value_re`` and ``value_im`` when
        complex), ``status`` (label), ``iterations``, ``residual``."""
        cplx = np.iscomplexobj(self.value)
        out = []
        for i in range(len(self)):
            row = {k: _plain(v[i]) for k, v in self.params.items()}
            if cplx:
                row["value_re"] = float(self.value[i].real)
                row["value_im"] = float(self.value[i].imag)
            else:
                row["value"] = float(self.value[i])
            row.update(
                status=Status(int(self.status[i])).label,
                iterations=int(self.iterations[i]),
                residual=float(self.residual[i]),
            )
            out.append(row)
        return out


def _plain(v):
    v = complex(v)
    return v.real if v.imag == 0 else str(v)


def _columns(D, at) -> tuple[dict, bool]:
    """Validated parameter columns and whether the solve is complex."""
    if not isinstance(at, dict):
        raise ParameterError("at", at, "a dict {parameter: value or 1-D sequence}")
    for k in at:
        if k in D.constants:
            raise ParameterError(k, at[k], "not given (it is an activation constant, set by the activation)")
    unknown = [k for k in at if k not in D.parameters]
    missing = [k for k in D.parameters if k not in at]
    if unknown or missing:
        raise ParameterError(
            "at",
            sorted(at),
            f"values for exactly {', '.join(D.parameters) or '(no parameters)'}"
            + (f" (missing {', '.join(missing)})" if missing else "")
            + (f" (not in the expression: {', '.join(unknown)})" if unknown else ""),
        )
    cols = {}
    for k, v in at.items():
        arr = np.atleast_1d(np.asarray(v))
        if arr.dtype.kind not in "biufc" or arr.ndim != 1 or arr.size == 0:
            raise ParameterError(k, v, "a real or complex number, or a 1-D sequence of them")
        if not np.all(np.isfinite(arr)):
            raise ParameterError(k, v, "finite")
        cols[k] = arr
    for k in {s.name for s in D.declarations.parameters} & set(cols):
        a = cols[k]
        if np.iscomplexobj(a) or np.any(a <= 0):
            raise ParameterError(k, at[k], "> 0 (it sets a dimension ratio or a variance)")
    cplx = any(np.iscomplexobj(a) for a in cols.values()) or any(e.has(sympy.I) for e in D.system.equations)
    return cols, cplx


def _solve(D, full: dict, dt, warm: bool, atol: float, rtol: float):
    C = D.compiled
    names = [p.name for p in D.system.parameters]
    P = np.ascontiguousarray(np.column_stack([full[k] for k in names]).astype(dt))
    # a non-finite starting point makes the generated driver continue every point in t from 0
    X0 = np.full((1, len(D.system.unknowns)), np.nan, dtype=dt)
    hi, hv = C.lowered.homotopy
    mod = C.module
    with np.errstate(all="ignore"):
        _, status, iters, resid, Y = mod.solve_grid(
            X0, P, atol, rtol, _MAX_STEPS, warm, int(hi), dt(hv), HOMOTOPY_STEPS[0]
        )
        retry = np.flatnonzero(status != 0)
        if retry.size:
            _, s2, i2, r2, Y2 = mod.solve_grid(
                X0,
                np.ascontiguousarray(P[retry]),
                atol,
                rtol,
                _MAX_STEPS,
                False,
                int(hi),
                dt(hv),
                HOMOTOPY_STEPS[1],
            )
            status, iters, resid, Y = status.copy(), iters.copy(), resid.copy(), Y.copy()
            status[retry], resid[retry], Y[retry] = s2, r2, Y2
            iters[retry] += i2
    value = Y[:, list(C.outputs).index("value")].astype(dt)
    status = status.astype(np.int64)
    status[(status == 0) & ~np.isfinite(value)] = int(Status.NONFINITE)
    value = np.where(status == 0, value, np.nan)
    return value, status, iters, resid


class PythonBackend:
    """The same equations evaluated without compilation (``backend="python"``): residual,
    Jacobian, value and start by :func:`sympy.lambdify`, Newton by :func:`asymptotics.solvers.root`
    at each step of an adaptive continuation in t (step halved on failure, grown after
    success). Slower per point, no compilation: for a few points, and as a cross-check of the
    generated code."""

    def __init__(self, system):
        xs, ps = list(system.unknowns), list(system.parameters)
        self.F = sympy.lambdify([xs, ps], list(system.equations), modules="numpy")
        self.J = sympy.lambdify([xs, ps], system.jacobian().tolist(), modules="numpy")
        self.out = sympy.lambdify([xs, ps], system.output_expressions()["value"], modules="numpy")
        self.x0 = sympy.lambdify([ps], [system.start.get(u, sympy.Integer(0)) for u in xs], modules="numpy")
        self.t_index = ps.index(SCALE)

    def solve(self, p, atol, rtol):
        from ...solvers import Newton, root

        cfg = Newton(atol=atol, rtol=rtol, max_steps=_MAX_STEPS)
        q = p.copy()
        q[self.t_index] = 0
        x = np.asarray(self.x0(q), dtype=p.dtype)
        t, h, its, res = 0.0, 0.125, 0, np.inf
        while t < 1.0:
            tn = min(1.0, t + h)
            q[self.t_index] = tn
            with np.errstate(all="ignore"):
                r = root(
                    lambda y, q=q: np.asarray(self.F(y, q), dtype=p.dtype),
                    x,
                    jac=lambda y, q=q: np.asarray(self.J(y, q), dtype=p.dtype),
                    solver=cfg,
                    on_failure="return",
                )
            its += r.iterations
            if r.converged:
                t, x, res = tn, np.asarray(r.value, dtype=p.dtype), r.residual
                h = min(0.25, 1.5 * h)
            else:
                h /= 2
                if h < 1.0 / HOMOTOPY_STEPS[1]:
                    return x, int(r.status), its, r.residual, np.nan
        with np.errstate(all="ignore"):
            v = self.out(x, p)
        return x, 0, its, res, v


def _solve_python(D, full: dict, dt, atol: float, rtol: float):
    names = [p.name for p in D.system.parameters]
    P = np.column_stack([full[k] for k in names]).astype(dt)
    B = D.python_backend
    n = P.shape[0]
    value = np.full(n, np.nan, dtype=dt)
    status = np.zeros(n, dtype=np.int64)
    iters = np.zeros(n, dtype=np.int64)
    resid = np.zeros(n)
    for i in range(n):
        _, status[i], iters[i], resid[i], value[i] = B.solve(P[i], atol, rtol)
    status[(status == 0) & ~np.isfinite(value)] = int(Status.NONFINITE)
    value = np.where(status == 0, value, np.nan)
    return value, status, iters, resid


def evaluate_grid(
    D, at: dict, *, branch="scale", backend="compiled", on_failure="raise", atol=1e-13, rtol=1e-13
) -> ExpressionGrid:
    """See :meth:`~.derive.Derivation.grid`."""
    if backend not in BACKENDS:
        raise ParameterError("backend", backend, f"one of {', '.join(BACKENDS)}")
    if branch not in BRANCHES:
        raise ParameterError("branch", branch, f"one of {', '.join(BRANCHES)}")
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    for name, v in (("atol", atol), ("rtol", rtol)):
        if not (isinstance(v, (int, float)) and 0 <= v < 1):
            raise ParameterError(name, v, "a number in [0, 1)")
    cols, cplx = _columns(D, at)
    rows = cartesian(**{k: list(v) for k, v in cols.items()}) if cols else [{}]
    dt = np.complex128 if cplx else np.float64
    n = len(rows)
    params = {k: np.array([r[k] for r in rows], dtype=dt) for k in cols}
    full = dict(params)
    for k, v in D.constants.items():
        full[k] = np.full(n, v, dtype=dt)
    full[SCALE.name] = np.ones(n, dtype=dt)
    if backend == "python":
        value, status, iters, resid = _solve_python(D, full, dt, float(atol), float(rtol))
        method = "newton (python, lambdified), adaptive continuation in the Gaussian scale t from 0"
    else:
        value, status, iters, resid = _solve(D, full, dt, branch == "grid", float(atol), float(rtol))
        method = "newton (compiled), continuation in the Gaussian scale t from 0" + (
            ", warm starts along the grid" if branch == "grid" else ""
        )
    shown = {
        k: (v if np.iscomplexobj(v) and np.any(v.imag != 0) else v.real.copy()) for k, v in params.items()
    }
    out = ExpressionGrid(shown, value if cplx else value.real.copy(), status, iters, resid, method)
    bad = np.flatnonzero(status != Status.CONVERGED)
    if bad.size and on_failure == "raise":
        i = int(bad[0])
        where = {k: _plain(v[i]) for k, v in params.items()}
        raise ConvergenceError(
            f"{D.expression!r}: {bad.size} of {n} point(s) failed ({Status(int(status[i])).message}); "
            f"first at {where}, residual {resid[i]:.3g}",
            out,
        )
    return out


def evaluate_point(
    D, at: dict, *, backend="compiled", on_failure="raise", atol=1e-13, rtol=1e-13
) -> SolverResult:
    """See :meth:`~.derive.Derivation.value`."""
    if not isinstance(at, dict):
        raise ParameterError("at", at, "a dict {parameter: number}")
    for k, v in at.items():
        if np.ndim(v) != 0:
            raise ParameterError(k, v, "a number (use .grid(at=...) for several points)")
    g = evaluate_grid(D, at, backend=backend, on_failure=on_failure, atol=atol, rtol=rtol)
    st = Status(int(g.status[0]))
    v = g.value[0]
    return SolverResult(
        value=complex(v) if np.iscomplexobj(g.value) else float(v),
        converged=st == Status.CONVERGED,
        iterations=int(g.iterations[0]),
        residual=float(g.residual[0]),
        method=g.method,
        message=st.message,
        status=st,
    )
