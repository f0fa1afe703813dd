r"""The exact population risk of a trained network, without a test set.

For Gaussian inputs x ~ N(0, I_d), a first layer W = (w₁ … w_N) ∈ ℝ^{d×N}, a readout b and the
target f*(x) = σ*(⟨β, x⟩), ‖β‖ = 1, the predictor f̂(x) = Σᵢ bᵢ σ(wᵢ·x) has the risk

    R = E (f̂ − f*)² = bᵀ K b − 2 bᵀ k + E σ*(z)²,
    K_ij = E σ(wᵢ·x) σ(wⱼ·x),   kᵢ = E σ(wᵢ·x) σ*(⟨β, x⟩),

two-dimensional Gaussian expectations of (‖wᵢ‖², ‖wⱼ‖², wᵢ·wⱼ): everything follows from the Gram
matrix C = WᵀW (d·N² work instead of the n_test·d·N of a test set). Label noise does not enter:
both protocols define the test risk against the noiseless target.

**Closed forms.** For σ ∈ {erf, relu, sin, linear} K_ij is a closed-form function of
(C_ii, C_jj, C_ij) (:mod:`validation.simulator.dual_kernels`): exact, no truncation. For
Gaussian-equivalent features f̂ = μ0 Σb + μ1 ⟨Wb, x⟩ + μ2 ⟨b, z⟩ the risk is a quadratic form
in Gaussians: R = (μ0Σb)² + μ1²‖Wb‖² + μ2²‖b‖² − 2μ0μ0*Σb − 2μ1μ1*⟨Wb, β⟩ + E σ*².

**Conditioned Hermite expansion (any σ).** After a step the neurons share an O(1) component along
the learned direction, so the correlations ρ_ij = wᵢ·wⱼ/(‖wᵢ‖‖wⱼ‖) are not small and a Mehler
series in ρ_ij converges slowly. Let U ∈ ℝ^{d×m} be orthonormal (the top eigen-directions of the
column-normalised Gram matrix that stand out of the bulk: m = 0, 1 or 2), κ = Uᵀx ~ N(0, I_m),
wᵢ = U bᵢ + hᵢ with hᵢ ⟂ U, tᵢ = ‖hᵢ‖, ρ̃_ij = hᵢ·hⱼ/(tᵢtⱼ). Then wᵢ·x = bᵢ·κ + tᵢ ξᵢ with
(ξᵢ) standard Gaussians independent of κ, correlated by ρ̃_ij = O(d^{-1/2}), and Mehler's formula
conditionally on κ gives, for i ≠ j,

    K_ij = Σ_{k≥0} E_κ[ a_k(i|κ) a_k(j|κ) ] ρ̃_ij^k,   a_k(i|κ) = E_ξ[σ(bᵢ·κ + tᵢξ) hₖ(ξ)],

hₖ = Heₖ/√k!. Summed with the readout, the order-k term is E_κ[vₖ(κ)ᵀ (R̃^∘k − I) vₖ(κ)] with
vₖ(κ) = b ∘ aₖ(·|κ) and R̃^∘k the entrywise power (zero diagonal): BLAS-3 products of the N×N
matrix R̃^∘k with the few vectors vₖ(κ_q) of a quadrature in κ (compressed to their numerical
rank). The diagonal is exact: K_ii = E σ(‖wᵢ‖z)², one-dimensional.

**Truncation bound.** With τᵢ(κ)² = E_ξσ² − Σ_{k≤K} aₖ(i|κ)² (the tail energy, Parseval) and
Cauchy–Schwarz on the tail, |Σ_{k>K} aₖ(i)aₖ(j)ρ̃^k| ≤ |ρ̃|^{K+1} τᵢτⱼ, so the error of the
truncated quadratic form is at most

    E_κ Σ_{i≠j} |bᵢ|τᵢ(κ) |ρ̃_ij|^{K+1} |bⱼ|τⱼ(κ),

evaluated with |ρ̃|^{K+1} ≤ ρ̃^K·max|ρ̃| (K even) or = ρ̃^{K+1} (K odd): one more quadratic form
with a non-negative matrix already at hand. Orders are added until the bound is below
``rtol``·E σ*² (default 10⁻¹⁰), at most 60 (:mod:`validation.simulator.hermite`).

**Quadrature.** Every expectation uses composite Gauss–Legendre rules
(:mod:`validation.simulator.quadrature`): inner rule in ξ per point (split at kinks of σ), an
adaptive rule in κ driven by the neurons with the largest ‖bᵢ‖/tᵢ, checked against the exact
one-dimensional E σ(‖wᵢ‖z)² and E σ(‖wᵢ‖z) of **every** neuron (``quadrature_error``).

**Cross term.** Conditionally on κ, ⟨β, x⟩ = β_U·κ + ‖β_⊥‖η with η correlated with ξᵢ by
rᵢ = hᵢ·β/(tᵢ‖β_⊥‖), so kᵢ = Σ_k E_κ[aₖ(i|κ) a*ₖ(κ)] rᵢ^k with the teacher's conditional
coefficients a*ₖ(κ) = E_η[σ*(β_U·κ + ‖β_⊥‖η)hₖ(η)] (no new evaluation of σ), the tail bounded by
|rᵢ|^{K+1} E_κ[τᵢτ*]. Neurons with |rᵢ| > 1/4 get the two-dimensional integral
kᵢ = E_z[σ*(z) a₀(ρᵢ‖wᵢ‖z; ‖wᵢ‖√(1−ρᵢ²))], ρᵢ = ⟨wᵢ, β⟩/‖wᵢ‖ (adaptive rule in z split at the
kinks of σ*); with a closed-form student and no conditioning the same with Mehler's series in ρᵢ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from asymptotics.activations import Activation

from .cross_term import MEHLER_RHO, QUAD_RTOL, cross_two_dim
from .dual_kernels import CLOSED_FORMS, dual_quadratic_rows, pair_kernel
from .hermite import hermite_risk
from .kernels import population_kernels
from .quadrature import HALF_RANGE, adaptive_rule, conditional_coefficients, inner_edges

__all__ = ["PopulationRisk", "population_risk", "ge_population_risk", "teacher_moments", "teacher_hermite"]

@dataclass(frozen=True)
class PopulationRisk:
    """The exact population risk of one readout.

    Attributes:
        risk: E_x (f̂(x) − f*(x))².
        bound: rigorous bound on the Hermite truncation error of ``risk`` (0 for closed forms).
        quadrature_error: largest error of the quadrature in κ against the exact one-dimensional
            integrals E σ(‖wᵢ‖z)², E σ(‖wᵢ‖z) of every neuron, times Σᵢ bᵢ² (0 for closed forms).
        orders: Hermite orders K used (−1 for closed forms).
        method: ``ge`` (Gaussian-equivalent features), ``dual-<name>`` (closed-form dual
            kernel) or ``hermite`` (conditioned Hermite expansion).
        conditioning: m, the number of conditioning directions.
        rho_max: max |ρ̃_ij| of the residual correlations (NaN for closed forms).
        kappa_nodes: nodes of the quadrature in κ.
        target_energy: E σ*(z)².
    """

    risk: float
    bound: float = 0.0
    quadrature_error: float = 0.0
    orders: int = -1
    method: str = "hermite"
    conditioning: int = 0
    rho_max: float = math.nan
    kappa_nodes: int = 1
    target_energy: float = math.nan

    def as_dict(self, tag: str = "") -> dict:
        return {
            f"risk_bound{tag}": self.bound,
            f"risk_quadrature_error{tag}": self.quadrature_error,
            f"hermite_orders{tag}": self.orders,
            f"risk_method{tag}": self.method,
            f"conditioning{tag}": self.conditioning,
            f"rho_max{tag}": self.rho_max,
            f"kappa_nodes{tag}": self.kappa_nodes,
        }


# ---- the teacher ----------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def teacher_moments(teacher: Activation) -> tuple[float, float, float]:
    """(E σ*(z), E z σ*(z), E σ*(z)²) by an adaptive rule split at the kinks of σ*."""

    def fn(z):
        f = np.asarray(teacher.numpy(z), dtype=float)
        return np.stack([f, z * f, f * f])

    x, w = adaptive_rule(fn, np.linspace(-HALF_RANGE, HALF_RANGE, 7), kinks=teacher.kinks, rtol=QUAD_RTOL)
    f = np.asarray(teacher.numpy(x), dtype=float)
    return float(w @ f), float(w @ (x * f)), float(w @ (f * f))


def ge_population_risk(W, coef, beta, mu: tuple[float, float, float], teacher: Activation) -> PopulationRisk:
    """The exact risk of the Gaussian-equivalent predictor μ0Σb + μ1⟨Wb, x⟩ + μ2⟨b, z⟩."""
    mu0, mu1, mu2 = mu
    t0, t1, t2 = teacher_moments(teacher)
    v = W @ coef
    sb = float(coef.sum())
    risk = (mu0 * sb) ** 2 + mu1**2 * float(v @ v) + mu2**2 * float(coef @ coef)
    risk += -2 * mu0 * t0 * sb - 2 * mu1 * t1 * float(v @ beta) + t2
    return PopulationRisk(risk, method="ge", target_energy=t2)


# ---- the network ----------------------------------------------------------------------------------
def population_risk(
    W: np.ndarray, coef: np.ndarray, beta: np.ndarray, student: Activation, teacher: Activation, *,
    rtol: float = 1e-10, gram: np.ndarray | None = None, closed_form: bool = True,
) -> PopulationRisk:  # fmt: skip
    """The exact population risk of x ↦ Σᵢ coefᵢ σ(wᵢ·x) for the target σ*(⟨β, x⟩).

    Args:
        W: d×N first layer (columns are neurons).
        coef: the readout b (length N).
        beta: unit target direction.
        student, teacher: σ and σ* as used (centred or not).
        rtol: truncation tolerance relative to E σ*(z)².
        gram: WᵀW when already formed; it is overwritten.
        closed_form: use the closed-form dual kernel when σ has one (False: the conditioned
            Hermite expansion for every σ, e.g. to check one against the other).
    """
    target = teacher_moments(teacher)[2]
    C = W.T @ W if gram is None else gram
    s2 = np.ascontiguousarray(np.diag(C)).copy()
    proj = W.T @ beta
    if closed_form and student.builtin in CLOSED_FORMS:
        cross, cross_bound = _cross_term(proj, coef, s2, student, teacher, closed_form)
        rows = np.empty(C.shape[0])
        dual_quadratic_rows(C, coef, CLOSED_FORMS[student.builtin], float(student.offset), rows)
        quad = float(rows.sum())
        return PopulationRisk(
            quad - 2 * cross + target, 2 * cross_bound, method=f"dual-{student.builtin}", target_energy=target
        )
    h = hermite_risk(C, coef, s2, proj, student, teacher, rtol * target, W.shape[0])
    return PopulationRisk(
        h["quad"] - 2 * h["cross"] + target, h["bound"] + 2 * h["cross_bound"], h["quad_error"], h["orders"],
        "hermite", h["m"], h["rho_max"], h["nodes"], target,
    )  # fmt: skip


#: Orders of that series (0.25^{25} ≈ 10⁻¹⁵; the tail is bounded and reported).
MEHLER_ORDER = 24


@lru_cache(maxsize=64)
def teacher_hermite(teacher: Activation, K: int = MEHLER_ORDER) -> np.ndarray:
    """a*_k = E[σ*(z) h_k(z)], k = 0 … K (adaptive rule split at the kinks of σ*)."""
    from .quadrature import hermite_table

    def fn(z):
        return hermite_table(z, K) * np.asarray(teacher.numpy(z), dtype=float)[None, :]

    x, w = adaptive_rule(fn, np.linspace(-HALF_RANGE, HALF_RANGE, 7), kinks=teacher.kinks, rtol=QUAD_RTOL)
    return fn(x) @ w


def _cross_term(proj, coef, s2, student: Activation, teacher: Activation, closed_form: bool = True):
    """(bᵀk, a bound on its truncation error), kᵢ = E σ(wᵢ·x) σ*(⟨β, x⟩), from proj = Wᵀβ and the
    squared norms s2 (used with a closed-form student; the Hermite path conditions it as K).

    With ρᵢ = ⟨wᵢ, β⟩/‖wᵢ‖: for |ρᵢ| ≤ MEHLER_RHO Mehler's series kᵢ = Σ_k a_k(‖wᵢ‖) a*_k ρᵢ^k
    (a_k(s) = E[σ(sz)h_k(z)]), truncated after MEHLER_ORDER with the tail bounded by
    |ρᵢ|^{K+1} τᵢ τ* (Cauchy–Schwarz, τ² the tail energies); otherwise the two-dimensional
    integral kᵢ = E_z[σ*(z) a₀(ρᵢ‖wᵢ‖z; ‖wᵢ‖√(1 − ρᵢ²))] by an adaptive rule in z.
    """
    if closed_form and student.builtin in CLOSED_FORMS and student.builtin == teacher.builtin:
        k = pair_kernel(student.builtin, s2, 1.0, proj, float(student.offset), float(teacher.offset))
        return float(coef @ k), 0.0
    s = np.sqrt(s2)
    rho = np.clip(proj / np.where(s > 0, s, 1.0), -1.0, 1.0)
    kern = population_kernels(student)
    kinks = np.asarray(student.kinks, dtype=float)
    total, bound = 0.0, 0.0
    small = np.abs(rho) <= MEHLER_RHO
    if np.any(small):
        K = MEHLER_ORDER
        ss = s[small]
        edges = inner_edges(kern, kinks, [ss.min(), ss.max(), float(np.median(ss))], orders=K)
        A, S = conditional_coefficients(kern, np.zeros(ss.size), ss, edges, kinks, K)
        astar = teacher_hermite(teacher, K)
        powers = rho[small][None, :] ** np.arange(K + 1)[:, None]
        total += float(coef[small] @ np.einsum("kn,k,kn->n", A, astar, powers))
        tau = np.sqrt(np.maximum(S - np.sum(A**2, axis=0), 0.0))
        tau_star = math.sqrt(max(teacher_moments(teacher)[2] - float(astar @ astar), 0.0))
        bound += float(np.abs(coef[small]) @ (np.abs(rho[small]) ** (K + 1) * tau)) * tau_star
    big = np.flatnonzero(~small)
    if big.size:
        total += cross_two_dim(coef[big], rho[big] * s[big], s[big] * np.sqrt(np.maximum(0.0, 1.0 - rho[big] ** 2)),
                               student, teacher)  # fmt: skip
    return total, bound
