r"""Bulks that are mixtures: column-variance types (the weights after a large step) and the
conditional-Gaussian-equivalence κ-mixture (the conjugate kernel after a large step).

**Typed Gram** (weights). W̃ ∈ ℝ^{d×N} whose columns of type u have variance c(u)/d (types with
weights π_k). The Dyson rule of the typed pencil (:func:`.pencils.typed_gram_pencil`, one block
per type) gives, with g = tr(W̃W̃ᵀ − z)⁻¹/d,

    g = 1/(−z − ψ2 Σ_k π_k c_k h_k),   h_k = −1/(1 + c_k g),   m(z) = Σ_k π_k h_k / z   (N×N).

One complex unknown; the compiled Newton (line search) with the exact derivative.

**κ-mixture** (conjugate kernel; derived here). After a large step neuron i has a type uᵢ (spike
r uᵢ, bulk variance c(uᵢ)); conditionally on κ = ⟨v, x⟩ the cGET replaces its feature by
μ0(κ; uᵢ) + μ1(κ; uᵢ) (W̃x)ᵢ + μ2(κ; uᵢ) ξᵢ. The mean part μ0 makes the outliers (see
:mod:`.large_step`); the rest has independent rows with covariance
Σ(κ) = diag(μ1(κ; ·)) Ω diag(μ1(κ; ·)) + diag(μ2²(κ; ·)), Ω = W̃W̃ᵀ (N×N). The sample
covariance S = (1/n) Σ_μ f_μ f_μᵀ of independent rows has the deterministic equivalent
R̄ = (E_κ[Σ(κ)/(1 + δ(κ))] − z)⁻¹ with δ(κ) = (1/n) tr Σ(κ) R̄ = (ψ2/ψ1) V(κ); the mean of the
Σ(κ) is a sum over the κ nodes of weighted Wisharts in the shared Ω, whose resolvent has the
diagonal deterministic equivalent of the typed prior (``docs/large-step-exact.md``) with the ridge
replaced by −z. On κ nodes a (weights w_a) and types j (weights π_j), U_aj = μ1(κ_a; u_j):

    B_a = w_a/(1 + (ψ2/ψ1) V_a),   P = Uᵀ diag(B) U,   G = (diag(S_j/(π_j c_j)) + ψ2 P)⁻¹,
    V_a = (U G Uᵀ)_aa + Σ_j π_j μ2²(κ_a; u_j)/S_j,
    S_j = −z + Σ_a B_a μ2²(κ_a; u_j) + S_j (P G)_jj/π_j,
    m(z) = Σ_j π_j / S_j.

(The type-space form follows from the push-through identity: 𝒱 = M(I + ψ2BM)⁻¹ = UGUᵀ and
τ_j = c_j (UᵀTU)_jj = S_j (PG)_jj/π_j with M = U diag(π c/S) Uᵀ.) For r = 0 and c = 1 it is the
random-features Gram of the Gaussian-equivalent pencil (checked in the tests). Unknowns (V, S):
the compiled Newton of the numerics layer (full steps first, then the line search) with the exact
Jacobian (derived by hand, checked against finite differences); the problem is the template
:mod:`._mixture_kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from ...errors import ParameterError
from .branch import BranchContinuation
from .bulk import BranchBulk

__all__ = ["TypedGramBulk", "KappaMixtureBulk", "mixture_kernels"]

_TEMPLATE = Path(__file__).with_name("_mixture_kernels.py")


#: The problems of the mixture template, rendered once each (``PROBLEM`` of :mod:`._mixture_kernels`).
_PROBLEMS = {"kappa": "PROBLEM = 0", "typed": "PROBLEM = 1"}  # KAPPA_MIXTURE, TYPED_GRAM
#: Full Newton steps the κ-mixture tries before the line search (its first step may raise the
#: residual before Newton converges quadratically).
PLAIN_STEPS = 24


@cache
def mixture_kernels(problem: str) -> ModuleType:
    """The compiled module of a mixture problem (``"kappa"`` or ``"typed"``): the template
    :mod:`._mixture_kernels` with the numerics layer's Newton included (cached on disk)."""
    from ...numerics.templates import DENSE_LINALG, NEWTON
    from ...rendering.templates import load_template

    return load_template(_TEMPLATE, {}, origin=f"{problem} mixture", prefix="mixture", definitions=_PROBLEMS[problem],
                         include=(DENSE_LINALG, NEWTON))


def _newton_batch(problem: str, z, X0, data, config, plain_steps: int):
    """(X, status, residual): Newton at every point z_i from X0_i (the compiled Newton family)."""
    z = np.ascontiguousarray(z, dtype=np.complex128)
    X0 = np.ascontiguousarray(X0, dtype=np.complex128)
    with np.errstate(all="ignore"):
        return mixture_kernels(problem).newton_batch(X0, z, data, config.atol, config.rtol, config.max_steps,
                                                     plain_steps)


