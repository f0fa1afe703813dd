r"""Automatic linearisation: from an expression tree to a linear pencil.

A **realisation** of a matrix expression M (shape p×q) is a block matrix Q, affine in the
Gaussian matrices, with deterministic blocks that are scalar multiples of the identity between
blocks of equal size, and two deterministic selectors u (a block row) and v (a block column) with

    M = u Q⁻¹ v.

Realisations are built recursively (the descriptor form of Helton–Mai–Speicher and Anderson's
linearisation trick; every step is a Schur complement identity):

=================  ===============================================================================
Y (p×q)            Q = [[I_p, −Y], [0, I_q]],  u = (1, 0), v = (0, 1)ᵀ   (Q⁻¹ has Y in block (1,2))
I_p                Q = [I_p],  u = v = 1
c·M                u → c·u
M₁ + M₂            Q = Q₁ ⊕ Q₂,  u = (u₁, u₂),  v = (v₁; v₂)
M₁ M₂              Q = [[Q₁, −v₁u₂], [0, Q₂]],  u = (u₁, 0),  v = (0; v₂)
                   (the inverse of a block-triangular matrix: u Q⁻¹ v = u₁Q₁⁻¹v₁ u₂Q₂⁻¹v₂)
Mᵀ                 Q → Qᵀ (Y ↔ Yᵀ),  u ↔ vᵀ
M⁻¹ (square)       Q' = [[0, u], [v, Q]],  u' = (−1, 0), v' = (1; 0)ᵀ
                   (Schur complement onto the new block: 0 − u Q⁻¹ v = −M, so (Q'⁻¹)₁₁ = −M⁻¹)
=================  ===============================================================================

Then tr(M)/p = Σ_{a,b} u_a v_b g_ab with g_ab the normalised block traces of Q⁻¹ — the
quantities the matrix Dyson rule computes.

**Reduction.** The recursive pencil is large (2 blocks per occurrence of a Gaussian matrix); it is
shrunk by exact Schur complements: a set S of blocks (one or two, not used by u or v) whose
diagonal part Q_SS is deterministic with a nonzero numerical determinant, and whose rows Q_{S,·}
or whose columns Q_{·,S} are deterministic, is removed by

    Q ← Q_{∁S,∁S} − Q_{∁S,S} Q_SS⁻¹ Q_{S,∁S},

which keeps Q affine in the Gaussian matrices (one factor of each product is deterministic) and
leaves every other block of Q⁻¹ unchanged. Blocks that are not connected to u and v (through Q or
through a shared Gaussian matrix) are pruned. A diagonal ±1 similarity makes the signs readable.

Example: ``inv(W@W.T - z*I)`` reduces from 6 blocks to the 2×2 Marchenko–Pastur pencil
[[−z, W], [Wᵀ, −I]] of ``docs/engine.md`` (g₁₁ = m̄(z)).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy

from ...errors import ExpressionError
from .tree import Gaussian, Identity, Inverse, Product, Scaled, Sum, Transpose, show

__all__ = ["Realisation", "realise", "reduce", "MAX_BLOCKS"]

#: The largest reduced pencil accepted (the Dyson system has up to B² unknowns).
MAX_BLOCKS = 24
_MAX_RAW_BLOCKS = 400


@dataclass
class Realisation:
    """M = u Q⁻¹ v. ``dims``: the dimension name of each block; ``det[(i, j)]``: the coefficient
    of I in block (i, j); ``gauss[(i, j)]``: {(name, transposed): coefficient}; ``u``, ``v``:
    {block: coefficient}. Indices are 0-based."""

    dims: list
    det: dict = field(default_factory=dict)
    gauss: dict = field(default_factory=dict)
    u: dict = field(default_factory=dict)
    v: dict = field(default_factory=dict)

    @property
    def blocks(self) -> int:
        return len(self.dims)

    def shifted(self, k: int) -> Realisation:
        return Realisation(
            list(self.dims),
            {(i + k, j + k): c for (i, j), c in self.det.items()},
            {(i + k, j + k): dict(g) for (i, j), g in self.gauss.items()},
            {i + k: c for i, c in self.u.items()},
            {j + k: c for j, c in self.v.items()},
        )

    def add_det(self, i, j, c):
        c = sympy.expand(self.det.get((i, j), 0) + c)
        if c == 0:
            self.det.pop((i, j), None)
        else:
            self.det[(i, j)] = c

    def add_gauss(self, i, j, key, c):
        g = self.gauss.setdefault((i, j), {})
        c = sympy.expand(g.get(key, 0) + c)
        if c == 0:
            g.pop(key, None)
        else:
            g[key] = c
        if not g:
            self.gauss.pop((i, j))

    def entry(self, i, j):
        return self.det.get((i, j), 0), self.gauss.get((i, j), {})


def _direct_sum(a: Realisation, b: Realisation) -> Realisation:
    bs = b.shifted(a.blocks)
    return Realisation(
        a.dims + bs.dims, {**a.det, **bs.det}, {**a.gauss, **bs.gauss}, {**a.u, **bs.u}, {**a.v, **bs.v}
    )


def realise(node) -> Realisation:
    """The (unreduced) realisation of a matrix node (see the module docstring)."""
    if isinstance(node, Gaussian):
        return Realisation(
            [node.rows, node.cols],
            {(0, 0): sympy.Integer(1), (1, 1): sympy.Integer(1)},
            {(0, 1): {(node.name, False): sympy.Integer(-1)}},
            {0: sympy.Integer(1)},
            {1: sympy.Integer(1)},
        )
    if isinstance(node, Identity):
        one = sympy.Integer(1)
        return Realisation([node.dim], {(0, 0): one}, {}, {0: one}, {0: one})
    if isinstance(node, Scaled):
        r = realise(node.arg)
        r.u = {k: sympy.expand(node.coeff * c) for k, c in r.u.items()}
        return r
    if isinstance(node, Sum):
        out = realise(node.terms[0])
        for t in node.terms[1:]:
            out = _direct_sum(out, realise(t))
            _check_size(out)
        return out
    if isinstance(node, Product):
        out = realise(node.factors[0])
        for f in node.factors[1:]:
            nxt = realise(f)
            n1 = out.blocks
            both = _direct_sum(out, nxt)
            for a, va in out.v.items():
                for b, ub in nxt.u.items():
                    both.add_det(a, b + n1, -va * ub)
            both.u = dict(out.u)
            both.v = {b + n1: c for b, c in nxt.v.items()}
            out = both
            _check_size(out)
        return out
    if isinstance(node, Transpose):
        r = realise(node.arg)
        return Realisation(
            list(r.dims),
            {(j, i): c for (i, j), c in r.det.items()},
            {(j, i): {(n, not t): c for (n, t), c in g.items()} for (i, j), g in r.gauss.items()},
            dict(r.v),
            dict(r.u),
        )
    if isinstance(node, Inverse):
        r = realise(node.arg)
        p = r.dims[next(iter(r.u))] if r.u else None
        rs = r.shifted(1)
        out = Realisation(
            [p, *rs.dims], dict(rs.det), dict(rs.gauss), {0: sympy.Integer(-1)}, {0: sympy.Integer(1)}
        )
        for a, c in rs.u.items():
            out.add_det(0, a, c)
        for b, c in rs.v.items():
            out.add_det(b, 0, c)
        _check_size(out)
        return out
    raise TypeError(f"not an expression node: {node!r}")  # pragma: no cover


def _check_size(r: Realisation):
    if r.blocks > _MAX_RAW_BLOCKS:
        raise ExpressionError(f"expression too large to linearise ({r.blocks} blocks before reduction)")


# --------------------------------------------------------------------------- reduction
def _try_eliminate(r: Realisation, S: tuple) -> bool:
    """Remove the blocks S by a Schur complement if allowed (see the module docstring)."""
    if any(s in r.u or s in r.v for s in S):
        return False
    if any((a, b) in r.gauss for a in S for b in S):
        return False
    D = sympy.Matrix(len(S), len(S), lambda a, b: r.det.get((S[a], S[b]), 0))
    detD = sympy.expand(D.det())
    if detD.free_symbols or detD == 0:
        return False
    Sset = set(S)
    rows = [(s, j) for (s, j) in set(r.det) | set(r.gauss) if s in Sset and j not in Sset]
    cols = [(i, s) for (i, s) in set(r.det) | set(r.gauss) if s in Sset and i not in Sset]
    rows_det = all((s, j) not in r.gauss for s, j in rows)
    cols_det = all((i, s) not in r.gauss for i, s in cols)
    if not (rows_det or cols_det):
        return False
    Dinv = D.inv()
    updates = []
    for i, s in cols:
        ci_det, ci_g = r.entry(i, s)
        for s2, j in rows:
            k = Dinv[S.index(s), S.index(s2)]
            if k == 0:
                continue
            rj_det, rj_g = r.entry(s2, j)
            # one of the two factors is deterministic: (c + G)·k·(d + H) = ckd + G k d + c k H
            updates.append((i, j, -ci_det * k * rj_det, {key: -c * k * rj_det for key, c in ci_g.items()}))
            if rj_g:
                updates.append((i, j, 0, {key: -ci_det * k * c for key, c in rj_g.items()}))
    for i, j, d, g in updates:
        if d != 0:
            r.add_det(i, j, d)
        for key, c in g.items():
            r.add_gauss(i, j, key, c)
    _drop_blocks(r, Sset)
    return True


def _drop_blocks(r: Realisation, drop: set):
    keep = [b for b in range(r.blocks) if b not in drop]
    new = {b: k for k, b in enumerate(keep)}
    r.dims = [r.dims[b] for b in keep]
    r.det = {(new[i], new[j]): c for (i, j), c in r.det.items() if i in new and j in new}
    r.gauss = {(new[i], new[j]): g for (i, j), g in r.gauss.items() if i in new and j in new}
    r.u = {new[i]: c for i, c in r.u.items()}
    r.v = {new[j]: c for j, c in r.v.items()}


def _connected(r: Realisation) -> set:
    """Blocks connected to u and v through nonzero entries or a shared Gaussian matrix."""
    adj = {b: set() for b in range(r.blocks)}
    by_name = {}
    for i, j in set(r.det) | set(r.gauss):
        adj[i].add(j)
        adj[j].add(i)
    for (i, j), g in r.gauss.items():
        for name, _ in g:
            by_name.setdefault(name, set()).update((i, j))
    for blocks in by_name.values():
        for b in blocks:
            adj[b] |= blocks
    seen, todo = set(), list(set(r.u) | set(r.v))
    while todo:
        b = todo.pop()
        if b in seen:
            continue
        seen.add(b)
        todo.extend(adj[b] - seen)
    return seen


def _orient(r: Realisation):
    """Cosmetic, exact: a global sign making the output coefficient positive, then a ±1 diagonal
    similarity making Gaussian coefficients positive along a spanning tree; output blocks first."""
    if (
        r.u
        and r.v
        and all(
            bool(sympy.expand(r.u[a] * r.v[b]).is_negative)
            for a in r.u
            for b in r.v
            if r.dims[a] == r.dims[b]
        )
    ):
        r.det = {k: -c for k, c in r.det.items()}
        r.gauss = {k: {n: -c for n, c in g.items()} for k, g in r.gauss.items()}
        r.u = {k: -c for k, c in r.u.items()}
    sign = {}
    order = sorted(set(r.u) | set(r.v)) + [b for b in range(r.blocks) if b not in r.u and b not in r.v]
    for root in order:
        if root in sign:
            continue
        sign[root] = 1
        todo = [root]
        while todo:
            i = todo.pop(0)
            for (a, b), g in sorted(r.gauss.items()):
                if i not in (a, b) or a == b:
                    continue
                other = b if a == i else a
                if other in sign:
                    continue
                c = next(iter(g.values()))
                neg = c.could_extract_minus_sign()
                sign[other] = sign[i] * (-1 if neg else 1)
                todo.append(other)
    for b in range(r.blocks):
        sign.setdefault(b, 1)
    r.det = {(i, j): c * sign[i] * sign[j] for (i, j), c in r.det.items()}
    r.gauss = {(i, j): {n: c * sign[i] * sign[j] for n, c in g.items()} for (i, j), g in r.gauss.items()}
    r.u = {a: c * sign[a] for a, c in r.u.items()}
    r.v = {b: c * sign[b] for b, c in r.v.items()}
    perm = order
    new = {b: k for k, b in enumerate(perm)}
    r.dims = [r.dims[b] for b in perm]
    r.det = {(new[i], new[j]): c for (i, j), c in r.det.items()}
    r.gauss = {(new[i], new[j]): g for (i, j), g in r.gauss.items()}
    r.u = {new[a]: c for a, c in r.u.items()}
    r.v = {new[b]: c for b, c in r.v.items()}


def reduce(r: Realisation, node=None) -> Realisation:
    """Shrink a realisation by exact deterministic Schur complements and pruning (in place;
    returned for convenience). Raises when the result is too large for the Dyson equations."""
    changed = True
    while changed:
        changed = False
        for b in range(r.blocks):
            if _try_eliminate(r, (b,)):
                changed = True
                break
        if changed:
            continue
        for a, b in itertools.combinations(range(r.blocks), 2):
            if r.dims[a] == r.dims[b] and _try_eliminate(r, (a, b)):
                changed = True
                break
    keep = _connected(r)
    if len(keep) < r.blocks:
        _drop_blocks(r, set(range(r.blocks)) - keep)
    _orient(r)
    if r.blocks > MAX_BLOCKS:
        what = f" of {show(node)}" if node is not None else ""
        raise ExpressionError(
            f"the linear pencil{what} has {r.blocks} blocks after reduction (at most {MAX_BLOCKS}): "
            "simplify the expression or split it into several traces"
        )
    return r
