r"""Lowering an :class:`~asymptotics.symbolic.EquationSystem` to a compiled module on disk.

:func:`lower` renders one module per system: the system's expressions, printed by
:class:`~asymptotics.rendering.printing.NumbaExprPrinter` (:mod:`asymptotics.codegen.expressions`),
in place of the placeholders of the template ``asymptotics/rendering/templates/system_solvers.py``
(which compiles them), with the numerics layer's dense linear algebra, Newton and continuation
included (``asymptotics/numerics/templates/{newton,continuation}.py``: the solvers and grid drivers,
their kernels copied verbatim). The module is named by the hash of its source and lives in
the user cache (:mod:`asymptotics.rendering.modules`); every function is
``numba.njit(cache=True)``, so a second process loads the machine code instead of compiling.
The module defines

``residual(x, p)``        F(x; p) (1-D array, dtype of x)
``residual_scale(x, p)``  s_i = Σ_k |t_ik|, the size of the terms of each equation (float64)
``jacobian(x, p)``        ∂F_i/∂x_j
``outputs(x, p)``         the named outputs (eliminated unknowns substituted)
``start(p)``              starting values (the system's ``start``, e.g. the large-q0 limit q0⁻¹)
``newton(x0, p, atol, rtol, max_steps)`` → (x, status, iterations, residual, at_floor)
``continue_parameter(p, index, value, atol, rtol, max_steps, h0, hmin, hmax, delta, secant)``
    → the same, by continuation of parameter ``index`` from ``value`` (the numerics continuation);
``continue_grid(P, n_outputs, t_index, atol, rtol, max_steps, h0, hmin, hmax, delta)``
    → (X, status, iterations, residual, Y): every row by continuation of parameter ``t_index`` from 0;
``solve_grid_full(X0, P, atol, rtol, max_steps, warm, homotopy_index, homotopy_value, homotopy_steps)``
    → (X, status, iterations, residual, at_floor, Y): one solve per row of the parameter grid P;
``solve_grid(…)`` the same without ``at_floor``: (X, status, iterations, residual, Y).

``x`` and ``p`` are ``float64`` arrays, or both ``complex128`` (z off the real axis). Statuses
are the codes of :class:`asymptotics.solvers.Status`; the stopping rule |F_i| ≤ atol + rtol·s_i,
the round-off floor, the step control and the grid strategy are those documented in the templates.

**Fast start.** Deriving a registered system takes seconds of sympy work, so :func:`lower` also
keeps a :class:`~asymptotics.rendering.modules.DerivationIndex` entry: (registered name, hash of
the deriving code — ``asymptotics/symbolic``, ``asymptotics/codegen``, ``asymptotics/rendering``,
``asymptotics/numerics``, the builder's source file — ) or (system fingerprint, hash of the code) → module file. A new process finds the module
through it without deriving or rendering; the module file itself is still the one named by the
hash of its source.

>>> from asymptotics.codegen import lower
>>> L = lower("mp_gram_reduced")                     # doctest: +SKIP
>>> L.unknowns, L.parameters                         # doctest: +SKIP
(('g11',), ('psi2', 'z'))
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import sympy as sp

from ..numerics.templates import CONTINUATION, DENSE_LINALG, NEWTON
from ..rendering.modules import DerivationIndex, code_hash, package_files
from ..rendering.printing import NumbaExprPrinter, prepare, safe_name
from ..rendering.templates import SYSTEM_SOLVERS, render_template
from ..symbolic.system import EquationSystem
from .expressions import array_function, constants, scale_function, unpack

__all__ = ["lower", "render_module", "LoweredSystem", "SOLVER_TEMPLATES"]

#: What a lowered system's module includes in front of its compiled functions: the dense linear algebra,
#: the one compiled Newton and the one compiled continuation (in this order: each uses the former).
SOLVER_TEMPLATES = (DENSE_LINALG, NEWTON, CONTINUATION)


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


def render_definitions(system: EquationSystem) -> str:
    """The system-specific part of the module: constants and the compiled ``residual``,
    ``residual_scale``, ``jacobian``, ``outputs``, ``start`` (the template's placeholders)."""
    x = system.unknowns
    p = system.parameters
    n = len(x)
    names = {u: safe_name("x_", u) for u in x}
    names.update({q: safe_name("p_", q) for q in p})
    printer = NumbaExprPrinter(names)
    F = [prepare(e) for e in system.equations]
    Jm = sp.Matrix(system.equations).jacobian(sp.Matrix(x))
    J = [((i, j), prepare(Jm[i, j])) for i in range(n) for j in range(n)]
    out_exprs = system.output_expressions()
    O = [prepare(e) for e in out_exprs.values()]
    start = [prepare(system.start.get(u, sp.Integer(0))) for u in x]
    unpacked = unpack({u: ("x", i) for i, u in enumerate(x)} | {q: ("p", i) for i, q in enumerate(p)})
    homotopy = (p.index(system.homotopy[0]), float(system.homotopy[1])) if system.homotopy else (-1, 0.0)
    lines = [
        "import numpy",
        "",
        constants(printer, {"UNKNOWNS": tuple(map(str, x)), "PARAMETERS": tuple(map(str, p)),
                            "OUTPUTS": tuple(out_exprs), "N_OUTPUTS": len(out_exprs), "HOMOTOPY": homotopy}),
        "",
        "",
        *array_function("residual", "x, p", unpacked, F, printer, "r", "x.dtype"),
        "",
        "",
        *scale_function("residual_scale", "x, p", unpacked, F, printer, prepared=True),
        "",
        "",
        *array_function("jacobian", "x, p", unpacked, J, printer, "j", "x.dtype", shape=(n, n)),
        "",
        "",
        *array_function("outputs", "x, p", unpacked, O, printer, "o", "x.dtype"),
        "",
        "",
        *array_function("start", "p", unpacked[n:], start, printer, "t", "p.dtype"),
    ]
    return "\n".join(lines) + "\n"


def render_module(system: EquationSystem) -> str:
    """The source text of the generated module for ``system``."""
    notes = (
        f"system {system.name!r}, fingerprint {system.fingerprint}",
        f"unknowns x: {', '.join(map(str, system.unknowns))}",
        f"parameters p: {', '.join(map(str, system.parameters))}",
    )
    return render_template(SYSTEM_SOLVERS, origin=f"system {system.name!r}", definitions=render_definitions(system),
                           notes=notes, include=SOLVER_TEMPLATES)


@cache
def _code_hash() -> str:
    """Hash of the code that derives and renders systems (symbolic/, codegen/, rendering/, the
    numerics templates, versions)."""
    return code_hash(package_files("symbolic", "codegen", "rendering", "numerics"))


def _builder_hash(name: str) -> str:
    """Hash of the source file of a registered system's builder (systems registered by theory
    modules live outside symbolic/)."""
    from ..symbolic.registry import get_entry

    try:
        return hashlib.sha256(Path(inspect.getsourcefile(get_entry(name).build)).read_bytes()).hexdigest()[:16]
    except (TypeError, OSError, AttributeError):
        return "nosource"


_INDEX = DerivationIndex()
_LOADED: dict = {}


def lower(system, *, refresh: bool = False) -> LoweredSystem:
    """Render, write (if new) and import the compiled module of ``system`` (an
    :class:`EquationSystem` or the name of a registered system).

    A new process finds a module it has lowered before through the derivation index (module
    docstring) without deriving or rendering it; ``refresh=True`` ignores the index.
    """
    if isinstance(system, str):
        name, sys_obj = system, None
        key = f"name_{safe_name('', name)}_{_code_hash()}_{_builder_hash(name)}"
    else:
        name, sys_obj = system.name, system
        key = f"fp_{safe_name('', name)}_{system.fingerprint}_{_code_hash()}"
    if not refresh and key in _LOADED:
        return _LOADED[key]

    def render():
        nonlocal sys_obj
        if sys_obj is None:
            from ..symbolic.registry import get_system

            sys_obj = get_system(name)
        return render_module(sys_obj)

    mod, from_index = _INDEX.load(key, f"sys_{safe_name('', name)}", render, refresh=refresh)
    out = LoweredSystem(
        name=name,
        module=mod,
        path=Path(mod.__file__),
        unknowns=tuple(mod.UNKNOWNS),
        parameters=tuple(mod.PARAMETERS),
        outputs=tuple(mod.OUTPUTS),
        homotopy=tuple(mod.HOMOTOPY),
        from_index=from_index,
        _system=sys_obj,
    )
    _LOADED[key] = out
    return out
