r"""Dense linear algebra of the simulator: the ridge readout and extreme singular pairs.

Ridge (both protocols reduce to it). With unnormalised features F ∈ ℝ^{n×N} and a penalty ρ,

    b = argmin ‖y − F b‖² + ρ‖b‖² = (FᵀF + ρ I_N)⁻¹ Fᵀ y = Fᵀ (F Fᵀ + ρ I_n)⁻¹ y,

solved by Cholesky (LAPACK potrf and two triangular solves, never an inverse) in the **primal** form (an N×N system)
when N ≤ n and in the **dual** form (n×n) otherwise, with the Gram matrix formed by a symmetric
rank-k product. Ba et al.'s â = argmin (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖², Φ = F/√N, is b with ρ = nλ
and â = √N b, predictor f̂(x) = σ(Wᵀx)·b; Cui et al.'s â = argmin ‖y − Φa‖² + λ‖a‖², Φ = F/√p, is
b with ρ = pλ. The reciprocal condition number of the factor (LAPACK pocon) is returned; at ρ = 0
a singular Gram matrix (interpolation with N = n, or collinear features) falls back to the
minimum-norm solution by a symmetric eigendecomposition, and says so.

Extreme singular pairs use Lanczos (ARPACK, through ``scipy.sparse.linalg.eigsh``, relative
tolerance 1e-8) on the explicit Gram matrix of the smaller side (formed at BLAS-3 speed; each
iteration then reads one m×m matrix instead of M and Mᵀ), with a start vector from the run's
random streams (deterministic).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy.sparse.linalg import eigsh

from asymptotics.errors import DegenerateWarning

__all__ = ["RidgeSolution", "ridge_solve", "gram", "top_eigs", "top_singular", "top_eigenpair", "RCOND_WARN"]

#: Below this reciprocal condition number the ridge solution is flagged as inaccurate.
RCOND_WARN = 1e-12


@dataclass(frozen=True)
class RidgeSolution:
    """A solved ridge readout.

    Attributes:
        coef: b (length N), the predictor is x ↦ σ(Wᵀx)·b.
        form: ``primal`` (N×N system) or ``dual`` (n×n system).
        solver: ``cholesky`` or ``eigh`` (minimum-norm fallback at ρ = 0).
        rcond: reciprocal condition number of the regularised Gram matrix (1-norm estimate).
        train_error: (1/n)‖y − F b‖².
        top_eigenvalue: largest eigenvalue of FᵀF (= of FFᵀ), when asked for.
        top_vector_n: unit top eigenvector of the n×n Gram matrix FFᵀ, when asked for.
    """

    coef: np.ndarray
    form: str
    solver: str
    rcond: float
    train_error: float
    top_eigenvalue: float | None = None
    top_vector_n: np.ndarray | None = None


def top_eigenpair(K: np.ndarray, v0: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest eigenvalue and unit eigenvector of the symmetric matrix K (Lanczos)."""
    m = K.shape[0]
    if m <= 64:
        w, V = np.linalg.eigh(K)
        return float(w[-1]), V[:, -1].copy()
    w, V = eigsh(K, k=1, which="LA", v0=v0, tol=1e-10, ncv=min(m, 24))
    return float(w[0]), V[:, 0].copy()


