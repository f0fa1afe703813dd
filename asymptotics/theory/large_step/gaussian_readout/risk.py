r"""The risk R1 after one large step with its resolution checked: :func:`gaussian_readout_risk`.

The answer of :func:`~.solver.solve_gaussian_readout` depends on two discretisations: the K types
of the readout rule and the n Gauss–Hermite nodes in κ. With ``check=True`` both are refined by the
one refinement loop of the large-step theory (:func:`~..refinement.refine_batch`): K ×1.5 until two
successive K agree within ``type_tol``, then n ×2 until two successive κ rules agree within
``kappa_tol``; when a ladder ends first the results are marked ``Status.UNRESOLVED``.

The same loop runs for many ridges at once (:func:`risk_row`, used by
:func:`~.grid.gaussian_readout_risk_grid`): every level is one compiled call over the ridges that
still need it (continuation along λ inside it), the tables of each level are computed once
(:func:`~.model.gaussian_readout_model` caches them), and each ridge follows exactly the sequence
of levels it would follow alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ....activations import Activation
from ....errors import ConvergenceError, ParameterError
from ....params import check_int, check_positive
from ....solvers import Status
from ...spiked_rf.mapping import as_activation
from ..column_norms import check_columns
from ..initial_output import check_gradient
from ..refinement import Check, refine_batch
from .compiled import transfer_start
from .model import DEFAULT_KAPPA_NODES, DEFAULT_TYPES, check_width, gaussian_readout_model
from .result import GaussianReadoutRisk
from .solver import solve_gaussian_readout_path

__all__ = ["gaussian_readout_risk", "readout_type_sequence", "RiskSettings", "risk_settings", "risk_row"]


def _ladder(start: int, cap: int, factor: float):
    out = [start]
    while out[-1] < cap:
        out.append(min(cap, int(math.ceil(factor * out[-1]))))
    return out


def _as_widths(width):
    if isinstance(width, Sequence) and not isinstance(width, str):
        ws = [check_width(wd) for wd in width]
        if not ws:
            raise ParameterError("width", width, "a non-empty list of widths")
        return ws, False
    return [check_width(width)], True


@dataclass(frozen=True)
class RiskSettings:
    """The validated settings of :func:`gaussian_readout_risk` (everything but ψ1 and λ).

    Attributes: the activations, ψ2, c, σ_ε, the widths (and whether a single width was asked for),
    the readout rule (kind, K0, given values and proportions), κ nodes n0, the tolerances and
    ladders of the refinement, ``check``, ``max_steps``, ``on_failure``, ``warm_levels`` (start
    each level of the refinement from the level before, :func:`~.compiled.transfer_start`) and
    ``initial_columns`` (``"unit"`` or ``"gaussian"``, :mod:`..column_norms`), ``gradient``
    (``"labels"`` or ``"exact"``, :mod:`..initial_output`)."""

    student: Activation
    teacher: Activation
    psi2: float
    c: float
    noise: float
    widths: tuple
    single: bool
    readout: str
    types: int
    readout_values: object
    readout_proportions: object
    kappa_nodes: int
    tol: float
    type_tol: float
    type_ladder: tuple
    kappa_tol: float
    kappa_ladder: tuple
    check: bool
    max_steps: int
    on_failure: str
    warm_levels: bool = False
    initial_columns: str = "unit"
    gradient: str = "labels"


def risk_settings(student, teacher, psi2: float, *, c: float = 1.0, noise: float = 0.0, width=math.inf,
                  readout: str = "hermite", types: int | None = None, readout_values=None, readout_proportions=None,
                  kappa_nodes: int = DEFAULT_KAPPA_NODES, tol: float = 1e-12, type_tol: float = 1e-8,
                  max_types: int = 256, kappa_tol: float = 1e-8, max_kappa_nodes: int = 488, check: bool = True,
                  max_steps: int = 3000, on_failure: str = "raise", warm_levels: bool = False,
                  initial_columns: str = "unit", gradient: str = "labels") -> RiskSettings:
    """Validate the arguments of :func:`gaussian_readout_risk` once (see there)."""
    widths, single = _as_widths(width)
    initial_columns = check_columns(initial_columns)
    gradient = check_gradient(gradient)
    if readout not in ("hermite", "quantile", "given"):
        raise ParameterError("readout", readout, "'hermite', 'quantile' or 'given'")
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    K0 = check_int("types", types if types is not None else (DEFAULT_TYPES if readout == "hermite" else 16), 1)
    n0 = check_int("kappa_nodes", kappa_nodes, 8)
    type_tol = check_positive("type_tol", type_tol)
    kappa_tol = check_positive("kappa_tol", kappa_tol)
    type_ladder = kappa_ladder = ()
    if check:
        if readout == "hermite":
            max_types = check_int("max_types", max_types, 2)
            if max_types <= K0:
                raise ParameterError("max_types", max_types, f"> types = {K0} (the convergence check needs a larger K)")
            type_ladder = tuple(_ladder(K0, max_types, 1.5))
        max_n = check_int("max_kappa_nodes", max_kappa_nodes, 9)
        if max_n <= n0:
            raise ParameterError("max_kappa_nodes", max_kappa_nodes, f"> kappa_nodes = {n0}")
        kappa_ladder = tuple(_ladder(n0, max_n, 2.0))
    return RiskSettings(as_activation(student, "student"), as_activation(teacher, "teacher"),
                        check_positive("psi2", psi2), c, noise, tuple(widths), single, readout, K0, readout_values,
                        readout_proportions, n0, tol, type_tol, type_ladder, kappa_tol, kappa_ladder, bool(check),
                        check_int("max_steps", max_steps, 1), on_failure, bool(warm_levels), initial_columns, gradient)


def _refine_points(solve_at, ladder, tolerance, what, points, first=None):
    """Solve along ``ladder`` until two successive levels agree within ``tolerance`` on every risk,
    for each of ``points`` (:func:`~..refinement.refine_batch`: the solves of one level are one
    batch). ``solve_at(level, points, previous, previous_level)`` returns the results (a list per
    width) of each point (``previous``: their results at ``previous_level``, for warm starts, or
    None); ``first``: the results at ``ladder[0]`` when already known.

    Returns, per point, (results at the finer level, differences (one per width) or None, sequence
    [(level, risks)], message when the ladder ends unresolved, else None)."""
    points = list(points)

    def solve(level, items, previous):
        if first is not None and level == ladder[0]:
            return [first[points[i]] for i in items]
        before = None if previous is None else ladder[ladder.index(level) - 1]
        return solve_at(level, [points[i] for i in items], previous, before)

    def check(answers, level, finer, items):
        out = []
        for results, cur in zip(answers, solve_at(finer, [points[i] for i in items], answers, level), strict=True):
            if not all(r.converged for r in cur):
                out.append(Check(False, None, cur))
                continue
            errs = [abs(a.risk1 - b.risk1) for a, b in zip(cur, results, strict=True)]
            out.append(Check(max(errs) <= tolerance, errs, cur))
        return out

    def stop(results):
        failed = [r for r in results if not r.converged]
        return Status(failed[0].status) if failed else None

    out = {}
    for p, ref in zip(points, refine_batch(solve, ladder, check, count=len(points), stop=stop), strict=True):
        seq = [(level, [r.risk1 for r in results]) for level, results in ref.sequence]
        if ref.converged:
            out[p] = (ref.check.finer, ref.check.error, seq, None)
        elif ref.status != Status.UNRESOLVED:      # a solve failed: its results carry the reason
            out[p] = (ref.answer, None, seq, None)
        else:
            out[p] = (ref.answer, None, seq, (f"large-step risk: no convergence in the {what} up to {ladder[-1]} "
                                              f"(risks {seq}; tolerance {tolerance:g})"))
    return out


def risk_row(settings: RiskSettings, psi1: float, lams, *, continuation: bool = True):
    """The results of :func:`gaussian_readout_risk` at ψ1 for every ridge of ``lams``: a list (per λ)
    of lists (per width). Each level of the refinement is one compiled call over the ridges that
    need it, with continuation along λ when ``continuation``."""
    s = settings
    lams = list(lams)
    if (s.initial_columns == "gaussian" or s.gradient == "exact") and len(s.widths) > 1:
        # the (u, ρ²) types depend on d = N/ψ2 and the f₀ terms on N: one model (and one refinement) per width
        per = [risk_row(replace(s, widths=(w,)), psi1, lams, continuation=continuation) for w in s.widths]
        return [[per[j][i][0] for j in range(len(s.widths))] for i in range(len(lams))]
    row = _RowSolves(s, psi1, lams, continuation)
    points = list(range(len(lams)))
    if not s.check:
        return row.solve_at(s.types, s.kappa_nodes, points)
    K_of, type_info, msgs, results, go_on = _refine_types(row, points)
    final = _refine_kappa(row, K_of, msgs, results, go_on)
    return _finish(s, points, final, msgs, type_info)


class _RowSolves:
    """The compiled solves of :func:`risk_row` at one ψ1: a model per (readout types K, κ nodes n),
    one path solve over the ridges asked for (warm-started from a coarser level when asked)."""

    def __init__(self, settings: RiskSettings, psi1: float, lams: list, continuation: bool):
        self.s, self.psi1, self.lams, self.continuation = settings, psi1, lams, continuation

    def model_at(self, K, n):
        s = self.s
        return gaussian_readout_model(s.student, s.teacher, self.psi1, s.psi2, c=s.c, noise=s.noise, readout=s.readout,
                                      types=K, readout_values=s.readout_values,
                                      readout_proportions=s.readout_proportions, kappa_nodes=n, initial_columns=s.initial_columns,
                                      width=s.widths[0], gradient=s.gradient)

    def solve_at(self, K, n, points, previous=None, previous_model=None):
        s = self.s
        model = self.model_at(K, n)
        starts = None
        if s.warm_levels and previous is not None and not math.isfinite(model.dimension):
            starts = []
            for res in previous:
                r = next((r for r in res if r.converged), None)
                starts.append(None if r is None else transfer_start(r.start, previous_model, model, r.lam_cui))
        rows = solve_gaussian_readout_path(model, [self.lams[p] for p in points], s.widths, tol=s.tol,
                                           max_steps=s.max_steps, starts=starts, continuation=self.continuation,
                                           on_failure="return")
        if s.on_failure == "raise":
            for row in rows:
                for r in row:
                    if not r.converged:
                        raise ConvergenceError(r.message, r)
        return [list(row) for row in rows]

    def solve_kappa(self, K_of: dict, n, pts, prev, n_prev):
        """The solves with n κ nodes, grouped by each point's number of readout types ``K_of[p]``."""
        out = {}
        prev_of = dict(zip(pts, prev, strict=True)) if prev is not None else {}
        for K in sorted({K_of[p] for p in pts}):
            grp = [p for p in pts if K_of[p] == K]
            pm = self.model_at(K, n_prev) if prev is not None else None
            out.update(zip(grp, self.solve_at(K, n, grp, [prev_of[p] for p in grp] if prev is not None else None, pm),
                           strict=True))
        return [out[p] for p in pts]


