r"""K readout types: the prior traces as a block (operator-valued) Marchenko–Pastur problem.

Neuron j has type k(j) with proportion πₖ, bulk variance cₖ and spike r u⁽ᵏ⁾ (docs/spiked-rf.md, "K readout types").
The prior operator of the ridge readout is

    A = D + Ω ⊙ V̂1,   D = diag(λ_r + V̂2_k(j)),   (Ω ⊙ V̂1)_ij = Ω_ij V̂1_{k(i)k(j)},
    Ω = W̃ΠW̃ᵀ,  rows of W̃ of type k: √cₖ × (uniform on the sphere),

and the block order parameters are V2_k = (1/p) Σ_{i∈k} (A⁻¹)_ii, V1_kl = (1/p) tr(P_k Ω P_l A⁻¹),
Q2_k = ‖P_k a‖²/p, Q1_kl = aᵀP_kΩP_l a/p for a = A⁻¹b.

Deterministic equivalent (derived in :mod:`.block_mp_derivation`; checked against sampled matrices
in the tests). With τ ∈ ℝᴷ and Λ = diag(πₖ cₖ/(Dₖ + τₖ)):

    τₖ = cₖ [(I + β V̂1 Λ)⁻¹ V̂1]ₖₖ,          (self-energy of a type-k row)
    V2_k = πₖ/(Dₖ + τₖ),   V1 = (Λ⁻¹ + β V̂1)⁻¹.

These are the stationarity conditions and first derivatives of the free energy

    Φ(V̂1, D) = (1/p) log det A ≃ Σₖ πₖ [log(Dₖ + τₖ) − τₖ/(Dₖ + τₖ)] + (1/β) log det(I + β V̂1 Λ),

V2 = ∂Φ/∂D, V1 = ∂Φ/∂V̂1. For K = 1 they reduce to the MP equation of :mod:`.prior_mp`.
The second-order traces are directional derivatives (a = A⁻¹b with E bbᵀ = Σ_l g_l P_l +
Σ_ll' G_ll' P_lΩP_l' gives (Q1, Q2) = −d(V1, V2)[G, g]); with U = V1 V̂1 and δ = dD + dτ:

    (I − C) dτ = r + C dD,   rₖ = cₖ [(I − βUᵀ) G (I − βU)]ₖₖ,   C_kj = β cₖ U_jk²/(π_j c_j),
    dV1 = −V1 (diag(δ/(πc)) + β G) V1,   dV2_k = −πₖ δₖ/(Dₖ + τₖ)².

The mean sources enter as G = Q̂1 + β ψ̂ψ̂ᵀ, g = q̂2 + β c∘t̂², and t_k = β c_k V2_k t̂_k,
ψ = β V1 ψ̂ (the spike column W̃v is independent of Ω; W̃ζ is a typical column of W̃Π).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...solvers import SolverResult
from ...solvers.result import CONVERGED, STATUS_MESSAGES, Status
from .kernels import block_kernels

__all__ = [
    "BlockMPState",
    "block_self_energy",
    "block_traces",
    "block_tangent",
    "block_second_order_map",
    "solve_block_mp",
]


@dataclass(frozen=True)
class BlockMPState:
    """Solution of the block MP problem at (V̂1, D).

    Attributes: tau (K,), V1 (K, K), V2 (K,), Lam (K,) the diagonal of Λ, and the data
    V1hat, D, c, pi, beta.
    """

    tau: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    Lam: np.ndarray
    V1hat: np.ndarray
    D: np.ndarray
    c: np.ndarray
    pi: np.ndarray
    beta: float


def block_self_energy(tau, V1hat, D, c, pi, beta) -> np.ndarray:
    r"""The map τ ↦ c∘diag[(I + β V̂1 Λ(τ))⁻¹ V̂1], Λ = diag(π c/(D + τ))."""
    Lam = pi * c / (D + tau)
    K = Lam.size
    M = np.eye(K) + beta * V1hat * Lam[None, :]
    return c * np.diag(np.linalg.solve(M, V1hat))


def block_traces(tau, V1hat, D, c, pi, beta):
    r"""(V1, V2, Λ) from τ: V1 = (Λ⁻¹ + βV̂1)⁻¹, V2 = π/(D + τ)."""
    Lam = pi * c / (D + tau)
    V1 = np.linalg.inv(np.diag(1.0 / Lam) + beta * V1hat)
    V1 = 0.5 * (V1 + V1.T)
    return V1, pi / (D + tau), Lam


def solve_block_mp(V1hat, D, c, pi, beta, *, tau0=None, tol: float = 1e-13) -> BlockMPState:
    """Solve the self-energy equation for τ: Anderson acceleration (memory 5, the stagnation guard of
    :class:`asymptotics.solvers.Anderson`), compiled; a :class:`ConvergenceError` if it fails."""
    V1hat = np.atleast_2d(np.asarray(V1hat, dtype=float))
    D = np.asarray(D, dtype=float).reshape(-1)
    c = np.asarray(c, dtype=float).reshape(-1)
    pi = np.asarray(pi, dtype=float).reshape(-1)
    if np.any(D <= 0):
        raise ParameterError("D", D.tolist(), "> 0 (ridge plus V̂2 of every type)")
    x0 = c * np.diag(V1hat) if tau0 is None else np.asarray(tau0, dtype=float)
    # Anderson (memory 5) on τ ↦ block_self_energy(max(τ, 0)), compiled (``_block_template.py``)
    tau = np.array(x0, dtype=float, copy=True).reshape(-1)
    status, iterations, residual = block_kernels().solve_self_energy(
        np.ascontiguousarray(V1hat), D, c, pi, float(beta), tau, float(tol))
    if status != CONVERGED:
        res = SolverResult(value=tau, converged=False, iterations=int(iterations), residual=float(residual),
                           method="anderson", message=STATUS_MESSAGES[status], status=Status(status))
        raise ConvergenceError(f"anderson did not converge after {res.iterations} iteration(s): {res.message}; "
                               f"residual {res.residual:.3g}", res)
    tau = np.maximum(tau, 0.0)
    V1, V2, Lam = block_traces(tau, V1hat, D, c, pi, beta)
    return BlockMPState(tau, V1, V2, Lam, V1hat, D, c, pi, float(beta))


def block_tangent(state: BlockMPState, G, g):
    r"""(dV1, dV2): the derivative of (V1, V2) along (dV̂1, dD) = (G, g)."""
    V1, V1hat, beta = state.V1, state.V1hat, state.beta
    c, pi, D, tau = state.c, state.pi, state.D, state.tau
    K = c.size
    G = np.atleast_2d(np.asarray(G, dtype=float))
    g = np.asarray(g, dtype=float).reshape(-1)
    U = V1 @ V1hat
    IbU = np.eye(K) - beta * U
    r = c * np.diag(IbU.T @ G @ IbU)
    C = beta * c[:, None] * (U.T**2) / (pi * c)[None, :]
    dtau = np.linalg.solve(np.eye(K) - C, r + C @ g)
    delta = g + dtau
    dV1 = -V1 @ (np.diag(delta / (pi * c)) + beta * G) @ V1
    dV2 = -pi * delta / (D + tau) ** 2
    return 0.5 * (dV1 + dV1.T), dV2


def block_second_order_map(state: BlockMPState) -> np.ndarray:
    r"""The linear map (G, g) ↦ (Q1, Q2) = −d(V1, V2)[G, g] as a matrix acting on the vector
    (vec G (K², row-major), g (K)) → (vec Q1 (K²), Q2 (K)), assembled in closed form from the
    tangent equations of :func:`block_tangent` (for symmetric G it equals them exactly):

        dτ = (I − C)⁻¹ (R vec G + C g),  R[k, (a, b)] = cₖ N_ka N_kb,  N = I − βUᵀ,
        δ = g + dτ,  vec dV1 = −Wδ − β (V1 ⊗ V1) vec G,  W[(i, j), k] = V1_ik V1_kj/(πₖcₖ),
        dV2 = −diag(π/(D + τ)²) δ.
    """
    V1, V1hat, beta = state.V1, state.V1hat, state.beta
    c, pi, D, tau = state.c, state.pi, state.D, state.tau
    K = c.size
    U = V1 @ V1hat
    N = np.eye(K) - beta * U.T
    R = (c[:, None, None] * N[:, :, None] * N[:, None, :]).reshape(K, K * K)
    C = beta * c[:, None] * (U.T**2) / (pi * c)[None, :]
    Minv = np.linalg.inv(np.eye(K) - C)
    dG = Minv @ R                     # δ per unit G
    dg = np.eye(K) + Minv @ C         # δ per unit g
    W = (V1[:, None, :] * V1.T[None, :, :]).reshape(K * K, K) / (pi * c)[None, :]
    P = np.diag(pi / (D + tau) ** 2)
    L = np.empty((K * K + K, K * K + K))
    L[: K * K, : K * K] = W @ dG + beta * np.kron(V1, V1)
    L[: K * K, K * K:] = W @ dg
    L[K * K:, : K * K] = P @ dG
    L[K * K:, K * K:] = P @ dg
    return L
