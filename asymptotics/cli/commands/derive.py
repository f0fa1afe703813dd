"""``asymptotics derive SYSTEM [--latex]``: print the self-consistent equations the symbolic engine
derives from a pencil (``asymptotics derive --list`` lists the systems).

``asymptotics derive --expr EXPR --dims ... [--ratios ...] [--at ...]`` builds the pencil itself
from a matrix expression (:mod:`asymptotics.symbolic.expressions`, docs/expressions.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def derive_command(
    ctx: typer.Context,
    system: Annotated[
        str | None, typer.Argument(help="A registered system (see --list), e.g. rf_ridge_traces.")
    ] = None,
    latex: Annotated[
        bool, typer.Option("--latex", help="Print LaTeX (pencil and aligned equations).")
    ] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the registered systems and exit.")] = False,
    pencil: Annotated[
        bool, typer.Option("--pencil/--no-pencil", help="Also print the pencil it is derived from.")
    ] = True,
    full: Annotated[
        bool, typer.Option("--full", help="Also print the eliminated unknowns and derivation notes.")
    ] = False,
    code: Annotated[
        bool, typer.Option("--code", help="Print the path of the generated compiled module (lowers it).")
    ] = False,
    expr: Annotated[
        str | None,
        typer.Option("--expr", help="Instead of SYSTEM: a normalised trace, e.g. 'tr(inv(W@W.T/d - z*I))'."),
    ] = None,
    dims: Annotated[
        str | None, typer.Option("--dims", help="With --expr: shapes of the Gaussian matrices, e.g. 'X:n,d; W:d,N'.")
    ] = None,
    ratios: Annotated[
        str | None, typer.Option("--ratios", help="With --expr: dimension ratios, e.g. 'n/d=2, N/d=1.5'.")
    ] = None,
    at: Annotated[
        str | None,
        typer.Option("--at", help="With --expr: parameter values or grids, e.g. 'lam=0.1' or 'z=0.5+0.1j'."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="With --expr: table, csv, json or parquet.")
    ] = "table",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="With --expr: write the values to this file (atomically).")
    ] = None,
    student: Annotated[
        str | None,
        typer.Option("--student", help="With --expr: activation whose constants mu0, mu1, mu2 the expression uses."),
    ] = None,
    center: Annotated[bool, typer.Option("--center/--no-center", help="Centre the activation.")] = True,
    entries: Annotated[
        str, typer.Option("--entries", help="With --expr: Gaussian entries unit (N(0,1)) or scaled (N(0,1/L)).")
    ] = "unit",
    branch: Annotated[
        str, typer.Option("--branch", help="With --expr: scale (each point from t = 0) or grid (warm starts).")
    ] = "scale",
) -> None:
    """Print the equations of a system derived by the matrix Dyson rule (docs/engine.md), or of a
    matrix expression through its automatic linear pencil (--expr, docs/expressions.md)."""
    _refuse_unused_options(ctx, list_, expr, at, student)
    if expr is not None:
        return _derive_expression(system, expr, dims, ratios, at, latex=latex, fmt=fmt, out=out, student=student,
                                  center=center, entries=entries, branch=branch)
    from ...errors import ParameterError
    from ...symbolic import get_system
    from ...symbolic.registry import get_entry

    if list_ or system is None:
        _list_systems()
        if system is None and not list_:
            raise ParameterError("system", None, "a registered system name (see asymptotics derive --list)")
        return
    entry = get_entry(system)
    S = get_system(system)
    P = entry.pencil() if (pencil and entry.pencil is not None) else None
    if latex:
        _print_latex(S, entry, P, full)
    else:
        _print_text(S, entry, P, full)
    if code:
        from ...codegen import lower

        typer.echo(f"\ngenerated module: {lower(system).path}", err=False)


def _derive_expression(system, expr, dims, ratios, at, **options) -> None:
    """The --expr mode (:func:`~.derive_expression.run_derive_expression`): no SYSTEM, --dims given."""
    from ...errors import ParameterError
    from .derive_expression import run_derive_expression

    if system is not None:
        raise ParameterError("system", system, "absent when --expr is given (one or the other)")
    if dims is None:
        raise ParameterError("--dims", None, "the shapes of the matrices in --expr, e.g. 'X:n,d; W:d,N'")
    return run_derive_expression(expr, dims, ratios, at, **options)


def _list_systems() -> None:
    """One line per registered system: its name and description."""
    from ...symbolic import list_systems

    width = max(len(k) for k in list_systems())
    for k, v in list_systems().items():
        typer.echo(f"{k:<{width}}  {v}")


def _print_latex(S, entry, P, full: bool) -> None:
    """The system (and its pencil ``P``, and with ``full`` its eliminated unknowns) in LaTeX, rows
    of at most 100 characters broken at top-level + and − (:mod:`asymptotics.symbolic.latex_lines`)."""
    import sympy as sp

    from ...symbolic import LATEX_NAMES
    from ...symbolic.latex_lines import break_latex

    typer.echo(break_latex(f"% {S.name}: {entry.description}"))
    if P is not None:
        typer.echo(f"% pencil {P.name}: block sizes {', '.join(map(str, P.sizes))} (× L)")
        typer.echo(P.latex(LATEX_NAMES))
    typer.echo(break_latex(S.latex(symbol_names=LATEX_NAMES)))
    if full and S.eliminated:
        names = S.latex_names(LATEX_NAMES)
        lines = [
            f"{sp.latex(k, symbol_names=names)} &= {sp.latex(v, symbol_names=names)}"
            for k, v in S.eliminated.items()
        ]
        typer.echo(break_latex(
            "% eliminated unknowns\n\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
        ))


def _print_text(S, entry, P, full: bool) -> None:
    """The system (and its pencil ``P``, and with ``full`` its eliminated unknowns and notes) as text."""
    import sympy as sp

    typer.echo(f"{S.name}: {entry.description}")
    if P is not None:
        typer.echo(f"\npencil {P.name}: blocks of relative sizes ({', '.join(map(str, P.sizes))}) × L")
        typer.echo(sp.pretty(sp.Matrix(P.q0), use_unicode=True) + "  (deterministic part q0)")
        for g in P.gaussians:
            typer.echo(f"  block ({g.row},{g.col}): {g.coeff}·{g.name}{'ᵀ' if g.transpose else ''}")
    typer.echo("")
    typer.echo(S.pretty())
    if full:
        for k, v in S.eliminated.items():
            typer.echo(f"\n{k} = " + sp.pretty(v, use_unicode=True))
        for n in S.notes:
            typer.echo(f"note: {n}")

_EXPR_ONLY = ("dims", "ratios", "at", "fmt", "out", "student", "center", "entries", "branch")


def _refuse_unused_options(ctx, list_: bool, expr, at, student) -> None:
    """The options of one mode (--list, SYSTEM, --expr) given in another are refused, never ignored."""
    from ..common import refuse_given

    if list_:
        refuse_given(ctx, ("system", "latex", "pencil", "full", "code", "expr", *_EXPR_ONLY), "--list",
                     "it lists the registered systems")
    elif expr is None:
        refuse_given(ctx, _EXPR_ONLY, "SYSTEM", "it is an option of --expr")
    else:
        refuse_given(ctx, ("pencil", "full", "code"), "--expr", "it is an option of a registered SYSTEM")
        if at is None:
            refuse_given(ctx, ("branch",), "no --at", "it steers the evaluation at the --at points")
        if student is None:
            refuse_given(ctx, ("center",), "no --student", "it centres the --student activation")


def register(app: typer.Typer) -> None:
    app.command("derive")(derive_command)