def _refine_types(row: _RowSolves, points):
    """Step 1 (Hermite readout only): refine the number of readout types per point. Returns the
    types per point, (type error, sequence) per point, the failure messages, the results so far
    (None when not refined) and the points that go on to the κ refinement."""
    s = row.s
    K_of = dict.fromkeys(points, s.types)
    type_info = {p: (None, ()) for p in points}
    msgs = dict.fromkeys(points)
    if s.readout != "hermite":
        return K_of, type_info, msgs, None, points
    ref = _refine_points(lambda K, pts, prev, K_prev: row.solve_at(K, s.kappa_nodes, pts, prev, None if prev is None
                                                                   else row.model_at(K_prev, s.kappa_nodes)),
                         s.type_ladder, s.type_tol,
                         "number of Gauss–Hermite readout types", points)
    results = {p: ref[p][0] for p in points}
    go_on = []
    for p in points:
        res, err, seq, msg = ref[p]
        type_info[p] = (err, tuple(seq))
        K_of[p] = seq[-1][0]
        msgs[p] = msg
        if msg is None and err is not None:
            go_on.append(p)
    return K_of, type_info, msgs, results, go_on


def _refine_kappa(row: _RowSolves, K_of, msgs, results, go_on) -> dict:
    """Step 2: refine the κ nodes of the points ``go_on`` (their quadrature error grows by the
    refinement's); ``msgs`` gets their failure messages. Returns the results of every point."""
    s = row.s
    final = dict(results) if results is not None else {}
    if not go_on:
        return final
    first = {p: results[p] for p in go_on} if results is not None else None
    ref = _refine_points(lambda n, pts, prev, n_prev: row.solve_kappa(K_of, n, pts, prev, n_prev),
                         s.kappa_ladder, s.kappa_tol, "number of Gauss–Hermite nodes in κ", go_on, first=first)
    for p in go_on:
        res, kap_err, _, msg = ref[p]
        if kap_err is not None:
            res = [replace(r, quadrature_error=r.quadrature_error + e) for r, e in zip(res, kap_err, strict=True)]
        final[p] = res
        msgs[p] = msg
    return final


