r"""The compiled path of τ*: scan, safeguarded Newton and refinement, one point at a time.

For each point (a, b) of a :class:`~.problem.TauProblem` (the kernels: :mod:`.kernels`):

1. **scan** κ on a two-sided geometric grid with a cheap rule (enlarged ×100 up to
   ``kappa_max_limit`` while the best value is at its end), then safeguarded Newton on τ'(κ) = 0
   inside the bracket of the best scanned point (Stein derivatives: only σ is evaluated);
2. **refine** (:func:`~asymptotics.theory.large_step.refinement.refine`): the answer at level ℓ is
   accepted when the rule of level ℓ + 1 changes τ* by at most ``atol + rtol·τ*`` and moves κ* by at
   most ``kappa_rtol·(1 + |κ*|)`` (the Newton step τ'/τ'' there); otherwise Newton restarts from κ*
   at level ℓ + 1 (a new scan with the finer rule if the bracket held no stationary point);
3. **limits**: when σ has finite limits σ(±∞) the infimum may be the exact limit τ(±∞) (no finite
   minimiser), compared with the minimum found;
4. **mirror**: a second minimiser at −κ* (τ is even in κ when σ* is even and σ odd, or vice versa)
   is noted, and the positive one reported.

An even student with an odd teacher has κ* = 0 by symmetry (:func:`~.problem.is_symmetric_zero`):
there τ(0) is refined alone. For any even student τ is even in κ (τ'(0) = 0); when the refinement
cannot pin down a minimiser within 10⁻³ of 0 (a flatter than quadratic minimum) and τ(0) is not
above the value found, κ* = 0 is reported, with ``kappa_error`` where Newton ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ....gaussian import expect
from ....solvers import Status
from ..refinement import Check, refine
from .config import TauStarConfig
from .kernels import student_kernels
from .problem import TauProblem, activation_limits, gauss_mean, is_symmetric_zero
from .results import TauStarGrid
from .rules import CompiledRules, compiled_rules, rule_kinds, rule_name

__all__ = ["CompiledObjective", "solve_compiled", "scan_grid"]

_FAILURE_REASONS = {
    Status.MAX_STEPS: "maximum iterations reached",
    Status.NONFINITE: "non-finite objective",
    Status.NO_STATIONARY: "no stationary point in the scanned bracket",
}


def scan_grid(kmin: float, kmax: float, per_decade: int) -> np.ndarray:
    """The scanned κ: ±(a geometric grid on [kmin, kmax]) and 0."""
    n = max(4, int(math.ceil(per_decade * math.log10(kmax / kmin))) + 1)
    g = np.geomspace(kmin, kmax, n)
    return np.concatenate([-g[::-1], [0.0], g])


@dataclass(frozen=True)
class _Answer:
    """τ at one point and level: κ, τ, τ', τ'' with the kernel's status and iteration count."""

    kappa: float
    tau: float
    d1: float
    d2: float
    status: Status
    iterations: int


class CompiledObjective:
    """τ, τ', τ'' of one problem through the compiled kernels; the rules of each level are built
    once, on first use (one row per unique input scale)."""

    def __init__(self, prob: TauProblem, cfg: TauStarConfig):
        self.prob = prob
        self.cfg = cfg
        self.kinds = rule_kinds(prob.student, prob.teacher, cfg)
        self.a_u, self.a_idx = np.unique(prob.a, return_inverse=True)
        self.b_u, self.b_idx = np.unique(prob.b, return_inverse=True)
        self.t_off = self._offsets(prob.teacher, self.b_u)
        self.offs = self._offsets(prob.student, self.a_u)[self.a_idx]
        k = np.array(sorted(prob.student.kinks), dtype=float)
        self.kinks = np.array([k / a for a in self.a_u]) if k.size else np.zeros((len(self.a_u), 0))
        self._levels: dict[int, CompiledRules] = {}

    def _offsets(self, act, scales) -> np.ndarray:
        """The centring offsets E σ(s z) per unique scale s (0 when not centred)."""
        if not self.prob.center:
            return np.zeros(len(scales))
        return np.array([gauss_mean(act, float(s))[0] for s in scales])

    @cached_property
    def kernels(self):
        """The generated kernel module (compiled on first use, then cached on disk)."""
        return student_kernels(self.prob.student)

    @cached_property
    def scan_rules(self) -> CompiledRules:
        return compiled_rules(self.prob.teacher, self.kinds, 0, self.cfg, self.b_u, self.a_u, self.t_off, scan=True)

    def rules(self, level: int) -> CompiledRules:
        if level not in self._levels:
            self._levels[level] = compiled_rules(
                self.prob.teacher, self.kinds, level, self.cfg, self.b_u, self.a_u, self.t_off
            )
        return self._levels[level]

    def _args(self, p: int, r: CompiledRules) -> tuple:
        """The kernels' arguments for point p with rules r (after κ)."""
        bi, ai = self.b_idx[p], self.a_idx[p]
        return (self.prob.a[p], self.offs[p], self.prob.fit_constant, r.x[bi], r.w[bi], r.t[bi], r.mode,
                r.z[ai], r.wz[ai], self.kinks[ai], self.cfg.half_width, 1.0, r.glx, r.glw)

    def value(self, p: int, kappa: float, level: int) -> tuple[float, float, float]:
        """(τ, τ', τ'') at κ for point p."""
        return self.kernels.objective(kappa, *self._args(p, self.rules(level)))

    def values(self, p: int, kappas, level: int) -> np.ndarray:
        """(n, 3) array of τ, τ', τ'' at each κ for point p."""
        return self.kernels.objective_many(np.ascontiguousarray(kappas, dtype=float),
                                           *self._args(p, self.rules(level)))

    def newton(self, p: int, k0: float, width: float, level: int) -> _Answer:
        """Safeguarded Newton on τ' = 0 from k0 inside [k0 − width, k0 + width]."""
        out = self.kernels.newton_bracket(k0, k0 - width, k0 + width, *self._args(p, self.rules(level)),
                                          self.cfg.xtol, self.cfg.max_iter)
        return _Answer(*out[:4], Status(out[4]), out[5])

    def scan_and_newton(self, p: int, level: int, kscan: np.ndarray) -> _Answer:
        """Scan with the cheap rule, then Newton with the rule of ``level`` (kernel ``minimise_one``)."""
        s, r = self.scan_rules, self.rules(level)
        a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw = self._args(p, r)
        bi, ai = self.b_idx[p], self.a_idx[p]
        out = self.kernels.minimise_one(a, off, fit_c, kscan, s.x[bi], s.w[bi], s.t[bi], s.z[ai], s.wz[ai], s.glx,
                                        s.glw, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw,
                                        self.cfg.xtol, self.cfg.max_iter)
        return _Answer(*out[:4], Status(out[4]), out[5])

    def limit_values(self):
        """τ(+∞), τ(−∞) and their errors per point (inf when the student has no finite limits).

        As κ → s·∞ (s = ±1), E_ξ2 σ(a(κξ1 + ξ2)) − o → S(ξ1) = c₊ on s·ξ1 > 0 and c₋ on s·ξ1 < 0,
        c± = σ(±∞) − o(a). With T± = E[t 1{±ξ1 > 0}] and M = E t²:
        τ(s·∞) = M − 2(c₊T_s + c₋T_{−s}) + (c₊² + c₋²)/2 (minus (T₊ + T₋ − (c₊ + c₋)/2)² with a
        free constant). The three teacher integrals are computed once per teacher scale."""
        lo, hi = activation_limits(self.prob.student)
        n = self.prob.size
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


