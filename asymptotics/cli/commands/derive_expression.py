"""``asymptotics derive --expr EXPR --dims DIMS --ratios RATIOS [--at VALUES] [--latex] [--format F]``:
the equations of a normalised trace derived from the expression itself (automatic linear pencil),
and its value (``docs/expressions.md``).

:func:`run_derive_expression` does the work and is what ``asymptotics derive`` calls when
``--expr`` is given; :func:`derive_expression_command` is the same with typer options (for a
standalone command, e.g. in tests). ``--at`` takes ``name=values`` items separated by ``;`` or
``,`` (each value in the grid syntax of the CLI: ``0.1``, ``1,2,4``, ``0:1:5``,
``log:1e-3:1:7``, or complex numbers ``0.5+0.1j``); several grid parameters form a Cartesian
grid with one row per point.

Example::

    asymptotics derive --expr "tr(inv(X.T@X/d + lam*I))" --dims "X:n,d" --ratios "n/d=2" \\
        --at "lam=log:1e-2:1:3" --format json
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "run_derive_expression",
    "derive_expression_command",
    "parse_at",
    "register",
    "register_standalone",
]

_ITEM_SPLIT = re.compile(r"[;,]\s*(?=[A-Za-z]\w*\s*=)")


def _values(name: str, text: str) -> list:
    from ...errors import ParameterError
    from ...grids import parse_values

    try:
        return parse_values(name, text)
    except ParameterError:
        out = []
        for part in text.split(","):
            part = part.strip().replace(" ", "")
            try:
                v = complex(part)
            except ValueError:
                raise ParameterError(
                    name,
                    text,
                    "a number, a list 'a,b,c', a range 'start:stop:num' or 'log:start:stop:num', or complex numbers like 0.5+0.1j",
                ) from None
            if not (v.real == v.real and v.imag == v.imag and abs(v) != float("inf")):
                raise ParameterError(name, text, "finite") from None
            out.append(v if v.imag != 0 else v.real)
        return out


def parse_at(at) -> dict:
    """``"lam=0.1; phi=1,2"`` (or a list of ``name=values`` strings) → {name: [values]}."""
    from ...errors import ParameterError

    if at is None:
        return {}
    items = []
    for chunk in [at] if isinstance(at, str) else list(at):
        items += [s for s in _ITEM_SPLIT.split(str(chunk)) if s.strip()]
    out = {}
    for item in items:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier() or not text.strip():
            raise ParameterError("--at", item.strip(), "name=values items, e.g. 'lam=0.1; phi=1,2'")
        if name in out:
            raise ParameterError("--at", name, "each parameter once")
        out[name] = _values(name, text.strip())
    return out


#: The names an expression uses for the constants of --student.
ACTIVATION_CONSTANTS = ("mu0", "mu1", "mu2", "mu2_sq")


def _derive_naming_options(derive, expr: str, *, dims, ratios, entries, **kwargs):
    """``derive(expr, …)`` with each error naming the option at fault: the expression's text is
    checked first (a hostile or malformed ``--expr`` is refused before its dimensions are looked
    at), then the declarations (``--dims``, ``--ratios``, ``--entries``), then the expression
    against them (``--expr``). The error stays an :class:`~asymptotics.errors.ExpressionError`,
    worded as a ParameterError (``invalid --expr='…': …``)."""
    from ...errors import ExpressionError, ParameterError
    from ...symbolic.expressions.declarations import declare
    from ...symbolic.expressions.parser import check_text

    what = "a normalised-trace expression in the declared matrices (docs/expressions.md)"
    try:
        tree = check_text(expr)
    except ExpressionError as exc:
        raise ExpressionError(str(ParameterError("--expr", expr, what, str(exc)))) from None
    student = kwargs.pop("student", None)
    if student is not None:
        import ast

        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if not names & set(ACTIVATION_CONSTANTS):
            raise ParameterError("--student", student, f"omitted when --expr uses none of the activation's "
                                 f"constants {', '.join(ACTIVATION_CONSTANTS)}")
    try:
        declare(dims, ratios, entries)
    except ExpressionError as exc:
        msg = str(exc)
        name = "--ratios" if "ratio" in msg else "--entries" if "entries" in msg else "--dims"
        value = {"--ratios": ratios, "--entries": entries}.get(name, dims)
        raise ExpressionError(str(ParameterError(name, value, "valid declarations (docs/expressions.md)", msg))) from None
    try:
        return derive(expr, dims=dims, ratios=ratios, entries=entries, **kwargs)
    except ExpressionError as exc:
        raise ExpressionError(str(ParameterError("--expr", expr, what, str(exc)))) from None


def run_derive_expression(
    expr: str,
    dims: str,
    ratios: str | None = None,
    at=None,
    *,
    latex: bool = False,
    fmt: str = "table",
    out: Path | None = None,
    student: str | None = None,
    center: bool = True,
    entries: str = "unit",
    branch: str = "scale",
) -> None:
    """Derive ``expr`` and print its equations; with ``at``, also its value at each grid point
    (rows ``{parameters…, value | value_re, value_im, status, iterations, residual}``; with
    ``fmt="json"`` only the result ``{"meta": {...}, "rows": [...]}`` is printed, the equations in
    ``meta``)."""
    from ...errors import ParameterError
    from ...results import FORMATS, Result
    from ...symbolic.expressions import derive
    from ..common import check_output, emit

    if fmt not in FORMATS:
        raise ParameterError("--format", fmt, f"one of {', '.join(FORMATS)}")
    if out is not None:
        check_output(fmt, out)  # before the derivation: a bad --out is refused at once
    values = parse_at(at)
    constants, act_meta = _student_constants(student, center)
    t0 = time.perf_counter()
    D = _derive_naming_options(
        derive,
        expr,
        student=student,
        dims=dims,
        ratios=ratios,
        entries=entries,
        params=(list(values) if values else None),
        constants=constants,
    )
    t_derive = time.perf_counter() - t0
    if fmt == "table" or not values and fmt != "json":
        if latex:  # rows of at most 100 characters (asymptotics.symbolic.latex_lines)
            from ...symbolic.latex_lines import break_latex

            typer.echo(break_latex(D.latex()))
        else:
            typer.echo(D.pretty())
    meta = _derivation_meta(D, branch, t_derive, latex)
    if act_meta is not None:
        meta["activations"] = {"student": act_meta}
        meta["constants"] = constants
    if not values:
        if fmt == "json":
            typer.echo(Result([], meta).to_json())
        return
    rows = _evaluate(D, values, branch, meta)
    emit(Result(rows, meta), fmt, out)


def _student_constants(student: str | None, center: bool) -> tuple[dict, dict | None]:
    """The Gaussian constants ``mu0``, ``mu1``, ``mu2``, ``mu2_sq`` of ``--student`` (given to the
    expression) and the activation's description for ``meta``; ``({}, None)`` without one."""
    if student is None:
        return {}, None
    from ...activations import resolve_activation
    from ...symbolic.expressions import activation_constants

    act = resolve_activation(student, center=center, name="--student")
    constants = activation_constants(student, center=center, name="--student")
    return constants, act.as_dict()


