r"""Evaluating a claim's quantity at points: one call of the API function per sampled point (its
grid parameters — the domain's grids and a monotone atom's neighbour — batched into that call
as the API's Cartesian grid), every row keeping its solver status.

A row whose ``status`` is not ``"converged"``, or whose call raised a
:class:`~asymptotics.errors.ConvergenceError`, is *unresolved*: it carries ``status`` and
``message`` and no numbers, and it is never counted as support of a claim.

:func:`task_rows` is the executor's task (a module-level function, so worker processes can run
it); :func:`evaluate_points` is the same in the calling process.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from collections.abc import Mapping, Sequence

from ..errors import ConvergenceError, ParameterError

__all__ = ["api_function", "accepted", "evaluate_points", "task_rows", "point_key", "solver_tolerance",
           "OK", "numeric_outputs"]

#: The status of a resolved point.
OK = "converged"


def api_function(quantity: str):
    """The API function of ``quantity``."""
    import asymptotics.api as api

    return getattr(api, quantity)


@functools.cache
def accepted(quantity: str) -> tuple[str, ...]:
    """The keyword parameters the API function of ``quantity`` takes."""
    return tuple(inspect.signature(api_function(quantity)).parameters)


def solver_tolerance(quantity: str, fixed: Mapping) -> float:
    """The solver's stated tolerance for ``quantity`` (its ``tol`` argument, given or default; 0
    when it has none)."""
    sig = inspect.signature(api_function(quantity)).parameters
    if "tol" not in sig:
        return 0.0
    tol = fixed.get("tol", sig["tol"].default)
    try:
        return float(tol)
    except (TypeError, ValueError):
        return 0.0


def point_key(params: Mapping) -> str:
    """The canonical text of a point: ``name=value`` sorted by name, numbers as the shortest repr
    of their float64 (so 2 and 2.0 are one point), joined by ``;``."""
    return ";".join(f"{k}={float(v)!r}" if isinstance(v, (int, float)) and not isinstance(v, bool) else f"{k}={v}"
                    for k, v in sorted(params.items()))


@functools.lru_cache(maxsize=64)
def _activation(spec: str, center: bool):
    from ..activations import resolve_activation

    return resolve_activation(spec, center=center, name="activation")


def _warm_imports() -> None:
    """Import the numerical stack once: the results' version metadata is then read from the loaded
    modules instead of the installed packages' metadata on every call (about 4/5 of a cheap call)."""
    import mpmath  # noqa: F401
    import numba  # noqa: F401
    import scipy  # noqa: F401
    import sympy  # noqa: F401


def numeric_outputs(row: Mapping, params: Sequence[str]) -> list[float]:
    """The finite numeric output values of a row (not its parameters)."""
    out = []
    for k, v in row.items():
        if k in params or isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if math.isfinite(v):
            out.append(float(v))
    return out


def _call(quantity: str, kwargs: dict) -> tuple[list[dict], dict]:
    fn = api_function(quantity)
    if "on_failure" in accepted(quantity):
        kwargs = dict(kwargs, on_failure="mark")
    if "progress" in accepted(quantity):
        kwargs = dict(kwargs, progress=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fn(**kwargs)
    return res.rows, res.meta


def _residual(meta: Mapping) -> float:
    """The largest solver residual the result's metadata reports (0 when none)."""
    solver = meta.get("solver") if isinstance(meta, Mapping) else None
    vals = []
    if isinstance(solver, Mapping):
        for v in solver.values():
            r = v.get("residual") if isinstance(v, Mapping) else None
            if isinstance(r, (int, float)) and math.isfinite(r):
                vals.append(float(r))
        r = solver.get("residual")
        if isinstance(r, (int, float)) and math.isfinite(r):
            vals.append(float(r))
    return max(vals, default=0.0)


def evaluate_points(quantity: str, fixed: Mapping, student: str, teacher: str, points: Sequence[Mapping],
                    grids: Mapping[str, Sequence[float]] | None = None) -> list[dict]:
    """Rows of ``quantity`` at each point (a dict of scalar parameters) × the Cartesian ``grids``.

    Every returned row has the point's parameters, the API's columns, ``status`` (``"converged"``
    or the failure's label), ``message`` on failure and ``_residual`` (the solver residual of
    its call). A :class:`ParameterError` (a parameter outside its valid range) propagates."""
    _warm_imports()
    center = bool(fixed.get("center", True))
    acts = {"student": _activation(student, center), "teacher": _activation(teacher, center)}
    grids = {k: list(v) for k, v in (grids or {}).items()}
    out: list[dict] = []
    for point in points:
        kwargs = {**fixed, **acts, **{k: v for k, v in point.items() if k not in grids}, **grids}
        try:
            rows, meta = _call(quantity, kwargs)
        except ConvergenceError as exc:
            out += _failed(point, grids, str(exc))
            continue
        res = _residual(meta)
        for r in rows:
            row = dict(r)
            row.update({k: v for k, v in point.items() if k not in grids})
            status = row.get("status")
            row["status"] = OK if status in (None, OK) else str(status)
            row["_residual"] = res
            out.append(row)
    return out


def _failed(point: Mapping, grids: Mapping, message: str) -> list[dict]:
    from ..grids import cartesian

    combos = cartesian(**grids) if grids else [{}]
    return [{**point, **c, "status": "error", "message": message.splitlines()[0][:500]} for c in combos]


def task_rows(params: Mapping, seed: int) -> dict:
    """The executor task: ``params`` = {quantity, fixed, student, teacher, points, grids}; returns
    ``{"rows": JSON text of the rows}`` (the API writes NaN and ±inf as None already)."""
    try:
        rows = evaluate_points(params["quantity"], params["fixed"], params["student"], params["teacher"],
                               params["points"], params.get("grids"))
    except ParameterError as exc:
        rows = [{**p, "status": "refused", "message": str(exc)} for p in params["points"]]
    return {"rows": json.dumps(rows, default=_plain)}


def _plain(v):
    """A value json does not know (numpy scalars and the like): as a float, else as text."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)
