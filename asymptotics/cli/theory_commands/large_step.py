"""``asymptotics theory tau-star`` and ``asymptotics theory bounds``: the large step η = Θ(√N).

* ``tau-star``: τ* = inf_κ E_ξ1[(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²] and κ* (Ba et al. eq. 5.1), on a grid of
  input scales σ(a x), σ*(b x) (``--student-scale``, ``--teacher-scale``), with the kernel lower bound
  μ2*² and the verdict 10τ* < μ2*². JSON keys: ``tau_star``, ``kappa_star`` (null when the infimum is a
  limit κ → ±∞, see ``status`` and ``kappa_limit``), ``kernel_bound``, ``beats_every_kernel``.
* ``bounds``: the same plus the paper's upper bound 10τ* + C(√τ*√(1/ψ1) + 1/ψ1) on a ``--psi1`` grid;
  ``--constant C`` (the paper gives no C; the default 1 is arbitrary). JSON keys: ``tau_star``,
  ``kappa_star``, ``kernel_bound``, ``upper_bound``, ``psi1_crossover``.

Examples::

    asymptotics theory tau-star --student tanh --teacher tanh --format json
    asymptotics theory tau-star --student tanh --teacher tanh --student-scale 0.5:2:4 --teacher-scale 1,2
    asymptotics theory bounds --student erf --teacher erf --psi1 log:1:1000:4 --constant 1
"""

from __future__ import annotations

import math
import warnings
from typing import Annotated

import numpy as np
import typer

from ...errors import DegenerateWarning, ParameterError
from ...grids import cartesian, parse_values
from ...params import check_in_range, check_positive
from ...results import Columns, Result, base_meta, record
from ..common import (
    AllOpt,
    CenterOpt,
    ColumnsOpt,
    FormatOpt,
    OutOpt,
    StudentOpt,
    TeacherOpt,
    activations_meta,
    check_output,
    emit,
    grid_option,
    resolve_activation,
)

#: Supported input scales a, b of σ(a x), σ*(b x): the quadrature's cost grows with the scale.
SCALE_RANGE = (1e-3, 1e3)
#: Most (student scale, teacher scale) points, and (scale, ψ1) points of ``bounds``.
MAX_POINTS = 100_000
TAU_TABLE = Columns(("student_scale", "teacher_scale"),
                    ("tau_star", "kappa_star", "infimum_at", "status", "error", "kernel_bound", "beats_every_kernel"))
BOUNDS_TABLE = Columns(("student_scale", "teacher_scale", "psi1"),
                       ("tau_star", "kappa_star", "kernel_bound", "upper_bound", "beats_every_kernel",
                        "psi1_crossover"))
FitConstantOpt = Annotated[
    bool,
    typer.Option(
        "--fit-constant/--no-fit-constant",
        help="Let the oracle add the best constant (τ* = inf_κ Var(σ* − E_ξ2σ)); the paper's definition has none.",
    ),
]
MethodOpt = Annotated[
    str,
    typer.Option(
        "--method",
        metavar="METHOD",
        help="auto (closed form if any, else compiled), closed, compiled or mpmath (one point at a time).",
    ),
]
DpsOpt = Annotated[int, typer.Option("--dps", help="Decimal digits of the mpmath path.")]


def _scales(name: str, text: str) -> list[float]:
    lo, hi = SCALE_RANGE
    return [check_in_range(name, check_positive(name, v), lo, hi) for v in parse_values(name, text)]


def _tau_rows(student, teacher, center, fit_constant, a_text, b_text, method, dps):
    a = _scales("student_scale", a_text)
    b = _scales("teacher_scale", b_text)
    cartesian(max_points=MAX_POINTS, student_scale=a, teacher_scale=b)  # size check only
    if method not in ("auto", "closed", "compiled", "mpmath"):
        raise ParameterError("--method", method, "one of auto, closed, compiled, mpmath")
    if not 10 <= dps <= 200:
        raise ParameterError("--dps", dps, "an integer in [10, 200]")
    from ...theory.large_step import kernel_lower_bound, tau_star, tau_star_grid

    s = resolve_activation(student, False, "student")
    t = resolve_activation(teacher, False, "teacher")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        if method == "compiled" or (method == "auto" and _no_closed_form(s, t)):
            grid = tau_star_grid(
                s,
                t,
                student_scale=np.array(a)[:, None],
                teacher_scale=np.array(b)[None, :],
                center=center,
                fit_constant=fit_constant,
            )
            results = grid.results()
        else:
            results = [
                tau_star(
                    s,
                    t,
                    student_scale=ai,
                    teacher_scale=bi,
                    center=center,
                    fit_constant=fit_constant,
                    method=method,
                    dps=dps,
                )
                for ai in a
                for bi in b
            ]
    kb = {bi: kernel_lower_bound(t, teacher_scale=bi) for bi in b}
    rows = []
    for r in results:
        row = record(r)
        row["kernel_bound"] = kb[r.teacher_scale]
        row["beats_every_kernel"] = bool(10.0 * r.tau_star < row["kernel_bound"])
        rows.append(row)
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)})
    return s, t, results, rows, notes


