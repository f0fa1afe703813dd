r"""The quadrature rules of τ*: which rule each expectation uses, at which resolution.

The float64 rules themselves live in :mod:`asymptotics.gaussian`, for E f(z), z ~ N(0, 1), on
[−L, L]:

* :func:`~asymptotics.gaussian.trapezoid_rule` — nodes kh, weights h φ(kh), spectrally accurate
  for an integrand analytic in a strip: the default for smooth σ, σ*;
* :func:`~asymptotics.gaussian.hermite_rule` — Gauss–Hermite of any degree (on request);
* :func:`~asymptotics.gaussian.composite_rule` — composite Gauss–Legendre split at the kinks, for
  kinked functions (ReLU); for the student, the kernels split their panels where the kink moves.

:func:`compiled_rules` tabulates one level of accuracy for the kernels (one row per unique input
scale); each level multiplies the resolution by :data:`LEVEL_FACTOR`.

mpmath (the high-precision path): :func:`trapezoid_rule_mp` and :func:`composite_rule_mp`, the
same two rules at the working precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from ....activations import Activation
from ....errors import ParameterError
from ....gaussian import composite_rule, hermite_rule, trapezoid_rule
from ....numerics.quadrature import legendre_rule
from .config import TauStarConfig

__all__ = [
    "LEVEL_FACTOR",
    "rule_kinds",
    "resolution",
    "rule_name",
    "CompiledRules",
    "compiled_rules",
    "trapezoid_rule_mp",
    "composite_rule_mp",
]

#: Each level multiplies the resolution by this factor (trapezoid: h / 1.5; others: nodes × 1.5).
LEVEL_FACTOR = 1.5


def rule_kinds(student: Activation, teacher: Activation, cfg: TauStarConfig) -> tuple[str, str]:
    """(outer, inner) kind: ``trapezoid``, ``hermite`` or ``composite``."""
    if cfg.rule in ("hermite", "trapezoid"):
        for act, role in ((teacher, "teacher"), (student, "student")):
            if act.kinks:
                raise ParameterError(
                    "rule", cfg.rule, "'auto' or 'composite' for a kinked activation", f"{role} {act.name} has kinks"
                )
        return cfg.rule, cfg.rule
    if cfg.rule == "composite":
        return "composite", "composite"
    return ("composite" if teacher.kinks else "trapezoid", "composite" if student.kinks else "trapezoid")


def resolution(kind: str, cfg: TauStarConfig, level: int, scan: bool = False, scale: float = 1.0):
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


def rule_name(kinds: tuple[str, str], cfg: TauStarConfig, level: int) -> str:
    """The name of the level's rule, e.g. ``"trapezoid-h0.25"`` or ``"outer composite-8, inner …"``."""

    def one(kind):
        r = resolution(kind, cfg, level)
        return f"trapezoid-h{r:.4g}" if kind == "trapezoid" else f"{kind}-{r}"

    o, i = kinds
    return one(o) if o == i else f"outer {one(o)}, inner {one(i)}"


def _nodes(kind, kinks_scaled, res, cfg):
    if kind == "trapezoid":
        return trapezoid_rule(res, cfg.half_width)
    if kind == "hermite":
        return hermite_rule(res)
    return composite_rule(tuple(sorted(kinks_scaled)), res, cfg.half_width, 1.0)


def _pad(rows):
    n = max(len(r[0]) for r in rows)
    X = np.zeros((len(rows), n))
    W = np.zeros((len(rows), n))
    for i, (x, w) in enumerate(rows):
        X[i, : len(x)] = x
        W[i, : len(w)] = w
    return X, W


@dataclass(frozen=True)
class CompiledRules:
    """Arrays handed to the compiled kernels for one level of accuracy (zero weights pad rows).

    Row ``i`` of ``x, w, t`` belongs to the i-th unique teacher scale (``t``: the centred teacher at
    the outer nodes), row ``j`` of ``z, wz`` to the j-th unique student scale. ``mode`` 0: fixed
    inner nodes; 1: composite Gauss–Legendre (``glx, glw`` on one panel) split at the kinks."""

    x: np.ndarray
    w: np.ndarray
    t: np.ndarray
    mode: int
    z: np.ndarray
    wz: np.ndarray
    glx: np.ndarray
    glw: np.ndarray


def compiled_rules(teacher, kinds, level, cfg, b_unique, a_unique, t_off, scan=False) -> CompiledRules:
    """The rules at ``level`` (or the cheap scan rules) for the unique scales ``a_unique``,
    ``b_unique``; ``t_off`` are the teacher's centring offsets per teacher scale."""
    outer_kind, inner_kind = kinds
    rows = []
    for b in b_unique:
        r_out = resolution(outer_kind, cfg, level, scan, float(b))
        x, w = _nodes(outer_kind, [k / b for k in teacher.kinks], r_out, cfg)
        rows.append((np.asarray(x), np.asarray(w)))
    X, W = _pad(rows)
    T = np.zeros_like(X)
    for i, (x, _) in enumerate(rows):
        with np.errstate(all="ignore"):
            T[i, : len(x)] = teacher.numpy(b_unique[i] * x) - t_off[i]
    if not np.all(np.isfinite(T)):
        raise ParameterError("teacher", teacher.name, "a function finite on the real line")
    if inner_kind == "composite":
        Z = WZ = np.zeros((len(a_unique), 1))
        mode = 1
        glx, glw = legendre_rule(resolution(inner_kind, cfg, level, scan))
    else:
        Z, WZ = _pad([_nodes(inner_kind, (), resolution(inner_kind, cfg, level, scan, float(a)), cfg) for a in a_unique])
        mode = 0
        glx = glw = np.zeros(1)
    return CompiledRules(X, W, T, mode, Z, WZ, glx, glw)


# ---- mpmath -------------------------------------------------------------------------------------
def _phi_mp(u):
    return 1 / mpmath.sqrt(2 * mpmath.pi) * mpmath.exp(-u * u / 2)


def trapezoid_rule_mp(step, half_width) -> tuple[list, list]:
    """The trapezoidal rule of :func:`~asymptotics.gaussian.trapezoid_rule` at the working precision (nodes kh, |kh| ≤ L)."""
    n = int(mpmath.floor(half_width / step))
    xs = [k * step for k in range(-n, n + 1)]
    return xs, [step * _phi_mp(u) for u in xs]


def composite_rule_mp(breaks, half_width, gauss_legendre) -> tuple[list, list]:
    """Composite Gauss–Legendre for E f(z) on [−L, L] (L rounded up to an integer): unit panels,
    split at ``breaks``; ``gauss_legendre`` are mpmath's (node, weight) pairs on [−1, 1]."""
    L = int(mpmath.ceil(half_width))
    edges = sorted({mpmath.mpf(e) for e in range(-L, L + 1)} | {b for b in breaks if -L < b < L})
    xs, ws = [], []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        for t, wt in gauss_legendre:
            u = mid + half * t
            xs.append(u)
            ws.append(half * wt * _phi_mp(u))
    return xs, ws
