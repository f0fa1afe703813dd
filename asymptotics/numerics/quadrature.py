r"""Composite Gauss–Legendre quadrature against the Gaussian density: the one home of the rule.

For E f(z), z ~ N(0, 1), on panels [a, b] covering [−L, L] (edges chosen by the caller: uniform,
split at the kinks of f, graded towards a singular point), with the order-n Legendre nodes tⱼ and
weights ωⱼ on [−1, 1]:

    E f(z) ≈ Σ_panels Σⱼ wⱼ f(zⱼ),   zⱼ = (a + b)/2 + (b − a)/2 · tⱼ,
                                     wⱼ = (b − a)/2 · ωⱼ · φ(zⱼ),   φ(z) = e^{−z²/2}/√(2π).

Exact to rounding for a piecewise-analytic f whose kinks are panel edges (the Gaussian mass
beyond L, P(|z| > L) = erfc(L/√2) < 2φ(L)/L: 2e-19 at L = 9, 2e-44 at L = 14).

The weight is the product of (b − a)/2 · ωⱼ, 1/√(2π) and e^{−zⱼ²/2}, taken in one of two orders
(``normalise_last``): ((b − a)/2 · ωⱼ · 1/√(2π)) · e^{−zⱼ²/2} (the default: the simulator's
rules, the τ* kernels) or ((b − a)/2 · ωⱼ · e^{−zⱼ²/2}) · 1/√(2π) (``normalise_last=True``:
:func:`asymptotics.gaussian.composite_rule` and the cGET kernels). The two differ by an ulp;
both are kept so that every recorded number is reproduced bit for bit (a theory whose fixed
point is solved to a residual of 1e-9 moves by 1e-11 under an ulp change of its quadrature).

* :func:`legendre_rule` — (tⱼ, ωⱼ) of order n, computed once per order (read-only arrays);
* :func:`gaussian_panels` — the nodes and weights of every panel of given edges (numpy, one row
  per panel);
* the compiled twin, for kernels whose panels move with their argument (split where a shifted
  kink falls), is :mod:`asymptotics.numerics.templates.quadrature` (the same node and weight,
  term by term, and the same panel edges).

>>> x, w = gaussian_panels(np.linspace(-14.0, 14.0, 29), 24)
>>> round(float(np.sum(w * x**4)), 12)             # E z⁴ = 3
3.0
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["INV_SQRT_2PI", "legendre_rule", "gaussian_panels", "gaussian_panel_pairs"]

#: 1/√(2π) in float64.
INV_SQRT_2PI = 0.3989422804014327


@lru_cache(maxsize=128)
def legendre_rule(order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [−1, 1] of ``order`` points (exact for polynomials of
    degree < 2·order), computed once per order; the arrays are read-only.

    >>> t, w = legendre_rule(3)
    >>> [round(float(v), 15) for v in t], round(float(w.sum()), 15)
    ([-0.774596669241483, 0.0, 0.774596669241483], 2.0)
    """
    t, w = np.polynomial.legendre.leggauss(int(order))
    t.setflags(write=False)
    w.setflags(write=False)
    return t, w


def gaussian_panels(edges, order: int, *, normalise_last: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights (each of shape (panels, order)) of composite Gauss–Legendre on the panels
    ``edges[i] … edges[i + 1]`` with the Gaussian density folded into the weights:
    Σ w f(x) ≈ E f(z) over the panels. ``ravel()`` gives a flat rule; ``normalise_last``: the
    order of the weight's product (module docstring)."""
    e = np.asarray(edges, dtype=float).reshape(-1)
    if e.size < 2:
        raise ValueError("gaussian_panels needs at least two edges")
    return gaussian_panel_pairs(np.stack([e[:-1], e[1:]], axis=1), order, normalise_last=normalise_last)


def gaussian_panel_pairs(panels, order: int, *, normalise_last: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`gaussian_panels` for panels given as rows ``(a, b)`` (not necessarily adjacent)."""
    t, wt = legendre_rule(order)
    p = np.asarray(panels, dtype=float)
    a, b = p[:, :1], p[:, 1:]
    half, mid = 0.5 * (b - a), 0.5 * (a + b)
    x = mid + half * t[None, :]
    if normalise_last:
        return x, half * wt[None, :] * np.exp(-0.5 * x * x) * INV_SQRT_2PI
    return x, half * wt[None, :] * INV_SQRT_2PI * np.exp(-0.5 * x * x)
