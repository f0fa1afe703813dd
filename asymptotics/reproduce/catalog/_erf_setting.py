"""The erf/erf setting shared by Ba et al. Fig. 1 and Fig. 3(c) (identical simulations: one cache entry).

Fig. 3(c) states σ = σ* = erf, ψ2 = 2, λ = 10⁻³, σ_ε = 0.1; Fig. 1 does not state ψ2, λ, σ_ε and
is drawn with the same values (documented in its caption). The learning rate is η = N^a:
a = 0 is the small step (η = 1), a = 1/2 the large step η = √N.
"""

from __future__ import annotations

import numpy as np

STUDENT = TEACHER = "erf"
PSI2, LAM, NOISE = 2.0, 1e-3, 0.1
#: ψ1 grid of the exact large-step curve (≈ 0.5 s a point), away from the interpolation peak ψ1 = ψ2
LARGE_GRID = np.geomspace(3.0, 40.0, 14)


def config(d: int, psi1: float, exponent: float, n_test: int):
    """The simulated network at ψ1 with η = N**exponent (c = 1)."""
    from validation.simulator import BaConfig

    return BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=psi1, psi2=PSI2, eta=1.0, eta_exponent=exponent,
                    lam=LAM, noise=NOISE, n_test=n_test, measure=("risk",))


def spike_count(a: float) -> int:
    """Number ℓ of separated spikes of the trained features at η = N^a (``30-spiked-rf.md`` §9):
    ℓ is the largest integer with (ℓ−1)/(2ℓ) < a (0 for a ≤ 0, ∞ at a = 1/2)."""
    if a <= 0:
        return 0
    if a >= 0.5:
        return 10**9
    ell = 1
    while (ell) / (2 * (ell + 1)) < a:
        ell += 1
    return ell
