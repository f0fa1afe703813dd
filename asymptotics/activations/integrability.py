r"""Are the Gaussian moments of an activation finite? Decided from the function, not from the size
of a quadrature's answer.

Every constant the theory uses — μ0 = E σ(z), μ1 = E z σ(z), the Hermite coefficients
c_k = E σ(z) He_k(z)/√k!, E σ(z)², E σ'(z), E σ'(z)² for z ~ N(0, 1) — is finite as soon as

    E σ(z)² < ∞   and   E σ'(z)² < ∞

(Cauchy–Schwarz: |E σ He_k| ≤ (E σ²)^{1/2} (E He_k²)^{1/2}, |E σ'| ≤ (E σ'²)^{1/2}). For g = σ² φ
or σ'² φ (φ the standard normal density) :func:`check_gaussian_moments` establishes
integrability in three places, and refuses the activation with a message saying which moment
fails and why:

1. **Where σ is defined.** sympy's ``continuous_domain`` (with the bounded, everywhere-defined
   erf, sign, Heaviside replaced by tanh, which changes no domain) gives the points of the real
   line where σ or σ' is singular. An interval of them (``log(x)`` for x ≤ 0), or infinitely many
   (``tan(x)``), is refused; σ is also evaluated on a dense grid and must be real and finite there
   (``x**(1/3)`` is complex for x < 0 on sympy's principal branch).
2. **Near each singular point s.** With |σ(s ± ε)| ~ ε^{−p}, σ² is integrable near s iff p < 1/2.
   p is measured in 50-digit arithmetic at ε = 2^{-24}, …, 2^{-96} (envelope over nearby points),
   so 1/x (p = 1), |x|^{-1/2} (p = 1/2) and σ' = 1/x of log|x| are refused while log|x|
   (p → 0), sin(x)/x (removable) and |x|^{-1/4} are accepted for σ².
3. **In the tails.** u(x) = log(x² g(x)) is evaluated at |x| = 14·2^{k/2} up to ~1800 with guarded
   arbitrary-precision arithmetic (an exponential of an argument beyond 10^8 counts as +∞,
   so ``exp(exp(exp(x)))`` costs nothing). Integrability requires u to decrease along the points
   beyond |x| = 40 (so x² g → 0): exp(a x²) with a ≥ 1/4 fails whatever its prefactor
   (exp(x²/4)·10^{-300} included), polynomials, exp(|x|) and exp(a x²), a < 1/4, pass. Finally
   the mass beyond |x| = 14, where the float64 quadrature stops, must be below 10^{-12} of the
   moment, otherwise the activation is refused as beyond the quadrature's reach (e.g.
   exp(0.24 x²), finite but with most of its mass at |x| > 14).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from ..errors import ExpressionError, shorten
from ..gaussian import composite_rule
from .parser import X

__all__ = ["check_gaussian_moments", "singular_points", "local_exponent", "tail_profile", "MomentError"]


class MomentError(ExpressionError):
    """A Gaussian moment of the activation is infinite, or beyond the float64 quadrature."""


#: Beyond this argument an exponential is treated as +∞ (and 0 for the negative argument).
_EXP_GUARD = mpmath.mpf(10) ** 8
#: Beyond this argument sin/cos/tan are unknown.
_PERIODIC_GUARD = mpmath.mpf(10) ** 40
_DPS = 50
#: Where the float64 quadrature of :mod:`asymptotics.gaussian` stops.
QUADRATURE_EDGE = 14.0
#: The tail points (one side), and the multipliers of each cluster (an envelope against zeros).
_TAIL = [QUADRATURE_EDGE * 2 ** (k / 2) for k in range(15)]
_CLUSTER = (1.0, 1.0137, 1.0291, 1.0473)
#: Relative mass beyond the quadrature's edge that is accepted.
TAIL_TOLERANCE = 1e-12
#: Most singular points examined.
_MAX_SINGULAR = 32

_MOMENTS = {"f": "E σ(z)²", "df": "E σ'(z)²"}


def _exp(v):
    if v > _EXP_GUARD:
        return mpmath.inf
    if v < -_EXP_GUARD:
        return mpmath.mpf(0)
    return mpmath.exp(v)


def _periodic(fn):
    def g(v):
        return mpmath.nan if abs(v) > _PERIODIC_GUARD else fn(v)

    return g


def _hyperbolic(fn, even: bool):
    def g(v):
        if abs(v) > _EXP_GUARD:
            return mpmath.inf if (even or v > 0) else -mpmath.inf
        return fn(v)

    return g


def _heaviside(v, h0=None):
    h0 = mpmath.mpf(1) / 2 if h0 is None else h0
    return mpmath.mpf(1) if v > 0 else (h0 if v == 0 else mpmath.mpf(0))


def _sign(v):
    return mpmath.mpf(1) if v > 0 else (mpmath.mpf(-1) if v < 0 else mpmath.mpf(0))


_FUNCS = {
    sp.exp: _exp,
    sp.log: lambda v: mpmath.log(v),
    sp.sin: _periodic(mpmath.sin),
    sp.cos: _periodic(mpmath.cos),
    sp.tan: _periodic(mpmath.tan),
    sp.sinh: _hyperbolic(mpmath.sinh, False),
    sp.cosh: _hyperbolic(mpmath.cosh, True),
    sp.tanh: lambda v: mpmath.tanh(v) if abs(v) < _EXP_GUARD else mpmath.sign(v),
    # reciprocal forms: sympy's simplify may rewrite 1 - tanh² as sech², 1/tanh as coth, …
    sp.sech: lambda v: mpmath.sech(v) if abs(v) < _EXP_GUARD else mpmath.mpf(0),
    sp.csch: lambda v: mpmath.csch(v) if abs(v) < _EXP_GUARD else mpmath.mpf(0),
    sp.coth: lambda v: mpmath.coth(v) if abs(v) < _EXP_GUARD else mpmath.sign(v),
    sp.sec: _periodic(mpmath.sec),
    sp.csc: _periodic(mpmath.csc),
    sp.cot: _periodic(mpmath.cot),
    sp.asinh: mpmath.asinh,
    sp.atan: mpmath.atan,
    sp.erf: mpmath.erf,
    sp.erfc: mpmath.erfc,
    sp.Abs: abs,
    sp.sign: _sign,
}


def _power(b, q):
    if b == 0:
        return mpmath.inf if q < 0 else (mpmath.mpf(1) if q == 0 else mpmath.mpf(0))
    if mpmath.isinf(b):
        return mpmath.inf if q > 0 else mpmath.mpf(0)
    size = q * mpmath.log(abs(b))
    if size > _EXP_GUARD:
        return mpmath.inf
    if size < -_EXP_GUARD:
        return mpmath.mpf(0)
    return mpmath.power(b, q)


_RELATIONS = {
    sp.Eq: lambda a, b: a == b,
    sp.Ne: lambda a, b: a != b,
    sp.Lt: lambda a, b: a < b,
    sp.Le: lambda a, b: a <= b,
    sp.Gt: lambda a, b: a > b,
    sp.Ge: lambda a, b: a >= b,
}


def _truth(cond, x) -> bool | None:
    """A Piecewise condition at x (None when it cannot be decided)."""
    if cond is sp.true:
        return True
    if cond is sp.false:
        return False
    if type(cond) in _RELATIONS:
        a, b = _mp_eval(cond.lhs, x), _mp_eval(cond.rhs, x)
        if mpmath.isnan(a) or mpmath.isnan(b):
            return None
        return bool(_RELATIONS[type(cond)](a, b))
    if isinstance(cond, (sp.And, sp.Or)):
        vals = [_truth(c, x) for c in cond.args]
        if None in vals:
            return None
        return all(vals) if isinstance(cond, sp.And) else any(vals)
    if isinstance(cond, sp.Not):
        v = _truth(cond.args[0], x)
        return None if v is None else not v
    return None


def _sympy_fallback(func, args):
    """A function not in the table, evaluated by sympy at moderate arguments (nan otherwise)."""
    if any(mpmath.isnan(a) or mpmath.isinf(a) or abs(a) > 10**6 for a in args):
        return mpmath.nan
    try:
        v = func(*[sp.Float(mpmath.nstr(a, _DPS), _DPS) for a in args]).evalf(_DPS)
    except (TypeError, ValueError, ArithmeticError):
        return mpmath.nan
    if not v.is_real or not v.is_finite:
        return mpmath.nan
    return mpmath.mpf(str(v))


def _mp_eval(e: sp.Expr, x):
    """``e`` at the mpf ``x`` with guarded exponentials (mpmath.inf/nan instead of a hang);
    complex values become nan."""
    if e.is_Symbol:  # the one variable; not `is X`: sympy's cache may hold an equal copy
        if e != X:
            return mpmath.nan
        return x
    if e.is_Number or e.is_NumberSymbol:
        return mpmath.mpf(sp.Float(e, _DPS + 5))
    if isinstance(e, sp.Piecewise):
        for branch, cond in e.args:
            t = _truth(cond, x)
            if t is None:
                return mpmath.nan
            if t:
                return _mp_eval(branch, x)
        return mpmath.nan
    args = [_mp_eval(a, x) for a in e.args]
    if any(isinstance(a, mpmath.mpc) for a in args):
        return mpmath.nan
    if isinstance(e, sp.Add):
        out = mpmath.fsum(args)
    elif isinstance(e, sp.Mul):
        out = mpmath.mpf(1)
        for a in args:
            out = out * a
    elif isinstance(e, sp.Pow):
        out = _power(*args)
    elif isinstance(e, sp.Max):
        out = mpmath.nan if any(mpmath.isnan(a) for a in args) else max(args)
    elif isinstance(e, sp.Min):
        out = mpmath.nan if any(mpmath.isnan(a) for a in args) else min(args)
    elif isinstance(e, sp.Heaviside):
        out = _heaviside(*args)
    elif isinstance(e, sp.DiracDelta):
        out = mpmath.mpf(0)  # 0 almost everywhere
    elif e.func in _FUNCS:
        out = _FUNCS[e.func](*args)
    else:
        out = _sympy_fallback(e.func, args)
    if isinstance(out, mpmath.mpc):
        return out.real if abs(out.imag) <= mpmath.mpf(10) ** (-_DPS + 10) * (1 + abs(out.real)) else mpmath.nan
    return out


def _log_abs(e: sp.Expr, x) -> mpmath.mpf:
    """log|e(x)| (−inf at a zero, +inf for an infinite value, nan when unknown)."""
    v = _mp_eval(e, x)
    if mpmath.isnan(v):
        return mpmath.nan
    if mpmath.isinf(v):
        return mpmath.inf
    return mpmath.log(abs(v)) if v != 0 else -mpmath.inf


def _envelope(e: sp.Expr, points) -> mpmath.mpf:
    """max of log|e| over ``points`` (nan if any is unknown)."""
    vals = [_log_abs(e, p) for p in points]
    if any(mpmath.isnan(v) for v in vals):
        return mpmath.nan
    return max(vals)


# ---- 1. the domain -----------------------------------------------------------------------------
def _for_domain(e: sp.Expr) -> sp.Expr:
    """``e`` with erf, erfc, sign, Heaviside (defined and bounded on ℝ) replaced by tanh, which
    sympy's continuous_domain understands; DiracDelta (0 almost everywhere) by 0; a Piecewise by
    the sum of its branches (a superset of the singular points: each is then examined)."""
    e = e.replace(sp.DiracDelta, lambda *a: sp.Integer(0))
    e = e.replace(lambda n: isinstance(n, sp.Piecewise), lambda n: sp.Add(*[b for b, _ in n.args]))
    for f in (sp.erf, sp.erfc, sp.sign):
        e = e.replace(f, sp.tanh)
    return e.replace(sp.Heaviside, lambda a, *rest: sp.tanh(a))


def singular_points(e: sp.Expr, what: str) -> list[sp.Expr]:
    """The real points where ``e`` is not defined, exactly (sympy numbers such as ``log(2)``, so
    that they can be approached closer than float64 resolves); :class:`MomentError` when they
    form an interval or an infinite set."""
    from sympy.calculus.util import continuous_domain

    try:
        dom = continuous_domain(_for_domain(e), X, sp.S.Reals)
        bad = sp.S.Reals - dom
    except Exception:  # sympy gives up: only the numeric checks remain
        return []
    if bad is sp.S.EmptySet:
        return []
    if isinstance(bad, sp.FiniteSet):
        pts = sorted((p for p in bad if p.is_real), key=lambda p: float(p))
        if len(pts) > _MAX_SINGULAR:
            raise MomentError(f"{what} is singular at {len(pts)} points of the real line")
        return pts
    try:
        interval = bad.measure != 0
    except Exception:  # sympy cannot measure it: an infinite family of points
        interval = False
    if interval:
        raise MomentError(f"{what} is not real-valued for x in {shorten(str(bad), 60)}")
    raise MomentError(
        f"{what} is singular at infinitely many points of the real line ({shorten(str(bad), 60)})"
    )


# ---- 2. near a singular point ------------------------------------------------------------------
def local_exponent(e: sp.Expr, s) -> float:
    """The exponent p of |e(s ± ε)| ~ ε^{−p} as ε → 0 (the larger of the two sides), from the
    slope of the envelope of log|e| between ε = 2^-72 and 2^-96 in 50-digit arithmetic (``s``
    exact, a sympy number, or an mpf); +inf when unknown."""
    with mpmath.workdps(_DPS):
        s_mp = mpmath.mpf(str(sp.N(s, _DPS + 10))) if isinstance(s, sp.Basic) else mpmath.mpf(s)
        worst = -mpmath.inf
        for side in (-1, 1):
            logs = []
            for k in (72, 96):
                eps = mpmath.mpf(2) ** -k
                logs.append(_envelope(e, [s_mp + side * eps * c for c in _CLUSTER]))
            if any(mpmath.isnan(v) for v in logs) or logs[1] == mpmath.inf:
                return math.inf
            if logs[1] == -mpmath.inf:
                continue
            if logs[0] == -mpmath.inf:
                return math.inf
            slope = (logs[1] - logs[0]) / (24 * mpmath.log(2))
            worst = max(worst, slope)
        return float(worst) if worst > -mpmath.inf else -math.inf


# ---- 3. the tails ------------------------------------------------------------------------------
def tail_profile(e: sp.Expr, side: int) -> list[tuple[float, float]]:
    """(|x|, u) at the tail points on one side (``side`` = ±1), u the largest of
    log(p² e(p)² φ(p)) over the cluster of points p near x (nan when unknown)."""
    out = []
    with mpmath.workdps(_DPS):
        c = mpmath.log(2 * mpmath.pi) / 2
        for t in _TAIL:
            us = []
            for m in _CLUSTER:
                p = mpmath.mpf(t) * m
                la = _log_abs(e, side * p)
                us.append(mpmath.nan if mpmath.isnan(la) else 2 * la - p * p / 2 - c + 2 * mpmath.log(p))
            u = mpmath.nan if any(mpmath.isnan(v) for v in us) else max(us)
            out.append((t, float(u) if not mpmath.isinf(u) else (math.inf if u > 0 else -math.inf)))
    return out


def _tail_mass(profile) -> float:
    """∫ beyond the first point of e² φ, from the profile (trapezoid on the points)."""
    mass = 0.0
    for (t0, u0), (t1, _) in zip(profile, profile[1:], strict=False):
        g0 = math.exp(min(u0, 700.0)) / (t0 * t0) if u0 > -math.inf else 0.0
        mass += g0 * (t1 - t0)
    return mass


def _check_tails(e: sp.Expr, what: str, moment_value: float) -> None:
    for side, label in ((1, "+∞"), (-1, "−∞")):
        prof = tail_profile(e, side)
        if any(math.isnan(u) for _, u in prof):
            raise MomentError(
                f"{_MOMENTS[what]} cannot be shown finite: σ{'' if what == 'f' else chr(39)} cannot be "
                f"evaluated reliably for large x (towards {label})"
            )
        far = [(t, u) for t, u in prof if t >= 40.0]
        grows = any(u == math.inf for _, u in far) or any(
            b[1] >= a[1] and b[1] > -math.inf for a, b in zip(far, far[1:], strict=False)
        )
        if grows:
            fn = "σ(x)²" if what == "f" else "σ'(x)²"
            raise MomentError(
                f"{_MOMENTS[what]} is infinite: {fn}·e^(−x²/2) does not decay as x → {label} "
                "(growth like e^(a x²) with a ≥ 1/4, or faster)"
            )
        mass = _tail_mass(prof)
        if mass > TAIL_TOLERANCE * abs(moment_value) + 1e-300:
            raise MomentError(
                f"{_MOMENTS[what]} has a heavy tail: about {mass:.1e} of it lies beyond |z| = "
                f"{QUADRATURE_EDGE:g} towards {label} (moment ≈ {moment_value:.3g}), beyond the "
                "float64 quadrature's reach"
            )


# ---- the check ---------------------------------------------------------------------------------
def _grid_values(fn, what: str) -> tuple[float, np.ndarray]:
    """E fn(z)² by the composite rule, checking that fn is real and finite on a dense grid."""
    x, w = composite_rule(())
    # a dense grid shifted off the simple numbers where removable singularities sit (sin(x)/x)
    grid = np.concatenate([x, np.linspace(-QUADRATURE_EDGE, QUADRATURE_EDGE, 2801) + math.pi * 1e-7])
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(grid), dtype=float)
    bad = ~np.isfinite(vals)
    if np.any(bad):
        i = int(np.argmax(bad))
        fn_name = "σ(x)" if what == "f" else "σ'(x)"
        if np.isnan(vals[i]):
            raise MomentError(f"the compiled {fn_name} is not a real number at x = {grid[i]:.6g}")
        raise MomentError(
            f"{fn_name} overflows float64 at x = {grid[i]:.6g} ({_MOMENTS[what]} is infinite or beyond float64)"
        )
    n = x.size
    with np.errstate(over="ignore"):
        m = float(np.dot(w, vals[:n] ** 2))
    if not math.isfinite(m):
        raise MomentError(f"{_MOMENTS[what]} overflows float64 (σ is too large)")
    return m, vals


def check_gaussian_moments(f: sp.Expr, df: sp.Expr, f_np, df_np) -> dict:
    """Refuse (:class:`ExpressionError`) an activation whose E σ(z)² or E σ'(z)² is infinite, or
    beyond the float64 quadrature's reach; see the module docstring for how it is decided.

    ``f``, ``df``: σ and σ' as sympy expressions in :data:`X` (``df`` is best the plain
    ``sympy.diff``: simplification may introduce spurious complex branches); ``f_np``, ``df_np``:
    the vectorised float64 versions the constants are computed with. Returns ``{"second_moment": E σ², "mean_sq_derivative": E σ'²,
    "singular_points": [...]}`` for information.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> check_gaussian_moments(1 / x, -1 / x**2, lambda t: 1 / t, lambda t: -1 / t**2)
    Traceback (most recent call last):
    ...
    asymptotics.activations.integrability.MomentError: E σ(z)² is infinite: σ is not square-integrable near x = 0 (|σ(x)| grows like |x|^-1)
    """
    info = {"singular_points": []}
    for what, e, fn in (("f", f, f_np), ("df", df, df_np)):
        name = "σ" if what == "f" else "σ'"
        pts = singular_points(e, name)
        for point in pts:
            p = local_exponent(e, point)
            s = float(point)
            if not p < 0.49:
                dist = "|x|" if s == 0 else f"|x {'+' if s < 0 else '−'} {abs(s):.6g}|"
                grows = "faster than any power" if math.isinf(p) else f"like {dist}^-{p:.3g}"
                raise MomentError(
                    f"{_MOMENTS[what]} is infinite: {name} is not square-integrable near x = {s:.6g} "
                    f"(|{name}(x)| grows {grows})"
                )
        m, _ = _grid_values(fn, what)
        _check_tails(e, what, m)
        info["second_moment" if what == "f" else "mean_sq_derivative"] = m
        info["singular_points"] += [float(s) for s in pts if float(s) not in info["singular_points"]]
    return info
