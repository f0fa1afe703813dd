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

Extreme singular pairs use Lanczos (ARPACK, through ``scipy.sparse.linalg.eigsh``) on the Gram
operator of the smaller side, with a start vector from the run's random streams (deterministic).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy.sparse.linalg import LinearOperator, eigsh

from asymptotics.errors import DegenerateWarning

__all__ = ["RidgeSolution", "ridge_solve", "top_singular", "top_eigenpair", "RCOND_WARN"]

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
    w, V = eigsh(K, k=1, which="LA", v0=v0, tol=1e-12, ncv=min(m, 32))
    return float(w[0]), V[:, 0].copy()


def ridge_solve(F: np.ndarray, y: np.ndarray, penalty: float, *, v0: np.ndarray | None = None) -> RidgeSolution:
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


def top_singular(M, shape: tuple[int, int] | None = None, k: int = 2, *, rng: np.random.Generator):
    """The k largest singular values of M (d×N), with the top left/right singular vectors.

    ``M`` is an array or a pair ``(matvec, rmatvec)`` with ``shape``. Returns (s, u1, v1), s in
    decreasing order, u1 ∈ ℝ^d, v1 ∈ ℝ^N unit vectors (sign: ⟨u1, Mv1⟩ = s1 > 0).
    """
    if isinstance(M, np.ndarray):
        d, N = M.shape
        mv, rmv = (lambda x: M @ x), (lambda x: M.T @ x)
    else:
        mv, rmv = M
        d, N = shape
    small = min(d, N)
    k = min(k, small)
    if small <= 64 and isinstance(M, np.ndarray):
        U, s, Vt = np.linalg.svd(M, full_matrices=False)
        return s[:k].copy(), U[:, 0].copy(), Vt[0].copy()
    if d <= N:
        op = LinearOperator((d, d), matvec=lambda x: mv(rmv(x)), dtype=float)
    else:
        op = LinearOperator((N, N), matvec=lambda x: rmv(mv(x)), dtype=float)
    v0 = rng.standard_normal(small)
    w, V = eigsh(op, k=k, which="LA", v0=v0, tol=1e-10, ncv=min(small, max(2 * k + 1, 24)))
    order = np.argsort(w)[::-1]
    w, V = np.maximum(w[order], 0.0), V[:, order]
    s = np.sqrt(w)
    x = V[:, 0]
    if d <= N:
        u1 = x
        v1 = rmv(u1)
    else:
        v1 = x
        u1 = mv(v1)
    nv = np.linalg.norm(v1 if d <= N else u1)
    if d <= N:
        v1 = v1 / nv if nv > 0 else v1
    else:
        u1 = u1 / nv if nv > 0 else u1
    return s, u1, v1
