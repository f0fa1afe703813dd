r"""``run_sweep``: plan, resume, execute and record a sweep.

>>> import tempfile
>>> from asymptotics.sweeps import run_sweep, read_sweep
>>> out = tempfile.mkdtemp()
>>> summary = run_sweep({"quantity": "gaussian.moments", "out": out,
...                      "fixed": {"activation": "erf"}, "grid": {"scale": [0.5, 1.0, 2.0]}},
...                     progress=False)
>>> summary.complete, summary.total
(True, 3)
>>> df = read_sweep(out)
>>> sorted(df["scale"]), set(df["status"])
([0.5, 1.0, 2.0], {'ok'})

Steps: the config is validated (every point, before anything runs); tasks and their seeds are
derived from their identities; tasks whose row is already ``ok`` in the output directory are
skipped (and failed ones too, unless ``retry_failed``); the executor starts only if something is
left; tasks whose memory estimate exceeds the bound are recorded as ``refused``; the rest run in
batches and their rows are written atomically as they arrive (at least every ``flush_seconds``).
An interrupt (Ctrl-C) writes what has finished and re-raises; running the same command again
resumes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .config import ConfigError, SweepConfig, check_execution_overrides, format_bytes, load_config
from .executors import default_threads, make_executor
from .quantities import get_quantity
from .store import SweepStore, new_run_id
from .tasks import Task, failed_row, make_tasks

__all__ = ["run_sweep", "plan_sweep", "SweepSummary", "SweepUpdate", "SweepPlan"]


@dataclass(frozen=True)
class SweepPlan:
    """What a run would do. ``tasks``: all tasks; ``pending``: those to run; ``statuses``: the
    status each task already has in the output directory."""

    config: SweepConfig
    out: Path
    tasks: list[Task]
    pending: list[Task]
    statuses: dict

    @property
    def previously_ok(self) -> int:
        return sum(1 for t in self.tasks if self.statuses.get(t.task_id) == "ok")

    @property
    def previously_failed(self) -> int:
        return sum(1 for t in self.tasks if self.statuses.get(t.task_id) == "error")


@dataclass(frozen=True)
class SweepUpdate:
    """Passed to ``callback`` after each completed batch (in the driver process)."""

    rows: list[dict]
    done: int
    total: int
    ok: int
    failed: int
    refused: int
    executor: object


@dataclass(frozen=True)
class SweepSummary:
    """The outcome of :func:`run_sweep`.

    Attributes:
        name, quantity, out, run_id: what ran and where (``run_id`` is ``None`` if nothing ran).
        executor: a description of the executor.
        total: tasks in the config.
        previously_ok: tasks skipped because an ``ok`` row already existed.
        previously_failed: tasks skipped because an ``error`` row existed (not ``retry_failed``).
        pending: tasks this run set out to do.
        ok, failed, refused: outcomes of this run.
        interrupted: the run stopped early (rows finished so far are saved).
        elapsed_s: wall time of this run (including the executor's start-up).
        run_s: wall time of the execution loop only.
        task_seconds: sum of the tasks' own run times.
        threads_per_task: the BLAS/numba threads each task had (``None``: the workers' own).
        memory_limit: the bound used by the pre-flight (bytes) or ``None``.
        largest_memory_estimate: the largest pre-flight estimate among the pending tasks.
        errors: up to five distinct error messages of this run.
        dry_run: nothing was run (a plan only).
    """

    name: str
    quantity: str
    out: Path
    run_id: str | None
    executor: str
    total: int
    previously_ok: int
    previously_failed: int
    pending: int
    ok: int = 0
    failed: int = 0
    refused: int = 0
    interrupted: bool = False
    elapsed_s: float = 0.0
    run_s: float = 0.0
    task_seconds: float = 0.0
    threads_per_task: int | None = None
    memory_limit: int | None = None
    largest_memory_estimate: int | None = None
    errors: tuple[str, ...] = field(default_factory=tuple)
    dry_run: bool = False

    @property
    def complete(self) -> bool:
        """Every task of the config has an ``ok`` row."""
        return self.previously_ok + self.ok == self.total

    @property
    def rate(self) -> float:
        """Tasks per second in this run's execution loop."""
        n = self.ok + self.failed
        return n / self.run_s if self.run_s > 0 else math.nan

    def as_dict(self) -> dict:
        d = asdict(self)
        d["out"] = str(self.out)
        d["complete"] = self.complete
        d["rate"] = self.rate if math.isfinite(self.rate) else None
        return d

    def __rich__(self):
        from rich.table import Table

        title = f"sweep {self.name} · {self.quantity}" if self.name else f"sweep · {self.quantity}"
        t = Table(title=title, show_header=False, box=None, pad_edge=False)
        t.add_column(style="bold")
        t.add_column()
        state = "dry run (nothing ran)" if self.dry_run else (
            "interrupted — rerun to resume" if self.interrupted else ("complete" if self.complete else "incomplete"))
        t.add_row("status", state)
        t.add_row("output", str(self.out))
        t.add_row("executor", self.executor)
        if self.threads_per_task is not None and not self.dry_run:
            t.add_row("threads", f"{self.threads_per_task} BLAS/numba thread(s) per task")
        t.add_row("tasks", f"{self.total} total · {self.previously_ok} already done"
                  + (f" · {self.previously_failed} failed before (skipped; --retry-failed reruns them)" if self.previously_failed else ""))
        if self.dry_run:
            t.add_row("would run", str(self.pending - self.refused)
                      + (f" · {self.refused} refused (above the memory bound)" if self.refused else ""))
        else:
            t.add_row("this run", f"{self.ok} ok · {self.failed} failed · {self.refused} refused (of {self.pending})")
            if self.run_s > 0:
                t.add_row("time", f"{self.elapsed_s:.1f} s wall ({self.run_s:.1f} s running, {self.rate:.3g} tasks/s; "
                          f"{self.task_seconds:.1f} task-seconds)")
        if self.memory_limit is not None:
            t.add_row("memory bound", format_bytes(self.memory_limit) + " per task")
        if self.largest_memory_estimate is not None:
            t.add_row("largest task", f"≈ {format_bytes(self.largest_memory_estimate)} (pre-flight estimate)")
        for e in self.errors:
            t.add_row("error", e)
        return t

    def __str__(self) -> str:
        import io

        from rich.console import Console

        buf = io.StringIO()
        Console(file=buf, width=120, force_terminal=False).print(self)
        return buf.getvalue()


def _resolve_config(config, overrides: dict) -> SweepConfig:
    if isinstance(config, SweepConfig):
        return config.with_execution(**check_execution_overrides(**overrides))
    return load_config(config, **overrides)


def plan_sweep(config: SweepConfig | str | Path | Mapping, out: str | Path | None = None,
               *, retry_failed: bool = False) -> SweepPlan:
    """Validate the config and work out which tasks still need to run (reads, never writes)."""
    cfg = _resolve_config(config, {})
    out_dir = Path(out) if out is not None else cfg.out
    if out_dir is None:
        raise ConfigError(["no output directory: give out = \"DIR\" in the config or --out DIR"],
                          str(cfg.source) if cfg.source else None)
    quantity = get_quantity(cfg.quantity)
    tasks = make_tasks(cfg, quantity)
    store = SweepStore(out_dir)
    store.check_compatible(cfg)
    statuses = store.statuses() if store.exists() else {}
    skip = {"ok"} if retry_failed else {"ok", "error"}
    pending = [t for t in tasks if statuses.get(t.task_id) not in skip]
    return SweepPlan(cfg, out_dir, tasks, pending, statuses)


class _Writer:
    def __init__(self, store: SweepStore, run_id: str, flush_seconds: float, flush_rows: int):
        self.store, self.run_id = store, run_id
        self.flush_seconds, self.flush_rows = flush_seconds, flush_rows
        self.pending: list[dict] = []
        self.seq = 0
        self.last = time.monotonic()
        self.written = 0

    def add(self, rows: list[dict]) -> None:
        self.pending.extend(rows)
        if len(self.pending) >= self.flush_rows or time.monotonic() - self.last >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.store.write(self.pending, self.run_id, self.seq)
            self.seq += 1
            self.written += len(self.pending)
            self.pending = []
        self.last = time.monotonic()


def _progress(console, enabled: bool):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/] {task.fields[refused]} refused"),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
        transient=False,
    )


