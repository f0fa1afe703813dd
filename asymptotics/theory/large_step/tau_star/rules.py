r"""The quadrature rules of τ*: one home for every rule the compiled and the mpmath paths use.

Float64 (the compiled path), for E f(z), z ~ N(0, 1), on [−L, L]:

* :func:`trapezoid_rule` — nodes kh, weights h φ(kh). For an integrand analytic in the strip
  |Im z| < d it errs by ≈ exp(−2πd/h): spectral accuracy (E tanh²: 5e-7 at h = 1/2, 4e-11 at 1/3,
  3e-15 at 1/4), where Gauss–Hermite only converges like exp(−c√n). The default for smooth σ, σ*;
* :func:`hermite_nodes` — Gauss–Hermite of any degree (on request);
* composite Gauss–Legendre split at the kinks (:func:`asymptotics.gaussian.composite_rule`) for
  kinked functions (ReLU); for the student, the kernels split their panels where the kink moves.

:func:`compiled_rules` tabulates one level of accuracy for the kernels (one row per unique input
scale); each level multiplies the resolution by :data:`LEVEL_FACTOR`.

mpmath (the high-precision path): :func:`trapezoid_rule_mp` and :func:`composite_rule_mp`, the
same two rules at the working precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ....activations import Activation
from ....errors import ParameterError
from ....gaussian import composite_rule, hermite_rule
from .config import TauStarConfig

__all__ = [
    "LEVEL_FACTOR",
    "trapezoid_rule",
    "hermite_nodes",
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


def trapezoid_rule(step: float, half_width: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the truncated trapezoidal rule for E f(z), z ~ N(0, 1): nodes
    kh on [−L, L], weights h φ(kh). Spectrally accurate for smooth integrands.

    >>> x, w = trapezoid_rule(0.25)
    >>> f"{w @ np.tanh(x) ** 2:.14f}"             # E tanh² = 1 − μ1(tanh) = 0.394294490397841
    '0.39429449039784'
    """
    n = int(math.floor(half_width / step + 1e-9))
    x = step * np.arange(-n, n + 1, dtype=float)
    w = step * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return x, w


def hermite_nodes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Hermite nodes and weights for E f(z) of any degree n (numpy's ``hermegauss`` behind
    :func:`asymptotics.gaussian.hermite_rule` overflows beyond ~300 nodes: scipy's roots then)."""
    if n <= 150:
        return hermite_rule(n)
    from scipy.special import roots_hermitenorm

    x, w = roots_hermitenorm(n)
    return x, w / w.sum()


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
        return hermite_nodes(res)
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
        glx, glw = np.polynomial.legendre.leggauss(resolution(inner_kind, cfg, level, scan))
    else:
        Z, WZ = _pad([_nodes(inner_kind, (), resolution(inner_kind, cfg, level, scan, float(a)), cfg) for a in a_unique])
        mode = 0
        glx = glw = np.zeros(1)
    return CompiledRules(X, W, T, mode, Z, WZ, glx, glw)


# ---- mpmath -------------------------------------------------------------------------------------
def _phi_mp(u):
    return 1 / mpmath.sqrt(2 * mpmath.pi) * mpmath.exp(-u * u / 2)


def trapezoid_rule_mp(step, half_width) -> tuple[list, list]:
    """The trapezoidal rule of :func:`trapezoid_rule` at the working precision (nodes kh, |kh| ≤ L)."""
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
