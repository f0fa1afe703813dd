"""The ``asymptotics`` command-line interface (typer)."""
