"""``asymptotics activation NAME|EXPR``: the Gaussian constants of an activation."""

from __future__ import annotations

from typing import Annotated

import typer

from ...errors import ParameterError
from ...results import Result, base_meta, record
from ..common import CenterOpt, FormatOpt, OutOpt, check_output, emit, resolve_activation


def activation_command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="A built-in name or an expression in x, e.g. 'tanh(x) + 0.1*x**3'.")],
    center: CenterOpt = True,
    method: Annotated[str, typer.Option(metavar="METHOD", help="auto (closed forms first), float64 or mpmath.")] = "auto",
    fmt: FormatOpt = "table",
    out: OutOpt = None,
) -> None:
    """Print μ0, μ1, μ2, E σ², E σ'², Var σ' and the Hermite coefficients c_0..c_12."""
    check_output(fmt, out)
    if method not in ("auto", "float64", "mpmath"):
        raise ParameterError("--method", method, "one of auto, float64, mpmath")
    act = resolve_activation(spec, center, "SPEC")
    c = act.constants(method)
    row = {"activation": act.name, "expression": str(act.raw), **record(c)}
    if fmt == "table" and out is None:
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"Gaussian constants of {act.name}{' (centred)' if center else ''}, z ~ N(0,1)")
        t.add_column("quantity")
        t.add_column("value", justify="right")
        for k, v in row.items():
            if k == "hermite":
                for i, ck in enumerate(v):
                    t.add_row(f"c_{i}", f"{ck:.15g}")
            else:
                t.add_row(k, f"{v:.15g}" if isinstance(v, float) else str(v))
        Console().print(t)
        return
    meta = base_meta(command="activation", offset=act.offset, kinks=list(act.kinks))
    emit(Result(rows=[row], meta=meta), fmt, out)


def register(app: typer.Typer) -> None:
    app.command("activation")(activation_command)
