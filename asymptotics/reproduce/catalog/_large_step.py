"""The one adapter to the exact large-step theory (η = c√N, Gaussian readout; ``35-large-step-gaussian-readout.md``).

Every item that draws the exact large-step curve calls :func:`large_step_risk1`, so the connection to
:mod:`asymptotics.theory.large_step` lives in one place. Until that theory exists the items record
``needs <TARGET>`` and draw the simulations only.
"""

from __future__ import annotations

import numpy as np

TARGET = "asymptotics.theory.large_step:large_step_risk"


def available(ctx) -> bool:
    return ctx.theory(TARGET, optional=True) is not None


def large_step_risk1(ctx, student, teacher, psi1, *, psi2, lam, noise, c=1.0, width=None):
    """R1 after one large step at each ψ1: the N = ∞ limit (``width=None``) or the finite-width
    prediction at N = ``width``; None if the theory is not available yet."""
    fn = ctx.theory(TARGET, optional=True)
    if fn is None:
        return None
    res = fn(student, teacher, psi1=np.asarray(psi1, float), psi2=psi2, lam=lam, noise=noise, c=c, width=width)
    return np.asarray(getattr(res, "risk1", res), float)
