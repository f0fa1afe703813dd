"""``asymptotics validate``: run the theory-vs-simulation cases and print a verdict table."""

from __future__ import annotations

from typing import Annotated

import typer

from ...errors import ParameterError
from ...params import check_int
from ...results import Columns, Result, base_meta
from ..common import AllOpt, ColumnsOpt, FormatOpt, OutOpt, check_output, emit

TABLE = Columns(("d",), ("case", "quantity", "theory", "simulation", "se", "z", "tolerance", "passed"))


def validate_command(
    quick: Annotated[bool, typer.Option("--quick", help="Only the quick cases, at reduced sizes (minutes on 2 cores).")] = False,
    case: Annotated[list[str] | None, typer.Option("--case", help="Run only these cases (repeatable).")] = None,
    family: Annotated[str | None, typer.Option("--family", help="Only cases of this family.")] = None,
    list_cases: Annotated[bool, typer.Option("--list", help="List the cases and exit.")] = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Parallel workers for the simulations.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Root seed (numpy SeedSequence).")] = 20260101,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Theory vs simulation: theory, simulation ± s.e., z-score, tolerance, pass/fail. Exit status 1 on failure."""
    from validation.registry import CaseConfig, cases, run_cases

    check_output(fmt, out)
    check_int("--workers", workers, 1, 1024)
    check_int("--seed", seed, 0)
    if family is not None:
        families = sorted({c.family for c in cases()})
        if family not in families:
            raise ParameterError("--family", family, f"one of {', '.join(families)}")
    selected = cases(case, family, quick)
    if list_cases:
        emit(
            Result(rows=[{"case": c.name, "family": c.family, "quick": c.quick, "description": c.description} for c in selected], meta=base_meta(command="validate --list")),
            fmt,
            out,
            columns,
            show_all,
        )
        return
    if not selected:
        typer.echo("no validation case selected", err=True)
        raise typer.Exit(1)
    from rich.progress import Progress

    with Progress(transient=True) as prog:
        task = prog.add_task("validating", total=len(selected))

        def step(name):
            prog.update(task, description=f"case {name}", advance=0)

        cfg = CaseConfig(quick=quick, workers=workers, seed=seed)
        checks, timings = run_cases(selected, cfg, progress=lambda n: (step(n), prog.advance(task)))
    rows = [c.as_row() for c in checks]
    failed = [c for c in checks if not c.passed]
    meta = base_meta(command="validate", quick=quick, seed=seed, workers=workers, timings=timings, failed=len(failed), total=len(checks))
    emit(Result(rows=rows, meta=meta, columns=TABLE), fmt, out, columns, show_all)
    typer.echo(f"{len(checks) - len(failed)} passed, {len(failed)} failed", err=True)
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_command)
