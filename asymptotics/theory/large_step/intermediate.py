r"""The intermediate regime η = N^a, a ∈ (0, 1/2): how many spikes one step learns, and a limit
model of the resulting risk.

**Status: derived / limit model** (``docs/large-step.md``, after Moniri et al. 2024, whose exact
theorems are not known here). Nothing in this module is a statement of Ba et al.

*Spike count (derived).* With η ≍ N^a (equivalently n^a in the proportional limit) the trained
feature matrix has separated spikes aligned with (X̃β̂)^∘k, k = 1, 2, …; spike k has size
n^{k(a − 1/2) + 1} against a bulk of size √n, so it separates iff k(a − 1/2) + 1 > 1/2, i.e.
k < 1/(1 − 2a). The number of spikes is therefore ℓ for

    (ℓ − 1)/(2ℓ) < a < ℓ/(2ℓ + 2)          (ℓ = 1: 0 < a < 1/4;  ℓ = 2: 1/4 < a < 1/3;  …)

and ℓ → ∞ as a → 1/2 (the large step, :mod:`.tau_star`). At a threshold a = ℓ/(2ℓ + 2) spike ℓ + 1
is exactly at the bulk scale (``at_threshold``). a = 0 is η = Θ(1), where the single spike exists iff η
is above the BBP threshold (:mod:`asymptotics.theory.one_step`), not decided by the exponent.

*Limit model (derived).* Each separated spike acts as an **unpenalised polynomial regressor in
κ = ⟨β̂, x⟩**, where β̂ is the learned direction with overlap γ = ⟨β̂, β*⟩. Since
E[σ*(⟨β*, x⟩) He_k(κ)] = γ^k E[He_k σ*], the degree-k spike captures the energy

    γ^{2k} c_k*²,      c_k*² = (E[He_k(z) σ*(z)])² / k!,

of the teacher. The rest is fitted by the random-features bulk (the ridge on the bulk features, a
Mei–Montanari / route-B risk R0) with the residual target

    linear energy   μ1*² (1 − γ²)                 (the k = 1 spike takes γ² μ1*²),
    effective noise μ2*² − Σ_{k=2}^{ℓ} γ^{2k} c_k*²  (+ σ_ε²)  (the k ≥ 2 spikes take the rest),

so ℓ = 1 learns nothing nonlinear and ℓ = 2 learns the He2 part along β̂.
Check (quoted in ``docs/large-step.md``: ReLU bulk, γ = 0.8, σ* = tanh(2z) + He2(z)/2, λ_Cui = 0.05,
p = d, α = n/d = 3): this module gives 0.9456 (ℓ = 1) and 0.6648 (ℓ = 2); the quoted theory values are
0.947 and 0.666 (simulations 0.933 ± 0.036 and 0.654 ± 0.018). The 1.3e-3 gap is below the
simulations' error bars and consistent with a finite-size (p = d = 800) evaluation of the quoted
numbers; it is reported, not tuned away.

Conventions: Ba et al.'s (ψ1 = n/d, ψ2 = N/d, ridge λ on (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖²); Cui's
λ_C = λ ψ1/ψ2, α = ψ1, β = ψ2.

>>> intermediate_regime(0.3).spikes, intermediate_regime(0.3).window
(2, (0.25, 0.3333333333333333))
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ...activations import Activation, activation
from ...errors import DegenerateWarning, ParameterError
from ...params import check_in_range, check_int, check_nonnegative, check_positive
from ..first_gradient import correlation_norm_sq

__all__ = [
    "SpikeCount",
    "LimitModelRisk",
    "spike_count",
    "spike_window",
    "spike_exponents",
    "intermediate_regime",
    "removed_energy",
    "spike_overlap",
    "limit_model_risk",
    "MAX_SPIKES",
]

#: Hermite coefficients of the activations are available up to this degree.
MAX_SPIKES = 12


def _exponent(a) -> float:
    return check_in_range("exponent", a, 0.0, 0.5, lo_open=True, hi_open=True)


def spike_window(spikes: int) -> tuple[float, float]:
    """The open interval ((ℓ − 1)/(2ℓ), ℓ/(2ℓ + 2)) of exponents a with exactly ℓ spikes.

    >>> spike_window(1), spike_window(3)
    ((0.0, 0.25), (0.3333333333333333, 0.375))
    """
    ell = check_int("spikes", spikes, 1)
    return (ell - 1) / (2 * ell), ell / (2 * ell + 2)


def spike_exponents(exponent: float, kmax: int) -> np.ndarray:
    """log_n of the size of spike k = 1..kmax, k(a − 1/2) + 1 (the bulk is at 1/2)."""
    a = _exponent(exponent)
    k = np.arange(1, check_int("kmax", kmax, 1) + 1)
    return k * (a - 0.5) + 1.0


_THRESHOLD_TOL = 1e-9


def spike_count(exponent: float) -> int:
    """ℓ = #{k ≥ 1 : k < 1/(1 − 2a)} — the number of separated spikes for η = N^a, a ∈ (0, 1/2).

    At a threshold a = ℓ/(2ℓ + 2) (to 1e-9 in 1/(1 − 2a)) the count is ℓ: spike ℓ + 1 sits at the
    bulk scale.

    >>> [spike_count(a) for a in (0.1, 0.25, 0.26, 1 / 3, 0.34, 0.4, 0.45)]
    [1, 1, 2, 2, 3, 4, 9]
    """
    a = _exponent(exponent)
    x = 1.0 / (1.0 - 2.0 * a)  # spike k separates iff k < x
    return max(math.ceil(x - _THRESHOLD_TOL) - 1, 1)


@dataclass(frozen=True)
class SpikeCount:
    """How many spikes one step with η = N^a learns.

    Attributes:
        exponent: a.
        spikes: ℓ, the number of separated spikes.
        window: ((ℓ−1)/(2ℓ), ℓ/(2ℓ+2)), the exponents with exactly ℓ spikes.
        at_threshold: a is at the upper end of the window (spike ℓ + 1 at the bulk scale).
        spike_exponents: log_n of spike k = 1..ℓ+1 (k(a − 1/2) + 1).
        bulk_exponent: log_n of the bulk, 1/2.
    """

    exponent: float
    spikes: int
    window: tuple[float, float]
    at_threshold: bool
    spike_exponents: tuple[float, ...]
    bulk_exponent: float = 0.5


def intermediate_regime(exponent: float) -> SpikeCount:
    """The spike count and the sizes of the spikes for η = N^a (derived; see the module docstring)."""
    a = _exponent(exponent)
    ell = spike_count(a)
    lo, hi = spike_window(ell)
    return SpikeCount(
        exponent=a,
        spikes=ell,
        window=(lo, hi),
        at_threshold=abs(1.0 / (1.0 - 2.0 * a) - (ell + 1)) <= _THRESHOLD_TOL,
        spike_exponents=tuple(float(e) for e in spike_exponents(a, ell + 1)),
    )


def _teacher(teacher, center) -> Activation:
    try:
        act = activation(teacher, center=center)
    except ParameterError:
        raise
    except Exception as exc:
        raise ParameterError(
            "teacher", teacher, "a built-in name or a safe expression in x", str(exc)
        ) from None
    return act


def removed_energy(teacher, overlap: float, spikes: int, *, center: bool = True) -> np.ndarray:
    r"""γ^{2k} c_k*², k = 1..ℓ: the teacher energy captured by the degree-k spike (derived).

    c_k* = E[He_k(z) σ*(z)]/√k! are the normalised Hermite coefficients of the teacher.

    >>> [round(float(v), 6) for v in removed_energy("he2", 0.8, 2)]
    [0.0, 0.8192]
    """
    g = check_in_range("overlap", overlap, -1.0, 1.0)
    ell = check_int("spikes", spikes, 1)
    if ell > MAX_SPIKES:
        raise ParameterError(
            "spikes", spikes, f"an integer in [1, {MAX_SPIKES}] (Hermite coefficients up to degree 12)"
        )
    c = np.asarray(_teacher(teacher, center).constants().hermite, dtype=float)
    k = np.arange(1, ell + 1)
    return g ** (2 * k) * c[k] ** 2


def spike_overlap(teacher, psi1: float, noise: float = 0.0, *, center: bool = True) -> float:
    r"""γ = μ1*/√(μ1*² + E y²/ψ1), E y² = E σ*² + σ_ε² (the denominator is s² of
    :func:`asymptotics.theory.first_gradient.correlation_norm_sq`): the overlap ⟨β̂, β*⟩ of the first-step
    direction β̂ = Xᵀy/‖Xᵀy‖ with the teacher (``docs/one-step.md``, ρ; the large-step limit of the
    alignment, reached when the spike is far above its BBP threshold).

    >>> round(spike_overlap("tanh", 1.0, 0.1) ** 2, 4)   # ρ² of docs/one-step.md (sim. 0.478)
    0.4757
    """
    t = _teacher(teacher, center).constants()
    p = check_positive("psi1", psi1)
    s = check_nonnegative("noise", noise)
    ey2 = t.second_moment + s * s
    return float(abs(t.mu1) / math.sqrt(correlation_norm_sq(t.mu1, ey2, p))) * (1.0 if t.mu1 >= 0 else -1.0)


@dataclass(frozen=True)
class LimitModelRisk:
    """The limit-model test risk with ℓ spikes (derived; see the module docstring).

    Attributes:
        risk: the prediction risk E(f̂ − f*)² (no noise term).
        spikes: ℓ.
        overlap: γ.
        removed: γ^{2k} c_k*², k = 1..ℓ (energy taken by each spike).
        linear_energy: the residual linear energy μ1*²(1 − γ²) left to the bulk.
        nonlinear_energy: the residual nonlinear energy μ2*² − Σ_{k≥2} γ^{2k} c_k*² (acts as noise).
        random_features_risk: the risk without any spike (ℓ = 0: plain random features, R0).
        psi1, psi2, lam, noise: the parameters (Ba et al.'s convention).
        status: ``"derived (limit model)"``.
    """

    risk: float
    spikes: int
    overlap: float
    removed: tuple[float, ...]
    linear_energy: float
    nonlinear_energy: float
    random_features_risk: float
    psi1: float
    psi2: float
    lam: float
    noise: float
    status: str = "derived (limit model)"

    def as_dict(self) -> dict:
        return {
            "risk": self.risk,
            "spikes": self.spikes,
            "overlap": self.overlap,
            "removed": list(self.removed),
            "linear_energy": self.linear_energy,
            "nonlinear_energy": self.nonlinear_energy,
            "random_features_risk": self.random_features_risk,
            "psi1": self.psi1,
            "psi2": self.psi2,
            "lam": self.lam,
            "noise": self.noise,
            "status": self.status,
        }


def limit_model_risk(
    student,
    teacher,
    *,
    overlap: float,
    psi1: float,
    psi2: float,
    lam: float,
    spikes: int | None = None,
    exponent: float | None = None,
    noise: float = 0.0,
    center: bool = True,
) -> LimitModelRisk:
    r"""Risk of the limit model with ℓ spikes (``spikes``, or from ``exponent`` a: ℓ = spike_count(a)).

    **Derived / limit model** (``docs/large-step.md``): the ℓ spikes are unpenalised polynomial
    regressors of degree 1..ℓ in κ = ⟨β̂, x⟩ (overlap γ = ``overlap`` with β*), the bulk is the
    random-features ridge of the student (route B of ``docs/one-step.md``, R0) on the residual
    target with linear energy μ1*²(1 − γ²) and nonlinear energy μ2*² − Σ_{k=2}^ℓ γ^{2k} c_k*²:

        R = R0(μ1*² → μ1*²(1 − γ²), μ2*² → μ2*² − Σ_{k=2}^{ℓ} γ^{2k} c_k*²; ψ1, ψ2, λ, σ_ε).

    Ba et al.'s convention (λ on (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖²; Cui's λ_C = λψ1/ψ2).
    """
    from ..one_step.model import OneStepModel
    from ..one_step.risk import risk as one_step_risk

    if (spikes is None) == (exponent is None):
        raise ParameterError(
            "spikes/exponent", (spikes, exponent), "exactly one of spikes (ℓ ≥ 1) or exponent a ∈ (0, 1/2)"
        )
    ell = spike_count(exponent) if spikes is None else check_int("spikes", spikes, 1)
    g = check_in_range("overlap", overlap, -1.0, 1.0)
    p1, p2 = check_positive("psi1", psi1), check_positive("psi2", psi2)
    lm = check_positive("lam", lam)
    s = check_nonnegative("noise", noise)
    t_act = _teacher(teacher, center)
    tc = t_act.constants()
    if abs(tc.mu0) > 1e-10:
        raise ParameterError("teacher", t_act.name, "a centred teacher (μ0* = 0)", "use center=True")
    rem = removed_energy(t_act, g, ell, center=center)
    lin = tc.mu1**2 * (1.0 - g * g)
    nonlin = max(tc.mu2_sq - float(np.sum(rem[1:])), 0.0)
    base = OneStepModel.from_activations(student, t_act, noise=s, center=center)
    reduced = OneStepModel(
        mu1=base.mu1,
        mu2_sq=base.mu2_sq,
        mu1_star=math.sqrt(lin),
        mu2_star_sq=nonlin,
        noise=s,
        student=base.student,
        teacher=f"{base.teacher} (residual after {ell} spike(s))",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        r_spiked = float(one_step_risk(reduced, p1, p2, lm).risk0)
        r_rf = float(one_step_risk(base, p1, p2, lm).risk0)
    return LimitModelRisk(
        risk=r_spiked,
        spikes=ell,
        overlap=g,
        removed=tuple(float(v) for v in rem),
        linear_energy=lin,
        nonlinear_energy=nonlin,
        random_features_risk=r_rf,
        psi1=p1,
        psi2=p2,
        lam=lm,
        noise=s,
    )
