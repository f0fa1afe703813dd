r"""The prior of the ridge readout for a continuous law of readout types: an exact deterministic
equivalent on L²(κ) (``docs/large-step-exact.md``).

Setting (Cui's normalisation, p = N features, β = p/d = ψ2). Neuron i has type uᵢ, bulk variance
c(uᵢ) and cGET coefficients μ_ℓ(κ; uᵢ). On a κ-quadrature (nodes κ_a, weights w_a, a = 1..n) the
channel weight enters only through the diagonal matrix B = diag(b), b_a = w_a ŵ(κ_a), so the
conjugates are kernels of rank ≤ n in the types:

    V̂1(u, u') = Σ_a b_a μ1(κ_a; u) μ1(κ_a; u'),   V̂2(u) = Σ_a b_a μ2²(κ_a; u),   D(u) = λ_C + V̂2(u),

and the prior operator is a sum of n weighted Wishart-type matrices,

    A = diag(D(uᵢ)) + Ω ⊙ V̂1 = diag(D) + Σ_a b_a diag(μ1(κ_a; ·)) Ω diag(μ1(κ_a; ·)),   Ω = W̃ΠW̃ᵀ.

Its rows are independent given the types, so the resolvent has a *diagonal* deterministic
equivalent (A⁻¹)ᵢᵢ ≈ 1/S(uᵢ), S = D + τ, with the self-energy τ (E_u over the types):

    M = E_u[ c(u) μ1(·; u) μ1(·; u)ᵀ / S(u) ]                                  (n × n)
    τ(u) = c(u) μ1(·; u)ᵀ B (I + β M B)⁻¹ μ1(·; u)
    𝒱 = M (I + β B M)⁻¹ = M − β M T M,   T = B (I + β M B)⁻¹ = √B (I + β √B M √B)⁻¹ √B,
    V(κ) = 𝒱_κκ + E_u[μ2²(κ; u)/S(u)]          (the response (1/p) tr(Cov(φ | κ) A⁻¹)).

These are the stationarity conditions of the free energy

    Φ(B, D) = (1/p) log det A ≃ E_u[log S − τ/S] + (1/β) log det(I + β √B M √B),

with V(κ) = ∂Φ/∂b_κ along D = λ_C + Σ_a b_a μ2²(κ_a; ·) (checked numerically in the tests).
For K discrete types this is the block Marchenko–Pastur problem of ``docs/spiked-rf.md`` written in
the κ-representation: μ1 T μ1ᵀ = (I + β V̂1 Λ)⁻¹ V̂1 with Λ = diag(π c/S) (push-through identity).

**Overlaps.** The spike field t̂(u) enters through the column W̃v (i.i.d. entries of variance c/d),
the orthogonal field through W̃ζ (a typical column of W̃Π), hence

    t(κ) = β E_u[c(u) t̂(u) μ1(κ; u)/S(u)],     ψ(κ) = β (𝒱 y)_κ,   y = B h̃1.

**Second-order traces** are directional derivatives: for a source B' = diag(s) + β y yᵀ on B and
D' = Σ_a s_a μ2²(κ_a; ·) + g on D (q̂2 = μ2²·s, g = β c t̂² + N ĝ0²), q(κ) = −dV(κ)[B', D']. With
R = I − β T M, A1 = μ1 R (K × n), P = μ1 T μ1ᵀ (K × K):

    dS = (I − C)⁻¹ (Ψ s + β c ∘ (A1 y)² + g),     C_jl = β c_j π_l c_l P_jl² / S_l²,
    Ψ_ja = c_j A1_ja² + μ2²(κ_a; u_j),
    q(κ_a) = Σ_j (π_j/S_j²) Ψ_ja dS_j + β Σ_b 𝒱_ab² s_b + β² (𝒱 y)_a²,

derived by differentiating the self-energy equation (dT = R B' Rᵀ − β T dM T, d𝒱 = Rᵀ dM R −
β 𝒱 B' 𝒱). So the variance map s ↦ q is the n × n matrix 𝓛 = Ψᵀ diag(π/S²)(I − C)⁻¹ Ψ + β 𝒱∘𝒱.

No sampling, no eigendecomposition: everything is O(K n² + n³) per evaluation, for any β (ψ2 > 1
needs nothing special).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...solvers import Anderson, fixed_point

__all__ = [
    "TypedFeatures",
    "TypedPriorState",
    "self_energy_map",
    "typed_prior_state",
    "solve_typed_prior",
    "typed_free_energy",
    "spike_overlap_function",
    "orthogonal_overlap_function",
    "variance_response",
    "variance_operator",
]


@dataclass(frozen=True)
class TypedFeatures:
    r"""The type-dependent data of the prior, tabulated on the κ nodes and the type nodes.

    Attributes:
        mu1: μ1(κ_a; u_j), shape (K, n).
        mu2_sq: μ2²(κ_a; u_j), shape (K, n).
        bulk: c(u_j), shape (K,).
        weights: π_j, the type proportions (quadrature weights of the type law), shape (K,).
        beta: β = p/d (ψ2 in the Ba convention).
    """

    mu1: np.ndarray
    mu2_sq: np.ndarray
    bulk: np.ndarray
    weights: np.ndarray
    beta: float

    @property
    def K(self) -> int:
        return int(self.bulk.size)

    @property
    def n(self) -> int:
        return int(self.mu1.shape[1])


@dataclass(frozen=True)
class TypedPriorState:
    r"""The deterministic equivalent at (B, D) and a self-energy τ.

    Attributes:
        features: the :class:`TypedFeatures`.
        b: diagonal of B (n,); D: λ_C + V̂2(u_j) (K,); tau: τ(u_j) (K,); S: D + τ (K,).
        M: E_u[c μ1μ1ᵀ/S] (n, n); T: B(I + βMB)⁻¹ (n, n, symmetric); Vop: 𝒱 (n, n, symmetric).
        V: the response V(κ_a) (n,).
        A1: μ1 R = μ1(I − βTM) (K, n); P: μ1 T μ1ᵀ (K, K).
        tau_map: the self-energy map applied to ``tau`` (equal to ``tau`` at a solution).
    """

    features: TypedFeatures
    b: np.ndarray
    D: np.ndarray
    tau: np.ndarray
    S: np.ndarray
    M: np.ndarray
    T: np.ndarray
    Vop: np.ndarray
    V: np.ndarray
    A1: np.ndarray
    P: np.ndarray
    tau_map: np.ndarray

    @property
    def tau_residual(self) -> float:
        """max |τ − map(τ)| / max(1, |τ|)."""
        return float(np.max(np.abs(self.tau_map - self.tau) / np.maximum(1.0, np.abs(self.tau))))


def _check_inputs(b, D):
    if np.any(~np.isfinite(b)) or np.any(b < 0):
        raise ParameterError("b", "B", "finite, non-negative channel weights")
    if np.any(~np.isfinite(D)) or np.any(D <= 0):
        raise ParameterError(
            "lam", float(np.min(D)), "> 0 when the student has no nonlinear part (μ2 ≡ 0)",
            "the prior operator λ_C + V̂2 + Ω ⊙ V̂1 is singular")


def _core(tau, b, D, f: TypedFeatures):
    """(S, M, T) at τ: T = √B (I + β √B M √B)⁻¹ √B by a Cholesky solve."""
    S = D + tau
    lam_ = f.weights * f.bulk / S
    M = (f.mu1.T * lam_) @ f.mu1
    sb = np.sqrt(b)
    H = np.eye(b.size) + f.beta * (sb[:, None] * M * sb[None, :])
    from scipy.linalg import cho_factor, cho_solve  # lazy: the compiled path does not need scipy

    cf = cho_factor(H, lower=True, check_finite=False)
    T = sb[:, None] * cho_solve(cf, np.diag(sb), check_finite=False)
    T = 0.5 * (T + T.T)
    return S, M, T


def self_energy_map(tau, b, D, features: TypedFeatures) -> np.ndarray:
    r"""τ ↦ c(u) μ1(·; u)ᵀ B (I + βMB)⁻¹ μ1(·; u), with M evaluated at S = D + τ."""
    _, _, T = _core(np.asarray(tau, dtype=float), b, D, features)
    return features.bulk * np.einsum("ja,ab,jb->j", features.mu1, T, features.mu1)


def typed_prior_state(tau, b, D, features: TypedFeatures) -> TypedPriorState:
    """Every quantity of the deterministic equivalent at a given τ (no solve)."""
    f = features
    tau = np.asarray(tau, dtype=float)
    b = np.asarray(b, dtype=float)
    D = np.asarray(D, dtype=float)
    _check_inputs(b, D)
    S, M, T = _core(tau, b, D, f)
    TM = T @ M
    Vop = M - f.beta * (M @ TM)
    Vop = 0.5 * (Vop + Vop.T)
    V = np.diag(Vop) + (f.weights / S) @ f.mu2_sq
    A1 = f.mu1 - f.beta * (f.mu1 @ TM)
    mT = f.mu1 @ T
    P = mT @ f.mu1.T
    tau_map = f.bulk * np.einsum("ja,ja->j", mT, f.mu1)
    return TypedPriorState(f, b, D, tau, S, M, T, Vop, V, A1, 0.5 * (P + P.T), tau_map)


def solve_typed_prior(b, D, features: TypedFeatures, *, tau0=None, tol: float = 1e-13) -> TypedPriorState:
    r"""Solve the self-energy equation τ = map(τ) at fixed (B, D) (Anderson acceleration from
    τ0 = c ∘ diag(μ1 B μ1ᵀ), the value at M = 0) and return the state there."""
    b = np.asarray(b, dtype=float)
    D = np.asarray(D, dtype=float)
    _check_inputs(b, D)
    f = features
    x0 = f.bulk * ((f.mu1 * b) @ f.mu1.T).diagonal() if tau0 is None else np.asarray(tau0, dtype=float)
    res = fixed_point(lambda t: self_energy_map(np.maximum(t, 0.0), b, D, f), x0,
                      solver=Anderson(memory=5, atol=tol, rtol=tol, max_steps=5000), on_failure="return")
    if not res.converged:
        raise ConvergenceError(f"typed prior: the self-energy equation did not converge ({res.message})", res)
    return typed_prior_state(np.maximum(res.value, 0.0), b, D, f)


def typed_free_energy(state: TypedPriorState) -> float:
    r"""Φ = E_u[log S − τ/S] + (1/β) log det(I + β √B M √B) ≃ (1/p) log det A (up to a constant)."""
    f = state.features
    sb = np.sqrt(state.b)
    H = np.eye(sb.size) + f.beta * (sb[:, None] * state.M * sb[None, :])
    sign, logdet = np.linalg.slogdet(H)
    if sign <= 0:
        raise ConvergenceError("typed prior: I + β√B M √B is not positive definite", state)
    return float(f.weights @ (np.log(state.S) - state.tau / state.S) + logdet / f.beta)


def spike_overlap_function(state: TypedPriorState, t_hat) -> np.ndarray:
    r"""t(κ) = β E_u[c(u) t̂(u) μ1(κ; u)/S(u)] for the spike field t̂(u_j) (K,)."""
    f = state.features
    return f.beta * ((f.weights * f.bulk * np.asarray(t_hat, dtype=float) / state.S) @ f.mu1)


def orthogonal_overlap_function(state: TypedPriorState, y) -> np.ndarray:
    r"""ψ(κ) = β (𝒱 y)_κ with y = B h̃1 (the orthogonal field ψ̂(u) = μ1(·; u)ᵀ y)."""
    return state.features.beta * (state.Vop @ np.asarray(y, dtype=float))


def _C_and_Psi(state: TypedPriorState):
    f = state.features
    S2 = state.S**2
    C = f.beta * f.bulk[:, None] * (f.weights * f.bulk / S2)[None, :] * state.P**2
    Psi = f.bulk[:, None] * state.A1**2 + f.mu2_sq
    return C, Psi, S2


def variance_response(state: TypedPriorState, s, y=None, g=None) -> np.ndarray:
    r"""q(κ) = −dV(κ) along B' = diag(s) + β y yᵀ, D' = Σ_a s_a μ2²(κ_a; ·) + g (see the module
    docstring); ``y`` and ``g`` default to 0."""
    f = state.features
    s = np.asarray(s, dtype=float)
    C, Psi, S2 = _C_and_Psi(state)
    rhs = Psi @ s
    q = f.beta * ((state.Vop**2) @ s)
    if y is not None:
        y = np.asarray(y, dtype=float)
        rhs = rhs + f.beta * f.bulk * (state.A1 @ y) ** 2
        q = q + (f.beta * (state.Vop @ y)) ** 2
    if g is not None:
        rhs = rhs + np.asarray(g, dtype=float)
    dS = np.linalg.solve(np.eye(f.K) - C, rhs)
    return q + ((f.weights / S2) * dS) @ Psi


def variance_operator(state: TypedPriorState) -> np.ndarray:
    r"""The n × n matrix 𝓛 of s ↦ q = −dV[diag(s), μ2²·s]: Ψᵀ diag(π/S²)(I − C)⁻¹ Ψ + β 𝒱∘𝒱."""
    f = state.features
    C, Psi, S2 = _C_and_Psi(state)
    X = np.linalg.solve(np.eye(f.K) - C, Psi)
    return ((f.weights / S2)[:, None] * Psi).T @ X + f.beta * state.Vop**2

