r"""The spectra after a large step (Ba et al. with η = c√N, or Cui et al.): the bulks as
mixtures and the outliers, which grow like the width N.

**The network as a typed spiked RF** (``docs/large-step-exact.md``, ``docs/spiked-rf.md``).
Neuron i has a type uᵢ (Ba: uᵢ = √N aᵢ ~ N(0, 1); Cui: uᵢ = 1), a spike r uᵢ along
v = ĝ/‖ĝ‖ (⟨v, β*⟩ = γ) and a bulk of variance c(uᵢ) = 1 + c² uᵢ² E y² Var σ'(z)/ψ1
(Cui: c = 1 + η̃² E y² Var σ'/α0); W₁ = W̃ + r v uᵀ (Ba orientation).

**Weights.** The bulk W̃ᵀW̃ is the typed Gram of :class:`.mixture.TypedGramBulk` (stated map,
isotropic increments: an open hypothesis at strong steps). The spike has θ² = r²‖u‖² ≈ r² N E u²
and, by second-order perturbation in 1/θ (derived),

    λ₁(W₁ᵀW₁) = θ² + E[u² c(u)]/E[u²] + ψ2 E[c(u)] + O(θ⁻¹)  (plus a mean-zero O(1) fluctuation),
    ⟨v₁, u/‖u‖⟩² ≈ θ²/(θ² + ψ2 E c),  ⟨u₁, v⟩² ≈ θ²/(θ² + E[u²c]/E u²),  ⟨u₁, β*⟩² ≈ γ² ⟨u₁, v⟩².

**Conjugate kernel, conditional Gaussian equivalence.** The bulk is the κ-mixture of
:class:`.mixture.KappaMixtureBulk`. The mean part M_{μi} = μ0(κ_μ; uᵢ) of the features has
(1/n)MᵀM → the kernel matrix K(uᵢ, uⱼ) = E_κ[μ0(κ; uᵢ) μ0(κ; uⱼ)], whose eigenvalues are N λ_k
with λ_k the eigenvalues of the integral operator (Kφ)(u) = E_{u'}[K(u, u') φ(u')]; these are the
outliers, to leading order in N (derived; the O(1) corrections are open). Eigenvectors: φ_k(uᵢ)
in neuron space, f_k(κ) = E_u[μ0(κ; u) φ_k(u)]/√λ_k (E f_k² = 1) in sample space, hence

    readout: (E_u[u φ_k])²/E u²,   labels: (E_κ[f_k h])²/E y²,   teacher: (E_κ[f_k h])²/E σ*²,
    teacher_linear: γ² (E_κ[κ f_k])²,    h(κ) = E[σ*(β*·x) | κ].

For Cui's uniform readout there is one such outlier, at N E_κ[μ0(κ)²], along the readout.

**Conjugate kernel, Gaussian equivalence** (the hypothesis, for comparison): features
μ1 X̃W₁ + μ2 Z. The bulk is the κ-mixture with constant μ1, μ2 (one κ node) and the types c(u);
the population spike ℓ = μ1²θ² + μ2² makes an outlier at ℓ + O(1), so
λ₁/N → μ1² r² E u², with labels γ² μ1*²/E y², teacher γ² μ1*²/E σ*², teacher_linear γ²,
readout 1 (the θ → ∞ limits of the η = Θ(1) formulas).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...gaussian import hermite_rule
from ..spiked_rf.cget import cget_coefficients, kappa_rule, target_functions
from ..spiked_rf.mapping import bulk_variance
from .branch import BranchContinuation
from .mixture import KappaMixtureBulk, TypedGramBulk
from .protocols import BaStep, CuiStep
from .result import Outlier

__all__ = ["LargeStepFeatures", "large_step_features", "weights_bulk_large", "weights_outlier_large",
           "ck_bulk_large", "ck_outliers_large"]

#: mixtures continue with bigger steps in height (Newton is robust there) to save work
MIXTURE_CONFIG = BranchContinuation(ratio=0.2)


@dataclass(frozen=True)
class LargeStepFeatures:
    """The typed spiked RF of a large step, tabulated on a κ rule and a type rule.

    Attributes:
        kappa, kappa_weights: the κ rule (Gauss–Hermite, weights summing to 1).
        types, type_weights: type values u_j and weights π_j.
        bulk: c(u_j). r: spike strength (type u has spike r u). gamma: ⟨v, β*⟩.
        mu0, mu1, mu2_sq: cGET coefficients (K, A).
        h: E[σ*(β*·x) | κ] on the κ nodes.
        label_energy: E y² = E σ*² + σ_ε². teacher_energy: E σ*². teacher_mu1: μ1*.
        student_mu1, student_mu2_sq: μ1, μ2² of σ.
    """

    kappa: np.ndarray
    kappa_weights: np.ndarray
    types: np.ndarray
    type_weights: np.ndarray
    bulk: np.ndarray
    r: float
    gamma: float
    mu0: np.ndarray
    mu1: np.ndarray
    mu2_sq: np.ndarray
    h: np.ndarray
    label_energy: float
    teacher_energy: float
    teacher_mu1: float
    student_mu1: float
    student_mu2_sq: float

    def as_dict(self) -> dict:
        return {"r": self.r, "gamma": self.gamma, "kappa_nodes": int(self.kappa.size), "types": int(self.types.size),
                "bulk_min": float(self.bulk.min()), "bulk_max": float(self.bulk.max())}


def _type_rule(step, types: int):
    if isinstance(step, CuiStep):
        return np.ones(1), np.ones(1)
    if not (isinstance(types, (int, np.integer)) and 1 <= types <= 512):
        raise ParameterError("types", types, "an integer in [1, 512]")
    u, w = hermite_rule(int(types))
    return np.asarray(u, float), np.asarray(w, float)


def _bulk_variances(step, u):
    cs = step.student.constants()
    ey2 = step.teacher.constants().second_moment + step.noise**2
    if isinstance(step, CuiStep):
        return np.full(u.size, step.srf.c)
    return np.array([bulk_variance(step.eta, step.psi1, cs.var_derivative, ey2, float(ui)) for ui in u])


def _spike(step):
    if isinstance(step, CuiStep):
        p = step.srf
        return p.r, p.gamma
    s = math.sqrt(step.gradient_norm_sq)
    return step.eta * step.model.mu1 * s, (step.model.mu1_star / s if s > 0 else 0.0)


def large_step_features(step, *, types: int = 8, kappa_nodes: int = 32) -> LargeStepFeatures:
    """Tabulate the typed spiked RF of a large step (``types`` Gauss–Hermite readout types for Ba,
    one type for Cui; ``kappa_nodes`` Gauss–Hermite nodes in κ)."""
    if isinstance(step, BaStep) and step.regime != "large":
        raise ParameterError("regime", step.regime, "'large' for the large-step spectra")
    if not (isinstance(kappa_nodes, (int, np.integer)) and 4 <= kappa_nodes <= 400):
        raise ParameterError("kappa_nodes", kappa_nodes, "an integer in [4, 400]")
    u, pi = _type_rule(step, types)
    c = _bulk_variances(step, u)
    r, gamma = _spike(step)
    rule = kappa_rule("hermite", int(kappa_nodes))
    co = cget_coefficients(step.student, r * u, c, rule.nodes)
    tf = target_functions(step.teacher, float(np.clip(gamma, -1.0, 1.0)), rule.nodes)
    ct, cs = step.teacher.constants(), step.student.constants()
    return LargeStepFeatures(rule.nodes, rule.weights, u, pi, c, float(r), float(gamma), co.mu0, co.mu1, co.mu2_sq,
                             tf.h, float(ct.second_moment + step.noise**2), float(ct.second_moment), float(ct.mu1),
                             float(cs.mu1), float(cs.mu2_sq))


# ---------------------------------------------------------------------------------- weights
def weights_bulk_large(step, *, types: int = 64) -> TypedGramBulk:
    """The bulk W̃ᵀW̃ after a large step (typed Gram; Cui: c·MP(β))."""
    u, pi = _type_rule(step, types)
    c = _bulk_variances(step, u)
    live = pi > 1e-12
    scale = 1.02 * float(np.max(c[live])) * (1 + math.sqrt(step.width_ratio)) ** 2
    return TypedGramBulk(step.width_ratio, c, pi, scale, label="typed Gram of the trained bulk", config=MIXTURE_CONFIG)


def weights_outlier_large(step, bulk: TypedGramBulk, width: float) -> Outlier:
    """The spike of W₁ᵀW₁ after a large step (module docstring); ``width`` = N (``inf``: the limit)."""
    r, gamma = _spike(step)
    u, pi = _type_rule(step, bulk.variances.size)
    Eu2 = float(pi @ u**2)
    Euc = float(pi @ (u**2 * bulk.variances)) / Eu2
    Ec = float(pi @ bulk.variances)
    per_width = r**2 * Eu2
    if math.isinf(width):
        ov = {"teacher": gamma**2, "gradient": 1.0, "readout": 1.0}
        loc = None
    else:
        th = per_width * width
        grad = th / (th + Euc)
        ov = {"teacher": gamma**2 * grad, "gradient": grad, "readout": th / (th + step.width_ratio * Ec)}
        loc = th + Euc + step.width_ratio * Ec
    return Outlier(loc, ov, per_width, None, per_width, "N",
                   "θ² + E[u²c]/E u² + ψ2 E c, θ² = r²N E u² (second-order perturbation in 1/θ)")


# ---------------------------------------------------------------------------------- CK
def _ck_scale(mu1, mu2_sq, c, live, psi1, psi2):
    top = np.max((mu1**2 * c[:, None] * (1 + math.sqrt(psi2)) ** 2 + mu2_sq)[live])
    return 1.05 * float(top) * (1 + math.sqrt(psi2 / psi1)) ** 2


def ck_bulk_large(step, feats: LargeStepFeatures, equivalence: str = "conditional") -> KappaMixtureBulk:
    """The CK bulk after a large step: the κ-mixture (``conditional``) or the Gaussian-equivalent
    features with the trained weights (``gaussian``: constant μ1, μ2, one κ node)."""
    p1, p2 = step.sample_ratio, step.width_ratio
    live = feats.type_weights > 1e-12
    if equivalence == "conditional":
        mu1, mu2, w = feats.mu1, feats.mu2_sq, feats.kappa_weights
        label = "κ-mixture (conditional Gaussian equivalence) of the large-step CK"
    elif equivalence == "gaussian":
        K = feats.types.size
        mu1 = np.full((K, 1), feats.student_mu1)
        mu2 = np.full((K, 1), feats.student_mu2_sq)
        w = np.ones(1)
        label = "Gaussian-equivalent CK with the large-step weights"
    else:
        raise ParameterError("equivalence", equivalence, "'conditional' or 'gaussian'")
    scale = _ck_scale(mu1, mu2, feats.bulk, live, p1, p2)
    return KappaMixtureBulk(p1, p2, np.asarray(w, float), mu1, mu2, feats.bulk, feats.type_weights, scale,
                            label=label, config=MIXTURE_CONFIG)


def ck_outliers_large(step, feats: LargeStepFeatures, width: float, *, equivalence: str = "conditional",
                      count: int = 3, right_edge: float | None = None) -> tuple:
    """The CK outliers after a large step, largest first (module docstring). At a finite width
    only those with N λ above the bulk's right edge are kept."""
    u, pi = feats.types, feats.type_weights
    Eu2 = float(pi @ u**2)
    if equivalence == "gaussian":
        per_width = feats.student_mu1**2 * feats.r**2 * Eu2
        g2 = feats.gamma**2
        ov = {"labels": g2 * feats.teacher_mu1**2 / feats.label_energy,
              "teacher": g2 * feats.teacher_mu1**2 / feats.teacher_energy,
              "teacher_linear": g2, "readout": 1.0}
        out = [Outlier(None if math.isinf(width) else per_width * width, ov, per_width, None, per_width, "N",
                       "population spike μ1²θ² of μ1²W₁ᵀW₁ + μ2² (θ → ∞ limit of the η = Θ(1) CK outlier)")]
    else:
        Kmat = (feats.mu0 * feats.kappa_weights[None, :]) @ feats.mu0.T
        sq = np.sqrt(pi)
        lam, E = np.linalg.eigh(sq[:, None] * Kmat * sq[None, :])
        order = np.argsort(lam)[::-1]
        out = []
        for k in order[: max(1, int(count))]:
            lk = float(lam[k])
            if lk <= 1e-12 * max(float(lam[order[0]]), 1e-300):
                break
            phi = E[:, k] / sq
            f = (pi * phi) @ feats.mu0 / math.sqrt(lk)
            Ef_h = float(feats.kappa_weights @ (f * feats.h))
            Ef_k = float(feats.kappa_weights @ (f * feats.kappa))
            ov = {"labels": Ef_h**2 / feats.label_energy, "teacher": Ef_h**2 / feats.teacher_energy,
                  "teacher_linear": feats.gamma**2 * Ef_k**2, "readout": float(pi @ (phi * u)) ** 2 / Eu2}
            out.append(Outlier(None if math.isinf(width) else lk * width, ov, lk, None, lk, "N",
                               "N λ_k, λ_k eigenvalues of the kernel E_κ[μ0(κ; u) μ0(κ; u')] (leading order in N)"))
    if right_edge is not None and not math.isinf(width):
        out = [o for o in out if o.location > right_edge]
    return tuple(out)
