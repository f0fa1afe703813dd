r"""From the pencil to a small system of scalar equations: the matrix Dyson rule, pruning, and
elimination with pivots that are safe on the continuation path.

1. **Dyson rule** (:func:`asymptotics.symbolic.dyson_system`): the unknowns g_ij on the support,
   the equations (q0 − S[g])·g − I = 0.
2. **Pruning.** Column j of (q0 − S[g])·g = I involves only column j of g once S[g] is known, and
   S[g] involves only the *source* entries paired by the rule. Columns that contain neither a
   source entry nor an entry of the value are determined by the others and never needed: their
   unknowns and equations are dropped (exact).
3. **Elimination.** An unknown u that is not in the value is eliminated from an equation
   a·u + b = 0 of degree one in u (u = −b/a, numerators kept), when the pivot a is nonzero on the
   free limit: a at t = 0 and g = q0⁻¹ must be a nonzero number, or a product of factors of
   det q0 (nonzero wherever the start g = q0⁻¹ exists). Unknown-free pivots first, then the
   smallest. This keeps the Jacobian regular at t = 0, so the continuation of :mod:`.derivation`
   starts from a regular solution and multiplying through by denominators adds no solution on
   its path. Elimination stops when no pivot is safe or when the equations would exceed a size
   budget (then more unknowns are kept).
4. **Factors.** A factor of a final equation that does not vanish at t = 0, g = q0⁻¹ is dropped
   (it is a denominator or a content, nonzero on the physical branch near the free limit), as are
   factors free of unknowns.

The unknowns eliminated are kept as expressions of the remaining ones (``system.eliminated``), so
the value and every g_ij can still be evaluated.
"""

from __future__ import annotations

import sympy

from ..dyson import dyson_system, self_energy, trace_matrix, trace_symbol
from ..eliminate import numerator
from ..system import EquationSystem
from .assemble import SCALE, Assembled

__all__ = ["dyson_equations", "reduce_system", "TERMS_BUDGET"]

#: Largest total size (number of terms) of the reduced equations.
TERMS_BUDGET = 4000
#: An elimination is made only if it does not grow the equations by more than this factor.
GROWTH = 1.25
#: Number of candidate substitutions tried at each elimination step.
LOOKAHEAD = 6


def dyson_equations(A: Assembled, name: str) -> EquationSystem:
    """The Dyson system of ``A.pencil`` restricted to the needed columns, output ``value``."""
    P = A.pencil
    G = trace_matrix(P)
    where = {G[i, j]: (i, j) for i in range(P.blocks) for j in range(P.blocks) if G[i, j] != 0}
    # block traces of the value outside the Dyson support vanish identically
    names = {trace_symbol(i + 1, j + 1, P.blocks) for i in range(P.blocks) for j in range(P.blocks)}
    value = A.value.xreplace({g: 0 for g in (A.value.free_symbols & names) - set(where)})
    full = dyson_system(P, outputs={"value": value}, name=name, homotopy=(SCALE, 0.0))
    sources = set()
    for e in self_energy(P, G):
        sources |= set(sympy.sympify(e).free_symbols) & set(where)
    wanted = sources | (value.free_symbols & set(where))
    cols = {where[g][1] for g in wanted}
    keep = [k for k, u in enumerate(full.unknowns) if where[u][1] in cols]
    return EquationSystem(
        name=name,
        unknowns=tuple(full.unknowns[k] for k in keep),
        equations=tuple(full.equations[k] for k in keep),
        outputs=dict(full.outputs),
        start={u: full.start[u] for u in (full.unknowns[k] for k in keep) if u in full.start},
        homotopy=full.homotopy,
        description=full.description,
        notes=(f"pruned {len(full.unknowns) - len(keep)} unknown(s) of columns the value does not need",)
        if len(keep) < len(full.unknowns)
        else (),
    )


