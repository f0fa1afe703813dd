"""``asymptotics validate``: run the theory-vs-simulation cases and print a verdict table (a thin
wrapper over ``asy.validate``, :mod:`asymptotics.api.validation`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...errors import ParameterError
from ..api_call import compute
from ..common import emit, refuse_given
from ..options import OUTPUT, command


@command(*OUTPUT)
def validate_command(
    ctx: typer.Context,
    quick: Annotated[bool, typer.Option("--quick", help="Only the quick cases, at reduced sizes (minutes on 2 cores).")] = False,
    case: Annotated[list[str] | None, typer.Option("--case", help="Run only these cases (repeatable).")] = None,
    family: Annotated[str | None, typer.Option("--family", help="Only cases of this family.")] = None,
    list_cases: Annotated[bool, typer.Option("--list", help="List the cases and exit.")] = False,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Parallel workers for the simulations (default 1).")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Root seed (numpy SeedSequence; default 20260101).")] = None,
    finite_size: Annotated[bool, typer.Option("--finite-size", help="Finite-size studies: a ladder of d per case, "
                           "the d → ∞ limit by a weighted fit, verdict |L − theory| ≤ 3 se(L) with no allowance "
                           "(docs/finite-size.md); --quick: d ≈ 200–800, default: up to 4000, --full: up to 8000.")] = False,
    full: Annotated[bool, typer.Option("--full", help="With --finite-size: the largest ladders (d up to 8000).")] = False,
    budget: Annotated[float | None, typer.Option("--budget", min=1, help="With --finite-size: seconds of wall time per study.")] = None,
    studies_out: Annotated[Path | None, typer.Option("--studies-out", help="With --finite-size: also write each study (per-d means, fits) here.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="With --finite-size: ignore the per-seed store.")] = False,
    **output,
) -> None:
    """Theory vs simulation: theory, simulation ± s.e., z-score, allowance, tolerance, pass/fail. Exit status 1 on failure."""
    from ...api import validation as api

    fmt, out = output["fmt"], output["out"]
    if list_cases:
        refuse_given(ctx, ("workers", "seed", "budget", "studies_out", "no_cache"), "--list", "a list runs nothing")
    if finite_size:
        refuse_given(ctx, ("workers",), "--finite-size", "the studies run their seeds in this process")
        from .validate_finite_size import run_finite_size

        run_finite_size(quick=quick, full=full, cases=case, family=family, list_cases=list_cases, seed=20260101 if seed is None else seed,
                        budget_s=budget, fmt=fmt, out=out, studies_out=studies_out, use_cache=not no_cache,
                        columns=output["columns"], show_all=output["show_all"])
        return
    if full or budget is not None or studies_out is not None or no_cache:
        raise ParameterError("--full/--budget/--studies-out/--no-cache", "given", "only with --finite-size")
    result = compute(api.validate, fmt, out, quick=quick, case=case, family=family, list_cases=list_cases,
                     workers=workers, seed=seed)
    if not list_cases and result.meta.get("total") == 0:
        typer.echo("no validation case selected", err=True)
        raise typer.Exit(1)
    emit(result, fmt, out, output["columns"], output["show_all"])
    if list_cases:
        return
    failed, total = result.meta["failed"], result.meta["total"]
    typer.echo(f"{total - failed} passed, {failed} failed", err=True)
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_command)
