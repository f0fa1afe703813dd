"""The body of every command that wraps the Python API (:mod:`asymptotics.api`).

A command passes its option strings to the API function of the same name; the API parses the
grids, checks every value and computes, spelling parameters as options (``--route``) inside
:func:`~asymptotics.api.errors.cli_spelling`. So the command line and the API share one
implementation and cannot diverge.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import typer

from ..errors import DegenerateWarning
from ..results import Result
from .common import check_output, emit

__all__ = ["compute", "run_api"]


def compute(
    fn: Callable[..., Result],
    fmt: str,
    out: Path | None,
    notes: str = "warnings",
    label: str = "warning",
    **params,
) -> Result:
    """Refuse a bad ``--format``/``--out`` first, then ``fn(**params)`` with option spelling; the
    DegenerateWarnings it records in ``meta[notes]`` are printed as ``label: …`` lines on stderr.
    ``keep_going`` (the ``--keep-going`` flag), when given, is passed as ``on_failure``."""
    from ..api.errors import cli_spelling

    check_output(fmt, out)
    if "keep_going" in params:
        params["on_failure"] = "mark" if params.pop("keep_going") else "raise"
    with cli_spelling(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        result = fn(**params)
    for m in result.meta.get(notes, ()) or ():
        typer.echo(f"{label}: {m}", err=True)
    return result


def run_api(
    fn: Callable[..., Result],
    fmt: str,
    out: Path | None,
    columns: str | None = None,
    show_all: bool = False,
    notes: str = "warnings",
    label: str = "warning",
    **params,
) -> Result:
    """:func:`compute`, then print or write the result (``--format``, ``--out``, ``--columns``, ``--all``)."""
    result = compute(fn, fmt, out, notes, label, **params)
    emit(result, fmt, out, columns, show_all)
    return result
