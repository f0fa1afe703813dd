r"""One τ* problem: the raw activations, the conventions, the input scales — checked once.

:func:`make_problem` validates the user's input (naming the argument on error) and returns a
:class:`TauProblem` that every path (closed forms, compiled, mpmath) reads. The Gaussian constants
the paths share live here too: the centring offsets E σ(a z), the first Hermite coefficients that
decide the degeneracy μ1 μ1* = 0, the limits σ(±∞) and the symmetry that pins κ* = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np

from ....activations import Activation, resolve_activation
from ....activations.builtins import LIMITS
from ....errors import ParameterError
from ....gaussian import expect
from ....params import check_array

__all__ = [
    "TauProblem",
    "make_problem",
    "activation_limits",
    "gauss_mean",
    "teacher_moments",
    "degeneracy_text",
    "degeneracy_notes",
    "is_symmetric_zero",
    "SCALE_RANGE",
]

#: Accepted input scales a, b of σ(a x), σ*(b x). Below 1e-3 the minimiser grows like 1/a beyond
#: the scanned κ range (|κ| ≤ 1e4); above 1e3 the trapezoidal step h/a needs more than 10⁵ nodes
#: per expectation (seconds to minutes a point) for a function that is then almost a step.
SCALE_RANGE = (1e-3, 1e3)


@dataclass(frozen=True)
class TauProblem:
    """τ* for raw σ, σ* at the points (a[i], b[i]), i < size (the flattened broadcast grid)."""

    student: Activation  # raw (uncentred)
    teacher: Activation  # raw
    center: bool
    fit_constant: bool
    a: np.ndarray  # student scale per point
    b: np.ndarray  # teacher scale per point
    shape: tuple  # the broadcast shape of the scales

    @property
    def size(self) -> int:
        return self.a.size


def _scales(name: str, value) -> np.ndarray:
    return check_array(name, value, within=SCALE_RANGE,
                       why="input scale of the activation; outside it the quadrature is not trusted")


def _real_value(f, x: float) -> float:
    """f(x) as a float; NaN where f is not real there or cannot be evaluated (inf where it is
    beyond the float range)."""
    try:
        v = f(mpmath.mpf(x))
        return math.nan if isinstance(v, (mpmath.mpc, complex)) else float(v)
    except (ArithmeticError, ValueError, TypeError):
        return math.nan


def _check_tails(act: Activation, scales: np.ndarray, role: str, half_width: float = 10.0) -> None:
    """Refuse functions whose Gaussian tails are not negligible at |x| = L (e.g. exp(x²)): the
    truncated quadrature would silently return a wrong number."""
    f = act.mpmath()[0]  # mpmath: five points need neither scipy.special nor an overflow guard
    for sc in np.unique(scales):
        x = np.array([-half_width, -half_width / 2, 0.5, half_width / 2, half_width])
        v = np.array([_real_value(f, float(sc) * xi) for xi in x])
        if not np.all(np.isfinite(v)):
            bad = ", ".join(f"{float(sc) * xi:g}" for xi, vi in zip(x, v, strict=True) if not math.isfinite(vi))
            raise ParameterError(role, act.name, "a function that is real and finite on the real line",
                                 f"it is not real or not finite at x = {bad}")
        body = float(np.max(v[1:4] ** 2)) + 1.0
        tail = float(np.exp(-0.5 * half_width**2) * max(v[0] ** 2, v[-1] ** 2))
        if tail > 1e-14 * body:
            raise ParameterError(
                role,
                act.name,
                "a function with E f(z)² < ∞ and negligible Gaussian tails at |z| = 10",
                f"|f(±{half_width:g}·{float(sc):g})|² e^(−{half_width**2 / 2:g}) is not negligible",
            )


def make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale) -> TauProblem:
    """Check the input of τ* and return the problem (raw activations, flattened scales)."""
    s = resolve_activation(student, center=False, name="student")
    t = resolve_activation(teacher, center=False, name="teacher")
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
    return TauProblem(s, t, bool(center), bool(fit_constant), a.ravel().copy(), b.ravel().copy(), a.shape)


# ---- Gaussian constants shared by the paths ----------------------------------------------------
def gauss_mean(act: Activation, scale: float, weight=None, *, compiled: bool = False) -> tuple[float, float]:
    """E[weight(z) σ(scale z)] by composite quadrature split at the kinks (value, error).

    ``compiled``: evaluate σ by its compiled scalar function at each node instead of its numpy
    version (the same numbers to rounding, ≈ 0.1 ms per call, without importing scipy.special for
    erf, ≈ 0.4 s — worth it for a single yes/no answer such as the μ1 = 0 test)."""
    kinks = tuple(k / scale for k in act.kinks)
    if compiled:
        f = act.f

        def sigma(z):
            return np.fromiter((f(scale * float(t)) for t in z), float, len(z))
    else:

        def sigma(z):
            return act.numpy(scale * z)

    if weight is None:
        return expect(sigma, kinks)
    return expect(lambda z: weight(z) * sigma(z), kinks)


def teacher_moments(teacher: Activation, scale: float, center: bool) -> tuple[float, float, float, tuple]:
    """(E t, E z t, E t², their errors) of the teacher t(z) = σ*(scale z) − o as τ* uses it
    (o = E σ*(scale z) when ``center``, else 0), by composite quadrature split at the kinks."""
    mean_raw, e0 = gauss_mean(teacher, scale)
    offset = mean_raw if center else 0.0
    m1, e1 = gauss_mean(teacher, scale, weight=lambda z: z)
    kinks = tuple(k / scale for k in teacher.kinks)
    second, e2 = expect(lambda z: (teacher.numpy(scale * z) - offset) ** 2, kinks)
    return mean_raw - offset, m1, second, (e0, e1, e2)


@lru_cache(maxsize=128)
def activation_limits(act: Activation) -> tuple[float | None, float | None]:
    """(σ(−∞), σ(+∞)) of the raw activation when finite (decided with sympy), else ``None``.

    >>> from asymptotics.activations import activation
    >>> activation_limits(activation("tanh", center=False))
    (-1.0, 1.0)
    >>> activation_limits(activation("relu", center=False))
    (0.0, None)

    A built-in's limits are the table :data:`asymptotics.activations.builtins.LIMITS` (tied to this
    computation by ``tests/test_activation_builtins.py``), so they cost no sympy.
    """
    if act.builtin is not None:
        return LIMITS[act.builtin]
    import sympy as sp

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


def is_symmetric_zero(prob: TauProblem) -> bool:
    r"""Whether κ* = 0 by symmetry: an even student, an odd teacher and G(0) = 0.

    For even σ, G(κx) = E_z σ(a(κx + z)) − o is even in x, so E[t(x) G(κx)] = 0 for an odd teacher
    and τ(κ) = E t² + E G(κx)² ≥ τ(0) = E t² when G(0) = 0 (centred σ) — likewise
    Var(t − G) = Var t + Var G with a free constant. τ is even in κ and τ''(0) = 0 (G'(0) = 0),
    so a numerical minimisation could not pin κ* = 0 down; the symmetry does, exactly."""
    return prob.student.parity == 1 and prob.teacher.parity == -1 and (prob.center or prob.fit_constant)


# ---- degeneracy: κᵢ ∝ μ1 μ1* -------------------------------------------------------------------
def _first_hermite(act: Activation, scale: float) -> float:
    """μ1 = E[z σ(scale z)], to decide μ1 = 0 at the 1e-12 level only (compiled σ)."""
    return gauss_mean(act, scale, weight=lambda z: z, compiled=True)[0]


def degeneracy_text(mu1: float, mu1_star: float) -> str:
    """The remark for μ1 μ1* = 0 (one large step does not move the neurons along β*), else ``""``."""
    if abs(mu1 * mu1_star) <= 1e-12:
        which = "μ1* = 0 (teacher)" if abs(mu1_star) <= 1e-12 else "μ1 = 0 (student)"
        return (
            f"{which}: κᵢ = c μ1 μ1* √N aᵢ = 0, one large step does not move the neurons along β*; τ* is the"
            " infimum over κ but no κ ≠ 0 is reached by training"
        )
    return ""


def degeneracy_notes(prob: TauProblem) -> dict[int, str]:
    """{point: remark} for the points with μ1(a) μ1*(b) = 0 (μ1 per student scale, μ1* per teacher scale)."""
    mu1 = {a: _first_hermite(prob.student, a) for a in np.unique(prob.a)}
    mu1s = {b: _first_hermite(prob.teacher, b) for b in np.unique(prob.b)}
    notes = {}
    for p in range(prob.size):
        text = degeneracy_text(mu1[prob.a[p]], mu1s[prob.b[p]])
        if text:
            notes[p] = text
    return notes
