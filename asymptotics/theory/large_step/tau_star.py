r"""τ* and κ*: the one-dimensional Gaussian optimisation of Ba et al. (2022), eq. (5.1).

With ξ1, ξ2 i.i.d. N(0, 1),

    τ(κ) = E_ξ1 [ ( σ*(ξ1) − E_ξ2 σ(κ ξ1 + ξ2) )² ],     τ* = inf_κ τ(κ),   κ* = argmin τ.

Meaning (stated, `10-one-step.md` §6): after one large step η = c√N, neuron i has moved by
≈ κᵢ β* with κᵢ = c μ1 μ1* √N aᵢ, so its feature is ≈ σ(ξ2 + κᵢ ξ1) with ξ1 = ⟨β*, x⟩; an oracle
average of the neurons with κᵢ ≈ κ* predicts E_ξ2 σ(κ* ξ1 + ξ2), whose risk is τ*. Ba et al.'s
theorem bounds the trained conjugate-kernel risk by 10 τ* + C(√τ* √(d/n) + d/n)
(:mod:`asymptotics.theory.large_step.bounds`).

Conventions (the project's choices, documented):

* **Centring.** Ba et al. assume centred σ and σ*. By default (``center=True``) both are centred
  by their Gaussian means at unit variance, σ − E σ(z) and σ* − E σ*(z) (for input scales a, b:
  σ(a·) − E σ(az), σ*(b·) − E σ*(bz)), exactly as :func:`asymptotics.activation` does. The inner
  mean E_ξ2 σ(κξ1 + ξ2) then has mean E σ(√(1+κ²) z) − E σ(z), which is not zero for a non-odd
  student: the paper's definition has **no free constant**. ``fit_constant=True`` lets the
  oracle add the best constant as well (τ_c = inf_κ Var(σ* − E_ξ2σ)), the natural choice if the
  readout can fit an intercept; it changes nothing for an odd student and odd teacher, and a lot
  for SoftPlus/SoftPlus (9.15e-3 → 2.77e-4). ``center=False`` uses the raw functions.
* **κ ∈ ℝ.** The readout aᵢ is Gaussian, so κᵢ takes both signs; the infimum is over ℝ.
* **Input scales.** ``student_scale`` a and ``teacher_scale`` b replace σ(x), σ*(x) by σ(ax),
  σ*(bx) (a, b > 0) without recompiling, for grids over activation scalings.

Outcomes (``status``):

* ``"interior"``: a finite minimiser κ* ≠ 0 (τ'(κ*) = 0, τ''(κ*) > 0);
* ``"zero"``: the minimiser is κ* = 0 (τ* = τ(0) = E σ*² for centred functions). Since
  τ'(0) = −2 μ1(σ) μ1(σ*), this needs μ1 μ1* = 0 — the degenerate case in which one large step
  does not move the neurons along β* at all (a :class:`~asymptotics.errors.DegenerateWarning`
  is issued when μ1 μ1* = 0);
* ``"to_plus_infinity"`` / ``"to_minus_infinity"``: no finite minimiser, the infimum is the
  limit κ → ±∞ (``kappa_star = ±inf``, ``attained = False``). This is possible only for a student
  with finite limits σ(±∞) (decided symbolically); then E_ξ2 σ(κξ1 + ξ2) tends to the step
  σ(+∞)·1{ξ1 > 0} + σ(−∞)·1{ξ1 < 0} and τ(±∞) is computed exactly. Example: σ = tanh,
  σ* = sign (``"sign(x)"``): τ(κ) decreases to τ(∞) = 0 with no minimiser.

Three paths (``method``):

* ``"closed"``: closed forms — σ = erf(a·), σ* = erf(b·): E_ξ2 erf(a(κξ1 + ξ2)) =
  erf(aκξ1/√(1+2a²)), so κ* = b√(1+2a²)/a (√3 for a = b = 1) and τ* = 0; a linear student σ = a x:
  κ* = μ1*/a, τ* = E σ*² − μ1*² (− μ0*² with ``fit_constant``).
* ``"compiled"``: numba kernels generated per student (:mod:`._kernels`): truncated
  trapezoidal rules with the Gaussian weight for smooth activations (spectrally accurate; step
  adapted to the input scale), composite Gauss–Legendre rules split at the kinks otherwise (ReLU),
  or fixed-degree Gauss–Hermite on request; a scan of κ on a two-sided geometric grid, then
  safeguarded Newton on τ'(κ) = 0 inside the bracket of the best scanned point (derivatives by
  Stein's identity, so only σ is evaluated). The answer is re-evaluated with the next finer rule
  (resolution × 1.5); if the two disagree by more than ``atol + rtol·τ*`` (or κ* moves by more
  than ``kappa_rtol``) the resolution is refined and Newton restarted from the previous κ* (up to
  ``max_level`` times), else :class:`~asymptotics.errors.ConvergenceError`.
* ``"mpmath"``: the high-precision path at ``dps`` digits — Newton on τ'(κ) = 0 in mpmath
  arithmetic from the compiled κ*, with trapezoidal rules whose step is set by ``dps`` (composite
  Gauss–Legendre split at the kinks for kinked functions) and closed-form inner expectations for
  ReLU, erf and linear students (E relu(m + z) = mΦ(m) + φ(m), …), so the kinked case does not
  share the compiled path's kink handling; the error is the difference from the rule of half the
  step; the limits κ → ±∞ by tanh–sinh quadrature.

``"auto"`` (default) takes the closed form where one exists and the compiled path otherwise.

>>> r = tau_star("tanh", "tanh")
>>> r.status, round(r.kappa_star, 5), f"{r.tau_star:.4e}"
('interior', 1.58827, '9.4527e-05')
>>> r = tau_star("erf", "erf")
>>> r.method, r.kappa_star == 3 ** 0.5, r.tau_star
('closed-form', True, 0.0)

The paper's appendix quotes "τ* ≈ 3·10⁻⁴ for σ = σ* = tanh, κ* ≈ 1.6": κ* agrees, τ* does not
(τ(1.6) = 1.0e-4; 3e-4 is reached only at κ = 1.52 or 1.66). This is an open discrepancy, reported
in ``docs/large-step.md``; the code is not tuned to it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ...activations import Activation, activation
from ...errors import ConvergenceError, DegenerateWarning, ExpressionError, ParameterError
from ...gaussian import composite_rule, expect, expect_mp, hermite_rule
from ...params import as_float, check_int, check_positive
from . import _kernels

__all__ = [
    "TauStarConfig",
    "TauStarResult",
    "TauStarGrid",
    "TauObjective",
    "STATUSES",
    "tau_star",
    "tau_star_grid",
    "tau_objective",
    "tau_limits",
    "activation_limits",
]

#: Possible values of ``status``.
STATUSES = ("interior", "zero", "to_plus_infinity", "to_minus_infinity", "failed")

_METHODS = ("auto", "closed", "compiled", "mpmath")
_RULES = ("auto", "trapezoid", "hermite", "composite")


# ---------------------------------------------------------------------------------------------
# configuration and results
# ---------------------------------------------------------------------------------------------
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
        zero_tol: |κ*| below this is reported as κ* = 0 (status ``"zero"``).
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
        if self.rule not in _RULES:
            raise ParameterError("rule", self.rule, f"one of {', '.join(_RULES)}")
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


@dataclass(frozen=True)
class TauStarResult:
    """τ* for one (σ, σ*) pair.

    Attributes:
        tau_star: the infimum inf_κ τ(κ) (≥ 0).
        kappa_star: the minimiser; ``0.0`` for status ``"zero"``; ``±inf`` when not attained.
        status: ``"interior"``, ``"zero"``, ``"to_plus_infinity"``, ``"to_minus_infinity"``
            (or ``"failed"`` in a grid computed with ``on_failure="return"``).
        attained: whether the infimum is attained at a finite κ.
        iterations: Newton/bisection iterations of the last solve (Newton steps for mpmath).
        error: estimate of the absolute error of ``tau_star`` (the difference from the next finer
            rule; for a limit κ → ±∞, the error estimate of that one-dimensional integral).
        kappa_error: estimate of the absolute error of ``kappa_star`` (the Newton step
            τ'/τ'' under the refined rule); 0 for closed forms, inf when not attained.
        derivative: τ'(κ*) (the residual of the stationarity condition); 0 when not attained.
        curvature: τ''(κ*) (> 0 at a minimum); 0 when not attained.
        method: ``"closed-form"``, ``"compiled"``, ``"mpmath"``.
        rule: the quadrature actually used (e.g. ``"trapezoid-h0.25"``, ``"composite-8(level 1)"``).
        student, teacher: the activation names.
        student_scale, teacher_scale: input scales a, b (σ(a x), σ*(b x)).
        centered: whether σ and σ* were centred.
        fit_constant: whether the oracle may add a constant.
        message: remarks (degeneracy, how the infimum was found).
    """

    tau_star: float
    kappa_star: float
    status: str
    attained: bool
    iterations: int
    error: float
    kappa_error: float
    derivative: float
    curvature: float
    method: str
    rule: str
    student: str
    teacher: str
    student_scale: float = 1.0
    teacher_scale: float = 1.0
    centered: bool = True
    fit_constant: bool = False
    message: str = ""

    def as_dict(self) -> dict:
        """A JSON-friendly dictionary (``kappa_star`` is ``None`` when not attained, with
        ``kappa_limit`` ``"+inf"``/``"-inf"``)."""
        d = {
            "student": self.student,
            "teacher": self.teacher,
            "student_scale": self.student_scale,
            "teacher_scale": self.teacher_scale,
            "tau_star": self.tau_star,
            "kappa_star": self.kappa_star if math.isfinite(self.kappa_star) else None,
            "kappa_limit": None if self.attained else ("+inf" if self.kappa_star > 0 else "-inf"),
            "status": self.status,
            "attained": self.attained,
            "error": self.error,
            "kappa_error": self.kappa_error if math.isfinite(self.kappa_error) else None,
            "derivative": self.derivative,
            "curvature": self.curvature,
            "iterations": self.iterations,
            "method": self.method,
            "rule": self.rule,
            "centered": self.centered,
            "fit_constant": self.fit_constant,
            "message": self.message,
        }
        return d


@dataclass(frozen=True)
class TauStarGrid:
    """τ* over a grid of input scales (arrays broadcast to a common shape).

    Attributes are arrays of that shape: ``tau_star``, ``kappa_star`` (±inf when not attained),
    ``status`` (object array of strings), ``iterations``, ``error``, ``kappa_error``,
    ``derivative``, ``curvature``, ``level`` (how many refinements were needed), and the
    broadcast ``student_scale``, ``teacher_scale``. ``rule`` names the level-0 rule.
    """

    tau_star: np.ndarray
    kappa_star: np.ndarray
    status: np.ndarray
    iterations: np.ndarray
    error: np.ndarray
    kappa_error: np.ndarray
    derivative: np.ndarray
    curvature: np.ndarray
    level: np.ndarray
    student_scale: np.ndarray
    teacher_scale: np.ndarray
    student: str
    teacher: str
    centered: bool
    fit_constant: bool
    rule: str
    messages: dict = field(default_factory=dict, compare=False)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tau_star.shape

    def result(self, index) -> TauStarResult:
        """The :class:`TauStarResult` at ``index`` (an index into the grid's shape)."""
        st = str(self.status[index])
        k = float(self.kappa_star[index])
        attained = st in ("interior", "zero")
        rule = self.rule if self.level[index] == 0 else f"{self.rule}(level {int(self.level[index])})"
        return TauStarResult(
            tau_star=float(self.tau_star[index]),
            kappa_star=k,
            status=st,
            attained=attained,
            iterations=int(self.iterations[index]),
            error=float(self.error[index]),
            kappa_error=float(self.kappa_error[index]),
            derivative=float(self.derivative[index]),
            curvature=float(self.curvature[index]),
            method="compiled",
            rule=rule,
            student=self.student,
            teacher=self.teacher,
            student_scale=float(self.student_scale[index]),
            teacher_scale=float(self.teacher_scale[index]),
            centered=self.centered,
            fit_constant=self.fit_constant,
            message=self.messages.get(np.ravel_multi_index(index, self.shape) if self.shape else 0, ""),
        )

    def results(self) -> list[TauStarResult]:
        """All points, in C order."""
        return [self.result(np.unravel_index(i, self.shape)) for i in range(self.tau_star.size)]

    def rows(self) -> list[dict]:
        """One JSON-friendly dict per grid point (see :meth:`TauStarResult.as_dict`)."""
        return [r.as_dict() for r in self.results()]


class TauObjective(tuple):
    """``(value, derivative, second_derivative, error)`` of τ at the requested κ (arrays)."""

    __slots__ = ()

    def __new__(cls, value, derivative, second_derivative, error):
        return tuple.__new__(cls, (value, derivative, second_derivative, error))

    value = property(lambda self: self[0])
    derivative = property(lambda self: self[1])
    second_derivative = property(lambda self: self[2])
    error = property(lambda self: self[3])


# ---------------------------------------------------------------------------------------------
# problem description
# ---------------------------------------------------------------------------------------------
def _raw(spec, role: str) -> Activation:
    if isinstance(spec, Activation):
        return activation(spec, center=False)
    if not isinstance(spec, str):
        raise ParameterError(role, spec, "an activation name, an expression in x or an Activation")
    try:
        return activation(spec, center=False)
    except ParameterError:
        raise
    except Exception as exc:  # ExpressionError and friends: name the argument
        raise ParameterError(role, spec, "a built-in name or a safe expression in x", str(exc)) from None


def _scales(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=object if not isinstance(value, np.ndarray) else None)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "positive finite numbers (an array of input scales)") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)) or not np.all(arr > 0):
        raise ParameterError(name, value, "> 0 and finite (input scale of the activation)")
    return arr


