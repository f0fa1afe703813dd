r"""The initial output f₀ in the large step's gradient: the finite-width terms of the exact step.

The theory of ``docs/large-step-exact.md`` §1 steps on the labels: neuron i moves by
c uᵢ [μ1 ĝ + ξᵢ] with ĝ = Xᵀy/n. Ba et al.'s gradient has the residual y − f₀(x) instead, with the
network's initial output f₀(x) = Σⱼ cⱼ σ(⟨w⁰ⱼ, x⟩), cⱼ = aⱼ/√N = uⱼ/N, so with the step η = c√N
(a learning rate cN on the coefficients cᵢ) neuron i also moves by

    Δᵢ = −c N cᵢ (1/n) Σ_μ f₀(x_μ) σ'(⟨w⁰ᵢ, x_μ⟩) x_μ.

f₀ is O(N^{-1/2}), and every term below vanishes at N = ∞. By Stein's lemma the mean of Δᵢ has,
at leading order in the overlaps ⟨w⁰ᵢ, w⁰ⱼ⟩, two parts, and its fluctuation a third:

1. **A collective shrink of W⁰.** The j ≠ i part is −c N cᵢ mᵢ Σⱼ cⱼ mⱼ w⁰ⱼ (mⱼ = E σ'(ρⱼz),
   ρⱼ = ‖w⁰ⱼ‖): one direction for every neuron, W⁰ ↦ W⁰(I − ε q qᵀ) with the profile
   q ∝ (uⱼ mⱼ)ⱼ and ε = c E[u² m(ρ)²] = c μ1² E v² (v = u m(ρ)/μ1, the types' spike values).
   W⁰ has Gaussian entries and q does not depend on its directions, so W⁰(I − ε q qᵀ) has the law
   of W⁰ + γ' ω qᵀ with ω ~ N(0, I_d/d) independent and γ'² = (1 − ε)² − 1 < 0: a second spike,
   along a direction orthogonal to β*, with *the spike's own profile* vᵢ. The two add up to one
   spike along a tilted direction:

       r² ↦ r² + ((1 − ε)² − 1)/(N E v²),      γ r unchanged (γ ↦ γ r/r_eff),

   the risk being analytic in γ'². Subtracting f₀ removes the part of the spike direction's noise
   that the initial network's own output direction carries; the simulated network agrees
   (``validation/studies/large_step_initial_output.py``: the shrink alone is the whole effect; a *positive*
   independent spike along q moves the risk by the opposite amount; the same shrink along a random
   profile does nothing).
2. **A self part.** j = i gives −c N cᵢ² E[(σσ')'(ρᵢz)] w⁰ᵢ, of which the shrink of item 1
   already holds the part mᵢ² (its diagonal, ε qᵢ²): each initial column shrinks further by
   sᵢ = c uᵢ² (e(ρᵢ) − m(ρᵢ)²)/N, e(ρ) = E[z σ(ρz) σ'(ρz)]/ρ, so the bulk of a type loses
   (1 − (1 − s)²) ρ².
3. **The fluctuation** of (1/n) Σ_μ f₀(x_μ) x_μ around its mean is isotropic noise of energy
   E f₀²/ψ1 in ĝ, and f₀ adds E f₀² to the residual's energy in the bulk noise: both are the map
   of Cui et al. with the label energy E y² + E f₀², E f₀² = E[u²] E σ(ρz)²/N (the second stage,
   the ridge on fresh data, keeps y).

Neglected: terms of relative order N^{-1/2} beyond these (for a non-odd σ the covariance of
σ'(⟨w⁰ᵢ, x⟩) and σ'(⟨w⁰ⱼ, x⟩) adds (E σ'')² ⟨w⁰ᵢ, w⁰ⱼ⟩, a mixing of the columns of norm O(1/N)).
The correction needs the tilted spike to exist: N above :func:`minimum_width` (the shrink must
not remove more than the noise energy (1 − γ²) r² of the spike).

>>> from asymptotics.activations import activation
>>> t = initial_output_terms(activation("erf"), 1.0, [1.0], [1.0], [1.0], [1.0], 500.0)
>>> round(t.shrink, 6), abs(t.shrink - 4 / (3 * math.pi)) < 1e-12     # ε = c μ1² = 4/(3π) for erf
(0.424413, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...activations import Activation
from ...errors import ParameterError
from ..spiked_rf.mapping import SpikedRFParameters
from .column_norms import column_moments

__all__ = ["GRADIENTS", "check_gradient", "InitialOutputTerms", "initial_output_terms", "initial_output_energy",
           "exact_gradient_parameters", "minimum_width"]

#: the gradient of the step: on the labels y (the theory of §1) or Ba et al.'s exact residual y − f₀
GRADIENTS = ("labels", "exact")


def check_gradient(gradient: str) -> str:
    """The ``gradient`` argument, checked: one of :data:`GRADIENTS`."""
    if gradient not in GRADIENTS:
        raise ParameterError("gradient", gradient, "'labels' (the step on y) or 'exact' (the residual y − f₀)")
    return gradient


def _column_moments(student: Activation, rho2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(m(ρ) = E σ'(ρz), E σ(ρz)², e(ρ) = E[z σ(ρz) σ'(ρz)]/ρ) at each ρ² (:func:`..column_norms.column_moments`)."""
    fns = (lambda s, d, z: d, lambda s, d, z: s * s, lambda s, d, z: z * s * d)
    rows = []
    for r2 in np.asarray(rho2, dtype=float):
        rho = math.sqrt(r2)
        m, s2, zsd = column_moments(student, rho, fns)
        rows.append((m, s2, zsd / rho))
    m, s2, e = (np.array(x) for x in zip(*rows, strict=True))
    return m, s2, e


