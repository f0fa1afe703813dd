r"""A system of scalar equations ``F(x; p) = 0`` with named outputs: what the derivation produces
and what :mod:`asymptotics.codegen` lowers.

An :class:`EquationSystem` holds

* ``unknowns`` x (sympy symbols, in order) and ``equations`` (expressions, each ``= 0``);
* ``parameters`` p (sympy symbols, in order: the order of the parameter vector in compiled code);
* ``outputs``: named quantities (e.g. ``tau1``) as expressions of unknowns and parameters;
* ``eliminated``: unknowns removed by elimination, as expressions of the remaining ones (kept so
  that every trace of the original system can still be evaluated);
* ``start``: optional starting values (expressions of the parameters) for the unknowns;
* ``homotopy``: optional ``(parameter, value)`` where ``start`` is reliable (e.g. ``(lam, 100)``:
  the large-λ limit g → q0⁻¹); compiled solvers fall back to continuation from there.

It is immutable; transformations (:func:`~asymptotics.symbolic.eliminate`,
:func:`~asymptotics.symbolic.implicit_derivatives`) return new systems. ``fingerprint`` is a hash
of the full content and names the generated module.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import cached_property

import sympy as sp

from ..errors import ParameterError

__all__ = ["EquationSystem"]


def _sorted_symbols(syms):
    return tuple(sorted(syms, key=lambda s: s.name))


@dataclass(frozen=True)
class EquationSystem:
    """Scalar equations ``F(x; p) = 0`` with named outputs (see the module docstring)."""

    name: str
    unknowns: tuple
    equations: tuple
    parameters: tuple = ()
    outputs: dict = field(default_factory=dict)
    eliminated: dict = field(default_factory=dict)
    start: dict = field(default_factory=dict)
    homotopy: tuple = ()
    description: str = ""
    notes: tuple = ()

    def __post_init__(self):
        unknowns = tuple(self.unknowns)
        eqs = tuple(sp.sympify(e) for e in self.equations)
        object.__setattr__(self, "unknowns", unknowns)
        object.__setattr__(self, "equations", eqs)
        if len(eqs) != len(unknowns):
            raise ParameterError("equations", len(eqs), f"as many as the unknowns ({len(unknowns)})")
        syms = set()
        for e in (*eqs, *self.outputs.values(), *self.eliminated.values(), *self.start.values()):
            syms |= sp.sympify(e).free_symbols
        syms -= set(unknowns) | set(self.eliminated)
        params = tuple(self.parameters) if self.parameters else _sorted_symbols(syms)
        missing = syms - set(params)
        if missing:
            raise ParameterError(
                "parameters", params, f"a list containing every free symbol ({_sorted_symbols(missing)})"
            )
        object.__setattr__(self, "parameters", params)
        object.__setattr__(self, "outputs", {k: sp.sympify(v) for k, v in self.outputs.items()})
        object.__setattr__(self, "eliminated", {k: sp.sympify(v) for k, v in self.eliminated.items()})
        object.__setattr__(self, "start", {k: sp.sympify(v) for k, v in self.start.items()})
        object.__setattr__(self, "notes", tuple(self.notes))
        if self.homotopy:
            hp, hv = self.homotopy
            hp = sp.Symbol(hp) if isinstance(hp, str) else hp
            if hp not in params:
                raise ParameterError(
                    "homotopy", self.homotopy, f"(parameter, value) with a parameter in {params}"
                )
            object.__setattr__(self, "homotopy", (hp, float(hv)))

    # ------------------------------------------------------------------ views
    @property
    def size(self) -> int:
        return len(self.unknowns)

    def jacobian(self) -> sp.Matrix:
        """``∂F_i/∂x_j`` (sympy matrix)."""
        return sp.Matrix(self.equations).jacobian(sp.Matrix(self.unknowns))

    def as_equalities(self) -> list:
        """The equations as ``sympy.Eq(F_i, 0)``."""
        return [sp.Eq(e, 0) for e in self.equations]

    def output_expressions(self) -> dict:
        """Outputs with eliminated unknowns substituted (functions of unknowns and parameters)."""
        return {k: self.expand_eliminated(v) for k, v in self.outputs.items()}

    def expand_eliminated(self, expr):
        """Substitute the eliminated unknowns (repeatedly: they may refer to each other)."""
        expr = sp.sympify(expr)
        for _ in range(len(self.eliminated) + 1):
            new = expr.xreplace(self.eliminated)
            if new == expr:
                break
            expr = new
        return expr

    def with_(self, **changes) -> EquationSystem:
        """A copy with fields changed (dataclasses.replace)."""
        return replace(self, **changes)

    def subs(self, mapping: dict, name: str | None = None) -> EquationSystem:
        """Substitute parameters (e.g. numerical values or a source parameter at 0)."""
        m = {sp.sympify(k): sp.sympify(v) for k, v in mapping.items()}

        def sb(e):
            return sp.sympify(e).subs(m)

        params = tuple(p for p in self.parameters if p not in m)
        return EquationSystem(
            name=name or self.name,
            unknowns=self.unknowns,
            equations=tuple(sb(e) for e in self.equations),
            parameters=params if params else (),
            outputs={k: sb(v) for k, v in self.outputs.items()},
            eliminated={k: sb(v) for k, v in self.eliminated.items()},
            start={k: sb(v) for k, v in self.start.items()},
            homotopy=self.homotopy if self.homotopy and self.homotopy[0] not in m else (),
            description=self.description,
            notes=self.notes,
        )

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of the system (unknowns, equations, parameters, outputs)."""
        text = sp.srepr(
            (
                self.unknowns,
                self.equations,
                self.parameters,
                tuple(self.outputs.items()),
                tuple(self.eliminated.items()),
                tuple(self.start.items()),
                self.homotopy,
            )
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def __hash__(self):
        return hash(self.fingerprint)

    def __eq__(self, other):
        return (
            isinstance(other, EquationSystem)
            and self.name == other.name
            and self.fingerprint == other.fingerprint
        )

    # ------------------------------------------------------------------ printing
    def _display(self, e):
        """An equation for display: collected in the (tangent) unknowns."""
        tangents = [u for u in self.unknowns if re.fullmatch(r"d\w+?_d\w+", u.name)]
        try:
            return sp.collect(sp.expand(e), tangents or list(self.unknowns))
        except Exception:  # pragma: no cover - display only
            return e

    def _display_outputs(self):
        """Outputs for display: eliminated unknowns substituted when an output refers to one."""
        out = {}
        for k, v in self.outputs.items():
            out[k] = (
                sp.factor(sp.cancel(self.expand_eliminated(v)))
                if v.free_symbols & set(self.eliminated)
                else v
            )
        return out

    def latex_names(self, extra: dict | None = None) -> dict:
        """LaTeX names: tangents d<u>_d<p> as ∂_p u, plus ``extra`` (e.g. λ for ``lam``)."""
        names = dict(extra or {})
        syms = set(self.unknowns) | set(self.parameters)
        for e in self.outputs.values():
            syms |= e.free_symbols
        for u in syms:
            m = re.fullmatch(r"d(\w+?)_d(\w+)", u.name)
            if m and u not in names:
                inner, wrt = sp.Symbol(m.group(1)), sp.Symbol(m.group(2))
                names[u] = rf"\partial_{{{names.get(wrt, sp.latex(wrt))}}} {sp.latex(inner)}"
        return names

    def latex(self, *, outputs: bool = True, symbol_names: dict | None = None) -> str:
        """The system as a LaTeX ``aligned`` environment (equations, then outputs)."""
        names = self.latex_names(symbol_names)

        def tex(e):
            return sp.latex(e, symbol_names=names)

        lines = [f"{tex(self._display(e))} &= 0" for e in self.equations]
        if outputs:
            for k, v in self._display_outputs().items():
                label = k.replace("_", r"\_")
                lines.append(f"\\mathrm{{{label}}} &= {tex(v)}")
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    def pretty(self) -> str:
        """Plain-text rendering (sympy's pretty printer, unicode)."""
        out = [
            f"{self.name}: {len(self.unknowns)} unknown(s) {', '.join(map(str, self.unknowns))}; "
            f"parameters {', '.join(map(str, self.parameters))}"
        ]
        if self.description:
            out.append(self.description)
        for e in self.equations:
            out.append(sp.pretty(sp.Eq(self._display(e), 0), use_unicode=True))
        for k, v in self._display_outputs().items():
            out.append(f"{k} = " + sp.pretty(v, use_unicode=True))
        return "\n\n".join(out)