def _derivation_meta(D, branch: str, t_derive: float, latex: bool) -> dict:
    """``meta`` of the result: the expression, its declarations, pencil, unknowns, equations and
    value, the branch and the derivation's time (and with ``latex`` the LaTeX)."""
    from ...results import base_meta

    meta = base_meta(
        command="derive --expr",
        expression=D.expression,
        declarations=D.declarations.as_dict(),
        pencil={
            "blocks": D.pencil.blocks,
            "sizes": [str(s) for s in D.pencil.sizes],
            "raw_blocks": list(D.raw_blocks),
        },
        unknowns=[str(u) for u in D.unknowns],
        equations=[str(e.lhs) + " = 0" for e in D.equations],
        value=str(D.value_expression),
        branch="continuation in the Gaussian scale t from the free limit t = 0 (g = q0^-1)"
        + (", warm starts along the grid" if branch == "grid" else ", each point independently"),
        timings={"derive_s": t_derive},
    )
    if latex:
        meta["latex"] = D.latex()
    return meta


def _evaluate(D, values: dict, branch: str, meta: dict) -> list[dict]:
    """The value at every point of the ``--at`` grid (a failed point: value null, its status, and
    a warning line on stderr); the solver and the timings go into ``meta``. The values come from
    the solvers layer (:func:`asymptotics.solvers.expression_values.evaluate_grid`)."""
    from ...solvers.expression_values import compiled_solver, evaluate_grid

    t0 = time.perf_counter()
    if branch != "python":
        compiled_solver(D)  # lower and load the compiled module (timed apart from the solves)
    t_compile = time.perf_counter() - t0
    t0 = time.perf_counter()
    grid = evaluate_grid(D, values, branch=branch, on_failure="return")
    t_eval = time.perf_counter() - t0
    rows = grid.rows()
    failed = 0
    for r in rows:
        if r["status"] != "converged":
            failed += 1
            for k in ("value", "value_re", "value_im"):
                if k in r:
                    r[k] = None
    meta["solver"] = {"method": grid.method, "atol": 1e-13, "rtol": 1e-13, "failed_points": failed}
    meta["timings"].update(
        compile_s=t_compile, evaluate_s=t_eval, us_per_point=1e6 * t_eval / max(1, len(rows))
    )
    if failed:
        typer.echo(
            f"warning: {failed} of {len(rows)} point(s) did not converge (value null, see status)", err=True
        )
    return rows


