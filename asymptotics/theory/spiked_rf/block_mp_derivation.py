r"""Derivation of the K-type (block) Marchenko–Pastur prior with the project's pencil engine.

The prior operator of the K-type readout (:mod:`.readout_types`) is

    A = D + 𝒳 (V̂1 ⊗ I_d) 𝒳ᵀ,    𝒳 = blockdiag(X_1, …, X_K),  X_k ∈ ℝ^{πₖp × d}, entries N(0, cₖ/d),

(the rows of type k of W̃; the projection Π removes one of d dimensions and is negligible). With a
factor V̂1 = L Lᵀ (lower triangular) it is the Schur complement onto the first K blocks of the
linear pencil (2K blocks, L = d; sizes βπ₁, …, βπ_K, 1, …, 1)

    Q = [ D          𝒳 (L ⊗ I) ]        (Q⁻¹)_{kk} = (A⁻¹)_{kk},
        [ (Lᵀ ⊗ I) 𝒳ᵀ    −I     ]        (Q⁻¹)_{FF} = −I + (Lᵀ ⊗ I) 𝒳ᵀ A⁻¹ 𝒳 (L ⊗ I),

i.e. X_k occurs with coefficient L_kj in block (k, K+j) and transposed with coefficient L_kj in
block (K+j, k). The matrix Dyson rule (:func:`asymptotics.symbolic.dyson_system`) gives the
equations for g_kk = tr(A⁻¹)_kk/(πₖp) and the K×K factor block G_F; in terms of the block order
parameters

    V2_k = πₖ g_kk,    V1 = L⁻ᵀ (G_F + I) L⁻¹ / β,

and eliminating G_F gives the closed forms used by :mod:`.readout_types`:
τₖ = 1/g_kk − Dₖ = cₖ[(I + βV̂1Λ)⁻¹V̂1]ₖₖ, Λ = diag(πₖcₖg_kk), V1 = (Λ⁻¹ + βV̂1)⁻¹. The tests
check that the numerical block-MP solution satisfies these engine-derived equations and that the
engine's implicit derivatives (with respect to Dₖ and the factor entries) equal the tangent
formulas of :func:`.readout_types.block_tangent` that give the second-order traces.

>>> sys_ = block_mp_system(1)
>>> sorted(str(u) for u in sys_.unknowns)
['g11', 'g22']
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from ...symbolic import EquationSystem, Gaussian, Pencil, dyson_system

__all__ = ["block_mp_symbols", "block_mp_pencil", "block_mp_system", "engine_values", "engine_residual"]


def block_mp_symbols(K: int) -> dict:
    """The sympy symbols of the K-type problem: D_k, c_k, pi_k, beta and the factor L (lower
    triangular K×K matrix of symbols l_k_j)."""
    D = sp.symbols(f"D1:{K + 1}", positive=True)
    c = sp.symbols(f"c1:{K + 1}", positive=True)
    pi = sp.symbols(f"pi1:{K + 1}", positive=True)
    beta = sp.Symbol("beta", positive=True)
    L = sp.Matrix(K, K, lambda k, j: sp.Symbol(f"l_{k + 1}_{j + 1}") if j <= k else 0)
    return {"D": D, "c": c, "pi": pi, "beta": beta, "L": L}


def block_mp_pencil(K: int) -> Pencil:
    """The 2K-block linear pencil of the K-type prior operator (module docstring)."""
    s = block_mp_symbols(K)
    gs = []
    for k in range(K):
        for j in range(k + 1):
            lkj = s["L"][k, j]
            gs.append(Gaussian(f"X{k + 1}", k + 1, K + j + 1, lkj))
            gs.append(Gaussian(f"X{k + 1}", K + j + 1, k + 1, lkj, transpose=True))
    return Pencil(
        name=f"block_mp_{K}",
        sizes=tuple(s["beta"] * p for p in s["pi"]) + (1,) * K,
        q0=sp.diag(*s["D"], *([-1] * K)),
        gaussians=tuple(gs),
        variances={f"X{k + 1}": s["c"][k] for k in range(K)},
        description="K-type prior operator D + X (LL^T ⊗ I) X^T: g_kk = tr(A^{-1})_kk/(pi_k p)",
    )


@lru_cache(maxsize=8)
def block_mp_system(K: int) -> EquationSystem:
    """The matrix Dyson equations of :func:`block_mp_pencil`, with outputs V2_k = πₖ g_kk."""
    P = block_mp_pencil(K)
    s = block_mp_symbols(K)
    G = {u.name: u for u in dyson_system(P).unknowns}
    outputs = {f"V2_{k + 1}": s["pi"][k] * G[f"g{k + 1}{k + 1}" if 2 * K <= 9 else f"g_{k + 1}_{k + 1}"]
               for k in range(K)}
    return dyson_system(P, outputs=outputs)


def _gname(i, j, B):
    return f"g{i}{j}" if B <= 9 else f"g_{i}_{j}"


def engine_values(K: int, V1hat, D, c, pi, beta, V1, V2) -> tuple[dict, dict]:
    """Numerical values of the engine's unknowns g and parameters, from a block-MP solution
    (V1, V2) at (V̂1, D, c, π, β): g_kk = V2_k/πₖ and G_F = −I + β Lᵀ V1 L with L = chol(V̂1)."""
    s = block_mp_symbols(K)
    L = np.linalg.cholesky(np.asarray(V1hat, dtype=float))
    GF = -np.eye(K) + beta * L.T @ np.asarray(V1) @ L
    B = 2 * K
    g = {}
    for k in range(K):
        g[sp.Symbol(_gname(k + 1, k + 1, B))] = V2[k] / pi[k]
    for i in range(K):
        for j in range(K):
            g[sp.Symbol(_gname(K + i + 1, K + j + 1, B))] = GF[i, j]
    par = {s["beta"]: beta}
    for k in range(K):
        par[s["D"][k]] = D[k]
        par[s["c"][k]] = c[k]
        par[s["pi"][k]] = pi[k]
        for j in range(k + 1):
            par[s["L"][k, j]] = L[k, j]
    return g, par


def engine_residual(K: int, V1hat, D, c, pi, beta, V1, V2) -> float:
    """Largest residual of the engine-derived Dyson equations at a numerical block-MP solution."""
    system = block_mp_system(K)
    g, par = engine_values(K, V1hat, D, c, pi, beta, V1, V2)
    vals = {**g, **par}
    res = [float(sp.N(e.xreplace(vals))) for e in system.equations]
    return max(abs(r) for r in res)
