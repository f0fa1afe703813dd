"""``asymptotics validate``: run the theory-vs-simulation cases and print a verdict table (a thin
wrapper over ``asy.validate``, :mod:`asymptotics.api.validation`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ...api import validation as api
from ..api_call import compute
from ..common import AllOpt, ColumnsOpt, FormatOpt, OutOpt, emit

TABLE = api.TABLE


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
    result = compute(api.validate, fmt, out, quick=quick, case=case, family=family, list_cases=list_cases,
                     workers=workers, seed=seed)
    if not list_cases and result.meta.get("total") == 0:
        typer.echo("no validation case selected", err=True)
        raise typer.Exit(1)
    emit(result, fmt, out, columns, show_all)
    if list_cases:
        return
    failed, total = result.meta["failed"], result.meta["total"]
    typer.echo(f"{total - failed} passed, {failed} failed", err=True)
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_command)
