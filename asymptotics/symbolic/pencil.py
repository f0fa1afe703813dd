r"""A small description of a linear pencil (docs/engine.md §1).

A pencil is a block matrix Q = q0 ⊗ I + (Gaussian blocks), blocks indexed **1..B as in the
mathematics** (block b has size s_b·L, L → ∞, s_b a fixed ratio: a sympy expression). It is
described by

* ``sizes``: the ratios s_1, …, s_B (sympy expressions or numbers);
* ``q0``: the B×B matrix of deterministic coefficients (entry (i, j) multiplies the identity; only
  blocks of equal size may be coupled);
* ``gaussians``: occurrences ``Gaussian(name, row, col, coeff, transpose)`` — "coeff·Y in block
  (row, col)" (direct) or "coeff·Yᵀ in block (row, col)" (transposed); one independent Gaussian
  matrix per name, with i.i.d. entries of variance ``variances[name]/L`` (default 1).

Example: Marchenko–Pastur of W₀W₀ᵀ (W ∈ ℝ^{d×N}, L = d, ψ2 = N/d):

    Q = [ −z I_d    W    ]
        [   Wᵀ    −I_N   ]

>>> import sympy as sp
>>> z, psi2 = sp.symbols("z psi2")
>>> P = Pencil("mp", sizes=(1, psi2), q0=sp.diag(-z, -1),
...            gaussians=(Gaussian("W", 1, 2), Gaussian("W", 2, 1, transpose=True)))
>>> P.blocks, P.matrix_names
(2, ('W',))
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..errors import ParameterError

__all__ = ["Gaussian", "Pencil"]


@dataclass(frozen=True)
class Gaussian:
    """One occurrence of the Gaussian matrix ``name`` in block (``row``, ``col``) (1-based), with
    coefficient ``coeff`` (a sympy expression), as Y (``transpose=False``) or Yᵀ."""

    name: str
    row: int
    col: int
    coeff: sp.Expr = sp.Integer(1)
    transpose: bool = False

    def __post_init__(self):
        object.__setattr__(self, "coeff", sp.sympify(self.coeff))
        if not (isinstance(self.name, str) and self.name.isidentifier()):
            raise ParameterError("name", self.name, "an identifier naming the Gaussian matrix")
        for k in ("row", "col"):
            v = getattr(self, k)
            if not (isinstance(v, int) and v >= 1):
                raise ParameterError(k, v, "a 1-based block index (integer >= 1)")

    def latex(self, symbol_names: dict | None = None) -> str:
        c = sp.latex(self.coeff, symbol_names=symbol_names or {})
        base = sp.latex(sp.Symbol(self.name)) + ("^{\\top}" if self.transpose else "")
        return base if self.coeff == 1 else (f"-{base}" if self.coeff == -1 else f"{c}\\,{base}")


@dataclass(frozen=True)
class Pencil:
    """A linear pencil (see the module docstring). Immutable; validated on construction.

    Attributes
    ----------
    name : str
    sizes : tuple of sympy expressions — block size ratios s_b (block b has size s_b·L)
    q0 : sympy.ImmutableMatrix — B×B deterministic coefficients
    gaussians : tuple of :class:`Gaussian`
    variances : dict name → sympy expression (entry variance v/L; default 1)
    description : str — what the pencil computes (which block of Q⁻¹ is which trace)
    """

    name: str
    sizes: tuple
    q0: sp.ImmutableMatrix
    gaussians: tuple
    variances: dict = field(default_factory=dict)
    description: str = ""

    def __post_init__(self):
        sizes = tuple(sp.sympify(s) for s in self.sizes)
        object.__setattr__(self, "sizes", sizes)
        q0 = sp.ImmutableMatrix(self.q0)
        object.__setattr__(self, "q0", q0)
        object.__setattr__(self, "gaussians", tuple(self.gaussians))
        B = len(sizes)
        if B < 1:
            raise ParameterError("sizes", self.sizes, "a non-empty sequence of block size ratios")
        if q0.shape != (B, B):
            raise ParameterError("q0", q0.shape, f"a {B}×{B} matrix (one entry per pair of blocks)")
        names = []
        for g in self.gaussians:
            if not isinstance(g, Gaussian):
                raise ParameterError("gaussians", g, "a sequence of Gaussian(...) occurrences")
            if g.row > B or g.col > B:
                raise ParameterError("block index", (g.row, g.col), f"in 1..{B}")
            if g.name not in names:
                names.append(g.name)
        var = {n: sp.sympify(self.variances.get(n, 1)) for n in names}
        extra = set(self.variances) - set(names)
        if extra:
            raise ParameterError("variances", sorted(extra), "names of Gaussian matrices used in the pencil")
        object.__setattr__(self, "variances", var)
        # consistency of shapes: every occurrence of Y (or Yᵀ) must see the same block sizes
        shapes = {}
        for g in self.gaussians:
            rows, cols = (sizes[g.row - 1], sizes[g.col - 1])
            shape = (cols, rows) if g.transpose else (rows, cols)
            if (
                g.name in shapes
                and sp.simplify(shapes[g.name][0] - shape[0]) != 0
                or (g.name in shapes and sp.simplify(shapes[g.name][1] - shape[1]) != 0)
            ):
                raise ParameterError(
                    f"occurrence of {g.name} in block ({g.row}, {g.col})",
                    shape,
                    f"the shape {shapes[g.name]} of its other occurrences (block sizes must match)",
                )
            shapes.setdefault(g.name, shape)
        # deterministic couplings only between blocks of equal size
        for i in range(B):
            for j in range(B):
                if i != j and q0[i, j] != 0 and sp.simplify(sizes[i] - sizes[j]) != 0:
                    raise ParameterError(
                        f"q0[{i + 1},{j + 1}]",
                        q0[i, j],
                        "0 (deterministic entries only couple blocks of equal size)",
                    )

    @property
    def blocks(self) -> int:
        return len(self.sizes)

    @property
    def matrix_names(self) -> tuple:
        return tuple(self.variances)

    @property
    def parameters(self) -> tuple:
        """The free symbols of the pencil (sorted by name)."""
        syms = set()
        for e in (*self.sizes, *self.q0, *(g.coeff for g in self.gaussians), *self.variances.values()):
            syms |= sp.sympify(e).free_symbols
        return tuple(sorted(syms, key=lambda s: s.name))

    def latex(self, symbol_names: dict | None = None) -> str:
        """The pencil as a LaTeX block matrix (``symbol_names`` as in ``sympy.latex``)."""
        B = self.blocks
        names = symbol_names or {}

        def ident(c):
            if c == 0:
                return ""
            if c == 1:
                return "I"
            if c == -1:
                return "-I"
            t = sp.latex(c, symbol_names=names)
            return f"{t}\\,I" if not isinstance(c, sp.Add) else f"\\left({t}\\right) I"

        cells = [[ident(self.q0[i, j]) for j in range(B)] for i in range(B)]
        for g in self.gaussians:
            cell = cells[g.row - 1][g.col - 1]
            term = g.latex(names)
            cells[g.row - 1][g.col - 1] = term if not cell else f"{cell} + {term}"
        rows = [" & ".join(c if c else "0" for c in row) for row in cells]
        body = " \\\\\n  ".join(rows)
        return f"Q = \\begin{{pmatrix}}\n  {body}\n\\end{{pmatrix}}"

    def dense(self, block_dims, matrices: dict, values: dict | None = None):
        """The pencil as a dense numpy matrix at finite size (for Monte-Carlo checks).

        ``block_dims``: the integer size of each block; ``matrices``: {name: array} of the
        Gaussian matrices (as they appear directly, Y; entries already of variance v/L);
        ``values``: {symbol or name: number} for the parameters.
        """
        import numpy as np

        subs = {(sp.Symbol(k) if isinstance(k, str) else k): v for k, v in (values or {}).items()}
        dims = [int(b) for b in block_dims]
        if len(dims) != self.blocks:
            raise ParameterError("block_dims", block_dims, f"{self.blocks} integers")
        offs = np.concatenate([[0], np.cumsum(dims)])
        Q = np.zeros(
            (offs[-1], offs[-1]),
            dtype=complex if any(isinstance(v, complex) for v in subs.values()) else float,
        )

        def num(e):
            v = complex(sp.sympify(e).subs(subs).evalf())
            return v if Q.dtype.kind == "c" else v.real

        for i in range(self.blocks):
            for j in range(self.blocks):
                c = self.q0[i, j]
                if c != 0:
                    if dims[i] != dims[j]:
                        raise ParameterError(
                            "block_dims", block_dims, f"equal sizes for blocks {i + 1} and {j + 1}"
                        )
                    Q[offs[i] : offs[i + 1], offs[j] : offs[j + 1]] += num(c) * np.eye(dims[i])
        for g in self.gaussians:
            Y = np.asarray(matrices[g.name])
            blk = Y.T if g.transpose else Y
            i, j = g.row - 1, g.col - 1
            if blk.shape != (dims[i], dims[j]):
                raise ParameterError(f"matrix {g.name}", Y.shape, f"a shape fitting block ({g.row}, {g.col})")
            Q[offs[i] : offs[i + 1], offs[j] : offs[j + 1]] += num(g.coeff) * blk
        return Q
