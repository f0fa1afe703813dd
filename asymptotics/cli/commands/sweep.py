"""``asymptotics sweep CONFIG.toml``: run or resume a parameter sweep (in-process, local
processes or a Dask cluster) into a partitioned Parquet dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...errors import ParameterError

_SCHED_HELP = (
    "Where tasks run: 'in-process' (default), 'processes:N' (local worker processes), "
    "'local:N' (a Dask LocalCluster with N worker processes) or 'tcp://host:port' (an existing Dask scheduler)."
)


def sweep_command(
    ctx: typer.Context,
    config: Annotated[Path | None, typer.Argument(help="The sweep's TOML config (see docs/sweeps.md).")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", "-s", help=_SCHED_HELP)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory (default: 'out' in the config, else CONFIG with suffix .sweep).")] = None,
    max_memory: Annotated[str | None, typer.Option("--max-memory", help="Memory bound per task (and per local:N worker), e.g. 8GiB; tasks estimated above it are refused.")] = None,
    retries: Annotated[int | None, typer.Option("--retries", help="Times a task whose worker died is retried (default 2).")] = None,
    batch_size: Annotated[int | None, typer.Option("--batch-size", help="Tasks per executor job (default 1; raise it for millisecond tasks on a cluster).")] = None,
    threads_per_task: Annotated[int | None, typer.Option("--threads-per-task", help="BLAS/numba threads per task (default: from the task size: 1 thread below 1e10 flops, else all cores in-process, cores // N on N workers).")] = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Also rerun tasks recorded as failed.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate the config and show what would run; run nothing.")] = False,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress", help="Progress bar (default: when stderr is a terminal).")] = None,
    list_quantities: Annotated[bool, typer.Option("--list-quantities", help="List the registered quantities and their parameters, and exit.")] = False,
) -> None:
    """Run (or resume) the sweep described by CONFIG: one row per (parameter point, seed) task, with
    status, timing and versions, in a partitioned Parquet dataset. Completed tasks are skipped, so
    rerunning the same command resumes an interrupted sweep. Exit status: 0 when every task is done,
    1 when some failed or were refused, 2 for an invalid config, 130 when interrupted."""
    from rich.console import Console

    from ...sweeps import run_sweep

    console = Console(stderr=True)
    if list_quantities:
        from ..common import refuse_given

        refuse_given(ctx, ("config", "scheduler", "out", "max_memory", "retries", "batch_size", "threads_per_task",
                           "retry_failed", "dry_run", "progress"), "--list-quantities", "it lists and runs nothing")
        _list_quantities()
        return
    if config is None:
        raise ParameterError("CONFIG", None, "a sweep config file (TOML)", "asymptotics sweep CONFIG.toml")
    summary = run_sweep(
        config, scheduler, out=out, max_memory=max_memory, retries=retries, batch_size=batch_size,
        threads_per_task=threads_per_task, retry_failed=retry_failed, dry_run=dry_run, progress=progress, console=console,
    )
    outcome = _one_line_outcome(summary)
    if outcome is not None and (summary.dry_run or summary.ok + summary.failed + summary.refused == summary.pending):
        if summary.refused + summary.failed < summary.pending:  # a dry run refusing part of the plan: the plan too
            Console().print(summary)
        typer.echo(f"error: {outcome}", err=True)
        raise typer.Exit(code=1)
    Console().print(summary)
    if not dry_run and not summary.complete:
        raise typer.Exit(code=1)


def _one_line_outcome(summary) -> str | None:
    """One line for a plan refused (in part) by its dry run, or a run in which no task succeeded:
    the count, the first error and the limit, instead of a table around it."""
    name = f"sweep {summary.name}" if summary.name else "sweep"
    first = summary.errors[0] if summary.errors else "no error recorded"
    if summary.dry_run:
        if not summary.refused:
            return None
        return f"{name}: plan refused for {summary.refused} of {summary.pending} task(s): {first}"
    if summary.pending and summary.ok == 0 and summary.failed + summary.refused == summary.pending:
        what = "refused" if summary.refused == summary.pending else "failed or refused"
        return f"{name}: all {summary.pending} task(s) {what}: {first} (rows in {summary.out})"
    return None


def _list_quantities() -> None:
    from rich.console import Console
    from rich.table import Table

    from ...sweeps import get_quantity, quantity_names

    t = Table(title="quantities for asymptotics sweep")
    t.add_column("quantity")
    t.add_column("seeded")
    t.add_column("parameters (default)")
    t.add_column("description")
    for name in quantity_names():
        q = get_quantity(name)
        try:
            schema = q.schema()
            params = "any" if schema is None else ", ".join(
                k if p.required else f"{k} ({p.default!r})" for k, p in schema.items())
        except Exception as exc:  # the simulator may not be importable here
            params = f"(unavailable: {type(exc).__name__})"
        t.add_row(name, "yes" if q.seeded else "no", params, q.description)
    Console().print(t)


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep_command)
