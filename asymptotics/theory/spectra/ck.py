r"""The spectrum of the conjugate kernel (CK): the N×N Gram (1/n)FᵀF, F = σ(X̃W₁) on fresh data.

* **η = Θ(1)** (Ba et al., ``regime="small"``) and **before the step** (the random-features CK):
  Gaussian-equivalent features F = μ1 X̃W + μ2 Z. The bulk comes from the 4-block pencil of
  :mod:`.pencils` (the same for W₀ and W₁: the step is rank one). Above the BBP threshold of W₁ the
  population covariance Σ₁ = μ1²W₁ᵀW₁ + μ2² has the spike ℓ = μ1² s₁² + μ2² (s₁² the outlier of
  W₁ᵀW₁, :mod:`.weights`) along v₁, and the CK has an outlier where −ℓ m̲(x) = 1
  (:func:`.rank_one.covariance_outlier`, m̲ the companion transform from the same pencil).
  This is the hypothesis of Ba et al. (they call the CK outlier via Gaussian equivalence an open
  question); ``docs/spectra.md`` gives the numerical verdict.
* **Large step** (Ba with η = c√N, Cui): ``equivalence="conditional"`` (default) the κ-mixture
  bulk and the kernel outliers of the mean part, growing like N; ``equivalence="gaussian"`` the
  Gaussian-equivalence prediction with the trained weights, for comparison (:mod:`.large_step`).

Outlier overlaps (squared), with ŵ ∈ ℝᴺ the top eigenvector of (1/n)FᵀF and ŷ = Fŵ/‖Fŵ‖ ∈ ℝⁿ
(the top eigenvector of (1/n)FFᵀ):

* ``spike_direction``: ⟨ŵ, v₁⟩², v₁ the top right singular vector of W₁ (η = Θ(1));
* ``readout``: ⟨ŵ, a/‖a‖⟩² (= ⟨ŵ, v₁⟩²⟨v₁, a/‖a‖⟩² at η = Θ(1));
* ``labels``: ⟨ŷ, ỹ/‖ỹ‖⟩² with the (centred) fresh labels ỹ = σ*(X̃β*) + σ_ε ε;
* ``teacher``: ⟨ŷ, f*⟩² with f* = σ*(X̃β*); ``teacher_linear``: ⟨ŷ, X̃β*/‖X̃β*‖⟩².

At η = Θ(1) (derived): with ζ = Fv₁/√ℓ, ⟨ŷ, ζ/‖ζ‖⟩² = m̲²/m̲' and only the ζ-component of ŷ
correlates with the labels to leading order, so with α² = μ1² s₁² ⟨u₁, β*⟩²/ℓ,

    labels = (m̲²/m̲') α² μ1*²/E y²,   teacher = (m̲²/m̲') α² μ1*²/E σ*²,   teacher_linear = (m̲²/m̲') α².

>>> from asymptotics.theory.spectra import ba_step, ck_spectrum
>>> res = ck_spectrum(ba_step("tanh", "tanh", psi1=3.0, psi2=1.0, eta=6.0, noise=0.1), points=50)
>>> round(res.edges[-1], 4), round(res.outliers[0].location, 4)   # simulation d = 1600: 3.30
(1.9172, 3.4213)
"""

from __future__ import annotations

import math

from ...errors import ParameterError
from .bulk import PencilBulk
from .large_step import ck_bulk_large, ck_outliers_large, large_step_features
from .protocols import BaStep, CuiStep
from .rank_one import covariance_outlier, rectangular_outlier
from .result import Outlier, SpectrumResult
from .support import evaluate_bulk
from .weights import _check_width, mp_bulk

__all__ = ["ck_spectrum", "ge_ck_bulk", "EQUIVALENCES"]

EQUIVALENCES = ("conditional", "gaussian")


def ge_ck_bulk(mu1: float, mu2_sq: float, psi1: float, psi2: float) -> PencilBulk:
    """The bulk of (1/n)FᵀF for F = μ1 X̃W₀ + μ2 Z (the Gaussian-equivalent pencil)."""
    mu2 = math.sqrt(mu2_sq)
    bound = (abs(mu1) * (1 + 1 / math.sqrt(psi1)) * (1 + math.sqrt(psi2)) + mu2 * (1 + math.sqrt(psi2 / psi1))) ** 2
    return PencilBulk("spectrum_ck_ge", {"mu1": float(mu1), "mu2": mu2, "psi1": float(psi1), "psi2": float(psi2)},
                      "g11", 1.05 * bound, "Gaussian-equivalent CK Gram (1/n)F^T F, F = mu1 X W0 + mu2 Z")


