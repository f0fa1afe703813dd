r"""The high-precision path of τ*: Newton on τ'(κ) = 0 in mpmath arithmetic at ``dps`` digits.

Started from the compiled answer. The rules (:mod:`.rules`) are the trapezoidal rule with a step set
by ``dps`` for smooth functions and composite Gauss–Legendre split at the kinks for kinked ones;
for ReLU, erf and linear students the inner expectation is in closed form (E relu(m + z) =
mΦ(m) + φ(m), …), so the kinked case does not share the compiled path's kink handling. The error
is the difference from the rule of half the step (:func:`~..refinement.refine`); the limits
κ → ±∞ are computed by tanh–sinh quadrature.
"""

from __future__ import annotations

from dataclasses import replace

import mpmath

from ....errors import ConvergenceError
from ....gaussian import expect_mp
from ..refinement import Check, refine
from .problem import TauProblem, activation_limits
from .results import LIMITS, TauStarResult
from .rules import composite_rule_mp, trapezoid_rule_mp

__all__ = ["solve_mp"]


def _mp_function(act):
    """σ in mpmath arithmetic (the raw activation's generated mpmath version)."""
    return act.mpmath(raw=True)[0]


class _MpObjective:
    """τ, τ', τ'' at the working precision, with rules whose resolution is set by ``dps``."""

    def __init__(self, prob: TauProblem, a: float, b: float, dps: int):
        self.prob = prob
        self.dps = dps
        self.A = mpmath.mpf(a)
        self.B = mpmath.mpf(b)
        self.s_mp = _mp_function(prob.student)
        self.t_mp = _mp_function(prob.teacher)
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
            expect_mp(lambda z: self.s_mp(self.A * z), [float(k) for k in self.s_kinks], dps=dps) if prob.center else 0
        )
        self.off_t = (
            expect_mp(lambda x: self.t_mp(self.B * x), [float(k) for k in self.t_kinks], dps=dps) if prob.center else 0
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

    def _trapezoid(self, level):
        key = ("trap", level)
        if key not in self._cache:
            self._cache[key] = trapezoid_rule_mp(self.h0 / 2**level, self.L)
        return self._cache[key]

    @property
    def kinked(self) -> bool:
        return bool(self.s_kinks or self.t_kinks or self.prob.teacher.kinks)

    def outer(self, level):
        if self.t_kinks or self.prob.teacher.kinks:
            key = ("outer", level)
            if key not in self._cache:
                self._cache[key] = composite_rule_mp(self.t_kinks, self.L, self._gl(level))
            return self._cache[key]
        return self._trapezoid(level)

    def inner(self, m, level):
        if self.s_kinks:
            return composite_rule_mp([k - m for k in self.s_kinks], self.L, self._gl(level))
        return self._trapezoid(level)

    @property
    def nested(self) -> bool:
        """Whether both rules are trapezoidal (the rule of step h is every other node of h/2)."""
        return self.closed_inner is None and not self.kinked

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
            t = self.t_mp(self.B * x) - self.off_t
            if self.closed_inner is not None:
                g0, g1, g2 = self.closed_inner(m)
                _accumulate(acc[0], w, x, t - (g0 - self.off_s), g1, g2)
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
                _accumulate(a, ww, x, t - g0, g1, g2)

        def assemble(a):
            s0, s1, s2, rr, pp, qq = a
            if self.prob.fit_constant:
                return s0 - rr * rr, -2 * (s1 - rr * pp), 2 * (s2 - pp * pp + rr * qq)
            return s0, -2 * s1, 2 * s2

        return (assemble(acc[0]), assemble(acc[1])) if with_coarse else assemble(acc[0])

    def values_and_check(self, kappa, level):
        """(τ, τ', τ'') at κ with the rule of ``level`` and of ``level + 1`` (one pass when nested)."""
        if self.nested:
            fine, coarse = self.objective(kappa, level + 1, with_coarse=True)
            return coarse, fine
        return self.objective(kappa, level), self.objective(kappa, level + 1)

    def rule_name(self, level):
        gl = f"composite Gauss–Legendre ({3 * 2 ** (self.gl_degree0 + level - 1)} nodes/panel)"
        trap = f"trapezoid h={float(self.h0 / 2**level):.4g}"
        if self.closed_inner is not None:
            return f"mpmath {gl if self.t_kinks else trap}, closed-form inner expectation, {self.dps} digits"
        return f"mpmath {gl if self.kinked else trap}, {self.dps} digits"


def _accumulate(a, w, x, r, g1, g2):
    """Add one outer node's terms to the sums s0, s1, s2, rr, pp, qq of τ, τ', τ'' (r = t − G)."""
    a[0] += w * r * r
    a[1] += w * r * x * g1
    a[2] += w * x * x * (g1 * g1 - r * g2)
    a[3] += w * r
    a[4] += w * x * g1
    a[5] += w * x * x * g2


def _limit_mp(prob: TauProblem, R: _MpObjective, start: TauStarResult, dps: int) -> TauStarResult:
    """τ(±∞) = E(t − step)² (minus its squared mean with a free constant) by tanh–sinh quadrature."""
    lo, hi = activation_limits(prob.student)
    sgn = 1 if start.infimum_at == "to_plus_infinity" else -1
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
        error=float(mpmath.mpf(10) ** (-dps) * (1 + abs(value))),
        method="mpmath",
        rule=f"mpmath tanh–sinh, {dps} digits (exact limit κ → ±∞)",
    )


