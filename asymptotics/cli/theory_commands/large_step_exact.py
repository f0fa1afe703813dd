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

JSON keys per row: ``risk1``, ``kernel_bound`` (μ2*²), ``beats_kernels`` (R1 < μ2*²), ``tau_star``
and ``kappa_star`` (Ba et al. eq. 5.1, for comparison with their bound 10τ* + …), ``width``
(``"inf"`` for the limit), ``limit`` (true/false), ``spike_error``, ``train_error``, ``r``, ``gamma``,
``type_error``, ``quadrature_error``, ``residual``, ``status``.

Example::

    asymptotics theory large-step --student erf --teacher erf --psi1 4,8,16,32 --psi2 2 \\
        --lam 1e-3 --noise 0.1 --c 1 --width inf --d 1000,2000 --format json
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from ...errors import ConvergenceError, ParameterError
from ...grids import cartesian, parse_values
from ...params import check_int, check_nonnegative
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
    grid_values,
    progress,
    resolve_activation,
)

GRID = "a number, a list 1,2,4, a range start:stop:num or log:start:stop:num"
#: Most solved points (grid points × widths × type counts) of one command.
MAX_POINTS = 20_000
#: Largest number of readout types K and of κ nodes.
MAX_TYPES = 4096
TABLE = Columns(("psi1", "psi2", "lam", "c", "noise", "width", "d", "types"),
                ("risk1", "kernel_bound", "beats_kernels", "tau_star", "type_error", "status"))


def _grid(name: str, text: str, rule=None):
    return grid_values(name, text, rule)


def _widths(text: str) -> list[float]:
    out = []
    for part in str(text).split(","):
        p = part.strip()
        if not p:
            raise ParameterError("--width", text, "a comma list of widths N >= 1 and/or inf", "empty item")
        if p.lower() in ("inf", "infinity"):
            out.append(math.inf)
            continue
        for v in parse_values("--width", p):
            if not (math.isfinite(v) and v >= 1):
                raise ParameterError("--width", text, "numbers of neurons N >= 1 or inf")
            out.append(float(v))
    if not out:
        raise ParameterError("--width", text, "a list of widths N >= 1 and/or inf")
    return out


def _tau_star(s_act, t_act) -> dict:
    """τ* and κ* for the pair (None with a status when there is no finite minimiser / it fails)."""
    from ...theory.large_step import tau_star

    try:
        r = tau_star(s_act, t_act)
    except (ConvergenceError, ParameterError) as exc:
        return {"tau_star": None, "kappa_star": None, "tau_status": f"failed: {exc}", "tau_infimum_at": None}
    ks = r.kappa_star if math.isfinite(r.kappa_star) else None
    return {"tau_star": r.tau_star, "kappa_star": ks, "tau_status": r.status, "tau_infimum_at": r.infimum_at}


