"""``asymptotics theory …``: theory curves; subcommands live in :mod:`asymptotics.cli.theory_commands`."""

from __future__ import annotations

import importlib
import pkgutil

import typer

theory_app = typer.Typer(help="Theory predictions (d → ∞ limits) on parameter grids.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    from .. import theory_commands

    for info in sorted(pkgutil.iter_modules(theory_commands.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{theory_commands.__name__}.{info.name}").register(theory_app)
    if theory_app.registered_commands or theory_app.registered_groups:
        app.add_typer(theory_app, name="theory")
