"""The CLI contract shared by every command: activation, parameter-grid and output options.

Every command takes its activations as ``--student`` / ``--teacher`` (a built-in name or an
expression in ``x``; both centred unless ``--no-center``), its parameters as grids
(``0.5``, ``1,2,4``, ``0:1:5``, ``log:1e-4:1:5``; several grid parameters form a Cartesian grid),
and writes ``--format table|csv|json|parquet`` to stdout or atomically to ``--out FILE``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..activations import resolve_activation as _resolve
from ..errors import ParameterError
from ..grids import cartesian, parse_values
from ..params import RULES
from ..results import FORMATS, Result

__all__ = [
    "StudentOpt",
    "TeacherOpt",
    "CenterOpt",
    "FormatOpt",
    "OutOpt",
    "grid_option",
    "build_grid",
    "emit",
    "activations_meta",
    "resolve_activation",
]

_ACT_HELP = "a built-in (erf, tanh, relu, softplus, sigmoid, sin, linear, gelu, silu, he2, he3, quadratic) or an expression in x"

StudentOpt = Annotated[str, typer.Option("--student", help=f"Student activation σ: {_ACT_HELP}.")]
TeacherOpt = Annotated[str, typer.Option("--teacher", help=f"Teacher activation σ*: {_ACT_HELP}.")]
CenterOpt = Annotated[
    bool,
    typer.Option("--center/--no-center", help="Centre σ and σ* (σ − E σ(z)); the theory assumes centred functions."),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: table, csv, json or parquet.")]
OutOpt = Annotated[
    Path | None, typer.Option("--out", "-o", help="Write to this file (atomically) instead of stdout.")
]

GRID_HELP = "a number, a list 1,2,4, a range start:stop:num or log:start:stop:num"


def grid_option(default: str, help_text: str, *names: str):
    """A typer option holding a grid string for one parameter."""
    return typer.Option(default, *names, help=f"{help_text} ({GRID_HELP}).")


def build_grid(**texts: str | None) -> list[dict]:
    """Parse and validate each named grid (``None`` values are skipped) into a Cartesian grid."""
    grids = {}
    for name, text in texts.items():
        if text is None:
            continue
        vals = parse_values(name, text)
        if name in RULES:
            rule, *args = RULES[name]
            vals = [rule(name, v, *args) for v in vals]
        grids[name] = vals
    return cartesian(**grids)


def resolve_activation(spec: str, center: bool, role: str):
    """Build an activation; any failure becomes one error naming the option ``--role``."""
    return _resolve(spec, center=center, name=f"--{role}")


def activations_meta(**acts) -> dict:
    """Metadata for the activations in use (with their Gaussian constants)."""
    return {role: act.as_dict() for role, act in acts.items()}


def emit(result: Result, fmt: str, out: Path | None) -> None:
    """Print ``result`` in ``fmt`` or write it atomically to ``out``."""
    if fmt not in FORMATS:
        raise ParameterError("--format", fmt, f"one of {', '.join(FORMATS)}")
    if out is not None:
        path = result.write(out, None if fmt == "table" else fmt)
        typer.echo(f"wrote {len(result.rows)} row(s) to {path}", err=True)
        return
    if fmt == "parquet":
        raise ParameterError("--format", fmt, "used with --out FILE (parquet is binary)")
    if fmt == "table":
        from rich.console import Console

        Console(width=max(Console().width, 160)).print(result.rich_table())
        return
    sys.stdout.write(result.render(fmt).decode())