def large_step_command(
    psi1: Annotated[str, typer.Option("--psi1", help=f"ψ1 = n/d, samples per dimension ({GRID}).")],
    student: StudentOpt = "erf",
    teacher: TeacherOpt = "erf",
    psi2: Annotated[str, typer.Option("--psi2", help=f"ψ2 = N/d, width per dimension ({GRID}).")] = "2",
    lam: Annotated[str, typer.Option("--lam", help=f"ridge λ ≥ 0 of (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² ({GRID}).")] = "1e-3",
    noise: Annotated[str, typer.Option("--noise", help=f"label-noise standard deviation σ_ε ({GRID}).")] = "0",
    c: Annotated[str, typer.Option("--c", help=f"the step η = c·√N, c ≥ 0 ({GRID}).")] = "1",
    width: Annotated[str, typer.Option("--width", help="width N of the finite-N prediction, or inf (the proportional limit); a list such as inf,2000.")] = "inf",
    d: Annotated[str | None, typer.Option("--d", help=f"add the finite widths N = round(ψ2·d) of these input dimensions ({GRID}).")] = None,
    readout: Annotated[str, typer.Option("--readout", help="hermite (Gaussian readout, K checked), quantile (K equal-mass types) or given (--readout-values).")] = "hermite",
    types: Annotated[str | None, typer.Option("--types", help="number K of readout types (a list for quantile types, e.g. 2,4,8,16,32); default 32 (hermite), 16 (quantile).")] = None,
    readout_values: Annotated[str | None, typer.Option("--readout-values", help="type values u for --readout given, e.g. 0.5,1.5 (equal proportions unless --readout-proportions).")] = None,
    readout_proportions: Annotated[str | None, typer.Option("--readout-proportions", help="proportions of the given types.")] = None,
    kappa_nodes: Annotated[int, typer.Option("--kappa-nodes", help="Gauss–Hermite nodes in κ (checked by doubling), in [8, 1000].")] = 61,
    check: Annotated[bool, typer.Option("--check/--no-check", help="check convergence in K and in the κ rule (default) or solve once.")] = True,
    center: CenterOpt = True,
    tol: Annotated[float, typer.Option("--tol", help="residual tolerance of the fixed point.")] = 1e-12,
    keep_going: Annotated[bool, typer.Option("--keep-going", help="write failed points as rows with their status (numbers null) instead of stopping.")] = False,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Exact risk R1 after one large step η = c√N with a Gaussian readout (N = ∞ and finite N)."""
    check_output(fmt, out)
    if not (1e-16 <= tol < 1):
        raise ParameterError("--tol", tol, "in [1e-16, 1)")
    if readout not in ("hermite", "quantile", "given"):
        raise ParameterError("--readout", readout, "hermite, quantile or given")
    if not 8 <= kappa_nodes <= 1000:
        raise ParameterError("--kappa-nodes", kappa_nodes, "an integer in [8, 1000]")
    widths = _widths(width)
    dims = None if d is None else [check_int("--d", v, 2, 10**9) for v in parse_values("--d", d)]
    type_list = [None] if types is None else [check_int("--types", v, 1, MAX_TYPES) for v in parse_values("--types", types)]
    if readout == "given":
        if readout_values is None:
            raise ParameterError("--readout-values", None, "given with --readout given")
        rv = parse_values("--readout-values", readout_values)
        rp = None if readout_proportions is None else parse_values("--readout-proportions", readout_proportions)
    elif readout_values is not None or readout_proportions is not None:
        raise ParameterError("--readout-values", readout_values, "used only with --readout given")
    else:
        rv = rp = None
    grid = cartesian(psi1=_grid("psi1", psi1), psi2=_grid("psi2", psi2), lam=_grid("lam", lam),
                     noise=_grid("noise", noise), c=_grid("c", c, check_nonnegative))
    cartesian(max_points=MAX_POINTS, grid=grid, width=list(widths) + list(dims or []), types=type_list)  # size only
    from ...theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension

    s_act = resolve_activation(student, center, "student")
    t_act = resolve_activation(teacher, center, "teacher")
    tau = _tau_star(s_act, t_act)
    rows, n_failed = [], 0
    with progress(len(grid) * len(type_list), "theory large-step") as step:
        for pt in grid:
            ws = list(widths)
            labels = [None] * len(ws)
            if dims:
                for dd in dims:
                    ws.append(width_from_dimension(pt["psi2"], dd))
                    labels.append(dd)
            for K in type_list:
                res = gaussian_readout_risk(s_act, t_act, pt["psi1"], pt["psi2"], pt["lam"], c=pt["c"], noise=pt["noise"],
                                            width=ws, readout=readout, types=K, readout_values=rv,
                                            readout_proportions=rp, kappa_nodes=kappa_nodes, tol=tol, check=check,
                                            on_failure="return")
                step()
                for r, dd in zip(res, labels, strict=True):
                    if not r.converged:
                        n_failed += 1
                        if not keep_going:
                            raise ConvergenceError(f"{r.message} (use --keep-going to write failed points as rows)")
                    row = record(r)
                    if dd is not None:
                        row["d"] = dd
                    row.update(tau)
                    rows.append(row)
    meta = base_meta(
        command="theory large-step",
        model="Ba et al. one large step eta = c sqrt(N), Gaussian readout: typed spiked RF "
              "(docs/large-step-exact.md)",
        activations=activations_meta(student=s_act, teacher=t_act),
        readout=readout, tolerance=tol, checked=check, failed=n_failed,
        conventions="Ba et al.: psi1 = n/d, psi2 = N/d, ridge (1/n)|y - Phi a|^2 + (lam/N)|a|^2; risk1 = "
                    "E(f_hat - f*)^2 excludes the label noise; width 'inf' = proportional limit; finite width: "
                    "leading-order correction of the spike-mean block (N^-1/2 cross terms neglected)",
    )
    emit(Result(rows=rows, meta=meta, columns=TABLE), fmt, out, columns, show_all)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("large-step")(large_step_command)