def initial_output_energy(student: Activation, readout_values, readout_weights, rho2, rho2_weights,
                          width: float) -> float:
    r"""E f₀² = E[u²] E_ρ[E σ(ρz)²]/N, the energy of the initial output (u and ρ independent)."""
    u = np.asarray(readout_values, dtype=float)
    eu2 = float(np.asarray(readout_weights, dtype=float) @ (u * u))
    _, s2, _ = _column_moments(student, rho2)
    return eu2 * float(np.asarray(rho2_weights, dtype=float) @ s2) / float(width)


@dataclass(frozen=True)
class InitialOutputTerms:
    r"""The exact step's f₀ terms at width N (module docstring).

    Attributes:
        width: N.
        shrink: ε = c E[u² m(ρ)²], the collective shrink of W⁰ along the spike's profile.
        spike_shift: Δ(r²) = ((1 − ε)² − 1)/(N E v²), the change of the spike's squared strength.
        self_shrink: sⱼ = c uⱼ² (e(ρⱼ) − m(ρⱼ)²)/N, the shrink of each type's initial column beyond
            the collective one.
        mean_square_value: E v² over the types.
    """

    width: float
    shrink: float
    spike_shift: float
    self_shrink: np.ndarray
    mean_square_value: float


def initial_output_terms(student: Activation, c: float, u, rho2, values, weights, width: float) -> InitialOutputTerms:
    r"""The f₀ terms of types with readout values ``u``, squared column norms ``rho2``, spike values
    ``values`` (v = u m(ρ)/μ1) and proportions ``weights``, at the step η = c√N and width N."""
    u = np.asarray(u, dtype=float)
    rho2 = np.asarray(rho2, dtype=float)
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    N = float(width)
    mu1 = student.constants().mean_derivative
    ev2 = float(w @ (v * v))
    eps = float(c) * mu1 * mu1 * ev2
    grid, inverse = np.unique(rho2, return_inverse=True)
    m, _, e = _column_moments(student, grid)
    shift = ((1.0 - eps) ** 2 - 1.0) / (N * ev2) if ev2 > 0.0 else 0.0
    return InitialOutputTerms(N, eps, shift, float(c) * u * u * (e - m * m)[inverse] / N, ev2)


def minimum_width(params: SpikedRFParameters, terms: InitialOutputTerms) -> float:
    r"""The smallest N at which the tilted spike exists: −Δ(r²) < (1 − γ²) r² (the shrink removes
    less than the spike's noise energy)."""
    need = -terms.spike_shift * terms.width
    if need <= 0.0:
        return 1.0
    noise_energy = (1.0 - params.gamma**2) * params.r**2
    return need / noise_energy if noise_energy > 0.0 else math.inf


def exact_gradient_parameters(params: SpikedRFParameters, terms: InitialOutputTerms, rho2) -> SpikedRFParameters:
    r"""The sRF parameters of the exact step from those of the step on y + f₀'s energy (item 3 of
    the module docstring, i.e. the map at label energy E y² + E f₀²): the tilted spike (item 1) and
    the shrunk columns (item 2). ``rho2``: each type's squared column norm."""
    r_eff, gamma = params.r, params.gamma
    if params.r != 0.0:                  # no spike (E σ' = 0): no collective shrink to tilt it (ε = 0)
        r2 = params.r**2 + terms.spike_shift
        if not (r2 > params.gamma**2 * params.r**2):
            raise ParameterError("width", terms.width, f"N > {minimum_width(params, terms):.4g} with gradient='exact' "
                                 "(below it the f₀ shrink exceeds the spike's noise energy: the correction does not apply)")
        r_eff = math.sqrt(r2)
        gamma = params.gamma * params.r / r_eff
    s = terms.self_shrink
    bulk = np.asarray(params.bulk, dtype=float) - (1.0 - (1.0 - s) ** 2) * np.asarray(rho2, dtype=float)
    if not np.all(bulk > 0.0):
        raise ParameterError("width", terms.width, "a width at which every type's shrunk column keeps a positive "
                             "bulk variance (gradient='exact')")
    src = params.source + (("gradient", "exact"), ("initial_output_shrink", terms.shrink),
                           ("spike_shift", terms.spike_shift))
    return replace(params, r=r_eff, gamma=gamma, bulk=tuple(bulk.tolist()), source=src)
