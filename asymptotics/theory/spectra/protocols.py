r"""The two one-step protocols whose spectra are computed, as small validated descriptions.

* :class:`BaStep` — Ba et al. (2022), ``docs/one-step.md``: W₀ ∈ ℝ^{d×N} with N(0, 1/d) entries,
  a ~ N(0, I/N), one full-batch step W₁ = W₀ + η√N G₀ on n = ψ1 d samples, the CK on a fresh set
  of n samples. ``regime="small"``: η = Θ(1) (``eta`` is η); ``regime="large"``: η = c√N
  (``eta`` is c; ``docs/large-step-exact.md``).
* :class:`CuiStep` — Cui et al. (2024), ``docs/spiked-rf.md``: rows of W⁰ uniform on the sphere,
  uniform readout, one step of size η̃·p on a batch of n0 = α0 d samples (always a large step),
  the CK on n = α d fresh samples, width p = β d.

Both expose the same spectral vocabulary: ``sample_ratio`` (ψ1 or α: n/d of the CK data),
``width_ratio`` (ψ2 or β: N/d) and the constants of the student and teacher.

>>> step = ba_step("tanh", "tanh", psi1=2.0, psi2=1.5, eta=5.0, noise=0.1)
>>> round(step.theta_sq, 4), round(step.teacher_overlap_sq, 4)      # θ², ρ² = ⟨u, β*⟩²
(5.2191, 0.6447)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...activations import Activation
from ...errors import ParameterError
from ...params import check_nonnegative, check_positive
from ..one_step.model import OneStepModel
from ..one_step.spike_parameters import sample_correlation_norm_sq, spike_strength_sq, teacher_overlap_sq
from ..spiked_rf.mapping import as_activation, cui_to_srf

__all__ = ["BaStep", "CuiStep", "ba_step", "cui_step", "REGIMES"]

REGIMES = ("small", "large")


@dataclass(frozen=True)
class BaStep:
    """One step of the Ba et al. protocol.

    Attributes:
        student, teacher: the centred activations σ, σ*.
        model: their Gaussian constants and the noise (:class:`~asymptotics.theory.one_step.OneStepModel`).
        psi1: ψ1 = n/d. psi2: ψ2 = N/d. noise: σ_ε.
        eta: η (``regime="small"``) or c of η = c√N (``regime="large"``).
        regime: ``"small"`` or ``"large"``.
    """

    student: Activation
    teacher: Activation
    model: OneStepModel
    psi1: float
    psi2: float
    eta: float
    noise: float
    regime: str = "small"

    protocol = "ba"

    @property
    def sample_ratio(self) -> float:
        return self.psi1

    @property
    def width_ratio(self) -> float:
        return self.psi2

    @property
    def gradient_norm_sq(self) -> float:
        """s² = lim ‖Xᵀy/n‖² = μ1*² + E y²/ψ1."""
        return float(sample_correlation_norm_sq(self.model, self.psi1))

    @property
    def teacher_overlap_sq(self) -> float:
        """ρ² = ⟨u, β*⟩² = μ1*²/s² (u = Xᵀy/‖Xᵀy‖)."""
        return float(teacher_overlap_sq(self.model, self.psi1))

    @property
    def theta_sq(self) -> float:
        """θ² = η²μ1²s² of the rank-one part θ u vᵀ (``regime="small"``)."""
        if self.regime != "small":
            raise ParameterError("regime", self.regime, "'small' for θ² (at the large step θ² grows like N)")
        return float(spike_strength_sq(self.model, self.psi1, self.eta))

    @property
    def spike_per_width(self) -> float:
        """r² = c²μ1²s² (``regime="large"``): θ² = r²·‖u‖² ≈ r² N, u = √N a."""
        return self.eta**2 * self.model.mu1**2 * self.gradient_norm_sq

    def as_dict(self) -> dict:
        return {"protocol": "ba", "regime": self.regime, "psi1": self.psi1, "psi2": self.psi2,
                ("eta" if self.regime == "small" else "c"): self.eta, "noise": self.noise,
                "student": self.student.name, "teacher": self.teacher.name}


@dataclass(frozen=True)
class CuiStep:
    """One step of the Cui et al. protocol (uniform readout; a large step by construction).

    Attributes:
        student, teacher: the centred activations σ, σ*.
        alpha: α = n/d of the CK data. beta: β = p/d (width). alpha0: α0 = n0/d of the step
            (``math.inf``: the isotropic limit). eta_tilde: η̃. noise: σ_ε.
    """

    student: Activation
    teacher: Activation
    alpha: float
    beta: float
    eta_tilde: float
    alpha0: float
    noise: float = 0.0

    protocol = "cui"
    regime = "large"

    @property
    def sample_ratio(self) -> float:
        return self.alpha

    @property
    def width_ratio(self) -> float:
        return self.beta

    @property
    def srf(self):
        """The sRF parameters (c, r, γ) of the trained network (:func:`~asymptotics.theory.spiked_rf.cui_to_srf`)."""
        return cui_to_srf(self.eta_tilde, self.alpha0, self.student, self.teacher, self.noise)

    @property
    def spike_per_width(self) -> float:
        """r²: the spike r 1 vᵀ of W¹ has θ² = r² p."""
        return self.srf.r ** 2

    def as_dict(self) -> dict:
        return {"protocol": "cui", "regime": "large", "alpha": self.alpha, "beta": self.beta,
                "eta_tilde": self.eta_tilde, "alpha0": ("inf" if math.isinf(self.alpha0) else self.alpha0),
                "noise": self.noise, "student": self.student.name, "teacher": self.teacher.name}


def ba_step(student="tanh", teacher="tanh", *, psi1: float, psi2: float, eta: float, noise: float = 0.0,
            regime: str = "small", center: bool = True) -> BaStep:
    """A validated :class:`BaStep` (activations by name, expression or Activation; centred)."""
    if regime not in REGIMES:
        raise ParameterError("regime", regime, "'small' (η = Θ(1)) or 'large' (η = c√N)")
    s = as_activation(student, "student", center)
    t = as_activation(teacher, "teacher", center)
    nz = check_nonnegative("noise", noise)
    model = OneStepModel.from_activations(s, t, noise=nz, center=center)
    return BaStep(s, t, model, check_positive("psi1", psi1), check_positive("psi2", psi2),
                  check_nonnegative("eta" if regime == "small" else "c", eta), nz, regime)


def cui_step(student="tanh", teacher="tanh", *, alpha: float, beta: float, eta_tilde: float, alpha0: float,
             noise: float = 0.0, center: bool = True) -> CuiStep:
    """A validated :class:`CuiStep` (``alpha0=math.inf`` for the isotropic limit)."""
    s = as_activation(student, "student", center)
    t = as_activation(teacher, "teacher", center)
    a0 = math.inf if (isinstance(alpha0, float) and math.isinf(alpha0) and alpha0 > 0) else check_positive("alpha0", alpha0)
    return CuiStep(s, t, check_positive("alpha", alpha), check_positive("beta", beta),
                   check_nonnegative("eta_tilde", eta_tilde), a0, check_nonnegative("noise", noise))
