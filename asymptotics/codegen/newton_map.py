r"""Elementwise Newton maps for two positive unknowns, rendered from a derived system.

For a system F(g; p) = 0 with two unknowns g = (g_0, g_1) > 0 — route C's reduced pencil
equations for the traces g11, g22 ∈ (0, 1] — :func:`render_newton_map` prints the per-point
expressions that the template ``rendering/templates/newton_map_grid.py`` asks for, as
``sympy.codegen.ast`` function definitions (:mod:`asymptotics.codegen.expressions`) printed by the
one printer (:class:`~asymptotics.rendering.printing.NumbaExprPrinter`) after ``sympy.cse``:

* ``newton_terms``: F and the Jacobian J = ∂F/∂g;
* ``finish_terms``: F, J and ∂F/∂s, the right-hand side of the tangent equations J g' = −∂F/∂s
  of a source parameter s (zero without one);
* ``term_sizes``: s_k = Σ|terms of F_k| (:func:`asymptotics.codegen.expressions.equation_terms`);
* ``point_outputs``: every output of the system (which may use the tangents g').

The algorithm — the Newton step in the log-unknowns u = log g with J_u = J·diag(g), the 2×2
solves by Cramer's rule, the clipped grid loop, the tangents and the scaled residual
max_k |F_k|/max(1, s_k) — is the template's, written once there. The module goes through the one
module cache (:mod:`asymptotics.rendering.modules`).
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.ast import Assignment, Return

from ..rendering.printing import Identifier, NumbaExprPrinter, prepare, safe_name
from ..rendering.templates import NEWTON_MAP_GRID, render_template
from .expressions import constants, function_source, size_statements, store_function, tuple_function, unpack

__all__ = ["render_newton_map"]


def _point_unpack(exprs, p) -> list[Assignment]:
    """``p_k = P[i, k]`` for the parameters the expressions use (the grid row i)."""
    used = set().union(*(sp.sympify(e).free_symbols for e in exprs))
    return unpack({q: ("P", "i", k) for k, q in enumerate(p) if q in used})


def _check(system, tangents, d_ds):
    if len(system.unknowns) != 2 or len(tangents) not in (0, 2) or len(d_ds) != len(tangents):
        raise ValueError("render_newton_map needs two unknowns and, optionally, two tangents with their ∂F/∂s")


def render_newton_map(system, tangents=(), d_ds=(), notes=()) -> str:
    """Source text of the Newton-map module of ``system`` (two unknowns, positive).

    ``tangents`` are optional tangent symbols (dg_0/ds, dg_1/ds) that the outputs may use —
    listed among the system's parameters but computed, not read — and ``d_ds`` the expressions
    ∂F/∂s of the tangent equations J g' = −∂F/∂s. The module's constants ``UNKNOWNS``,
    ``PARAMETERS`` (the columns of P) and ``OUTPUTS`` (the columns of Y) name the arrays.
    """
    _check(system, tangents, d_ds)
    x = list(system.unknowns)
    p = [q for q in system.parameters if q not in tangents]
    names = {u: safe_name("x_", u) for u in x}
    names.update({q: safe_name("p_", q) for q in p})
    names.update({t: safe_name("t_", t) for t in tangents})
    printer = NumbaExprPrinter(names)
    F = [prepare(e) for e in system.equations]
    Jm = sp.Matrix(system.equations).jacobian(sp.Matrix(x))
    J = [prepare(Jm[i, j]) for i in range(2) for j in range(2)]
    Fs = [prepare(e) for e in d_ds] or [sp.Integer(0), sp.Integer(0)]
    outs = system.output_expressions()
    O = [prepare(e) for e in outs.values()]
    t = list(tangents) or [Identifier("t0"), Identifier("t1")]
    at_point = [*x, Identifier("P"), Identifier("i")]
    s = [Identifier("s0"), Identifier("s1")]
    sizes = [*_point_unpack(F, p), *size_statements(s, F, prepared=True), Return(sp.Tuple(*s))]
    definitions = "\n\n\n".join([
        constants(printer, {"UNKNOWNS": tuple(map(str, x)), "PARAMETERS": tuple(map(str, p)),
                            "OUTPUTS": tuple(outs), "N_OUTPUTS": len(O)}),
        tuple_function("newton_terms", at_point, _point_unpack(F + J, p), F + J, printer, "n"),
        tuple_function("finish_terms", at_point, _point_unpack(F + J + Fs, p), F + J + Fs, printer, "f"),
        function_source("term_sizes", at_point, sizes, printer),
        store_function("point_outputs", [*x, *t, Identifier("P"), Identifier("i"), Identifier("Y")],
                       _point_unpack(O, p), O, printer, "o"),
    ])
    notes = (f"system {system.name!r}, fingerprint {system.fingerprint}", *notes)
    return render_template(NEWTON_MAP_GRID, origin=f"system {system.name!r}", definitions=definitions, notes=notes)
