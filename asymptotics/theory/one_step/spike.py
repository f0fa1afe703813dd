r"""The spike of W₁ after one gradient step at η = Θ(1) and its alignment (docs/one-step.md §1).

The first gradient is almost rank one (Prop. 2), so W₁ ≈ W₀ + θ u vᵀ with u = Xᵀy/‖Xᵀy‖ and
v = a/‖a‖. The spike parameters s², ρ², θ1², θ2², θ² = θ1² + θ2², the BBP test and η_c have their
one home in :mod:`.spike_parameters`. Rectangular spiked model
(Benaych-Georges–Nadakuditi) for W₀ with N(0, 1/d) entries:

* BBP: an outlier singular value separates iff θ⁴ > ψ2, i.e. η > η_c = ψ2^{1/4}/(|μ1| s);
* s₁(W₁)² → (ψ2 + θ²)(1 + θ²)/θ² above, (1 + √ψ2)² (bulk edge) below;
* ⟨u₁, β*⟩² → ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)),  ⟨v₁, a/‖a‖⟩² → (θ⁴ − ψ2)₊/(θ²(θ² + ψ2));
* ‖W₁ᵀβ*‖² → ψ2 + θ1²;
* Q(z) = β*ᵀ(WWᵀ − z)⁻¹β*: Q₀ = m̄(z), Q₁ = m̄ − Δ, Δ = θ1² m̄²/(1 + (1 + θ²) m̄).

Status: derived (checked at d = 1000 by simulation). The rank-one formulas (Δ, Δ', the outlier,
the BBP condition, the overlaps, the energy) are *not typed in*: they are derived symbolically by
Woodbury algebra in :mod:`.derivation` and rendered offline to :mod:`._spike_generated`.

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> sp = spike(m, psi1=2.0, psi2=1.5, eta=5.0)
>>> round(sp.overlap_beta, 4), round(sp.overlap_a, 4), round(sp.top_sv2, 4), round(sp.eta_threshold, 4)
(0.5113, 0.734, 8.0065, 2.4221)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics.marchenko_pastur import gram_stieltjes, gram_stieltjes_derivative, mp_edges
from ...params import check_array
from . import _spike_generated as gen
from ._checks import AsDict, as_output, broadcast_params
from .model import OneStepModel
from .spike_parameters import bbp_separated, spike_parameters

__all__ = [
    "top_singular_value_sq",
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


# ---------------------------------------------------------------- the rectangular spiked model
#: above this θ² the generated large-θ² forms (in w = 1/θ²) are used: the plain forms contain θ⁴,
#: which overflows in float64 above θ² ≈ 1.3e154; both forms are exact to rounding at the switch,
#: and every θ² below it is evaluated exactly as before
LARGE_THETA_SQ = 1e100


def _above_threshold(th, psi2, separated, fn, fn_large, below):
    """``fn(θ², ψ2)`` (a generated expression, meaningful above the threshold) where the
    spike is separated, ``below`` elsewhere; ``fn_large(1/θ², ψ2)`` (the same expression in
    its large-θ² form) where θ² > :data:`LARGE_THETA_SQ`."""
    large = separated & (th > LARGE_THETA_SQ)
    plain = separated & ~large
    value = np.where(plain, fn(np.where(plain, th, 1.0), psi2), below)
    if np.any(large):
        value = np.where(large, fn_large(1.0 / np.where(large, th, 1.0), psi2), value)
    return value


def _top_sv2(th, psi2, separated):
    # below the threshold: the bulk edge (1 + √ψ2)² of W₀W₀ᵀ (the upper MP edge)
    return _above_threshold(th, psi2, separated, gen.outlier_sq, gen.outlier_sq_large, mp_edges(psi2)[1])


def _overlap_u(th, psi2, separated):
    return _above_threshold(th, psi2, separated, gen.overlap_u_sq, gen.overlap_u_sq_large, 0.0)


def _overlap_v(th, psi2, separated):
    return _above_threshold(th, psi2, separated, gen.overlap_v_sq, gen.overlap_v_sq_large, 0.0)


def _overlap_beta(th, th1, psi2, separated):
    if not np.any(separated & (th > LARGE_THETA_SQ)):
        return np.where(separated, gen.overlap_beta_sq(np.where(separated, th, 1.0), th1, psi2), 0.0)
    th, th1 = np.broadcast_arrays(th, th1)
    large = separated & (th > LARGE_THETA_SQ)
    plain = separated & ~large
    value = np.where(plain, gen.overlap_beta_sq(np.where(plain, th, 1.0), th1, psi2), 0.0)
    rho_sq = np.where(large, th1, 0.0) / np.where(large, th, 1.0)   # ρ² = θ1²/θ²
    return np.where(large, gen.overlap_beta_sq_large(1.0 / np.where(large, th, 1.0), rho_sq, psi2), value)


def top_singular_value_sq(model: OneStepModel, psi1, psi2, eta):
    r"""s₁(W₁)²: the outlier (ψ2 + θ²)(1 + θ²)/θ² above the threshold, the bulk edge (1 + √ψ2)²
    below (continuous at θ⁴ = ψ2)."""
    p = spike_parameters(model, psi1, psi2, eta)
    return _out(_top_sv2(p.theta_sq, p.psi2, p.separated))


def alignment_teacher(model: OneStepModel, psi1, psi2, eta):
    r"""⟨u₁, β*⟩² → ρ²(θ⁴ − ψ2)₊/(θ²(1 + θ²)): alignment of the top left singular vector of W₁
    with the teacher direction (zero below the BBP threshold, continuous at it)."""
    p = spike_parameters(model, psi1, psi2, eta)
    return _out(_overlap_beta(p.theta_sq, p.theta1_sq, p.psi2, p.separated))


def alignment_readout(model: OneStepModel, psi1, psi2, eta):
    r"""⟨v₁, a/‖a‖⟩² → (θ⁴ − ψ2)₊/(θ²(θ² + ψ2)): alignment of the top right singular vector of
    W₁ with the second-layer weights."""
    p = spike_parameters(model, psi1, psi2, eta)
    return _out(_overlap_v(p.theta_sq, p.psi2, p.separated))


def teacher_energy(model: OneStepModel, psi1, psi2, eta):
    r"""‖W₁ᵀβ*‖² → ψ2 + θ1² (ψ2 at initialisation)."""
    p = spike_parameters(model, psi1, psi2, eta)
    return _out(gen.teacher_energy(p.theta1_sq, p.psi2))


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
    p = spike_parameters(model, psi1, psi2, eta)
    return quadratic_form_init(z, p.psi2) - spike_correction(z, p.psi2, p.theta_sq, p.theta1_sq)


# ---------------------------------------------------------------- bundle
@dataclass(frozen=True)
class Spike(AsDict):
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


def spike(model: OneStepModel, psi1, psi2, eta) -> Spike:
    """All spike quantities of :mod:`this module <.spike>` at once (broadcast over the inputs)."""
    model.warn_if_degenerate()
    p = spike_parameters(model, psi1, psi2, eta)
    scalar = p.theta_sq.ndim == 0
    th, psi2, up = p.theta_sq, p.psi2, p.separated

    def o(x):
        return as_output(x, scalar)

    return Spike(
        s_sq=o(p.s_sq),
        rho_sq=o(p.rho_sq),
        theta1_sq=o(p.theta1_sq),
        theta2_sq=o(p.theta2_sq),
        theta_sq=o(th),
        separated=o(up),
        eta_threshold=o(p.eta_threshold),
        top_sv2=o(_top_sv2(th, psi2, up)),
        overlap_u=o(_overlap_u(th, psi2, up)),
        overlap_beta=o(_overlap_beta(th, p.theta1_sq, psi2, up)),
        overlap_a=o(_overlap_v(th, psi2, up)),
        teacher_energy=o(gen.teacher_energy(p.theta1_sq, psi2)),
    )


def rectangular_spike(theta_sq, psi2):
    r"""The rectangular spiked model W₀ + θ u vᵀ alone (u, v unit, independent of W₀):
    ``(s₁², ⟨u₁, u⟩², ⟨v₁, v⟩²)`` — outlier and overlaps above θ⁴ = ψ2, bulk edge and zeros below.

    >>> [round(x, 4) for x in rectangular_spike(4.0, 2.0)]    # ψ2 = 2, θ = 2: s₁ = 2.7386
    [7.5, 0.7, 0.5833]
    """
    th = check_array("theta_sq", theta_sq, "nonnegative")
    p2 = check_array("psi2", psi2)
    th, p2 = broadcast_params(theta_sq=th, psi2=p2)
    up = np.asarray(bbp_separated(th, p2))
    return _out(_top_sv2(th, p2, up)), _out(_overlap_u(th, p2, up)), _out(_overlap_v(th, p2, up))