def _finish(s: RiskSettings, points, final, msgs, type_info) -> list:
    """Step 3: unresolved points marked (or raised), the type refinement recorded on every result."""
    out = []
    for p in points:
        res = final[p]
        if msgs[p] is not None:
            if s.on_failure == "raise":
                raise ConvergenceError(msgs[p], res)
            res = [replace(r, converged=False, status=Status.UNRESOLVED, message=msgs[p]) for r in res]
        err, seq = type_info[p]
        res = [replace(r, type_error=None if err is None else err[i], type_sequence=tuple((k, v[i]) for k, v in seq))
               for i, r in enumerate(res)]
        out.append(res)
    return out


def gaussian_readout_risk(student, teacher, psi1: float, psi2: float, lam: float, *, c: float = 1.0,
                          noise: float = 0.0, width=math.inf, readout: str = "hermite", types: int | None = None,
                          readout_values=None, readout_proportions=None, kappa_nodes: int = DEFAULT_KAPPA_NODES,
                          tol: float = 1e-12, type_tol: float = 1e-8, max_types: int = 256,
                          kappa_tol: float = 1e-8, max_kappa_nodes: int = 488, check: bool = True,
                          max_steps: int = 3000, on_failure: str = "raise", warm_levels: bool = False,
                          initial_columns: str = "unit", gradient: str = "labels"):
    r"""The risk R1 after one large step η = c√N with a Gaussian readout (Ba et al. protocol).

    Parameters
    ----------
    student, teacher : σ, σ* (centred by default).
    psi1, psi2 : ψ1 = n/d, ψ2 = N/d.
    lam : λ ≥ 0, Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖².
    c : η = c√N (default 1).
    noise : σ_ε, label-noise standard deviation (training side only; R1 excludes it).
    width : N (finite-width prediction; e.g. :func:`width_from_dimension`), ``math.inf`` (default,
        the proportional limit), or a sequence of them (then a tuple of results is returned; the
        responses do not depend on N and are shared).
    readout : ``"hermite"`` (the Gaussian readout: Gauss–Hermite types, convergence in K checked),
        ``"quantile"`` (K equal-mass discrete types, K = ``types``) or ``"given"``
        (``readout_values``, ``readout_proportions``; e.g. ``(1.0,)`` is Cui's uniform readout).
    types : K (default 32 for ``"hermite"``, 16 for ``"quantile"``).
    kappa_nodes : Gauss–Hermite nodes in κ (default 61).
    tol, max_steps : residual tolerance and iteration limit of the response fixed point.
    type_tol, max_types : for ``"hermite"``: K grows ×1.5 (up to ``max_types``) until two successive
        K give risks within ``type_tol``; the finer result is kept and ``type_error`` is the difference.
    kappa_tol, max_kappa_nodes : then the κ rule is doubled (up to ``max_kappa_nodes``) until two
        successive rules agree within ``kappa_tol``; ``quadrature_error`` is the difference (plus the
        inner quadrature error).
    check : ``False`` skips both convergence checks (one solve; ``type_error`` is then None and
        ``quadrature_error`` covers only the inner expectations).
    on_failure : ``"raise"`` (:class:`~asymptotics.errors.ConvergenceError`, also when a convergence
        check fails) or ``"return"`` (results with ``converged=False``; numbers written as null).
    warm_levels : start each level of the refinement (more types, more κ nodes) from the solution
        of the level before (:func:`~.compiled.transfer_start`) instead of cold: fewer iterations, the
        same risk within the fixed point's tolerance (not bit for bit; the default ``False`` keeps the
        cold start of every level). A warm start that fails is retried cold.
    initial_columns : the initial columns of the network at a finite width: ``"unit"`` (default: norm 1,
        the theory of ``docs/large-step-exact.md`` §1) or ``"gaussian"`` (Ba et al.'s N(0, 1/d)
        entries, d = N/ψ2: each neuron's type is (u, ρ²) with ρ² = ‖w⁰‖² ~ χ²_d/d,
        :mod:`..column_norms`; every level starts cold). No effect at N = ∞.
    gradient : the first step's gradient at a finite width: ``"labels"`` (default: the step on y, the
        theory of §1) or ``"exact"`` (Ba et al.'s residual y − f₀ with the network's initial output:
        the spike tilted by the collective shrink of W⁰, the shrunk columns and f₀'s energy,
        :mod:`..initial_output`). No effect at N = ∞.

    For many ridges or a (ψ1, λ) grid use :func:`~.grid.gaussian_readout_risk_grid` (the same
    numbers, one compiled call per level and row).
    """
    s = risk_settings(student, teacher, psi2, c=c, noise=noise, width=width, readout=readout, types=types,
                      readout_values=readout_values, readout_proportions=readout_proportions,
                      kappa_nodes=kappa_nodes, tol=tol, type_tol=type_tol, max_types=max_types, kappa_tol=kappa_tol,
                      max_kappa_nodes=max_kappa_nodes, check=check, max_steps=max_steps, on_failure=on_failure,
                      warm_levels=warm_levels, initial_columns=initial_columns, gradient=gradient)
    (res,) = risk_row(s, check_positive("psi1", psi1), [lam], continuation=False)
    return res[0] if s.single else tuple(res)


def readout_type_sequence(student, teacher, psi1: float, psi2: float, lam: float, *, types=(2, 4, 8, 16, 32),
                          kind: str = "quantile", **kwargs) -> tuple[GaussianReadoutRisk, ...]:
    r"""Risks with K = ``types`` discrete readout types of ``kind`` (default K equal-mass quantile
    types), to show the convergence to the Gaussian readout (``docs/large-step-exact.md``:
    erf/erf, ψ1 = 8, N = ∞: K = 2, 4, 8, 16, 32 → .0545, .0295, .0261, .0259, .0259)."""
    return tuple(gaussian_readout_risk(student, teacher, psi1, psi2, lam, readout=kind, types=K, **kwargs)
                 for K in types)
