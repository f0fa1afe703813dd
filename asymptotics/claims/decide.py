r"""Deciding a point's margin: by its sign where float64 resolves it, at ≥ 30 digits where it
does not.

**Resolution.** A margin is a difference of computed terms, so its float64 round-off is a few
``eps·S`` with S the size of the terms compared; a solver that stops at a residual r adds about
``r·S``. A point is *within resolution* when

    |margin| ≤ max(64·eps, r_solver, r_call) · max(S, V)

with ``r_solver`` the solver's stated tolerance (the quantity's ``tol``), ``r_call`` the residual
its call reports, and V the largest output value of the row (a column such as δ = R0 − R1 carries
the round-off of R0 and R1, not its own size). Outside it the sign decides: holds or violated.

**High precision.** Points within resolution are re-evaluated through the claim's independent
route ``precise(params, student, teacher, dps)`` at ``dps ≥ 30`` digits (most negative margin
first, for at most :data:`PRECISE_BUDGET` seconds per claim and pair) and the statement is
evaluated in mpmath. There the
margin m is decided against ``10^-(dps − 10) · S``: holds above, violated below, undecided in
between — except an exact zero, which holds a non-strict statement (``>=``, ``<=``, ``==``,
monotone) and violates a strict one. Without a ``precise`` route such points stay undecided.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

__all__ = ["resolution", "classify", "decide_precisely", "PRECISE_DPS", "RESOLUTION_ULPS", "MAX_PRECISE",
           "PRECISE_BUDGET"]

#: Digits of the high-precision re-evaluation.
PRECISE_DPS = 30
#: Multiples of the float64 epsilon within which a margin is not resolved.
RESOLUTION_ULPS = 64
#: Most points re-evaluated at high precision per claim and pair, and the seconds they may take.
MAX_PRECISE = 100_000
PRECISE_BUDGET = 30.0
_EPS = float(np.finfo(float).eps)


def resolution(size: np.ndarray, value_scale: np.ndarray, solver_tol: float, residual: np.ndarray) -> np.ndarray:
    """The margin below which float64 does not decide the sign (see the module docstring)."""
    rel = np.maximum(np.maximum(RESOLUTION_ULPS * _EPS, float(solver_tol)), np.nan_to_num(residual, nan=0.0))
    return rel * np.maximum(np.nan_to_num(size, nan=0.0), np.nan_to_num(value_scale, nan=0.0))


def classify(margin: np.ndarray, strict: np.ndarray, threshold: np.ndarray, resolved: np.ndarray) -> np.ndarray:
    """Per point: ``"unresolved"``, ``"holds"``, ``"violated"`` or ``"near"`` (within resolution)."""
    out = np.full(margin.shape, "near", dtype=object)
    ok = resolved & np.isfinite(margin)
    out[~ok] = "unresolved"
    out[ok & (margin > threshold)] = "holds"
    out[ok & (margin < -threshold)] = "violated"
    return out


def _precise_env(route: Callable, params: Mapping, student: str, teacher: str, dps: int) -> dict:
    import mpmath as mp

    vals = route(dict(params), student, teacher, dps)
    env = {k: mp.mpf(v) for k, v in params.items()
           if isinstance(v, (int, float)) and not isinstance(v, bool)}  # fmt: skip
    env.update({k: (v if isinstance(v, mp.mpf) else mp.mpf(v)) for k, v in vals.items()})
    return env


def decide_precisely(claim, statement, params: Mapping, neighbours: Mapping[str, tuple], student: str,
                     teacher: str, dps: int = PRECISE_DPS) -> tuple[str, str | None, str]:
    """Re-decide one point at ``dps`` digits through ``claim.precise``.

    ``statement`` is the parsed :class:`~asymptotics.claims.statement.Statement` (or ``None`` for
    a callable statement, which then gets a one-row frame of mpf values); ``neighbours[param] =
    (params2, direction)`` for the monotone atoms. Returns ``(decision, margin text, note)``
    with decision ``holds``, ``violated`` or ``undecided``."""
    import mpmath as mp

    if claim.precise is None:
        return "undecided", None, "no high-precision route"
    dps = max(int(dps), PRECISE_DPS)
    try:
        with mp.workdps(dps):
            env = _precise_env(claim.precise, params, student, teacher, dps)
            if statement is None:
                m, s, strict = _callable_mp(claim.statement, env)
            else:
                nb = {p: (_precise_env(claim.precise, q, student, teacher, dps), d) for p, (q, d) in neighbours.items()}
                m, s, strict = statement.evaluate_mp(env, nb, claim.tolerance)
            text = mp.nstr(m, 20)
            if m == 0:
                return ("violated" if strict else "holds"), text, f"exact zero at {dps} digits"
            thr = mp.mpf(10) ** (-(dps - 10)) * (s if s > 0 else 1)
            if m > thr:
                return "holds", text, ""
            if m < -thr:
                return "violated", text, ""
            return "undecided", text, f"|margin| below 1e-{dps - 10} of the terms at {dps} digits"
    except (ArithmeticError, ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
        return "undecided", None, f"high-precision route failed: {type(exc).__name__}: {str(exc)[:120]}"


def _callable_mp(fn: Callable, env: Mapping):
    """A callable statement on a one-row frame of mpf values: (margin, size, strict=False)."""
    import mpmath as mp
    import pandas as pd

    frame = pd.DataFrame([{k: v for k, v in env.items()}], dtype=object)
    out = fn(frame)
    if isinstance(out, tuple) and len(out) == 2:
        m, s = out
        return mp.mpf(_first(m)), abs(mp.mpf(_first(s))), False
    return mp.mpf(_first(out)), mp.mpf(1), False


def _first(v):
    if hasattr(v, "iloc"):
        return v.iloc[0]
    if isinstance(v, (list, tuple, np.ndarray)):
        return v[0]
    return v


def finite(x) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False