@lru_cache(maxsize=128)
def activation_limits(act: Activation) -> tuple[float | None, float | None]:
    """(σ(−∞), σ(+∞)) of the raw activation when finite (decided with sympy), else ``None``.

    >>> activation_limits(activation("tanh", center=False))
    (-1.0, 1.0)
    >>> activation_limits(activation("relu", center=False))
    (0.0, None)
    """
    x = sp.Symbol("x", real=True)
    expr = act.raw.subs(next(iter(act.raw.free_symbols), x), x) if act.raw.free_symbols else act.raw
    out = []
    for direction in (-sp.oo, sp.oo):
        try:
            lim = sp.limit(expr, x, direction)
        except Exception:  # pragma: no cover - sympy gives up: treat as no finite limit
            out.append(None)
            continue
        try:
            val = float(lim) if (lim.is_number and lim.is_finite and lim.is_real) else None
        except (TypeError, ValueError):  # AccumBounds (sin), unevaluated limits
            val = None
        out.append(val if val is not None and math.isfinite(val) else None)
    return tuple(out)


def _gauss_mean(act: Activation, scale: float, weight=None) -> tuple[float, float]:
    """E[weight(z) σ(scale z)] by composite quadrature split at the kinks (value, error)."""
    kinks = tuple(k / scale for k in act.kinks)
    if weight is None:
        return expect(lambda z: act.numpy(scale * z), kinks)
    return expect(lambda z: weight(z) * act.numpy(scale * z), kinks)


