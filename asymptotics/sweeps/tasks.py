r"""Tasks: identity, deterministic seeds, and running one task into one row.

A task is (quantity, parameter point, replicate). Its identity is the canonical JSON text

.. code-block:: text

    {"params":{...sorted, integral floats written as integers...},"quantity":"...","replicate":r}

(``json.dumps(..., sort_keys=True, separators=(",", ":"))``), so ``psi1 = 2`` and ``psi1 = 2.0`` are
the same task, and neither the order of the grid nor the other points matter. From it:

* ``task_id`` — the first 20 hex digits of SHA-256 of the identity followed by
  ``"|root_seed=<root_seed>"``;
* ``seed`` — ``SeedSequence(entropy=root_seed, spawn_key=K).generate_state(2, uint32)`` combined
  into one 64-bit integer and shifted right by one bit (a non-negative int64), where ``K`` is the
  four little-endian 32-bit words of the first 16 bytes of SHA-256 of the identity. With
  ``common_random_numbers`` the identity is ``{"replicate":r}`` alone, so every point of a
  replicate shares its seed.

The seed therefore depends on nothing but the task and the root seed: not on the executor, the
number of workers, the batch size or the order in which tasks complete.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import time
import traceback as _tb
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Task",
    "canonical_identity",
    "task_id_of",
    "seed_of",
    "make_tasks",
    "execute_task",
    "execute_batch",
    "BOOKKEEPING_COLUMNS",
    "STATUSES",
    "THREADS_ENV",
    "task_threads",
]

#: Columns every row carries besides the parameters and the computed values.
BOOKKEEPING_COLUMNS = (
    "task_id",
    "quantity",
    "replicate",
    "root_seed",
    "seed",
    "status",
    "error",
    "traceback",
    "warnings",
    "started",
    "elapsed_s",
    "worker",
    "memory_estimate",
    "threads",
    "versions",
    "run_id",
)
#: ``ok``: computed; ``error``: the quantity raised (or returned non-finite values, or its worker
#: died more often than ``retries`` allows); ``refused``: the pre-flight memory estimate exceeded
#: the bound, nothing was run.
STATUSES = ("ok", "error", "refused")


def _canon(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if math.isfinite(f) and f.is_integer() and abs(f) < 2**53:
            return int(f)
        return f
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_canon(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _canon(x) for k, x in v.items()}
    return str(v)


def canonical_identity(quantity: str, params: Mapping, replicate: int) -> str:
    """The canonical JSON text identifying a task (see the module docstring)."""
    obj = {"quantity": quantity, "params": _canon(dict(params)), "replicate": int(replicate)}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def task_id_of(identity: str, root_seed: int) -> str:
    """20 hex digits of SHA-256 of ``identity + "|root_seed=<root_seed>"``."""
    return hashlib.sha256(f"{identity}|root_seed={int(root_seed)}".encode()).hexdigest()[:20]


def seed_of(seed_identity: str, root_seed: int) -> int:
    """The task seed: a non-negative 63-bit integer from ``SeedSequence`` (module docstring)."""
    digest = hashlib.sha256(seed_identity.encode()).digest()
    key = tuple(int.from_bytes(digest[4 * i: 4 * i + 4], "little") for i in range(4))
    lo, hi = np.random.SeedSequence(int(root_seed), spawn_key=key).generate_state(2, np.uint32)
    return ((int(hi) << 32) | int(lo)) >> 1


@dataclass(frozen=True)
class Task:
    """One unit of work.

    Attributes:
        quantity: registry name.
        params: the complete parameter point.
        replicate: replicate label.
        root_seed: the sweep's root seed.
        task_id: stable identifier (see the module docstring).
        seed: the seed passed to the quantity.
        memory: pre-flight memory estimate in bytes (``None`` if the quantity has none).
    """

    quantity: str
    params: Mapping = field(hash=False)
    replicate: int
    root_seed: int
    task_id: str
    seed: int
    memory: int | None = None


def make_tasks(config, quantity) -> list[Task]:
    """All tasks of a validated :class:`~asymptotics.sweeps.config.SweepConfig`: every point ×
    every replicate, points in grid order, replicates innermost."""
    tasks = []
    for p in config.points():
        mem = quantity.memory_estimate(p)
        for r in config.seeds:
            ident = canonical_identity(config.quantity, p, r)
            seed_ident = json.dumps({"replicate": int(r)}, separators=(",", ":")) if config.common_random_numbers else ident
            tasks.append(
                Task(
                    quantity=config.quantity,
                    params=p,
                    replicate=int(r),
                    root_seed=int(config.root_seed),
                    task_id=task_id_of(ident, config.root_seed),
                    seed=seed_of(seed_ident, config.root_seed),
                    memory=mem,
                )
            )
    return tasks


# ------------------------------------------------------------------------------------------------
# Running a task
# ------------------------------------------------------------------------------------------------
_VERSIONS: str | None = None


def _versions_json() -> str:
    global _VERSIONS
    if _VERSIONS is None:
        from ..results import versions

        _VERSIONS = json.dumps(versions(), sort_keys=True)
    return _VERSIONS


def _worker_label() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _clean_value(name: str, v, bad: list[str]):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not math.isfinite(f):
            bad.append(f"{name}={f}")
        return f
    if isinstance(v, complex):
        raise TypeError(f"value {name!r} is complex ({v}); return its real and imaginary parts separately")
    if isinstance(v, (list, tuple, np.ndarray)):
        arr = np.asarray(v)
        if arr.ndim != 1:
            raise TypeError(f"value {name!r} must be a scalar or a 1-d list, got shape {arr.shape}")
        if arr.dtype.kind in "fiub":
            arr = arr.astype(float)
            if not np.all(np.isfinite(arr)):
                bad.append(f"{name}=[non-finite entries]")
            return arr.tolist()
        return [str(x) for x in arr.tolist()]
    raise TypeError(f"value {name!r} has unsupported type {type(v).__name__}")


def base_row(task: Task, run_id: str = "") -> dict:
    """The bookkeeping and parameter columns of a task's row (values not yet filled)."""
    row = {
        "task_id": task.task_id,
        "quantity": task.quantity,
        "replicate": task.replicate,
        "root_seed": task.root_seed,
        "seed": task.seed,
        "status": None,
        "error": None,
        "traceback": None,
        "warnings": None,
        "started": None,
        "elapsed_s": None,
        "worker": None,
        "memory_estimate": task.memory,
        "threads": None,
        "versions": None,
        "run_id": run_id,
    }
    for k, v in task.params.items():
        row[k] = list(v) if isinstance(v, tuple) else v
    return row


