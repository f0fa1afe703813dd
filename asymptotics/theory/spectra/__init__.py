r"""The spectrum of the learned features after one gradient step: density, edges, the atom at
zero, outliers and their eigenvectors, for the trained weights W₁ᵀW₁ and the conjugate kernel
(1/n)FᵀF. Guide: ``docs/spectra.md``.

=====================================  ==========================================================
:mod:`.protocols`                      :func:`ba_step`, :func:`cui_step`: the two protocols
:func:`weights_spectrum`               W₁ᵀW₁ (MP pencil + rank-one outlier; large step: typed Gram)
:func:`ck_spectrum`                    (1/n)FᵀF (Gaussian-equivalent pencil + covariance outlier;
                                       large step: κ-mixture + kernel outliers)
:mod:`.pencils`                        the linear pencils and their registered systems
:mod:`.branch`                         continuation from large Im z to the real axis
:mod:`.support`                        density, support, edges, atom, mass
:mod:`.rank_one`                       BBP-type outlier equations and eigenvector overlaps
:mod:`.mixture`, :mod:`.large_step`    the large-step bulks and outliers
=====================================  ==========================================================

Every function returns a frozen :class:`SpectrumResult` (``rows()`` = ``{x, density}``,
``meta()`` = support, atom, outliers with overlaps, status and residual).
"""

from . import pencils as _pencils  # noqa: F401  (registers the systems)
from .ck import EQUIVALENCES, ck_spectrum, ge_ck_bulk
from .protocols import REGIMES, BaStep, CuiStep, ba_step, cui_step
from .result import Outlier, SpectrumResult
from .support import Edge, Support
from .weights import mp_bulk, weights_spectrum

__all__ = [
    "ba_step",
    "cui_step",
    "BaStep",
    "CuiStep",
    "REGIMES",
    "EQUIVALENCES",
    "weights_spectrum",
    "ck_spectrum",
    "mp_bulk",
    "ge_ck_bulk",
    "SpectrumResult",
    "Outlier",
    "Support",
    "Edge",
]