def plan_memory_limit(max_memory: int | None, scheduler) -> int | None:
    """The per-task memory bound a plan is checked against: ``max_memory`` when given, else, for
    tasks that run on this machine (in-process, ``processes:N``), the default limit (80 % of the
    memory available now); a Dask cluster's own bound is known only once connected."""
    if max_memory is not None:
        return max_memory
    if scheduler is None or (isinstance(scheduler, str) and scheduler.split(":")[0] in ("in-process", "processes")):
        from ..memory import default_memory_limit

        return default_memory_limit()
    return None


def refusal_message(count: int, largest: int | None, limit: int) -> str:
    """The one line of a plan refused for memory: how many tasks, the largest, the bound."""
    return (f"MemoryBound: {count} task(s) estimated above the bound {format_bytes(limit)} per task "
            f"(largest ≈ {format_bytes(largest)}); raise --max-memory or use a node with more memory")


def run_sweep(
    config: SweepConfig | str | Path | Mapping,
    scheduler=None,
    *,
    out: str | Path | None = None,
    max_memory: int | str | None = None,
    retries: int | None = None,
    batch_size: int | None = None,
    threads_per_task: int | None = None,
    retry_failed: bool = False,
    dry_run: bool = False,
    progress: bool | None = None,
    callback: Callable[[SweepUpdate], None] | None = None,
    console=None,
) -> SweepSummary:
    """Run (or resume) a sweep and return its :class:`SweepSummary`.

    Args:
        config: a TOML path, a dict with the same structure, or a :class:`SweepConfig`.
        scheduler: ``None``/``"in-process"``, ``"processes:N"``, ``"local:N"`` (Dask
            LocalCluster), ``"tcp://host:port"`` or a ``distributed.Client``; overrides
            ``[execution] scheduler``.
        out: output directory (overrides ``out`` in the config).
        max_memory: per-task bound (bytes or ``"8GiB"``): tasks whose estimate exceeds it are
            refused, and ``local:N`` workers get it as their memory limit.
        retries: times a task whose worker died is retried.
        batch_size: tasks per executor job.
        threads_per_task: BLAS/numba threads per task (default: from the tasks' size — one
            thread for small tasks, else all cores in-process and cores // N on
            ``processes:N``/``local:N``; see :func:`~asymptotics.sweeps.executors.default_threads`);
            fixing it makes simulator results bit-identical across executors.
        retry_failed: also rerun tasks recorded as failed.
        dry_run: validate and plan only.
        progress: show a rich progress bar (default: when stderr is a terminal).
        callback: called with a :class:`SweepUpdate` after every completed batch.
        console: a ``rich.console.Console`` for the progress bar (default: stderr).

    Raises:
        ConfigError: invalid config (nothing runs).
        StoreError: the output directory holds another sweep or is locked.
        KeyboardInterrupt: after saving every finished row.
    """
    t_start = time.perf_counter()
    overrides = {"scheduler": scheduler if isinstance(scheduler, (str, type(None))) else None,
                 "max_memory": max_memory, "retries": retries, "batch_size": batch_size,
                 "threads_per_task": threads_per_task}
    cfg = _resolve_config(config, overrides)
    plan = plan_sweep(cfg, out, retry_failed=retry_failed)
    sched = scheduler if scheduler is not None and not isinstance(scheduler, str) else cfg.execution.scheduler
    base = _summary_base(cfg, plan, retry_failed)
    if dry_run or not plan.pending:
        return _summary_without_running(cfg, plan, base, sched, dry_run, t_start)

    import pyarrow.parquet  # noqa: F401  (imported before the executor starts: the first flush is prompt)
    from rich.console import Console

    console = console or Console(stderr=True)
    enabled = console.is_terminal if progress is None else bool(progress)
    return _run_pending(cfg, plan, sched, base, console, enabled, callback, t_start)


