r"""The expression tree: rational expressions in independent rectangular Gaussian matrices, with
their shapes and their order in the growing dimension.

Nodes (immutable, hashable) describe a matrix-valued expression in the **normalised** Gaussian
matrices Y' (i.i.d. entries N(0, v/L), L the reference dimension — the convention of the matrix
Dyson rule, ``docs/engine.md``):

=================  ===============================================================================
``Gaussian``       a declared matrix Y' of shape (rows, cols) (dimension names)
``Identity``       I_dim
``Scaled``         c·A with c a scalar (sympy expression free of L)
``Sum``            A_1 + … + A_k (same shape)
``Product``        A_1 A_2 ⋯ A_k (conformable)
``Transpose``      Aᵀ
``Inverse``        A⁻¹ (square)
=================  ===============================================================================

While parsing, every value also carries its **order** k in the dimension: a matrix of operator
norm ≍ L^k, a scalar ≍ L^k. A declared matrix with i.i.d. N(0, v) entries ("unit" entries) is
Y = √L·Y' (order ½); with entries N(0, v/L) ("scaled") it is Y' (order 0). A dimension name used as
a scalar is n = r_n·L (order 1, r_n its declared ratio). Orders add under products, change sign
under inverses, and the terms of a sum must have the same order — otherwise one of them is
negligible or dominant as L → ∞ and the expression has no finite, non-trivial limit, which is
refused with a message naming the term (e.g. ``X.T@X + lam*I`` with unit entries: write
``X.T@X/d + lam*I``). The value of the whole expression must have order 0.

>>> n, d = "n", "d"
>>> X = Gaussian("X", n, d)
>>> A = Sum((Product((Transpose(X), X)), Scaled(sympy.Symbol("lam"), Identity(d))))
>>> shape_of(A)
('d', 'd')
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

__all__ = [
    "Gaussian",
    "Identity",
    "Scaled",
    "Sum",
    "Product",
    "Transpose",
    "Inverse",
    "MatrixValue",
    "ScalarValue",
    "UnsizedIdentity",
    "shape_of",
    "show",
]


@dataclass(frozen=True)
class Gaussian:
    """The declared Gaussian matrix ``name`` (normalised: entries N(0, v/L)), shape (rows, cols)."""

    name: str
    rows: str
    cols: str


@dataclass(frozen=True)
class Identity:
    """The identity of size ``dim`` (a dimension name)."""

    dim: str


@dataclass(frozen=True)
class Scaled:
    """``coeff`` · ``arg`` with ``coeff`` a sympy scalar free of the dimension."""

    coeff: sympy.Expr
    arg: object


@dataclass(frozen=True)
class Sum:
    """``terms[0] + terms[1] + …`` (all of one shape)."""

    terms: tuple


@dataclass(frozen=True)
class Product:
    """``factors[0] @ factors[1] @ …`` (conformable)."""

    factors: tuple


@dataclass(frozen=True)
class _Unary:
    """A node of one argument ``arg``; each subclass is its own node type (nodes of two types
    never compare equal)."""

    arg: object


class Transpose(_Unary):
    """``arg``ᵀ."""


class Inverse(_Unary):
    """``arg``⁻¹ (``arg`` square)."""


def shape_of(node) -> tuple:
    """The shape (row dimension, column dimension) of a node."""
    if isinstance(node, Gaussian):
        return (node.rows, node.cols)
    if isinstance(node, Identity):
        return (node.dim, node.dim)
    if isinstance(node, (Scaled, Inverse)):
        return shape_of(node.arg)
    if isinstance(node, Transpose):
        r, c = shape_of(node.arg)
        return (c, r)
    if isinstance(node, Sum):
        return shape_of(node.terms[0])
    if isinstance(node, Product):
        return (shape_of(node.factors[0])[0], shape_of(node.factors[-1])[1])
    raise TypeError(f"not an expression node: {node!r}")  # pragma: no cover


def show(node) -> str:
    """A compact text form of a node (for messages and docs)."""
    if isinstance(node, Gaussian):
        return node.name
    if isinstance(node, Identity):
        return f"I({node.dim})"
    if isinstance(node, Scaled):
        return f"({node.coeff})*{show(node.arg)}"
    if isinstance(node, Sum):
        return "(" + " + ".join(show(t) for t in node.terms) + ")"
    if isinstance(node, Product):
        return " @ ".join(show(f) for f in node.factors)
    if isinstance(node, Transpose):
        return f"({show(node.arg)}).T"
    if isinstance(node, Inverse):
        return f"inv({show(node.arg)})"
    raise TypeError(f"not an expression node: {node!r}")  # pragma: no cover


# --------------------------------------------------------------------------- parsed values
@dataclass(frozen=True)
class ScalarValue:
    """A scalar L^order · value (``value`` a sympy expression free of L)."""

    value: sympy.Expr
    order: sympy.Rational = sympy.Integer(0)


@dataclass(frozen=True)
class UnsizedIdentity:
    """c·I whose size is not known yet (``I`` without an argument); sized when it meets a matrix."""

    coeff: sympy.Expr
    order: sympy.Rational = sympy.Integer(0)

    def sized(self, dim: str) -> MatrixValue:
        node = Identity(dim) if self.coeff == 1 else Scaled(self.coeff, Identity(dim))
        return MatrixValue(node, self.order)


@dataclass(frozen=True)
class MatrixValue:
    """A matrix node of order ``order`` (operator norm ≍ L^order)."""

    node: object
    order: sympy.Rational = sympy.Integer(0)

    @property
    def shape(self) -> tuple:
        return shape_of(self.node)

    @property
    def square(self) -> bool:
        r, c = self.shape
        return r == c


def scale(value: MatrixValue, c: ScalarValue) -> MatrixValue:
    """c·A, merging nested scalings."""
    if c.value == 1:
        return MatrixValue(value.node, value.order + c.order)
    node = value.node
    if isinstance(node, Scaled):
        coeff = sympy.expand(c.value * node.coeff)
        return MatrixValue(Scaled(coeff, node.arg) if coeff != 1 else node.arg, value.order + c.order)
    return MatrixValue(Scaled(c.value, node), value.order + c.order)
