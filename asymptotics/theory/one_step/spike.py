r"""The spike of W₁ after one gradient step at η = Θ(1) and its alignment (`10-one-step.md` §3).

The first gradient is almost rank one (Prop. 2), so W₁ ≈ W₀ + θ u vᵀ with u = Xᵀy/‖Xᵀy‖ and
v = a/‖a‖. In the proportional limit (ψ1 = n/d, ψ2 = N/d):

* s² = lim ‖Xᵀy/n‖² = μ1*² + (μ1*² + μ2*² + σ_ε²)/ψ1   (signal + sampling noise);
* θ² = η²μ1²s² = θ1² + θ2², θ1² = η²μ1²μ1*² (signal), θ2² = η²μ1²(μ1*² + μ2*² + σ_ε²)/ψ1 (noise);
* ρ² = ⟨u, β*⟩² = μ1*²/s² (so θ²ρ² = θ1²).

Rectangular spiked model (Benaych-Georges–Nadakuditi) for W₀ with N(0, 1/d) entries:

* BBP: an outlier singular value separates iff θ⁴ > ψ2, i.e. η > η_c = ψ2^{1/4}/(|μ1| s);
* s₁(W₁)² → (ψ2 + θ²)(1 + θ²)/θ² above, (1 + √ψ2)² (bulk edge) below;
* ⟨u₁, β*⟩² → ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)),  ⟨v₁, a/‖a‖⟩² → (θ⁴ − ψ2)₊/(θ²(θ² + ψ2));
* ‖W₁ᵀβ*‖² → ψ2 + θ1²;
* Q(z) = β*ᵀ(WWᵀ − z)⁻¹β*: Q₀ = m̄(z), Q₁ = m̄ − Δ, Δ = θ1² m̄²/(1 + (1 + θ²) m̄).

Status: derived (checked at d = 1000 by simulation). The rank-one formulas (Δ, Δ', the outlier,
the BBP condition, the overlaps, the energy) are *not typed in*: they are derived symbolically by
Woodbury algebra in :mod:`.derivation` and rendered to :mod:`._spike_generated`.

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> sp = spike(m, psi1=2.0, psi2=1.5, eta=5.0)
>>> round(sp.overlap_beta, 4), round(sp.overlap_a, 4), round(sp.top_sv2, 4), round(sp.eta_threshold, 4)
(0.5113, 0.734, 8.0065, 2.4221)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ...random_matrix import gram_stieltjes, gram_stieltjes_derivative
from . import _spike_generated as gen
from ._checks import as_param_array, broadcast_params
from .model import OneStepModel

__all__ = [
    "sample_correlation_norm_sq",
    "teacher_overlap_sq",
    "signal_spike_sq",
    "noise_spike_sq",
    "spike_strength_sq",
    "bbp_separated",
    "critical_learning_rate",
    "top_singular_value_sq",
    "overlap_spike_sq",
    "alignment_teacher",
    "alignment_readout",
    "teacher_energy",
    "quadratic_form_init",
    "quadratic_form_trained",
    "spike_correction",
    "spike_correction_derivative",
    "Spike",
    "spike",
    "rectangular_spike",
]


def _out(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x) if x.ndim == 0 else x


# ---------------------------------------------------------------- the spike strength
def sample_correlation_norm_sq(model: OneStepModel, psi1):
    r"""s² = lim ‖Xᵀy/n‖² = μ1*² + (μ1*² + μ2*² + σ_ε²)/ψ1.

    The second term is sampling noise: E[y²]·d/n with E y² = μ1*² + μ2*² + σ_ε².
    """
    psi1 = as_param_array("psi1", psi1)
    return _out(model.mu1_star**2 + model.label_energy / psi1)


def teacher_overlap_sq(model: OneStepModel, psi1):
    r"""ρ² = lim ⟨u, β*⟩² = μ1*²/s² (u = Xᵀy/‖Xᵀy‖); → 1 as ψ1 → ∞."""
    s2 = np.asarray(sample_correlation_norm_sq(model, psi1))
    return _out(model.mu1_star**2 / s2)


def signal_spike_sq(model: OneStepModel, eta):
    r"""θ1² = η² μ1² μ1*² (the part of θ² carried by the teacher direction)."""
    eta = as_param_array("eta", eta, "nonnegative")
    return _out(eta**2 * model.mu1**2 * model.mu1_star**2)


def noise_spike_sq(model: OneStepModel, psi1, eta):
    r"""θ2² = η² μ1² (μ1*² + μ2*² + σ_ε²)/ψ1 (sampling noise of the gradient; depends on μ2*, σ_ε)."""
    psi1 = as_param_array("psi1", psi1)
    eta = as_param_array("eta", eta, "nonnegative")
    return _out(eta**2 * model.mu1**2 * model.label_energy / psi1)


def spike_strength_sq(model: OneStepModel, psi1, eta):
    r"""θ² = η² μ1² s² = θ1² + θ2²."""
    return _out(np.asarray(signal_spike_sq(model, eta)) + np.asarray(noise_spike_sq(model, psi1, eta)))


def bbp_separated(theta_sq, psi2):
    r"""Whether the spike separates from the bulk: z'(m̄) > 0 at the pole of Q₁, which is
    θ⁴ > ψ2 (BBP transition of the rectangular spiked model). Boolean (array)."""
    theta_sq = as_param_array("theta_sq", theta_sq, "nonnegative")
    psi2 = as_param_array("psi2", psi2)
    th, p2 = broadcast_params(theta_sq=theta_sq, psi2=psi2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ind = np.where(th > 0, gen.bbp_indicator(np.where(th > 0, th, 1.0), p2), -1.0)
    out = ind > 0
    return bool(out) if out.ndim == 0 else out


def critical_learning_rate(model: OneStepModel, psi1, psi2):
    r"""η_c = ψ2^{1/4}/(|μ1| s): the BBP threshold θ⁴ = ψ2 as a learning rate (``inf`` when μ1 = 0)."""
    psi2 = as_param_array("psi2", psi2)
    s2 = np.asarray(sample_correlation_norm_sq(model, psi1))
    s2, psi2 = broadcast_params(s2=s2, psi2=psi2)
    with np.errstate(divide="ignore"):
        eta_c = np.where(model.mu1 != 0, psi2**0.25 / (abs(model.mu1) * np.sqrt(s2)), np.inf)
    return _out(eta_c)


def _theta(model, psi1, psi2, eta):
    psi1 = as_param_array("psi1", psi1)
    psi2 = as_param_array("psi2", psi2)
    eta = as_param_array("eta", eta, "nonnegative")
    psi1, psi2, eta = broadcast_params(psi1=psi1, psi2=psi2, eta=eta)
    th1 = eta**2 * model.mu1**2 * model.mu1_star**2
    th = th1 + eta**2 * model.mu1**2 * model.label_energy / psi1
    return psi1, psi2, eta, th, th1


def _above(th, psi2):
    return (th > 0) & (th**2 > psi2)


def top_singular_value_sq(model: OneStepModel, psi1, psi2, eta):
    r"""s₁(W₁)²: the outlier (ψ2 + θ²)(1 + θ²)/θ² above the threshold, the bulk edge (1 + √ψ2)²
    below (continuous at θ⁴ = ψ2)."""
    _, psi2, _, th, _ = _theta(model, psi1, psi2, eta)
    up = _above(th, psi2)
    safe = np.where(up, th, 1.0)
    return _out(np.where(up, gen.outlier_sq(safe, psi2), (1 + np.sqrt(psi2)) ** 2))


def overlap_spike_sq(model: OneStepModel, psi1, psi2, eta):
    r"""⟨u₁, u⟩² → (θ⁴ − ψ2)₊/(θ²(1 + θ²)): overlap of the top left singular vector with the
    spike direction u."""
    _, psi2, _, th, _ = _theta(model, psi1, psi2, eta)
    up = _above(th, psi2)
    return _out(np.where(up, gen.overlap_u_sq(np.where(up, th, 1.0), psi2), 0.0))


def alignment_teacher(model: OneStepModel, psi1, psi2, eta):
    r"""⟨u₁, β*⟩² → ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)): alignment of the top left singular vector of W₁
    with the teacher direction (zero below the BBP threshold, continuous at it)."""
    _, psi2, _, th, th1 = _theta(model, psi1, psi2, eta)
    up = _above(th, psi2)
    return _out(np.where(up, gen.overlap_beta_sq(np.where(up, th, 1.0), th1, psi2), 0.0))


def alignment_readout(model: OneStepModel, psi1, psi2, eta):
    r"""⟨v₁, a/‖a‖⟩² → (θ⁴ − ψ2)₊/(θ²(θ² + ψ2)): alignment of the top right singular vector of
    W₁ with the second-layer weights."""
    _, psi2, _, th, _ = _theta(model, psi1, psi2, eta)
    up = _above(th, psi2)
    return _out(np.where(up, gen.overlap_v_sq(np.where(up, th, 1.0), psi2), 0.0))


def teacher_energy(model: OneStepModel, psi1, psi2, eta):
    r"""‖W₁ᵀβ*‖² → ψ2 + θ1² (ψ2 at initialisation)."""
    _, psi2, _, _, th1 = _theta(model, psi1, psi2, eta)
    return _out(gen.teacher_energy(th1, psi2))


# ---------------------------------------------------------------- resolvent quadratic forms
def quadratic_form_init(z, psi2):
    r"""Q₀(z) = β*ᵀ(W₀W₀ᵀ − z)⁻¹β* → m̄(z), the Stieltjes transform of W₀W₀ᵀ (z off the support)."""
    return gram_stieltjes(z, psi2)


def spike_correction(z, psi2, theta_sq, theta1_sq):
    r"""Δ(z) = Q₀(z) − Q₁(z) = θ1² m̄(z)²/(1 + (1 + θ²) m̄(z)).

    Its pole m̄ = −1/(1 + θ²) is the outlier; the residue there is ⟨u₁, β*⟩².
    """
    mb = np.asarray(gram_stieltjes(z, psi2))
    val = gen.spike_correction(mb, np.asarray(theta_sq), np.asarray(theta1_sq))
    return val if np.ndim(val) else val[()]


def spike_correction_derivative(z, psi2, theta_sq, theta1_sq):
    r"""Δ'(z) = θ1² m̄'(z) m̄(z)(2 + (1 + θ²) m̄(z))/(1 + (1 + θ²) m̄(z))², with
    m̄' = m̄²(1 + m̄)²/((1 + m̄)² − ψ2 m̄²)."""
    mb = np.asarray(gram_stieltjes(z, psi2))
    mbp = np.asarray(gram_stieltjes_derivative(z, psi2))
    val = gen.spike_correction_derivative(mb, mbp, np.asarray(theta_sq), np.asarray(theta1_sq))
    return val if np.ndim(val) else val[()]