def _summary_base(cfg: SweepConfig, plan: SweepPlan, retry_failed: bool) -> dict:
    """The fields of the summary known before anything runs: what, where, and the plan's counts."""
    return dict(
        name=cfg.name, quantity=cfg.quantity, out=plan.out, total=len(plan.tasks),
        previously_ok=plan.previously_ok,
        previously_failed=0 if retry_failed else plan.previously_failed,
        pending=len(plan.pending),
        largest_memory_estimate=max((t.memory for t in plan.pending if t.memory is not None), default=None),
    )


def _summary_without_running(cfg: SweepConfig, plan: SweepPlan, base: dict, sched, dry_run: bool,
                             t_start: float) -> SweepSummary:
    """The summary of a dry run (with the tasks the memory bound would refuse) or of a sweep with
    nothing left to run."""
    limit = plan_memory_limit(cfg.execution.max_memory, sched)
    over = [t for t in plan.pending if limit is not None and t.memory is not None and t.memory > limit]
    errors = (refusal_message(len(over), base["largest_memory_estimate"], limit),) if over else ()
    return SweepSummary(run_id=None, executor="none (nothing to run)" if not dry_run else str(sched or "in-process"),
                        dry_run=dry_run, memory_limit=limit, refused=len(over) if dry_run else 0, errors=errors,
                        elapsed_s=time.perf_counter() - t_start, **base)


