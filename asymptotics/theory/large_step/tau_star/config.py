"""The numerical settings of τ*'s compiled path (:class:`TauStarConfig`)."""

from __future__ import annotations

from dataclasses import dataclass

from ....errors import ParameterError
from ....params import as_float, check_int, check_positive

__all__ = ["TauStarConfig", "METHODS", "RULES"]

#: The paths of :func:`~asymptotics.theory.large_step.tau_star.tau_star` (``method``).
METHODS = ("auto", "closed", "compiled", "mpmath")
#: The quadrature choices of the compiled path (``TauStarConfig.rule``).
RULES = ("auto", "trapezoid", "hermite", "composite")


@dataclass(frozen=True)
class TauStarConfig:
    """Numerical settings of the compiled path (immutable; validated on construction).

    Attributes:
        rule: ``"auto"`` (the trapezoidal rule for smooth functions, composite Gauss–Legendre split
            at the kinks otherwise), ``"trapezoid"`` or ``"hermite"`` (both refused for a kinked
            function) or ``"composite"`` (composite everywhere).
        step: trapezoidal step h at level 0, divided by max(1, scale) for σ(scale·x) and by 1.5 at
            each level. For an integrand analytic in the strip |Im x| < d the truncated
            trapezoidal rule with the Gaussian weight errs by ≈ exp(−2πd/h): spectral accuracy
            (E tanh²: 5e-7 at h = 1/2, 4e-11 at 1/3, 3e-15 at 1/4), where Gauss–Hermite only
            converges like exp(−c√n) (tanh/tanh needs ~200 nodes for 1e-12).
        degree: Gauss–Hermite nodes per dimension at level 0 (× 1.5 per level).
        order: Gauss–Legendre nodes per unit panel of the composite rules at level 0 (× 1.5).
        half_width: the rules integrate over [−L, L] (Gaussian tail beyond L = 10: 1.5e-23).
        max_level: how many times the resolution may be refined (× 1.5) to meet the tolerance.
        scan_step, scan_degree, scan_order: the cheap rule used to scan κ.
        kappa_min, kappa_max: the scanned |κ| range (geometric, both signs, plus κ = 0).
        kappa_max_limit: the scan range is enlarged ×100 up to this value when the best scanned
            point is at the end of the range.
        scan_per_decade: scanned κ values per decade.
        xtol: Newton stops when the step is ≤ xtol·(1 + |κ|).
        max_iter: maximum Newton/bisection iterations.
        rtol, atol: accepted quadrature error on τ*: |τ_n − τ_2n| ≤ atol + rtol·τ*.
        kappa_rtol: accepted change of κ* under the refined rule, relative to 1 + |κ*|.
        zero_tol: |κ*| below this is reported as κ* = 0 (``infimum_at`` ``"zero"``).
    """

    rule: str = "auto"
    step: float = 0.25
    degree: int = 64
    order: int = 8
    half_width: float = 10.0
    max_level: int = 4
    scan_step: float = 0.6
    scan_degree: int = 24
    scan_order: int = 4
    kappa_min: float = 0.01
    kappa_max: float = 100.0
    kappa_max_limit: float = 1e4
    scan_per_decade: int = 4
    xtol: float = 1e-13
    max_iter: int = 100
    rtol: float = 1e-9
    atol: float = 1e-14
    kappa_rtol: float = 1e-8
    zero_tol: float = 1e-9

    def __post_init__(self):
        if self.rule not in RULES:
            raise ParameterError("rule", self.rule, f"one of {', '.join(RULES)}")
        for name in ("degree", "order", "scan_degree", "scan_order", "scan_per_decade", "max_iter"):
            object.__setattr__(self, name, check_int(name, getattr(self, name), 2))
        object.__setattr__(self, "max_level", check_int("max_level", self.max_level, 0))
        for name in (
            "step",
            "scan_step",
            "half_width",
            "kappa_min",
            "kappa_max",
            "kappa_max_limit",
            "xtol",
            "rtol",
            "kappa_rtol",
        ):
            object.__setattr__(self, name, check_positive(name, getattr(self, name)))
        for name in ("atol", "zero_tol"):
            v = as_float(name, getattr(self, name), ">= 0")
            if v < 0:
                raise ParameterError(name, v, ">= 0")
            object.__setattr__(self, name, v)
        if not self.kappa_min < self.kappa_max <= self.kappa_max_limit:
            raise ParameterError(
                "kappa_max", self.kappa_max, f"in ({self.kappa_min}, kappa_max_limit={self.kappa_max_limit}]"
            )