@dataclass(frozen=True)
class _Problem:
    student: Activation  # raw
    teacher: Activation  # raw
    center: bool
    fit_constant: bool
    a: np.ndarray  # flattened student scales per point
    b: np.ndarray  # flattened teacher scales per point
    shape: tuple

    @property
    def a_unique(self):
        return np.unique(self.a)

    @property
    def b_unique(self):
        return np.unique(self.b)


def _check_tails(act: Activation, scales: np.ndarray, role: str, half_width: float = 10.0) -> None:
    """Refuse functions whose Gaussian tails are not negligible at |x| = L (e.g. exp(x²)): the
    truncated quadrature would silently return a wrong number."""
    for sc in np.unique(scales):
        x = np.array([-half_width, -half_width / 2, 0.5, half_width / 2, half_width])
        with np.errstate(all="ignore"):
            v = act.numpy(float(sc) * x)
        body = float(np.max(v[1:4] ** 2)) + 1.0
        tail = float(np.exp(-0.5 * half_width**2) * max(v[0] ** 2, v[-1] ** 2))
        if not np.all(np.isfinite(v)) or tail > 1e-14 * body:
            raise ParameterError(
                role,
                act.name,
                "a function with E f(z)² < ∞ and negligible Gaussian tails at |z| = 10",
                f"|f(±{half_width:g}·{float(sc):g})|² e^(−{half_width**2 / 2:g}) is not negligible",
            )


def _make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale) -> _Problem:
    s = _raw(student, "student")
    t = _raw(teacher, "teacher")
    if not isinstance(center, (bool, np.bool_)):
        raise ParameterError("center", center, "True or False")
    if not isinstance(fit_constant, (bool, np.bool_)):
        raise ParameterError("fit_constant", fit_constant, "True or False")
    a = _scales("student_scale", student_scale)
    b = _scales("teacher_scale", teacher_scale)
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise ParameterError(
            "student_scale/teacher_scale", (np.shape(a), np.shape(b)), "arrays of broadcastable shapes"
        ) from None
    _check_tails(s, a, "student")
    _check_tails(t, b, "teacher")
    return _Problem(s, t, bool(center), bool(fit_constant), a.ravel().copy(), b.ravel().copy(), a.shape)


def _display(act: Activation) -> str:
    return act.name


# ---------------------------------------------------------------------------------------------
# quadrature rules for the compiled path
# ---------------------------------------------------------------------------------------------
def _kinked(act: Activation) -> bool:
    return len(act.kinks) > 0


def _rule_kinds(prob: _Problem, cfg: TauStarConfig) -> tuple[str, str]:
    """(outer, inner) kind: ``trapezoid``, ``hermite`` or ``composite``."""
    if cfg.rule in ("hermite", "trapezoid"):
        for act, role in ((prob.teacher, "teacher"), (prob.student, "student")):
            if _kinked(act):
                raise ParameterError(
                    "rule",
                    cfg.rule,
                    "'auto' or 'composite' for a kinked activation",
                    f"{role} {act.name} has kinks",
                )
        return cfg.rule, cfg.rule
    if cfg.rule == "composite":
        return "composite", "composite"
    return (
        "composite" if _kinked(prob.teacher) else "trapezoid",
        "composite" if _kinked(prob.student) else "trapezoid",
    )


#: Each level multiplies the resolution by this factor (trapezoid: h / 1.5; others: nodes × 1.5).
LEVEL_FACTOR = 1.5


def _resolution(kind: str, cfg: TauStarConfig, level: int, scan: bool = False, scale: float = 1.0):
    """Step (trapezoid) or node count (hermite, composite order) at ``level``. The trapezoidal
    step is divided by max(1, scale): σ(s·) is analytic in a strip s times narrower."""
    f = LEVEL_FACTOR**level
    if kind == "trapezoid":
        if scan:  # the scan only locates the bracket: no adaptation to the scale
            return cfg.scan_step
        return cfg.step / f / max(1.0, scale)
    if kind == "hermite":
        return int(round((cfg.scan_degree if scan else cfg.degree) * f))
    return int(round((cfg.scan_order if scan else cfg.order) * f))


def _rule_name(kinds: tuple[str, str], cfg: TauStarConfig, level: int) -> str:
    def one(kind):
        r = _resolution(kind, cfg, level)
        return f"trapezoid-h{r:.4g}" if kind == "trapezoid" else f"{kind}-{r}"

    o, i = kinds
    return one(o) if o == i else f"outer {one(o)}, inner {one(i)}"


