r"""The shared machinery of the protocols: gradient steps on the first layer, the ridge readout on
a fresh set, and the risk on a streamed test set.

A two-layer network is written f(x) = Σⱼ cⱼ σ(wⱼᵀx) with W = (w₁ … w_N) ∈ ℝ^{d×N} (neurons are
columns) and the *effective readout* c: c = a/√N in Ba et al., c = u/p (a⁰ = u/√p, f = aᵀσ/√p) in
Cui et al. The negative gradient of L = (1/2n)Σ(yᵢ − f(xᵢ))² with respect to W is

    G = (1/n) Xᵀ [ (r cᵀ) ⊙ σ'(XW) ],   r = y − f(X),

which is Ba's G₀ exactly; a step is W ← W + lr·G with lr = η√N (Ba) or η̃·p (Cui). Its rank-one
approximation (Ba's Prop. 2) is A = μ1 (1/n) Xᵀ r cᵀ.

Expectation over x. The risk R = E_x (f̂(x) − f*(x))² is estimated on ``n_test`` fresh Gaussian
points, streamed in chunks; the per-point errors give the test-set standard error, reported
separately from the seed-to-seed spread (which already contains it). Several readouts (W₀ and W₁)
are evaluated on the **same** points, so differences like δ = R0 − R1 have the small variance of
the paired differences. With Gaussian-equivalent features the predictor is linear in
(x, z): f̂(x) = μ0 Σb + μ1 ⟨Wb, x⟩ + μ2 ⟨b, z⟩, so the test points are drawn exactly in
distribution as the joint Gaussian vector (⟨β*, x⟩, ⟨W₀b₀, x⟩, ⟨W₁b₁, x⟩, ⟨b₀, z⟩, ⟨b₁, z⟩)
— no d-dimensional inputs needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from asymptotics.activations import Activation
from asymptotics.errors import AsymptoticsError

from .kernels import student_kernels
from .linalg import RidgeSolution, gram, ridge_solve, top_eigs
from .population import PopulationRisk, ge_population_risk, population_risk
from .rng import Streams
from .static_kernels import subtract_outer

__all__ = [
    "RunContext",
    "NonFiniteError",
    "MeanAccumulator",
    "train_first_layer",
    "ridge_readouts",
    "test_risks",
    "exact_risks",
]

#: Bytes of pre-activations per test chunk (bounded memory whatever n_test).
TEST_CHUNK_BYTES = 48 * 2**20


class NonFiniteError(AsymptoticsError, FloatingPointError):
    """A simulation produced NaN or inf (overflowing activation, divergent step, …)."""


def _finite(name: str, value):
    if not np.all(np.isfinite(value)):
        raise NonFiniteError(
            f"the simulation produced a non-finite {name}; the step size or the activation overflows "
            "(reduce eta, or check the activation on large arguments)"
        )
    return value


@dataclass
class RunContext:
    """Everything one seed of one run needs: streams, activations, compiled kernels, constants."""

    streams: Streams
    student: Activation
    teacher: Activation
    mu0: float = field(init=False)
    mu1: float = field(init=False)
    mu2: float = field(init=False)

    def __post_init__(self):
        k = self.student.constants()
        self.mu0, self.mu1, self.mu2 = float(k.mu0), float(k.mu1), float(k.mu2)
        self.kern = student_kernels(self.student)

    def target(self, proj: np.ndarray) -> np.ndarray:
        """f*(x) = σ*(⟨β*, x⟩) from the projections ⟨β*, x⟩."""
        return np.asarray(self.teacher.numpy(proj), dtype=float)

    def labelled_set(self, component: str, n: int, d: int, beta: np.ndarray, noise: float, sub: int = 0):
        """Inputs X (n×d, N(0, I)) and labels y = σ*(Xβ) + σ_ε ε of a data set."""
        X = self.streams.normal(component, (n, d), sub)
        y = self.target(X @ beta)
        if noise > 0:
            y = y + noise * self.streams.normal(component + "_noise", (n,), sub)
        return X, y


# ---- first layer ------------------------------------------------------------------------------
def train_first_layer(
    ctx: RunContext,
    W: np.ndarray,
    c: np.ndarray,
    beta: np.ndarray,
    *,
    n: int,
    lr: float,
    steps: int,
    gradient: str,
    batches: str,
    noise: float,
    measure_gradient: bool,
) -> dict:
    """Run ``steps`` gradient steps W ← W + lr·G (or lr·A) in place on training sets of n samples.

    Returns the first-gradient measurements when ``measure_gradient``: ``rank1_error`` =
    ‖G₀ − A₀‖_op/‖G₀‖_op with A₀ = μ1 Xᵀy cᵀ/n (Ba's A), ``gradient_sv_ratio`` = s₂(G₀)/s₁(G₀).
    """
    d, N = W.shape
    out: dict = {}
    X, y = ctx.labelled_set("train", n, d, beta, noise, 0)
    Z = np.empty((n, N))
    G = np.empty((d, N))
    f = np.empty(n)
    for t in range(steps):
        if t > 0 and batches == "fresh":
            X, y = ctx.labelled_set("train", n, d, beta, noise, t)
        exact = gradient != "rank1" or (t == 0 and measure_gradient)
        if exact or (gradient == "rank1" and t > 0):
            np.matmul(X, W, out=Z)
            if exact:
                target = y
                if gradient == "labels":  # r = y, not y − f(X): f(X) first, then r = (y + f) − f
                    ctx.kern.network_output(Z, c, f)
                    target = y + f
                ctx.kern.residual_gradient(Z, target, c, f)  # Z ← r cᵀ ⊙ σ'(XW), f ← f(X)
                np.matmul(X.T, Z, out=G)
                G *= 1.0 / n
                _finite("gradient", G)
            else:
                ctx.kern.network_output(Z, c, f)
        if t == 0 and measure_gradient:
            out.update(_gradient_measurements(ctx, G, X, y, c, n))
        if gradient != "rank1":
            G *= lr
            W += G
        else:
            r = y if t == 0 else y - f
            g = (ctx.mu1 / n) * (X.T @ r)
            subtract_outer(W, g, c, -lr)  # W ← W + lr μ1 (Xᵀr/n) cᵀ
        _finite("first-layer weights", W)
    return out


def _gradient_measurements(ctx: RunContext, G, X, y, c, n) -> dict:
    """s₂(G)/s₁(G) and ‖G − g cᵀ‖/‖G‖ with g = μ1 Xᵀy/n, from one Gram matrix: the Gram matrix of
    G − g cᵀ is a rank-two update of that of G."""
    K, side = gram(G)
    s = np.sqrt(np.maximum(top_eigs(K, 2, ctx.streams.generator("linalg", 0))[0], 0.0))
    g = (ctx.mu1 / n) * (X.T @ y)  # A = g cᵀ
    if side == "left":  # (G − gcᵀ)(G − gcᵀ)ᵀ = GGᵀ − (Gc)gᵀ − g(Gc)ᵀ + ‖c‖² ggᵀ
        p, q, w = G @ c, g, float(c @ c)
    else:  # (G − gcᵀ)ᵀ(G − gcᵀ) = GᵀG − (Gᵀg)cᵀ − c(Gᵀg)ᵀ + ‖g‖² ccᵀ
        p, q, w = G.T @ g, c, float(g @ g)
    subtract_outer(K, p, q, 1.0)
    subtract_outer(K, q, p, 1.0)
    subtract_outer(K, q, q, -w)
    sd = math.sqrt(max(top_eigs(K, 1, ctx.streams.generator("linalg", 1))[0][0], 0.0))
    s1 = float(s[0])
    return {
        "rank1_error": sd / s1 if s1 > 0 else math.nan,
        "gradient_sv_ratio": float(s[1]) / s1 if (s1 > 0 and len(s) > 1) else 0.0,
    }


# ---- readout ----------------------------------------------------------------------------------
@dataclass
class Readouts:
    """Ridge readouts of several first layers fitted on one fresh set."""

    coefs: np.ndarray  # K×N
    solutions: list[RidgeSolution]
    labels: np.ndarray  # the ridge labels ỹ


def ridge_readouts(
    ctx: RunContext,
    Ws: np.ndarray,
    beta: np.ndarray,
    *,
    n: int,
    penalty: float,
    noise: float,
    features: str,
    ck_index: int | None,
) -> Readouts:
    """Fit b_k = argmin ‖ỹ − F_k b‖² + ρ‖b‖², F_k = σ(X̃ W_k) (or its Gaussian equivalent), for
    each W_k = Ws[k] on one fresh set (X̃, ỹ) of n samples; the CK spectrum of readout
    ``ck_index`` is measured on the way."""
    K, d, N = Ws.shape
    X, y = ctx.labelled_set("ridge", n, d, beta, noise, 0)
    F = np.empty((n, N))
    xi = ctx.streams.normal("ridge_ge", (n, N), 0) if (features == "ge" and ctx.mu2 != 0.0) else None
    coefs = np.empty((K, N))
    sols = []
    for k in range(K):
        np.matmul(X, Ws[k], out=F)
        if features == "true":
            ctx.kern.apply_sigma(F)
        else:
            F *= ctx.mu1
            if ctx.mu2 != 0.0:
                F += ctx.mu2 * xi
            if ctx.mu0 != 0.0:
                F += ctx.mu0
        _finite("feature matrix", F)
        v0 = None
        if ck_index == k:
            v0 = ctx.streams.generator("linalg", 2).standard_normal(min(n, N))
        sol = ridge_solve(F, y, penalty, v0=v0)
        _finite("ridge coefficients", sol.coef)
        coefs[k] = sol.coef
        sols.append(sol)
    return Readouts(coefs, sols, y)


def ck_measurements(sol: RidgeSolution, labels: np.ndarray, n: int) -> dict:
    """ck_outlier = λ_max(σ(X̃W)ᵀσ(X̃W)/n); ck_label_alignment = squared cosine between the top
    eigenvector of the n×n Gram matrix and the centred ridge labels."""
    yc = labels - labels.mean()
    ny = float(yc @ yc)
    align = float(sol.top_vector_n @ yc) ** 2 / ny if ny > 0 else math.nan
    return {"ck_outlier": sol.top_eigenvalue / n, "ck_label_alignment": align}


# ---- test set ---------------------------------------------------------------------------------
class MeanAccumulator:
    """Streaming mean and variance of several columns (Chan's parallel update)."""

    def __init__(self, k: int):
        self.count = 0
        self.mean = np.zeros(k)
        self.m2 = np.zeros(k)

    def add(self, values: np.ndarray) -> None:
        m = values.shape[0]
        if m == 0:
            return
        mu = values.mean(axis=0)
        m2 = ((values - mu) ** 2).sum(axis=0)
        tot = self.count + m
        delta = mu - self.mean
        self.mean = self.mean + delta * (m / tot)
        self.m2 = self.m2 + m2 + delta**2 * (self.count * m / tot)
        self.count = tot

    def standard_error(self) -> np.ndarray:
        if self.count < 2:
            return np.full_like(self.mean, math.nan)
        return np.sqrt(self.m2 / (self.count - 1) / self.count)


@dataclass(frozen=True)
class TestRisks:
    """Test-set estimates: ``risk[k]`` = mean of (f̂_k − f*)², ``se[k]`` its test-set standard
    error; ``diff``/``diff_se`` for risk[0] − risk[1] (paired, when K ≥ 2)."""

    risk: np.ndarray
    se: np.ndarray
    diff: float | None
    diff_se: float | None
    n_test: int


def test_risks(
    ctx: RunContext, Ws: np.ndarray, coefs: np.ndarray, beta: np.ndarray, *, n_test: int, features: str
) -> TestRisks:
    """Risks E_x(f̂_k(x) − f*(x))² of the readouts ``coefs[k]`` on ``Ws[k]``, on n_test common
    fresh points."""
    K, d, N = Ws.shape
    acc = MeanAccumulator(K + 1 if K >= 2 else K)
    if features == "true":
        m = int(max(64, min(n_test, TEST_CHUNK_BYTES // (8 * (d + K * N)))))
        zbuf = np.empty(K * m * N)
        P = np.empty((m, K))
        for chunk, start in enumerate(range(0, n_test, m)):
            rows = min(m, n_test - start)
            X = ctx.streams.normal("test", (rows, d), chunk)
            fstar = ctx.target(X @ beta)
            Zc = zbuf[: K * rows * N].reshape(K, rows, N)  # contiguous for every chunk size
            for k in range(K):
                np.matmul(X, Ws[k], out=Zc[k])
            Pc = P[:rows]
            ctx.kern.predict_blocks(Zc, coefs, Pc)
            acc.add(_errors(Pc, fstar, K))
    else:
        # exact joint law of the projections the linear GE predictor depends on
        V = np.empty((d, K + 1))
        V[:, 0] = beta
        for k in range(K):
            V[:, k + 1] = Ws[k] @ coefs[k]
        proj_factor = _psd_factor(V.T @ V)
        noise_factor = _psd_factor(coefs @ coefs.T)
        g = ctx.streams.generator("test_ge", 0)
        m = 1 << 16
        for start in range(0, n_test, m):
            rows = min(m, n_test - start)
            proj = g.standard_normal((rows, K + 1)) @ proj_factor.T
            zb = g.standard_normal((rows, K)) @ noise_factor.T
            fstar = ctx.target(proj[:, 0])
            P = ctx.mu0 * coefs.sum(axis=1)[None, :] + ctx.mu1 * proj[:, 1:] + ctx.mu2 * zb
            acc.add(_errors(P, fstar, K))
    _finite("test risk", acc.mean)
    se = acc.standard_error()
    if K >= 2:
        return TestRisks(acc.mean[:K], se[:K], float(acc.mean[K]), float(se[K]), acc.count)
    return TestRisks(acc.mean, se, None, None, acc.count)


def _errors(P: np.ndarray, fstar: np.ndarray, K: int) -> np.ndarray:
    e = (P - fstar[:, None]) ** 2
    if K >= 2:
        return np.concatenate([e, (e[:, 0] - e[:, 1])[:, None]], axis=1)
    return e


def _psd_factor(C: np.ndarray) -> np.ndarray:
    """L with L Lᵀ = C for a symmetric positive semi-definite C (eigen-decomposition, clipped)."""
    w, V = np.linalg.eigh(C)
    return V * np.sqrt(np.clip(w, 0.0, None))[None, :]


# ---- exact population risk ------------------------------------------------------------------
def exact_risks(
    ctx: RunContext, Ws: np.ndarray, coefs: np.ndarray, beta: np.ndarray, *, features: str, rtol: float
) -> list[PopulationRisk]:
    """The exact population risks E_x(f̂_k(x) − f*(x))² of the readouts ``coefs[k]`` on ``Ws[k]``
    (:mod:`validation.simulator.population`): no test set."""
    out = []
    for k in range(Ws.shape[0]):
        if features == "ge":
            pr = ge_population_risk(Ws[k], coefs[k], beta, (ctx.mu0, ctx.mu1, ctx.mu2), ctx.teacher)
        else:
            pr = population_risk(Ws[k], coefs[k], beta, ctx.student, ctx.teacher, rtol=rtol)
        _finite("population risk", pr.risk)
        out.append(pr)
    return out
