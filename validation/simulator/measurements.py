r"""Measurements of the trained first layer, and the names of everything the simulator reports.

Spike of W ∈ ℝ^{d×N} (``docs/one-step.md``): with s₁ ≥ s₂ its largest singular values and
(u₁, v₁) the top singular pair,

* ``overlap_beta`` = ⟨u₁, β*⟩² (β* the target direction, θ in Cui's notation),
* ``overlap_a``    = ⟨v₁, c/‖c‖⟩² (c the readout: a in Ba, u in Cui),
* ``top_sv2``      = s₁², ``bulk_edge_sv2`` = s₂² (the top of the bulk when there is one outlier),
* ``beta_energy``  = ‖Wᵀβ*‖² (→ ψ2 + θ1² at η = Θ(1)).

Measured sRF parameters (``docs/spiked-rf.md``) of W = √c W̃ + r v uᵀ (neurons as columns,
u the readout types): s = W u/‖u‖² = r v + √c W̃u/‖u‖², so

* ``c``     = (1/p) Σⱼ ‖wⱼ − uⱼ s‖² (the per-neuron bulk variance, the rows of W̃ having unit norm),
* ``r``     = √(‖s‖² − c/‖u‖²) (debiased: the bulk contributes c/‖u‖² to ‖s‖²),
* ``gamma`` = ⟨s, θ⟩/r (the bulk's contribution to ⟨s, θ⟩ has mean 0), signed.
"""

from __future__ import annotations

import math

import numpy as np

from .linalg import top_singular

__all__ = ["MEASUREMENTS", "RISK_MEASUREMENTS", "spike_measurements", "srf_parameters", "measurement_names"]

_SPIKE = ("overlap_beta", "overlap_a", "top_sv2", "bulk_edge_sv2")
_GRADIENT = ("rank1_error", "gradient_sv_ratio")
_SRF = ("r", "c", "gamma")
_CK = ("ck_outlier", "ck_label_alignment")

#: Every measurement name, by protocol and group.
MEASUREMENTS = {
    "ba": {
        "risk": ("risk0", "risk1", "delta", "train_error"),
        "spike": (*_SPIKE, *_GRADIENT, "beta_energy"),
        "ck": _CK,
    },
    "cui": {
        "risk": ("test_error", "train_error"),
        "spike": (*_SPIKE, *_GRADIENT, "beta_energy", *_SRF),
        "ck": _CK,
        "baseline": ("test_error0", "train_error0"),
    },
    "srf": {
        "risk": ("test_error", "train_error"),
        "spike": (*_SPIKE, "beta_energy", *_SRF),
        "ck": _CK,
    },
}

#: Measurements estimated on the test set (they also get a test-set standard error).
RISK_MEASUREMENTS = ("risk0", "risk1", "delta", "test_error", "test_error0")


def measurement_names(protocol: str, groups) -> tuple[str, ...]:
    """The measurement names a run of ``protocol`` with these groups reports."""
    table = MEASUREMENTS[protocol]
    return tuple(name for g in table if g in groups for name in table[g])


def spike_measurements(
    W: np.ndarray, beta: np.ndarray, readout: np.ndarray, rng: np.random.Generator
) -> dict:
    """overlap_beta, overlap_a, top_sv2, bulk_edge_sv2, beta_energy of W (d×N)."""
    s, u1, v1 = top_singular(W, k=2, rng=rng)
    cn = readout / np.linalg.norm(readout)
    wb = W.T @ beta
    return {
        "overlap_beta": float(u1 @ beta) ** 2,
        "overlap_a": float(v1 @ cn) ** 2,
        "top_sv2": float(s[0]) ** 2,
        "bulk_edge_sv2": float(s[1]) ** 2 if len(s) > 1 else math.nan,
        "beta_energy": float(wb @ wb),
    }


def srf_parameters(W: np.ndarray, u: np.ndarray, theta: np.ndarray) -> dict:
    """The sRF parameters r, c, gamma of W (d×p) with readout types u and target direction θ."""
    uu = float(u @ u)
    s = (W @ u) / uu
    # Σⱼ ‖wⱼ − uⱼ s‖² = ‖W‖_F² − ‖u‖² ‖s‖² since W u = ‖u‖² s
    c = (float(np.einsum("ij,ij->", W, W)) - uu * float(s @ s)) / W.shape[1]
    r2 = float(s @ s) - c / uu
    r = math.sqrt(r2) if r2 > 0 else 0.0
    gamma = float(s @ theta) / r if r > 0 else 0.0
    return {"r": r, "c": c, "gamma": gamma}