# ---------------------------------------------------------------------------------- typed Gram
@dataclass(frozen=True)
class TypedGramBulk(BranchBulk):
    """Gram W̃ᵀW̃ (N×N) of a d×N matrix with column-variance types (module docstring).

    Attributes:
        psi2: ψ2 = N/d.
        variances: c_k of the types; weights: π_k (summing to 1).
        scale: an upper bound of the support; label; config.
    """

    psi2: float
    variances: np.ndarray
    weights: np.ndarray
    scale: float
    label: str = "typed Gram"
    config: BranchContinuation = field(default_factory=BranchContinuation)

    def __post_init__(self):
        c, w = np.asarray(self.variances, float), np.asarray(self.weights, float)
        if c.shape != w.shape or np.any(c <= 0) or np.any(w < 0) or abs(w.sum() - 1) > 1e-9:
            raise ParameterError("variances", "types", "positive variances with weights summing to 1")
        object.__setattr__(self, "variances", c)
        object.__setattr__(self, "weights", w)

    unknowns = ("g11",)
    signs = {0: 1}

    @property
    def _solver(self):
        data = (np.ascontiguousarray(self.variances), np.ascontiguousarray(self.weights), float(self.psi2))

        def solve(z, X0):
            return _newton_batch("typed", z, X0, data, self.config, 0)

        def start(z):
            return (-1.0 / np.asarray(z, dtype=np.complex128))[:, None]

        return solve, start

    def m_of(self, values, z):
        g = values[:, 0]
        h = -1.0 / (1.0 + self.variances[None, :] * g[:, None])
        return (h @ self.weights) / z

    def as_dict(self) -> dict:
        return {"law": self.label, "psi2": self.psi2, "types": int(self.variances.size)}


# ---------------------------------------------------------------------------------- κ-mixture
@dataclass(frozen=True)
class KappaMixtureBulk(BranchBulk):
    """The bulk of the large-step conjugate kernel (1/n)FᵀF by the κ-mixture (module docstring).

    Attributes:
        psi1, psi2: ψ1 = n/d, ψ2 = N/d.
        kappa_weights: w_a of the κ rule (A,), summing to 1.
        mu1: μ1(κ_a; u_j), shape (K, A); mu2_sq: μ2²(κ_a; u_j), shape (K, A).
        variances: c(u_j) (K,); type_weights: π_j (K,).
        scale, label, config.
    """

    psi1: float
    psi2: float
    kappa_weights: np.ndarray
    mu1: np.ndarray
    mu2_sq: np.ndarray
    variances: np.ndarray
    type_weights: np.ndarray
    scale: float
    label: str = "κ-mixture CK bulk"
    config: BranchContinuation = field(default_factory=BranchContinuation)

    @property
    def signs(self) -> dict:
        """Im V_a ≥ 0 (V = tr Σ(κ)R̄/N) and Im S_j ≤ 0 (m = Σ π_j/S_j has Im m > 0)."""
        A, K = self.kappa_weights.size, self.variances.size
        return {**{a: 1 for a in range(A)}, **{A + j: -1 for j in range(K)}}

    @property
    def unknowns(self) -> tuple:
        A, K = self.kappa_weights.size, self.variances.size
        return tuple(f"V{a}" for a in range(A)) + tuple(f"S{j}" for j in range(K))

    def _data(self):
        U = np.ascontiguousarray(self.mu1.T, dtype=np.float64)
        M2 = np.ascontiguousarray(self.mu2_sq.T, dtype=np.float64)
        return (np.ascontiguousarray(self.kappa_weights, dtype=np.float64), U, M2,
                np.ascontiguousarray(self.type_weights, dtype=np.float64),
                np.ascontiguousarray(self.variances, dtype=np.float64), float(self.psi2), float(self.psi2 / self.psi1))

    def residual_jacobian(self, X, z):
        """(F, J) of the equations at one point (compiled; for checks)."""
        mod = mixture_kernels("kappa")
        p = (complex(z), self._data())
        X = np.asarray(X, dtype=np.complex128)
        return mod.residual(X, p), mod.jacobian(X, p)

    @property
    def _solver(self):
        A = self.kappa_weights.size
        data = self._data()
        cfg = self.config

        def solve(z, X0):
            return _newton_batch("kappa", z, X0, data, cfg, min(cfg.max_steps, PLAIN_STEPS + 1) - 1)

        def start(z):
            z = np.asarray(z, dtype=np.complex128)
            K = self.variances.size
            X = np.zeros((z.size, A + K), dtype=np.complex128)
            X[:, A:] = -z[:, None]
            return X

        return solve, start

    def m_of(self, values, z):
        A = self.kappa_weights.size
        return (1.0 / values[:, A:]) @ self.type_weights

    def as_dict(self) -> dict:
        return {"law": self.label, "psi1": self.psi1, "psi2": self.psi2, "kappa_nodes": int(self.kappa_weights.size),
                "types": int(self.variances.size)}
