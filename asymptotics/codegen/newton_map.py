r"""Elementwise Newton maps for two positive unknowns, rendered from a derived system.

For a system F(g; p) = 0 with two unknowns g = (g_0, g_1) > 0 — route C's reduced pencil
equations for the traces g11, g22 ∈ (0, 1] — :func:`render_newton_map` prints, with the one
printer (:class:`~asymptotics.rendering.printing.NumbaExprPrinter`) after ``sympy.cse``,

* ``log_newton_step(U, P, i)``: in the log-unknowns u = log g (positivity built in), with
  J_u = J·diag(g), the step Δ = J_u⁻¹F written out by Cramer's rule,

      Δ_0 = (d f_0 − b f_1)/det,   Δ_1 = (a f_1 − c f_0)/det,   [[a, b], [c, d]] = J_u,
      det = ad − bc;

* ``finish_point(U, P, i, Y)``: at the solution, the tangents g' = dg/ds of a source
  parameter s by the implicit function theorem, J g' = −∂F/∂s (the same 2×2 solve), every output
  of the system (which may use the tangents), and the residual max_k |F_k|/max(1, s_k) with
  s_k = Σ|terms of F_k| (:func:`asymptotics.codegen.expressions.equation_terms`);

in place of the placeholders of the template ``templates/newton_map_grid.py``, whose loops
(``newton_map``: one step clipped to |Δ| ≤ 2 at every point; ``finish``) follow. The module
goes through the one module cache (:mod:`asymptotics.rendering.modules`).
"""

from __future__ import annotations

import sympy as sp

from ..rendering.printing import NumbaExprPrinter, prepare, safe_name
from ..rendering.templates import NEWTON_MAP_GRID, render_template
from .expressions import cse_lines, equation_terms

__all__ = ["render_newton_map"]


def _unpack(x, p, names):
    ind = "    "
    lines = [f"{ind}{names[x[0]]} = math.exp(U[0, i])", f"{ind}{names[x[1]]} = math.exp(U[1, i])"]
    return lines + [f"{ind}{names[q]} = P[i, {k}]" for k, q in enumerate(p)]


def render_newton_map(system, tangents=(), d_ds=(), notes=()) -> str:
    """Source text of the Newton-map module of ``system`` (two unknowns, positive).

    ``tangents`` are optional tangent symbols (dg_0/ds, dg_1/ds) that the outputs may use —
    listed among the system's parameters but computed, not read — and ``d_ds`` the expressions
    ∂F/∂s of the tangent equations J g' = −∂F/∂s. The module's constants ``UNKNOWNS``,
    ``PARAMETERS`` (the columns of P) and ``OUTPUTS`` (the columns of Y) name the arrays.
    """
    x = list(system.unknowns)
    if len(x) != 2 or len(tangents) not in (0, 2) or len(d_ds) != len(tangents):
        raise ValueError("render_newton_map needs two unknowns and, optionally, two tangents with their ∂F/∂s")
    p = [q for q in system.parameters if q not in tangents]
    names = {u: safe_name("x_", u) for u in x}
    names.update({q: safe_name("p_", q) for q in p})
    names.update({t: safe_name("t_", t) for t in tangents})
    F = [prepare(e) for e in system.equations]
    Jm = sp.Matrix(system.equations).jacobian(sp.Matrix(x))
    J = [prepare(Jm[i, j]) for i in range(2) for j in range(2)]
    Fs = [prepare(e) for e in d_ds]
    outs = system.output_expressions()
    O = [prepare(e) for e in outs.values()]
    g0, g1 = names[x[0]], names[x[1]]
    ind = "    "

    step = ["def log_newton_step(U, P, i):", *_unpack(x, p, names)]
    pre, (f0, f1, j00, j01, j10, j11) = cse_lines(F + J, NumbaExprPrinter(dict(names)), "n")
    step += pre
    step += [
        f"{ind}f0 = {f0}",
        f"{ind}f1 = {f1}",
        f"{ind}a = ({j00}) * {g0}",
        f"{ind}b = ({j01}) * {g1}",
        f"{ind}c = ({j10}) * {g0}",
        f"{ind}d = ({j11}) * {g1}",
        f"{ind}det = a * d - b * c",
        f"{ind}return (d * f0 - b * f1) / det, (a * f1 - c * f0) / det",
    ]

    fin = ["def finish_point(U, P, i, Y):", *_unpack(x, p, names)]
    printer = NumbaExprPrinter(dict(names))
    pre, vals = cse_lines(F + J + Fs, printer, "f")
    f0, f1, j00, j01, j10, j11 = vals[:6]
    fin += pre
    fin += [f"{ind}f0 = {f0}", f"{ind}f1 = {f1}", f"{ind}a = {j00}", f"{ind}b = {j01}", f"{ind}c = {j10}",
            f"{ind}d = {j11}"]
    if tangents:
        fs0, fs1 = vals[6:]
        fin += [
            f"{ind}e0 = {fs0}",
            f"{ind}e1 = {fs1}",
            f"{ind}det = a * d - b * c",
            f"{ind}{names[tangents[0]]} = -(d * e0 - b * e1) / det",
            f"{ind}{names[tangents[1]]} = -(a * e1 - c * e0) / det",
        ]
    terms = [equation_terms(e, prepared=True) for e in F]
    pre, tv = cse_lines([t for ts in terms for t in ts], printer, "s")
    fin += pre
    k = len(terms[0])
    fin.append(f"{ind}s0 = " + " + ".join(f"abs({v})" for v in tv[:k]))
    fin.append(f"{ind}s1 = " + " + ".join(f"abs({v})" for v in tv[k:]))
    pre, vals = cse_lines(O, printer, "o")
    fin += pre
    fin += [f"{ind}Y[i, {k}] = {v}" for k, v in enumerate(vals)]
    fin.append(f"{ind}return max(abs(f0) / max(1.0, s0), abs(f1) / max(1.0, s1))")

    definitions = "\n".join([
        "import numpy",
        "",
        f"UNKNOWNS = {tuple(map(str, x))!r}",
        f"PARAMETERS = {tuple(map(str, p))!r}",
        f"OUTPUTS = {tuple(outs)!r}",
        f"N_OUTPUTS = {len(O)}",
        "",
        "",
        *step,
        "",
        "",
        *fin,
    ])
    notes = (f"system {system.name!r}, fingerprint {system.fingerprint}", *notes)
    return render_template(NEWTON_MAP_GRID, origin=f"system {system.name!r}", definitions=definitions, notes=notes)
