r"""Lowering an :class:`~asymptotics.symbolic.EquationSystem` to a compiled module on disk.

:func:`lower` renders one Python module per system — named by a hash of its source, in the user
cache directory (:func:`asymptotics._cache.load_generated_module`), hence regenerated exactly when
the system changes — and imports it. Every function in it is ``numba.njit(cache=True)``, so a
second process loads the machine code instead of compiling. The module defines

``residual(x, p)``      F(x; p) (1-D array, dtype of x)
``jacobian(x, p)``      ∂F_i/∂x_j
``outputs(x, p)``       the named outputs (eliminated unknowns substituted)
``start(p)``            starting values (the system's ``start``, e.g. the large-q0 limit q0⁻¹)
``newton(x0, p, atol, rtol, max_steps)``   → (x, status, iterations, residual)
``solve_grid(X0, P, atol, rtol, max_steps, warm, homotopy_index, homotopy_value, homotopy_steps)``
    → (X, status, iterations, residual, Y): one solve per row of the parameter grid P
    (n_points × n_params), warm-started from the previous converged point; when a point fails
    from its warm start and from X0, it is reached by continuation of parameter
    ``homotopy_index`` from ``homotopy_value`` (where the start is reliable) in
    ``homotopy_steps`` geometric steps. Y holds the outputs.

``x`` and ``p`` are ``float64`` arrays, or both ``complex128`` (z off the real axis). Status
codes and the residual norm are those of :mod:`asymptotics.solvers` (0 converged, 1 max steps,
2 non-finite, 3 singular/stagnation; residual max_i |F_i|/max(1, |x_i|)); the Newton loop is the
algorithm of :func:`asymptotics.solvers.compiled.newton_nb` with the system's functions bound at
module level (numba cannot cache kernels that take compiled functions as arguments).
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import sympy as sp

from .._cache import atomic_write_text, cache_dir, load_generated_module
from ..symbolic.system import EquationSystem
from .printing import NumbaExprPrinter, prepare, safe_name

__all__ = ["lower", "render_module", "LoweredSystem"]

_TEMPLATE_SOLVERS = """

@njit(cache=True)
def _check(r, x, atol, rtol):
    ok = True
    res = 0.0
    for i in range(r.shape[0]):
        a = abs(r[i])
        ax = abs(x[i])
        if not (math.isfinite(a) and math.isfinite(ax)):
            return False, False, math.inf
        if a > atol + rtol * ax:
            ok = False
        s = a / max(1.0, ax)
        if s > res:
            res = s
    return ok, True, res


@njit(cache=True)
def _sq(v):
    t = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        t += a * a
    return t


@njit(cache=True)
def _solve_linear(A, b):
    # Gaussian elimination with partial pivoting (small dense systems; no LAPACK binding to
    # compile); ok = False when a pivot is zero or negligible (singular Jacobian)
    n = b.shape[0]
    M = A.copy()
    y = b.copy()
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(M[i, j]))
    if not (scale > 0.0):
        return y, False
    for k in range(n):
        piv = k
        best = abs(M[k, k])
        for i in range(k + 1, n):
            if abs(M[i, k]) > best:
                best = abs(M[i, k])
                piv = i
        if best <= 1e-14 * scale:
            return y, False
        if piv != k:
            for j in range(n):
                tmp = M[k, j]
                M[k, j] = M[piv, j]
                M[piv, j] = tmp
            tmp = y[k]
            y[k] = y[piv]
            y[piv] = tmp
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            if f != 0:
                for j in range(k, n):
                    M[i, j] -= f * M[k, j]
                y[i] -= f * y[k]
    for k in range(n - 1, -1, -1):
        acc = y[k]
        for j in range(k + 1, n):
            acc -= M[k, j] * y[j]
        y[k] = acc / M[k, k]
    return y, True


@njit(cache=True)
def newton(x0, p, atol, rtol, max_steps):
    x = x0.copy()
    fx = residual(x, p)
    res = math.inf
    for k in range(max_steps + 1):
        ok, finite, res = _check(fx, x, atol, rtol)
        if not finite:
            return x, 2, k, math.inf
        if ok:
            return x, 0, k, res
        if k == max_steps:
            return x, 1, k, res
        jx = jacobian(x, p)
        for v in jx.ravel():
            if not math.isfinite(abs(v)):
                return x, 2, k, res
        dx, ok = _solve_linear(jx, -fx)
        if not ok:
            return x, 3, k, res
        phi0 = _sq(fx)
        t = 1.0
        accepted = False
        xn = x
        fn = fx
        while t >= 2.0 ** -30:
            xn = x + t * dx
            fn = residual(xn, p)
            phin = _sq(fn)
            if math.isfinite(phin) and phin <= (1.0 - 1e-4 * t) * phi0:
                accepted = True
                break
            t *= 0.5
        if not accepted:
            return x, 3, k, res
        x = xn
        fx = fn
    return x, 1, max_steps, res


