r"""Sweep configuration: the TOML schema, its validation and the expansion into parameter points.

A sweep config names the quantity, the fixed parameters, the grid, the seeds and where results
go. Everything is checked — keys, types, grids, every parameter point against the quantity —
before any work starts, and *all* problems are reported together in one :class:`ConfigError`.

.. code-block:: toml

    name = "ba-risk-vs-lambda"       # optional label (default: the file name)
    description = "..."              # optional free text, kept in the manifest
    quantity = "simulate.ba"         # required: a registered quantity
    seeds = 4                        # replicates per point: an integer k (labels 0..k-1) or a
                                     # list of distinct labels [0, 5, 9]
    root_seed = 0                    # integer >= 0 mixed into every task's seed
    common_random_numbers = false    # true: the seed depends on the replicate only, so every
                                     # grid point of replicate r sees the same random numbers
    out = "ba-risk.sweep"            # result directory, relative to this file (--out overrides)
    partition_by = ["d"]             # integer/string parameters naming the partition directories
                                     # (default: ["d"] when the quantity has an integer d)
    zip = [["psi1", "n_test"]]       # optional: grid parameters that vary together (same length)

    [fixed]                          # parameters shared by every point
    student = "tanh"
    teacher = "tanh"
    d = 2000

    [grid]                           # Cartesian product (the first key varies slowest)
    psi1 = [1.0, 2.0, 4.0]           # a list of values ...
    lam = "log:1e-4:1:5"             # ... or the CLI grid syntax: "a,b,c", "start:stop:num",
                                     #     "log:start:stop:num"

    [execution]                      # optional defaults for the command-line options
    scheduler = "local:4"            # in-process (default), processes:N, local:N, tcp://host:port
    max_memory = "8GiB"              # per task/worker; tasks estimated above it are refused
    retries = 2                      # times a task whose worker died is retried
    batch_size = 1                   # tasks per executor job (raise it for µs theory points)
    threads_per_task = 2             # BLAS/numba threads per task (default: all cores in-process,
                                     # cores // N for processes:N and local:N); fix it to get
                                     # bit-identical simulator results on every executor
    flush_seconds = 5.0              # write finished rows at least this often ...
    flush_rows = 500                 # ... or whenever this many are waiting

Memory sizes are bytes or strings with a unit: ``"512MiB"``, ``"8GiB"``, ``"8G"`` (single letters
are binary, as in Slurm), ``"8GB"`` (= 8·10⁹).
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import AsymptoticsError, ParameterError
from ..grids import parse_values
from .quantities import Param, Quantity, get_quantity

__all__ = [
    "ConfigError",
    "SweepConfig",
    "ExecutionConfig",
    "load_config",
    "parse_memory",
    "format_bytes",
    "parse_scheduler",
    "check_execution_overrides",
    "TOP_LEVEL_KEYS",
    "EXECUTION_KEYS",
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

_MAX_TASKS = 10_000_000
_PARTITION_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")


class ConfigError(AsymptoticsError, ValueError):
    """A sweep config is invalid. ``problems`` lists every problem found (all are reported)."""

    def __init__(self, problems: list[str], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        where = f" {source}" if source else ""
        n = len(self.problems)
        head = f"invalid sweep config{where} ({n} problem{'s' if n != 1 else ''}):"
        super().__init__(head + "".join(f"\n  - {p}" for p in self.problems))


# ------------------------------------------------------------------------------------------------
# Small parsers
# ------------------------------------------------------------------------------------------------
_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
}


def parse_memory(value: object, name: str = "max_memory") -> int:
    """Bytes from ``4294967296``, ``"4GiB"``, ``"4G"`` (binary), ``"4GB"`` (decimal), ``"512MiB"``.

    >>> parse_memory("1.5GiB"), parse_memory("2GB"), parse_memory(1024)
    (1610612736, 2000000000, 1024)
    """
    valid = "a positive size in bytes or with a unit, e.g. '512MiB', '8GiB', '8G', '8GB'"
    if isinstance(value, bool):
        raise ParameterError(name, value, valid)
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value <= 0:
            raise ParameterError(name, value, valid)
        return int(value)
    if not isinstance(value, str):
        raise ParameterError(name, value, valid)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", value)
    if not m or m.group(2).lower() not in _UNITS:
        raise ParameterError(name, value, valid)
    v = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not v >= 1:
        raise ParameterError(name, value, valid)
    return int(v)


def format_bytes(n: int | None) -> str:
    """``1610612736`` → ``'1.50 GiB'``."""
    if n is None:
        return "unbounded"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def parse_scheduler(spec: object) -> tuple[str, object]:
    """Parse an executor spec without starting anything.

    Returns ``("inprocess", None)``, ``("processes", n)``, ``("local", n)`` (a Dask
    ``LocalCluster``), ``("address", "tcp://…")`` (an existing Dask scheduler) or
    ``("client", client)`` for a ``distributed.Client`` object.
    """
    import os

    valid = "'in-process', 'processes[:N]', 'local[:N]' (Dask LocalCluster) or a Dask scheduler address tcp://host:port"
    if spec is None:
        return ("inprocess", None)
    if not isinstance(spec, str):
        if type(spec).__name__ == "Client" and hasattr(spec, "submit"):
            return ("client", spec)
        raise ParameterError("scheduler", spec, valid)
    s = spec.strip()
    low = s.lower()
    if low in ("", "inprocess", "in-process", "sync", "serial"):
        return ("inprocess", None)
    for kind in ("processes", "local"):
        if low == kind or low.startswith(kind + ":"):
            n_text = s[len(kind) + 1:] if ":" in s else ""
            if n_text == "":
                n = os.cpu_count() or 1
            else:
                try:
                    n = int(n_text)
                except ValueError:
                    raise ParameterError("scheduler", spec, valid, f"{kind}:N needs an integer N >= 1") from None
            if n < 1:
                raise ParameterError("scheduler", spec, valid, f"{kind}:N needs an integer N >= 1")
            return (kind, n)
    if re.match(r"^(tcp|tls|ucx|ws|wss|inproc)://\S+$", s):
        return ("address", s)
    raise ParameterError("scheduler", spec, valid)


# ------------------------------------------------------------------------------------------------
# The config objects
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExecutionConfig:
    """How a sweep runs (every field can be overridden on the command line).

    Attributes:
        scheduler: executor spec (see :func:`parse_scheduler`); ``None`` = in-process.
        max_memory: bytes per task (and per Dask worker of a ``local:N`` cluster); ``None`` = no bound.
        retries: how many times a task whose worker died is run again before it is recorded as
            failed (Dask: ``distributed.scheduler.allowed-failures`` of a ``local:N`` cluster;
            local processes: resubmissions after the pool broke).
        batch_size: tasks per executor job.
        threads_per_task: BLAS/numba threads of one task (``None``: the executor's default).
        flush_seconds: finished rows are written at least this often.
        flush_rows: ... or as soon as this many are waiting.
    """

    scheduler: object = None
    max_memory: int | None = None
    retries: int = 2
    batch_size: int = 1
    threads_per_task: int | None = None
    flush_seconds: float = 5.0
    flush_rows: int = 500


@dataclass(frozen=True)
class SweepConfig:
    """A validated sweep.

    Attributes:
        quantity: the registered quantity's name.
        fixed: parameters shared by every point (quantity defaults filled in, coerced to the
            declared kinds).
        grid: swept parameters → tuple of values (validated, coerced).
        zip: groups of grid parameters that vary together.
        seeds: replicate labels (integers >= 0).
        root_seed: mixed into every task's seed.
        common_random_numbers: seeds depend on (root_seed, replicate) only.
        name, description: labels kept in the manifest.
        out: result directory (``None``: the caller must give one).
        partition_by: parameters naming the partition directories.
        execution: :class:`ExecutionConfig`.
        source: the TOML file read (``None`` for a dict).
        raw: the config as read (for the manifest).
    """

    quantity: str
    fixed: Mapping[str, object]
    grid: Mapping[str, tuple]
    zip: tuple[tuple[str, ...], ...] = ()
    seeds: tuple[int, ...] = (0,)
    root_seed: int = 0
    common_random_numbers: bool = False
    name: str = ""
    description: str = ""
    out: Path | None = None
    partition_by: tuple[str, ...] = ()
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    source: Path | None = None
    raw: Mapping = field(default_factory=dict, compare=False, repr=False)

    @property
    def parameter_names(self) -> list[str]:
        return list(self.fixed) + [k for k in self.grid if k not in self.fixed]

    def axes(self) -> list[tuple[tuple[str, ...], list[tuple]]]:
        """Grid axes in order: (names, list of value tuples); a zip group is one axis."""
        zipped = {n: g for g in self.zip for n in g}
        axes, seen = [], set()
        for name in self.grid:
            if name in seen:
                continue
            group = zipped.get(name, (name,))
            seen.update(group)
            cols = [self.grid[n] for n in group]
            axes.append((tuple(group), list(zip(*cols, strict=True))))
        return axes

    def points(self) -> list[dict]:
        """Every parameter point (fixed + grid), the first grid axis varying slowest."""
        import itertools

        axes = self.axes()
        out = []
        for combo in itertools.product(*[vals for _, vals in axes]):
            p = dict(self.fixed)
            for (names, _), vals in zip(axes, combo, strict=True):
                p.update(zip(names, vals, strict=True))
            out.append(p)
        return out

    @property
    def n_points(self) -> int:
        return math.prod(len(vals) for _, vals in self.axes())

    @property
    def n_tasks(self) -> int:
        return self.n_points * len(self.seeds)

    def with_execution(self, **changes) -> SweepConfig:
        """A copy with some execution settings replaced (``None`` values are ignored)."""
        changes = {k: v for k, v in changes.items() if v is not None}
        return replace(self, execution=replace(self.execution, **changes)) if changes else self


# ------------------------------------------------------------------------------------------------
# Validation
# ------------------------------------------------------------------------------------------------
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


def load_config(source: str | Path | Mapping, **execution_overrides) -> SweepConfig:
    """Read and validate a sweep config from a TOML file (path) or a dict.

    Raises :class:`ConfigError` listing every problem: unknown keys (with the closest known
    key), wrong types, empty or repeated grids, missing required parameters, parameters the
    quantity does not have, and parameter points the quantity rejects. Nothing is run.
    ``execution_overrides`` (``scheduler``, ``max_memory``, ``retries``, ...) replace the
    ``[execution]`` values; ``None`` values are ignored.
    """
    path: Path | None = None
    if isinstance(source, Mapping):
        data = dict(source)
        label = None
    else:
        path = Path(source)
        label = str(path)
        try:
            text = path.read_text()
        except FileNotFoundError:
            raise ConfigError([f"no such file: {path}"], label) from None
        except OSError as exc:
            raise ConfigError([f"cannot read {path}: {exc}"], label) from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError([f"not valid TOML: {exc}"], label) from None

    problems: list[str] = []
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            problems.append(f"unknown key {key!r}{_suggest(key, TOP_LEVEL_KEYS)}; known keys: {', '.join(TOP_LEVEL_KEYS)}")

    # --- quantity
    quantity: Quantity | None = None
    qname = data.get("quantity")
    if qname is None:
        problems.append("missing key 'quantity' (a registered quantity, e.g. 'simulate.ba')")
    elif not isinstance(qname, str):
        problems.append(f"quantity = {qname!r}: expected a string")
    else:
        try:
            quantity = get_quantity(qname)
        except ParameterError as exc:
            problems.append(str(exc))
    schema: dict[str, Param] | None = None
    if quantity is not None:
        try:
            schema = quantity.schema()
        except ParameterError as exc:
            problems.append(str(exc))
            quantity = None
        except Exception as exc:  # a lazily imported schema failed
            problems.append(f"quantity {qname!r}: its parameter list could not be loaded: {type(exc).__name__}: {exc}")
            quantity = None

    # --- simple top-level values
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
            f"seeds = {seeds_raw!r}: quantity {qname!r} is deterministic (it ignores the seed), so seeds must be 1"
        )

    out = data.get("out")
    if out is not None:
        if not isinstance(out, str) or not out.strip():
            problems.append(f"out = {out!r}: expected a directory path (string)")
            out = None
        else:
            out = Path(out).expanduser()
            if path is not None and not out.is_absolute():
                out = path.parent / out
    elif path is not None:
        out = path.with_suffix(".sweep")

    # --- fixed and grid
    fixed_raw = data.get("fixed", {})
    grid_raw = data.get("grid", {})
    for tname, tval in (("fixed", fixed_raw), ("grid", grid_raw)):
        if not isinstance(tval, dict):
            problems.append(f"{tname} must be a table ([{tname}]), got a {_type_name(tval)}")
    fixed_raw = fixed_raw if isinstance(fixed_raw, dict) else {}
    grid_raw = grid_raw if isinstance(grid_raw, dict) else {}
    if not grid_raw and "grid" in data:
        problems.append("[grid] is empty: give at least one swept parameter (or move everything to [fixed])")

    def kind_of(pname: str) -> str | None:
        if schema is None:
            return "any"
        if pname not in schema:
            return None
        return schema[pname].kind

    fixed: dict = {}
    grid: dict = {}
    known = sorted(schema) if schema is not None else []
    for tname, table in (("fixed", fixed_raw), ("grid", grid_raw)):
        for pname, val in table.items():
            kind = kind_of(pname) if quantity is not None else "any"
            if kind is None:
                problems.append(
                    f"[{tname}] {pname}: not a parameter of quantity {qname!r}{_suggest(pname, known)}; "
                    f"its parameters are: {', '.join(known)}"
                )
                continue
            if tname == "fixed":
                v = _coerce(f"[fixed] {pname}", val, kind, problems)
                if v is not None:
                    fixed[pname] = tuple(v) if isinstance(v, list) else v
            else:
                if pname in fixed_raw:
                    problems.append(f"{pname} is given both in [fixed] and in [grid]; keep one")
                    continue
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

    # --- zip groups
    zip_groups: list[tuple[str, ...]] = []
    zip_raw = data.get("zip", [])
    if not isinstance(zip_raw, list) or any(not isinstance(g, list) for g in zip_raw):
        problems.append(f"zip = {zip_raw!r}: expected a list of lists of grid parameter names, e.g. [[\"psi1\", \"psi2\"]]")
    else:
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
            zip_groups.append(tuple(g))

    # --- partitioning
    part_raw = data.get("partition_by")
    partition_by: tuple[str, ...] = ()
    if part_raw is None:
        d_vals = [fixed["d"]] if "d" in fixed else list(grid.get("d", ()))
        if d_vals and all(isinstance(v, int) and not isinstance(v, bool) for v in d_vals):
            partition_by = ("d",)
    elif not isinstance(part_raw, list) or any(not isinstance(n, str) for n in part_raw):
        problems.append(f"partition_by = {part_raw!r}: expected a list of parameter names")
    else:
        for pname in part_raw:
            vals = [fixed[pname]] if pname in fixed else list(grid.get(pname, ()))
            if pname not in fixed and pname not in grid:
                if pname in fixed_raw or pname in grid_raw:
                    continue  # already reported
                problems.append(f"partition_by: {pname!r} is not a parameter of this sweep")
            elif not all((isinstance(v, int) or isinstance(v, str)) and not isinstance(v, bool) for v in vals):
                problems.append(f"partition_by: {pname!r} must have integer or string values (floats make poor directory names)")
            elif not all(_PARTITION_VALUE.match(str(v)) for v in vals):
                problems.append(f"partition_by: values of {pname!r} must be plain names ([A-Za-z0-9_.+-]) to be directory names")
        if len(set(part_raw)) != len(part_raw):
            problems.append(f"partition_by = {part_raw!r}: repeated names")
        partition_by = tuple(part_raw)

    # --- execution
    ex_raw = data.get("execution", {})
    execution = ExecutionConfig()
    if not isinstance(ex_raw, dict):
        problems.append(f"execution must be a table ([execution]), got a {_type_name(ex_raw)}")
        ex_raw = {}
    ex: dict = {}
    for key, val in ex_raw.items():
        if key not in EXECUTION_KEYS:
            problems.append(f"[execution] unknown key {key!r}{_suggest(key, EXECUTION_KEYS)}; known keys: {', '.join(EXECUTION_KEYS)}")
            continue
        if key == "scheduler":
            if not isinstance(val, str):
                problems.append(f"[execution] scheduler = {val!r}: expected a string")
                continue
            try:
                parse_scheduler(val)
            except ParameterError as exc:
                problems.append(f"[execution] {exc}")
                continue
            ex[key] = val
        elif key == "max_memory":
            try:
                ex[key] = parse_memory(val, "[execution] max_memory")
            except ParameterError as exc:
                problems.append(str(exc))
        elif key in ("retries", "batch_size", "threads_per_task", "flush_rows"):
            v = _check_int(f"[execution] {key}", val, 0 if key == "retries" else 1, problems)
            if v is not None:
                ex[key] = v
        elif key == "flush_seconds":
            if isinstance(val, bool) or not isinstance(val, (int, float)) or not (math.isfinite(val) and val > 0):
                problems.append(f"[execution] flush_seconds = {val!r}: expected a number > 0")
            else:
                ex[key] = float(val)
    try:
        ex.update(check_execution_overrides(**execution_overrides))
    except ParameterError as exc:
        problems.append(str(exc))
    execution = replace(execution, **ex)

    if problems:
        raise ConfigError(problems, label)

    cfg = SweepConfig(
        quantity=qname,
        fixed=fixed,
        grid=grid,
        zip=tuple(zip_groups),
        seeds=seeds,
        root_seed=root_seed,
        common_random_numbers=crn,
        name=name,
        description=description,
        out=out,
        partition_by=partition_by,
        execution=execution,
        source=path,
        raw=data,
    )
    if cfg.n_tasks > _MAX_TASKS:
        raise ConfigError([f"the sweep has {cfg.n_tasks} tasks; at most {_MAX_TASKS} are allowed"], label)

    # --- every point against the quantity (before any work)
    point_problems: list[str] = []
    n_bad = 0
    for p in cfg.points():
        try:
            quantity.check_point(p)
        except Exception as exc:
            n_bad += 1
            if len(point_problems) < 8:
                swept = ", ".join(f"{k}={p[k]!r}" for k in cfg.grid)
                point_problems.append(f"point ({swept}): {type(exc).__name__}: {exc}" if not isinstance(exc, ParameterError) else f"point ({swept}): {exc}")
    if n_bad:
        if n_bad > len(point_problems):
            point_problems.append(f"... and {n_bad - len(point_problems)} more invalid point(s)")
        raise ConfigError(point_problems, label)
    return cfg