def solve_mp(prob: TauProblem, a: float, b: float, dps: int, start: TauStarResult, max_level: int = 2) -> TauStarResult:
    """Refine a compiled result in mpmath at ``dps`` digits (Newton on τ' from the compiled κ* at
    each level; the error is the difference from the rule of the next level)."""
    with mpmath.workdps(dps + 10):
        R = _MpObjective(prob, a, b, dps)
        if start.infimum_at in LIMITS:
            return _limit_mp(prob, R, start, dps)
        tol_rel = mpmath.mpf(10) ** (-dps)
        scale = abs(R.objective(mpmath.mpf(0), 0)[0]) + tol_rel  # τ(0): the natural scale

        def solve(level, previous):
            kappa = mpmath.mpf(start.kappa_star)
            its = 0
            if start.infimum_at == "interior":
                for its in range(1, 12):  # noqa: B007 - the count is reported
                    v, d1, d2 = R.objective(kappa, level)
                    if not d2 > 0:
                        raise ConvergenceError(f"mpmath path: τ''(κ) = {float(d2):.3g} ≤ 0 at κ = {float(kappa)}", start)
                    step = d1 / d2
                    kappa -= step
                    if abs(step) <= tol_rel * (1 + abs(kappa)):
                        break
            return kappa, its

        def check(answer, level, finer):
            kappa = answer[0]
            (v, _, _), fine = R.values_and_check(kappa, level)
            err = abs(v - fine[0])
            kerr = abs(fine[1] / fine[2]) if fine[2] > 0 else mpmath.inf
            ok = err <= 100 * tol_rel * scale and (
                start.infimum_at == "zero" or kerr <= 100 * tol_rel * (1 + abs(kappa))
            )
            return Check(ok, (err, kerr, fine))

        ref = refine(solve, range(max_level + 2), check)
        (kappa, its), (err, kerr, (v2, e1, e2)) = ref.answer, ref.check.error
        if not ref.converged:
            raise ConvergenceError(
                f"mpmath path did not reach {dps} digits: quadrature difference {float(err):.3g}, κ change {float(kerr):.3g}",
                replace(start, tau_star=float(v2), kappa_star=float(kappa), error=float(err), method="mpmath"),
            )
        return replace(
            start,
            tau_star=float(max(v2, 0)),
            kappa_star=float(kappa),
            derivative=float(e1),
            curvature=float(e2),
            error=float(err),
            kappa_error=float(kerr) if start.infimum_at == "interior" else 0.0,
            iterations=its,
            method="mpmath",
            rule=R.rule_name(ref.level + 1),
        )
