"""``asymptotics theory large-step``: the exact risk R1 after one large step η = c√N (Ba et al.
protocol, Gaussian readout), in the proportional limit N = ∞ and at finite width N.

The network after the step is a spiked random-features model with a continuous law of readout
types u = √N a⁰ ~ N(0, 1) (``docs/large-step-exact.md``).
Every numeric option accepts a grid (``0.5``, ``1,2,4``, ``0:3:7``, ``log:1e-3:1:4``); several grids
form a Cartesian product.

* ``--psi1`` ψ1 = n/d, ``--psi2`` ψ2 = N/d, ``--lam`` λ (Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖²),
  ``--noise`` σ_ε, ``--c`` the step η = c√N.
* ``--width``: N for the finite-width prediction, ``inf`` (default) for the limit; a list such as
  ``inf,2000`` gives both. ``--d``: add the finite widths N = round(ψ2·d) of simulations at these d.
* ``--readout hermite`` (default: the Gaussian readout, K Gauss–Hermite types, convergence in K and
  in the κ rule checked and reported as ``type_error`` and ``quadrature_error``), ``quantile``
  (``--types`` K equal-mass discrete types, e.g. ``--types 2,4,8,16,32`` for the K-sequence of §3) or
  ``given`` (``--readout-values 0.5,1.5``; ``1`` is Cui's uniform readout).
* ``--initial-columns unit`` (default) or ``gaussian``: at a finite width, the norms ρ² ~ χ²_d/d of Ba et
  al.'s Gaussian initial columns (d = N/ψ2) as a second type variable — the finite-width theory of
  the simulated Ba network (``docs/large-step-exact.md`` §4).
* ``--gradient labels`` (default) or ``exact``: at a finite width, Ba et al.'s exact gradient with the
  residual y − f₀ of the network's initial output (the spike tilted by the collective shrink of W⁰,
  ``docs/large-step-exact.md`` §1, "The initial output f₀"). The simulated Ba network is
  ``--initial-columns gaussian --gradient exact``.

JSON keys per row: ``risk1``, ``kernel_bound`` (μ2*²), ``beats_kernels`` (R1 < μ2*²), ``tau_star``
and ``kappa_star`` (Ba et al. eq. 5.1, for comparison with their bound 10τ* + …), ``width``
(``"inf"`` for the limit), ``limit`` (true/false), ``spike_error``, ``train_error``, ``r``, ``gamma``,
``type_error``, ``quadrature_error``, ``residual``, ``status``.

Example::

    asymptotics theory large-step --student erf --teacher erf --psi1 4,8,16,32 --psi2 2 \\
        --lam 1e-3 --noise 0.1 --c 1 --width inf --d 1000,2000 --format json

The command wraps the Python API (``asy.large_step``: :mod:`asymptotics.api.large_step_exact`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..api_call import run_api
from ..options import GRID_HELP as GRID
from ..options import OUTPUT, command, grid, opt, param


@command(
    grid("psi1", ..., metavar=None),
    opt("student", "erf"),
    opt("teacher", "erf"),
    grid("psi2", "2", metavar=None),
    grid("lam", "1e-3", "ridge λ ≥ 0 of (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖²", metavar=None),
    grid("noise", "0", "label-noise standard deviation σ_ε", metavar=None),
    param("c", Annotated[str, typer.Option("--c", help=f"the step η = c·√N, c ≥ 0 ({GRID}).")], "1"),
    param(
        "width",
        Annotated[
            str,
            typer.Option(
                "--width",
                help="width N of the finite-N prediction, or inf (the proportional limit); a list such as inf,2000.",
            ),
        ],
        "inf",
    ),
    param(
        "d",
        Annotated[
            str | None,
            typer.Option(
                "--d", help=f"add the finite widths N = round(ψ2·d) of these input dimensions ({GRID})."
            ),
        ],
        None,
    ),
    param(
        "readout",
        Annotated[
            str,
            typer.Option(
                "--readout",
                help="hermite (Gaussian readout, K checked), quantile (K equal-mass types) or given (--readout-values).",
            ),
        ],
        "hermite",
    ),
    param(
        "types",
        Annotated[
            str | None,
            typer.Option(
                "--types",
                help="number K of readout types (a list for quantile types, e.g. 2,4,8,16,32); default 32 (hermite), 16 (quantile).",
            ),
        ],
        None,
    ),
    param(
        "readout_values",
        Annotated[
            str | None,
            typer.Option(
                "--readout-values",
                help="type values u for --readout given, e.g. 0.5,1.5 (equal proportions unless --readout-proportions).",
            ),
        ],
        None,
    ),
    param(
        "readout_proportions",
        Annotated[str | None, typer.Option("--readout-proportions", help="proportions of the given types.")],
        None,
    ),
    param(
        "kappa_nodes",
        Annotated[
            int,
            typer.Option(
                "--kappa-nodes", help="Gauss–Hermite nodes in κ (checked by doubling), in [8, 1000]."
            ),
        ],
        61,
    ),
    param(
        "check",
        Annotated[
            bool,
            typer.Option(
                "--check/--no-check", help="check convergence in K and in the κ rule (default) or solve once."
            ),
        ],
        True,
    ),
    opt("center", True),
    param(
        "initial_columns",
        Annotated[
            str | None,
            typer.Option(
                "--initial-columns",
                help="initial columns at finite width: unit (norm 1) or gaussian (Ba's N(0, 1/d) entries: the "
                     "column norms chi2_d/d, d = N/psi2, become types; docs/large-step-exact.md §4); default unit; "
                     "only with a finite --width or --d.",
            ),
        ],
        None,
    ),
    param(
        "gradient",
        Annotated[
            str | None,
            typer.Option(
                "--gradient",
                help="the step's gradient at finite width: labels (the step on y) or exact (Ba's residual y - f0 "
                     "with the initial output; docs/large-step-exact.md §1); default labels; only with a finite "
                     "--width or --d.",
            ),
        ],
        None,
    ),
    param(
        "tol", Annotated[float, typer.Option("--tol", help="residual tolerance of the fixed point.")], 1e-12
    ),
    opt("keep_going"),
    *OUTPUT,
)
def large_step_command(**options) -> None:
    """Exact risk R1 after one large step η = c√N with a Gaussian readout (N = ∞ and finite N)."""
    from ...api import large_step_exact as api

    run_api(api.large_step, **options)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("large-step")(large_step_command)
