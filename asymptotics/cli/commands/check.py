"""``asymptotics check``: verify a claim numerically — a statement over a theory function's columns,
searched for counterexamples over a domain — or the papers' catalogue (a thin wrapper over
``asy.check``, :mod:`asymptotics.claims.public`; ``docs/api/claims.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..api_call import compute
from ..common import emit
from ..options import OUTPUT, command

_SCHED_HELP = ("Where the samples are evaluated: 'in-process' (default), 'processes:N', 'local:N' (a Dask "
               "LocalCluster) or 'tcp://host:port' (a Dask scheduler).")


@command(*OUTPUT)
def check_command(
    quantity: Annotated[str | None, typer.Option("--quantity", "-q", help="The theory function: risk, alignment, ck_spike, limits, spiked_rf, large_step, tau_star, spectrum.")] = None,
    claim: Annotated[str | None, typer.Option("--claim", "-c", help="The statement over the function's columns: 'delta >= 0', 'risk1 >= kernel_bound and risk0 >= kernel_bound', 'increasing(overlap_beta, eta)'.")] = None,
    over: Annotated[list[str] | None, typer.Option("--over", help="The domain, one parameter each: NAME=log:LOW:HIGH, NAME=LOW:HIGH (linear) or NAME=1,2,4 (a grid). Repeatable.")] = None,
    fixed: Annotated[list[str] | None, typer.Option("--fixed", help="A fixed parameter of the function, NAME=VALUE. Repeatable.")] = None,
    student: Annotated[list[str] | None, typer.Option("--student", metavar="ACT", help="Student activation(s); repeatable (every student × teacher pair is checked). Default tanh.")] = None,
    teacher: Annotated[list[str] | None, typer.Option("--teacher", metavar="ACT", help="Teacher activation(s); repeatable. Default tanh.")] = None,
    samples: Annotated[int, typer.Option("--samples", "-n", min=1, help="Sobol samples per claim and activation pair.")] = 1024,
    search: Annotated[bool, typer.Option("--search/--no-search", help="Refine the worst samples by a bounded local search.")] = True,
    confirm: Annotated[bool, typer.Option("--confirm", help="Simulate the network at a counterexample (claims with a confirmation route).")] = False,
    paper: Annotated[list[str] | None, typer.Option("--paper", help="Check a paper's catalogue of claims: ba2022, cui2024. Repeatable.")] = None,
    tolerance: Annotated[float, typer.Option("--tolerance", min=0.0, help="Relative tolerance of an equality 'a == b'.")] = 0.0,
    seed: Annotated[int, typer.Option("--seed", help="Root seed (numpy SeedSequence) of the sampling and the confirmation.")] = 0,
    scheduler: Annotated[str | None, typer.Option("--scheduler", "-s", help=_SCHED_HELP)] = None,
    store: Annotated[Path | None, typer.Option("--store", help="Folder of the evaluated points (an interrupted check resumes from it; default: the user cache).")] = None,
    no_store: Annotated[bool, typer.Option("--no-store", help="Keep no evaluated points.")] = False,
    **output,
) -> None:
    """Check a claim (or a paper's claims): Sobol samples of the domain, a local search for the
    smallest margin, margins within float64 resolution decided at 30 digits. One row per claim:
    verdict (holds / violated / undecided / unresolved points), points, the minimal relative
    margin and where (at_*), the value and its high-precision value, the network's z with
    --confirm. Exit status 1 when a claim's verdict contradicts its paper (a finding)."""
    from ...claims.public import check

    fmt, out = output["fmt"], output["out"]
    if store is not None and not no_store:
        from ...atomic import output_dir

        output_dir(store, "--store")  # before any sampling: created and writable, or one line
    result = compute(check, fmt, out, quantity=quantity, claim=claim, over=over, fixed=fixed,
                     student=student or ["tanh"], teacher=teacher or ["tanh"], samples=samples, search=search,
                     confirm=confirm, paper=paper, seed=seed, scheduler=scheduler,
                     store=False if no_store else store, tolerance=tolerance)
    emit(result, fmt, out, output["columns"], output["show_all"])
    counts: dict[str, int] = {}
    for r in result.rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    findings = sum(1 for r in result.rows if r["finding"])
    typer.echo(", ".join(f"{n} {v}" for v, n in counts.items()) + f"; {findings} finding(s)", err=True)
    if findings:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("check")(check_command)
