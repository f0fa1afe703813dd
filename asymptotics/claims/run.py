r"""``check``: run claims — validate, sample, search, decide, confirm — into verdicts.

For each claim and each of its activation pairs (refused when the pair violates the claim's
assumptions): the first ``samples`` scrambled-Sobol points of the domain are evaluated on the
executor (``scheduler``: in-process, ``processes:N``, ``local:N`` Dask, …; evaluated points are
stored as they complete, so a rerun after an interrupt continues), then the local search refines
the ``starts`` worst points, and the points whose margin float64 does not resolve are decided at
≥ 30 digits (:mod:`.decide`). The verdict:

* ``violated`` — some point violates the statement beyond resolution (or at high precision);
* ``undecided`` — otherwise, some point within resolution could not be decided;
* ``unresolved points`` — otherwise, the theory did not converge at some point (never support);
* ``holds`` — every point evaluated supports the statement.

With ``confirm=True`` a violated claim with a ``confirm`` route is simulated on the network at
the counterexample.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from ..errors import ExpressionError, ParameterError
from .claim import Claim, ClaimVerdict
from .decide import MAX_PRECISE, PRECISE_BUDGET, PRECISE_DPS, classify, decide_precisely, resolution
from .evaluate import accepted, evaluate_points
from .pair import PairCheck
from .search import DEFAULT_EVALS, DEFAULT_STARTS, local_search, units_of
from .statement import parse_statement
from .store import PointStore

__all__ = ["check", "DEFAULT_SAMPLES", "prepare"]

#: Sobol samples per claim and activation pair by default, and the points of a line (one API call).
DEFAULT_SAMPLES = 1024
DEFAULT_LINE = 32
_ORDER = {"violated": 0, "undecided": 1, "unresolved points": 2, "holds": 3}
_META_COLUMNS = ("status", "message", "_residual")


def _known_columns(claim: Claim, pair) -> set[str] | None:
    """The columns the quantity produces (from one evaluation at the domain's centre, or at a
    quarter or three quarters where the centre fails) and the parameters of the point; ``None``
    when the quantity fails at all three (the statement's names are then not checked)."""
    for u in (0.5, 0.25, 0.75):
        point = {k: r.point(u) for k, r in claim.domain.ranges.items()}
        point.update({k: v[0] for k, v in claim.domain.grids.items()})
        rows = evaluate_points(claim.quantity, dict(claim.fixed), pair[0], pair[1], [point])
        cols = {k for r in rows for k in r if k not in _META_COLUMNS}
        if any(r.get("status") == "converged" for r in rows) or cols - set(point):
            return cols | set(claim.domain.names) | set(claim.fixed)
    return None


def prepare(claim: Claim):
    """Validate a claim (one line for each mistake) and return its parsed statement (None for a
    callable)."""
    from .assumptions import check_pair

    ok = accepted(claim.quantity)
    own = ("student", "teacher", "on_failure", "progress")
    for name in (*claim.domain.names, *claim.fixed):
        if name not in ok or name in own:
            raise ParameterError("parameter", name, f"a parameter of {claim.quantity}: "
                                 + ", ".join(p for p in ok if p not in own), f"claim {claim.name!r}")
    from ..api.grid import values

    for name, r in claim.domain.ranges.items():  # the ends by the parameter's shared rule
        values(name, [r.low, r.high])
    for name, g in claim.domain.grids.items():
        values(name, list(g))
    both = set(claim.domain.names) & set(claim.fixed)
    if both:
        raise ParameterError(f"{claim.name}: fixed", sorted(both), "parameters not also in the domain")
    for s, t in claim.activations:
        check_pair(claim, s, t)
    if callable(claim.statement):
        return None
    known = _known_columns(claim, claim.activations[0])
    try:
        return parse_statement(claim.statement, known, claim.domain.names)
    except ExpressionError as exc:
        raise ExpressionError(f"claim {claim.name!r} ({claim.quantity}): {exc}") from None


def _as_claims(claims) -> list[Claim]:
    if isinstance(claims, Claim):
        return [claims]
    out = list(claims) if isinstance(claims, Iterable) else []
    if not out or not all(isinstance(c, Claim) for c in out):
        raise ParameterError("claims", claims, "a Claim or a list of Claims")
    return out


def check(claims, *, samples: int = DEFAULT_SAMPLES, search: bool = True, confirm: bool = False,
          root_seed: int = 0, scheduler=None, store=None, starts: int = DEFAULT_STARTS,
          evals: int = DEFAULT_EVALS, max_precise: int = MAX_PRECISE, dps: int = PRECISE_DPS,
          line: int | None = None, on_pair: Callable | None = None) -> list[ClaimVerdict]:
    """Check ``claims`` (a :class:`Claim` or a list) and return one :class:`ClaimVerdict` each.

    Args:
        samples: Sobol samples per claim and activation pair (each × the domain's grid combinations).
        search: refine the worst samples by a bounded local search.
        confirm: simulate the network at a counterexample (claims with a ``confirm`` route).
        root_seed: the seed of the Sobol scrambling (and of the network confirmation).
        scheduler: where the samples are evaluated: ``None``/``"in-process"``, ``"processes:N"``,
            ``"local:N"`` (Dask), a scheduler address or a ``distributed.Client``.
        store: folder of the evaluated points (resume after an interrupt); ``None``: the user
            cache; ``False``: keep nothing.
        starts, evals: local searches and evaluations per search.
        max_precise, dps: most points re-decided at high precision per claim and pair (also
            bounded by :data:`~.decide.PRECISE_BUDGET` seconds), and digits.
        line: Sobol points per line, one API call each (default :data:`DEFAULT_LINE`; 1: one
            call per point). A quantity whose range parameters are not grid parameters of its
            API function is evaluated point by point.
        on_pair: called as ``on_pair(claim, pair, PairCheck)`` after each pair (progress, tests).
    """
    from ..sweeps.executors import make_executor

    claims = _as_claims(claims)
    if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
        raise ParameterError("samples", samples, "an integer >= 1")
    names = [c.name for c in claims]
    if len(set(names)) != len(names):
        raise ParameterError("claims", names, "claims with distinct names")
    statements = [prepare(c) for c in claims]
    lines = [_line(c, line) for c in claims]
    out = []
    with make_executor(scheduler) as executor:
        for claim, st, ln in zip(claims, statements, lines, strict=True):
            t0 = time.perf_counter()
            pairs = []
            for i, pair in enumerate(claim.activations):
                pc = PairCheck(claim, pair, i, st, PointStore.open(store, claim, pair, root_seed), root_seed)
                pairs.append(_check_pair(pc, int(samples), search, starts, evals, max_precise, dps, executor, ln))
                if on_pair is not None:
                    on_pair(claim, pair, pc)
            verdict = _combine(claim, pairs, time.perf_counter() - t0)
            if confirm:
                verdict = _confirm(claim, verdict, root_seed)
            out.append(verdict)
    return out


def _line(claim: Claim, line: int | None) -> int:
    """The points per line: ``line`` (default :data:`DEFAULT_LINE`), or 1 when the quantity does
    not take its range parameters as grids (probed with one call)."""
    n = DEFAULT_LINE if line is None else line
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ParameterError("line", line, "an integer >= 1")
    if n == 1 or not claim.domain.ranges:
        return 1
    from ..grids import cartesian

    probe = {k: [r.point(0.25), r.point(0.75)] for k, r in claim.domain.ranges.items()}
    probe.update({k: list(v[:1]) for k, v in claim.domain.grids.items()})
    try:  # one call with every range parameter a 2-list: 2^k rows if they are grid parameters
        rows = evaluate_points(claim.quantity, dict(claim.fixed), *claim.activations[0], [{}], probe)
    except ParameterError:
        return 1
    return int(n) if len(rows) == len(cartesian(**probe)) else 1


def _check_pair(pc: PairCheck, samples, search, starts, evals, max_precise, dps, executor, line,
                precise_budget=PRECISE_BUDGET) -> dict:
    pc.sample(samples, executor, line)
    if search and pc.domain.ranges:
        try:
            _search(pc, starts, evals, samples)
        finally:
            pc.store.flush()
    points = list(pc.evaluated.values())
    m = pc.margins(points)
    thr = resolution(m["size"], m["scale"], pc.solver_tol, m["residual"])
    cls = classify(m["margin"], m["strict"], thr, m["resolved"])
    precise = {}
    near = [i for i in np.argsort(np.nan_to_num(m["margin"], nan=np.inf), kind="stable") if cls[i] == "near"]
    t0 = time.perf_counter()
    for i in near[:max_precise] if pc.claim.precise is not None else ():
        if time.perf_counter() - t0 > precise_budget:
            break
        p = points[i]
        nb = {q: (dict(pc.claim.fixed) | qp, d) for q, (qp, d) in pc.neighbours_of(p).items()}
        precise[i] = decide_precisely(pc.claim, pc.statement, dict(pc.claim.fixed) | p, nb, pc.student,
                                      pc.teacher, dps)
    return _pair_verdict(pc, points, m, cls, precise, len(near) > len(precise), max(int(dps), PRECISE_DPS))


def _search(pc: PairCheck, starts: int, evals: int, samples: int) -> None:
    points = list(pc.evaluated.values())
    m = pc.margins(points)
    rel = np.where(m["resolved"], m["relative"], np.inf)
    order = [i for i in np.argsort(rel) if np.isfinite(rel[i])][: max(0, int(starts))]
    k = len(pc.domain.ranges)
    spacing = 0.5 * max(samples, 1) ** (-1.0 / k)
    for i in order:
        p = points[i]
        combo = {g: p[g] for g in pc.domain.grids}
        local_search(pc.objective(combo), [units_of(pc.domain, p)], spacing, evals)


def _pair_verdict(pc, points, m, cls, precise, capped, dps=PRECISE_DPS) -> dict:
    decided = cls.copy()
    pmargin = {}
    for i, (decision, text, note) in precise.items():
        decided[i] = {"holds": "holds", "violated": "violated"}.get(decision, "near")
        pmargin[i] = (text, note)
    near_left = [i for i in range(len(points)) if decided[i] == "near"]
    unresolved = int(np.sum(cls == "unresolved"))
    rel = np.where(m["resolved"], m["relative"], np.inf)
    viol = [i for i in range(len(points)) if decided[i] == "violated"]
    if viol:
        verdict, pick = "violated", min(viol, key=lambda i: rel[i])
    else:
        verdict = "undecided" if near_left else "unresolved points" if unresolved else "holds"
        pick = near_left[0] if near_left else (int(np.argmin(rel)) if np.isfinite(rel).any() else None)
    note = ""
    if near_left:
        note = f"{len(near_left)} point(s) within float64 resolution not decided"
        if pc.claim.precise is None:
            note += " (no high-precision route)"
        elif capped:
            note += f" ({len(precise)} re-decided at high precision before its limit)"
    at = dict(points[pick]) if pick is not None else {}
    at.update(student=pc.student, teacher=pc.teacher)
    text, pnote = pmargin.get(pick, (None, ""))
    finite = rel[np.isfinite(rel)]
    return {"verdict": verdict, "points": len(points), "unresolved": unresolved,
            "min_relative_margin": float(finite.min()) if finite.size else float("nan"), "at": at,
            "value": float(m["margin"][pick]) if pick is not None else float("nan"), "precise_value": text,
            "precise_digits": None if text is None else dps, "undecided": len(near_left),
            "note": "; ".join(x for x in (note, pnote) if x), "computed": pc.computed}


def _combine(claim: Claim, pairs: list[dict], seconds: float) -> ClaimVerdict:
    worst = min(pairs, key=lambda p: (_ORDER[p["verdict"]], np.nan_to_num(p["min_relative_margin"], nan=np.inf)))
    return ClaimVerdict(
        claim=claim.name, source=claim.source, verdict=worst["verdict"], points=sum(p["points"] for p in pairs),
        unresolved=sum(p["unresolved"] for p in pairs),
        min_relative_margin=float(np.nanmin([p["min_relative_margin"] for p in pairs]))
        if any(np.isfinite(p["min_relative_margin"]) for p in pairs) else float("nan"),
        at=worst["at"], value=worst["value"], precise_value=worst["precise_value"],
        precise_digits=worst["precise_digits"], confirm=None, seconds=seconds, expected=claim.expected,
        undecided=sum(p["undecided"] for p in pairs), note=worst["note"],
        computed=sum(p["computed"] for p in pairs))


def _confirm(claim: Claim, v: ClaimVerdict, root_seed: int) -> ClaimVerdict:
    import dataclasses

    if v.verdict != "violated":
        return v
    if claim.confirm is None:
        return dataclasses.replace(v, note="; ".join(x for x in (v.note, "no network confirmation route") if x))
    point = {**dict(claim.fixed), **v.at}
    target = abs(v.value) / 4 if np.isfinite(v.value) and v.value != 0 else 0.01
    return dataclasses.replace(v, confirm=claim.confirm(claim, point, int(root_seed), float(target)))