class _Point:
    """The refinement of one point: how to solve at a level, and how to check against the next."""

    def __init__(self, obj: CompiledObjective, p: int):
        self.obj, self.p, self.cfg = obj, p, obj.cfg

    def solve(self, level: int, previous: _Answer | None) -> _Answer:
        if previous is None:
            return self.full_scan(level)
        if previous.status in (Status.CONVERGED, Status.MAX_STEPS):
            k0 = previous.kappa
            ans = self.obj.newton(self.p, k0, 0.25 * (1.0 + abs(k0)), level)
            if ans.status != Status.NO_STATIONARY:
                return ans
        return self.main_scan(level)

    def full_scan(self, level: int) -> _Answer:
        """Scan + Newton; the κ range grows ×100 while the best value is at its end."""
        cfg, kmax = self.cfg, self.cfg.kappa_max
        while True:
            ans = self.obj.scan_and_newton(self.p, level, scan_grid(cfg.kappa_min, kmax, cfg.scan_per_decade))
            if ans.status != Status.AT_EDGE or kmax >= cfg.kappa_max_limit:
                return ans
            kmax = min(kmax * 100.0, cfg.kappa_max_limit)

    def main_scan(self, level: int) -> _Answer:
        """When the cheap scan misled Newton: scan with the rule of ``level``, then Newton between
        the neighbours of the best scanned point."""
        cfg = self.cfg
        kscan = scan_grid(cfg.kappa_min, cfg.kappa_max_limit, cfg.scan_per_decade)
        vals = self.obj.values(self.p, kscan, level)[:, 0]
        vals = np.where(np.isfinite(vals), vals, np.inf)
        b = int(np.argmin(vals))
        if b == 0 or b == kscan.size - 1:
            return _Answer(kscan[b], vals[b], 0.0, 0.0, Status.AT_EDGE, 0)
        k0 = kscan[b]
        return self.obj.newton(self.p, k0, max(kscan[b + 1] - k0, k0 - kscan[b - 1]), level)

    def check(self, ans: _Answer, level: int, finer: int) -> Check:
        rv, rg, rh = self.obj.value(self.p, ans.kappa, finer)
        e = abs(ans.tau - rv)
        ke = abs(rg / rh) if rh > 0 else math.inf
        ok_num = ans.status == Status.CONVERGED and math.isfinite(ans.tau) and rh > 0
        ok_acc = e <= self.cfg.atol + self.cfg.rtol * abs(ans.tau) and ke <= self.cfg.kappa_rtol * (1.0 + abs(ans.kappa))
        return Check(ok_num and ok_acc, (e, ke))

    @staticmethod
    def stop(ans: _Answer) -> Status | None:
        return ans.status if ans.status in (Status.AT_EDGE, Status.NONFINITE) else None


