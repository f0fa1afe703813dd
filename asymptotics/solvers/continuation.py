r"""Continuation in plain Python — the one twin of the compiled continuation
(``asymptotics/numerics/templates/continuation.py``), for callables (complex, mpmath, lambdified).

This is how a branch is followed: start where the wanted root is unambiguous (large |z|, large
Im z, large λ, the free limit t = 0) and move toward the target in steps small enough that each
solve stays in the basin of the same branch.

* :func:`continuation` — along a given list of parameters, each solve warm-started from the last
  converged one (the compiled grid driver's warm start);
* :func:`continue_parameter` — in one parameter τ from 0 to 1 with the compiled template's step
  control: first step ``h0``; a step is accepted when the corrector converges *and* moves the
  predicted point by at most ``delta`` (max_i |x_i − x̂_i|/max(1, |x̂_i|)), the step then doubling
  (up to ``hmax``) when the move was below ``delta``/4; a rejected step is halved, and below
  ``hmin`` the continuation fails; the predictor is the secant through the last two solutions;
* :func:`follow_ladder`, :func:`advance` — a batch of rows, each along its own ladder of path values
  (one batched solve per rung for all rows), a rung that fails split at its midpoint up to
  ``max_splits`` times: the continuation of the spectra's branches in Im z
  (:mod:`asymptotics.theory.spectra.branch`).
"""

from __future__ import annotations

import numpy as np

from .result import SINGULAR, Status

__all__ = ["continuation", "continue_parameter", "advance", "follow_ladder"]


def continuation(solve_one, x0, params_list):
    """Solve along ``params_list`` with warm starts.

    ``solve_one(x_start, params) -> SolverResult``. The first solve starts from ``x0``; each
    later one from the last *converged* value (an unconverged result does not move the start).
    Returns the list of results, one per parameter. A :class:`ConvergenceError` raised by
    ``solve_one`` propagates.
    """
    results = []
    x_start = x0
    for params in params_list:
        res = solve_one(x_start, params)
        results.append(res)
        if res.converged:
            x_start = res.value
    return results


def _distance(xn, xp) -> float:
    """max_i |x_i − x̂_i|/max(1, |x̂_i|), the corrector's move (NaN/inf: ∞)."""
    with np.errstate(all="ignore"):
        d = float(np.max(np.abs(xn - xp) / np.maximum(1.0, np.abs(xp))))
    return d if np.isfinite(d) else float("inf")


def continue_parameter(newton_at, x_start, h0: float, hmin: float, hmax: float, delta: float):
    """Follow a root from τ = 0 to τ = 1 (module docstring).

    ``newton_at(x, tau) -> SolverResult`` corrects ``x`` at τ (``on_failure="return"``);
    ``x_start`` starts the solve at τ = 0. Returns ``(x, status, iterations, residual)``: at
    τ = 1 with status 0, or, on failure, the last accepted solution with the failing solve's
    status (``SINGULAR`` when it converged but moved too far) and residual.
    """
    r = newton_at(x_start, 0.0)
    x, its, res = np.asarray(r.value), r.iterations, r.residual
    if not r.converged:
        return x, int(r.status), its, res
    t, h, xprev, tprev = 0.0, h0, x, -1.0
    while t < 1.0:
        tn = min(1.0, t + h)
        xp = x + (x - xprev) * ((tn - t) / (t - tprev)) if tprev >= 0 else x.copy()
        r = newton_at(xp, tn)
        its += r.iterations
        xn = np.asarray(r.value)
        dist = _distance(xn, xp)
        if r.converged and dist <= delta:
            xprev, tprev, x, t, res = x, t, xn, tn, r.residual
            if dist < 0.25 * delta:
                h = min(hmax, 2 * h)
        else:
            h /= 2
            if h < hmin:
                return x, int(r.status) if not r.converged else int(SINGULAR), its, r.residual
    return x, 0, its, res


def advance(solve_at, accept, rows, a, b, X, midpoint, max_splits: int, depth: int = 0):
    """Move the rows ``rows`` of a batch from path values ``a`` (values ``X``) to ``b`` (arrays, one
    entry per row).

    ``solve_at(rows, b, X) -> (X, status, residual)`` solves the rows at ``b`` from ``X`` (one
    batched call); ``accept(X) -> bool array`` is the test a converged row must also pass (else
    status ``UNRESOLVED``). A row that fails is split at ``midpoint(a, b)``: the first half, then,
    where it passed, the second, recursively at most ``max_splits`` times. Returns (values — the
    new ones where accepted, else those of the last accepted point —, status, residual of the
    last solve).
    """
    Xn, st, res = solve_at(rows, b, X)
    good = (st == Status.CONVERGED) & accept(Xn)
    st = np.where(good, Status.CONVERGED, np.where(st == Status.CONVERGED, Status.UNRESOLVED, st))
    if np.all(good) or depth >= max_splits:
        return np.where(good[:, None], Xn, X), st, res
    bad = ~good
    mid = midpoint(a[bad], b[bad])
    Xm, stm, _ = advance(solve_at, accept, rows[bad], a[bad], mid, X[bad], midpoint, max_splits, depth + 1)
    ok_mid = stm == Status.CONVERGED
    Xb, stb, resb = advance(solve_at, accept, rows[bad][ok_mid], mid[ok_mid], b[bad][ok_mid], Xm[ok_mid], midpoint,
                            max_splits, depth + 1)
    sub_st = stm.copy()
    sub_st[ok_mid] = stb
    sub_X = X[bad].copy()
    sub_X[ok_mid] = Xb
    sub_res = res[bad].copy()
    sub_res[ok_mid] = resb
    Xn = np.where(good[:, None], Xn, X)
    Xn[bad] = sub_X
    st = st.copy()
    st[bad] = sub_st
    res = res.copy()
    res[bad] = sub_res
    return Xn, st, res


def follow_ladder(solve_at, accept, rows, X, residual, ladder, midpoint, max_splits: int, *,
                  keep_last: bool = False):
    """Every row along its ladder of path values (``ladder`` (levels, n): row i visits
    ``ladder[:, i]``, from its converged values ``X`` and ``residual`` at ``ladder[0]``), each
    rung by :func:`advance`.

    A row whose rung fails stops there: with ``keep_last`` it keeps the values and residual of its
    last accepted rung (status converged), else it takes the failed rung's status and residual.
    Returns (values, status, residual, the path value each row reached).
    """
    X = np.array(X, copy=True)
    n = X.shape[0]
    status = np.full(n, Status.CONVERGED, dtype=np.int64)
    res = np.array(residual, dtype=float, copy=True)
    reached = np.array(ladder[0], dtype=float, copy=True)
    alive = np.ones(n, dtype=bool)
    for k in range(1, ladder.shape[0]):
        if not np.any(alive):
            break
        sub = np.flatnonzero(alive)
        Xa, sta, resa = advance(solve_at, accept, rows[sub], reached[sub], ladder[k, sub], X[sub], midpoint, max_splits)
        ok = sta == Status.CONVERGED
        if keep_last:
            X[sub[ok]] = Xa[ok]
            res[sub[ok]] = resa[ok]
        else:
            X[sub] = Xa
            status[sub] = sta
            res[sub] = resa
        reached[sub[ok]] = ladder[k, sub[ok]]
        alive[sub[~ok]] = False
    return X, status, res, reached
