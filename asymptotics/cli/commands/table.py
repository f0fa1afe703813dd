"""``asymptotics table RESULT_FILE --to latex|markdown``: a result as a table for a paper or notes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...errors import ParameterError


def table_command(
    result_file: Annotated[Path, typer.Argument(help="A result written by theory/simulate/validate/reproduce (.json, .csv or .parquet).")],
    to: Annotated[str, typer.Option("--to", help="latex (booktabs) or markdown.")] = "markdown",
    columns: Annotated[str | None, typer.Option("--columns", help="Comma-separated columns, in order (default: all).")] = None,
    precision: Annotated[int, typer.Option("--precision", help="Significant digits.")] = 4,
    caption: Annotated[str | None, typer.Option("--caption", help="Caption (LaTeX table environment / Markdown).")] = None,
    label: Annotated[str | None, typer.Option("--label", help=r"LaTeX \label.")] = None,
    raw_headers: Annotated[bool, typer.Option("--raw-headers", help="Column names as they are (no ψ₁, λ, … symbols).")] = False,
    no_merge_se: Annotated[bool, typer.Option("--no-merge-se", help="Keep X_mean and X_se as separate columns (default: 'mean ± se').")] = False,
    tabular_only: Annotated[bool, typer.Option("--tabular-only", help="LaTeX: only the tabular, no table environment.")] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file (atomically) instead of stdout.")] = None,
) -> None:
    """Export any result file to a LaTeX (booktabs) or Markdown table with chosen columns and precision."""
    import sys

    from ...atomic import write_bytes
    from ...reproduce.export import to_latex, to_markdown
    from ...results import Result

    if to not in ("latex", "markdown", "md", "tex"):
        raise ParameterError("--to", to, "latex or markdown")
    if to in ("markdown", "md"):
        if label is not None:
            raise ParameterError("--label", label, "omitted with --to markdown (a LaTeX \\label; use --to latex)")
        if tabular_only:
            raise ParameterError("--tabular-only", True, "omitted with --to markdown (a LaTeX option; use --to latex)")
    from ...params import check_int

    check_int("--precision", precision, 1, 17)
    from ...atomic import path_error
    from ...inputs import input_file

    what = "an existing .json, .csv or .parquet result file"
    input_file(result_file, "RESULT_FILE", what)  # missing, a directory, unreadable: one line
    try:
        res = Result.read(result_file)
    except ParameterError as exc:  # named `path` by the API: the command's argument is RESULT_FILE
        raise path_error("RESULT_FILE", result_file, exc.valid, exc.hint) from None
    if not res.rows:
        raise ParameterError("RESULT_FILE", str(result_file), "a result with at least one row")
    cols = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    if to in ("latex", "tex"):
        text = to_latex(res.rows, cols, precision, caption=caption, label=label, symbols=not raw_headers,
                        merge_se=not no_merge_se, float_env=not tabular_only)
    else:
        text = to_markdown(res.rows, cols, precision, symbols=not raw_headers, merge_se=not no_merge_se) + "\n"
        if caption:
            text += f"\n: {caption}\n"
    if out is not None:
        write_bytes(out, text.encode())
        typer.echo(f"wrote {len(res.rows)} row(s) to {out}", err=True)
    else:
        sys.stdout.write(text)


def register(app: typer.Typer) -> None:
    app.command("table")(table_command)
