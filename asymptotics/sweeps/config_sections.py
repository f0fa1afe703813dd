r"""The checkers of a sweep config, one per section (keys, quantity, labels, seeds, out, fixed and
grid, zip, partition_by, execution, points). Each appends every problem it finds to one list, so
that :func:`~asymptotics.sweeps.config.load_config` reports them all at once.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import ParameterError
from ..grids import parse_values
from .parsing import parse_memory, parse_scheduler
from .registry import Param, Quantity, get_quantity

__all__ = [
    "TOP_LEVEL_KEYS",
    "EXECUTION_KEYS",
    "check_execution_overrides",
    "check_keys",
    "check_quantity",
    "check_labels",
    "check_seeds",
    "check_out",
    "check_parameters",
    "check_zip",
    "check_partition",
    "check_execution",
    "check_points",
]

TOP_LEVEL_KEYS = (
    "name",
    "description",
    "quantity",
    "seeds",
    "root_seed",
    "common_random_numbers",
    "out",
    "partition_by",
    "zip",
    "fixed",
    "grid",
    "execution",
)
EXECUTION_KEYS = ("scheduler", "max_memory", "retries", "batch_size", "threads_per_task", "flush_seconds", "flush_rows")

_PARTITION_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")


def _type_name(v: object) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "table"}.get(
        type(v), type(v).__name__
    )


def _suggest(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _coerce(where: str, value: object, kind: str, problems: list[str]):
    """Coerce one TOML value to the declared kind, or record a problem and return None."""

    def bad(expected: str):
        problems.append(f"{where} = {value!r}: expected {expected}, got a {_type_name(value)}")

    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return bad("a number")
        if not math.isfinite(value):
            problems.append(f"{where} = {value!r}: expected a finite number")
            return None
        return float(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return bad("an integer")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            return bad("an integer")
        return int(value)
    if kind == "str":
        return value if isinstance(value, str) else bad("a string")
    if kind == "bool":
        return value if isinstance(value, bool) else bad("true or false")
    if kind in ("floats", "strs"):
        if not isinstance(value, list):
            return bad("an array of " + ("numbers" if kind == "floats" else "strings"))
        sub = "float" if kind == "floats" else "str"
        n_before = len(problems)
        vals = [_coerce(f"{where}[{i}]", v, sub, problems) for i, v in enumerate(value)]
        return None if len(problems) > n_before else vals
    # any
    if isinstance(value, dict):
        return bad("a number, string, boolean or array")
    if isinstance(value, float) and not math.isfinite(value):
        problems.append(f"{where} = {value!r}: expected a finite number")
        return None
    if isinstance(value, list):
        n_before = len(problems)
        vals = [_coerce(f"{where}[{i}]", v, "any", problems) for i, v in enumerate(value)]
        return None if len(problems) > n_before else vals
    return value


def _grid_values(name: str, value: object, kind: str, problems: list[str]) -> tuple | None:
    where = f"[grid] {name}"
    if isinstance(value, str) and kind in ("float", "int", "any"):
        try:
            raw = parse_values(name, value)
        except ParameterError as exc:
            problems.append(f"{where} = {value!r}: {exc}")
            return None
        if kind == "int":
            raw = [int(v) if float(v).is_integer() else v for v in raw]
        elif kind == "any" and all(float(v).is_integer() for v in raw) and not re.search(r"[.eE]", value):
            raw = [int(v) for v in raw]
    elif isinstance(value, list):
        raw = value
    elif isinstance(value, dict):
        problems.append(f"{where}: expected an array of values or a grid string like 'log:1e-4:1:5', got a table")
        return None
    elif isinstance(value, str):
        problems.append(
            f"{where} = {value!r}: a grid of {kind} values must be an array, e.g. [{value!r}] "
            "(or put a single value in [fixed])"
        )
        return None
    else:
        raw = [value]
    if len(raw) == 0:
        problems.append(f"{where}: the grid is empty (give at least one value)")
        return None
    n_before = len(problems)
    vals = [_coerce(f"{where}[{i}]", v, kind, problems) for i, v in enumerate(raw)]
    if len(problems) > n_before:
        return None
    keys = [repr(v) for v in vals]
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1})
        problems.append(f"{where}: repeated values {', '.join(dup)} (each task would run twice)")
        return None
    return tuple(tuple(v) if isinstance(v, list) else v for v in vals)


def _check_int(where: str, value: object, minimum: int, problems: list[str]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        problems.append(f"{where} = {value!r}: expected an integer >= {minimum}")
        return None
    return value


def check_execution_overrides(**overrides) -> dict:
    """Validate command-line execution overrides (``None`` values dropped); raises
    :class:`ParameterError` naming the option."""
    unknown = [k for k in overrides if k not in EXECUTION_KEYS]
    if unknown:
        raise TypeError(f"unknown execution setting(s) {unknown}; known: {EXECUTION_KEYS}")
    ov = {k: v for k, v in overrides.items() if v is not None}
    if "scheduler" in ov:
        parse_scheduler(ov["scheduler"])
    if "max_memory" in ov:
        ov["max_memory"] = parse_memory(ov["max_memory"], "--max-memory")
    for key, minimum in (("retries", 0), ("batch_size", 1), ("threads_per_task", 1), ("flush_rows", 1)):
        if key in ov:
            v = ov[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
                raise ParameterError(f"--{key.replace('_', '-')}", v, f"an integer >= {minimum}")
    if "flush_seconds" in ov:
        v = ov["flush_seconds"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v > 0):
            raise ParameterError("flush_seconds", v, "a number > 0")
        ov["flush_seconds"] = float(v)
    return ov


# ------------------------------------------------------------------------------------------------
# One checker per section. Each reads its part of the raw config, appends every problem it finds
# to ``problems`` (never raises) and returns the validated value, or a harmless default.
# ------------------------------------------------------------------------------------------------
def check_keys(data: Mapping, problems: list[str]) -> None:
    """Unknown top-level keys (with the closest known one)."""
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            problems.append(f"unknown key {key!r}{_suggest(key, TOP_LEVEL_KEYS)}; known keys: {', '.join(TOP_LEVEL_KEYS)}")


def check_quantity(data: Mapping, problems: list[str]) -> tuple[Quantity | None, dict[str, Param] | None]:
    """``quantity``: a registered name; returns the quantity and its parameter schema."""
    qname = data.get("quantity")
    if qname is None:
        problems.append("missing key 'quantity' (a registered quantity, e.g. 'simulate.ba')")
        return None, None
    if not isinstance(qname, str):
        problems.append(f"quantity = {qname!r}: expected a string")
        return None, None
    try:
        quantity = get_quantity(qname)
    except ParameterError as exc:
        problems.append(str(exc))
        return None, None
    try:
        return quantity, quantity.schema()
    except ParameterError as exc:
        problems.append(str(exc))
    except Exception as exc:  # a lazily imported schema failed
        problems.append(f"quantity {qname!r}: its parameter list could not be loaded: {type(exc).__name__}: {exc}")
    return None, None


def check_labels(data: Mapping, path: Path | None, problems: list[str]) -> tuple[str, str, int, bool]:
    """``name``, ``description``, ``root_seed`` and ``common_random_numbers``."""
    name = data.get("name", path.stem if path else "")
    if not isinstance(name, str):
        problems.append(f"name = {name!r}: expected a string")
        name = ""
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.append(f"description = {description!r}: expected a string")
        description = ""
    root_seed = _check_int("root_seed", data.get("root_seed", 0), 0, problems) or 0
    crn = data.get("common_random_numbers", False)
    if not isinstance(crn, bool):
        problems.append(f"common_random_numbers = {crn!r}: expected true or false")
        crn = False
    return name, description, root_seed, crn


def check_seeds(data: Mapping, quantity: Quantity | None, problems: list[str]) -> tuple[int, ...]:
    """``seeds``: a count k (labels 0..k-1) or distinct labels; 1 for a deterministic quantity."""
    seeds_raw = data.get("seeds", 1)
    seeds: tuple[int, ...] = (0,)
    if isinstance(seeds_raw, list):
        if not seeds_raw:
            problems.append("seeds = []: expected an integer >= 1 or a non-empty list of replicate labels")
        elif any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds_raw):
            problems.append(f"seeds = {seeds_raw!r}: replicate labels must be integers >= 0")
        elif len(set(seeds_raw)) != len(seeds_raw):
            problems.append(f"seeds = {seeds_raw!r}: replicate labels must be distinct")
        else:
            seeds = tuple(seeds_raw)
    else:
        k = _check_int("seeds", seeds_raw, 1, problems)
        seeds = tuple(range(k)) if k else (0,)
    if quantity is not None and not quantity.seeded and len(seeds) > 1:
        problems.append(
            f"seeds = {seeds_raw!r}: quantity {quantity.name!r} is deterministic (it ignores the seed), so seeds must be 1"
        )
    return seeds


def check_out(data: Mapping, path: Path | None, problems: list[str]) -> Path | None:
    """``out``: a directory, relative to the config file (default: the file with suffix .sweep)."""
    out = data.get("out")
    if out is None:
        return path.with_suffix(".sweep") if path is not None else None
    if not isinstance(out, str) or not out.strip():
        problems.append(f"out = {out!r}: expected a directory path (string)")
        return None
    out = Path(out).expanduser()
    if path is not None and not out.is_absolute():
        out = path.parent / out
    return out


def _table(data: Mapping, tname: str, problems: list[str]) -> dict:
    tval = data.get(tname, {})
    if not isinstance(tval, dict):
        problems.append(f"{tname} must be a table ([{tname}]), got a {_type_name(tval)}")
        return {}
    return tval


def check_parameters(data: Mapping, quantity: Quantity | None, schema: dict[str, Param] | None,
                     problems: list[str]) -> tuple[dict, dict, dict, dict]:
    """``[fixed]`` and ``[grid]`` against the quantity's schema (unknown names, kinds, grid syntax,
    repeated values, missing required parameters); defaults are filled into ``fixed``.

    Returns ``(fixed, grid, fixed_raw, grid_raw)``.
    """
    fixed_raw = _table(data, "fixed", problems)
    grid_raw = _table(data, "grid", problems)
    if not grid_raw and "grid" in data:
        problems.append("[grid] is empty: give at least one swept parameter (or move everything to [fixed])")
    qname = data.get("quantity")
    known = sorted(schema) if schema is not None else []
    fixed: dict = {}
    grid: dict = {}
    for tname, table in (("fixed", fixed_raw), ("grid", grid_raw)):
        for pname, val in table.items():
            kind = "any" if quantity is None or schema is None else (schema[pname].kind if pname in schema else None)
            if kind is None:
                problems.append(
                    f"[{tname}] {pname}: not a parameter of quantity {qname!r}{_suggest(pname, known)}; "
                    f"its parameters are: {', '.join(known)}"
                )
            elif tname == "fixed":
                v = _coerce(f"[fixed] {pname}", val, kind, problems)
                if v is not None:
                    fixed[pname] = tuple(v) if isinstance(v, list) else v
            elif pname in fixed_raw:
                problems.append(f"{pname} is given both in [fixed] and in [grid]; keep one")
            else:
                vals = _grid_values(pname, val, kind, problems)
                if vals is not None:
                    grid[pname] = vals
    if schema is not None:
        missing = [k for k, p in schema.items() if p.required and k not in fixed_raw and k not in grid_raw]
        if missing:
            problems.append(f"missing required parameter(s) of {qname!r}: {', '.join(missing)} (put them in [fixed] or [grid])")
        defaults = {k: (tuple(p.default) if isinstance(p.default, list) else p.default)
                    for k, p in schema.items() if not p.required and k not in fixed and k not in grid}
        merged = {**defaults, **fixed}
        fixed = {k: merged[k] for k in schema if k in merged}
    return fixed, grid, fixed_raw, grid_raw


def check_zip(data: Mapping, grid: dict, grid_raw: dict, problems: list[str]) -> tuple[tuple[str, ...], ...]:
    """``zip``: groups of at least two grid parameters of equal lengths, each in one group."""
    zip_raw = data.get("zip", [])
    if not isinstance(zip_raw, list) or any(not isinstance(g, list) for g in zip_raw):
        problems.append(f"zip = {zip_raw!r}: expected a list of lists of grid parameter names, e.g. [[\"psi1\", \"psi2\"]]")
        return ()
    groups: list[tuple[str, ...]] = []
    used: set[str] = set()
    for g in zip_raw:
        if len(g) < 2 or any(not isinstance(n, str) for n in g):
            problems.append(f"zip group {g!r}: expected at least two grid parameter names")
            continue
        bad = [n for n in g if n not in grid_raw]
        if bad:
            problems.append(f"zip group {g!r}: {', '.join(bad)} not in [grid]")
            continue
        if used & set(g):
            problems.append(f"zip group {g!r}: a parameter appears in two zip groups")
            continue
        used |= set(g)
        if all(n in grid for n in g):
            lens = {n: len(grid[n]) for n in g}
            if len(set(lens.values())) != 1:
                problems.append(f"zip group {g!r}: the grids must have equal lengths, got {lens}")
                continue
        groups.append(tuple(g))
    return tuple(groups)


def check_partition(data: Mapping, fixed: dict, grid: dict, given: set, problems: list[str]) -> tuple[str, ...]:
    """``partition_by``: integer/string parameters with plain values (default ``["d"]`` when the
    sweep has an integer ``d``). ``given``: the parameter names the config gives (for those, a
    problem was already reported when they are not valid)."""
    part_raw = data.get("partition_by")
    if part_raw is None:
        d_vals = [fixed["d"]] if "d" in fixed else list(grid.get("d", ()))
        if d_vals and all(isinstance(v, int) and not isinstance(v, bool) for v in d_vals):
            return ("d",)
        return ()
    if not isinstance(part_raw, list) or any(not isinstance(n, str) for n in part_raw):
        problems.append(f"partition_by = {part_raw!r}: expected a list of parameter names")
        return ()
    for pname in part_raw:
        vals = [fixed[pname]] if pname in fixed else list(grid.get(pname, ()))
        if pname not in fixed and pname not in grid:
            if pname not in given:
                problems.append(f"partition_by: {pname!r} is not a parameter of this sweep")
        elif not all((isinstance(v, int) or isinstance(v, str)) and not isinstance(v, bool) for v in vals):
            problems.append(f"partition_by: {pname!r} must have integer or string values (floats make poor directory names)")
        elif not all(_PARTITION_VALUE.match(str(v)) for v in vals):
            problems.append(f"partition_by: values of {pname!r} must be plain names ([A-Za-z0-9_.+-]) to be directory names")
    if len(set(part_raw)) != len(part_raw):
        problems.append(f"partition_by = {part_raw!r}: repeated names")
    return tuple(part_raw)


def _execution_value(key: str, val, problems: list[str]):
    """One ``[execution]`` value, checked (``None`` after recording a problem)."""
    if key == "scheduler":
        if not isinstance(val, str):
            problems.append(f"[execution] scheduler = {val!r}: expected a string")
            return None
        try:
            parse_scheduler(val)
        except ParameterError as exc:
            problems.append(f"[execution] {exc}")
            return None
        return val
    if key == "max_memory":
        try:
            return parse_memory(val, "[execution] max_memory")
        except ParameterError as exc:
            problems.append(str(exc))
            return None
    if key == "flush_seconds":
        if isinstance(val, bool) or not isinstance(val, (int, float)) or not (math.isfinite(val) and val > 0):
            problems.append(f"[execution] flush_seconds = {val!r}: expected a number > 0")
            return None
        return float(val)
    return _check_int(f"[execution] {key}", val, 0 if key == "retries" else 1, problems)


def check_execution(data: Mapping, overrides: dict, problems: list[str]) -> dict:
    """``[execution]`` settings, then the command-line ``overrides`` on top (checked alike)."""
    ex_raw = data.get("execution", {})
    if not isinstance(ex_raw, dict):
        problems.append(f"execution must be a table ([execution]), got a {_type_name(ex_raw)}")
        ex_raw = {}
    ex: dict = {}
    for key, val in ex_raw.items():
        if key not in EXECUTION_KEYS:
            problems.append(f"[execution] unknown key {key!r}{_suggest(key, EXECUTION_KEYS)}; known keys: {', '.join(EXECUTION_KEYS)}")
            continue
        v = _execution_value(key, val, problems)
        if v is not None:
            ex[key] = v
    try:
        ex.update(check_execution_overrides(**overrides))
    except ParameterError as exc:
        problems.append(str(exc))
    return ex


def check_points(points, quantity: Quantity, swept, limit: int = 8) -> list[str]:
    """Every parameter point against the quantity's own check; the first ``limit`` problems, then a
    count of the rest."""
    problems: list[str] = []
    n_bad = 0
    for p in points:
        try:
            quantity.check_point(p)
        except Exception as exc:
            n_bad += 1
            if len(problems) < limit:
                where = ", ".join(f"{k}={p[k]!r}" for k in swept)
                problems.append(f"point ({where}): {exc}" if isinstance(exc, ParameterError)
                                else f"point ({where}): {type(exc).__name__}: {exc}")
    if n_bad > len(problems):
        problems.append(f"... and {n_bad - len(problems)} more invalid point(s)")
    return problems
