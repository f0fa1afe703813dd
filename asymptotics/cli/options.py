"""The CLI option registry: one definition per option that several commands share.

Each shared option (``--student``, ``--teacher``, ``--center``, the grids ``--psi1 --psi2 --lam
--eta --noise``, ``--keep-going``, ``--seed``, ``--max-memory`` and the output options ``--format
--out --columns --all``) is an :class:`OptionSpec` in :data:`OPTIONS`: its flags, type, metavar
and help text. A command declares its options with :func:`command`, naming registry entries (with
the command's default, and a command-specific help text where it has one) beside its own
:func:`param` entries, in the order ``--help`` lists them::

    @command(opt("student", "tanh"), opt("psi1", "2"), *OUTPUT)
    def alignment_command(**options): ...

Typer reads the signature built here (``__signature__``), so the options, their order, defaults
and help are exactly as if written in the function's parameter list. Nothing here imports the
theory: the commands import it when they run.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = [
    "GRID_HELP",
    "OptionSpec",
    "OPTIONS",
    "OUTPUT",
    "StudentOpt",
    "TeacherOpt",
    "CenterOpt",
    "opt",
    "param",
    "grid",
    "command",
    "grid_option",
]

GRID_HELP = "a number, a list 1,2,4, a range start:stop:num or log:start:stop:num"
_ACT_HELP = "a built-in (erf, tanh, relu, softplus, sigmoid, sin, linear, gelu, silu, he2, he3, quadratic) or an expression in x"
_UNSET: Any = object()


@dataclass(frozen=True)
class OptionSpec:
    """One command-line option: Python parameter ``name``, ``flags``, value ``type``, ``help``,
    ``metavar`` (None: typer's, then the parameter name in capitals) and the usual ``default``."""

    name: str
    flags: tuple[str, ...]
    type: Any
    help: str
    metavar: str | None = None
    default: Any = None

    def annotation(self):
        """``Annotated[type, typer.Option(...)]``, for a parameter list written out."""
        return Annotated[self.type, typer.Option(*self.flags, metavar=self.metavar, help=self.help)]

    def parameter(self, default: Any = _UNSET) -> inspect.Parameter:
        """The keyword parameter typer reads (no default: a required option)."""
        default = self.default if default is _UNSET else default
        return inspect.Parameter(
            self.name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=self.annotation(),
            default=inspect.Parameter.empty if default is ... else default,
        )


def _grid_spec(name: str, text: str, default: str, metavar: str | None = "GRID") -> OptionSpec:
    return OptionSpec(name, (f"--{name}",), str, f"{text} ({GRID_HELP}).", metavar, default)


#: Every shared option, under its Python parameter name.
OPTIONS: dict[str, OptionSpec] = {
    s.name: s
    for s in (
        OptionSpec("student", ("--student",), str, f"Student activation σ: {_ACT_HELP}.", "ACT", "tanh"),
        OptionSpec("teacher", ("--teacher",), str, f"Teacher activation σ*: {_ACT_HELP}.", "ACT", "tanh"),
        OptionSpec(
            "center",
            ("--center/--no-center",),
            bool,
            "Centre σ and σ* (σ − E σ(z)); the theory assumes centred functions.",
            None,
            True,
        ),
        _grid_spec("psi1", "ψ1 = n/d, samples per dimension", "2"),
        _grid_spec("psi2", "ψ2 = N/d, width per dimension", "1.5"),
        _grid_spec("eta", "learning rate η of the first step (η = Θ(1))", "1"),
        _grid_spec("lam", "ridge penalty λ of (1/n)‖y − Φa‖² + (λ/N)‖a‖²", "1e-3"),
        _grid_spec("noise", "σ_ε, standard deviation of the label noise", "0.1"),
        OptionSpec(
            "keep_going",
            ("--keep-going",),
            bool,
            "write failed points as rows with their status (numbers null) instead of stopping.",
            None,
            False,
        ),
        OptionSpec("seed", ("--seed",), int, "root seed of every numpy SeedSequence.", None, 0),
        OptionSpec(
            "max_memory",
            ("--max-memory",),
            str | None,
            "Memory the run may use, e.g. 8GiB (default: 80% of the memory available now); a run estimated "
            "above it is refused before it starts.",
            "SIZE",
            None,
        ),
        OptionSpec(
            "fmt", ("--format", "-f"), str, "Output format: table, csv, json or parquet.", "FORMAT", "table"
        ),
        OptionSpec(
            "out",
            ("--out", "-o"),
            Path | None,
            "Write to this file (atomically) instead of stdout.",
            "FILE",
            None,
        ),
        OptionSpec(
            "columns",
            ("--columns",),
            str | None,
            "Table columns to show, in order (a name x with x_mean/x_se shows x ± s.e.).",
            "A,B,C",
            None,
        ),
        OptionSpec(
            "show_all",
            ("--all",),
            bool,
            "Show every column in the table (csv/json/parquet always have all).",
            None,
            False,
        ),
    )
}


def opt(
    key: str,
    default: Any = _UNSET,
    *,
    help: str | None = None,
    metavar: Any = _UNSET,
    name: str | None = None,
) -> inspect.Parameter:
    """The registry option ``key`` with this command's ``default`` (``...``: required) and, where
    the command words it its own way, its ``help`` (whole text), ``metavar`` or parameter ``name``."""
    spec = OPTIONS[key]
    changes = {k: v for k, v in (("help", help), ("name", name)) if v is not None}
    if metavar is not _UNSET:
        changes["metavar"] = metavar
    return (replace(spec, **changes) if changes else spec).parameter(default)


def grid(
    key: str, default: Any = _UNSET, text: str | None = None, metavar: Any = _UNSET
) -> inspect.Parameter:
    """A grid option of the registry (``--psi1`` …) whose help is ``text`` followed by the grid syntax."""
    return opt(key, default, help=None if text is None else f"{text} ({GRID_HELP}).", metavar=metavar)


def param(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    """A command's own option or argument (``annotation``: ``Annotated[type, typer.Option(...)]``)."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def grid_option(default: str, help_text: str, *names: str):
    """A typer option holding a grid string for one parameter (for a parameter list written out)."""
    return typer.Option(default, *names, metavar="GRID", help=f"{help_text} ({GRID_HELP}).")


#: Registry options as annotations, for a parameter list written out (``student: StudentOpt = "tanh"``).
StudentOpt, TeacherOpt, CenterOpt = (OPTIONS[k].annotation() for k in ("student", "teacher", "center"))

#: The output options of a command that prints a table: --format, --out, --columns, --all.
OUTPUT = (opt("fmt"), opt("out"), opt("columns"), opt("show_all"))


def command(*parameters: inspect.Parameter):
    """Give a command function the signature typer reads: its own written-out parameters (those not
    named in ``parameters``) first, then ``parameters`` in order (from :func:`opt`, :func:`grid`,
    :func:`param`), which the function takes by name or in ``**options``."""

    def decorate(fn):
        names = {p.name for p in parameters}
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in inspect.signature(fn, eval_str=True).parameters.values()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in names
        ]
        fn.__signature__ = inspect.Signature(own + list(parameters))
        return fn

    return decorate
