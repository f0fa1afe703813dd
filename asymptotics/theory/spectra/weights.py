r"""The spectrum of the trained first layer: the N×N Gram W₁ᵀW₁ (its squared singular values).

* **η = Θ(1)** (Ba et al., ``regime="small"``; and every protocol ``before=True``): W₁ ≈ W₀ + θuvᵀ
  with θ² = η²μ1²s², u = Xᵀy/‖Xᵀy‖ (⟨u, β*⟩² = ρ²), v = a/‖a‖. The bulk is the law of W₀ᵀW₀,
  Marchenko–Pastur(ψ2) with an atom 1 − 1/ψ2 at 0 when ψ2 > 1, from the Marchenko–Pastur pencil
  (:mod:`.pencils`); the outlier from the rank-one equation θ² D(x) = 1 (:mod:`.rank_one`), above
  the BBP threshold θ⁴ > ψ2.
* **Large step** (Ba with η = c√N, or Cui): the typed Gram of the trained bulk and an outlier that
  grows like N (:mod:`.large_step`).

Outlier overlaps (squared): ``teacher`` ⟨u₁, β*⟩² and ``gradient`` ⟨u₁, u⟩² of the top **left**
singular vector u₁ ∈ ℝᵈ (the eigenvector of W₁W₁ᵀ), ``readout`` ⟨v₁, a/‖a‖⟩² of the top right
singular vector v₁ ∈ ℝᴺ (the eigenvector of W₁ᵀW₁). For Cui's protocol ``gradient`` is the spike
direction v ∝ X₀ᵀy and ``readout`` the uniform readout 1/√p.

>>> from asymptotics.theory.spectra import ba_step, weights_spectrum
>>> res = weights_spectrum(ba_step("tanh", "tanh", psi1=2.0, psi2=1.5, eta=5.0, noise=0.1), points=50)
>>> [round(e, 4) for e in res.edges], round(res.atom, 4)           # (1 ∓ √ψ2)², atom 1 − 1/ψ2
([0.0505, 4.9495], 0.3333)
>>> o = res.outliers[0]
>>> round(o.location, 4), round(o.overlaps["teacher"], 4), round(o.overlaps["readout"], 4)
(8.0065, 0.5113, 0.734)
"""

from __future__ import annotations

import math

from ...errors import ParameterError
from .bulk import PencilBulk
from .large_step import weights_bulk_large, weights_outlier_large
from .protocols import BaStep, CuiStep
from .rank_one import rectangular_outlier
from .result import Outlier, SpectrumResult
from .support import evaluate_bulk

__all__ = ["weights_spectrum", "mp_bulk"]


def mp_bulk(psi2: float) -> PencilBulk:
    """The law of W₀ᵀW₀ (N×N), W₀ ∈ ℝ^{d×N} with N(0, 1/d) entries, from the MP pencil."""
    return PencilBulk("spectrum_mp_gram", {"psi2": float(psi2)}, "g22/z", 1.02 * (1 + math.sqrt(psi2)) ** 2,
                      f"Marchenko–Pastur(ψ2 = {psi2:g}) law of W0^T W0")


def _check_width(width):
    if width is None:
        return math.inf
    w = float(width)
    if not (math.isinf(w) and w > 0) and not (math.isfinite(w) and w >= 1):
        raise ParameterError("width", width, "a number of neurons N >= 1, or inf")
    return w


def weights_spectrum(step, *, x=None, points: int = 1000, before: bool = False, width=None,
                     types: int = 64) -> SpectrumResult:
    """The limiting spectrum of W₁ᵀW₁ (or W₀ᵀW₀ with ``before``) for a :class:`~.protocols.BaStep`
    or :class:`~.protocols.CuiStep`.

    Parameters
    ----------
    step : the protocol and its parameters (:func:`~.protocols.ba_step`, :func:`~.protocols.cui_step`).
    x : the grid of the density (default: ``points`` points over the support with 5 % margins).
    before : the matrix before the step (no outliers).
    width : N, for the location of a large-step outlier (which grows like N); ``None``/``inf``
        gives only ``location_per_width``.
    types : readout types (Gauss–Hermite nodes in u) of the large-step bulk (Ba).
    """
    if not isinstance(step, (BaStep, CuiStep)):
        raise ParameterError("step", type(step).__name__, "a BaStep or CuiStep (ba_step(...), cui_step(...))")
    w = _check_width(width)
    small = before or (isinstance(step, BaStep) and step.regime == "small")
    notes = []
    if small:
        bulk = mp_bulk(step.width_ratio)
    else:
        bulk = weights_bulk_large(step, types=types)
        notes.append("large step: the bulk assumes isotropic row increments (an open hypothesis at strong steps)")
    ev = evaluate_bulk(bulk, x, points=points)
    sup = ev["support"]
    outliers = ()
    if not before:
        if small:
            th = step.theta_sq
            root = rectangular_outlier(bulk, th, sup.right_edge)
            if root.separated:
                left = root.overlaps["left"]
                outliers = (Outlier(root.location, {"teacher": step.teacher_overlap_sq * left, "gradient": left,
                                                    "readout": root.overlaps["right"]}, th, root.threshold,
                                    formula="θ² D(x) = 1, D = x m̄ m (rectangular rank-one spike)"),)
            else:
                notes.append(f"below the BBP threshold: θ² = {th:.6g} <= θ²_c = {root.threshold:.6g}")
        else:
            outliers = (weights_outlier_large(step, bulk, w),)
    return SpectrumResult(
        matrix="weights", protocol=step.protocol, regime=step.regime, before=before, equivalence="",
        x=ev["x"], density=ev["density"], support=sup, outliers=outliers, mass=ev["mass"], status=ev["status"],
        residual=ev["residual"], height=ev["height"], law=bulk.as_dict(),
        parameters={**step.as_dict(), "width": ("inf" if math.isinf(w) else w)}, notes=tuple(notes))

