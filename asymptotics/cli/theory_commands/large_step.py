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

from ..api_call import run_api
from ..options import OUTPUT, command, grid_option, opt, param

_ACTIVATIONS = (opt("student", "tanh"), opt("teacher", "tanh"), opt("center", True))
_FIT_CONSTANT = param(
    "fit_constant",
    Annotated[
        bool,
        typer.Option(
            "--fit-constant/--no-fit-constant",
            help="Let the oracle add the best constant (τ* = inf_κ Var(σ* − E_ξ2σ)); the paper's definition has none.",
        ),
    ],
    False,
)
_CONSTANT = param(
    "constant",
    Annotated[
        float,
        typer.Option(
            "--constant", help="The constant C of the upper bound (not given by the paper; 1 is arbitrary)."
        ),
    ],
    1.0,
)
_PSI1 = param("psi1", str, grid_option("10,100,1000", "psi1 = n/d for the upper bound", "--psi1"))
_SCALES_AND_METHOD = (
    param("student_scale", str, grid_option("1", "Input scale a of the student, σ(a x)", "--student-scale")),
    param("teacher_scale", str, grid_option("1", "Input scale b of the teacher, σ*(b x)", "--teacher-scale")),
    param(
        "method",
        Annotated[
            str,
            typer.Option(
                "--method",
                metavar="METHOD",
                help="auto (closed form if any, else compiled), closed, compiled or mpmath (one point at a time).",
            ),
        ],
        "auto",
    ),
    param("dps", Annotated[int | None, typer.Option("--dps", help="Decimal digits of the mpmath path "
                                                    "(--method mpmath only; default 30).")], None),
    opt(
        "keep_going",
        help="write points without an answer as rows with their status (numbers null) instead of stopping.",
    ),
    *OUTPUT,
)


@command(*_ACTIVATIONS, _FIT_CONSTANT, *_SCALES_AND_METHOD)
def tau_star_command(**options) -> None:
    """τ* and κ* (Ba et al. eq. 5.1), the kernel bound μ2*² and the verdict 10τ* < μ2*²."""
    from ...api import large_step_bounds as api

    run_api(api.tau_star, notes="notes", label="note", **options)


@command(*_ACTIVATIONS, _FIT_CONSTANT, _PSI1, _CONSTANT, *_SCALES_AND_METHOD)
def bounds_command(**options) -> None:
    """Kernel lower bound μ2*², upper bound 10τ* + C(√τ*√(d/n) + d/n) on a ψ1 grid, and the verdict."""
    from ...api import large_step_bounds as api

    run_api(api.bounds, notes="notes", label="note", **options)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("tau-star")(tau_star_command)
    theory_app.command("bounds")(bounds_command)
    # ``theory large-step`` (the exact risk R1 with a Gaussian readout, JSON key ``risk1``, item 2
    # of issue 9) is registered by :mod:`asymptotics.cli.theory_commands.large_step_exact`.