@njit(cache=True)
def _homotopy(x0, p, atol, rtol, max_steps, index, value, steps):
    # continuation of parameter `index` from `value` (where x0 is reliable) to p[index]
    q = p.copy()
    target = p[index]
    x = x0.copy()
    it = 0
    st = 1
    res = math.inf
    for k in range(steps + 1):
        w = k / steps
        if value.real > 0 and target.real > 0 and value.imag == 0 and target.imag == 0:
            q[index] = value * (target / value) ** w   # geometric path between positive values
        else:
            q[index] = value + (target - value) * w
        if k == 0:
            x = start(q)
        x, st, it_k, res = newton(x, q, atol, rtol, max_steps)
        it += it_k
        if st != 0:
            return x, st, it, res
    return x, st, it, res


@njit(cache=True)
def solve_grid(X0, P, atol, rtol, max_steps, warm, homotopy_index, homotopy_value, homotopy_steps):
    n = P.shape[0]
    dim = X0.shape[1]
    X = np.empty((n, dim), dtype=X0.dtype)
    Y = np.empty((n, N_OUTPUTS), dtype=X0.dtype)
    status = np.empty(n, dtype=np.int64)
    iters = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.float64)
    have_prev = False
    prev = X0[0].copy()
    for i in range(n):
        x0 = X0[i] if X0.shape[0] == n else X0[0]
        st = 1
        it = 0
        res = math.inf
        x = x0
        if warm and have_prev:
            x, st, it, res = newton(prev, P[i], atol, rtol, max_steps)
        if st != 0:
            x2, st2, it2, res2 = newton(x0, P[i], atol, rtol, max_steps)
            it += it2
            if st2 == 0 or res2 < res:
                x, st, res = x2, st2, res2
        if st != 0 and homotopy_index >= 0:
            x3, st3, it3, res3 = _homotopy(x0, P[i], atol, rtol, max_steps, homotopy_index,
                                           homotopy_value, homotopy_steps)
            it += it3
            if st3 == 0 or res3 < res:
                x, st, res = x3, st3, res3
        X[i] = x
        status[i] = st
        iters[i] = it
        resid[i] = res
        Y[i] = outputs(x, P[i])
        if st == 0:
            prev = x.copy()
            have_prev = True
    return X, status, iters, resid, Y
