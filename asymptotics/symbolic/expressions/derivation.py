r"""The chain: expression → pencil → matrix Dyson equations → reduced system → compiled solver.

:func:`derive` returns a :class:`Derivation`: the pencil, the reduced equations (``.equations``,
``.latex()``, ``.pretty()``); ``.derivative(wrt)`` differentiates the value implicitly (exact, no
finite difference). It is evaluated by the solvers layer:
:func:`asymptotics.solvers.expression_values.evaluate_point` (one point → a
:class:`~asymptotics.solvers.SolverResult`) and ``evaluate_grid`` (a grid → an ``ExpressionGrid``).

**Branch.** The Dyson equations have several solutions; the one computed is the continuation in
the Gaussian scale t (every Gaussian matrix multiplied by t) from t = 0, where the pencil is
deterministic and g = q0⁻¹ exactly, to t = 1, at fixed parameters: the branch analytic in t
through the free limit, whose expansion in t is the moment (Neumann) series of the resolvent.
It is the physical branch as long as the pencil stays invertible along the path: for a
resolvent at z = −λ < 0 of a positive matrix, or at complex z off the real axis (Im z > 0 gives
Im m(z) > 0), every point of the path is. The path is followed by a secant predictor and Newton
corrector whose step is halved whenever the corrector moves by more than 10 % (Newton leaving
the branch), so a rapidly varying path (z near the spectrum, λ → 0) is resolved rather than
jumped. Every solution of the reduced equations is then checked against the full Dyson
equations (``FullCheck`` of :mod:`asymptotics.solvers.expression_values`): elimination multiplies
through by denominators and can add solutions where one vanishes; such points are re-solved on the full system. Real z inside
the spectrum has no real solution: give z a small imaginary part (``z=x+0.01j``, or write
``(x + 1j*eps)``). ``branch="scale"`` (default) continues every point independently;
``branch="grid"`` warm-starts each point from its neighbour (faster on fine grids; a point whose
warm start fails is continued in t). Expressions whose deterministic part is singular (an
inverse with no deterministic term, e.g. ``inv(X.T@X/d)``) have no free start and are refused;
so are points where det q0 vanishes (λ = 0): take λ small instead.

>>> D = derive("tr(inv(W@W.T/d - z*I))", dims="W:d,N", ratios="N/d=psi2")
>>> D.equations                                       # the Marchenko–Pastur quadratic, m̄ = g11
(Eq(g11**2*z - g11*psi2 + g11*z + g11 + 1, 0),)
>>> from asymptotics.solvers.expression_values import evaluate_point
>>> r = evaluate_point(D, at={"z": -0.5, "psi2": 0.5})  # m̄(−1/2) = √2 at ψ2 = 1/2
>>> round(r.value, 12), r.status.label
(1.414213562373, 'converged')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import sympy

from ...errors import ExpressionError, ParameterError
from ..differentiate import implicit_derivatives
from ..pencil import Pencil
from ..pencils import LATEX_NAMES
from ..system import EquationSystem
from .assemble import SCALE, assemble
from .declarations import Declarations, declare
from .equations import dyson_equations, reduce_system
from .parser import parse

__all__ = ["derive", "Derivation", "activation_constants"]

_LATEX = {**LATEX_NAMES, sympy.Symbol("mu1"): r"\mu_1", sympy.Symbol("mu2"): r"\mu_2"}


@dataclass(frozen=True)
class Derivation:
    """A derived expression (see the module docstring).

    Attributes
    ----------
    expression : str — the input
    declarations : :class:`~.declarations.Declarations`
    pencil : :class:`~asymptotics.symbolic.Pencil` — the reduced linear pencil (the Gaussian
        variances carry the continuation scale t², t = 1 for the expression)
    system : :class:`~asymptotics.symbolic.EquationSystem` — the reduced equations in t, solved
    constants : dict name → value supplied automatically (activation constants)
    timings : dict step → seconds (derivation)
    raw_blocks : blocks of each trace's pencil before reduction
    free_determinant : det q0 (the continuation starts where it is nonzero)
    full : the pruned Dyson system before elimination (no denominators): every solution of
        ``system`` is checked against it, and a point that fails is solved on it instead
    evaluation_cache : what the solvers layer builds once for this derivation (compiled solver,
        backends; :mod:`asymptotics.solvers.expression_values`); the derivation never reads it
    """

    expression: str
    declarations: Declarations
    pencil: Pencil
    system: EquationSystem
    constants: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    raw_blocks: tuple = ()
    free_determinant: sympy.Expr = sympy.Integer(1)
    full: EquationSystem | None = None
    evaluation_cache: dict = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------------ the equations
    @cached_property
    def shown(self) -> EquationSystem:
        """The reduced system at t = 1 (the equations of the expression)."""
        return self.system.subs({SCALE: 1})

    @property
    def equations(self) -> tuple:
        """The reduced equations, ``sympy.Eq(F_i, 0)``."""
        return tuple(sympy.Eq(e, 0) for e in self.shown.equations)

    @property
    def unknowns(self) -> tuple:
        return self.system.unknowns

    @property
    def value_expression(self) -> sympy.Expr:
        """The value in the kept unknowns and the parameters (eliminated unknowns substituted)."""
        return sympy.factor(sympy.cancel(self.shown.output_expressions()["value"]))

    @property
    def parameters(self) -> tuple:
        """Names of the parameters to give at evaluation (activation constants excluded)."""
        return tuple(p.name for p in self.system.parameters if p != SCALE and p.name not in self.constants)

    def latex(self) -> str:
        """The pencil and the reduced equations in LaTeX."""
        sizes = ", ".join(sympy.latex(s, symbol_names=_LATEX) for s in self.pencil.sizes)
        lines = [
            f"% {self.expression}",
            f"% pencil: {self.pencil.blocks} blocks of relative sizes ({sizes}) × {self.declarations.reference}",
            self.pencil.latex(_LATEX),
            self.shown.with_(outputs={"value": self.value_expression}).latex(symbol_names=_LATEX),
        ]
        return "\n".join(lines)

    def pretty(self) -> str:
        """Plain text: the pencil and the reduced equations."""
        P = self.pencil
        out = [
            f"expression: {self.expression}",
            f"pencil: {P.blocks} blocks of relative sizes ({', '.join(map(str, P.sizes))}) × "
            f"{self.declarations.reference} (from {', '.join(map(str, self.raw_blocks))} before reduction)",
            sympy.pretty(sympy.Matrix(P.q0), use_unicode=True) + "  (deterministic part q0)",
        ]
        for g in P.gaussians:
            out.append(f"  block ({g.row},{g.col}): {g.coeff}·{g.name}{'ᵀ' if g.transpose else ''}")
        out.append("")
        out.append(self.shown.with_(outputs={"value": self.value_expression}).pretty())
        return "\n".join(out)

    # ------------------------------------------------------------------ derivatives
    def derivative(self, wrt: str) -> Derivation:
        """The derivative of the value with respect to the parameter ``wrt`` (implicit
        differentiation of the reduced system: exact tangent equations solved with it)."""
        sym = sympy.Symbol(wrt)
        if wrt not in self.parameters and wrt not in self.constants:
            raise ParameterError("wrt", wrt, f"one of the parameters {', '.join(self.parameters)}")
        t0 = time.perf_counter()
        D = implicit_derivatives(self.system, sym, outputs=["value"])
        D = D.with_(outputs={"value": D.outputs[f"dvalue_d{wrt}"]}, name=f"{self.system.name}_d{wrt}")
        full = None
        if self.full is not None:
            full = implicit_derivatives(self.full, sym, outputs=["value"])
            full = full.with_(outputs={"value": full.outputs[f"dvalue_d{wrt}"]})
        timings = dict(self.timings, derivative=time.perf_counter() - t0)
        return Derivation(
            f"d/d{wrt} [{self.expression}]",
            self.declarations,
            self.pencil,
            D,
            self.constants,
            timings,
            self.raw_blocks,
            self.free_determinant,
            full,
        )


def derive(
    expr: str,
    *,
    dims,
    ratios=None,
    entries: str = "unit",
    params=None,
    constants: dict | None = None,
    name: str = "expression",
) -> Derivation:
    """Derive the self-consistent equations of the normalised-trace expression ``expr``.

    ``dims`` / ``ratios`` / ``entries``: see :mod:`.declarations` (``"X:n,d; W:d,N"``,
    ``"n/d=2, N/d=1.5"``); ``params``: the allowed parameter names (``None``: any other name is a
    parameter); ``constants``: {name: value} supplied at evaluation (e.g. an activation's
    ``mu1``, ``mu2``: :func:`activation_constants`). Returns a :class:`Derivation`.
    """
    times = {}
    t0 = time.perf_counter()
    decl = declare(dims, ratios, entries)
    constants = {str(k): float(v) for k, v in (constants or {}).items()}
    parsed = parse(expr, decl, params=params, constants=constants)
    times["parse"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    A = assemble(parsed, decl, name=name)
    det = sympy.factor(sympy.Matrix(A.pencil.q0).det())
    if det == 0:
        raise ExpressionError(
            f"{parsed.text!r} is singular when the Gaussian matrices vanish (an inverse without a "
            "deterministic part, e.g. inv(X.T@X/n)): the continuation from the free limit has no start; "
            "add a ridge, e.g. inv(X.T@X/n + lam*I), and take lam small"
        )
    times["linearise"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = dyson_equations(A, name)
    times["dyson"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    red = reduce_system(full, A.pencil, prefer=full.outputs["value"].free_symbols)
    times["eliminate"] = time.perf_counter() - t0
    return Derivation(parsed.text, decl, A.pencil, red, constants, times, A.raw_blocks, det, full)


def activation_constants(spec, *, center: bool = True, name: str = "student") -> dict:
    """The Gaussian constants of an activation as expression symbols: ``mu0``, ``mu1``, ``mu2``
    (the Gaussian equivalent σ(h) ≈ μ0 + μ1 h + μ2 ξ) and ``mu2_sq``."""
    from ...activations import resolve_activation

    c = resolve_activation(spec, center=center, name=name).constants()
    return {"mu0": c.mu0, "mu1": c.mu1, "mu2": c.mu2, "mu2_sq": c.mu2_sq}
