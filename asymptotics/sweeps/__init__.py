"""Parameter sweeps that outgrow one machine: the same grid in-process, on local processes or on a
Dask cluster, resumable, with nothing lost.

>>> from asymptotics.sweeps import load_config, run_sweep, read_sweep        # doctest: +SKIP
>>> summary = run_sweep("examples/sweeps/ba_risk.toml", scheduler="local:4") # doctest: +SKIP
>>> df = read_sweep(summary.out, ok_only=True)                               # doctest: +SKIP

Modules: :mod:`.config` (TOML schema and validation), :mod:`.tasks` (task identity and seeds),
:mod:`.quantities` (the registry of computable quantities), :mod:`.store` (the Parquet dataset),
:mod:`.executors` (in-process, local processes, Dask) and :mod:`.api` (:func:`run_sweep`).
See ``docs/sweeps.md``.
"""

from .api import SweepPlan, SweepSummary, SweepUpdate, plan_sweep, run_sweep
from .config import ConfigError, ExecutionConfig, SweepConfig, load_config, parse_memory, parse_scheduler
from .quantities import REQUIRED, Param, Quantity, get_quantity, quantity_names, register_quantity
from .store import StoreError, SweepStore, read_sweep
from .tasks import STATUSES, Task, canonical_identity, make_tasks, seed_of, task_id_of

__all__ = [
    "run_sweep",
    "plan_sweep",
    "read_sweep",
    "load_config",
    "SweepConfig",
    "ExecutionConfig",
    "SweepSummary",
    "SweepUpdate",
    "SweepPlan",
    "SweepStore",
    "ConfigError",
    "StoreError",
    "Param",
    "REQUIRED",
    "Quantity",
    "register_quantity",
    "get_quantity",
    "quantity_names",
    "Task",
    "make_tasks",
    "canonical_identity",
    "task_id_of",
    "seed_of",
    "STATUSES",
    "parse_memory",
    "parse_scheduler",
]
