"""The one adapter to the exact large-step theory (η = c√N, Gaussian readout; ``docs/large-step-exact.md``,
:func:`asymptotics.theory.large_step.gaussian_readout.gaussian_readout_risk`).

Every item that draws the exact large-step curve calls :func:`large_step_risk1`, so the connection to the
theory lives in one place. Its finite widths are the theory of the simulated Ba network: Gaussian initial
columns and the exact gradient with the initial output f₀ (``initial_columns="gaussian", gradient="exact"``,
``docs/large-step-exact.md`` §1); the N = ∞ limit does not depend on either. Smooth curves are evaluated at the theory's default resolution (K = 32
Gauss–Hermite readout types, 61 κ nodes: ``check=False``, ~0.5 s a point); the points compared with
simulations are solved with the convergence checks in K and in the κ rule (``check=True``; skipped at
the ``toy`` size of the test-suite, where the default resolution agrees to ~1e-10).
"""

from __future__ import annotations

import functools
import math

import numpy as np


@functools.lru_cache(maxsize=512)
def _risk1(student, teacher, psi1, psi2, lam, noise, c, widths, check):
    """R1 at one ψ1 for several widths (the Ba network's theory at finite N: one model per width)."""
    from ...theory.large_step.gaussian_readout import gaussian_readout_risk

    res = gaussian_readout_risk(student, teacher, psi1, psi2, lam, c=c, noise=noise, width=widths, check=check,
                                initial_columns="gaussian", gradient="exact")
    return tuple(float(r.risk1) if r.converged else math.nan for r in res)


def large_step_risk1(student, teacher, psi1, *, psi2, lam, noise, c=1.0, width=None, check=False, d=None):
    """R1 after one large step η = c√N at each ψ1: the N = ∞ limit (``width=None``) or the finite-width
    prediction for the simulated Ba network at N = ``width``. ``d`` (optional) also solves the width N = ψ2·d in the same call, so
    that a later request for it is free."""
    wd = math.inf if width is None else float(width)
    widths = [math.inf]
    if d is not None:
        widths.append(float(round(psi2 * d)))
    if wd not in widths:
        widths.append(wd)
    widths = tuple(widths)
    k = widths.index(wd)
    return np.array([_risk1(student, teacher, float(x), float(psi2), float(lam), float(noise), float(c), widths,
                            bool(check))[k] for x in np.atleast_1d(psi1)], float)