def _small_step_outlier(step: BaStep, bulk: PencilBulk, right_edge: float, notes: list):
    m = step.model
    th = step.theta_sq
    w_root = rectangular_outlier(mp_bulk(step.psi2), th, (1 + math.sqrt(step.psi2)) ** 2)
    if not w_root.separated:
        notes.append(f"W1 below the BBP threshold (θ² = {th:.6g} <= {w_root.threshold:.6g}): no population spike")
        return ()
    s1 = w_root.location
    u_beta = step.teacher_overlap_sq * w_root.overlaps["left"]
    ell = m.mu1**2 * s1 + m.mu2_sq
    root = covariance_outlier(bulk, ell, right_edge)
    if not root.separated:
        notes.append(f"population spike ℓ = {ell:.6g} below the CK threshold {root.threshold:.6g}")
        return ()
    samp, pop = root.overlaps["sample"], root.overlaps["population"]
    alpha = m.mu1**2 * s1 * u_beta / ell
    t_energy = m.mu1_star**2 + m.mu2_star_sq
    ov = {"spike_direction": pop, "readout": pop * w_root.overlaps["right"],
          "labels": samp * alpha * m.mu1_star**2 / m.label_energy,
          "teacher": samp * alpha * m.mu1_star**2 / t_energy if t_energy > 0 else 0.0,
          "teacher_linear": samp * alpha}
    return (Outlier(root.location, ov, ell, root.threshold,
                    formula="−ℓ m̲(x) = 1, ℓ = μ1² s₁² + μ2² (population spike of the Gaussian-equivalent features)"),)


def ck_spectrum(step, *, x=None, points: int = 1000, before: bool = False, width=None,
                equivalence: str = "conditional", types: int = 8, kappa_nodes: int = 32,
                outliers: int = 3) -> SpectrumResult:
    """The limiting spectrum of the CK Gram (1/n)FᵀF (N×N) for a :class:`~.protocols.BaStep` or
    :class:`~.protocols.CuiStep` (see the module docstring).

    Parameters
    ----------
    step : the protocol and its parameters.
    x, points : the density grid (default: ``points`` points over the support with 5 % margins).
    before : the random-features CK (W₀; Gaussian-equivalent pencil, no outlier for odd σ).
    width : N, for the locations of the large-step outliers (which grow like N).
    equivalence : at the large step, ``"conditional"`` (cGET, the derived theory) or
        ``"gaussian"`` (the Gaussian-equivalence hypothesis, for comparison). At η = Θ(1) only
        ``"gaussian"`` applies (it is the theory there) and the argument is ignored.
    types, kappa_nodes : readout types (Ba) and κ nodes of the large-step κ-mixture.
    outliers : how many large-step kernel outliers to report at most.
    """
    if not isinstance(step, (BaStep, CuiStep)):
        raise ParameterError("step", type(step).__name__, "a BaStep or CuiStep (ba_step(...), cui_step(...))")
    if equivalence not in EQUIVALENCES:
        raise ParameterError("equivalence", equivalence, "'conditional' or 'gaussian'")
    w = _check_width(width)
    small = before or (isinstance(step, BaStep) and step.regime == "small")
    notes = []
    if not step.student.is_odd:
        notes.append(f"σ = {step.student.name} is not odd: the Gaussian equivalence used for the CK is stated for odd σ "
                     "(a non-odd σ can add outliers that the theory does not contain)")
    if small:
        cs = step.student.constants()
        bulk = ge_ck_bulk(cs.mu1, cs.mu2_sq, step.sample_ratio, step.width_ratio)
        used = "gaussian"
    else:
        feats = large_step_features(step, types=types, kappa_nodes=kappa_nodes)
        bulk = ck_bulk_large(step, feats, equivalence)
        used = equivalence
    ev = evaluate_bulk(bulk, x, points=points, scan_points=1500 if small else 600)
    sup = ev["support"]
    outs = ()
    if not before:
        if small:
            outs = _small_step_outlier(step, bulk, sup.right_edge, notes)
        else:
            outs = ck_outliers_large(step, feats, w, equivalence=equivalence, count=outliers,
                                     right_edge=sup.right_edge)
    law = bulk.as_dict()
    if not small:
        law["features"] = feats.as_dict()
    return SpectrumResult(
        matrix="ck", protocol=step.protocol, regime=step.regime, before=before, equivalence=used,
        x=ev["x"], density=ev["density"], support=sup, outliers=outs, mass=ev["mass"], status=ev["status"],
        residual=ev["residual"], height=ev["height"], law=law,
        parameters={**step.as_dict(), "width": ("inf" if math.isinf(w) else w)}, notes=tuple(notes))
