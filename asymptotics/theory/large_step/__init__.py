"""The large step η = Θ(√N) (Ba et al. 2022, §5) and the intermediate regime η = N^a.

- :mod:`.tau_star` — τ* and κ*, the one-dimensional Gaussian optimisation (eq. 5.1): closed forms,
  a compiled fast path over grids of input scales, an mpmath high-precision path (a package: problem,
  rules, compiled path, closed forms, mpmath path, public functions);
- :mod:`.bounds` — the kernel lower bound μ2*², the paper's upper bound 10τ* + C(√τ*√(d/n) + d/n)
  and the verdict "beats every kernel";
- :mod:`.intermediate` — η = N^a, a ∈ (0, 1/2): the spike-count rule and the limit-model error
  (derived, Moniri et al. 2024; ``docs/large-step.md``);
- :mod:`.refinement` — the one loop that refines a resolution until the answer stops changing.

The exact Gaussian-readout risk curve (``docs/large-step-exact.md``) lives in
:mod:`.gaussian_readout` (with :mod:`.typed_prior`, :mod:`.spike_mean_block`,
:mod:`.readout_quadrature`); it is imported from there, not re-exported here.
"""

from .bounds import LargeStepBounds, kernel_lower_bound, large_step_bounds, psi1_crossover, upper_bound
from .tau_star import (
    INFIMUM_AT,
    TauObjective,
    TauStarConfig,
    TauStarGrid,
    TauStarResult,
    activation_limits,
    tau_limits,
    tau_objective,
    tau_star,
    tau_star_grid,
)

__all__ = [
    "LargeStepBounds",
    "kernel_lower_bound",
    "large_step_bounds",
    "psi1_crossover",
    "upper_bound",
    "INFIMUM_AT",
    "TauObjective",
    "TauStarConfig",
    "TauStarGrid",
    "TauStarResult",
    "activation_limits",
    "tau_limits",
    "tau_objective",
    "tau_star",
    "tau_star_grid",
]
