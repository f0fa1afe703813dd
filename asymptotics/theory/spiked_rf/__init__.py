r"""Spiked random features after one large gradient step (Cui, Pesce, Dandi, Krzakala, Lu,
Zdeborová, Loureiro 2024): exact asymptotic test and training errors of the ridge readout.

Modules (one concept each; sections of Cui et al. as summarised in docs/spiked-rf.md in brackets):

- :mod:`.mapping` — (η̃, α0, σ, σ*) → (c, r, γ), readout types [§2, §7];
- :mod:`.cget` — conditional Gaussian-equivalence coefficients μ0, μ1, μ2 and target functions
  h, h̃1, h̃2 as fixed Gaussian quadratures with error estimates [§3];
- :mod:`.channel` — the output channel: κ-functions, conjugates, mean directions, errors [§4];
- :mod:`.prior_mp` — prior traces in closed form over Marchenko–Pastur, or over a finite spectrum [§5];
- :mod:`.readout_types` — K readout types: block Marchenko–Pastur prior [§7];
- :mod:`.priors` — one small class per prior (MP, block MP, finite spectrum) with the interface the
  fixed point calls, chosen once per solve [§4, §5, §7];
- :mod:`.fixed_point` — the fixed point, continuation along α [§4]; :mod:`.solution` — the solution
  object;
- :mod:`.compiled` — the compiled path (the problems of ``_solver_template.py`` and
  ``_block_template.py``, handed to the numerics layer's Anderson solve and dense linear algebra,
  which they include; the moments of ``_cget_template.py``; loaded by :mod:`.kernels`);
- :mod:`.grid` — many models × β × λ × α in one compiled call; :mod:`.phase_diagram` — ε_g over
  (α, η̃) with the random-features error and the linear floor;
- :mod:`.special_cases` — r = 0 (random features), α0 → ∞, the linear floor [§6];
- :mod:`.block_mp_derivation` — the block MP equations derived with the pencil engine [§7].

>>> from asymptotics.theory.spiked_rf import one_step_spiked_rf
>>> s = one_step_spiked_rf(alpha=1.5, alpha0=1.0, beta=1.0, eta_tilde=5.0, lam=0.01,
...                        student="tanh", teacher="tanh")
>>> round(s.test_error, 4), round(s.train_error, 4), round(s.params.c, 3)
(0.3187, 0.0461, 1.961)
"""

from .cget import (
    CGETCoefficients,
    KappaRule,
    TargetFunctions,
    cget_coefficients,
    kappa_rule,
    target_functions,
)
from .channel import ChannelModel, channel_model
from .fixed_point import (
    SpikedRFSolution,
    one_step_spiked_rf,
    solve_spiked_rf,
    spiked_rf,
    spiked_rf_curve,
)
from .grid import SpikedRFGrid, spiked_rf_grid
from .mapping import ReadoutTypes, SpikedRFParameters, cui_to_srf, readout_types, srf_parameters
from .phase_diagram import PhaseDiagram, phase_diagram
from .prior_mp import (
    PriorTraces,
    Spectrum,
    finite_prior_traces,
    mp_prior_traces,
    mp_resolvent_moments,
    sample_spectrum,
)
from .priors import BlockMarchenkoPastur, FiniteSpectrum, MarchenkoPastur, choose_prior
from .readout_types import BlockMPState, block_tangent, solve_block_mp
from .special_cases import (
    ba_ridge_from_cui,
    cui_ridge_from_ba,
    isotropic_spiked_rf,
    linear_floor,
    random_features_error,
)

__all__ = [
    "CGETCoefficients",
    "TargetFunctions",
    "KappaRule",
    "kappa_rule",
    "cget_coefficients",
    "target_functions",
    "ChannelModel",
    "channel_model",
    "SpikedRFSolution",
    "solve_spiked_rf",
    "spiked_rf_curve",
    "spiked_rf",
    "one_step_spiked_rf",
    "SpikedRFGrid",
    "spiked_rf_grid",
    "PhaseDiagram",
    "phase_diagram",
    "ReadoutTypes",
    "SpikedRFParameters",
    "cui_to_srf",
    "readout_types",
    "srf_parameters",
    "MarchenkoPastur",
    "BlockMarchenkoPastur",
    "FiniteSpectrum",
    "choose_prior",
    "PriorTraces",
    "Spectrum",
    "mp_prior_traces",
    "finite_prior_traces",
    "mp_resolvent_moments",
    "sample_spectrum",
    "BlockMPState",
    "solve_block_mp",
    "block_tangent",
    "random_features_error",
    "isotropic_spiked_rf",
    "linear_floor",
    "ba_ridge_from_cui",
    "cui_ridge_from_ba",
]
