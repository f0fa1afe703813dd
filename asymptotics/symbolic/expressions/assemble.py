r"""From a parsed expression to one :class:`~asymptotics.symbolic.Pencil` and its value in the
normalised block traces g_ij.

Every distinct trace tr(M_k) of the expression is realised and reduced separately
(:mod:`.linearise`); the pencil is their block-diagonal union (Gaussian matrices shared between
traces are the same matrices, and the Dyson support keeps the parts apart), with blocks of
relative sizes r_dim (the declared ratios) and Gaussian entries of variance t²·v/L. The **scale**
t multiplies every Gaussian matrix: at t = 0 the pencil is deterministic and g = q0⁻¹ exactly,
which is where the solvers start (continuation in t, see :mod:`.derivation`); at t = 1 it is the
expression.

The value is the parsed scalar with each placeholder replaced by
tr(M_k)/p = Σ u_a v_b g_ab.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from ...errors import ExpressionError
from ..dyson import trace_symbol
from ..pencil import Gaussian as Occurrence
from ..pencil import Pencil
from .declarations import Declarations
from .linearise import MAX_BLOCKS, realise, reduce
from .parser import Parsed

__all__ = ["Assembled", "assemble", "SCALE"]

#: The Gaussian scale t of the continuation (an internal parameter, set to 1 for the expression).
SCALE = sympy.Symbol("_t")


@dataclass(frozen=True)
class Assembled:
    """``pencil`` (with the scale t in the variances), ``value`` (sympy, in the g_ij and the
    parameters), ``traces`` {placeholder: tr expression in g_ij}, ``parts`` ((first block, number
    of blocks) of each trace), ``raw_blocks`` (blocks before reduction, per trace)."""

    pencil: Pencil
    value: sympy.Expr
    traces: dict
    parts: tuple
    raw_blocks: tuple


def assemble(parsed: Parsed, decl: Declarations, name: str = "expression") -> Assembled:
    """Realise, reduce and join the traces of ``parsed`` into one pencil (module docstring)."""
    reals, raw = [], []
    for ph, node in parsed.traces.items():
        r = realise(node)
        raw.append(r.blocks)
        reals.append((ph, reduce(r, node)))
    B = sum(r.blocks for _, r in reals)
    if B > MAX_BLOCKS:
        raise ExpressionError(
            f"the traces of the expression need {B} pencil blocks together (at most {MAX_BLOCKS}): split it"
        )
    dims, det, occ, traces, parts = [], {}, [], {}, []
    for ph, r in reals:
        off = len(dims)
        dims += r.dims
        for (i, j), c in r.det.items():
            det[(i + off, j + off)] = c
        for (i, j), g in sorted(r.gauss.items()):
            for (mname, transposed), c in sorted(g.items(), key=lambda kv: (kv[0][0], kv[0][1])):
                occ.append(Occurrence(mname, i + off + 1, j + off + 1, c, transpose=transposed))
        p = None
        expr = sympy.Integer(0)
        for a, ua in r.u.items():
            for b, vb in r.v.items():
                if r.dims[a] != r.dims[b]:
                    continue
                p = r.dims[a]
                expr += ua * vb * trace_symbol(a + off + 1, b + off + 1, B)
        traces[ph] = sympy.expand(expr)
        parts.append((off, r.blocks, p))
    q0 = sympy.zeros(B, B)
    for (i, j), c in det.items():
        q0[i, j] = c
    used = sorted({o.name for o in occ})
    variances = {m: decl.variances[m] * SCALE**2 for m in used}
    pencil = Pencil(
        name=name,
        sizes=tuple(decl.ratios[d] for d in dims),
        q0=q0,
        gaussians=tuple(occ),
        variances=variances,
        description=f"automatic linear pencil of {parsed.text!r} (blocks: {', '.join(dims)})",
    )
    value = sympy.expand(parsed.value.xreplace(traces))
    return Assembled(pencil, value, traces, tuple(parts), tuple(raw))
