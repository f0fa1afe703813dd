r"""Closed-form dual kernels E σ(u) σ(v) of jointly Gaussian (u, v) with any variances.

For (u, v) centred Gaussian with Var u = a, Var v = b, Cov(u, v) = C (ρ = C/√(ab)):

* ``erf``    — E erf(u) erf(v) = (2/π) arcsin(2C / √((1 + 2a)(1 + 2b)))  (Williams 1997);
* ``relu``   — E relu(u) relu(v) = √(ab)/(2π) · (√(1 − ρ²) + (π − arccos ρ) ρ)  (Cho & Saul 2009,
  the first arc-cosine kernel); E relu(u) = √a/√(2π);
* ``sin``    — E sin(u) sin(v) = e^{−(a+b)/2} sinh(C)  (from cos(u ∓ v));
* ``linear`` — E u v = C.

A centred activation σ̃ = σ − o (o = E σ(z), z ~ N(0, 1)) has
E σ̃(u)σ̃(v) = E σ(u)σ(v) − o (E σ(u) + E σ(v)) + o² (E σ(u) = 0 except for relu).

>>> round(float(pair_kernel("relu", 1.0, 1.0, 1.0)), 15)      # E relu(z)² = 1/2
0.5
>>> round(float(pair_kernel("erf", 1.0, 1.0, 1.0) - 2 / np.pi * np.arcsin(2 / 3)), 15)
0.0
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["CLOSED_FORMS", "pair_kernel", "dual_quadratic_rows"]

#: Built-in activations with a closed-form dual kernel, and their kernel codes.
CLOSED_FORMS = {"erf": 0, "relu": 1, "sin": 2, "linear": 3}

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@njit(cache=True, nogil=True)
def _kernel(code, a, b, C):
    if code == 0:
        x = 2.0 * C / math.sqrt((1.0 + 2.0 * a) * (1.0 + 2.0 * b))
        x = min(1.0, max(-1.0, x))
        return 2.0 / math.pi * math.asin(x)
    if code == 1:
        sab = math.sqrt(a * b)
        if sab == 0.0:
            return 0.0
        r = min(1.0, max(-1.0, C / sab))
        return sab / (2.0 * math.pi) * (math.sqrt(max(0.0, 1.0 - r * r)) + (math.pi - math.acos(r)) * r)
    if code == 2:
        return math.exp(-0.5 * (a + b)) * math.sinh(C)
    return C


@njit(cache=True, nogil=True)
def _mean(code, a):
    if code == 1:
        return math.sqrt(a) * _INV_SQRT_2PI
    return 0.0


@njit(cache=True, parallel=True, nogil=True)
def dual_quadratic_rows(C, c, code, offset, out):
    """out[i] = Σⱼ cᵢ cⱼ E σ̃(wᵢ·x) σ̃(wⱼ·x) for the Gram matrix C = WᵀW (σ̃ = σ − offset).

    One row per ``prange`` iteration (sums in a fixed order whatever the thread count); the
    caller adds the rows in order.
    """
    N = C.shape[0]
    for i in prange(N):
        a = C[i, i]
        mi = _mean(code, a)
        acc = 0.0
        for j in range(N):
            b = C[j, j]
            k = _kernel(code, a, b, C[i, j]) - offset * (mi + _mean(code, b)) + offset * offset
            acc += c[j] * k
        out[i] = c[i] * acc


def pair_kernel(name: str, a, b, C, offset: float = 0.0, offset2: float | None = None):
    """E σ̃(u) σ̃₂(v), σ̃ = σ − offset, σ̃₂ = σ − offset2 (vectorised; σ one of :data:`CLOSED_FORMS`)."""
    code = CLOSED_FORMS[name]
    o2 = offset if offset2 is None else offset2
    a, b, C = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float), np.asarray(C, float))
    out = np.empty(a.shape)
    flat = out.reshape(-1)
    for i, (x, y, z) in enumerate(zip(a.ravel(), b.ravel(), C.ravel(), strict=True)):
        flat[i] = _kernel(code, x, y, z) - o2 * _mean(code, x) - offset * _mean(code, y) + offset * o2
    return out
