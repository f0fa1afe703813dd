r"""Conditional Gaussian equivalence (cGET) of the spiked random features, and the target functions.

Conditionally on the spike projection κ = vᵀx ~ N(0, 1), the features of a neuron with spike
s = r·u and bulk variance c, σ(s κ + √c w̃ᵀx), are replaced by μ0(κ) + μ1(κ) √c w̃ᵀx + μ2(κ) ξ with
(docs/spiked-rf.md, "How it is computed"; z ~ N(0, 1))

    μ0(κ) = E σ(sκ + √c z),
    μ1(κ) = (1/√c) E[z σ(sκ + √c z)],
    μ2(κ)² = E σ(sκ + √c z)² − μ0(κ)² − c μ1(κ)²    (≥ 0; rounding below 0 is clipped).

Target given κ (y = σ*(γκ + ρ s), s ⟂ κ standard, ρ = √(1 − γ²)):

    h(κ) = E_s σ*(γκ + ρs),  h̃1(κ) = E_s[s σ*(γκ + ρs)],  h̃2(κ) = E_s σ*(γκ + ρs)².

Every expectation is a *fixed* quadrature rule (no adaptive quadrature), evaluated by compiled
kernels specialised to the activation (``_cget_template.py``, :mod:`.kernels`):

* a σ without kinks (tanh, erf, sin, softplus, polynomials, …): the trapezoid rule on one grid
  t_k = kh shared by every κ node — E_z g(a + bz) = ∫ σ(t) φ((t − a)/b) dt/b — so σ is evaluated
  once per grid point rather than once per (κ node, inner node); the rule converges geometrically
  in 1/h for integrands analytic in a strip, the step is halved until two steps agree;
* a σ with kinks (ReLU): composite Gauss–Legendre with the Gaussian density folded into the weights
  (:func:`asymptotics.gaussian.composite_rule`), split at the kinks (mapped to the z-variable row by
  row), the degree doubled until two degrees agree.

Gauss–Hermite is available (``kind="hermite"``) but converges only like exp(−a√n) for functions
with complex singularities at distance a from the real axis — tanh has poles at ±iπ/2, and μ(κ) is
analytic only in a strip of width ≈ π/(2r) — so it is never chosen automatically. The difference
of the last two rules is the reported error estimate. All functions are vectorised over κ and over
types (arrays of spikes and bulk variances), so they serve the K-type theory (§7) and the
continuous-type theory of docs/large-step-exact.md alike.

>>> import numpy as np
>>> from asymptotics.theory.spiked_rf.cget import cget_coefficients
>>> co = cget_coefficients("tanh", spike=0.0, bulk=1.0, kappa=np.array([0.0, 1.0]))
>>> [round(float(v), 12) for v in co.mu1[0]]              # r = 0, c = 1: μ1 = E tanh' = 0.6057…
[0.605705509602, 0.605705509602]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import ParameterError
from ...gaussian import composite_rule, hermite_rule
from ...numerics.quadrature import legendre_rule
from .kernels import moment_kernels
from .mapping import as_activation

__all__ = [
    "CGETCoefficients",
    "TargetFunctions",
    "KappaRule",
    "kappa_rule",
    "shifted_gaussian_moments",
    "cget_coefficients",
    "target_functions",
]

#: half-width of the composite rules (Gaussian tail mass beyond 12 is < 4e-33)
_HALF_WIDTH = 12.0


@dataclass(frozen=True)
class KappaRule:
    """A fixed quadrature rule for E_κ f(κ), κ ~ N(0, 1): ``Σ weights·f(nodes)``.

    Attributes:
        nodes, weights: the rule (weights sum to 1).
        kind: ``"hermite"`` or ``"composite"`` (Gauss–Legendre panels split at ``kinks``).
        degree: Hermite degree, or Legendre order per panel.
        kinks: split points of a composite rule.
    """

    nodes: np.ndarray
    weights: np.ndarray
    kind: str
    degree: int
    kinks: tuple[float, ...] = ()

    def expect(self, values) -> np.ndarray:
        """E_κ of ``values`` (last axis over the nodes)."""
        return np.asarray(values) @ self.weights

    def refined(self) -> KappaRule:
        """The same kind of rule with twice the degree (for error estimates)."""
        return kappa_rule(self.kind, 2 * self.degree, self.kinks)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "degree": self.degree, "nodes": int(self.nodes.size), "kinks": list(self.kinks)}


def kappa_rule(kind: str = "hermite", degree: int = 64, kinks=()) -> KappaRule:
    """A :class:`KappaRule`: Gauss–Hermite of ``degree`` nodes, or a composite Gauss–Legendre rule
    with ``degree`` nodes per unit panel on [−12, 12], split at ``kinks``."""
    if kind == "hermite":
        x, w = hermite_rule(int(degree))
        return KappaRule(x, w, "hermite", int(degree), ())
    if kind == "composite":
        ks = tuple(sorted(float(k) for k in kinks if math.isfinite(k)))
        x, w = composite_rule(ks, int(degree), _HALF_WIDTH, 1.0)
        return KappaRule(x, w, "composite", int(degree), ks)
    raise ParameterError("kind", kind, "'hermite' or 'composite'")


def _moments_once(kern, shift: np.ndarray, scale: float, kinks, degree: int, kind: str):
    """(E g, E[z g], E g²) of g(z) = σ(shift + scale z) for each shift, one rule (compiled
    kernels of :mod:`.kernels`; ``kern`` is the module specialised to σ)."""
    out = np.empty((3, shift.shape[0]))
    if scale == 0.0:
        kern.values(shift, out)
        return out[0], out[1], out[2]
    if kind == "composite" and kinks:
        t, wt = legendre_rule(int(degree))
        kern.moments_split(shift, scale, np.asarray(sorted(kinks), dtype=float), t, wt, out)
        return out[0], out[1], out[2]
    z, w, wz = _inner_rule(kind, int(degree))
    kern.moments_on_rule(shift, scale, z, w, wz, out)
    return out[0], out[1], out[2]


@lru_cache(maxsize=64)
def _inner_rule(kind: str, degree: int):
    """Nodes, weights and weights·nodes of the shared inner rule (composite or Hermite)."""
    z, w = composite_rule((), degree, _HALF_WIDTH, 1.0) if kind == "composite" else hermite_rule(degree)
    return z, w, w * z


def _ladder(kern, shift, scale, kinks, tol, deg, cap, kind):
    """The degree-doubling loop of :func:`shifted_gaussian_moments`: ``(moments, error, degree)``
    with the degree of the moments returned."""
    prev = _moments_once(kern, shift, scale, kinks, deg, kind)
    if scale == 0.0:
        return prev, 0.0, deg
    while True:
        nxt = _moments_once(kern, shift, scale, kinks, 2 * deg, kind)
        # absolute below 1, relative above (large polynomial moments carry rounding of their size)
        err = max(float(np.max(np.abs(a - b))) / max(1.0, float(np.max(np.abs(b)))) for a, b in zip(prev, nxt, strict=True))
        if err <= tol or 2 * deg >= cap:
            # keep the coarser rule when it already agrees (err is then its error estimate)
            if err <= tol:
                return prev, err, deg
            return nxt, err, 2 * deg
        prev, deg = nxt, 2 * deg


def shifted_gaussian_moments(fn, shift, scale: float, kinks=None, *, tol: float = 1e-12, degree: int | None = None,
                             kind: str = "auto", max_degree: int | None = None):
    r"""E g, E[z g] and E g² for g(z) = σ(shift + scale·z), z ~ N(0, 1), for each ``shift``.

    ``fn`` is the activation σ (an :class:`~asymptotics.activations.Activation`, a name or an
    expression; centred by default), evaluated by compiled kernels specialised to it
    (``_cget_template.py``); ``kinks`` are its kinks (default: the activation's own). Rules:

    * ``kind="auto"`` (default): the trapezoid rule on one grid shared by all shifts
      (:func:`_ladder_rows`, at a tenth of ``tol``) for a σ without kinks, else ``"composite"``;
    * ``"composite"``: Gauss–Legendre on [−12, 12] with unit panels, split row by row where
      shift + scale·z crosses a kink, ``degree`` (default 8) nodes per panel, doubled until two
      successive degrees agree to ``tol`` (cap 64);
    * ``"hermite"``: Gauss–Hermite from 48 nodes (cap 256) — exact for polynomials, but slow for
      functions with complex singularities near the real axis (tanh: error ≈
      exp(−(π/2)√(2n)/scale)), hence never chosen automatically.

    Returns ``(m0, m1, m2, error)``, error = difference between the last two rules (absolute for
    moments below 1, relative above).
    """
    act = as_activation(fn, "activation")
    shift = np.atleast_1d(np.asarray(shift, dtype=float))
    if kind not in ("auto", "composite", "hermite"):
        raise ParameterError("kind", kind, "'auto', 'composite' or 'hermite'")
    kinks = tuple(act.kinks if kinks is None else kinks)
    kern = moment_kernels(act)
    if kind == "auto" and degree is None:
        (m0, m1, m2), err, _ = _moments_or_fixed(kern, shift, scale, kinks, tol, None, None)
        return m0, m1, m2, err
    kind = "composite" if kind == "auto" else kind
    deg, cap = _start_degree(kind, degree, max_degree)
    (m0, m1, m2), err, _ = _ladder(kern, shift, float(scale), kinks, tol, deg, cap, kind)
    return m0, m1, m2, err


def _start_degree(kind, degree, max_degree):
    if kind == "composite":
        return (degree or 8), (max_degree or 64)
    return (degree or 48), (max_degree or 256)


@dataclass(frozen=True)
class CGETCoefficients:
    r"""cGET coefficients on κ nodes, one row per neuron type.

    Attributes:
        kappa: the κ nodes (n,).
        mu0, mu1, mu2_sq: arrays (K, n): μ0(κ), μ1(κ), μ2(κ)² of each type.
        spikes, bulk: the spike s_k = r u_k and bulk variance c_k of each type.
        error: estimated absolute quadrature error of the inner (z) expectations.
        inner: the inner rule of each type, ``(degree, error estimate)``: pass it back as
            ``inner=`` to tabulate the same types on other κ nodes without the degree search.
    """

    kappa: np.ndarray
    mu0: np.ndarray
    mu1: np.ndarray
    mu2_sq: np.ndarray
    spikes: tuple[float, ...]
    bulk: tuple[float, ...]
    error: float
    inner: tuple = ()


def cget_coefficients(student, spike, bulk, kappa, *, tol: float = 1e-11, degree: int | None = None,
                      inner=None) -> CGETCoefficients:
    r"""μ0(κ), μ1(κ), μ2(κ)² of σ(sκ + √c z) for each type (s, c) at the nodes ``kappa``.

    ``spike`` and ``bulk`` are numbers or equal-length sequences (one per type); the result has
    one row per type. The inner degree of each type is searched by
    :func:`shifted_gaussian_moments` unless ``inner`` (the ``.inner`` of an earlier result for the
    same types and tolerance, on nodes covering the same range) fixes it with its error estimate.
    """
    act = as_activation(student, "student")
    s = np.atleast_1d(np.asarray(spike, dtype=float))
    c = np.atleast_1d(np.asarray(bulk, dtype=float))
    if c.size == 1 and s.size > 1:
        c = np.full(s.size, c[0])
    if s.size == 1 and c.size > 1:
        s = np.full(c.size, s[0])
    if s.size != c.size:
        raise ParameterError("bulk", bulk, f"one bulk variance per spike ({s.size})")
    if np.any(~np.isfinite(c)) or np.any(c <= 0):
        raise ParameterError("c", bulk, "> 0 (bulk variance)")
    if np.any(~np.isfinite(s)):
        raise ParameterError("r", spike, "a finite real number")
    k = np.atleast_1d(np.asarray(kappa, dtype=float))
    mu0 = np.empty((s.size, k.size))
    mu1 = np.empty_like(mu0)
    mu2 = np.empty_like(mu0)
    err = 0.0
    kern = moment_kernels(act)
    scales = np.sqrt(c)
    # every type's trapezoid ladder in one compiled call (the σ without kinks of the default rule)
    moments, errs, deltas = _ladder_rows(kern, s[:, None] * k, scales, tol) \
        if inner is None and degree is None and not act.kinks and k.size else (None, None, None)
    used = []
    for i, (si, ci) in enumerate(zip(s, c, strict=True)):
        sc = math.sqrt(ci)
        if deltas is not None and deltas[i] > 0.0:
            (m0, m1, m2), e, deg = moments[i], float(errs[i]), ("trapezoid", float(deltas[i]))
        else:
            (m0, m1, m2), e, deg = _moments_or_fixed(kern, si * k, sc, act.kinks, tol, degree,
                                                     None if inner is None else inner[i])
        used.append((deg, e))
        mu0[i] = m0
        mu1[i] = m1 / sc
        # E σ² − μ0² − c μ1² = m2 − m0² − m1²; rounding can make it slightly negative
        mu2[i] = np.maximum(m2 - m0 * m0 - m1 * m1, 0.0)
        err = max(err, e * 3.0 / min(1.0, sc))
    return CGETCoefficients(k, mu0, mu1, mu2, tuple(s.tolist()), tuple(c.tolist()), err, tuple(used))


def _ladder_rows(kern, shifts, scales, tol):
    """The trapezoid ladder, at a tenth of ``tol`` (as :func:`_moments_or_fixed`), for every row of
    ``shifts`` (one scale per row) in one compiled call (``trapezoid_ladder_rows`` of the cGET
    template, the one implementation): steps δ·scale, δ = 0.5, 0.25, … down to
    ``MIN_TRAPEZOID_STEP``, until the rule of step δ/2 agrees to ``tol`` (absolute below 1,
    relative above); the coarser rule of the agreeing pair is kept and the difference is its error
    estimate (geometric convergence in 1/δ for integrands analytic in a strip: every kink-free
    activation here). Returns ``(moments (K, 3, n), errors, steps)``, a step 0 where that row must
    take the Gauss–Legendre fallback (grid too large, a non-finite value, or no agreement)."""
    rows = shifts.shape[0]
    out = np.empty((rows, 3, shifts.shape[1]))
    errs = np.empty(rows)
    deltas = np.empty(rows)
    kern.trapezoid_ladder_rows(np.ascontiguousarray(shifts), np.ascontiguousarray(scales, dtype=float),
                               TRAPEZOID_STEP, MIN_TRAPEZOID_STEP, 0.1 * tol, MAX_TRAPEZOID_GRID, out, errs, deltas)
    return out, errs, deltas


def _moments_or_fixed(kern, shift, scale, kinks, tol, degree, fixed):
    """The moments of σ(shift + scale z) with their error estimate and the inner rule used,
    ``(moments, error, rule)``: the trapezoid ladder of :func:`_ladder_rows` for a σ without
    kinks (unless a Gauss–Legendre ``degree`` is asked for), else the Gauss–Legendre degree
    search; or one rule given by ``fixed = (rule, error)`` (from an earlier call)."""
    scale = float(scale)
    kinks = tuple(kinks)
    if fixed is not None:
        (kind, param), e = fixed
        if kind == "trapezoid":
            return _trapezoid(kern, shift, scale, param * scale)[0], e, fixed[0]
        return _moments_once(kern, shift, scale, kinks, int(param), "composite"), e, fixed[0]
    if scale != 0.0 and not kinks and degree is None:
        # a tenth of the tolerance: one halving of the (cheap) trapezoid step more, so that the
        # kept tables are accurate to ~1e-15 rather than to the tolerance
        if np.size(shift) == 0:
            empty = np.empty(0)
            return (empty, empty, empty), 0.0, ("trapezoid", TRAPEZOID_STEP)
        moments, errs, deltas = _ladder_rows(kern, np.asarray(shift, dtype=float)[None, :], np.array([scale]), tol)
        if deltas[0] > 0.0:
            return tuple(moments[0]), float(errs[0]), ("trapezoid", float(deltas[0]))
    deg, cap = _start_degree("composite", degree, None)
    m, e, d = _ladder(kern, shift, scale, kinks, tol, deg, cap, "composite")
    return m, e, ("legendre", d)


#: first trapezoid step δ = h/scale (checked against δ/2), halved down to MIN_TRAPEZOID_STEP
TRAPEZOID_STEP = 0.5
MIN_TRAPEZOID_STEP = 0.5 / 2**7
#: largest shared grid of the trapezoid rule (beyond it: Gauss–Legendre)
MAX_TRAPEZOID_GRID = 400_000


def _trapezoid(kern, shift, scale: float, h: float):
    """(fine, coarse) trapezoid moments on the shared grid of step h covering every row's
    |z| ≤ 12 (compiled ``moments_trapezoid``); None when that grid would be too large."""
    if shift.size == 0:
        e = np.empty((3, 0))
        return e, e
    lo = float(np.min(shift)) - _HALF_WIDTH * scale
    hi = float(np.max(shift)) + _HALF_WIDTH * scale
    k0 = math.floor(lo / h) - 2
    k0 -= k0 % 2
    N = math.ceil(hi / h) - k0 + 3
    if N > MAX_TRAPEZOID_GRID:
        return None
    t0 = k0 * h
    sig = np.empty(N)
    kern.grid_values(t0, h, sig)
    fine = np.empty((3, shift.size))
    coarse = np.empty((3, shift.size))
    kern.moments_trapezoid(shift, scale, t0, h, sig, fine, coarse)
    return fine, coarse


@dataclass(frozen=True)
class TargetFunctions:
    r"""h(κ), h̃1(κ), h̃2(κ) of the target y = σ*(γκ + ρs) on κ nodes.

    Attributes:
        kappa: the nodes; h, h1t, h2t: the three functions; gamma, rho: the overlap and √(1 − γ²);
        error: estimated absolute quadrature error of the inner (s) expectations.
        inner: the inner rule ``(degree, error estimate)`` (see :class:`CGETCoefficients`).
    """

    kappa: np.ndarray
    h: np.ndarray
    h1t: np.ndarray
    h2t: np.ndarray
    gamma: float
    rho: float
    error: float
    inner: tuple = ()


def target_functions(teacher, gamma: float, kappa, *, tol: float = 1e-11, degree: int | None = None,
                     inner=None) -> TargetFunctions:
    r"""h(κ) = E_s σ*(γκ + ρs), h̃1(κ) = E_s[s σ*(γκ + ρs)], h̃2(κ) = E_s σ*(γκ + ρs)²
    (``inner`` as in :func:`cget_coefficients`)."""
    act = as_activation(teacher, "teacher")
    g = float(gamma)
    if not (math.isfinite(g) and -1.0 <= g <= 1.0):
        raise ParameterError("gamma", gamma, "in [-1, 1]")
    rho = math.sqrt(max(0.0, 1.0 - g * g))
    k = np.atleast_1d(np.asarray(kappa, dtype=float))
    (m0, m1, m2), err, deg = _moments_or_fixed(moment_kernels(act), g * k, rho, act.kinks, tol, degree, inner)
    return TargetFunctions(k, m0, m1, m2, g, rho, err, (deg, err))
