r"""Implicit differentiation of a system ``F(x; p) = 0`` with respect to a parameter.

Differentiating ``F(x(p), p) = 0`` gives the tangent equations ``J·x' + ∂F/∂p = 0`` (J = ∂F/∂x),
linear in ``x' = dx/dp``; an output ``E(x, p)`` has the total derivative
``dE/dp = ∂E/∂p + Σ_j ∂E/∂x_j · x_j'``. This is exact (no finite difference); it is how source
traces (docs/engine.md §5: τ2 = −φ ∂g55/∂s at s = 0) and z- or λ-derivatives are obtained.

Two forms:

* ``method="augment"`` (default): the tangents ``d<x>_d<p>`` become extra unknowns with the linear
  tangent equations appended — what the compiled Newton solver handles best (block-triangular
  Jacobian, one extra linear solve per step);
* ``method="explicit"``: x' = −J⁻¹ ∂F/∂p is solved symbolically (sympy LU) and substituted into the
  outputs; fine for systems of one to three unknowns.

>>> import sympy as sp
>>> from asymptotics.symbolic.system import EquationSystem
>>> m, z, psi2 = sp.symbols("m z psi2")
>>> S = EquationSystem("mp", (m,), (z * m**2 + (1 + z - psi2) * m + 1,), outputs={"mbar": m})
>>> D = implicit_derivatives(S, z, method="explicit")
>>> sp.simplify(D.outputs["dmbar_dz"] - (-(m**2 + m) / (2 * z * m + 1 + z - psi2)))
0
"""

from __future__ import annotations

import sympy as sp

from ..errors import ParameterError
from .system import EquationSystem

__all__ = ["implicit_derivatives", "tangent_symbol"]


def tangent_symbol(u, wrt) -> sp.Symbol:
    """The symbol ``d<u>_d<wrt>`` of the derivative of unknown ``u``."""
    return sp.Symbol(f"d{u.name}_d{wrt.name}")


def implicit_derivatives(
    system: EquationSystem, wrt, *, outputs=None, method: str = "augment", name: str | None = None
) -> EquationSystem:
    """Differentiate ``system`` implicitly with respect to the parameter ``wrt``.

    ``outputs``: names of outputs to differentiate (default: all); each gives an output
    ``d<name>_d<wrt>``. Returns a new system (see the module docstring for ``method``).
    """
    wrt = sp.Symbol(wrt) if isinstance(wrt, str) else wrt
    if wrt not in system.parameters:
        raise ParameterError("wrt", wrt, f"one of the parameters {system.parameters}")
    names = list(system.outputs) if outputs is None else list(outputs)
    for k in names:
        if k not in system.outputs:
            raise ParameterError("outputs", k, f"one of {list(system.outputs)}")
    x = sp.Matrix(system.unknowns)
    F = sp.Matrix(system.equations)
    J = F.jacobian(x)
    Fp = F.diff(wrt)
    tangents = [tangent_symbol(u, wrt) for u in system.unknowns]
    if method == "augment":
        xp = sp.Matrix(tangents)
        tangent_eqs = list(J * xp + Fp)
        unknowns = tuple(system.unknowns) + tuple(tangents)
        equations = tuple(system.equations) + tuple(sp.expand(e) for e in tangent_eqs)
        start = dict(system.start)
        start.update({t: sp.Integer(0) for t in tangents})
        sub = {}
    elif method == "explicit":
        sol = J.LUsolve(-Fp)
        sub = {t: sp.cancel(v) for t, v in zip(tangents, sol, strict=True)}
        unknowns, equations, start = system.unknowns, system.equations, dict(system.start)
    else:
        raise ParameterError("method", method, "'augment' or 'explicit'")
    new_outputs = dict(system.outputs)
    for k in names:
        E = system.expand_eliminated(system.outputs[k])
        dE = sp.diff(E, wrt) + sum(sp.diff(E, u) * t for u, t in zip(system.unknowns, tangents, strict=True))
        new_outputs[f"d{k}_d{wrt.name}"] = dE.xreplace(sub) if sub else dE
    return EquationSystem(
        name=name or f"{system.name}_d{wrt.name}",
        unknowns=unknowns,
        equations=equations,
        parameters=system.parameters,
        outputs=new_outputs,
        eliminated=system.eliminated,
        start=start,
        homotopy=system.homotopy,
        description=system.description + f"; implicit derivatives with respect to {wrt}",
        notes=system.notes + (f"tangent equations J·x' + ∂F/∂{wrt} = 0 ({method})",),
    )
