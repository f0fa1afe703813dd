r"""Elimination of unknowns that are not wanted.

:func:`eliminate` removes unknowns one at a time:

1. **linear substitution** — an equation ``a·u + b = 0`` that is of degree one in an unwanted
   unknown u (preferring a coefficient a free of unknowns, then the simplest a) gives u = −b/a,
   which is substituted everywhere (numerators of the results are kept, as polynomials);
2. **resultants** — when no equation is linear in u, the m equations containing u are replaced
   by the m − 1 resultants res(e_1, e_k) with respect to u, made square-free (a repeated factor
   would give a double root and a singular Jacobian). Resultants can grow quickly with symbolic
   parameters: prefer keeping an unknown to eliminating it by a large resultant.

The substitutions are recorded in ``system.eliminated`` so that outputs that refer to an
eliminated unknown (e.g. g55 for a source trace) are still expressed through the kept ones.
:func:`polynomial_reduce` then computes a lexicographic Gröbner basis or resultant chain of the
kept system, e.g. to reduce a system to polynomial pairs such as Adlam–Pennington's S67/S68.

Multiplying through by denominators can add spurious solutions (where a denominator vanishes);
the numerical solvers start from the physical branch (large-q0 limit / continuation), and the
tests check the solutions against the original Dyson equations.
"""

from __future__ import annotations

import sympy as sp

from ..errors import ParameterError
from .system import EquationSystem

__all__ = ["eliminate", "numerator", "polynomial_reduce"]


def numerator(expr) -> sp.Expr:
    """The numerator of ``expr`` over a common denominator, expanded, with its content
    (numeric/parameter factor common to all terms) kept but the sign normalised."""
    num = sp.numer(sp.together(sp.sympify(expr)))
    return sp.expand(num)


def _linear_candidates(eqs, u, unknowns):
    out = []
    for k, e in enumerate(eqs):
        if not e.has(u):
            continue
        p = sp.Poly(e, u)
        if p.degree() != 1:
            continue
        a, b = p.all_coeffs()
        if a == 0:
            continue
        free = not (set(a.free_symbols) & set(unknowns))
        out.append(((0 if free else 1, sp.count_ops(a), sp.count_ops(b)), k, a, b))
    return out


def eliminate(
    system: EquationSystem, keep, *, name: str | None = None, simplify: bool = True
) -> EquationSystem:
    """Eliminate every unknown not in ``keep`` (see the module docstring). Returns a system in the
    kept unknowns (in the order of ``keep``)."""
    keep = tuple(sp.Symbol(k) if isinstance(k, str) else k for k in keep)
    unknown_set = set(system.unknowns)
    for k in keep:
        if k not in unknown_set:
            raise ParameterError("keep", k, f"one of the unknowns {system.unknowns}")
    eqs = [numerator(e) for e in system.equations]
    eliminated = dict(system.eliminated)
    todo = [u for u in system.unknowns if u not in keep]
    unknowns = list(system.unknowns)
    notes = list(system.notes)
    while todo:
        best = None
        for u in todo:
            for cand in _linear_candidates(eqs, u, unknowns):
                key = (cand[0], str(u))
                if best is None or key < best[0]:
                    best = (key, u, cand)
        if best is not None:
            _, u, (_, k, a, b) = best
            sol = -b / a
            eqs.pop(k)
            eqs = [numerator(e.xreplace({u: sol})) if e.has(u) else e for e in eqs]
            eliminated = {kk: (v.xreplace({u: sol}) if v.has(u) else v) for kk, v in eliminated.items()}
            eliminated[u] = sp.cancel(sol) if simplify else sol
            notes.append(f"eliminated {u} linearly from an equation of the form ({a})·{u} + ... = 0")
        else:
            u = todo[0]
            with_u = [k for k, e in enumerate(eqs) if e.has(u)]
            if len(with_u) < 2:
                raise ParameterError("keep", keep, f"a set that leaves enough equations to eliminate {u}")
            # replace the m equations containing u by the m − 1 resultants res(e_first, e_k)
            first = eqs[with_u[0]]
            res = [_square_free(sp.expand(sp.resultant(first, eqs[k], u))) for k in with_u[1:]]
            eqs = [e for k, e in enumerate(eqs) if k not in with_u] + res
            lost = sorted(str(k) for k, v in eliminated.items() if v.has(u))
            eliminated = {k: v for k, v in eliminated.items() if not v.has(u)}
            notes.append(
                f"eliminated {u} by a resultant (no back-substitution"
                + (f"; dropped the expressions of {', '.join(lost)}" if lost else "")
                + ")"
            )
        todo.remove(u)
        unknowns.remove(u)
        eqs = [e for e in eqs if e != 0]
    if len(eqs) != len(keep):
        raise ParameterError(
            "keep", keep, f"a set for which elimination leaves {len(keep)} equations, got {len(eqs)}"
        )
    out = EquationSystem(
        name=name or f"{system.name}_reduced",
        unknowns=keep,
        equations=tuple(eqs),
        parameters=system.parameters,
        outputs=system.outputs,
        eliminated=eliminated,
        start={k: v for k, v in system.start.items() if k in keep},
        homotopy=system.homotopy,
        description=system.description + f"; eliminated to {', '.join(map(str, keep))}",
        notes=tuple(notes),
    )
    if simplify:
        dens = _denominator_factors(out, keep)
        out = out.with_(equations=tuple(_strip_content(_drop_factors(e, dens, keep), keep) for e in eqs))
    return out