def _safe_factors(pencil) -> set:
    """Normalised irreducible factors of det q0 (nonzero where the free start q0⁻¹ exists), of
    the block sizes and of the variances (positive)."""
    out = set()
    exprs = [sympy.Matrix(pencil.q0).det(), *pencil.sizes, *pencil.variances.values()]
    for e in exprs:
        num, den = sympy.fraction(sympy.factor(sympy.sympify(e)))
        for part in (num, den):
            for f in sympy.Mul.make_args(part):
                b, _ = f.as_base_exp()
                if b.free_symbols and b != SCALE:
                    out.add(_normal(b))
    return out


def _normal(f):
    f = sympy.expand(f)
    if f.could_extract_minus_sign():
        f = -f
    return f


def _pivot_safe(a0, safe) -> bool:
    """Is the pivot's free-limit value a0 nonzero wherever the start exists?"""
    a0 = sympy.factor(sympy.cancel(a0))
    if a0 == 0:
        return False
    if a0.is_number:
        return True
    for f in sympy.Mul.make_args(a0):
        b, _ = f.as_base_exp()
        if b.free_symbols and _normal(b) not in safe:
            return False
    return True


def _free_limit(expr, start):
    v = sympy.cancel(expr.xreplace(start).xreplace({SCALE: 0}))
    return v if v == 0 or v.is_number else sympy.simplify(v)


def reduce_system(
    system: EquationSystem, pencil, keep=(), prefer=(), budget: int = TERMS_BUDGET
) -> EquationSystem:
    """Eliminate unknowns not in ``keep`` with safe pivots (module docstring, steps 3 and 4);
    the unknowns in ``prefer`` (those of the value) are eliminated last.

    The algebra is done on sparse polynomials (:func:`sympy.sring`: every unknown and parameter,
    and any algebraic expression such as √ψ, a generator), which is much faster than on
    expressions."""
    keep, prefer = set(keep), set(prefer)
    nums = [numerator(e) for e in system.equations]
    R, polys = sympy.sring(nums)
    gen = {sym: i for i, sym in enumerate(R.symbols)}  # generator indices (fast in sympy's rings)
    unknowns = [u for u in system.unknowns]
    eqs = list(polys)
    start = dict(system.start)
    safe = _safe_factors(pencil)
    eliminated = dict(system.eliminated)
    notes = list(system.notes)
    pivots = []
    t = gen.get(SCALE)
    pivot_cache = {}
    while True:
        candidates = _candidates(eqs, unknowns, keep, gen, t, start, safe, pivot_cache)
        if not candidates:
            break
        best = _best_substitution(candidates, eqs, unknowns, prefer, gen, pivots, budget)
        if best is None:
            notes.append(
                f"kept {', '.join(map(str, unknowns))}: every further elimination would grow the equations"
            )
            break
        _, u, a, b, new_eqs = best
        ugens = [gen[v] for v in unknowns if v != u and v in gen]
        facs = [f for f in _pivot_factors(a, ugens) if f not in pivots]
        if facs:
            new_eqs = [_divide_factors(e, facs, ugens) for e in new_eqs]
        facs = pivots + facs
        eqs = new_eqs
        pivots = facs
        eliminated[u] = -b.as_expr() / a.as_expr()
        unknowns.remove(u)
        start.pop(u, None)
        notes.append(f"eliminated {u} from a linear equation (pivot {a.as_expr()})")
    ugens = [gen[v] for v in unknowns if v in gen]
    eqs = [_divide_out(e, pivots, ugens).as_expr() for e in eqs]
    return EquationSystem(
        name=system.name,
        unknowns=tuple(unknowns),
        equations=tuple(eqs),
        outputs=system.outputs,
        eliminated=eliminated,
        start=start,
        homotopy=system.homotopy,
        description=system.description + f"; reduced to {', '.join(map(str, unknowns))}",
        notes=tuple(notes),
    )


