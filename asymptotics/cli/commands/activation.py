"""``asymptotics activation NAME|EXPR``: the Gaussian constants of an activation (a thin wrapper over
``asy.activation``, :mod:`asymptotics.api.activation_constants`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..api_call import compute
from ..common import emit
from ..options import command, opt, param


def _activation(**params):
    from ...api.activation_constants import activation

    act = activation(params.pop("spec"), **params)
    act.rows  # noqa: B018 - the constants are computed here, inside the command's error handling
    return act.result


@command(
    param(
        "spec",
        Annotated[
            str,
            typer.Argument(
                metavar="SPEC", help="A built-in name or an expression in x, e.g. 'tanh(x) + 0.1*x**3'."
            ),
        ],
    ),
    opt("center", True),
    param(
        "method",
        Annotated[str, typer.Option(metavar="METHOD", help="auto (closed forms first), float64 or mpmath.")],
        "auto",
    ),
    opt("fmt"),
    opt("out"),
)
def activation_command(spec: str, center: bool, method: str, fmt: str, out) -> None:
    """Print μ0, μ1, μ2, E σ², E σ'², Var σ' and the Hermite coefficients c_0..c_12."""
    result = compute(_activation, fmt, out, spec=spec, center=center, method=method)
    if fmt == "table" and out is None:
        from rich.console import Console
        from rich.table import Table

        row = result.rows[0]
        t = Table(
            title=f"Gaussian constants of {row['activation']}{' (centred)' if center else ''}, z ~ N(0,1)"
        )
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
    emit(result, fmt, out)


def register(app: typer.Typer) -> None:
    app.command("activation")(activation_command)