def _factors(expr):
    """(factor, multiplicity) pairs of ``sympy.factor(expr)`` that contain symbols (works around
    ``factor_list`` failing on monomials with square roots)."""
    out = []
    for a in sp.Mul.make_args(sp.factor(expr)):
        b, e = a.as_base_exp()
        if b.free_symbols:
            if e.is_Integer and e > 0:
                out.append((b, int(e)))
            else:
                out.append((a, 1))
    return out


def _square_free(p):
    """The square-free part of a polynomial (repeated factors once)."""
    if not p.free_symbols:
        return p
    try:
        return sp.expand(sp.sqf_part(p))
    except sp.PolynomialError:  # pragma: no cover - non-polynomial input
        return p


def _normal(f):
    """``f`` up to a numeric factor: primitive, with a positive leading coefficient."""
    f = sp.expand(f)
    try:
        P = sp.Poly(f)
        _, prim = P.primitive()
        if prim.LC() < 0:
            prim = -prim
        return sp.expand(prim.as_expr())
    except (sp.PolynomialError, TypeError):
        return f


def _denominator_factors(system, keep):
    """Irreducible factors (containing kept unknowns) of the denominators of the eliminated
    unknowns expressed through the kept ones: they are nonzero on the solution (we divided by
    them), so a final equation may be divided by them."""
    out = set()
    for u in system.eliminated:
        den = sp.denom(sp.cancel(system.expand_eliminated(u)))
        if not den.free_symbols & set(keep):
            continue
        for f, _ in _factors(den):
            if f.free_symbols & set(keep):
                out.add(_normal(f))
    return out


def _drop_factors(expr, factors, keep):
    if not factors or not expr.free_symbols & set(keep):
        return expr
    fl = _factors(expr)
    c = sp.Mul(*[a for a in sp.Mul.make_args(sp.factor(expr)) if not a.free_symbols])
    kept = [(f, m) for f, m in fl if not (f.free_symbols & set(keep) and _normal(f) in factors)]
    if not any(f.free_symbols & set(keep) for f, _ in kept):
        return expr  # never drop the whole equation
    return sp.expand(c * sp.Mul(*[f**m for f, m in kept]))


def _strip_content(expr, unknowns):
    """Divide a polynomial by its content in the parameters (a factor free of unknowns that does
    not vanish generically), and drop factors that are pure powers of unknowns only when the
    unknowns cannot vanish is not decided here: only the parameter content is removed."""
    if not expr.free_symbols & set(unknowns):
        return expr
    p = sp.Poly(expr, *unknowns)
    content, prim = p.primitive()
    return sp.expand(prim.as_expr())


def polynomial_reduce(system: EquationSystem, order=None, *, method: str = "groebner") -> list:
    """Polynomials generating the same ideal as the system's equations, in lexicographic order
    (``order`` lists the unknowns, the last one alone in the last polynomial); ``method`` is
    ``"groebner"`` (sympy.groebner, lex) or ``"resultant"`` (successive resultants)."""
    order = tuple(order or system.unknowns)
    eqs = [numerator(e) for e in system.equations]
    if method == "groebner":
        return list(sp.groebner(eqs, *order, order="lex").exprs)
    if method == "resultant":
        out = list(eqs)
        polys = list(eqs)
        for v in order[:-1]:
            nxt = []
            for k in range(len(polys) - 1):
                nxt.append(sp.expand(sp.resultant(polys[k], polys[k + 1], v)))
            polys = [p for p in nxt if p != 0]
            out.extend(polys)
        return out
    raise ParameterError("method", method, "'groebner' or 'resultant'")
