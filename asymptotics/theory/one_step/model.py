r"""The constants of the one-step model (Ba et al. 2022; docs/mathematics.md §1).

Everything the η = Θ(1) theory needs about the student σ, the teacher σ* and the label noise is
five numbers (notation of docs/mathematics.md):

* μ1 = E[z σ(z)], μ2² = E σ(z)² − μ0² − μ1² (student; σ = μ0 + μ1 z + σ⊥),
* μ1*, μ2*² (teacher, the same with a star; μ2*² is the teacher's nonlinear energy),
* σ_ε, the standard deviation of the label noise.

The theory assumes centred activations (μ0 = μ0* = 0): a non-centred function is centred first
(``center=True``, the default), otherwise :class:`~asymptotics.errors.ParameterError`.

>>> m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
>>> round(m.mu1, 12), round(m.mu2_star_sq, 12)
(0.605705509602, 0.027415326035)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from ...errors import DegenerateWarning, ParameterError
from ...params import as_float, check_nonnegative

__all__ = ["OneStepModel"]

_CENTRED_TOL = 1e-10


@dataclass(frozen=True)
class OneStepModel:
    """Gaussian constants of student and teacher, and the label noise.

    Attributes:
        mu1: μ1 of the student σ.
        mu2_sq: μ2² of the student (≥ 0; 0 for a linear student).
        mu1_star: μ1* of the teacher σ*.
        mu2_star_sq: μ2*² of the teacher (its nonlinear energy, the best-linear risk floor).
        noise: σ_ε, standard deviation of the label noise (≥ 0).
        student: name of the student activation (for metadata only).
        teacher: name of the teacher activation (for metadata only).
    """

    mu1: float
    mu2_sq: float
    mu1_star: float
    mu2_star_sq: float
    noise: float = 0.0
    student: str = field(default="", compare=False)
    teacher: str = field(default="", compare=False)

    def __post_init__(self):
        for name in ("mu1", "mu1_star"):
            object.__setattr__(self, name, as_float(name, getattr(self, name)))
        for name in ("mu2_sq", "mu2_star_sq", "noise"):
            object.__setattr__(self, name, check_nonnegative(name, getattr(self, name)))
        if self.mu1 == 0 and self.mu2_sq == 0:
            raise ParameterError("student", self.student or "σ", "an activation with μ1² + μ2² > 0", "σ = 0 has no features")

    # ---- constructors --------------------------------------------------------------------
    @classmethod
    def from_activations(cls, student="tanh", teacher="tanh", noise: float = 0.0, center: bool = True) -> OneStepModel:
        """Constants of the activations ``student`` and ``teacher`` (names, expressions or
        :class:`~asymptotics.activations.Activation`), centred by default."""
        from ...activations import Activation, activation

        out = {}
        for role, spec in (("student", student), ("teacher", teacher)):
            act = spec if isinstance(spec, Activation) else activation(spec, center=center)
            c = act.constants()
            if abs(c.mu0) > _CENTRED_TOL:
                raise ParameterError(
                    role, act.name, "a centred activation (μ0 = E σ(z) = 0)",
                    f"μ0 = {c.mu0:.6g}; the one-step theory assumes centred σ, σ* — use center=True",
                )
            out[role] = (act.name, c)
        (sname, s), (tname, t) = out["student"], out["teacher"]
        return cls(mu1=s.mu1, mu2_sq=s.mu2_sq, mu1_star=t.mu1, mu2_star_sq=t.mu2_sq,
                   noise=noise, student=sname, teacher=tname)

    # ---- derived constants ---------------------------------------------------------------
    @property
    def mu2(self) -> float:
        """μ2 = √μ2²."""
        return math.sqrt(self.mu2_sq)

    @property
    def mu2_star(self) -> float:
        """μ2* = √μ2*²."""
        return math.sqrt(self.mu2_star_sq)

    @property
    def label_energy(self) -> float:
        """E y² = μ1*² + μ2*² + σ_ε² (centred teacher)."""
        return self.mu1_star**2 + self.mu2_star_sq + self.noise**2

    @property
    def effective_noise_sq(self) -> float:
        """σ_ε² + μ2*²: the teacher's nonlinear part acts on the ridge like label noise."""
        return self.noise**2 + self.mu2_star_sq

    @property
    def gamma(self) -> float:
        """γ = μ2²/μ1² (``inf`` when μ1 = 0)."""
        return self.mu2_sq / self.mu1**2 if self.mu1 != 0 else math.inf

    @property
    def kernel_bound(self) -> float:
        """μ2*²: the best-linear floor (no kernel or RF ridge beats it, Prop. 1 / Fact 4)."""
        return self.mu2_star_sq

    @property
    def degenerate(self) -> bool:
        """True when η μ1 μ1* = 0 for every η: no rank-one signal (μ1 = 0) or no alignment (μ1* = 0)."""
        return self.mu1 == 0 or self.mu1_star == 0

    def warn_if_degenerate(self, stacklevel: int = 3) -> None:
        """Emit a :class:`DegenerateWarning` for μ1 = 0 or μ1* = 0 (valid input, δ = 0)."""
        if self.mu1 == 0:
            warnings.warn(
                f"student {self.student or 'σ'} has μ1 = 0: the first gradient carries no rank-one signal, "
                "W₁ has no spike and δ = 0 (R1 = R0)", DegenerateWarning, stacklevel=stacklevel)
        elif self.mu1_star == 0:
            warnings.warn(
                f"teacher {self.teacher or 'σ*'} has μ1* = 0 (information exponent > 1): the spike does not "
                "align with β* and δ = 0", DegenerateWarning, stacklevel=stacklevel)

    def as_dict(self) -> dict:
        return {
            "student": self.student, "teacher": self.teacher, "mu1": self.mu1, "mu2_sq": self.mu2_sq,
            "mu1_star": self.mu1_star, "mu2_star_sq": self.mu2_star_sq, "noise": self.noise,
        }
