r"""The norms of the initial columns at finite d: a second type variable of the large-step network.

Ba et al.'s network starts from W⁰ with N(0, 1/d) entries, so neuron i's initial column has
ρᵢ² = ‖w⁰ᵢ‖² ~ χ²_d/d (mean 1, variance 2/d), not 1. The d → ∞ theory does not see it; at finite
width it does, because each ρᵢ gives neuron i its own mean function μ0(κ; uᵢ, ρᵢ), and the
spike–mean block resolves directions of weight ~ 1/N = 1/(ψ2 d), the size of Var ρ² (measured on
the network: docs/large-step-exact.md §4). Given ρ, the step of §1 of that page changes as

    spike  r u → r u · E σ'(ρz) / E σ'(z),
    bulk   c(u) = 1 + c² u² E y² Var σ'(z)/ψ1 → ρ² + c² u² E y² Var σ'(ρz)/ψ1,

(the neuron's pre-activation has variance ρ², its gradient the mean E σ'(ρz) and the variance
Var σ'(ρz) of the factor σ'(⟨w⁰ᵢ, x⟩)). The type law becomes the product of the readout rule and a
Gauss rule of the χ²_d/d law (:func:`column_norm_rule`, from the Jacobi matrix of the generalised
Laguerre polynomials, Golub–Welsch). Unit columns (Cui et al.'s protocol, ``initial_columns =
"unit"``) keep ρ ≡ 1.

>>> rho2, w = column_norm_rule(250, 6)
>>> round(float(w @ rho2), 12), round(float(w @ (rho2 - 1) ** 2) * 250, 10)   # E ρ² = 1, Var ρ² = 2/d
(1.0, 2.0)
"""

from __future__ import annotations

import math

import numpy as np

from ...activations import Activation
from ...errors import ConvergenceError, ParameterError
from ...gaussian import expect

__all__ = ["COLUMNS", "COLUMN_NODES", "check_columns", "column_norm_rule", "column_moments", "norm_factors"]

#: the initial columns: Ba et al.'s Gaussian entries (ρ² ~ χ²_d/d) or unit norm (ρ ≡ 1)
COLUMNS = ("unit", "gaussian")

#: nodes of the ρ² rule: exact for polynomials of degree 11 in ρ²; the risk changes by < 1e-9 (relative, the fixed point's own accuracy) from 6 to 10
COLUMN_NODES = 6


def check_columns(initial_columns: str) -> str:
    """The ``initial_columns`` argument, checked: one of :data:`COLUMNS`."""
    if initial_columns not in COLUMNS:
        raise ParameterError("initial_columns", initial_columns,
                             "'unit' (columns on the sphere) or 'gaussian' (N(0, 1/d) entries)")
    return initial_columns


def column_norm_rule(d: float, nodes: int = COLUMN_NODES) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss rule (ρ² nodes, weights) of the law χ²_d/d = Gamma(d/2, scale 2/d).

    The nodes are x_k·2/d, x_k the zeros of the generalised Laguerre polynomial L_m^{(d/2 − 1)}: the
    eigenvalues of its Jacobi matrix (diagonal 2k + a + 1, off-diagonal √(k(k + a)), a = d/2 − 1),
    the weights the squared first components of the eigenvectors (no Gamma functions: stable for
    every d). Exact for polynomials in ρ² of degree ≤ 2m − 1.

    >>> rho2, w = column_norm_rule(10, 4)
    >>> round(float(w @ (rho2 - 1) ** 3), 12) == round(8 / 10**2, 12)     # third central moment 8/d²
    True
    """
    if not (isinstance(d, (int, float, np.integer, np.floating)) and not isinstance(d, bool)
            and math.isfinite(d) and d >= 2):
        raise ParameterError("d", d, "a finite input dimension d >= 2")
    m = int(nodes)
    a = float(d) / 2.0 - 1.0
    k = np.arange(m, dtype=float)
    off = np.sqrt(k[1:] * (k[1:] + a))
    jac = np.diag(2.0 * k + a + 1.0) + np.diag(off, 1) + np.diag(off, -1)
    x, vec = np.linalg.eigh(jac)
    w = vec[0] ** 2
    return x * (2.0 / float(d)), w / w.sum()


def column_moments(student: Activation, rho: float, functions) -> list[float]:
    r"""E g(σ, σ', ρz, z) for each g of ``functions`` at column norm ρ (z ~ N(0, 1); each g is called as
    ``g(σ(ρz), σ'(ρz), z)``), the rule split at the kinks of σ scaled by 1/ρ. The one home of the
    Gaussian expectations at a column norm (:func:`norm_factors`, :mod:`..initial_output`); raises
    :class:`~asymptotics.errors.ConvergenceError` when the quadrature does not resolve one of them."""
    sig, dsig = student.numpy, student.numpy_derivative
    ks = tuple(k / rho for k in student.kinks)
    vals = [expect(lambda z, g=g: g(sig(rho * z), dsig(rho * z), z), ks) for g in functions]
    scale = max(1.0, max(abs(v) for v, _ in vals))
    err = max(e for _, e in vals)
    if not all(math.isfinite(v) for v, _ in vals) or err > 1e-9 * scale:
        raise ConvergenceError(f"column norms: Gaussian moments of {student.name} at ρ = {rho:.6g} not resolved by "
                               f"the quadrature (error {err:.3g})", None)
    return [v for v, _ in vals]


def norm_factors(student: Activation, rho2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""(E σ'(ρz)/E σ'(z), Var σ'(ρz)/Var σ'(z)) at each ρ² (:func:`column_moments`). Where E σ'(z) = 0
    the spike r = c E σ' ‖ĝ‖ is zero and the factor is set to 1; where Var σ'(z) = 0 (σ' constant)
    Var σ'(ρz) = 0 too and the factor is set to 1."""

    def moments(rho):
        m1, m2 = column_moments(student, rho, (lambda s, d, z: d, lambda s, d, z: d * d))
        return m1, m2 - m1 * m1

    m1, v1 = moments(1.0)
    f1, f2 = [], []
    for r2 in np.asarray(rho2, dtype=float):
        a, b = moments(math.sqrt(r2))
        f1.append(a / m1 if m1 != 0.0 else 1.0)
        f2.append(b / v1 if v1 > 0.0 else 1.0)
    return np.array(f1), np.array(f2)