def quadratic_form_trained(z, model: OneStepModel, psi1, psi2, eta):
    r"""Q₁(z) = β*ᵀ(W₁W₁ᵀ − z)⁻¹β* → m̄(z) − Δ(z)."""
    _, psi2, _, th, th1 = _theta(model, psi1, psi2, eta)
    return quadratic_form_init(z, psi2) - spike_correction(z, psi2, th, th1)


# ---------------------------------------------------------------- bundle
@dataclass(frozen=True)
class Spike:
    """Everything about the spike at one parameter point (arrays broadcast over a grid).

    Attributes:
        s_sq: s² = lim ‖Xᵀy/n‖².
        rho_sq: ρ² = ⟨u, β*⟩².
        theta1_sq, theta2_sq, theta_sq: θ1², θ2², θ² = θ1² + θ2².
        separated: θ⁴ > ψ2 (an outlier singular value exists).
        eta_threshold: η_c = ψ2^{1/4}/(|μ1| s) (``inf`` when μ1 = 0).
        top_sv2: s₁(W₁)² (outlier, or bulk edge (1 + √ψ2)² below the threshold).
        overlap_u: ⟨u₁, u⟩².
        overlap_beta: ⟨u₁, β*⟩².
        overlap_a: ⟨v₁, a/‖a‖⟩².
        teacher_energy: ‖W₁ᵀβ*‖².
    """

    s_sq: object
    rho_sq: object
    theta1_sq: object
    theta2_sq: object
    theta_sq: object
    separated: object
    eta_threshold: object
    top_sv2: object
    overlap_u: object
    overlap_beta: object
    overlap_a: object
    teacher_energy: object

    def as_dict(self) -> dict:
        return asdict(self)


