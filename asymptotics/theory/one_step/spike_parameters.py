r"""The spike parameters of the first gradient step: one function per equation, the one home of each.

After one step at η = Θ(1), W₁ ≈ W₀ + θ u vᵀ with u = Xᵀy/‖Xᵀy‖ and v = a/‖a‖ (docs/one-step.md §1).
In the proportional limit (ψ1 = n/d, ψ2 = N/d), with E y² = μ1*² + μ2*² + σ_ε²:

* s² = lim ‖Xᵀy/n‖² = μ1*² + E y²/ψ1                    (signal + sampling noise);
* ρ² = lim ⟨u, β*⟩² = μ1*²/s²;
* θ1² = η²μ1²μ1*² (signal),  θ2² = η²μ1² E y²/ψ1 (noise),  θ² = θ1² + θ2² = η²μ1²s²  (so θ²ρ² = θ1²);
* BBP: the spike separates from the bulk iff z'(m̄) > 0 at the pole of Q₁ — the expression
  ``bbp_indicator`` *derived* by Woodbury algebra in :mod:`.derivation` and rendered offline to
  :mod:`._spike_generated` (it is positive iff θ⁴ > ψ2);
* η_c = ψ2^{1/4}/(|μ1| s): the root in η of that indicator (``inf`` when μ1 = 0).

Status: s², ρ², θ1², θ2², θ² are the statistics of the first gradient (derived, checked by
simulation at d = 1000: docs/mathematics.md §2, docs/one-step.md §1); they are typed here and
nowhere else. The BBP test is
the derived indicator. η_c is typed; the tests tie it to the derived indicator (it vanishes there and
changes sign across it). Every consumer — the spike and its overlaps (:mod:`.spike`), the CK outlier
(:mod:`.ck_outlier`), route B (:mod:`.risk_deterministic_equivalent`), route C
(:mod:`.route_pencil`, which passes the arrays to its compiled kernel) and the limits
(:mod:`.limits`) — calls these functions. (Route A, :mod:`.risk_mei_montanari`, gives R0 only and
needs no spike.)

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> p = spike_parameters(m, psi1=2.0, psi2=1.5, eta=5.0)
>>> round(float(p.theta_sq), 4), bool(p.separated), round(float(p.eta_threshold), 4)
(5.2191, True, 2.4221)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...params import check_array
from ..first_gradient import correlation_norm_sq
from . import _spike_generated as gen
from ._checks import AsDict, broadcast_params
from .model import OneStepModel

__all__ = [
    "sample_correlation_norm_sq",
    "teacher_overlap_sq",
    "signal_spike_sq",
    "noise_spike_sq",
    "spike_strength_sq",
    "check_risk_spike",
    "MAX_RISK_THETA_SQ",
    "bbp_separated",
    "critical_learning_rate",
    "SpikeParameters",
    "spike_parameters",
]

#: θ² beyond which the derived indicator is evaluated at this value instead (its terms θ⁴ would
#: overflow to inf/inf = nan there; θ⁴ = 1e300 > ψ2 for every physical aspect ratio).
_THETA_SQ_CAP = 1e150


def _out(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x) if x.ndim == 0 else x


def sample_correlation_norm_sq(model: OneStepModel, psi1):
    r"""s² = lim ‖Xᵀy/n‖² = μ1*² + (μ1*² + μ2*² + σ_ε²)/ψ1.

    The second term is sampling noise: E[y²]·d/n with E y² = μ1*² + μ2*² + σ_ε².
    """
    psi1 = check_array("psi1", psi1)
    return _out(correlation_norm_sq(model.mu1_star, model.label_energy, psi1))


def teacher_overlap_sq(model: OneStepModel, psi1):
    r"""ρ² = lim ⟨u, β*⟩² = μ1*²/s² (u = Xᵀy/‖Xᵀy‖); → 1 as ψ1 → ∞."""
    s2 = np.asarray(sample_correlation_norm_sq(model, psi1))
    return _out(model.mu1_star**2 / s2)


def _check_finite_spike(theta_sq, eta):
    """θ² must be a float64 number: an η so large that η²μ1²s² overflows is refused, naming η."""
    theta_sq = np.asarray(theta_sq)
    bad = ~np.isfinite(theta_sq)
    if np.any(bad):
        e = float(np.broadcast_to(np.asarray(eta, dtype=float), theta_sq.shape)[bad].ravel()[0])
        raise ParameterError("eta", e, "such that θ² = η²μ1²s² is finite in float64 (< 1.8e308)",
                             "the spike strength overflows")
    return theta_sq


def signal_spike_sq(model: OneStepModel, eta):
    r"""θ1² = η² μ1² μ1*² (the part of θ² carried by the teacher direction)."""
    eta = check_array("eta", eta, "nonnegative")
    with np.errstate(over="ignore"):
        return _out(_check_finite_spike(eta**2 * model.mu1**2 * model.mu1_star**2, eta))


def noise_spike_sq(model: OneStepModel, psi1, eta):
    r"""θ2² = η² μ1² (μ1*² + μ2*² + σ_ε²)/ψ1 (sampling noise of the gradient; depends on μ2*, σ_ε)."""
    psi1 = check_array("psi1", psi1)
    eta = check_array("eta", eta, "nonnegative")
    with np.errstate(over="ignore"):
        return _out(_check_finite_spike(eta**2 * model.mu1**2 * model.label_energy / psi1, eta))


#: the largest θ² accepted by the risks (routes B, C) and the CK outlier: their formulas have
#: θ⁴-sized intermediates (Δ', the outlier map ℓ²m_H(ℓ)), which overflow in float64 above θ² ≈ 1e154
MAX_RISK_THETA_SQ = 1e150


def check_risk_spike(theta_sq, eta) -> None:
    """Refuse, naming η, a spike too strong for the risk and CK formulas (θ² > MAX_RISK_THETA_SQ)
    instead of letting them overflow to NaN; the spike and its overlaps (:mod:`.spike`) accept any
    finite θ²."""
    theta_sq = np.asarray(theta_sq)
    bad = theta_sq > MAX_RISK_THETA_SQ
    if np.any(bad):
        e = float(np.broadcast_to(np.asarray(eta, dtype=float), theta_sq.shape)[bad].ravel()[0])
        raise ParameterError("eta", e, f"such that θ² = η²μ1²s² <= {MAX_RISK_THETA_SQ:g} for the risks and the CK outlier",
                             "beyond it their float64 formulas overflow; a step this large is the η = Θ(√N) "
                             "regime (theory tau-star, theory large-step)")


def spike_strength_sq(model: OneStepModel, psi1, eta):
    r"""θ² = θ1² + θ2² (= η² μ1² s²); a :class:`ParameterError` naming ``eta`` when it overflows."""
    with np.errstate(over="ignore"):
        th = np.asarray(signal_spike_sq(model, eta)) + np.asarray(noise_spike_sq(model, psi1, eta))
    return _out(_check_finite_spike(th, eta))


def bbp_separated(theta_sq, psi2):
    r"""Whether the spike separates from the bulk: z'(m̄) > 0 at the pole of Q₁ (the derived
    ``bbp_indicator``), which is θ⁴ > ψ2 — the BBP transition of the rectangular spiked model.
    ``False`` at θ² = 0. Boolean (array)."""
    theta_sq = check_array("theta_sq", theta_sq, "nonnegative")
    psi2 = check_array("psi2", psi2)
    th, p2 = broadcast_params(theta_sq=theta_sq, psi2=psi2)
    pos = th > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ind = gen.bbp_indicator(np.where(pos, np.minimum(th, _THETA_SQ_CAP), 1.0), p2)
    out = pos & (ind > 0)
    return bool(out) if out.ndim == 0 else out


def critical_learning_rate(model: OneStepModel, psi1, psi2):
    r"""η_c = ψ2^{1/4}/(|μ1| s): the BBP threshold θ⁴ = ψ2 as a learning rate (``inf`` when μ1 = 0)."""
    psi2 = check_array("psi2", psi2)
    s2 = np.asarray(sample_correlation_norm_sq(model, psi1))
    s2, psi2 = broadcast_params(s2=s2, psi2=psi2)
    with np.errstate(divide="ignore"):
        eta_c = np.where(model.mu1 != 0, psi2**0.25 / (abs(model.mu1) * np.sqrt(s2)), np.inf)
    return _out(eta_c)


@dataclass(frozen=True)
class SpikeParameters(AsDict):
    """The spike parameters at a parameter point or grid (validated inputs broadcast together).

    Attributes:
        psi1, psi2, eta: the inputs ψ1, ψ2, η (float64 arrays of the common shape).
        s_sq: s² = lim ‖Xᵀy/n‖².
        rho_sq: ρ² = ⟨u, β*⟩².
        theta1_sq, theta2_sq, theta_sq: θ1², θ2², θ² = θ1² + θ2².
        separated: the BBP test (an outlier singular value exists: θ⁴ > ψ2).
        eta_threshold: η_c = ψ2^{1/4}/(|μ1| s) (``inf`` when μ1 = 0).
    """

    psi1: np.ndarray
    psi2: np.ndarray
    eta: np.ndarray
    s_sq: np.ndarray
    rho_sq: np.ndarray
    theta1_sq: np.ndarray
    theta2_sq: np.ndarray
    theta_sq: np.ndarray
    separated: np.ndarray
    eta_threshold: np.ndarray


def spike_parameters(model: OneStepModel, psi1, psi2, eta) -> SpikeParameters:
    """All spike parameters at once, as float64 (boolean for ``separated``) arrays broadcast over
    ``psi1, psi2, eta`` (0-d for scalar inputs)."""
    psi1 = check_array("psi1", psi1)
    psi2 = check_array("psi2", psi2)
    eta = check_array("eta", eta, "nonnegative")
    psi1, psi2, eta = broadcast_params(psi1=psi1, psi2=psi2, eta=eta)

    def arr(x):
        return np.asarray(x, dtype=np.float64)

    th = arr(spike_strength_sq(model, psi1, eta))
    return SpikeParameters(
        psi1=psi1, psi2=psi2, eta=eta,
        s_sq=arr(sample_correlation_norm_sq(model, psi1)),
        rho_sq=arr(teacher_overlap_sq(model, psi1)),
        theta1_sq=arr(signal_spike_sq(model, eta)),
        theta2_sq=arr(noise_spike_sq(model, psi1, eta)),
        theta_sq=th,
        separated=np.asarray(bbp_separated(th, psi2)),
        eta_threshold=arr(critical_learning_rate(model, psi1, psi2)),
    )

