r"""The matrix Dyson rule (docs/engine.md §2), applied symbolically.

For Q = q0 ⊗ I + Σ (Gaussian blocks), the normalised block traces g_ij = lim tr[(Q⁻¹)_ij]/(s_i L)
solve g = (q0 − S[g])⁻¹. The self-energy pairs every direct occurrence (i, j, c) of a Gaussian Y
(entries of variance v/L) with every transposed occurrence (r, s, c') of the same Y:

    S[i, s] += c c' v s_j g[j, r],        S[r, j] += c' c v s_s g[s, i].

Pairings Y–Y without transpose are O(1/L) and dropped; different matrices do not pair.

Which g_ij can be nonzero is decided structurally: starting from the pattern of q0, the pattern
of S[g] is computed and the pattern of (q0 − S)⁻¹ taken as the transitive closure of its directed
graph, until it is stable. The unknowns are the g_ij on that pattern and the equations the entries
of (q0 − S[g])·g − I (polynomial, bilinear in g).

>>> import sympy as sp
>>> from asymptotics.symbolic.pencil import Gaussian, Pencil
>>> z, psi2 = sp.symbols("z psi2")
>>> P = Pencil("mp", (1, psi2), sp.diag(-z, -1), (Gaussian("W", 1, 2), Gaussian("W", 2, 1, transpose=True)))
>>> self_energy(P, trace_matrix(P)) == sp.Matrix([[psi2 * sp.Symbol("g22"), 0], [0, sp.Symbol("g11")]])
True
"""

from __future__ import annotations

import sympy as sp

from .pencil import Pencil
from .system import EquationSystem

__all__ = ["trace_symbol", "trace_matrix", "self_energy", "support", "dyson_system"]


def trace_symbol(i: int, j: int, blocks: int = 9) -> sp.Symbol:
    """The symbol g_ij (1-based), named ``g12`` (or ``g_10_2`` when B > 9)."""
    return sp.Symbol(f"g{i}{j}" if blocks <= 9 else f"g_{i}_{j}")


def _pairings(pencil: Pencil):
    """(target (row, col), coefficient, source (row, col)) triples of S[target] += coeff·g[source]
    (0-based indices)."""
    terms = []
    for y in pencil.matrix_names:
        v = pencil.variances[y]
        direct = [g for g in pencil.gaussians if g.name == y and not g.transpose]
        trans = [g for g in pencil.gaussians if g.name == y and g.transpose]
        for d in direct:
            i, j = d.row - 1, d.col - 1
            for t in trans:
                r, s = t.row - 1, t.col - 1
                c = d.coeff * t.coeff * v
                terms.append(((i, s), c * pencil.sizes[j], (j, r)))
                terms.append(((r, j), c * pencil.sizes[s], (s, i)))
    return terms


def support(pencil: Pencil) -> set:
    """The structurally nonzero g_ij, as 0-based pairs."""
    B = pencil.blocks
    terms = _pairings(pencil)
    pat = {(i, j) for i in range(B) for j in range(B) if pencil.q0[i, j] != 0} | {(i, i) for i in range(B)}
    while True:
        m_pat = {(i, j) for i in range(B) for j in range(B) if pencil.q0[i, j] != 0} | {
            (i, i) for i in range(B)
        }
        m_pat |= {tgt for tgt, c, src in terms if src in pat and c != 0}
        # inverse pattern: directed transitive closure (reflexive)
        reach = {i: {i} for i in range(B)}
        changed = True
        while changed:
            changed = False
            for i, j in m_pat:
                for k in list(reach[j]):
                    if k not in reach[i]:
                        reach[i].add(k)
                        changed = True
        new = {(i, k) for i in range(B) for k in reach[i]}
        if new == pat:
            return pat
        pat = new


def trace_matrix(pencil: Pencil) -> sp.Matrix:
    """The B×B matrix of unknowns g_ij on the support (zeros elsewhere)."""
    B = pencil.blocks
    sup = support(pencil)
    return sp.Matrix(B, B, lambda i, j: trace_symbol(i + 1, j + 1, B) if (i, j) in sup else 0)


def self_energy(pencil: Pencil, G: sp.Matrix) -> sp.Matrix:
    """The self-energy S[G] of the pencil (B×B sympy matrix)."""
    B = pencil.blocks
    S = sp.zeros(B, B)
    for (ti, tj), c, (si, sj) in _pairings(pencil):
        S[ti, tj] += c * G[si, sj]
    return S


def dyson_system(
    pencil: Pencil, outputs: dict | None = None, name: str | None = None, homotopy: tuple = ()
) -> EquationSystem:
    """The scalar equations (q0 − S[g])·g − I = 0 in the unknowns g_ij on the support.

    ``outputs`` maps names to expressions of the g_ij and parameters (e.g. ``{"mbar": g11}``).
    The starting values are the large-q0 limit g = q0⁻¹ on the support; ``homotopy`` =
    (parameter, value) says where that limit is reliable (e.g. ``(lam, 1e3)``).
    """
    G = trace_matrix(pencil)
    B = pencil.blocks
    M = pencil.q0 - self_energy(pencil, G)
    E = (M * G - sp.eye(B)).applyfunc(sp.expand)
    unknowns = [G[i, j] for i in range(B) for j in range(B) if G[i, j] != 0]
    eqs = [E[i, j] for i in range(B) for j in range(B) if G[i, j] != 0]
    leftover = [E[i, j] for i in range(B) for j in range(B) if G[i, j] == 0 and E[i, j] != 0]
    if leftover:  # pragma: no cover - the support closure guarantees this
        raise AssertionError(f"Dyson equations outside the support: {leftover}")
    try:
        q0inv = sp.Matrix(pencil.q0).inv()
        start = {G[i, j]: sp.simplify(q0inv[i, j]) for i in range(B) for j in range(B) if G[i, j] != 0}
    except (ValueError, ZeroDivisionError):
        start = {}
    return EquationSystem(
        name=name or pencil.name,
        unknowns=tuple(unknowns),
        equations=tuple(eqs),
        outputs=dict(outputs or {}),
        start=start,
        homotopy=homotopy,
        description=f"matrix Dyson equations (q0 − S[g])·g = I of the pencil {pencil.name!r}",
    )
