"""The CLI contract shared by every command: activation, parameter-grid and output options.

Every command takes its activations as ``--student`` / ``--teacher`` (a built-in name or an
expression in ``x``; both centred unless ``--no-center``), its parameters as grids
(``0.5``, ``1,2,4``, ``0:1:5``, ``log:1e-4:1:5``; several grid parameters form a Cartesian grid),
and writes ``--format table|csv|json|parquet`` to stdout or atomically to ``--out FILE``. The
table shows a compact set of columns (``--columns a,b,c`` chooses, ``--all`` shows every one);
csv, json and parquet keep every column.

The options themselves are defined once, in :mod:`asymptotics.cli.options`. This module imports
nothing heavy (no sympy, no theory): ``--help`` and usage errors stay fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..atomic import check_file_target
from ..errors import ParameterError
from ..results import FORMATS, Columns, Result, file_format
from .options import GRID_HELP

__all__ = [
    "GRID_HELP",
    "check_output",
    "refuse_given",
    "progress",
    "emit",
    "resolve_activation",
    "Columns",
]


def resolve_activation(spec: str, center: bool, role: str):
    """Build an activation; any failure (parse, infinite Gaussian moments) becomes one error
    naming the option ``--role`` (``role`` may also be a full name such as ``"SPEC"``)."""
    from ..activations import resolve_activation as _resolve

    return _resolve(spec, center=center, name=role if role.isupper() else f"--{role}")


def check_output(fmt: str, out: Path | None) -> None:
    """Refuse a bad ``--format``/``--out`` before any work: an unknown format, parquet to the
    terminal, a file whose suffix names no format (without ``--format``), a folder, a missing or
    unwritable folder (see :mod:`asymptotics.atomic`)."""
    if fmt not in FORMATS:
        raise ParameterError("--format", fmt, f"one of {', '.join(FORMATS)}")
    if out is None:
        if fmt == "parquet":
            raise ParameterError("--format", fmt, "used with --out FILE (parquet is binary)")
        return
    check_file_target(out, "--out")  # a folder, a missing or unwritable folder: refused now
    file_format(out, fmt, "--out")  # the format from --format, else from the suffix, else refused


def _given(ctx, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _spelling(ctx, name: str) -> str:
    """The option ``name`` as the user wrote it (``--no-pencil`` for a false ``--pencil/--no-pencil``)."""
    for p in ctx.command.params:
        if p.name == name:
            if getattr(p, "param_type_name", "") == "argument":
                return name.upper()
            opts = [o for o in p.opts if o.startswith("--")] or list(p.opts)
            if getattr(p, "is_flag", False) and p.secondary_opts and ctx.params.get(name) is False:
                return p.secondary_opts[0]
            return opts[0] if opts else name.upper()
    return "--" + name.replace("_", "-")


def refuse_given(ctx, names, mode: str, why: str = "") -> None:
    """Refuse every option of ``names`` (parameter names) that the user gave on the command line
    although the ``mode`` (``"--list"``, ``"SYSTEM"``, …) does not use it: one line naming the
    option, the mode and ``why`` — the command line's form of
    :func:`asymptotics.api.checks.refuse_unused` (typer's ``Context`` tells given from default)."""
    for name in names:
        if _given(ctx, name):
            value = ctx.params.get(name)
            raise ParameterError(_spelling(ctx, name), value, f"omitted with {mode}" + (f" ({why})" if why else ""))


class progress:
    """A progress bar on stderr for ``total`` steps, shown only when stderr is a terminal and the
    work is long (more than ``min_total`` steps); ``with progress(n, "solving") as step: step()``."""

    def __init__(self, total: int, label: str, min_total: int = 1):
        self.total, self.label, self.min_total = total, label, min_total
        self._prog = None

    def __enter__(self):
        if self.total > self.min_total and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._prog = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                  console=Console(stderr=True), transient=True)
            self._prog.__enter__()
            self._task = self._prog.add_task(self.label, total=self.total)
        return self.advance

    def advance(self, n: int = 1) -> None:
        if self._prog is not None:
            self._prog.advance(self._task, n)

    def __exit__(self, *exc):
        if self._prog is not None:
            self._prog.__exit__(*exc)
        return False


def _columns_list(columns: str | None) -> list[str] | None:
    if columns is None:
        return None
    items = [c.strip() for c in columns.split(",")]
    if not columns.strip() or any(not c for c in items):
        raise ParameterError("--columns", columns, "a comma list of column names, e.g. psi1,risk1", "empty item")
    return items


def emit(result: Result, fmt: str, out: Path | None, columns: str | None = None, show_all: bool = False) -> None:
    """Print ``result`` in ``fmt`` or write it atomically to ``out`` (the table shows
    ``result.columns``, the named ``columns`` or, with ``show_all``, every column)."""
    check_output(fmt, out)
    cols = _columns_list(columns)
    if fmt == "table":
        from ..console_table import plan_columns

        plan_columns(result, cols, show_all)  # an unknown --columns fails before anything is written
    if out is not None:
        path = result.write(out, None if fmt == "table" else fmt, name="--out")  # errors: one line, --out
        typer.echo(f"wrote {len(result.rows)} row(s) to {path}", err=True)
        return
    if fmt == "table":
        from ..console_table import print_table

        print_table(result, cols, show_all)
        return
    sys.stdout.write(result.render(fmt).decode())