def _no_closed_form(s, t) -> bool:
    return not ((s.builtin == "erf" and t.builtin == "erf") or s.builtin == "linear")


def tau_star_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    fit_constant: FitConstantOpt = False,
    student_scale: str = grid_option("1", "Input scale a of the student, σ(a x)", "--student-scale"),
    teacher_scale: str = grid_option("1", "Input scale b of the teacher, σ*(b x)", "--teacher-scale"),
    method: MethodOpt = "auto",
    dps: DpsOpt = 30,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """τ* and κ* (Ba et al. eq. 5.1), the kernel bound μ2*² and the verdict 10τ* < μ2*²."""
    check_output(fmt, out)
    s, t, _, rows, notes = _tau_rows(
        student, teacher, center, fit_constant, student_scale, teacher_scale, method, dps
    )
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    meta = base_meta(
        command="theory tau-star",
        definition="tau* = inf_kappa E[(sigma*(xi1) - E_xi2 sigma(kappa xi1 + xi2))^2], Ba et al. (2022) eq. 5.1",
        center=center,
        fit_constant=fit_constant,
        method=method,
        notes=notes,
        formulas="docs/large-step.md",
        **activations_meta(
            student=resolve_activation(student, center, "student"),
            teacher=resolve_activation(teacher, center, "teacher"),
        ),
    )
    emit(Result(rows=rows, meta=meta, columns=TAU_TABLE), fmt, out, columns, show_all)


def bounds_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    fit_constant: FitConstantOpt = False,
    psi1: str = grid_option("10,100,1000", "psi1 = n/d for the upper bound", "--psi1"),
    constant: Annotated[
        float,
        typer.Option(
            "--constant", help="The constant C of the upper bound (not given by the paper; 1 is arbitrary)."
        ),
    ] = 1.0,
    student_scale: str = grid_option("1", "Input scale a of the student, σ(a x)", "--student-scale"),
    teacher_scale: str = grid_option("1", "Input scale b of the teacher, σ*(b x)", "--teacher-scale"),
    method: MethodOpt = "auto",
    dps: DpsOpt = 30,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Kernel lower bound μ2*², upper bound 10τ* + C(√τ*√(d/n) + d/n) on a ψ1 grid, and the verdict."""
    check_output(fmt, out)
    psi1_vals = [check_positive("psi1", v) for v in parse_values("psi1", psi1)]
    if not (math.isfinite(constant) and constant >= 0):
        raise ParameterError("--constant", constant, ">= 0 and finite (the unspecified constant C of the theorem)")
    cartesian(max_points=MAX_POINTS, scales=parse_values("student_scale", student_scale),
              teacher_scale=parse_values("teacher_scale", teacher_scale), psi1=psi1_vals)  # size check only
    s, t, results, tau_rows, notes = _tau_rows(
        student, teacher, center, fit_constant, student_scale, teacher_scale, method, dps
    )
    from ...theory.large_step import large_step_bounds

    rows = []
    caveats: list[str] = []
    for res, tr in zip(results, tau_rows, strict=True):
        b = large_step_bounds(s, t, psi1=psi1_vals, constant=constant, tau=res)
        caveats += [c for c in b.notes if c not in caveats]
        for r in b.rows():
            r.update(kappa_limit=tr["kappa_limit"], error=tr["error"])
            rows.append(r)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    meta = base_meta(
        command="theory bounds",
        upper_bound="10 tau* + C (sqrt(tau*) sqrt(1/psi1) + 1/psi1)  (Ba et al. 2022, Thm.; C not given by the paper)",
        kernel_bound="mu2*^2 = ||P_>1 f*||^2 (Ba et al. 2022, Prop. 1)",
        constant=constant,
        center=center,
        fit_constant=fit_constant,
        notes=notes + caveats,
        formulas="docs/large-step.md",
        **activations_meta(
            student=resolve_activation(student, center, "student"),
            teacher=resolve_activation(teacher, center, "teacher"),
        ),
    )
    emit(Result(rows=rows, meta=meta, columns=BOUNDS_TABLE), fmt, out, columns, show_all)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("tau-star")(tau_star_command)
    theory_app.command("bounds")(bounds_command)
    # ``theory large-step`` (the exact risk R1 with a Gaussian readout, JSON key ``risk1``, item 2
    # of issue 9) is registered by :mod:`asymptotics.cli.theory_commands.large_step_exact`.