class _SymmetricZero(_Point):
    """κ* = 0 exactly (even σ, odd σ*): only τ(0) is refined."""

    def solve(self, level, previous):
        return _Answer(0.0, *self.obj.value(self.p, 0.0, level), Status.CONVERGED, 0)

    def check(self, ans, level, finer):
        e = abs(ans.tau - self.obj.value(self.p, 0.0, finer)[0])
        return Check(e <= self.cfg.atol + self.cfg.rtol * abs(ans.tau), (e, 0.0))


_SYMMETRIC_NOTE = "σ even and σ* odd: τ(κ) = E σ*² + E G(κξ1)² ≥ τ(0), so κ* = 0 exactly (by symmetry)"
_FLAT_ZERO_NOTE = (
    "σ even: τ is even in κ and stationary at 0; Newton ended at a flat minimum next to 0 and τ(0) is not above it,"
    " so κ* = 0 (kappa_error: where Newton ended)"
)
#: an unresolved minimiser of an even τ within this distance of 0 is tested against κ = 0
_FLAT_ZERO_RADIUS = 1e-3


def _flat_zero(obj, p, ref, tau, err, kerr, d1, d2, kappa, level) -> bool:
    """For an even student τ(κ) = τ(−κ), so τ'(0) = 0: when the refinement could not pin down a
    minimiser next to 0 (a flatter than quadratic minimum, where κ is not determined to
    ``kappa_rtol``), κ* = 0 if τ(0) is not above the value found and is resolved by the next
    rule. Records the point and returns True when it applies."""
    cfg, a = obj.cfg, ref.answer
    if ref.status != Status.UNRESOLVED or a.status not in (Status.CONVERGED, Status.MAX_STEPS):
        return False
    if not abs(a.kappa) <= _FLAT_ZERO_RADIUS:
        return False
    v0, g0, h0 = obj.value(p, 0.0, ref.level)
    e0 = abs(v0 - obj.value(p, 0.0, ref.level + 1)[0])
    tol = cfg.atol + cfg.rtol * abs(v0)
    if not (v0 <= a.tau + tol and e0 <= tol):
        return False
    kappa[p], tau[p], d1[p], d2[p], err[p], kerr[p], level[p] = 0.0, v0, g0, h0, e0, abs(a.kappa), ref.level
    return True