def trapezoid_rule(step: float, half_width: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the truncated trapezoidal rule for E f(z), z ~ N(0, 1): nodes
    kh on [−L, L], weights h φ(kh). Spectrally accurate for smooth integrands."""
    n = int(math.floor(half_width / step + 1e-9))
    x = step * np.arange(-n, n + 1, dtype=float)
    w = step * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return x, w


def _nodes(kind, kinks_scaled, resolution, cfg):
    if kind == "trapezoid":
        return trapezoid_rule(resolution, cfg.half_width)
    if kind == "hermite":
        if resolution <= 150:
            return hermite_rule(resolution)
        from scipy.special import roots_hermitenorm  # numpy's hermegauss overflows beyond ~300 nodes

        x, w = roots_hermitenorm(resolution)
        return x, w / w.sum()
    return composite_rule(tuple(sorted(kinks_scaled)), resolution, cfg.half_width, 1.0)


@dataclass(frozen=True)
class _Rules:
    """Arrays handed to the compiled kernels for one level of accuracy."""

    x: np.ndarray  # (B, n) outer nodes per unique teacher scale (zero weights pad)
    w: np.ndarray
    t: np.ndarray  # teacher values (centred) at the outer nodes
    mode: int  # inner: 0 fixed nodes, 1 split composite
    z: np.ndarray  # (A, m) inner nodes per unique student scale (mode 0)
    wz: np.ndarray
    glx: np.ndarray
    glw: np.ndarray


def _teacher_offsets(prob: _Problem, b_unique) -> np.ndarray:
    if not prob.center:
        return np.zeros(len(b_unique))
    return np.array([_gauss_mean(prob.teacher, float(b))[0] for b in b_unique])


def _student_offsets(prob: _Problem, a_unique) -> np.ndarray:
    if not prob.center:
        return np.zeros(len(a_unique))
    return np.array([_gauss_mean(prob.student, float(a))[0] for a in a_unique])


def _pad(rows):
    n = max(len(r[0]) for r in rows)
    X = np.zeros((len(rows), n))
    W = np.zeros((len(rows), n))
    for i, (x, w) in enumerate(rows):
        X[i, : len(x)] = x
        W[i, : len(w)] = w
    return X, W


def _build_rules(prob, kinds, level, cfg, b_unique, a_unique, t_off, scan=False) -> _Rules:
    outer_kind, inner_kind = kinds
    rows = []
    for b in b_unique:
        r_out = _resolution(outer_kind, cfg, level, scan, float(b))
        x, w = _nodes(outer_kind, [k / b for k in prob.teacher.kinks], r_out, cfg)
        rows.append((np.asarray(x), np.asarray(w)))
    X, W = _pad(rows)
    T = np.zeros_like(X)
    for i, (x, _) in enumerate(rows):
        with np.errstate(all="ignore"):
            T[i, : len(x)] = prob.teacher.numpy(b_unique[i] * x) - t_off[i]
    if not np.all(np.isfinite(T)):
        raise ParameterError("teacher", prob.teacher.name, "a function finite on the real line")
    if inner_kind == "composite":
        Z = WZ = np.zeros((len(a_unique), 1))
        mode = 1
        glx, glw = np.polynomial.legendre.leggauss(_resolution(inner_kind, cfg, level, scan))
    else:
        Z, WZ = _pad(
            [
                _nodes(inner_kind, (), _resolution(inner_kind, cfg, level, scan, float(a)), cfg)
                for a in a_unique
            ]
        )
        mode = 0
        glx = glw = np.zeros(1)
    return _Rules(X, W, T, mode, Z, WZ, glx, glw)


def _kinks_table(prob: _Problem, a_unique) -> np.ndarray:
    k = np.array(sorted(prob.student.kinks), dtype=float)
    if k.size == 0:
        return np.zeros((len(a_unique), 0))
    return np.array([k / a for a in a_unique])


def _scan_grid(kmin: float, kmax: float, per_decade: int) -> np.ndarray:
    n = max(4, int(math.ceil(per_decade * math.log10(kmax / kmin))) + 1)
    g = np.geomspace(kmin, kmax, n)
    return np.concatenate([-g[::-1], [0.0], g])


# ---------------------------------------------------------------------------------------------
# the compiled path
# ---------------------------------------------------------------------------------------------
class _Compiled:
    """Holds rules and kernels for one problem; levels are built lazily."""

    def __init__(self, prob: _Problem, cfg: TauStarConfig):
        self.prob = prob
        self.cfg = cfg
        self.kinds = _rule_kinds(prob, cfg)

        self.a_u, self.a_idx = np.unique(prob.a, return_inverse=True)
        self.b_u, self.b_idx = np.unique(prob.b, return_inverse=True)
        self.t_off = _teacher_offsets(prob, self.b_u)
        self.s_off = _student_offsets(prob, self.a_u)
        self.offs = self.s_off[self.a_idx]
        self.kinks = _kinks_table(prob, self.a_u)
        self._levels: dict[int, _Rules] = {}
        self.scan_rules = _build_rules(prob, self.kinds, 0, cfg, self.b_u, self.a_u, self.t_off, scan=True)

    @property
    def k(self):
        """The generated kernel module (compiled on first use, then cached on disk)."""
        _ = self.prob.student.f  # import the student's compiled module before the kernels refer to it
        return _kernels.student_kernels(self.prob.student._raw_module().__name__)

    def rules(self, level: int) -> _Rules:
        if level not in self._levels:
            self._levels[level] = _build_rules(
                self.prob, self.kinds, level, self.cfg, self.b_u, self.a_u, self.t_off
            )
        return self._levels[level]

    def _point_args(self, idx):
        """Per-point arguments shared by the compiled grid kernels (scales, offsets, teacher)."""
        return self.prob.a[idx], self.offs[idx], self.prob.fit_constant, self.b_idx[idx]

    def _rule_args(self, r, idx):
        """Quadrature-rule arguments shared by the compiled grid kernels."""
        return (r.x, r.w, r.t, r.mode, r.z, r.wz, self.kinks, self.a_idx[idx], self.cfg.half_width, 1.0,
                r.glx, r.glw)

    def objective(self, kappas, idx, level):
        """(n, 3) array of τ, τ', τ'' at kappas[i] for points idx[i]."""
        r = self.rules(level)
        return self.k.objective_grid(
            np.ascontiguousarray(kappas, dtype=float),
            *self._point_args(idx),
            *self._rule_args(r, idx),
        )

    def minimise(self, idx, level, kscan):
        r = self.rules(level)
        s = self.scan_rules
        return self.k.minimise_grid(
            *self._point_args(idx),
            kscan,
            s.x,
            s.w,
            s.t,
            s.z,
            s.wz,
            s.glx,
            s.glw,
            *self._rule_args(r, idx),
            self.cfg.xtol,
            self.cfg.max_iter,
        )

    def refine(self, k0, width, idx, level):
        r = self.rules(level)
        return self.k.refine_grid(
            np.ascontiguousarray(k0, dtype=float),
            np.ascontiguousarray(width, dtype=float),
            *self._point_args(idx),
            *self._rule_args(r, idx),
            self.cfg.xtol,
            self.cfg.max_iter,
        )

    # limits κ → ±∞ -------------------------------------------------------------------------
    def limit_values(self):
        """τ(+∞), τ(−∞) and their errors per point (inf when the student has no finite limits).

        As κ → s·∞ (s = ±1), E_ξ2 σ(a(κξ1 + ξ2)) − o → S(ξ1) = c₊ on s·ξ1 > 0 and c₋ on s·ξ1 < 0,
        c± = σ(±∞) − o(a). With T± = E[t 1{±ξ1 > 0}] and M = E t²:
        τ(s·∞) = M − 2(c₊T_s + c₋T_{−s}) + (c₊² + c₋²)/2 (minus (T₊ + T₋ − (c₊ + c₋)/2)² with a
        free constant). The three teacher integrals are computed once per teacher scale."""
        lo, hi = activation_limits(self.prob.student)
        n = self.prob.a.size
        out = np.full((n, 2), np.inf)
        err = np.zeros((n, 2))
        if lo is None or hi is None:
            return out, err
        t = self.prob.teacher
        moments = []
        for bi, b in enumerate(self.b_u):
            tk = tuple(k / b for k in t.kinks) + (0.0,)

            def tv(x, b=b, bi=bi):
                return t.numpy(b * x) - self.t_off[bi]

            m2, e2 = expect(lambda x, f=tv: f(x) ** 2, tk)
            tp, ep = expect(lambda x, f=tv: np.where(x > 0, f(x), 0.0), tk)
            tm, em = expect(lambda x, f=tv: np.where(x < 0, f(x), 0.0), tk)
            moments.append((m2, tp, tm, e2 + 2 * (ep + em)))
        mom = np.array(moments)[self.b_idx]  # (n, 4)
        m2, tp, tm, e = mom.T
        cp = hi - self.offs
        cm = lo - self.offs
        half_sq = 0.5 * (cp * cp + cm * cm)
        plus = m2 - 2 * (cp * tp + cm * tm) + half_sq
        minus = m2 - 2 * (cp * tm + cm * tp) + half_sq
        if self.prob.fit_constant:
            shift = (tp + tm - 0.5 * (cp + cm)) ** 2
            plus, minus = plus - shift, minus - shift
        out[:, 0] = np.maximum(plus, 0.0)
        out[:, 1] = np.maximum(minus, 0.0)
        scale = 1.0 + np.abs(cp) + np.abs(cm)
        err[:, 0] = err[:, 1] = e * scale + 1e-15 * (np.abs(m2) + half_sq)
        return out, err


def _solve_compiled(prob: _Problem, cfg: TauStarConfig, on_failure: str) -> TauStarGrid:
    c = _Compiled(prob, cfg)
    n = prob.a.size
    kappa = np.zeros(n)
    tau = np.zeros(n)
    d1 = np.zeros(n)
    d2 = np.zeros(n)
    its = np.zeros(n, dtype=np.int64)
    err = np.zeros(n)
    kerr = np.zeros(n)
    level = np.zeros(n, dtype=np.int64)
    status = np.empty(n, dtype=object)
    messages: dict[int, str] = {}
    reasons = {
        _kernels.MAX_ITER: "maximum iterations reached",
        _kernels.NONFINITE: "non-finite objective",
        _kernels.NO_STATIONARY: "no stationary point in the scanned bracket",
    }

    def record(p, res_row, it, e, ke, lev, st):
        kappa[p], tau[p], d1[p], d2[p] = res_row
        its[p], err[p], kerr[p], level[p] = it, e, ke, lev
        status[p] = st

    def full_scan(idx, lev):
        """Scan + Newton at ``lev``; enlarges the κ range for points whose best value is at its end.
        Returns the points that produced a candidate, with their results."""
        kmax = cfg.kappa_max
        out_idx, out_res, out_info = [], [], []
        while idx.size:
            res, info = c.minimise(idx, lev, _scan_grid(cfg.kappa_min, kmax, cfg.scan_per_decade))
            edge = info[:, 0] == _kernels.EDGE
            out_idx.append(idx[~edge])
            out_res.append(res[~edge])
            out_info.append(info[~edge])
            if kmax >= cfg.kappa_max_limit:
                for j in np.flatnonzero(edge):
                    record(idx[j], res[j], 0, 0.0, math.inf, lev, "edge")
                break
            idx = idx[edge]
            kmax = min(kmax * 100.0, cfg.kappa_max_limit)
        return np.concatenate(out_idx), np.concatenate(out_res), np.concatenate(out_info)

    def main_scan(idx, lev):
        """Fallback when the cheap scan misled Newton: scan with the main rule, then Newton
        between the neighbours of the best scanned point."""
        kscan = _scan_grid(cfg.kappa_min, cfg.kappa_max_limit, cfg.scan_per_decade)
        ns = kscan.size
        vals = c.objective(np.tile(kscan, idx.size), np.repeat(idx, ns), lev)[:, 0].reshape(idx.size, ns)
        vals = np.where(np.isfinite(vals), vals, np.inf)
        best = np.argmin(vals, axis=1)
        edge = (best == 0) | (best == ns - 1)
        for j in np.flatnonzero(edge):
            record(idx[j], (kscan[best[j]], vals[j, best[j]], 0.0, 0.0), 0, 0.0, math.inf, lev, "edge")
        keep = ~edge
        b = best[keep]
        k0 = kscan[b]
        width = np.maximum(kscan[b + 1] - k0, k0 - kscan[b - 1]) if b.size else np.zeros(0)
        res, info = c.refine(k0, width, idx[keep], lev)
        return idx[keep], res, info

    cold = np.arange(n, dtype=np.int64)  # points needing a scan
    warm = np.zeros(0, dtype=np.int64)  # points refined from their previous κ
    for lev in range(cfg.max_level + 1):
        parts = []
        if warm.size:
            k0 = kappa[warm]
            res, info = c.refine(k0, 0.25 * (1.0 + np.abs(k0)), warm, lev)
            lost = info[:, 0] == _kernels.NO_STATIONARY
            cold = np.concatenate([cold, warm[lost]])
            parts.append((warm[~lost], res[~lost], info[~lost]))
        if cold.size:
            parts.append(full_scan(cold, lev) if lev == 0 else main_scan(cold, lev))
        cold = np.zeros(0, dtype=np.int64)
        nxt, rescan = [], []
        for idx, res, info in parts:
            if not idx.size:
                continue
            ref = c.objective(res[:, 0], idx, lev + 1)
            for j, p in enumerate(idx):
                st, it, _ = info[j]
                k, v = res[j, 0], res[j, 1]
                rv, rg, rh = ref[j]
                e = abs(v - rv)
                ke = abs(rg / rh) if rh > 0 else math.inf
                ok_num = st == _kernels.CONVERGED and math.isfinite(v) and rh > 0
                ok_acc = e <= cfg.atol + cfg.rtol * abs(v) and ke <= cfg.kappa_rtol * (1.0 + abs(k))
                if ok_num and ok_acc:
                    record(p, res[j], it, e, ke, lev, "zero" if abs(k) <= cfg.zero_tol else "interior")
                    if status[p] == "zero":
                        kappa[p] = 0.0
                elif lev < cfg.max_level and st in (_kernels.CONVERGED, _kernels.MAX_ITER):
                    record(p, res[j], it, e, ke, lev, "pending")
                    nxt.append(p)
                elif lev < cfg.max_level and st == _kernels.NO_STATIONARY:
                    record(p, res[j], it, e, ke, lev, "pending")
                    rescan.append(p)
                else:
                    record(p, res[j], it, e, ke, lev, "failed")
                    messages[int(p)] = reasons.get(
                        int(st),
                        f"quadrature error {e:.2e} / κ change {ke:.2e} above tolerance at level {lev}",
                    )
        warm = np.array(nxt, dtype=np.int64)
        cold = np.array(rescan, dtype=np.int64)
        if not (warm.size or cold.size):
            break

    # the infimum may be a limit κ → ±∞ (student with finite limits at ±∞)
    lim, lim_err = c.limit_values()
    for p in range(n):
        best_lim = int(np.argmin(lim[p]))
        lv = lim[p, best_lim]
        tol = cfg.atol + cfg.rtol * abs(lv) + lim_err[p, best_lim] + err[p]
        if status[p] in ("failed", "edge"):
            # the scan kept decreasing to the end of its range, or no stationary point could be
            # pinned down: the infimum is the exact limit if that is below every value seen
            # (at the end of the scanned range the quadrature cannot resolve the step of width
            # 1/|κ|: there the comparison allows a relative 1e-3)
            slack = max(tol, 1e-3 * abs(tau[p])) if status[p] == "edge" else tol
            if math.isfinite(lv) and lv <= tau[p] + slack:
                why = messages.pop(int(p), "")
                messages[int(p)] = "the objective decreases towards the limit" + (f" ({why})" if why else "")
            else:
                if status[p] == "edge":
                    messages[int(p)] = (
                        f"the best scanned value is at |κ| = {cfg.kappa_max_limit:g} and the student has no finite"
                        " limit there to compare with"
                    )
                status[p] = "failed"
                continue
        elif not (math.isfinite(lv) and lv < tau[p] - tol):
            continue
        # infimum at infinity
        sign = 1.0 if best_lim == 0 else -1.0
        msg = f"no finite minimiser: τ(κ) → {lv:.6g} as κ → {'+' if sign > 0 else '-'}∞"
        if status[p] in ("interior", "zero"):
            msg += f" (below the finite local minimum {tau[p]:.6g} at κ = {kappa[p]:.6g})"
        elif messages.get(int(p)):
            msg += f"; {messages[int(p)]}"
        kappa[p], tau[p], d1[p], d2[p] = sign * math.inf, lv, 0.0, 0.0
        err[p], kerr[p] = lim_err[p, best_lim], math.inf
        status[p] = "to_plus_infinity" if sign > 0 else "to_minus_infinity"
        messages[int(p)] = msg

    # a second minimiser at −κ* (τ is even in κ when σ* is even and σ odd, or vice versa)
    for lev in np.unique(level):
        interior = [p for p in range(n) if status[p] == "interior" and level[p] == lev]
        if not interior:
            continue
        idx = np.array(interior, dtype=np.int64)
        mirrored = c.objective(-kappa[idx], idx, int(lev))
        for j, p in enumerate(interior):
            if abs(mirrored[j, 0] - tau[p]) <= 10 * (cfg.atol + cfg.rtol * abs(tau[p]) + err[p]):
                if kappa[p] < 0:  # report the positive one of the pair
                    kappa[p], d1[p] = -kappa[p], -d1[p]
                note = f"also attained at κ = {-kappa[p]:.6g} (τ is even in κ here)"
                messages[int(p)] = f"{messages[int(p)]}; {note}" if messages.get(int(p)) else note

    tau = np.maximum(tau, 0.0)  # τ ≥ 0; rounding can give −1e-33 for an exact zero
    grid = TauStarGrid(
        tau_star=tau.reshape(prob.shape),
        kappa_star=kappa.reshape(prob.shape),
        status=status.reshape(prob.shape),
        iterations=its.reshape(prob.shape),
        error=err.reshape(prob.shape),
        kappa_error=kerr.reshape(prob.shape),
        derivative=d1.reshape(prob.shape),
        curvature=d2.reshape(prob.shape),
        level=level.reshape(prob.shape),
        student_scale=prob.a.reshape(prob.shape),
        teacher_scale=prob.b.reshape(prob.shape),
        student=_display(prob.student),
        teacher=_display(prob.teacher),
        centered=prob.center,
        fit_constant=prob.fit_constant,
        rule=_rule_name(c.kinds, cfg, 0),
        messages=messages,
    )
    failed = [int(p) for p in range(n) if status[p] == "failed"]
    if failed and on_failure == "raise":
        first = failed[0]
        raise ConvergenceError(
            f"τ* did not converge at {len(failed)} of {n} point(s); first: student_scale={prob.a[first]:g}, "
            f"teacher_scale={prob.b[first]:g}: {messages.get(first, '')}",
            grid,
        )
    return grid


# ---------------------------------------------------------------------------------------------
# degeneracy: κᵢ ∝ μ1 μ1*
# ---------------------------------------------------------------------------------------------
def _first_hermite(act: Activation, scale: float) -> float:
    return _gauss_mean(act, scale, weight=lambda z: z)[0]


def _degeneracy_text(mu1: float, mu1_star: float) -> str:
    if abs(mu1 * mu1_star) <= 1e-12:
        which = "μ1* = 0 (teacher)" if abs(mu1_star) <= 1e-12 else "μ1 = 0 (student)"
        return (
            f"{which}: κᵢ = c μ1 μ1* √N aᵢ = 0, one large step does not move the neurons along β*; τ* is the"
            " infimum over κ but no κ ≠ 0 is reached by training"
        )
    return ""


def _degeneracy_message(prob: _Problem, a: float, b: float) -> str:
    return _degeneracy_text(_first_hermite(prob.student, a), _first_hermite(prob.teacher, b))


# ---------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------
def _closed_form(prob: _Problem, a: float, b: float) -> TauStarResult | None:
    s, t = prob.student.builtin, prob.teacher.builtin
    common = dict(
        iterations=0,
        method="closed-form",
        rule="closed-form",
        student=_display(prob.student),
        teacher=_display(prob.teacher),
        student_scale=a,
        teacher_scale=b,
        centered=prob.center,
        fit_constant=prob.fit_constant,
    )
    if s == "erf" and t == "erf":
        # E_z erf(a(m + z)) = erf(a m / sqrt(1 + 2a²)): matches erf(b ξ1) iff aκ/√(1+2a²) = b
        kappa = b * math.sqrt(1.0 + 2.0 * a * a) / a
        if a == 1.0 and b == 1.0:
            kappa = math.sqrt(3.0)
        curv = 2.0 * _erf_curvature(a, b, kappa)
        return TauStarResult(
            tau_star=0.0,
            kappa_star=kappa,
            status="interior",
            attained=True,
            error=0.0,
            kappa_error=0.0,
            derivative=0.0,
            curvature=curv,
            message="E_ξ2 erf(a(κξ1 + ξ2)) = erf(aκξ1/√(1+2a²)) reproduces the teacher exactly",
            **common,
        )
    if s == "linear":
        # σ(ax) = a x: G(m) = a m (centring changes nothing), τ(κ) = E(t − aκξ1)²
        kinks_b = tuple(k / b for k in prob.teacher.kinks)
        mean_raw, e0 = _gauss_mean(prob.teacher, b)
        t_off = mean_raw if prob.center else 0.0
        m1, e1 = _gauss_mean(prob.teacher, b, weight=lambda z: z)
        second, e2 = expect(lambda z: (prob.teacher.numpy(b * z) - t_off) ** 2, kinks_b)
        mean = mean_raw - t_off
        tau = second - m1 * m1 - (mean * mean if prob.fit_constant else 0.0)
        kappa = m1 / a
        zero = abs(kappa) <= 1e-12
        return TauStarResult(
            tau_star=max(tau, 0.0),
            kappa_star=0.0 if zero else kappa,
            status="zero" if zero else "interior",
            attained=True,
            error=e0 + e1 + e2,
            kappa_error=e1 / a,
            derivative=0.0,
            curvature=2.0 * a * a,
            message="linear student: κ* = μ1*/a, τ* = E σ*² − μ1*² (constants by quadrature)",
            **common,
        )
    return None


def _erf_curvature(a: float, b: float, kappa: float) -> float:
    """E[ξ1² G'(κξ1)²] for σ = erf(a·) at the exact fit (τ'' = 2 × this)."""
    s = a / math.sqrt(1.0 + 2.0 * a * a)
    x, w = hermite_rule(80)
    gp = 2.0 / math.sqrt(math.pi) * s * np.exp(-((s * kappa * x) ** 2))
    return float(np.dot(w, x * x * gp * gp))


# ---------------------------------------------------------------------------------------------
# the mpmath path
# ---------------------------------------------------------------------------------------------
class _MpRules:
    """Rules of the mpmath path: the trapezoidal rule (smooth) or composite Gauss–Legendre split
    at the kinks (kinked), with a resolution set by the working precision."""

    def __init__(self, prob: _Problem, a: float, b: float, dps: int):
        self.prob = prob
        self.dps = dps
        self.A = mpmath.mpf(a)
        self.B = mpmath.mpf(b)
        self.s_mp = prob.student._raw_module().f_mp
        self.t_mp = prob.teacher._raw_module().f_mp
        self.s_kinks = [mpmath.mpf(k) / self.A for k in sorted(prob.student.kinks)]
        self.t_kinks = sorted(mpmath.mpf(k) / self.B for k in prob.teacher.kinks)
        digits = dps + 5
        # Gaussian tail beyond L below 10^-digits; trapezoid step h with exp(−2πd/h) = 10^-digits
        # for a strip of half-width d = 1.2 (checked by the rule h/2; tanh/tanh behaves like
        # d ≈ 1.35: error ≈ exp(−8.5/h))
        self.L = mpmath.sqrt(2 * digits * mpmath.log(10)) + 1
        self.h0 = 2.4 * mpmath.pi / (digits * mpmath.log(10))
        # Gauss–Legendre nodes per unit panel: 3·2^(degree−1) (12 up to 24 digits, then 24)
        self.gl_degree0 = 3 if digits <= 24 else 4
        self.closed_inner = self._closed_inner(prob.student.builtin)
        c = 1 / mpmath.sqrt(2 * mpmath.pi)
        self.phi = lambda u: c * mpmath.exp(-u * u / 2)
        self.off_s = (
            expect_mp(lambda z: self.s_mp(self.A * z), [float(k) for k in self.s_kinks], dps=dps)
            if prob.center
            else 0
        )
        self.off_t = (
            expect_mp(lambda x: self.t_mp(self.B * x), [float(k) for k in self.t_kinks], dps=dps)
            if prob.center
            else 0
        )
        self._cache = {}

    def _closed_inner(self, name):
        """(G + o, G', G'') of m in closed form for some students (None otherwise):
        relu: E relu(a(m+z)) = a(mΦ(m) + φ(m)), G' = aΦ(m), G'' = aφ(m);
        erf: E erf(a(m+z)) = erf(sm), s = a/√(1+2a²), G' = 2s/√π e^{−s²m²}, G'' = −2s²m G';
        linear: a m, a, 0."""
        A = self.A
        if name == "relu":
            return lambda m: (A * (m * mpmath.ncdf(m) + self.phi(m)), A * mpmath.ncdf(m), A * self.phi(m))
        if name == "erf":
            sc = A / mpmath.sqrt(1 + 2 * A * A)

            def g(m):
                d = 2 * sc / mpmath.sqrt(mpmath.pi) * mpmath.exp(-((sc * m) ** 2))
                return mpmath.erf(sc * m), d, -2 * sc * sc * m * d

            return g
        if name == "linear":
            return lambda m: (A * m, A, mpmath.mpf(0))
        return None

    def _gl(self, level):
        key = ("gl", level)
        if key not in self._cache:
            from mpmath.calculus.quadrature import GaussLegendre

            self._cache[key] = GaussLegendre(mpmath.mp).calc_nodes(self.gl_degree0 + level, mpmath.mp.prec)
        return self._cache[key]

    def _composite(self, lo_hi_breaks, level):
        """Nodes/weights (Gaussian weight included) on [−L, L], unit panels split at ``breaks``."""
        L = int(mpmath.ceil(self.L))
        edges = sorted({mpmath.mpf(e) for e in range(-L, L + 1)} | {b for b in lo_hi_breaks if -L < b < L})
        xs, ws = [], []
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            half, mid = (hi - lo) / 2, (hi + lo) / 2
            for t, wt in self._gl(level):
                u = mid + half * t
                xs.append(u)
                ws.append(half * wt * self.phi(u))
        return xs, ws

    def _trapezoid(self, level):
        key = ("trap", level)
        if key not in self._cache:
            h = self.h0 / 2**level
            n = int(mpmath.floor(self.L / h))
            xs = [k * h for k in range(-n, n + 1)]
            self._cache[key] = (xs, [h * self.phi(u) for u in xs])
        return self._cache[key]

    def outer(self, level):
        if self.t_kinks or self.prob.teacher.kinks:
            key = ("outer", level)
            if key not in self._cache:
                self._cache[key] = self._composite(self.t_kinks, level)
            return self._cache[key]
        return self._trapezoid(level)

    def inner(self, m, level):
        if self.s_kinks:
            return self._composite([k - m for k in self.s_kinks], level)
        return self._trapezoid(level)

    @property
    def nested(self) -> bool:
        """Whether both rules are trapezoidal (the rule of step h is every other node of h/2)."""
        return self.closed_inner is None and not (self.s_kinks or self.t_kinks or self.prob.teacher.kinks)

    def objective(self, kappa, level, with_coarse: bool = False):
        """(τ, τ', τ'') at κ in mpmath arithmetic (Stein derivatives, as the compiled kernels).

        With ``with_coarse`` (nested trapezoidal rules only) also returns the values of the
        rule of twice the step, from the same function values: ``(fine, coarse)``."""
        xs, ws = self.outer(level)
        zero = mpmath.mpf(0)
        acc = [[zero] * 6, [zero] * 6]  # fine, coarse: s0, s1, s2, rr, pp, qq
        center = (len(xs) - 1) // 2
        for i, (x, w) in enumerate(zip(xs, ws, strict=True)):
            m = kappa * x
            if self.closed_inner is not None:
                g0, g1, g2 = self.closed_inner(m)
                r = self.t_mp(self.B * x) - self.off_t - (g0 - self.off_s)
                a = acc[0]
                a[0] += w * r * r
                a[1] += w * r * x * g1
                a[2] += w * x * x * (g1 * g1 - r * g2)
                a[3] += w * r
                a[4] += w * x * g1
                a[5] += w * x * x * g2
                continue
            zs, wz = self.inner(m, level)
            vals = [wj * self.s_mp(self.A * (m + zj)) for zj, wj in zip(zs, wz, strict=True)]
            parts = [(vals, zs, w, acc[0])]
            if with_coarse and (i - center) % 2 == 0:
                zc = (len(zs) - 1) // 2
                sub = [2 * v for j, v in enumerate(vals) if (j - zc) % 2 == 0]
                zsub = [zj for j, zj in enumerate(zs) if (j - zc) % 2 == 0]
                parts.append((sub, zsub, 2 * w, acc[1]))
            for vv, zz, ww, a in parts:
                g0 = mpmath.fsum(vv) - self.off_s
                g1 = mpmath.fdot(vv, zz)
                g2 = mpmath.fsum(v * (zj * zj - 1) for v, zj in zip(vv, zz, strict=True))
                r = self.t_mp(self.B * x) - self.off_t - g0
                a[0] += ww * r * r
                a[1] += ww * r * x * g1
                a[2] += ww * x * x * (g1 * g1 - r * g2)
                a[3] += ww * r
                a[4] += ww * x * g1
                a[5] += ww * x * x * g2

        def assemble(a):
            s0, s1, s2, rr, pp, qq = a
            if self.prob.fit_constant:
                return s0 - rr * rr, -2 * (s1 - rr * pp), 2 * (s2 - pp * pp + rr * qq)
            return s0, -2 * s1, 2 * s2

        return (assemble(acc[0]), assemble(acc[1])) if with_coarse else assemble(acc[0])

    def rule_name(self, level):
        if self.closed_inner is not None:
            outer = (
                f"composite Gauss–Legendre ({3 * 2 ** (self.gl_degree0 + level - 1)} nodes/panel)"
                if self.t_kinks
                else f"trapezoid h={float(self.h0 / 2**level):.4g}"
            )
            return f"mpmath {outer}, closed-form inner expectation, {self.dps} digits"
        if self.s_kinks or self.t_kinks or self.prob.teacher.kinks:
            return f"mpmath composite Gauss–Legendre ({3 * 2 ** (self.gl_degree0 + level - 1)} nodes/panel), {self.dps} digits"
        return f"mpmath trapezoid h={float(self.h0 / 2**level):.4g}, {self.dps} digits"


def _solve_mp(
    prob: _Problem, a: float, b: float, dps: int, start: TauStarResult, max_level: int = 2
) -> TauStarResult:
    """Refine a compiled result in mpmath at ``dps`` digits (Newton on τ' from the compiled κ*;
    error from the rule of twice the resolution)."""
    with mpmath.workdps(dps + 10):
        R = _MpRules(prob, a, b, dps)
        tol_rel = mpmath.mpf(10) ** (-dps)
        if start.status in ("to_plus_infinity", "to_minus_infinity"):
            lo, hi = activation_limits(prob.student)
            sgn = 1 if start.status == "to_plus_infinity" else -1
            L_hi, L_lo = mpmath.mpf(hi) - R.off_s, mpmath.mpf(lo) - R.off_s

            def resid(x):
                return R.t_mp(R.B * x) - R.off_t - (L_hi if sgn * x > 0 else L_lo)

            kk = sorted({float(k) for k in R.t_kinks} | {0.0})
            value = expect_mp(lambda x: resid(x) ** 2, kk, dps=dps)
            if prob.fit_constant:
                m = expect_mp(resid, kk, dps=dps)
                value -= m * m
            return replace(
                start,
                tau_star=float(value),
                error=float(tol_rel * (1 + abs(value))),
                method="mpmath",
                rule=f"mpmath tanh–sinh, {dps} digits (exact limit κ → ±∞)",
            )
        scale = abs(R.objective(mpmath.mpf(0), 0)[0]) + tol_rel  # τ(0): the natural scale
        for level in range(max_level + 1):
            kappa = mpmath.mpf(start.kappa_star)
            its = 0
            if start.status == "interior":
                for its in range(1, 12):  # noqa: B007 - the count is reported
                    v, d1, d2 = R.objective(kappa, level)
                    if not d2 > 0:
                        raise ConvergenceError(
                            f"mpmath path: τ''(κ) = {float(d2):.3g} ≤ 0 at κ = {float(kappa)}", start
                        )
                    step = d1 / d2
                    kappa -= step
                    if abs(step) <= tol_rel * (1 + abs(kappa)):
                        break
            if R.nested:
                (v2, e1, e2), (v, d1, d2) = R.objective(kappa, level + 1, with_coarse=True)
            else:
                v, d1, d2 = R.objective(kappa, level)
                v2, e1, e2 = R.objective(kappa, level + 1)
            err = abs(v - v2)
            kerr = abs(e1 / e2) if e2 > 0 else mpmath.inf
            if err <= 100 * tol_rel * scale and (
                start.status == "zero" or kerr <= 100 * tol_rel * (1 + abs(kappa))
            ):
                return replace(
                    start,
                    tau_star=float(max(v2, 0)),
                    kappa_star=float(kappa),
                    derivative=float(e1),
                    curvature=float(e2),
                    error=float(err),
                    kappa_error=float(kerr) if start.status == "interior" else 0.0,
                    iterations=its,
                    method="mpmath",
                    rule=R.rule_name(level + 1),
                )
        raise ConvergenceError(
            f"mpmath path did not reach {dps} digits: quadrature difference {float(err):.3g}, κ change {float(kerr):.3g}",
            replace(start, tau_star=float(v2), kappa_star=float(kappa), error=float(err), method="mpmath"),
        )


# ---------------------------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------------------------
def tau_star_grid(
    student,
    teacher,
    *,
    student_scale=1.0,
    teacher_scale=1.0,
    center: bool = True,
    fit_constant: bool = False,
    config: TauStarConfig | None = None,
    on_failure: str = "raise",
) -> TauStarGrid:
    r"""τ* by the compiled path over a grid of input scales (σ(a x), σ*(b x)).

    ``student_scale`` and ``teacher_scale`` are broadcast against each other (e.g. a column and
    a row give a Cartesian grid). One generated, cached kernel per student does all points.
    ``on_failure="return"`` keeps failed points (status ``"failed"``, with a message) instead of
    raising :class:`~asymptotics.errors.ConvergenceError`.

    >>> g = tau_star_grid("tanh", "tanh", student_scale=[[1.0], [2.0]], teacher_scale=[1.0, 2.0])
    >>> g.shape, [str(s) for s in g.status.ravel()]
    ((2, 2), ['interior', 'interior', 'interior', 'interior'])
    """
    cfg = TauStarConfig() if config is None else config
    if not isinstance(cfg, TauStarConfig):
        raise ParameterError("config", cfg, "a TauStarConfig")
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    prob = _make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale)
    grid = _solve_compiled(prob, cfg, on_failure)
    # degeneracy notes (μ1 μ1* = 0): μ1 per student scale, μ1* per teacher scale
    mu1 = {a: _first_hermite(prob.student, a) for a in np.unique(prob.a)}
    mu1s = {b: _first_hermite(prob.teacher, b) for b in np.unique(prob.b)}
    first = ""
    for p in range(prob.a.size):
        text = _degeneracy_text(mu1[prob.a[p]], mu1s[prob.b[p]])
        if text:
            first = first or text
            grid.messages[p] = f"{grid.messages[p]}; {text}" if grid.messages.get(p) else text
    if first:
        warnings.warn(first, DegenerateWarning, stacklevel=2)
    return grid