def _value_column(name: str, row: Mapping) -> str:
    """Value names colliding with a parameter or bookkeeping column get the prefix ``out_``."""
    return f"out_{name}" if name in row else name


def execute_task(fn: Callable, task: Task, run_id: str = "") -> dict:
    """Run ``fn(params, seed)`` for one task and return its row.

    Exceptions (``Exception``, not ``KeyboardInterrupt``/``SystemExit``) are caught and recorded
    with ``status="error"``, the one-line ``error`` and the full ``traceback``; a non-finite
    value is recorded the same way (values dropped, so no NaN reaches a table unflagged).
    Warnings raised by the quantity are kept in ``warnings``.
    """
    row = base_row(task, run_id)
    row["worker"] = _worker_label()
    row["versions"] = _versions_json()
    started = time.time()
    t0 = time.perf_counter()
    values: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(dict(task.params), int(task.seed))
            if not isinstance(out, Mapping):
                raise TypeError(f"quantity {task.quantity!r} returned {type(out).__name__}, expected a dict of values")
            bad: list[str] = []
            for k, v in out.items():
                values[_value_column(str(k), row)] = _clean_value(str(k), v, bad)
            if bad:
                values = {}
                raise ArithmeticError("non-finite value(s): " + ", ".join(bad[:10]))
            row["status"] = "ok"
        except Exception as exc:
            values = {}
            row["status"] = "error"
            msg = str(exc).strip().splitlines()
            row["error"] = f"{type(exc).__name__}: {msg[0] if msg else ''}"[:2000]
            row["traceback"] = "".join(_tb.format_exception(exc))[-20000:]
    row["elapsed_s"] = time.perf_counter() - t0
    row["started"] = started
    if caught:
        uniq = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
        row["warnings"] = "\n".join(uniq)[:4000]
    row.update(values)
    return row


#: Environment variable through which a task learns its thread budget (read by the simulator
#: entries of the registry; other quantities may use it too).
THREADS_ENV = "ASYMPTOTICS_SWEEP_THREADS"


def task_threads() -> int | None:
    """The thread budget of the task running in this process (``None``: not limited)."""
    v = os.environ.get(THREADS_ENV)
    return int(v) if v else None


def execute_batch(fn: Callable, tasks: list[Task], run_id: str = "", threads: int | None = None) -> list[dict]:
    """Run several tasks in sequence (one executor job). ``threads`` is the BLAS/numba thread
    budget of each task (published as ``$ASYMPTOTICS_SWEEP_THREADS`` for the quantity; ``None``
    leaves it unset)."""
    before = os.environ.get(THREADS_ENV)
    if threads is None:
        os.environ.pop(THREADS_ENV, None)
    else:
        os.environ[THREADS_ENV] = str(int(threads))
    try:
        rows = [execute_task(fn, t, run_id) for t in tasks]
    finally:
        if before is None:
            os.environ.pop(THREADS_ENV, None)
        else:
            os.environ[THREADS_ENV] = before
    for r in rows:
        r["threads"] = threads
    return rows


def failed_row(task: Task, status: str, message: str, run_id: str = "") -> dict:
    """A row for a task that did not run to completion (worker died, refused by the pre-flight)."""
    row = base_row(task, run_id)
    row["status"] = status
    row["error"] = message
    row["started"] = time.time()
    row["elapsed_s"] = 0.0
    row["versions"] = _versions_json()
    row["worker"] = None
    return row