def solve_compiled(prob: TauProblem, cfg: TauStarConfig) -> TauStarGrid:
    """τ* at every point of ``prob`` by the compiled path (failed points keep a status that is not
    ``"converged"`` and a message; the caller decides whether to raise)."""
    obj = CompiledObjective(prob, cfg)
    n = prob.size
    kappa, tau, d1, d2 = (np.zeros(n) for _ in range(4))
    err, kerr = np.zeros(n), np.zeros(n)
    its, level = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    status = np.full(n, Status.CONVERGED.label, dtype=object)
    where = np.full(n, "undetermined", dtype=object)
    messages: dict[int, str] = {}
    edge = np.zeros(n, dtype=bool)
    symmetric = is_symmetric_zero(prob)
    even = prob.student.parity == 1
    levels = range(cfg.max_level + 2)  # the last level only checks
    for p in range(n):
        point = (_SymmetricZero if symmetric else _Point)(obj, p)
        ref = refine(point.solve, levels, point.check, stop=point.stop)
        a = ref.answer
        kappa[p], tau[p], d1[p], d2[p], its[p], level[p] = a.kappa, a.tau, a.d1, a.d2, a.iterations, ref.level
        if ref.check is not None:
            err[p], kerr[p] = ref.check.error
        else:  # stopped before any check: at the edge of the scan, or a non-finite value
            err[p], kerr[p] = (0.0 if ref.status == Status.AT_EDGE else math.inf), math.inf
        if ref.converged:
            where[p] = "zero" if abs(a.kappa) <= cfg.zero_tol else "interior"
            if where[p] == "zero":
                kappa[p] = 0.0
            if symmetric:
                messages[p] = _SYMMETRIC_NOTE
            continue
        if even and _flat_zero(obj, p, ref, tau, err, kerr, d1, d2, kappa, level):
            where[p], messages[p] = "zero", _FLAT_ZERO_NOTE
            continue
        edge[p] = ref.status == Status.AT_EDGE
        fail = ref.status if ref.status != Status.UNRESOLVED or a.status == Status.CONVERGED else a.status
        status[p] = fail.label
        if not edge[p]:
            messages[p] = _FAILURE_REASONS.get(
                fail, f"quadrature error {err[p]:.2e} / κ change {kerr[p]:.2e} above tolerance at level {ref.level}"
            )
    if not symmetric:
        _compare_with_limits(obj, kappa, tau, d1, d2, err, kerr, status, where, edge, messages)
        _note_mirror_minimisers(obj, kappa, tau, d1, err, level, where, messages)
    tau = np.maximum(tau, 0.0)  # τ ≥ 0; rounding can give −1e-33 for an exact zero
    shape = prob.shape
    return TauStarGrid(
        tau_star=tau.reshape(shape), kappa_star=kappa.reshape(shape), status=status.reshape(shape),
        infimum_at=where.reshape(shape), iterations=its.reshape(shape), error=err.reshape(shape),
        kappa_error=kerr.reshape(shape), derivative=d1.reshape(shape), curvature=d2.reshape(shape),
        level=level.reshape(shape), student_scale=prob.a.reshape(shape), teacher_scale=prob.b.reshape(shape),
        student=prob.student.name, teacher=prob.teacher.name, centered=prob.center,
        fit_constant=prob.fit_constant, rule=rule_name(obj.kinds, cfg, 0), messages=messages,
    )


def _compare_with_limits(obj, kappa, tau, d1, d2, err, kerr, status, where, edge, messages) -> None:
    """The infimum may be a limit κ → ±∞ (a student with finite limits σ(±∞)): where it is below the
    minimum found, or where no minimum was found and the objective decreases towards it."""
    cfg = obj.cfg
    lim, lim_err = obj.limit_values()
    converged = Status.CONVERGED.label
    for p in range(kappa.size):
        best_lim = int(np.argmin(lim[p]))
        lv = lim[p, best_lim]
        tol = cfg.atol + cfg.rtol * abs(lv) + lim_err[p, best_lim] + err[p]
        failed = status[p] != converged
        if failed:
            # the scan kept decreasing to the end of its range, or no stationary point could be
            # pinned down: the infimum is the exact limit if that is below every value seen
            # (at the end of the scanned range the quadrature cannot resolve the step of width
            # 1/|κ|: there the comparison allows a relative 1e-3)
            slack = max(tol, 1e-3 * abs(tau[p])) if edge[p] else tol
            if not (math.isfinite(lv) and lv <= tau[p] + slack):
                if edge[p]:
                    messages[p] = (
                        f"the best scanned value is at |κ| = {cfg.kappa_max_limit:g} and the student has no finite"
                        " limit there to compare with"
                    )
                continue
            why = messages.pop(p, "")
            messages[p] = "the objective decreases towards the limit" + (f" ({why})" if why else "")
        elif not (math.isfinite(lv) and lv < tau[p] - tol):
            continue
        sign = 1.0 if best_lim == 0 else -1.0
        msg = f"no finite minimiser: τ(κ) → {lv:.6g} as κ → {'+' if sign > 0 else '-'}∞"
        if not failed:
            msg += f" (below the finite local minimum {tau[p]:.6g} at κ = {kappa[p]:.6g})"
        elif messages.get(p):
            msg += f"; {messages[p]}"
        kappa[p], tau[p], d1[p], d2[p] = sign * math.inf, lv, 0.0, 0.0
        err[p], kerr[p] = lim_err[p, best_lim], math.inf
        status[p] = converged
        where[p] = "to_plus_infinity" if sign > 0 else "to_minus_infinity"
        messages[p] = msg


def _note_mirror_minimisers(obj, kappa, tau, d1, err, level, where, messages) -> None:
    """A second minimiser at −κ* (τ is even in κ when σ* is even and σ odd, or vice versa): noted,
    and the positive one of the pair reported."""
    cfg = obj.cfg
    for p in np.flatnonzero(where == "interior"):
        mirrored = obj.value(int(p), -kappa[p], int(level[p]))[0]
        if abs(mirrored - tau[p]) <= 10 * (cfg.atol + cfg.rtol * abs(tau[p]) + err[p]):
            if kappa[p] < 0:
                kappa[p], d1[p] = -kappa[p], -d1[p]
            note = f"also attained at κ = {-kappa[p]:.6g} (τ is even in κ here)"
            messages[int(p)] = f"{messages[int(p)]}; {note}" if messages.get(int(p)) else note
