r"""Gaussian expectations E f(z), z ~ N(0, 1), in float64 and in high precision.

Three rules, each with its use:

* :func:`hermite_rule` — probabilists' Gauss–Hermite nodes and weights normalised to N(0,1)
  (weights sum to one). Fixed degree, for compiled inner loops over smooth integrands.
* :func:`composite_rule` — composite Gauss–Legendre on [−L, L] with the Gaussian density folded
  into the weights, panels split at the given kinks. Exact to float64 for smooth integrands and for
  piecewise-smooth ones whose kinks are known (ReLU), where Gauss–Hermite silently loses digits.
* :func:`expect_mp` — mpmath's tanh–sinh quadrature at a chosen precision, split at the kinks.

:func:`expect` returns the value and an error estimate (the difference between two orders).
"""

from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np

__all__ = ["hermite_rule", "composite_rule", "expect", "expect_mp", "INV_SQRT_2PI"]

INV_SQRT_2PI = 0.3989422804014327


@lru_cache(maxsize=64)
def hermite_rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights with Σ wᵢ f(xᵢ) ≈ E f(z), z ~ N(0,1), exact for polynomials of degree < 2n."""
    x, w = np.polynomial.hermite_e.hermegauss(int(n))
    w = w / np.sqrt(2.0 * np.pi)
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


#: Panels towards a graded point s end at s ± 2^-k, k = 1 … GRADING_LEVELS.
GRADING_LEVELS = 64


@lru_cache(maxsize=256)
def composite_rule(kinks: tuple[float, ...] = (), order: int = 24, half_width: float = 14.0, panel: float = 1.0,
                   graded: tuple[float, ...] = ()):
    """Composite Gauss–Legendre rule for E f(z) on [−L, L] (tail mass beyond L=14 is < 1e-43).

    Panel boundaries are a uniform grid of width ``panel`` plus every kink in (−L, L), so a
    piecewise-analytic integrand is integrated to machine precision; towards each ``graded`` point
    s (an integrable singularity, such as log|z| at 0) the panels shrink geometrically,
    s ± 2^-k for k = 1 … :data:`GRADING_LEVELS`, so that the singularity costs no accuracy.
    """
    L = float(half_width)
    edges = set(np.arange(-L, L + 1e-12, panel).tolist())
    edges.update(float(k) for k in kinks if -L < k < L)
    for s in graded:
        if -L < s < L:
            edges.add(float(s))
            edges.update(float(s) + sign * 2.0**-k for k in range(1, GRADING_LEVELS + 1) for sign in (-1, 1))
            edges = {e for e in edges if -L <= e <= L}
    edges = np.array(sorted(edges))
    edges = edges[np.concatenate([[True], np.diff(edges) > 1e-13])]
    t, wt = np.polynomial.legendre.leggauss(int(order))
    a, b = edges[:-1, None], edges[1:, None]
    x = (0.5 * (b - a) * t + 0.5 * (a + b)).ravel()
    w = (0.5 * (b - a) * wt).ravel() * np.exp(-0.5 * x * x) * INV_SQRT_2PI
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


def expect(fn, kinks=(), *, order: int = 24, graded=()) -> tuple[float, float]:
    """E fn(z) in float64 with an error estimate.

    ``fn`` is a numpy-vectorised function; ``graded``: integrable singular points (see
    :func:`composite_rule`). Returns ``(value, error)`` where ``error`` is the difference between
    the rule of ``order`` and of ``order // 2 + 4`` nodes per panel.
    """
    kinks = tuple(sorted(float(k) for k in kinks))
    graded = tuple(sorted(float(s) for s in graded))
    x, w = composite_rule(kinks, order, graded=graded)
    v = float(np.dot(w, fn(x)))
    x2, w2 = composite_rule(kinks, order // 2 + 4, graded=graded)
    v2 = float(np.dot(w2, fn(x2)))
    return v, abs(v - v2)


def expect_mp(fn, kinks=(), *, dps: int = 30):
    """E fn(z) with mpmath at ``dps`` decimal digits; ``fn`` takes and returns mpmath numbers."""
    with mpmath.workdps(dps + 10):
        pts = [-mpmath.inf] + [mpmath.mpf(k) for k in sorted(kinks)] + [mpmath.inf]
        # add 0 as a split point to help tanh-sinh with centred integrands
        if not any(k == 0 for k in kinks):
            pts = sorted(set(pts[1:-1]) | {mpmath.mpf(0)})
            pts = [-mpmath.inf] + pts + [mpmath.inf]
        c = 1 / mpmath.sqrt(2 * mpmath.pi)
        val = mpmath.quad(lambda t: fn(t) * mpmath.exp(-t * t / 2) * c, pts)
    return +val
