"""Compiled kernels of the exact population risk, specialised to one student activation σ.

A template (:mod:`asymptotics.rendering.templates`): ``Activation.specialise`` renders it to a
module whose header binds ``sigma`` to the student's compiled σ; see
:mod:`validation.simulator.population` for the mathematics.

:func:`conditional_hermite` computes, at P points (sₚ, tₚ), the normalised Hermite coefficients

    A[k, p] = E_ξ[σ(sₚ + tₚ ξ) hₖ(ξ)],   hₖ = Heₖ/√k!,   k = 0 … K,   and   S[p] = E_ξ σ(sₚ + tₚ ξ)²,

ξ ~ N(0, 1), with a composite Gauss–Legendre rule in ξ (the numerics layer's node and weight,
``asymptotics/numerics/templates/quadrature.py``) on the panels ``edges`` (covering
[−9, 9]; the Gaussian mass outside is 2·10⁻¹⁹), each panel split further at the points
(kink − sₚ)/tₚ where σ is not smooth. One point per ``prange`` iteration: every sum is taken in
the same order whatever the number of threads. For a smooth σ the nodes do not depend on the
point and :func:`sigma_grid` evaluates σ on the grid (sₚ + tₚξₗ), the Hermite projections then
being one matrix product (see :func:`validation.simulator.quadrature.conditional_coefficients`).
"""

import numpy as np
from numba import njit, prange

from asymptotics.numerics.templates.quadrature import gaussian_node  # placeholder: included


def sigma(x):  # placeholder: replaced by the student's compiled σ in the rendered module
    raise NotImplementedError


def dsigma(x):  # placeholder (unused here)
    raise NotImplementedError


def d2sigma(x):  # placeholder (unused here)
    raise NotImplementedError


# ---- kernels (copied into the rendered module) ----

@njit(cache=True, nogil=True)
def _panel(a, b, s, t, glx, glw, acc, K, sq):
    """Add the Gauss–Legendre sums of one panel [a, b] to acc[0..K] (Hermite) and acc[K+1] (σ²)."""
    for g in range(glx.shape[0]):
        xi, w = gaussian_node(a, b, glx[g], glw[g])
        f = sigma(s + t * xi)
        fw = f * w
        acc[K + 1] += f * fw
        acc[0] += fw
        if K >= 1:
            hm = 1.0
            hc = xi
            acc[1] += fw * hc
            for k in range(1, K):
                hn = (xi * hc - sq[k] * hm) / sq[k + 1]
                acc[k + 1] += fw * hn
                hm = hc
                hc = hn


@njit(cache=True, parallel=True, nogil=True)
def conditional_hermite(s, t, edges, glx, glw, kinks, A, S):
    """A[k, p] = E[σ(sₚ + tₚξ) hₖ(ξ)] (k = 0 … K = A.shape[0] − 1) and S[p] = E σ(sₚ + tₚξ)²."""
    K = A.shape[0] - 1
    P = s.shape[0]
    sq = np.sqrt(np.arange(K + 2).astype(np.float64))
    nk = kinks.shape[0]
    for p in prange(P):
        acc = np.zeros(K + 2)
        sp = s[p]
        tp = t[p]
        if tp <= 0.0:
            f = sigma(sp)
            acc[0] = f
            acc[K + 1] = f * f
        else:
            for j in range(edges.shape[0] - 1):
                a = edges[j]
                b = edges[j + 1]
                # the kinks of σ that fall inside this panel (kinks are sorted: so are their images)
                for q in range(nk):
                    xk = (kinks[q] - sp) / tp
                    if a < xk < b:
                        _panel(a, xk, sp, tp, glx, glw, acc, K, sq)
                        a = xk
                _panel(a, b, sp, tp, glx, glw, acc, K, sq)
        for k in range(K + 1):
            A[k, p] = acc[k]
        S[p] = acc[K + 1]


@njit(cache=True, parallel=True, nogil=True)
def sigma_grid(s, t, xi, F):
    """F[p, l] = σ(sₚ + tₚ ξₗ) (the values of a fixed inner rule at every point)."""
    for p in prange(s.shape[0]):
        sp = s[p]
        tp = t[p]
        for l in range(xi.shape[0]):
            F[p, l] = sigma(sp + tp * xi[l])
