r"""The map from the one-step network of Cui et al. (2024) to the spiked random-features model.

After one large gradient step (learning rate η̃·p on the plain gradient, batch n0 = α0·d, readout
initialisation a⁰ⱼ = uⱼ/√p) the first-layer weights are, to leading order,

    w¹ⱼ = √c(uⱼ) w̃ⱼ + r uⱼ v,      ‖w̃ⱼ‖ = 1,  v = ĝ/‖ĝ‖,  ⟨v, θ⟩ = γ,

with (docs/spiked-rf.md, "How it is computed"; h's are Gaussian moments of the *centred* activations)

    r = η̃ h1 √(h1*² + E y²/α0),                     (spike strength)
    c(u) = 1 + η̃² u² E y² ȟ1 / α0,                  (bulk variance of a type-u neuron)
    γ = h1* / √(h1*² + E y²/α0),                     (spike–target overlap)

where h1 = E σ'(z), ȟ1 = Var σ'(z), h1* = E[z σ*(z)], E y² = h2* + σ_ε², h2* = E σ*(z)².
The common part h1 of σ'(w⁰ⱼᵀx) gives the rank-one spike η̃ h1 ĝ with ĝ = X0ᵀy/n0,
‖ĝ‖² → h1*² + E y²/α0 and ĝᵀθ → h1*; the fluctuation σ' − h1 gives nearly orthogonal
isotropic row increments of squared norm η̃² u² E y² ȟ1/α0.

"No step" (η̃ = 0) is the point c = 1, r = 0, γ = 0 (random features). It is *not* the limit
α0 → 0 of the formulas (r and c diverge there); α0 = ∞ (``alpha0=math.inf``) is the isotropic
spiked RF (docs/spiked-rf.md, "Special cases"): γ = 1, c = 1, r = η̃ h1 h1*.

>>> from asymptotics.theory.spiked_rf import cui_to_srf
>>> p = cui_to_srf(eta_tilde=5.0, alpha0=1.0, student="tanh", teacher="tanh")
>>> round(p.r, 4), round(p.c, 4), round(p.gamma, 4)
(2.6422, 1.9613, 0.6943)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...activations import Activation, resolve_activation
from ...errors import ParameterError
from ...params import check_in_range, check_nonnegative, check_positive, check_probability_vector
from ..first_gradient import correlation_norm_sq

__all__ = [
    "SpikedRFParameters",
    "ReadoutTypes",
    "readout_types",
    "gradient_norm_sq",
    "spike_strength",
    "bulk_variance",
    "spike_overlap",
    "cui_to_srf",
    "srf_parameters",
    "as_activation",
]


def as_activation(spec, role: str = "activation", center: bool = True) -> Activation:
    """An :class:`~asymptotics.activations.Activation` from a name or an expression (centred when
    ``center``), or an Activation kept as given; resolved by
    :func:`asymptotics.activations.resolve_activation` (a bad one is one error naming ``role``)."""
    return resolve_activation(spec, center=spec.centered if isinstance(spec, Activation) else center, name=role)


@dataclass(frozen=True)
class ReadoutTypes:
    """Readout-initialisation types uⱼ = √p a⁰ⱼ ∈ {u⁽¹⁾, …, u⁽ᴷ⁾} with proportions π.

    Attributes:
        values: the type values u⁽ᵏ⁾ (uniform readout: ``(1.0,)``).
        proportions: πₖ > 0, summing to 1.
    """

    values: tuple[float, ...] = (1.0,)
    proportions: tuple[float, ...] = (1.0,)

    @property
    def K(self) -> int:
        return len(self.values)

    @property
    def is_uniform(self) -> bool:
        """One type with u = 1 (the uniform readout of the main theory)."""
        return self.K == 1 and self.values[0] == 1.0

    def as_dict(self) -> dict:
        return {"values": list(self.values), "proportions": list(self.proportions)}


def readout_types(values=(1.0,), proportions=None) -> ReadoutTypes:
    """Validated :class:`ReadoutTypes`; equal proportions when ``proportions`` is None.

    >>> readout_types((0.3, 1.7))
    ReadoutTypes(values=(0.3, 1.7), proportions=(0.5, 0.5))
    """
    if isinstance(values, ReadoutTypes):
        return values
    vals = np.atleast_1d(np.asarray(values, dtype=object))
    if vals.ndim != 1 or vals.size == 0:
        raise ParameterError("readout_values", values, "a non-empty list of real numbers")
    vals = tuple(check_in_range(f"readout_values[{i}]", v, -1e6, 1e6) for i, v in enumerate(vals))
    if proportions is None:
        props = (1.0 / len(vals),) * len(vals)
    else:
        props = np.atleast_1d(np.asarray(proportions, dtype=object)).tolist()
        if len(props) != len(vals):
            raise ParameterError(
                "readout_proportions", proportions, f"a list of {len(vals)} proportions (one per readout value)"
            )
        props = tuple(check_probability_vector("readout_proportions", props, atol=1e-9))
        s = sum(props)
        props = tuple(p / s for p in props)
    return ReadoutTypes(vals, props)


def gradient_norm_sq(alpha0: float, h1_star: float, label_energy: float) -> float:
    r"""‖ĝ‖² → h1*² + E y²/α0 for ĝ = X0ᵀy/n0 (signal plus sampling noise); h1*² at α0 = ∞ (the
    one-step theory's s², :func:`asymptotics.theory.first_gradient.correlation_norm_sq`)."""
    return correlation_norm_sq(h1_star, label_energy, alpha0)


def spike_strength(eta_tilde: float, alpha0: float, h1: float, h1_star: float, label_energy: float) -> float:
    r"""r = η̃ h1 ‖ĝ‖ = η̃ h1 √(h1*² + E y²/α0)."""
    return eta_tilde * h1 * math.sqrt(gradient_norm_sq(alpha0, h1_star, label_energy))


def bulk_variance(eta_tilde: float, alpha0: float, var_derivative: float, label_energy: float, u: float = 1.0) -> float:
    r"""c(u) = 1 + η̃² u² E y² ȟ1/α0 (ȟ1 = Var σ'(z)); 1 at α0 = ∞."""
    if math.isinf(alpha0):
        return 1.0
    return 1.0 + eta_tilde**2 * u**2 * label_energy * var_derivative / alpha0


def spike_overlap(alpha0: float, h1_star: float, label_energy: float) -> float:
    r"""γ = h1*/‖ĝ‖ = h1*/√(h1*² + E y²/α0) ∈ [−1, 1] (0 when ĝ → 0)."""
    g2 = gradient_norm_sq(alpha0, h1_star, label_energy)
    return 0.0 if g2 == 0.0 else h1_star / math.sqrt(g2)


@dataclass(frozen=True)
class SpikedRFParameters:
    """Parameters of the spiked random-features model F = √c W + r u vᵀ, θ = γ v + ρ ζ.

    Attributes:
        r: spike strength r (for type k the spike is r·u⁽ᵏ⁾).
        gamma: overlap γ = ⟨v, θ⟩ of the spike with the target direction.
        bulk: bulk variance c of each readout type (length K).
        readout: the readout types u⁽ᵏ⁾ and proportions πₖ.
        origin: ``"srf"`` (given directly) or ``"cui"`` (mapped from a one-step network).
        source: the network parameters the map started from (empty for ``"srf"``).
    """

    r: float
    gamma: float
    bulk: tuple[float, ...]
    readout: ReadoutTypes = ReadoutTypes()
    origin: str = "srf"
    source: tuple = ()

    @property
    def c(self) -> float:
        """The bulk variance of the uniform readout (first type)."""
        return self.bulk[0]

    @property
    def rho(self) -> float:
        """ρ = √(1 − γ²), the part of the target orthogonal to the spike."""
        return math.sqrt(max(0.0, 1.0 - self.gamma**2))

    @property
    def spikes(self) -> tuple[float, ...]:
        """r·u⁽ᵏ⁾ for each type."""
        return tuple(self.r * u for u in self.readout.values)

    def as_dict(self) -> dict:
        out = {"r": self.r, "c": self.c, "gamma": self.gamma, "rho": self.rho}
        if not self.readout.is_uniform:
            out.update(bulk=list(self.bulk), spikes=list(self.spikes), readout=self.readout.as_dict())
        # α0 = ∞ (isotropic limit) is written as the string "inf" (JSON has no infinity)
        out.update({k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in self.source})
        return out


def srf_parameters(c, r: float, gamma: float, readout=None) -> SpikedRFParameters:
    """Validated sRF parameters given directly: c > 0 (a number, shared by every type, or one per
    type), r real, γ ∈ [−1, 1]."""
    ro = readout_types() if readout is None else readout_types(readout) if not isinstance(readout, ReadoutTypes) else readout
    cs = np.atleast_1d(np.asarray(c, dtype=object)).tolist()
    if len(cs) == 1:
        cs = cs * ro.K
    if len(cs) != ro.K:
        raise ParameterError("c", c, f"a positive number or {ro.K} positive numbers (one per readout type)")
    bulk = tuple(check_positive("c", v) for v in cs)
    rr = check_in_range("r", r, -1e6, 1e6)
    g = check_in_range("gamma", gamma, -1.0, 1.0)
    return SpikedRFParameters(rr, g, bulk, ro, "srf", ())


def cui_to_srf(
    eta_tilde: float,
    alpha0: float,
    student,
    teacher,
    noise: float = 0.0,
    readout=None,
) -> SpikedRFParameters:
    r"""(η̃, α0, σ, σ*) → (c, r, γ) of the sRF model (Cui et al. §2; K types §7).

    Parameters
    ----------
    eta_tilde : η̃ ≥ 0, the learning rate (η̃·p on the plain gradient).
    alpha0 : α0 = n0/d > 0 (``math.inf`` for the isotropic limit).
    student, teacher : activations (names, expressions or :class:`Activation`; centred by default).
    noise : σ_ε ≥ 0, label-noise standard deviation (E y² = h2* + σ_ε²).
    readout : :class:`ReadoutTypes` or values (u = √p a⁰); uniform readout by default.

    η̃ = 0 gives the random-features point c = 1, r = 0, γ = 0 for every α0.
    """
    et = check_nonnegative("eta_tilde", eta_tilde)
    if isinstance(alpha0, (int, float)) and not isinstance(alpha0, bool) and math.isinf(alpha0) and alpha0 > 0:
        a0 = math.inf
    else:
        a0 = check_positive("alpha0", alpha0)
    sn = check_nonnegative("noise", noise)
    ro = readout_types() if readout is None else readout_types(readout)
    s = as_activation(student, "student")
    t = as_activation(teacher, "teacher")
    cs, ct = s.constants(), t.constants()
    h1, var_d = cs.mu1, cs.var_derivative
    h1s, ey2 = ct.mu1, ct.second_moment + sn**2
    src = (("eta_tilde", et), ("alpha0", a0), ("noise", sn))
    if et == 0.0:
        return SpikedRFParameters(0.0, 0.0, (1.0,) * ro.K, ro, "cui", src)
    r = spike_strength(et, a0, h1, h1s, ey2)
    g = spike_overlap(a0, h1s, ey2)
    bulk = tuple(bulk_variance(et, a0, var_d, ey2, u) for u in ro.values)
    return SpikedRFParameters(r, g, bulk, ro, "cui", src)