@dataclass
class _RunState:
    """What a run has done so far, updated as batches arrive; its summary is built from it (also after
    an interrupt)."""

    description: str
    limit: int | None
    threads: int | None
    counts: dict = field(default_factory=lambda: {"ok": 0, "error": 0, "refused": 0})
    errors: list = field(default_factory=list)
    task_seconds: float = 0.0
    run_s: float = 0.0
    interrupted: bool = False


def _run_pending(cfg: SweepConfig, plan: SweepPlan, sched, base: dict, console, enabled: bool, callback,
                 t_start: float) -> SweepSummary:
    """Run the plan's pending tasks under the output directory's lock; the rows are written as they
    arrive, and the run record at the end (also after an interrupt, which is re-raised)."""
    ex_cfg = cfg.execution
    store = SweepStore(plan.out)
    quantity = get_quantity(cfg.quantity)
    run_id = new_run_id()
    executor = make_executor(sched, max_memory=ex_cfg.max_memory, retries=ex_cfg.retries,
                             threads=ex_cfg.threads_per_task)
    state = _RunState(description=str(sched or "in-process"), limit=ex_cfg.max_memory, threads=ex_cfg.threads_per_task)
    with store.lock():
        store.open_for(cfg, run_id)
        writer = _Writer(store, run_id, ex_cfg.flush_seconds, ex_cfg.flush_rows)
        try:
            with executor:
                _execute(executor, quantity, cfg, plan, sched, run_id, writer, state, console, enabled, callback)
        except BaseException:
            state.interrupted = True
            raise
        finally:
            summary = _finish(store, writer, run_id, state, base, plan, console, t_start)
    return summary


