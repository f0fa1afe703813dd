r"""Evaluating a :class:`~asymptotics.symbolic.expressions.Derivation`: the compiled solver over a
grid of parameters.

The reduced system (with the Gaussian scale t as a parameter) is lowered once by
:func:`asymptotics.codegen.lower` (a generated module on disk, numba-cached: residual,
Jacobian, outputs, start, and the numerics layer's compiled Newton with Armijo line search and
continuation, ``asymptotics/numerics/templates/{newton,continuation}.py``). At every point: the exact free-limit solution g = q0⁻¹ at t = 0, then steps
t → 1 with a secant predictor and Newton corrector, a step accepted only when Newton converges
and moves the prediction by at most ``STEPS[3]`` (relative), halved otherwise down to
``STEPS[1]`` (then the point fails with status 3). ``branch="grid"`` warm-starts each point from
the previous converged one instead (a failed warm start is continued in t).

Every converged point is checked against the full Dyson equations (:class:`FullCheck`) and
re-solved on them if it fails; the residual reported is the larger of the reduced and the full
scaled residual ``max_i |F_i| / max(1, |x_i|)``, the status one of
:class:`asymptotics.solvers.Status`; a non-finite value is status 2, never a silent NaN.
``backend="python"`` runs the same algorithm with lambdified functions and
:func:`asymptotics.solvers.root` (no compilation).

It lives in the solvers layer (it runs the compiled solver and :func:`asymptotics.solvers.root`
on a derived system): :func:`evaluate_point` and :func:`evaluate_grid` evaluate a
:class:`~asymptotics.symbolic.expressions.Derivation`, which knows nothing of solvers; the objects
built for it once (compiled solver, continuation driver, uncompiled backends, full-system check)
are kept in its ``evaluation_cache`` (:func:`compiled_solver` and the helpers below).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy

from ..errors import ConvergenceError, ParameterError
from ..grids import cartesian
from ..symbolic.expressions.assemble import SCALE
from .config import Newton
from .continuation import continue_parameter
from .newton import root
from .result import SolverResult, Status

__all__ = [
    "ExpressionGrid",
    "PythonBackend",
    "evaluate_grid",
    "evaluate_point",
    "BRANCHES",
    "BACKENDS",
    "STEPS",
    "continuation_module",
    "compiled_solver",
]

BRANCHES = ("scale", "grid")
BACKENDS = ("compiled", "python")
#: Continuation in t: first step, smallest step, largest step, largest corrector move (relative).
STEPS = (0.125, 1e-7, 0.25, 0.1)
_MAX_STEPS = 100
#: A solution of the reduced system is accepted when it solves the full Dyson equations to this
#: scaled residual (back-substitution loses a few digits where a pivot is small).
CHECK_TOL = 1e-9


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
        complex), ``status`` (label), ``iterations``, ``residual``. A point that did not converge
        keeps its row, its value ``None`` (missing in every file format) and its status label; a
        non-finite residual is ``None`` too (a result file holds no NaN or inf)."""
        ok = self.status == Status.CONVERGED
        parts = (
            {"value_re": self.value.real, "value_im": self.value.imag}
            if np.iscomplexobj(self.value)
            else {"value": self.value}
        )
        cols = {k: [_plain(x) for x in v] for k, v in self.params.items()}
        cols.update(
            {k: [float(x) if good else None for x, good in zip(v, ok, strict=True)] for k, v in parts.items()}
        )
        cols["status"] = [Status(int(s)).label for s in self.status]
        cols["iterations"] = [int(x) for x in self.iterations]
        cols["residual"] = [_finite_or_none(x) for x in self.residual]
        return [dict(zip(cols, r, strict=True)) for r in zip(*cols.values(), strict=True)]


