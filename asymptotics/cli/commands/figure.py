"""``asymptotics figure NAME``: one figure (or table) of ``reproduce``; ``--list`` shows them all."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .reproduce import (
    CacheDirOpt,
    FullOpt,
    NoCacheOpt,
    NoProgressOpt,
    QuickOpt,
    SeedOpt,
    SizeOpt,
    WorkersOpt,
    choose_size,
    summarise,
)


def figure_command(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="Figure or table name (see --list).")] = None,
    list_items: Annotated[bool, typer.Option("--list", help="List the figures and tables, with what each checks.")] = False,
    quick: QuickOpt = False,
    full: FullOpt = False,
    size: SizeOpt = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("figure-out"),
    seed: SeedOpt = 20260101,
    workers: WorkersOpt = 1,
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    no_progress: NoProgressOpt = False,
) -> None:
    """Compute and draw one figure of `asymptotics reproduce` into --out (PNG, PDF, tables, report.md)."""
    from ...reproduce.registry import items

    if list_items:
        from ..common import refuse_given

        refuse_given(ctx, ("name", "quick", "full", "size", "out", "seed", "workers", "cache_dir", "no_cache",
                           "no_progress"), "--list", "it lists the figures and runs nothing")
        from rich.console import Console
        from rich.table import Table

        t = Table(title="asymptotics reproduce: figures and tables", show_lines=True)
        for col in ("name", "kind", "reproduces", "checks"):
            t.add_column(col, overflow="fold")
        for it in items():
            t.add_row(it.name, it.kind, it.paper, it.checks)
        Console().print(t)
        return
    if name is None:
        from ...errors import ParameterError

        raise ParameterError("NAME", None, "a figure name (see `asymptotics figure --list`)")
    from ...params import check_int
    from ...reproduce import reproduce

    check_int("--seed", seed, 0)  # a SeedSequence entropy, checked before anything runs
    items([name])  # clear error listing the names if unknown
    sz = choose_size(quick, full, size)
    manifest = reproduce(out, sz, names=[name], seed=seed, workers=workers, cache_dir=cache_dir,
                         use_cache=not no_cache, progress=not no_progress)
    code = summarise(manifest, out)
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("figure")(figure_command)
