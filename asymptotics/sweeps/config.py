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
    threads_per_task = 2             # BLAS/numba threads per task (default: 1 for small tasks,
                                     # else all cores in-process, cores // N for processes:N and
                                     # local:N); fix it to get bit-identical simulator results on
                                     # every executor
    flush_seconds = 5.0              # write finished rows at least this often ...
    flush_rows = 500                 # ... or whenever this many are waiting

Memory sizes are bytes or strings with a unit: ``"512MiB"``, ``"8GiB"``, ``"8G"`` (single letters
are binary, as in Slurm), ``"8GB"`` (= 8·10⁹); see :mod:`.parsing`. Each section has its checker
in :mod:`.config_sections`.
"""


from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import AsymptoticsError, ParameterError
from ..inputs import read_text
from .config_sections import (
    EXECUTION_KEYS,
    TOP_LEVEL_KEYS,
    check_execution,
    check_execution_overrides,
    check_keys,
    check_labels,
    check_out,
    check_parameters,
    check_partition,
    check_points,
    check_quantity,
    check_seeds,
    check_zip,
)
from .parsing import format_bytes, parse_memory, parse_scheduler

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

_MAX_TASKS = 10_000_000


class ConfigError(AsymptoticsError, ValueError):
    """A sweep config is invalid. ``problems`` lists every problem found (all are reported)."""

    def __init__(self, problems: list[str], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        where = f" {source}" if source else ""
        n = len(self.problems)
        if n == 1:  # one problem: one line
            super().__init__(f"invalid sweep config{where}: {self.problems[0]}")
            return
        head = f"invalid sweep config{where} ({n} problems):"
        super().__init__(head + "".join(f"\n  - {p}" for p in self.problems))


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


def _read(source: str | Path | Mapping) -> tuple[dict, Path | None]:
    """The raw config and the file it came from (``None`` for a dict)."""
    if isinstance(source, Mapping):
        return dict(source), None
    path = Path(source)
    try:  # a missing file, a directory, an unreadable, binary or non-UTF-8 file: one problem
        text = read_text(path, "CONFIG", "a sweep config file (TOML)")
    except ParameterError as exc:
        raise ConfigError([exc.hint], str(path)) from None
    try:
        return tomllib.loads(text), path
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], str(path)) from None


def load_config(source: str | Path | Mapping, **execution_overrides) -> SweepConfig:
    """Read and validate a sweep config from a TOML file (path) or a dict.

    Raises :class:`ConfigError` listing every problem: unknown keys (with the closest known
    key), wrong types, empty or repeated grids, missing required parameters, parameters the
    quantity does not have, and parameter points the quantity rejects. Nothing is run.
    ``execution_overrides`` (``scheduler``, ``max_memory``, ``retries``, ...) replace the
    ``[execution]`` values; ``None`` values are ignored.
    """
    data, path = _read(source)
    label = str(path) if path is not None else None
    problems: list[str] = []
    check_keys(data, problems)
    quantity, schema = check_quantity(data, problems)
    name, description, root_seed, crn = check_labels(data, path, problems)
    seeds = check_seeds(data, quantity, problems)
    out = check_out(data, path, problems)
    fixed, grid, fixed_raw, grid_raw = check_parameters(data, quantity, schema, problems)
    zip_groups = check_zip(data, grid, grid_raw, problems)
    partition_by = check_partition(data, fixed, grid, set(fixed_raw) | set(grid_raw), problems)
    execution = replace(ExecutionConfig(), **check_execution(data, execution_overrides, problems))
    if problems:
        raise ConfigError(problems, label)

    cfg = SweepConfig(
        quantity=data["quantity"], fixed=fixed, grid=grid, zip=zip_groups, seeds=seeds, root_seed=root_seed,
        common_random_numbers=crn, name=name, description=description, out=out, partition_by=partition_by,
        execution=execution, source=path, raw=data,
    )
    if cfg.n_tasks > _MAX_TASKS:
        raise ConfigError([f"the sweep has {cfg.n_tasks} tasks; at most {_MAX_TASKS} are allowed"], label)
    point_problems = check_points(cfg.points(), quantity, list(cfg.grid))
    if point_problems:
        raise ConfigError(point_problems, label)
    return cfg
