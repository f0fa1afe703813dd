r"""One claim on one activation pair: its points, their rows and margins, the sampling and the
adversarial search (the steps of :func:`asymptotics.claims.run.check`).

A *point* is a value of every domain parameter (the ranges and one combination of the grids);
its row is the quantity's output there, kept in the :class:`~.store.PointStore` under the point's
canonical key. A monotone atom ``increasing(col, p)`` also needs the row at the point's
neighbour in p (:func:`~.search.neighbour`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..grids import cartesian
from .evaluate import OK, evaluate_points, numeric_outputs, point_key, solver_tolerance, task_rows
from .search import neighbour, params_at, seed_sequence, sobol_units

__all__ = ["PairCheck", "CHUNK"]

#: Sample points per executor task (and per stored chunk).
CHUNK = 256


class PairCheck:
    """The state of one (claim, pair): see the module docstring.

    Attributes:
        claim, student, teacher, statement (parsed, or None for a callable), store.
        evaluated: the base points evaluated so far, in order (keys).
        computed: points computed in this run (not read from the store).
    """

    def __init__(self, claim, pair: tuple[str, str], pair_index: int, statement, store, root_seed: int):
        self.claim, (self.student, self.teacher), self.statement, self.store = claim, pair, statement, store
        self.domain = claim.domain
        self.seed = seed_sequence(root_seed, claim.name, pair_index)
        self.combos = cartesian(**{k: list(v) for k, v in self.domain.grids.items()}) if self.domain.grids else [{}]
        self.monotone = statement.monotone if statement is not None else ()
        self.solver_tol = solver_tolerance(claim.quantity, claim.fixed)
        self.evaluated: dict[str, dict] = {}
        self.computed = 0

    # ---- points and their keys ---------------------------------------------------------------
    def points_of(self, u) -> list[dict]:
        base = params_at(self.domain, u)
        return [{**base, **c} for c in self.combos]

    def neighbours_of(self, point: Mapping) -> dict[str, tuple[dict, int]]:
        out = {}
        for p in self.monotone:
            v, direction = neighbour(self.domain, p, point[p])
            out[p] = ({**point, p: v}, direction)
        return out

    def _keys_needed(self, point) -> list[str]:
        return [point_key(point)] + [point_key(q) for q, _ in self.neighbours_of(point).values()]

    def lines(self, n: int, line: int) -> list[tuple[str | None, list[np.ndarray]]]:
        """The samples as lines: consecutive chunks of ``line`` Sobol points; in chunk j every
        coordinate but the axis ``j mod k`` is the chunk's first point's, the axis takes the
        chunk's own values (one API call evaluates a line). ``line = 1``: the Sobol points."""
        units = sobol_units(len(self.domain.ranges), n, self.seed)
        names = list(self.domain.ranges)
        out = []
        for j, start in enumerate(range(0, len(units), max(1, int(line)))):
            chunk = units[start: start + max(1, int(line))]
            if len(chunk) == 1 or not names:
                out.append((None, [chunk[0]]))
                continue
            axis = j % len(names)
            us = []
            for x in chunk[:, axis]:
                u = chunk[0].copy()
                u[axis] = x
                us.append(u)
            out.append((names[axis], us))
        return out

    def _specs(self, axis: str | None, us: list[np.ndarray]) -> list[tuple[dict, dict]]:
        """The API calls of one line: (scalars, lists); the axis and the grids as lists."""
        base = params_at(self.domain, us[0])
        lists = {k: list(v) for k, v in self.domain.grids.items()}
        if axis is not None:
            lists[axis] = [params_at(self.domain, u)[axis] for u in us]
            del base[axis]
        specs = [(base, lists)]
        for p in self.monotone:
            if p in base:
                specs.append(({**base, p: neighbour(self.domain, p, base[p])[0]}, lists))
            else:
                specs.append((base, {**lists, p: [neighbour(self.domain, p, v)[0] for v in lists[p]]}))
        return specs

    # ---- evaluation ----------------------------------------------------------------------------
    def _rows_to_store(self, rows: list[dict]) -> dict[str, dict]:
        names = self.domain.names
        out = {}
        for r in rows:
            try:
                out[point_key({k: r[k] for k in names})] = r
            except KeyError:  # the API row lacks a domain parameter: it matches no point
                continue
        return out

    def sample(self, n: int, executor, line: int = 1) -> None:
        """Evaluate the first ``n`` Sobol samples (those not in the store) on ``executor``, in
        lines of ``line`` points (:meth:`lines`)."""
        todo = []
        for axis, us in self.lines(n, line):
            pts = [p for u in us for p in self.points_of(u)]
            for p in pts:
                self.evaluated[point_key(p)] = p
            if any(k not in self.store for p in pts for k in self._keys_needed(p)):
                todo.append(self._specs(axis, us))
        if not todo:
            return
        from ..sweeps.tasks import Task

        per_task = max(1, CHUNK // max(1, int(line)))  # lines per task: about CHUNK samples
        batches = []
        for j in range(0, len(todo), per_task):
            calls = [s for specs in todo[j: j + per_task] for s in specs]
            params = {"quantity": self.claim.quantity, "fixed": dict(self.claim.fixed), "student": self.student,
                      "teacher": self.teacher, "calls": calls}
            batches.append([Task(quantity=self.claim.quantity, params=params, replicate=0, root_seed=0,
                                 task_id=f"{self.claim.name}-{j}", seed=0)])
        for result in executor.run(run_calls, batches):
            for row in result:
                rows = _decode(row)
                self.computed += len(rows)
                self.store.add(self._rows_to_store(rows))

    def evaluate_here(self, point: Mapping) -> None:
        """Evaluate one point (and its neighbours) in this process, unless stored."""
        needed = [point] + [q for q, _ in self.neighbours_of(point).values()]
        todo = [q for q in needed if point_key(q) not in self.store]
        if not todo:
            return
        rows = evaluate_points(self.claim.quantity, dict(self.claim.fixed), self.student, self.teacher, todo)
        self.computed += len(rows)
        self.store.add(self._rows_to_store(rows), defer=True)

    # ---- margins -------------------------------------------------------------------------------
    def margins(self, points: list[dict]) -> dict[str, np.ndarray]:
        """Margins and their bookkeeping at ``points`` (all evaluated): arrays ``margin``,
        ``relative``, ``size``, ``strict``, ``resolved``, ``scale`` (largest output value),
        ``residual``."""
        n = len(points)
        rows = [self.store.get(point_key(p)) or {"status": "missing"} for p in points]
        nbrs = [self.neighbours_of(p) for p in points]
        nrows = {q: [self.store.get(point_key(nb[q][0])) or {"status": "missing"} for nb in nbrs]
                 for q in self.monotone}
        resolved = np.array([r.get("status") == OK for r in rows], bool)
        for q in self.monotone:
            resolved &= np.array([r.get("status") == OK for r in nrows[q]], bool)
        names = self.domain.names
        scale = np.array([max(map(abs, numeric_outputs(r, names)), default=0.0) for r in rows], float)
        residual = np.array([_num(r.get("_residual")) for r in rows], float)
        if self.statement is None:
            m, rel, size = _callable_margins(self.claim.statement, rows, n)
            strict = np.zeros(n, bool)
        else:
            env = _env(self.statement.names, rows, self.claim.fixed)
            nb = {q: (_env(self.statement.names, nrows[q], self.claim.fixed), np.array([x[q][1] for x in nbrs]))
                  for q in self.monotone}
            res = self.statement.evaluate(env, nb, self.claim.tolerance)
            m, rel, size, strict = res.margin, res.relative, res.size, res.strict
        bad = ~resolved | ~np.isfinite(m)
        m, rel = np.where(bad, np.nan, m), np.where(bad, np.nan, rel)
        return {"margin": m, "relative": rel, "size": size, "strict": strict, "resolved": ~bad,
                "scale": scale, "residual": residual}

    def results(self) -> list:
        """Every point evaluated so far as a :class:`~.claim.PointResult` (margins as in
        :meth:`margins`; ``status`` the row's, or ``"nan margin"`` where a term is missing)."""
        from .claim import PointResult

        points = list(self.evaluated.values())
        m = self.margins(points)
        out = []
        for i, p in enumerate(points):
            row = self.store.get(point_key(p)) or {}
            status = row.get("status", "missing")
            if status == OK and not m["resolved"][i]:
                status = "nan margin"
            values = {k: v for k, v in row.items() if k not in p and not k.startswith("_")}
            out.append(PointResult(params=dict(p, student=self.student, teacher=self.teacher),
                                   margin=float(m["margin"][i]), relative_margin=float(m["relative"][i]),
                                   status=status, values=values))
        return out

    def objective(self, combo: Mapping):
        """The search's objective at the grid combination ``combo``: u ↦ relative margin (+1 where
        unresolved)."""

        def f(u):
            point = {**params_at(self.domain, u), **combo}
            self.evaluate_here(point)
            self.evaluated[point_key(point)] = point
            r = self.margins([point])["relative"][0]
            return float(r) if math.isfinite(r) else 1.0

        return f


def run_calls(params: Mapping, seed: int) -> dict:
    """The executor task of :meth:`PairCheck.sample`: every call of ``params["calls"]``."""
    import json

    rows = []
    for point, grids in params["calls"]:
        out = task_rows({**params, "points": [point], "grids": grids}, seed)
        rows += json.loads(out["rows"])
    return {"rows": json.dumps(rows, allow_nan=False)}


def _decode(row: Mapping) -> list[dict]:
    import json

    if row.get("status") == "ok" and isinstance(row.get("rows"), str):
        return json.loads(row["rows"])
    msg = str(row.get("error") or "the task failed")
    return [{**point, **c, "status": "error", "message": msg[:500]}
            for point, grids in row.get("calls", []) for c in (cartesian(**grids) if grids else [{}])]


def _num(v) -> float:
    try:
        f = float(v)
        return f if math.isfinite(f) else math.nan
    except (TypeError, ValueError):
        return math.nan


def _env(names, rows: list[dict], fixed: Mapping) -> dict[str, np.ndarray]:
    env = {}
    for k in names:
        if any(k in r for r in rows):
            env[k] = np.array([_num(r.get(k)) for r in rows], float)
        else:
            env[k] = np.full(len(rows), _num(fixed.get(k)), float)
    return env


def _callable_margins(fn, rows: list[dict], n: int):
    """A callable statement on the rows' frame: margins (relative, size 1) or (margins, sizes)."""
    import pandas as pd

    frame = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows])
    out = fn(frame)
    if isinstance(out, tuple) and len(out) == 2:
        m = np.asarray(out[0], float).reshape(-1)
        size = np.abs(np.asarray(out[1], float).reshape(-1))
    else:
        m = np.asarray(out, float).reshape(-1)
        size = np.ones(n)
    if m.size != n:
        from ..errors import ParameterError

        raise ParameterError("statement", fn, f"a callable returning one margin per row ({n})", f"got {m.size}")
    with np.errstate(all="ignore"):
        return m, m / (size + np.finfo(float).tiny), size
