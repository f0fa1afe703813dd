r"""One gradient step at η = Θ(1) (Ba, Erdogdu, Suzuki, Wang, Wu & Yang 2022): the spike of W₁ and
its alignment, the trained conjugate-kernel outlier, the risks R0, R1 and δ = R0 − R1 by three
independent routes, and their limits. Mathematics and guide: ``docs/one-step.md``.

Everything takes a :class:`OneStepModel` (μ1, μ2², μ1*, μ2*², σ_ε — build it with
:meth:`OneStepModel.from_activations`) and broadcasts over numpy arrays of ψ1 = n/d, ψ2 = N/d,
λ and η (Ba et al.'s convention throughout).

=====================================  ==========================================================
:mod:`.spike_parameters`               s², ρ², θ1², θ2², θ², the BBP test (θ⁴ > ψ2) and η_c: the
                                       one home of the spike parameters, used by every route
:mod:`.spike`                          s₁(W₁)², overlaps, ‖W₁ᵀβ*‖², Q₀, Q₁, Δ, Δ' (rank-one algebra
                                       derived in :mod:`.derivation`, rendered offline)
:mod:`.ck_outlier`                     the trained-CK spike (spiked-covariance outlier map)
:mod:`.risk_mei_montanari`             route A: R0 by Mei–Montanari's closed form
:mod:`.risk_deterministic_equivalent`  route B: R0, R1, δ via the effective ridge κ
:mod:`.route_pencil`                   route C: R0, R1, δ from the linear pencil (derivation
                                       engine + compiled solver)
:mod:`.limits`                         μ2*² floor, ψ1 → ∞ and ψ2 → ∞
=====================================  ==========================================================

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> r = risk(m, psi1=1.0, psi2=0.5, lam=0.1, eta=3.0)
>>> round(r.delta, 4)                         # simulation d = 800: 0.0955 ± 0.0044
0.0951
"""

from __future__ import annotations

from . import limits
from .ck_outlier import CKSpectrum, ck_bulk_edge, ck_outlier
from .limits import *  # noqa: F403 — every limit (listed once, in limits.__all__)
from .model import OneStepModel
from .risk import ROUTES, risk
from .risk_deterministic_equivalent import EffectiveRidge, RiskResult, effective_ridge
from .spike import (
    Spike,
    alignment_readout,
    alignment_teacher,
    rectangular_spike,
    spike,
    spike_correction,
    spike_correction_derivative,
    top_singular_value_sq,
)
from .spike_parameters import (
    MAX_RISK_THETA_SQ,
    SpikeParameters,
    bbp_separated,
    critical_learning_rate,
    spike_strength_sq,
)

__all__ = [
    "OneStepModel",
    "risk",
    "ROUTES",
    "RiskResult",
    "EffectiveRidge",
    "effective_ridge",
    "SpikeParameters",
    "Spike",
    "spike",
    "rectangular_spike",
    "spike_strength_sq",
    "MAX_RISK_THETA_SQ",
    "bbp_separated",
    "critical_learning_rate",
    "top_singular_value_sq",
    "alignment_teacher",
    "alignment_readout",
    "spike_correction",
    "spike_correction_derivative",
    "CKSpectrum",
    "ck_outlier",
    "ck_bulk_edge",
    *limits.__all__,
]