def derive_expression_command(
    expr: Annotated[str, typer.Option("--expr", help="A normalised trace, e.g. 'tr(inv(X.T@X/d + lam*I))'.")],
    dims: Annotated[
        str, typer.Option("--dims", help="Shapes of the Gaussian matrices, e.g. 'X:n,d; W:d,N'.")
    ],
    ratios: Annotated[
        str | None, typer.Option("--ratios", help="Dimension ratios, e.g. 'n/d=2, N/d=1.5'.")
    ] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="Parameter values or grids, e.g. 'lam=0.1; z=0.5+0.1j'.")
    ] = None,
    latex: Annotated[bool, typer.Option("--latex", help="Print LaTeX (pencil and equations).")] = False,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="Output format: table, csv, json or parquet.")
    ] = "table",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the values to this file (atomically).")
    ] = None,
    student: Annotated[
        str | None,
        typer.Option("--student", help="Activation whose constants mu0, mu1, mu2 the expression uses."),
    ] = None,
    center: Annotated[bool, typer.Option("--center/--no-center", help="Centre the activation.")] = True,
    entries: Annotated[
        str, typer.Option("--entries", help="Gaussian entries: unit (N(0,1)) or scaled (N(0,1/L)).")
    ] = "unit",
    branch: Annotated[
        str, typer.Option("--branch", help="scale (each point from t = 0) or grid (warm starts).")
    ] = "scale",
) -> None:
    """Derive the equations of a matrix expression and evaluate it (automatic linear pencil)."""
    run_derive_expression(expr, dims, ratios, at, latex=latex, fmt=fmt, out=out, student=student, center=center,
                          entries=entries, branch=branch)


def register_standalone(app: typer.Typer, name: str = "derive-expression") -> None:
    """Register :func:`derive_expression_command` as its own command of ``app``."""
    app.command(name)(derive_expression_command)


def register(app: typer.Typer) -> None:
    """Nothing: the expression path is part of ``asymptotics derive`` (which calls
    :func:`run_derive_expression` when ``--expr`` is given)."""