def tau_star(
    student,
    teacher,
    *,
    student_scale: float = 1.0,
    teacher_scale: float = 1.0,
    center: bool = True,
    fit_constant: bool = False,
    method: str = "auto",
    dps: int = 30,
    config: TauStarConfig | None = None,
) -> TauStarResult:
    r"""τ* = inf_κ E_ξ1[(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²] and κ* for one pair (σ, σ*).

    Args:
        student: σ — a built-in name, an expression in ``x`` or an :class:`Activation`.
        teacher: σ* — likewise.
        student_scale, teacher_scale: input scales a, b > 0: σ(a x), σ*(b x).
        center: centre σ and σ* by their Gaussian means (Ba et al.'s assumption; default).
        fit_constant: let the oracle add the best constant (τ* = inf_κ Var(σ* − E_ξ2σ)).
        method: ``"auto"`` (closed form if any, else compiled), ``"closed"``, ``"compiled"`` or
            ``"mpmath"`` (high precision at ``dps`` digits, started from the compiled answer).
        dps: decimal digits of the mpmath path.
        config: :class:`TauStarConfig` of the compiled path.

    Returns:
        :class:`TauStarResult`. Raises :class:`~asymptotics.errors.ConvergenceError` when the
        compiled path cannot meet its tolerance, :class:`~asymptotics.errors.ParameterError` on
        bad input, :class:`~asymptotics.errors.ExpressionError` for ``method="closed"`` without a
        closed form.
    """
    if method not in _METHODS:
        raise ParameterError("method", method, f"one of {', '.join(_METHODS)}")
    dps = check_int("dps", dps, 10)
    if dps > 200:
        raise ParameterError("dps", dps, "an integer in [10, 200]")
    a = check_positive("student_scale", student_scale)
    b = check_positive("teacher_scale", teacher_scale)
    prob = _make_problem(student, teacher, center, fit_constant, a, b)
    if method in ("auto", "closed"):
        res = _closed_form(prob, a, b)
        if res is not None:
            return res
        if method == "closed":
            raise ExpressionError(
                f"no closed form for τ* with student {prob.student.name!r} and teacher {prob.teacher.name!r}"
                " (closed forms: erf/erf, linear student)"
            )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        grid = tau_star_grid(
            prob.student,
            prob.teacher,
            student_scale=a,
            teacher_scale=b,
            center=prob.center,
            fit_constant=prob.fit_constant,
            config=config,
        )
    res = grid.result(())
    deg = _degeneracy_message(prob, a, b)
    if deg:
        warnings.warn(deg, DegenerateWarning, stacklevel=2)
    if method == "mpmath":
        res = _solve_mp(prob, a, b, dps, res)
    return res


