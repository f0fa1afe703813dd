"""The one adapter to the exact large-step theory (η = c√N, Gaussian readout;
``35-large-step-gaussian-readout.md``, :mod:`asymptotics.theory.large_step.gaussian_readout`).

Every item that draws the exact large-step curve calls :func:`large_step_risk1`, so the connection to the
theory lives in one place. Smooth curves are evaluated at the theory's default resolution (K = 32
Gauss–Hermite readout types, 61 κ nodes: ``check=False``, ~0.5 s a point); the points compared with
simulations are solved with the convergence checks in K and in the κ rule (``check=True``; skipped at
the ``toy`` size of the test-suite, where the default resolution agrees to ~1e-10).
"""

from __future__ import annotations

import functools
import math

import numpy as np

TARGET = "asymptotics.theory.large_step.gaussian_readout:gaussian_readout_risk"


def available(ctx) -> bool:
    return ctx.theory(TARGET, optional=True) is not None


@functools.lru_cache(maxsize=512)
def _risk1(fn, student, teacher, psi1, psi2, lam, noise, c, width, check):
    res = fn(student, teacher, psi1, psi2, lam, c=c, noise=noise, width=width, check=check)
    return float(res.risk1) if res.converged else math.nan


def large_step_risk1(ctx, student, teacher, psi1, *, psi2, lam, noise, c=1.0, width=None, check=False):
    """R1 after one large step η = c√N at each ψ1: the N = ∞ limit (``width=None``) or the finite-width
    prediction at N = ``width``; None if the theory is not available."""
    fn = ctx.theory(TARGET, optional=True)
    if fn is None:
        return None
    wd = math.inf if width is None else float(width)
    return np.array([_risk1(fn, student, teacher, float(x), float(psi2), float(lam), float(noise), float(c), wd,
                            bool(check)) for x in np.atleast_1d(psi1)], float)
