r"""Exact asymptotic risk after one large step η = c√N in the Ba et al. protocol, Gaussian readout.

Ba et al. (2022) only bound the risk in this regime (10τ* + C(√τ*√(d/n) + d/n)); this module gives the
asymptotic value itself (``docs/large-step-exact.md``: derived, and checked against simulations of
the network).

**The network is a spiked RF with a continuous law of readout types** (§1). With η = c√N, dropping
the O(N^{-1/2}) output at initialisation, neuron i moves to

    w¹ᵢ = w⁰ᵢ + c uᵢ [μ1 ĝ + ξᵢ],   uᵢ = √N a⁰ᵢ ~ N(0, 1),   ĝ = Xᵀy/n,

so it is a spiked-random-features neuron of *type* uᵢ: spike r uᵢ κ along v = ĝ/‖ĝ‖ (κ = ⟨v, x⟩),
bulk variance c(uᵢ), target overlap γ, with E y² = μ1*² + μ2*² + σ_ε² and

    r = c μ1 ‖ĝ‖,   ‖ĝ‖² = μ1*² + E y²/ψ1,   γ = μ1*/‖ĝ‖,   c(u) = 1 + c² u² E y² Var σ'(z)/ψ1.

This is the map of Cui et al. with η̃ = c, α0 = ψ1 (:func:`~asymptotics.theory.spiked_rf.cui_to_srf`,
reused). Conventions: Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² is Cui's Σ(…)² + λ_C‖a‖² with
**λ_C = λψ1/ψ2**; α/β = ψ1/ψ2, β = ψ2; the risk R1 = E_x(f̂(x) − f*(x))² excludes σ_ε² (the noise
enters only the training side of the channel).

**Fixed point on functions of κ** (§2). The cGET coefficients of a type-u neuron are Cui's with
r → r u, c → c(u) (:mod:`asymptotics.theory.spiked_rf.cget`). On a Gauss–Hermite grid in κ the order
parameters are vectors; with ŵ(κ) = (ψ1/ψ2)/(1 + V(κ)) the channel is diagonal in κ:

    E(κ) = h̃2 + σ_ε² − 2ω̄h + ω̄² − 2ψ(κ)h̃1 + q(κ),   ω̄ = ω0(κ) + κ t(κ),

and the prior is the exact deterministic equivalent on L²(κ) of :mod:`..typed_prior` (self-energy
τ(u), responses V(κ), overlaps t(κ), ψ(κ), second-order traces q(κ) by differentiation with respect
to the sources diag(ŵE/(1+V)) + ψ2 (Bh̃1)(Bh̃1)ᵀ on B and q̂2 + ψ2 c t̂² + N ĝ0² on D). Expectations
over u use a :class:`~..readout_quadrature.ReadoutRule` (Gauss–Hermite by default, checked for
convergence in the number of nodes K).

The package: :mod:`.model` (the typed sRF, tabulated; tables cached), :mod:`.solver` (its fixed
point at one λ and N, or along a list of λ), :mod:`.compiled` (the compiled kernels, rendered from
the templates ``_kernel_template.py``, ``_mean_block_template.py``, ``_spectral_template.py`` and
``_dense_template.py``), :mod:`.result`
(:class:`GaussianReadoutRisk`), :mod:`.risk` (:func:`gaussian_readout_risk`, with the convergence
checks in K and in the κ rule) and :mod:`.grid` (:func:`gaussian_readout_risk_grid` over (ψ1, λ)).
The solve is reduced like the sRF solver's: (1) the responses (V(κ), τ(u)) form a closed system,
solved by Anderson acceleration; (2) the spike–mean block (ω0, t) is linear given V and is solved
exactly (:mod:`..spike_mean_block`); (3) the variances q(κ) solve a linear system whose spectral
radius must be < 1. Every equation is then evaluated once at the solution; the largest violation
is ``residual``. All three run in one compiled kernel.

**N = ∞ and finite N.** At N = ∞ the mean directions are free: for odd σ and σ* the spike part of the
error vanishes and R1(∞) = E_κ[h̃2 − h² − 2ψh̃1 + q], O(d/n). At finite N the block keeps N = ψ2 d:
a leading-order correction with no fitted parameter (it overshoots for N ≲ 800; cross terms of
order N^{-1/2} are neglected — open).

>>> r = gaussian_readout_risk("erf", "erf", psi1=8, psi2=2, lam=1e-3, noise=0.1)     # N = ∞
>>> round(r.risk1, 4), r.limit, r.converged
(0.0259, True, True)
>>> r = gaussian_readout_risk("erf", "erf", psi1=8, psi2=2, lam=1e-3, noise=0.1, width=2000)
>>> round(r.risk1, 4), r.width                          # d = 1000: network 0.0289 ± 0.0001
(0.0291, 2000.0)
"""

from .grid import GaussianReadoutGrid, gaussian_readout_risk_grid
from .model import (
    DEFAULT_KAPPA_NODES,
    DEFAULT_TYPES,
    GaussianReadoutModel,
    check_width,
    gaussian_readout_model,
    width_from_dimension,
)
from .result import GaussianReadoutRisk
from .risk import gaussian_readout_risk, readout_type_sequence
from .solver import MIN_STABILITY_MARGIN, solve_gaussian_readout, solve_gaussian_readout_path

__all__ = [
    "GaussianReadoutModel",
    "GaussianReadoutRisk",
    "gaussian_readout_model",
    "solve_gaussian_readout",
    "solve_gaussian_readout_path",
    "gaussian_readout_risk",
    "gaussian_readout_risk_grid",
    "GaussianReadoutGrid",
    "readout_type_sequence",
    "width_from_dimension",
    "check_width",
    "DEFAULT_TYPES",
    "DEFAULT_KAPPA_NODES",
    "MIN_STABILITY_MARGIN",
]