def tau_objective(
    kappa,
    student,
    teacher,
    *,
    student_scale: float = 1.0,
    teacher_scale: float = 1.0,
    center: bool = True,
    fit_constant: bool = False,
    config: TauStarConfig | None = None,
    level: int = 1,
) -> TauObjective:
    r"""τ(κ), τ'(κ), τ''(κ) on an array of κ, with an error estimate (difference from the rule of
    the next level). Same conventions as :func:`tau_star`.

    >>> v = tau_objective([0.0, 1.6], "tanh", "tanh")
    >>> f"{v.value[0]:.6f}", f"{v.value[1]:.3e}"          # τ(0) = E tanh² = 1 − μ1
    ('0.394294', '1.007e-04')
    """
    cfg = TauStarConfig() if config is None else config
    level = check_int("level", level, 0)
    k = np.asarray(kappa, dtype=float)
    if not np.all(np.isfinite(k)):
        raise ParameterError("kappa", kappa, "finite real numbers")
    prob = _make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale)
    c = _Compiled(prob, cfg)
    flat = k.ravel()
    idx = np.zeros(flat.size, dtype=np.int64)
    v = c.objective(flat, idx, level)
    v2 = c.objective(flat, idx, level + 1)
    err = np.abs(v[:, 0] - v2[:, 0])
    return TauObjective(
        v2[:, 0].reshape(k.shape), v2[:, 1].reshape(k.shape), v2[:, 2].reshape(k.shape), err.reshape(k.shape)
    )


def tau_limits(student, teacher, *, student_scale=1.0, teacher_scale=1.0, center=True, fit_constant=False):
    """(τ(+∞), τ(−∞)) — the limits of τ(κ) as κ → ±∞ (``inf`` when the student has no finite
    limits σ(±∞), in which case τ(κ) → ∞)."""
    prob = _make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale)
    c = _Compiled(prob, TauStarConfig())
    vals, _ = c.limit_values()
    return float(vals[0, 0]), float(vals[0, 1])
