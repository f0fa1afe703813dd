r"""Prior traces of the ridge readout (uniform readout), in closed form over the Marchenko–Pastur law,
or as finite sums over a given spectrum (the authors' finite-d approach).

With Ω = W̃ΠW̃ᵀ = Σᵢ λᵢ eᵢeᵢᵀ, S(λ) = λ_r + V̂1 λ + V̂2, Fᵢ = p(eᵢᵀW̃v)², Hᵢ = p(eᵢᵀW̃ζ)²,
G(λ) = q̂1 λ + q̂2 + t̂² F + ψ̂² H (docs/spiked-rf.md, "How it is computed"):

    V1 = ⟨λ/S⟩,  V2 = ⟨1/S⟩,  t = t̂ ⟨F/S⟩,  ψ = ψ̂ ⟨H/S⟩,  q1 = ⟨λG/S²⟩,  q2 = ⟨G/S²⟩,

⟨·⟩ = (1/p) Σᵢ. As p → ∞ (§5): λᵢ ~ ν = c·MP(β) (β = p/d; atom 1 − 1/β at 0 when β > 1),
F → βc and H → βλ, so every trace is one of five integrals against ν, all given by the MP
Stieltjes transform at z = −s0/(vc) and its derivative: the resolvent moments of the numerics
layer (:func:`asymptotics.numerics.marchenko_pastur.mp_resolvent_moments`, written once there,
numpy and compiled from one source; the sRF kernels bind its compiled form). Writing u = v c/s0 (s0 = λ_r + V̂2,
v = V̂1) and x ~ MP(β):

    A0 = E 1/(1+ux) = m(−1/u)/u,  A1 = E x/(1+ux),  B0 = E 1/(1+ux)²,  B1 = E x/(1+ux)²,  B2 = E x²/(1+ux)².

A0 is the positive root of βu A0² + (1 + u(1−β)) A0 − 1 = 0 (the MP equation
γ z m² + (z + γ − 1) m + 1 = 0 with m = u A0, z = −1/u). Differentiating it gives the rest without
cancellation (R = √((1 + u(1−β))² + 4βu) = 2βuA0 + 1 + u(1−β)):

    A1 = A0/(1 + βuA0),  B1 = A0(βA0 + 1 − β)/R,  B0 = A0(1 + βuA0)/R,  B2 = (βA0² + B1)/(1 + βuA0)².

These forms are free of cancellation for β ≤ 1; for β > 1 the atom is split off exactly with
MP(β) = (1 − 1/β)δ0 + (1/β)·(β·MP(1/β)): A0 = (1 − 1/β) + A0'(βu)/β, A1 = A1'(βu), B0 =
(1 − 1/β) + B0'(βu)/β, B1 = B1'(βu), B2 = β B2'(βu) (primes: the β' = 1/β functions). So the
traces are accurate to rounding for every u ≥ 0 (u = 0 included: V̂1 = 0) and every β.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...numerics.marchenko_pastur import mp_resolvent_moments

__all__ = [
    "mp_resolvent_moments",
    "PriorTraces",
    "mp_prior_traces",
    "Spectrum",
    "sample_spectrum",
    "finite_prior_traces",
]


@dataclass(frozen=True)
class PriorTraces:
    r"""First- and second-order prior traces at given (λ_r, V̂1, V̂2).

    Attributes:
        V1, V2: ⟨λ/S⟩, ⟨1/S⟩.
        spike_response: ⟨F/S⟩ (t = t̂·spike_response; β c V2 for MP).
        orthogonal_response: ⟨H/S⟩ (ψ = ψ̂·orthogonal_response; β V1 for MP).
        second_order: 2×4 matrix P with (q1, q2) = P @ (q̂1, q̂2, t̂², ψ̂²).
    """

    V1: float
    V2: float
    spike_response: float
    orthogonal_response: float
    second_order: np.ndarray


def _check_s0(ridge, V2hat):
    s0 = ridge + V2hat
    if not s0 > 0:
        raise ParameterError(
            "lam", ridge, "> 0 when the student has no nonlinear part (μ2 ≡ 0)",
            "the prior operator λ + V̂1 Ω + V̂2 is singular")
    return s0


def mp_prior_traces(ridge: float, V1hat: float, V2hat: float, c: float, beta: float) -> PriorTraces:
    r"""Prior traces in closed form for λᵢ ~ c·MP(β), F = βc, H = βλ (docs/spiked-rf.md, "Prior").

    ∫ 1/S dν = A0/s0, ∫ λ/S dν = c A1/s0, ∫ 1/S² dν = B0/s0², ∫ λ/S² dν = c B1/s0²,
    ∫ λ²/S² dν = c² B2/s0², with u = V̂1 c/s0.
    """
    s0 = _check_s0(ridge, V2hat)
    u = V1hat * c / s0
    A0, A1, B0, B1, B2 = mp_resolvent_moments(u, beta)
    V2 = float(A0) / s0
    V1 = c * float(A1) / s0
    I0 = float(B0) / s0**2
    I1 = c * float(B1) / s0**2
    I2 = c * c * float(B2) / s0**2
    P = np.array([[I2, I1, beta * c * I1, beta * I2], [I1, I0, beta * c * I0, beta * I1]])
    return PriorTraces(V1, V2, beta * c * V2, beta * V1, P)


@dataclass(frozen=True)
class Spectrum:
    r"""A finite spectrum for the prior traces: eigenvalues λᵢ of Ω and the weights Fᵢ, Hᵢ.

    Attributes:
        eigenvalues: λᵢ (p,); spike_weights: Fᵢ = p(eᵢᵀW̃v)²; orthogonal_weights: Hᵢ = p(eᵢᵀW̃ζ)².
        d, p, seed: the sampled sizes and seed (None when given by the user).
    """

    eigenvalues: np.ndarray
    spike_weights: np.ndarray
    orthogonal_weights: np.ndarray
    d: int | None = None
    p: int | None = None
    seed: int | None = None

    @classmethod
    def from_weights(cls, W, c: float = 1.0, v=None, zeta=None, seed=None) -> Spectrum:
        """From a bulk matrix W (p × d, rows on the unit sphere); v = e₁, ζ = e₂ by default."""
        W = np.asarray(W, dtype=float)
        p, d = W.shape
        Wt = math.sqrt(c) * W
        v = np.eye(d)[0] if v is None else np.asarray(v, dtype=float) / np.linalg.norm(v)
        zeta = np.eye(d)[1] if zeta is None else np.asarray(zeta, dtype=float)
        zeta = zeta - (zeta @ v) * v
        zeta = zeta / np.linalg.norm(zeta)
        Pi_W = Wt - np.outer(Wt @ v, v)
        lam, U = np.linalg.eigh(Pi_W @ Pi_W.T)
        F = p * (U.T @ (Wt @ v)) ** 2
        H = p * (U.T @ (Wt @ zeta)) ** 2
        return cls(np.clip(lam, 0.0, None), F, H, d, p, seed)


def sample_spectrum(d: int, p: int, c: float = 1.0, seed: int | np.random.SeedSequence = 0) -> Spectrum:
    """Sample W (rows uniform on the sphere of ℝ^d, p rows) and return its :class:`Spectrum`
    (the authors' finite-d approach; O(p³))."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss)
    G = rng.standard_normal((p, d))
    W = G / np.linalg.norm(G, axis=1, keepdims=True)
    return Spectrum.from_weights(W, c, seed=ss.entropy)


def finite_prior_traces(ridge: float, V1hat: float, V2hat: float, spectrum: Spectrum) -> PriorTraces:
    r"""Prior traces as finite averages (1/p) Σᵢ over a given spectrum."""
    _check_s0(ridge, V2hat)
    lam = spectrum.eigenvalues
    F, H = spectrum.spike_weights, spectrum.orthogonal_weights
    S = ridge + V2hat + V1hat * lam
    iS = 1.0 / S
    iS2 = iS * iS
    V1 = float(np.mean(lam * iS))
    V2 = float(np.mean(iS))
    P = np.array([
        [np.mean(lam * lam * iS2), np.mean(lam * iS2), np.mean(lam * F * iS2), np.mean(lam * H * iS2)],
        [np.mean(lam * iS2), np.mean(iS2), np.mean(F * iS2), np.mean(H * iS2)],
    ])
    return PriorTraces(V1, V2, float(np.mean(F * iS)), float(np.mean(H * iS)), P)
