r"""The cross term's two-dimensional integral and the quadrature constants shared by the population
risk (:mod:`validation.simulator.population`) and its conditioned Hermite expansion
(:mod:`validation.simulator.hermite`).

For a neuron with wᵢ·x = slopeᵢ z + scaleᵢ ξ (z = ⟨β, x⟩, ξ ⟂ z standard Gaussians),
kᵢ = E σ(wᵢ·x) σ*(z) = E_z[σ*(z) a₀(slopeᵢ z; scaleᵢ)], a₀(m; s) = E_ξ σ(m + sξ): an adaptive
composite Gauss–Legendre rule in z split at the kinks of σ*, driven by the neurons with the
sharpest integrands (:func:`test_neurons`).
"""

from __future__ import annotations

import numpy as np

from asymptotics.activations import Activation

from .kernels import population_kernels
from .quadrature import HALF_RANGE, adaptive_rule, conditional_coefficients, inner_edges

__all__ = ["QUAD_RTOL", "MEHLER_RHO", "cross_two_dim", "test_neurons"]

#: Relative accuracy asked of every quadrature (far below the truncation tolerance).
QUAD_RTOL = 1e-13
#: Neurons with |ρᵢ| = |⟨wᵢ, β⟩|/‖wᵢ‖ up to this get the cross term from Mehler's series in ρᵢ.
MEHLER_RHO = 0.25


def cross_two_dim(coef, slope, scale, student: Activation, teacher: Activation) -> float:
    """Σᵢ coefᵢ E_z[σ*(z) a₀(slopeᵢ z; scaleᵢ)] (wᵢ·x = slopeᵢ z + scaleᵢ ξ, z = ⟨β, x⟩) by an
    adaptive rule in z split at the kinks of σ*, driven by the neurons with the sharpest integrands."""
    kern = population_kernels(student)
    kinks = np.asarray(student.kinks, dtype=float)
    edges = inner_edges(kern, kinks, [scale.min(), scale.max(), float(np.median(scale))])
    test = test_neurons(np.abs(slope) / np.maximum(scale, 1e-300))

    def fn(z):
        sp = (slope[test, None] * z[None, :]).ravel()
        tp = np.repeat(scale[test], z.size)
        A, _ = conditional_coefficients(kern, sp, tp, edges, kinks, 0)
        f = np.asarray(teacher.numpy(z), dtype=float)
        return np.concatenate([A[0].reshape(test.size, z.size) * f[None, :], f[None, :] ** 2])

    z, wz = adaptive_rule(fn, np.linspace(-HALF_RANGE, HALF_RANGE, 7), kinks=teacher.kinks, rtol=QUAD_RTOL)
    fz = np.asarray(teacher.numpy(z), dtype=float) * wz
    total = 0.0
    block = max(1, int(2**22 // max(z.size, 1)))  # bounded memory: 4M points per block
    for i0 in range(0, slope.size, block):
        i1 = min(slope.size, i0 + block)
        sp = (slope[i0:i1, None] * z[None, :]).ravel()
        tp = np.repeat(scale[i0:i1], z.size)
        A, _ = conditional_coefficients(kern, sp, tp, edges, kinks, 0)
        total += float(coef[i0:i1] @ (A[0].reshape(i1 - i0, z.size) @ fz))
    return total


def test_neurons(difficulty: np.ndarray, count: int = 6) -> np.ndarray:
    """Indices of the neurons with the hardest integrands, plus a few spread over the rest."""
    order = np.argsort(-difficulty, kind="stable")
    spread = order[np.linspace(0, order.size - 1, min(order.size, count)).astype(int)]
    return np.unique(np.concatenate([order[:count], spread]))
