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

Both wrap the Python API (``asy.tau_star``, ``asy.bounds``: :mod:`asymptotics.api.large_step_bounds`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...api import large_step_bounds as api
from ..api_call import run_api
from ..common import AllOpt, CenterOpt, ColumnsOpt, FormatOpt, OutOpt, StudentOpt, TeacherOpt, grid_option

# The tables live with the API (asymptotics.api.large_step_bounds); kept here under their names.
SCALE_RANGE, MAX_POINTS, TAU_TABLE, BOUNDS_TABLE = api.SCALE_RANGE, api.MAX_POINTS, api.TAU_TABLE, api.BOUNDS_TABLE

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
KeepGoingOpt = Annotated[bool, typer.Option(
    "--keep-going", help="write points without an answer as rows with their status (numbers null) instead of stopping.")]


def tau_star_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    fit_constant: FitConstantOpt = False,
    student_scale: str = grid_option("1", "Input scale a of the student, σ(a x)", "--student-scale"),
    teacher_scale: str = grid_option("1", "Input scale b of the teacher, σ*(b x)", "--teacher-scale"),
    method: MethodOpt = "auto",
    dps: DpsOpt = 30,
    keep_going: KeepGoingOpt = False,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """τ* and κ* (Ba et al. eq. 5.1), the kernel bound μ2*² and the verdict 10τ* < μ2*²."""
    run_api(api.tau_star, fmt, out, columns, show_all, notes="notes", label="note", student=student,
            teacher=teacher, center=center, fit_constant=fit_constant, student_scale=student_scale,
            teacher_scale=teacher_scale, method=method, dps=dps, on_failure="mark" if keep_going else "raise")


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
    keep_going: KeepGoingOpt = False,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Kernel lower bound μ2*², upper bound 10τ* + C(√τ*√(d/n) + d/n) on a ψ1 grid, and the verdict."""
    run_api(api.bounds, fmt, out, columns, show_all, notes="notes", label="note", student=student,
            teacher=teacher, center=center, fit_constant=fit_constant, psi1=psi1, constant=constant,
            student_scale=student_scale, teacher_scale=teacher_scale, method=method, dps=dps,
            on_failure="mark" if keep_going else "raise")


def register(theory_app: typer.Typer) -> None:
    theory_app.command("tau-star")(tau_star_command)
    theory_app.command("bounds")(bounds_command)
    # ``theory large-step`` (the exact risk R1 with a Gaussian readout, JSON key ``risk1``, item 2
    # of issue 9) is registered by :mod:`asymptotics.cli.theory_commands.large_step_exact`.