def _execute(executor, quantity, cfg: SweepConfig, plan: SweepPlan, sched, run_id: str, writer: _Writer,
             state: _RunState, console, enabled: bool, callback) -> None:
    """Inside the started executor: the memory bound (tasks above it recorded as refused), the threads
    per task, then the batches run with a progress bar."""
    ex_cfg = cfg.execution
    state.description = executor.describe()
    state.limit = ex_cfg.max_memory if ex_cfg.max_memory is not None else executor.memory_limit()
    if state.limit is None:
        state.limit = plan_memory_limit(None, sched)
    runnable, refused_rows = _split_by_memory(plan.pending, state.limit, run_id)
    if refused_rows:
        state.counts["refused"] += len(refused_rows)
        state.errors.append(refused_rows[0]["error"])
        writer.add(refused_rows)
    state.threads = ex_cfg.threads_per_task or default_threads(quantity, runnable, executor)
    bs = ex_cfg.batch_size
    batches = [runnable[i:i + bs] for i in range(0, len(runnable), bs)]
    with _progress(console, enabled) as bar:
        job = bar.add_task(cfg.name or cfg.quantity, total=len(plan.pending), completed=len(refused_rows),
                           ok=0, failed=0, refused=len(refused_rows), rate="")
        t_run = time.perf_counter()
        try:
            for rows in executor.run(quantity.fn, batches, run_id, state.threads):
                _record_batch(rows, writer, state, bar, job, t_run, len(plan.pending), callback, executor)
        finally:
            state.run_s = time.perf_counter() - t_run


def _split_by_memory(pending: list[Task], limit: int | None, run_id: str) -> tuple[list[Task], list[dict]]:
    """The tasks within the memory bound, and the ``refused`` rows of those whose estimate exceeds it."""
    runnable, refused_rows = [], []
    for t in pending:
        if limit is not None and t.memory is not None and t.memory > limit:
            refused_rows.append(failed_row(
                t, "refused",
                f"MemoryBound: estimated {format_bytes(t.memory)} > bound {format_bytes(limit)}; "
                "raise --max-memory or use a node with more memory", run_id))
        else:
            runnable.append(t)
    return runnable, refused_rows


def _record_batch(rows: list[dict], writer: _Writer, state: _RunState, bar, job, t_run: float, pending: int,
                  callback, executor) -> None:
    """A finished batch: its rows written, counted (up to five distinct errors kept), the progress bar
    advanced and ``callback`` told."""
    writer.add(rows)
    counts = state.counts
    for r in rows:
        counts[r["status"]] += 1
        state.task_seconds += r.get("elapsed_s") or 0.0
        if r["status"] != "ok" and len(state.errors) < 5 and r["error"] not in state.errors:
            state.errors.append(r["error"])
    elapsed = time.perf_counter() - t_run
    n_done = counts["ok"] + counts["error"]
    bar.update(job, advance=len(rows), ok=counts["ok"], failed=counts["error"],
               rate=f"{n_done / elapsed:.3g} tasks/s" if elapsed > 0 else "")
    if callback is not None:
        callback(SweepUpdate(rows, n_done + counts["refused"], pending, counts["ok"], counts["error"],
                             counts["refused"], executor))


def _finish(store: SweepStore, writer: _Writer, run_id: str, state: _RunState, base: dict, plan: SweepPlan, console,
            t_start: float) -> SweepSummary:
    """The end of a run, finished or interrupted: the last rows flushed, the store compacted (finished
    runs only), the run record written (a failure to write it never masks the run's outcome)."""
    writer.flush()
    if not state.interrupted:
        store.compact(run_id)
    summary = SweepSummary(
        run_id=run_id, executor=state.description, ok=state.counts["ok"], failed=state.counts["error"],
        refused=state.counts["refused"], interrupted=state.interrupted, elapsed_s=time.perf_counter() - t_start,
        run_s=state.run_s, task_seconds=state.task_seconds, threads_per_task=state.threads, memory_limit=state.limit,
        errors=tuple(state.errors), **base,
    )
    try:
        store.write_run_record(run_id, summary.as_dict())
    except Exception as exc:  # never mask the run's own outcome
        console.print(f"[yellow]could not write the run record: {exc}[/]")
    if state.interrupted:
        console.print(f"[yellow]sweep interrupted: {writer.written} finished row(s) saved in {plan.out}; "
                      "run the same command again to resume[/]")
    return summary
