r"""Bounds on the risk after one large step η = Θ(√N) (Ba et al. 2022, Prop. 1 and Thm. 5).

* **Kernel lower bound (stated, Prop. 1):** for CK/NTK random features and rotation-invariant
  kernels, inf_λ risk ≥ ‖P_{>1} f*‖² = μ2*² (+ o(1)) — the energy of the teacher's nonlinear part,
  μ2*² = E σ*² − μ0*² − μ1*². (Centring the teacher does not change it.)
* **Upper bound (stated, Thm.):** for a bounded student σ, η = Θ(√N), n/d > ψ1* and
  n^{ε−1} < λ/N < n^{−ε}, the trained conjugate-kernel ridge satisfies

      R1(λ) ≤ 10 τ* + C ( √τ* · √(d/n) + d/n ),       d/n = 1/ψ1.

  The paper gives neither ψ1* nor C, and says 10 is not optimised. The constant C is therefore a
  **user parameter**, default ``C = 1``, which is arbitrary: only the ψ1 → ∞ limit 10 τ* is a
  statement of the paper.
* **Verdict (stated):** if 10 τ* < μ2*², the trained CK beats every kernel once ψ1 is large.
  For a given C, the bound falls below μ2*² for ψ1 > ψ1× (:func:`psi1_crossover`), the positive root
  of 10τ* + C(√τ* s + s²) = μ2*² in s = √(1/ψ1).

>>> b = large_step_bounds("tanh", "tanh", psi1=[10, 1000])
>>> round(b.kernel_bound, 6), b.beats_every_kernel
(0.027415, True)
>>> [round(u, 5) for u in b.upper_bound]
[0.10402, 0.00225]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...activations import resolve_activation
from ...errors import ParameterError
from ...params import as_float, check_positive
from .tau_star import TauStarResult, activation_limits, tau_star
from .tau_star.problem import teacher_moments

__all__ = [
    "LargeStepBounds",
    "kernel_lower_bound",
    "upper_bound",
    "psi1_crossover",
    "large_step_bounds",
    "PAPER_FACTOR",
]

#: The factor in front of τ* in Ba et al.'s theorem ("not optimised").
PAPER_FACTOR = 10.0


def kernel_lower_bound(teacher, *, teacher_scale: float = 1.0) -> float:
    """μ2*² = E σ*(bz)² − (E σ*(bz))² − (E z σ*(bz))², the kernel lower bound ‖P_{>1} f*‖².

    >>> round(kernel_lower_bound("erf"), 12)
    0.040145872819
    """
    act = resolve_activation(teacher, center=False, name="teacher")
    b = check_positive("teacher_scale", teacher_scale)
    if b == 1.0:
        return float(act.constants().mu2_sq)
    _, mu1, energy, _ = teacher_moments(act, b, center=True)  # E t² of the centred t = σ*(b·) − E σ*(bz)
    return max(float(energy - mu1 * mu1), 0.0)


def _check_tau(tau) -> np.ndarray:
    t = np.asarray(tau, dtype=float)
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ParameterError("tau_star", tau, ">= 0 and finite")
    return t


def _check_constant(constant) -> float:
    c = as_float("constant", constant, ">= 0 (the unspecified constant C of the theorem)")
    if c < 0:
        raise ParameterError("constant", constant, ">= 0 (the unspecified constant C of the theorem)")
    return c


def upper_bound(tau_star, psi1, constant: float = 1.0):
    r"""10 τ* + C (√τ* √(1/ψ1) + 1/ψ1), vectorised over ``tau_star`` and ``psi1`` (= n/d > 0).

    >>> round(upper_bound(1e-4, 100.0, constant=1.0), 6)
    0.012
    """
    t = _check_tau(tau_star)
    p = np.asarray(psi1, dtype=float)
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ParameterError("psi1", psi1, "> 0 (valid range: (0, inf))")
    c = _check_constant(constant)
    inv = 1.0 / p
    out = PAPER_FACTOR * t + c * (np.sqrt(t) * np.sqrt(inv) + inv)
    return float(out) if out.ndim == 0 else out


def psi1_crossover(tau_star: float, kernel_bound: float, constant: float = 1.0) -> float | None:
    r"""ψ1 above which the upper bound is below the kernel bound, for the given C.

    Solves C s² + C √τ* s + (10τ* − μ2*²) = 0 for s = √(d/n) > 0 and returns 1/s²; ``None`` when
    10 τ* ≥ μ2*² (never), ``0.0`` when C = 0 and 10 τ* < μ2*² (always).

    >>> round(psi1_crossover(0.0, 0.04, 1.0), 6)      # τ* = 0: C/ψ1 < μ2*²  ⇔  ψ1 > C/μ2*²
    25.0
    """
    t = float(_check_tau(tau_star))
    k = as_float("kernel_bound", kernel_bound, ">= 0")
    if k < 0:
        raise ParameterError("kernel_bound", kernel_bound, ">= 0")
    c = _check_constant(constant)
    gap = k - PAPER_FACTOR * t
    if gap <= 0:
        return None
    if c == 0:
        return 0.0
    rt = math.sqrt(t)
    s = (-c * rt + math.sqrt(c * c * t + 4.0 * c * gap)) / (2.0 * c)
    return 1.0 / (s * s)


@dataclass(frozen=True)
class LargeStepBounds:
    """The large-step bounds for one (σ, σ*) pair.

    Attributes:
        tau: the :class:`~asymptotics.theory.large_step.tau_star.TauStarResult` (τ*, κ*, status,
            infimum_at).
        kernel_bound: μ2*², the lower bound on the risk of every kernel method.
        ten_tau: 10 τ*, the ψ1 → ∞ limit of the upper bound.
        beats_every_kernel: the paper's verdict, 10 τ* < μ2*².
        margin: μ2*² − 10 τ* (positive when the verdict holds).
        constant: the constant C used in the upper bound (the paper gives none; default 1 is
            arbitrary).
        psi1: the ψ1 = n/d values of ``upper_bound`` (empty when none were asked for).
        upper_bound: 10 τ* + C(√τ*√(1/ψ1) + 1/ψ1) at each ψ1.
        psi1_crossover: ψ1 above which the upper bound is below μ2*² (``None`` if never).
        student_bounded: whether σ has finite limits at ±∞ (the theorem assumes σ bounded).
        notes: caveats that apply to this pair.
    """

    tau: TauStarResult
    kernel_bound: float
    ten_tau: float
    beats_every_kernel: bool
    margin: float
    constant: float
    psi1: tuple[float, ...]
    upper_bound: tuple[float, ...]
    psi1_crossover: float | None
    student_bounded: bool
    notes: tuple[str, ...]

    @property
    def tau_star(self) -> float:
        return self.tau.tau_star

    @property
    def kappa_star(self) -> float:
        return self.tau.kappa_star

    def rows(self) -> list[dict]:
        """One JSON-friendly row per ψ1 (a single row without ``psi1`` when none was given)."""
        base = {
            "student": self.tau.student,
            "teacher": self.tau.teacher,
            "student_scale": self.tau.student_scale,
            "teacher_scale": self.tau.teacher_scale,
            "tau_star": self.tau.tau_star,
            "kappa_star": self.tau.kappa_star if math.isfinite(self.tau.kappa_star) else None,
            "status": self.tau.status.label,
            "infimum_at": self.tau.infimum_at,
            "kernel_bound": self.kernel_bound,
            "ten_tau_star": self.ten_tau,
            "beats_every_kernel": self.beats_every_kernel,
            "margin": self.margin,
            "constant": self.constant,
            "psi1_crossover": self.psi1_crossover,
            "student_bounded": self.student_bounded,
        }
        if not self.psi1:
            return [base]
        return [dict(base, psi1=p, upper_bound=u) for p, u in zip(self.psi1, self.upper_bound, strict=True)]


def large_step_bounds(
    student,
    teacher,
    *,
    psi1=None,
    constant: float = 1.0,
    center: bool = True,
    fit_constant: bool = False,
    student_scale: float = 1.0,
    teacher_scale: float = 1.0,
    method: str = "auto",
    tau: TauStarResult | None = None,
) -> LargeStepBounds:
    r"""τ*, the kernel lower bound μ2*², the upper bound at each ψ1 and the verdict 10τ* < μ2*².

    ``tau`` may pass an already computed :class:`TauStarResult` (then ``student``/``teacher``
    only serve the kernel bound and the boundedness check). Other arguments as in
    :func:`~asymptotics.theory.large_step.tau_star.tau_star`.
    """
    s = resolve_activation(student, center=False, name="student")
    t = resolve_activation(teacher, center=False, name="teacher")
    c = _check_constant(constant)
    if tau is None:
        tau = tau_star(
            s,
            t,
            student_scale=student_scale,
            teacher_scale=teacher_scale,
            center=center,
            fit_constant=fit_constant,
            method=method,
        )
    elif not isinstance(tau, TauStarResult):
        raise ParameterError("tau", tau, "a TauStarResult")
    kb = kernel_lower_bound(t, teacher_scale=tau.teacher_scale)
    ten = PAPER_FACTOR * tau.tau_star
    if psi1 is None:
        ps: tuple[float, ...] = ()
        ub: tuple[float, ...] = ()
    else:
        arr = np.atleast_1d(np.asarray(psi1, dtype=float))
        vals = np.atleast_1d(upper_bound(tau.tau_star, arr, c))
        ps = tuple(float(p) for p in arr)
        ub = tuple(float(u) for u in vals)
    lo, hi = activation_limits(s)
    bounded = lo is not None and hi is not None
    notes = [
        "C is not given by the paper: the upper bound's finite-ψ1 part is illustrative (default C = 1 is arbitrary)",
        "the theorem needs n/d > ψ1* (not given) and n^(ε−1) < λ/N < n^(−ε)",
    ]
    if not bounded:
        notes.append("the student is not bounded: the theorem's hypothesis (σ bounded) does not hold")
    if not tau.attained:
        notes.append("τ* is an infimum approached as |κ| → ∞, not attained by any finite κ")
    if not tau.centered:
        notes.append("σ, σ* not centred: Ba et al. assume centred activations")
    return LargeStepBounds(
        tau=tau,
        kernel_bound=kb,
        ten_tau=ten,
        beats_every_kernel=bool(ten < kb),
        margin=kb - ten,
        constant=c,
        psi1=ps,
        upper_bound=ub,
        psi1_crossover=psi1_crossover(tau.tau_star, kb, c),
        student_bounded=bounded,
        notes=tuple(notes),
    )
