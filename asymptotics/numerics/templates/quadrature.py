r"""Composite Gauss–Legendre against the Gaussian density, compiled: the rule of
:mod:`asymptotics.numerics.quadrature` for kernels whose panels move with their argument.

E f(z), z ~ N(0, 1), is Σ_panels Σⱼ wⱼ f(zⱼ) with, on a panel [a, b] and the Legendre node tⱼ,
weight ωⱼ of [−1, 1] (from :func:`asymptotics.numerics.quadrature.legendre_rule`),

    zⱼ = (a + b)/2 + (b − a)/2 · tⱼ,   wⱼ = (b − a)/2 · ωⱼ · (1/√(2π)) · e^{−zⱼ²/2}

(:func:`gaussian_node`, the arithmetic of the numpy rule term by term, with its two orders of the
weight's product: ``normalise_last`` multiplies by 1/√(2π) last; numba's exponential may differ
from numpy's by an ulp). The panels are those of width ``panel`` on [−L, L], each split where one
of the ``cuts`` falls strictly inside it
(:func:`panel_edges`): when f(z) = g(s + c z) has kinks at k, the cuts are (k − s)/c, so a
piecewise-analytic f is integrated to rounding for every shift s.

The kernels need no placeholder: a template that integrates its own integrand calls them in its
loops (the τ* objective, ``theory/large_step/tau_star/_kernel_template.py``; the cGET moments,
``theory/spiked_rf/_cget_template.py``).

>>> import numpy as np
>>> e = panel_edges(2.0, 1.0, np.array([-0.5, 1.0, 3.0]))
>>> e.tolist()                          # −0.5 splits a panel, 1 is an edge already, 3 is outside
[-2.0, -1.0, -0.5, 0.0, 1.0, 2.0]
"""

import math

import numpy as np
from numba import njit

# ---- kernels (copied into the rendered module) ----

#: 1/√(2π) in float64 (the constant of :mod:`asymptotics.numerics.quadrature`).
QUADRATURE_INV_SQRT_2PI = 0.3989422804014327


@njit(cache=True, nogil=True)
def gaussian_node(lo, hi, t, wt, normalise_last=False):
    """(z, w): the Legendre node t (weight wt on [−1, 1]) mapped to the panel [lo, hi], and its
    weight with the Gaussian density folded in (``normalise_last``: 1/√(2π) multiplied last)."""
    half = 0.5 * (hi - lo)
    z = 0.5 * (lo + hi) + half * t
    if normalise_last:
        return z, half * wt * math.exp(-0.5 * z * z) * QUADRATURE_INV_SQRT_2PI
    return z, half * wt * QUADRATURE_INV_SQRT_2PI * math.exp(-0.5 * z * z)


@njit(cache=True, nogil=True)
def panel_edges(half_width, panel, cuts):
    """The edges −L, −L + panel, …, L (L = ``half_width``, round(2L/panel) panels) with every cut
    strictly inside a panel added, ascending (a cut on an edge, outside (−L, L) or repeated adds
    nothing)."""
    npan = int(round(2.0 * half_width / panel))
    order = np.sort(cuts)
    edges = np.empty(npan + 1 + order.shape[0])
    n = 0
    k = 0
    for p in range(npan):
        lo = -half_width + p * panel
        hi = lo + panel
        edges[n] = lo
        n += 1
        cur = lo
        while k < order.shape[0] and order[k] < hi:
            if order[k] > cur:
                edges[n] = order[k]
                n += 1
                cur = order[k]
            k += 1
    edges[n] = -half_width + npan * panel
    return edges[: n + 1]