def _finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else None


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
    notes = {
        "missing": [k for k in D.parameters if k not in at],
        "not in the expression:": [k for k in at if k not in D.parameters],
    }
    if any(notes.values()):
        said = "".join(f" ({what} {', '.join(names)})" for what, names in notes.items() if names)
        raise ParameterError(
            "at", sorted(at), f"values for exactly {', '.join(D.parameters) or '(no parameters)'}{said}"
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


def _check_free_limit(D, full: dict, dt, params: dict):
    """Refuse points where det q0 = 0: there the continuation from the free limit has no start."""
    det = D.free_determinant
    if det.is_number:
        return
    syms = sorted(det.free_symbols, key=lambda s: s.name)
    f = sympy.lambdify(syms, det, modules="numpy")
    with np.errstate(all="ignore"):
        v = np.broadcast_to(np.asarray(f(*[full[s.name] for s in syms]), dtype=dt), (len(full[SCALE.name]),))
    bad = np.flatnonzero(~(np.abs(v) > 0) | ~np.isfinite(v))
    if bad.size:
        i = int(bad[0])
        where = {k: _plain(c[i]) for k, c in params.items()}
        raise ParameterError(
            "at",
            where,
            f"a point where the pencil's deterministic part is invertible (det q0 = {det} vanishes there: "
            "the continuation from the free limit has no start)",
        )


def _kept(D, key: str, make):
    """``make()`` built once per derivation and kept in its ``evaluation_cache``."""
    cache = D.evaluation_cache
    if key not in cache:
        cache[key] = make()
    return cache[key]


def compiled_solver(D):
    """The compiled solver of the derivation's reduced system (:func:`asymptotics.solvers.compile_system`;
    cached on disk, and kept with the derivation)."""
    from .systems import compile_system

    return _kept(D, "compiled", lambda: compile_system(D.system))


def _continuation(D):
    return _kept(D, "continuation", lambda: continuation_module(compiled_solver(D).lowered))


def _python_backend(D):
    return _kept(D, "python_backend", lambda: PythonBackend(D.system))


def _full_backend(D):
    return _kept(D, "full_backend", lambda: PythonBackend(D.full))


def _full_check(D):
    return _kept(D, "full_check", lambda: FullCheck(D.system, D.full))


def continuation_module(lowered):
    """The module with the compiled continuation of a lowered system: its generated module itself
    (``continue_grid``, the numerics continuation included in every lowered system)."""
    return lowered.module


def _solve(D, full: dict, dt, warm: bool, atol: float, rtol: float):
    C = compiled_solver(D)
    P = np.ascontiguousarray(_params(D.system, full, dt))
    t_index = [p.name for p in D.system.parameters].index(SCALE.name)
    cont = _continuation(D)
    n_out = len(C.outputs)
    with np.errstate(all="ignore"):
        if not warm:
            X, status, iters, resid, Y = cont.continue_grid(P, n_out, t_index, atol, rtol, _MAX_STEPS, *STEPS)
        else:
            # the first point by continuation in t, the others warm-started from their neighbour
            X, status, iters, resid, Y = cont.continue_grid(
                P[:1], n_out, t_index, atol, rtol, _MAX_STEPS, *STEPS
            )
            # starting rows: the first point's solution, NaN elsewhere (a failed warm start is
            # then not retried from a guess but continued in t below); NaN for the first point too
            # when its continuation failed: Newton from the failed iterate could reach another
            # root with status 0, and every later point would be warm-started on that branch
            X0 = np.full((P.shape[0], X.shape[1]), np.nan, dtype=dt)
            if status[0] == Status.CONVERGED:
                X0[0] = X[0]
            X, status, iters, resid, Y = C.module.solve_grid(
                X0, P, atol, rtol, _MAX_STEPS, True, -1, dt(0), 1
            )
            retry = np.flatnonzero(status != 0)
            if retry.size:
                X2, s2, i2, r2, Y2 = cont.continue_grid(
                    np.ascontiguousarray(P[retry]), n_out, t_index, atol, rtol, _MAX_STEPS, *STEPS
                )
                X, status, iters, resid, Y = X.copy(), status.copy(), iters.copy(), resid.copy(), Y.copy()
                X[retry], status[retry], resid[retry], Y[retry] = X2, s2, r2, Y2
                iters[retry] += i2
    value = Y[:, list(C.outputs).index("value")].astype(dt)
    return X.astype(dt), value, status.astype(np.int64), iters.astype(np.int64), resid.astype(float)


class PythonBackend:
    """The same equations evaluated without compilation (``backend="python"``): residual,
    Jacobian, value and start by :func:`sympy.lambdify`, Newton by :func:`asymptotics.solvers.root`
    at each step of the plain-Python twin of the compiled continuation in t
    (:func:`.continuation.continue_parameter`). Slower per point, no compilation: for a few points, and as a cross-check of the
    generated code."""

    def __init__(self, system):
        xs, ps = list(system.unknowns), list(system.parameters)
        self.F = sympy.lambdify([xs, ps], list(system.equations), modules="numpy")
        self.J = sympy.lambdify([xs, ps], system.jacobian().tolist(), modules="numpy")
        self.out = sympy.lambdify([xs, ps], system.output_expressions()["value"], modules="numpy")
        self.x0 = sympy.lambdify([ps], [system.start.get(u, sympy.Integer(0)) for u in xs], modules="numpy")
        self.t_index = ps.index(SCALE)

    def solve(self, p, atol, rtol):
        """The continuation of the compiled driver in Python (:func:`.continuation.continue_parameter`,
        Newton by :func:`asymptotics.solvers.root` at each step)."""
        cfg = Newton(atol=atol, rtol=rtol, max_steps=_MAX_STEPS)
        q = p.copy()

        def newton_at(x0, t):
            q[self.t_index] = t
            with np.errstate(all="ignore"):
                r = root(
                    lambda y: np.asarray(self.F(y, q), dtype=p.dtype),
                    np.asarray(x0, dtype=p.dtype),
                    jac=lambda y: np.asarray(self.J(y, q), dtype=p.dtype),
                    solver=cfg,
                    on_failure="return",
                )
            return r

        q[self.t_index] = 0
        with np.errstate(all="ignore"):
            x0 = np.asarray(self.x0(q), dtype=p.dtype)
        if not np.all(np.isfinite(x0)):
            return x0, int(Status.NONFINITE), 0, np.inf, np.nan
        x, status, its, res = continue_parameter(newton_at, x0, *STEPS)
        x = np.asarray(x, dtype=p.dtype)
        if status != 0:
            return x, status, its, res, np.nan
        with np.errstate(all="ignore"):
            v = self.out(x, p)
        return x, 0, its, res, v


def _params(system, full: dict, dt):
    return np.column_stack([full[p.name] for p in system.parameters]).astype(dt)


def _solve_python(B, P, dt, atol: float, rtol: float, nx: int):
    n = P.shape[0]
    X = np.full((n, nx), np.nan, dtype=dt)
    value = np.full(n, np.nan, dtype=dt)
    status = np.zeros(n, dtype=np.int64)
    iters = np.zeros(n, dtype=np.int64)
    resid = np.zeros(n)
    for i in range(n):
        X[i], status[i], iters[i], resid[i], value[i] = B.solve(P[i], atol, rtol)
    return X, value, status, iters, resid


class FullCheck:
    """Every solution of the reduced system, checked against the full (pruned, unreduced) Dyson
    equations: the eliminated g_ij are computed from the kept ones and the scaled residual
    max_i |F_i|/max(1, |g_i|) of the full equations is evaluated (vectorised over the grid).
    Multiplying through by denominators can add solutions where a denominator vanishes; there
    the back-substitution blows up and the check fails, and the point is solved again on the
    full system (which has no denominators)."""

    def __init__(self, reduced, full):
        # the g_ij (tangents d<g>_d<p> of a derivative are determined by them, linearly)
        base = [u for u in full.unknowns if not u.name.startswith("d")]
        self.base = base
        ps = list(reduced.parameters)
        subs = [reduced.expand_eliminated(u) for u in base]
        self.back = sympy.lambdify([list(reduced.unknowns), ps], subs, modules="numpy")
        eqs = [full.equations[full.unknowns.index(u)] for u in base]  # equation k belongs to unknown k
        self.residual = sympy.lambdify([base, ps], eqs, modules="numpy")
        self.trivial = not reduced.eliminated

    def __call__(self, X, P) -> np.ndarray:
        n = X.shape[0]
        if self.trivial or n == 0:
            return np.zeros(n)
        with np.errstate(all="ignore"):
            g = [np.broadcast_to(np.asarray(v), (n,)) for v in self.back(list(X.T), list(P.T))]
            r = [np.broadcast_to(np.asarray(v), (n,)) for v in self.residual(g, list(P.T))]
            G = np.column_stack(g)
            R = np.column_stack(r)
            out = np.max(np.abs(R) / np.maximum(1.0, np.abs(G)), axis=1)
        return np.where(np.isfinite(out), out, np.inf)


def _check_and_repair(D, X, value, status, iters, resid, full: dict, dt, atol, rtol):
    """The full-system check of every converged point (:class:`FullCheck`); failing points are
    solved on the full system (uncompiled, adaptive continuation in t)."""
    if D.full is None:
        return value, status, iters, resid
    P = _params(D.system, full, dt)
    ok = status == 0
    fres = np.full(len(status), np.inf)
    fres[ok] = _full_check(D)(X[ok], P[ok])
    resid = np.where(ok, np.maximum(resid, fres), resid)
    bad = np.flatnonzero(ok & ~(fres <= CHECK_TOL))
    if bad.size:
        Pf = _params(D.full, {k: v[bad] for k, v in full.items()}, dt)
        _, v2, s2, i2, r2 = _solve_python(_full_backend(D), Pf, dt, atol, rtol, len(D.full.unknowns))
        value, status, iters, resid = value.copy(), status.copy(), iters.copy(), resid.copy()
        value[bad], status[bad], resid[bad] = v2, s2, r2
        iters[bad] += i2
    return value, status, iters, resid


def evaluate_grid(
    D, at: dict, *, branch="scale", backend="compiled", on_failure="raise", atol=1e-13, rtol=1e-13
) -> ExpressionGrid:
    """The value at every point of the Cartesian grid of ``at`` (each parameter a number or a
    1-D sequence) as an :class:`ExpressionGrid`. ``branch``: see the module docstring;
    ``backend``: ``"compiled"`` (generated numba module, compiled once and cached on disk) or
    ``"python"`` (lambdified, no compilation). Raises :class:`~asymptotics.errors.ConvergenceError`
    when a point fails, unless ``on_failure="return"`` (failed points are NaN with their status)."""
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
    _check_free_limit(D, full, dt, params)
    if backend == "python":
        P = _params(D.system, full, dt)
        X, value, status, iters, resid = _solve_python(
            _python_backend(D), P, dt, float(atol), float(rtol), len(D.system.unknowns)
        )
        method = "newton (python, lambdified), adaptive continuation in the Gaussian scale t from 0"
    else:
        X, value, status, iters, resid = _solve(D, full, dt, branch == "grid", float(atol), float(rtol))
        method = "newton (compiled), continuation in the Gaussian scale t from 0" + (
            ", warm starts along the grid" if branch == "grid" else ""
        )
    value, status, iters, resid = _check_and_repair(
        D, X, value, status, iters, resid, full, dt, float(atol), float(rtol)
    )
    status[(status == 0) & ~np.isfinite(value)] = int(Status.NONFINITE)
    value = np.where(status == 0, value, np.nan)
    shown = {
        k: (v if np.iscomplexobj(v) and np.any(v.imag != 0) else v.real.copy()) for k, v in params.items()
    }
    out = ExpressionGrid(shown, value if cplx else value.real.copy(), status, iters, resid, method)
    if on_failure == "raise" and not out.converged:
        raise ConvergenceError(_failure_message(D, params, status, resid), out)
    return out


def _failure_message(D, params: dict, status, resid) -> str:
    """What a grid with failed points says: how many failed, why and where the first did, and its
    residual."""
    bad = np.flatnonzero(status != Status.CONVERGED)
    i = int(bad[0])
    where = {k: _plain(v[i]) for k, v in params.items()}
    return (
        f"{D.expression!r}: {bad.size} of {len(status)} point(s) failed ({Status(int(status[i])).message}); "
        f"first at {where}, residual {resid[i]:.3g}"
    )


def evaluate_point(
    D, at: dict, *, backend="compiled", on_failure="raise", atol=1e-13, rtol=1e-13
) -> SolverResult:
    """The value at one point (``at``: {parameter: number}) as a :class:`~asymptotics.solvers.SolverResult`
    (a float, or a complex for complex arguments)."""
    if not isinstance(at, dict):
        raise ParameterError("at", at, "a dict {parameter: number}")
    for k, v in at.items():
        if np.ndim(v) != 0:
            raise ParameterError(k, v, "a number (use evaluate_grid for several points)")
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
