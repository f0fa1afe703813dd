"""Entry point of the ``asymptotics`` command.

Commands are discovered: every module in :mod:`asymptotics.cli.commands` exposes
``register(app)``. Errors raised on purpose by the library (bad parameters, non-convergence) are
printed as one clear line and exit with status 2, never as a traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from .._version import __version__
from ..errors import AsymptoticsError

app = typer.Typer(
    name="asymptotics",
    help="Exact high-dimensional theory of feature learning after one gradient step, and a simulator to check it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool):
    if value:
        typer.echo(f"asymptotics {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version."),
):
    """asymptotics: theory curves, simulations and their comparison."""


def _register_all() -> None:
    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        mod.register(app)


_register_all()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; library errors become one line on stderr and exit status 2."""
    try:
        rv = app(args=argv, standalone_mode=False)
    except AsymptoticsError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 130
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return exc.exit_code
        raise
    # with standalone_mode=False click returns the code of a typer.Exit instead of raising it
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