def _candidates(eqs, unknowns, keep, gen, t, start, safe, pivot_cache) -> list:
    """Every (impure, equation index, unknown, pivot a, rest b) with an equation a·u + b linear in
    the unknown u and a pivot that is safe in the free limit (``pivot_cache``: pivot → safe)."""
    candidates = []
    for k, e in enumerate(eqs):
        for u in unknowns:
            if u in keep or u not in gen or len(unknowns) <= 1 or e.degree(gen[u]) != 1:
                continue
            a = e.coeff_wrt(gen[u], 1)
            ok = pivot_cache.get(a)
            if ok is None:
                a0 = a.subs(t, 0) if t is not None else a
                ok = _pivot_safe(_free_limit(a0.as_expr(), start), safe)
                pivot_cache[a] = ok
            if ok:
                pure = not any(a.degree(gen[v]) > 0 for v in unknowns if v in gen)
                candidates.append((0 if pure else 1, k, u, a, e.coeff_wrt(gen[u], 0)))
    return candidates


def _best_substitution(candidates, eqs, unknowns, prefer, gen, pivots, budget):
    """Greedy look-ahead among the simplest candidates: the substitution leaving the smallest
    equations, unknown-free pivots first, unknowns of the value last; a substitution that grows the
    equations too much is not made. Returns ``(key, u, a, b, new equations)`` or None."""
    candidates.sort(key=lambda c: (c[0], len(c[3]) + len(c[4]), str(c[2])))
    current = sum(len(e) for e in eqs)
    tried = [c for c in candidates if c[2] not in prefer][:LOOKAHEAD]
    tried += [c for c in candidates if c[2] in prefer][:2]
    best = None
    for pure, k, u, a, b in tried:
        ugens = [gen[v] for v in unknowns if v != u and v in gen]
        new = [
            _divide_factors(_substitute(e, gen[u], -b, a), pivots, ugens)
            for j, e in enumerate(eqs)
            if j != k
        ]
        new = [e for e in new if e]
        size = sum(len(e) for e in new)
        if size > budget or size > max(GROWTH * current, current + 6):
            continue
        key = (u in prefer, pure, size, str(u))
        if best is None or key < best[0]:
            best = (key, u, a, b, new)
    return best


def _substitute(e, x, num, den):
    """The numerator of e(x = num/den): Σ_j c_j num^j den^(k−j), k the degree of e in x."""
    k = e.degree(x)
    if k <= 0:
        return e
    out = e.ring.zero
    for j in range(k + 1):
        c = e.coeff_wrt(x, j)
        if c:
            out += c * num**j * den ** (k - j)
    return out


def _pivot_factors(a, ugens) -> list:
    """The part of a pivot that contains unknowns (its content in the parameters removed), a
    candidate to divide out later. (A full factorisation would find more, but multivariate
    factoring is far slower than the rest of the reduction.)"""
    if not any(a.degree(g) > 0 for g in ugens):
        return []
    c = _content(a, ugens)
    prim = a.exquo(c) if c is not None and not c.is_ground else a
    _, prim = prim.primitive()
    return [-prim if prim.is_negative else prim]


def _content(e, ugens):
    """The gcd of the coefficients of ``e`` as a polynomial in the unknowns ``ugens`` (indices)."""
    groups = {}
    for monom, c in e.terms():
        key = tuple(monom[i] for i in ugens)
        rest = tuple(0 if i in ugens else m for i, m in enumerate(monom))
        groups[key] = groups.get(key, e.ring.zero) + e.ring({rest: c})
    content = None
    for g in groups.values():
        content = g if content is None else content.gcd(g)
        if content.is_ground:
            break
    return content


def _divide_factors(e, factors, ugens):
    """``e`` divided by each pivot factor as often as it divides exactly."""
    if not e:
        return e
    for f in factors:
        while True:
            q, r = e.div(f)
            if r or not q or not any(q.degree(g) > 0 for g in ugens):
                break
            e = q
    return e


def _divide_out(e, factors, ugens):
    """``e`` divided by the pivot factors (step 4), then by its content (the gcd of its
    coefficients as a polynomial in the unknowns), sign normalised."""
    if not e or not any(e.degree(g) > 0 for g in ugens):
        return e
    e = _divide_factors(e, factors, ugens)
    content = _content(e, ugens)
    if content is not None and not content.is_ground:
        e = e.exquo(content)
    _, e = e.primitive()
    return -e if e.is_negative else e