def spike(model: OneStepModel, psi1, psi2, eta) -> Spike:
    """All spike quantities of :mod:`this module <.spike>` at once (broadcast over the inputs)."""
    model.warn_if_degenerate()
    psi1, psi2, eta, th, th1 = _theta(model, psi1, psi2, eta)
    scalar = th.ndim == 0
    up = _above(th, psi2)
    safe = np.where(up, th, 1.0)

    def o(x):
        x = np.asarray(x)
        return x.item() if scalar else x

    s2 = model.mu1_star**2 + model.label_energy / psi1
    with np.errstate(divide="ignore"):
        eta_c = np.where(model.mu1 != 0, psi2**0.25 / (abs(model.mu1) * np.sqrt(s2)), np.inf)
    return Spike(
        s_sq=o(s2),
        rho_sq=o(model.mu1_star**2 / s2),
        theta1_sq=o(th1),
        theta2_sq=o(th - th1),
        theta_sq=o(th),
        separated=o(up),
        eta_threshold=o(eta_c),
        top_sv2=o(np.where(up, gen.outlier_sq(safe, psi2), (1 + np.sqrt(psi2)) ** 2)),
        overlap_u=o(np.where(up, gen.overlap_u_sq(safe, psi2), 0.0)),
        overlap_beta=o(np.where(up, gen.overlap_beta_sq(safe, th1, psi2), 0.0)),
        overlap_a=o(np.where(up, gen.overlap_v_sq(safe, psi2), 0.0)),
        teacher_energy=o(gen.teacher_energy(th1, psi2)),
    )


def rectangular_spike(theta_sq, psi2):
    r"""The rectangular spiked model W₀ + θ u vᵀ alone (u, v unit, independent of W₀):
    ``(s₁², ⟨u₁, u⟩², ⟨v₁, v⟩²)`` — outlier and overlaps above θ⁴ = ψ2, bulk edge and zeros below.

    >>> [round(x, 4) for x in rectangular_spike(4.0, 2.0)]    # ψ2 = 2, θ = 2: s₁ = 2.7386
    [7.5, 0.7, 0.5833]
    """
    th = as_param_array("theta_sq", theta_sq, "nonnegative")
    p2 = as_param_array("psi2", psi2)
    th, p2 = broadcast_params(theta_sq=th, psi2=p2)
    up = _above(th, p2)
    safe = np.where(up, th, 1.0)
    return (
        _out(np.where(up, gen.outlier_sq(safe, p2), (1 + np.sqrt(p2)) ** 2)),
        _out(np.where(up, gen.overlap_u_sq(safe, p2), 0.0)),
        _out(np.where(up, gen.overlap_v_sq(safe, p2), 0.0)),
    )