def ridge_solve(
    F: np.ndarray, y: np.ndarray, penalty: float, *, v0: np.ndarray | None = None
) -> RidgeSolution:
    """Solve the ridge readout for features F (n×N), labels y and penalty ρ = ``penalty``.

    When ``v0`` (a start vector of length min(n, N)) is given, also the top eigenpair of the Gram
    matrix (computed before the penalty is added; the penalty shifts eigenvalues only).
    """
    n, N = F.shape
    primal = N <= n
    K = F.T @ F if primal else F @ F.T  # symmetric rank-k product (syrk)
    rhs = F.T @ y if primal else y.astype(float, copy=True)
    m = K.shape[0]
    top_val = top_vec = None
    if v0 is not None:
        top_val, vec = top_eigenpair(K, v0)
        if primal:
            vec = F @ vec
            nv = np.linalg.norm(vec)
            vec = vec / nv if nv > 0 else vec
        top_vec = vec
    K.flat[:: m + 1] += penalty
    anorm = float(np.abs(K).sum(axis=0).max())
    solver = "cholesky"
    try:
        L = np.linalg.cholesky(K)  # numpy's LAPACK: the same BLAS pool as the products
        del K
        rcond, info = sla.lapack.dpocon(L, anorm, uplo="L")
        rcond = float(rcond) if info == 0 else 0.0
        w = sla.solve_triangular(L, rhs, lower=True, check_finite=False)
        sol = sla.solve_triangular(L, w, lower=True, trans="T", check_finite=False, overwrite_b=True)
    except np.linalg.LinAlgError:
        # not positive definite: only possible at (numerically) zero penalty
        K = F.T @ F if primal else F @ F.T
        K.flat[:: m + 1] += penalty
        w, V = np.linalg.eigh(K)
        cut = max(abs(w[-1]), 1e-300) * m * np.finfo(float).eps
        inv = np.where(w > cut, 1.0 / np.where(w > cut, w, 1.0), 0.0)
        sol = V @ (inv * (V.T @ rhs))
        rcond = float(max(w[0], 0.0) / w[-1]) if w[-1] > 0 else 0.0
        solver = "eigh"
        warnings.warn(
            f"ridge Gram matrix ({'primal' if primal else 'dual'}, {m}×{m}) is singular at penalty {penalty:g}: "
            "using the minimum-norm solution",
            DegenerateWarning,
            stacklevel=2,
        )
    coef = sol if primal else F.T @ sol
    resid = y - F @ coef
    train_error = float(resid @ resid) / n
    return RidgeSolution(coef, "primal" if primal else "dual", solver, rcond, train_error, top_val, top_vec)


def gram(M: np.ndarray) -> tuple[np.ndarray, str]:
    """The Gram matrix of the smaller side of M (d×N): (M Mᵀ, "left") if d ≤ N, else (MᵀM, "right")
    (a symmetric rank-k product at BLAS-3 speed)."""
    d, N = M.shape
    return (M @ M.T, "left") if d <= N else (M.T @ M, "right")


def top_eigs(K: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The k largest eigenvalues (decreasing) and eigenvectors of the symmetric matrix K (Lanczos;
    dense eigh below 64×64). A dense Gram matrix is read once per iteration, half the memory traffic
    of applying M and Mᵀ."""
    m = K.shape[0]
    k = min(k, m)
    if m <= 64:
        w, V = np.linalg.eigh(K)
        return w[::-1][:k].copy(), V[:, ::-1][:, :k].copy()
    w, V = eigsh(K, k=k, which="LA", v0=rng.standard_normal(m), tol=1e-8, ncv=min(m, max(2 * k + 1, 24)))
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


def top_singular(M: np.ndarray, k: int = 2, *, rng: np.random.Generator, gram_matrix=None):
    """The k largest singular values of M (d×N), with the top left/right singular vectors.

    Returns (s, u1, v1), s decreasing, u1 ∈ ℝ^d and v1 ∈ ℝ^N unit vectors with ⟨u1, M v1⟩ = s1.
    ``gram_matrix`` = (K, side) from :func:`gram` when already computed.
    """
    K, side = gram_matrix if gram_matrix is not None else gram(M)
    w, V = top_eigs(K, k, rng)
    s = np.sqrt(np.maximum(w, 0.0))
    x = V[:, 0]
    if side == "left":
        u1, v1 = x, M.T @ x
        nv = np.linalg.norm(v1)
        v1 = v1 / nv if nv > 0 else v1
    else:
        v1, u1 = x, M @ x
        nu = np.linalg.norm(u1)
        u1 = u1 / nu if nu > 0 else u1
    return s, u1, v1