"""


@dataclass(frozen=True)
class LoweredSystem:
    """A system lowered to a compiled module.

    Attributes: ``name``; ``module`` (the imported generated module); ``path`` (its file);
    ``unknowns``, ``parameters``, ``outputs`` (names, in the order used by the compiled
    functions); ``homotopy`` (parameter index and value, or (−1, 0.0)); ``from_index`` (True when
    the module was found through the on-disk index without re-deriving the system).
    :attr:`system` gives the symbolic system (derived on first access when loaded from the index).
    """

    name: str
    module: ModuleType
    path: Path
    unknowns: tuple
    parameters: tuple
    outputs: tuple
    homotopy: tuple
    from_index: bool
    _system: object = None

    @property
    def system(self) -> EquationSystem:
        if self._system is not None:
            return self._system
        from ..symbolic.registry import get_system

        return get_system(self.name)


def _body(assignments, exprs, printer, target, dtype_expr, shape):
    lines = []
    for sym, e in assignments:
        lines.append(f"    {printer._names[sym]} = {printer.doprint(e)}")
    if len(shape) == 1:
        lines.append(f"    {target} = np.zeros({shape[0]}, dtype={dtype_expr})")
        for i, e in enumerate(exprs):
            if e != 0:
                lines.append(f"    {target}[{i}] = {printer.doprint(e)}")
    else:
        lines.append(f"    {target} = np.zeros(({shape[0]}, {shape[1]}), dtype={dtype_expr})")
        for (i, j), e in exprs:
            if e != 0:
                lines.append(f"    {target}[{i}, {j}] = {printer.doprint(e)}")
    lines.append(f"    return {target}")
    return lines


def render_module(system: EquationSystem) -> str:
    """The source text of the generated module for ``system``."""
    x = system.unknowns
    p = system.parameters
    names = {u: safe_name("x_", u) for u in x}
    names.update({q: safe_name("p_", q) for q in p})
    F = [prepare(e) for e in system.equations]
    Jm = sp.Matrix(system.equations).jacobian(sp.Matrix(x))
    J = [((i, j), prepare(Jm[i, j])) for i in range(len(x)) for j in range(len(x))]
    out_exprs = system.output_expressions()
    O = [prepare(e) for e in out_exprs.values()]
    start = [prepare(system.start.get(u, sp.Integer(0))) for u in x]

    def unpack():
        lines = [f"    {names[u]} = x[{i}]" for i, u in enumerate(x)]
        lines += [f"    {names[q]} = p[{i}]" for i, q in enumerate(p)]
        return lines

    def cse_block(exprs, tag):
        syms = sp.numbered_symbols(f"_{tag}")
        repl, reduced = sp.cse(exprs, symbols=syms, optimizations="basic")
        for s_, _ in repl:
            names[s_] = str(s_)
        return repl, reduced

    printer = NumbaExprPrinter(names)
    lines = [
        f"# Generated by asymptotics.codegen.lower from system {system.name!r}; do not edit.",
        f"# fingerprint {system.fingerprint}",
        f"# unknowns x: {', '.join(map(str, x))}",
        f"# parameters p: {', '.join(map(str, p))}",
        f"# outputs: {', '.join(out_exprs)}",
        "import math",
        "",
        "import numpy",
        "import numpy as np",
        "from numba import njit",
        "",
        f"UNKNOWNS = {tuple(map(str, x))!r}",
        f"PARAMETERS = {tuple(map(str, p))!r}",
        f"OUTPUTS = {tuple(out_exprs)!r}",
        f"N_OUTPUTS = {len(out_exprs)}",
        f"HOMOTOPY = {(p.index(system.homotopy[0]), float(system.homotopy[1])) if system.homotopy else (-1, 0.0)!r}",
        "",
    ]
    repl, red = cse_block(F, "r")
    lines += [
        "",
        "@njit(cache=True)",
        "def residual(x, p):",
        *unpack(),
        *_body(repl, red, printer, "out", "x.dtype", (len(x),)),
    ]
    repl, red = cse_block([e for _, e in J], "j")
    lines += [
        "",
        "",
        "@njit(cache=True)",
        "def jacobian(x, p):",
        *unpack(),
        *_body(
            repl,
            list(zip([ij for ij, _ in J], red, strict=True)),
            printer,
            "out",
            "x.dtype",
            (len(x), len(x)),
        ),
    ]
    repl, red = cse_block(O, "o") if O else ([], [])
    lines += ["", "", "@njit(cache=True)", "def outputs(x, p):", *unpack()]
    lines += (
        _body(repl, red, printer, "out", "x.dtype", (len(O),))[:]
        if O
        else ["    return np.zeros(0, dtype=x.dtype)"]
    )
    plines = [f"    {names[q]} = p[{i}]" for i, q in enumerate(p)]
    lines += [
        "",
        "",
        "@njit(cache=True)",
        "def start(p):",
        *plines,
        *_body([], start, printer, "out", "p.dtype", (len(x),)),
    ]
    src = "\n".join(lines) + "\n" + _TEMPLATE_SOLVERS
    return src


_CODE_FILES = ("symbolic", "codegen")


@cache
def _code_hash() -> str:
    """Hash of the code that derives and renders systems (symbolic/, codegen/, versions)."""
    import sympy

    from .. import _version

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(f"{_version.__version__}|{sympy.__version__}".encode())
    for sub in _CODE_FILES:
        for f in sorted((root / sub).glob("*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _builder_hash(name: str) -> str:
    """Hash of the source file of a registered system's builder (systems registered by theory
    modules live outside symbolic/)."""
    from ..symbolic.registry import _REGISTRY

    entry = _REGISTRY.get(name)
    try:
        return hashlib.sha256(Path(inspect.getsourcefile(entry.build)).read_bytes()).hexdigest()[:16]
    except (TypeError, OSError, AttributeError):
        return "nosource"


def _index_path(key: str) -> Path:
    return cache_dir("generated/index") / f"{key}.txt"


def _load(path: Path, system, name, from_index) -> LoweredSystem:
    src = path.read_text()
    mod = load_generated_module(src, prefix=path.stem.rsplit("_", 1)[0])
    params = tuple(mod.PARAMETERS)
    hom = tuple(mod.HOMOTOPY)
    return LoweredSystem(
        name=name,
        module=mod,
        path=Path(mod.__file__),
        unknowns=tuple(mod.UNKNOWNS),
        parameters=params,
        outputs=tuple(mod.OUTPUTS),
        homotopy=hom,
        from_index=from_index,
        _system=system,
    )


_LOADED: dict = {}


def lower(system, *, refresh: bool = False) -> LoweredSystem:
    """Render, write (if new) and import the compiled module of ``system`` (an
    :class:`EquationSystem` or the name of a registered system).

    An on-disk index maps (registered name + hash of the deriving code) and (system
    fingerprint) to the module file, so that a new process neither re-derives nor re-renders a
    system it has lowered before (and numba loads the cached machine code). ``refresh=True``
    ignores the index.
    """
    if isinstance(system, str):
        name = system
        key = f"name_{safe_name('', name)}_{_code_hash()}_{_builder_hash(name)}"
        sys_obj = None
    else:
        name = system.name
        key = f"fp_{safe_name('', name)}_{system.fingerprint}_{_code_hash()}"
        sys_obj = system
    if not refresh and key in _LOADED:
        return _LOADED[key]
    idx = _index_path(key)
    if not refresh and idx.exists():
        path = cache_dir("generated") / idx.read_text().strip()
        if path.exists():
            out = _load(path, sys_obj, name, True)
            _LOADED[key] = out
            return out
    if sys_obj is None:
        from ..symbolic.registry import get_system

        sys_obj = get_system(name)
    src = render_module(sys_obj)
    mod = load_generated_module(src, prefix=f"sys_{safe_name('', name)}")
    atomic_write_text(idx, Path(mod.__file__).name + "\n")
    out = _load(Path(mod.__file__), sys_obj, name, False)
    _LOADED[key] = out
    return out
