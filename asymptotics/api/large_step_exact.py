r"""The exact risk R1 after one large step η = c√N (Ba et al. protocol, Gaussian readout;
``docs/large-step-exact.md``): ``asy.large_step``, the command ``asymptotics theory large-step``.

Grids (a Cartesian product): ``psi1`` ψ1 = n/d, ``psi2`` ψ2 = N/d, ``lam`` λ (Ba's ridge
(1/n)‖ỹ − Φa‖² + (λ/N)‖a‖²), ``noise`` σ_ε, ``c`` (η = c√N); ``width`` N of the finite-width
prediction or ``inf`` (the proportional limit; a list gives both), ``d`` adds the widths
N = round(ψ2·d) of simulations at these d; ``types`` K readout types (a list for the K-sequence).

The solving is one function, :func:`solve_grid` (the seam where a compiled grid solver plugs in).

>>> import asymptotics as asy
>>> r = asy.large_step(psi1=8, psi2=2, lam=1e-3, noise=0.1)
>>> round(r.rows[0]["risk1"], 4), r.rows[0]["width"]
(0.0259, 'inf')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConvergenceError, ParameterError
from ..params import check_int, check_nonnegative
from ..results import Columns, Result, base_meta, record
from .checks import checked, refuse_unused
from .errors import check_on_failure, option, point_error
from .grid import product, values
from .progress import Progress

__all__ = ["large_step", "solve_grid", "LargeStepGrid", "MAX_POINTS", "MAX_TYPES", "TABLE", "READOUTS"]

#: Most solved points (grid points × widths × type counts) of one computation.
MAX_POINTS = 20_000
#: Largest number of readout types K and of κ nodes.
MAX_TYPES = 4096
READOUTS = ("hermite", "quantile", "given")
TABLE = Columns(("psi1", "psi2", "lam", "c", "noise", "width", "d", "types", "initial_columns", "gradient"),
                ("risk1", "kernel_bound", "beats_kernels", "tau_star", "type_error", "status"))


def _widths(width) -> list[float]:
    """Widths N ≥ 1 and/or ``inf``: ``"inf,2000"``, ``[math.inf, 2000]``, ``2000``."""
    name = option("width")
    items = str(width).split(",") if isinstance(width, str) else list(width) if isinstance(width, (list, tuple)) \
        else [width]
    out = []
    for part in items:
        p = part.strip() if isinstance(part, str) else part
        if isinstance(p, str) and not p:
            raise ParameterError(name, width, "a comma list of widths N >= 1 and/or inf", "empty item")
        if (isinstance(p, str) and p.lower() in ("inf", "infinity")) or (isinstance(p, float) and math.isinf(p) and p > 0):
            out.append(math.inf)
            continue
        for v in values(name, p):
            if not (math.isfinite(v) and v >= 1):
                raise ParameterError(name, width, "numbers of neurons N >= 1 or inf")
            out.append(float(v))
    if not out:
        raise ParameterError(name, width, "a list of widths N >= 1 and/or inf")
    return out


def _tau_star(s_act, t_act) -> dict:
    """τ* and κ* for the pair (None with a status when there is no finite minimiser / it fails)."""
    from ..theory.large_step import tau_star

    try:
        r = tau_star(s_act, t_act)
    except (ConvergenceError, ParameterError) as exc:
        return {"tau_star": None, "kappa_star": None, "tau_status": f"failed: {exc}", "tau_infimum_at": None}
    ks = r.kappa_star if math.isfinite(r.kappa_star) else None
    return {"tau_star": r.tau_star, "kappa_star": ks, "tau_status": r.status.label, "tau_infimum_at": r.infimum_at}


@dataclass(frozen=True)
class LargeStepGrid:
    """Everything :func:`solve_grid` needs (checked): the activations, the grid points (dicts of
    ``psi1, psi2, lam, noise, c``), the widths (``inf`` and numbers), the dimensions ``dims`` whose
    widths round(ψ2·d) are added per point (or ``None``), the type counts (``[None]``: the
    default), the readout kind and given values, the κ nodes, the tolerance, ``check`` and the
    ``initial_columns`` (``"unit"`` or ``"gaussian"``) and the ``gradient`` (``"labels"`` or ``"exact"``)."""

    student: object
    teacher: object
    points: list
    widths: list
    dims: list | None
    types: list
    readout: str
    readout_values: list | None
    readout_proportions: list | None
    kappa_nodes: int
    tol: float
    check: bool
    initial_columns: str = "unit"
    gradient: str = "labels"


def solve_grid(spec: LargeStepGrid, step=lambda n=1: None) -> list:
    """Solve at every point of ``spec``; returns ``(point, d, result)`` per solved point — ``d`` the
    dimension a width came from (``None`` for the given widths), ``result`` a
    :class:`~asymptotics.theory.large_step.gaussian_readout.GaussianReadoutRisk` (``converged``
    False with its status and message on failure, never an exception for a point) — in the order
    point × type count × width. ``step(n)`` reports progress (one step per point and type count).

    The points are grouped by (ψ2, σ_ε, c) (a width from ``d`` depends on ψ2 only) and each group
    is one call of the compiled grid solver
    :func:`~asymptotics.theory.large_step.gaussian_readout.gaussian_readout_risk_grid` per type
    count, every point started cold (``continuation=False``: the numbers of the single-point call),
    its rows (values of ψ1) on numba's threads (``NUMBA_NUM_THREADS``; the numbers do not depend
    on it).
    """
    from numba import get_num_threads

    from ..theory.large_step.gaussian_readout import gaussian_readout_risk_grid, width_from_dimension

    groups: dict = {}
    for pt in spec.points:
        p1s, lams = groups.setdefault((pt["psi2"], pt["noise"], pt["c"]), ([], []))
        if pt["psi1"] not in p1s:
            p1s.append(pt["psi1"])
        if pt["lam"] not in lams:
            lams.append(pt["lam"])
    labels = [None] * len(spec.widths) + list(spec.dims or ())
    solved: dict = {}
    for (p2, nz, cc), (p1s, lams) in groups.items():
        ws = list(spec.widths) + [width_from_dimension(p2, dd) for dd in spec.dims or ()]
        wanted = {(pt["psi1"], pt["lam"]) for pt in spec.points
                  if (pt["psi2"], pt["noise"], pt["c"]) == (p2, nz, cc)}
        for K in spec.types:
            done = [0]

            def advance(d, total, done=done, lams=lams, p1s=p1s, wanted=wanted):
                # the grid reports (ψ1, λ) cells; only the requested points count as progress
                rows_done = d // max(len(lams), 1)
                n = sum(1 for a in p1s[:rows_done] for b in lams if (a, b) in wanted)
                step(n - done[0])
                done[0] = n

            g = gaussian_readout_risk_grid(spec.student, spec.teacher, p1s, lams, psi2=p2, c=cc, noise=nz,
                                           width=ws, readout=spec.readout, types=K,
                                           readout_values=spec.readout_values,
                                           readout_proportions=spec.readout_proportions,
                                           kappa_nodes=spec.kappa_nodes, tol=spec.tol, check=spec.check,
                                           continuation=False, on_failure="return", progress=advance,
                                           workers=get_num_threads(), initial_columns=spec.initial_columns,
                                           gradient=spec.gradient)
            for i, a in enumerate(p1s):
                for j, b in enumerate(lams):
                    solved[(a, p2, b, nz, cc, K)] = g.results[i][j]
    out = []
    for pt in spec.points:
        for K in spec.types:
            res = solved[(pt["psi1"], pt["psi2"], pt["lam"], pt["noise"], pt["c"], K)]
            out += [(pt, dd, r) for r, dd in zip(res, labels, strict=True)]
    return out


@checked
def large_step(*, psi1, student="erf", teacher="erf", psi2=2.0, lam=1e-3, noise=0.0, c=1.0, width="inf", d=None,
               readout: str = "hermite", types=None, readout_values=None, readout_proportions=None,
               kappa_nodes: int = 61, check: bool = True, center: bool = True, tol: float = 1e-12,
               initial_columns: str | None = None, gradient: str | None = None, on_failure: str = "raise",
               progress: bool | None = None) -> Result:
    """Exact risk R1 after one large step η = c√N with a Gaussian readout, at N = ∞ and at finite
    width N (``asymptotics theory large-step``).

    Args:
        psi1: ψ1 = n/d (grid; required).
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        psi2: ψ2 = N/d (grid).
        lam: ridge λ ≥ 0 of (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² (grid).
        noise: σ_ε (grid).
        c: the step η = c·√N, c ≥ 0 (grid).
        width: N of the finite-N prediction, ``"inf"``/``math.inf`` for the limit, or a list of them.
        d: add the finite widths N = round(ψ2·d) of these input dimensions (grid).
        readout: ``"hermite"`` (Gaussian readout, K checked), ``"quantile"`` (K equal-mass types)
            or ``"given"`` (``readout_values``).
        types: the number K of readout types (a list for quantile types); default 32 (hermite),
            16 (quantile).
        readout_values: the type values u with ``readout="given"``.
        readout_proportions: their proportions (default equal).
        kappa_nodes: Gauss–Hermite nodes in κ (checked by doubling), in [8, 1000].
        check: check convergence in K and in the κ rule, or solve once.
        center: centre σ and σ*.
        tol: residual tolerance of the fixed point, in [1e-16, 1).
        initial_columns: the network's initial columns at a finite width: ``"unit"`` (norm 1; the
            leading-order theory) or ``"gaussian"`` (Ba et al.'s N(0, 1/d) entries, d = N/ψ2: the
            column norms ρ² ~ χ²_d/d become types; docs/large-step-exact.md §4). No effect at N = ∞:
            with only ``width="inf"`` it must be left at ``None`` (default ``"unit"``).
        gradient: the first step's gradient at a finite width: ``"labels"`` (the step on y, the theory of
            docs/large-step-exact.md §1) or ``"exact"`` (Ba et al.'s residual y − f₀ with the network's initial
            output: the spike tilted by the collective shrink of W⁰, §1 "The initial output f₀"). The
            simulated Ba network is ``initial_columns="gaussian", gradient="exact"``. No effect at N = ∞:
            with only ``width="inf"`` it must be left at ``None`` (default ``"labels"``).
        on_failure: ``"raise"`` or ``"mark"`` (failed points as rows with their status).
        progress: ``None`` (automatic), ``True`` or ``False``.

    Returns:
        a :class:`~asymptotics.results.Result`: ``risk1``, ``kernel_bound`` (μ2*²),
        ``beats_kernels`` (R1 < μ2*²), ``tau_star``/``kappa_star`` (Ba et al. eq. 5.1), ``width``
        (``"inf"`` for the limit), ``limit``, ``spike_error``, ``train_error``, ``r``, ``gamma``,
        ``type_error``, ``quadrature_error``, ``residual``, ``status``.
    """
    initial_columns, gradient = _check_step_options(tol, readout, initial_columns, gradient)
    widths = _widths(width)
    dims = None if d is None else [check_int(option("d"), v, 2, 10**9) for v in values(option("d"), d)]
    if not dims and all(math.isinf(w) for w in widths):
        refuse_unused({"initial_columns": initial_columns, "gradient": gradient}, (), f"{option('width')} inf",
                      f"no effect at N = ∞; give a finite {option('width')} or {option('d')}")
    initial_columns = "unit" if initial_columns is None else initial_columns
    gradient = "labels" if gradient is None else gradient
    kappa_nodes = check_int(option("kappa_nodes"), kappa_nodes, 8, 1000)
    on_failure = check_on_failure(on_failure)
    type_list = [None] if types is None else \
        [check_int(option("types"), v, 1, MAX_TYPES) for v in values(option("types"), types)]
    rv, rp = _readout_values(readout, readout_values, readout_proportions)
    grid = product(psi1=values("psi1", psi1), psi2=values("psi2", psi2), lam=values("lam", lam),
                   noise=values("noise", noise), c=values("c", c, check_nonnegative))
    product(MAX_POINTS, grid=grid, width=list(widths) + list(dims or []), types=type_list)  # size only
    from ..activations import resolve_activation

    s_act = resolve_activation(student, center=center, name=option("student"))
    t_act = resolve_activation(teacher, center=center, name=option("teacher"))
    tau = _tau_star(s_act, t_act)
    spec = LargeStepGrid(s_act, t_act, grid, widths, dims, type_list, readout, rv, rp, kappa_nodes, float(tol),
                         bool(check), initial_columns, gradient)
    with Progress(len(grid) * len(type_list), "theory large-step", progress) as bar:
        solved = solve_grid(spec, bar.advance)
    rows, n_failed = _rows(solved, tau, on_failure)
    return Result(rows=rows, meta=_large_step_meta(spec, tol, n_failed), columns=TABLE)


def _check_step_options(tol, readout, initial_columns, gradient) -> tuple:
    """``tol``, the readout kind, the initial columns and the step's gradient checked; returns
    (initial_columns, gradient) as given (``None`` where not given)."""
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and 1e-16 <= tol < 1):
        raise ParameterError(option("tol"), tol, "in [1e-16, 1)")
    if readout not in READOUTS:
        raise ParameterError(option("readout"), readout, "hermite, quantile or given")
    from ..theory.large_step.column_norms import COLUMNS

    columns = "unit" if initial_columns is None else initial_columns
    if columns not in COLUMNS:
        raise ParameterError(option("initial_columns"), initial_columns, " or ".join(COLUMNS))
    from ..theory.large_step.initial_output import GRADIENTS

    step_gradient = "labels" if gradient is None else gradient
    if step_gradient not in GRADIENTS:
        raise ParameterError(option("gradient"), gradient, " or ".join(GRADIENTS))
    return initial_columns, gradient


def _readout_values(readout: str, readout_values, readout_proportions) -> tuple:
    """The given readout types' values and proportions (``readout="given"`` only; ``None`` otherwise)."""
    if readout == "given":
        if readout_values is None:
            raise ParameterError(option("readout_values"), None, f"given with {option('readout')} given")
        rv = values(option("readout_values"), readout_values)
        rp = None if readout_proportions is None else values(option("readout_proportions"), readout_proportions)
        return rv, rp
    if readout_values is not None or readout_proportions is not None:
        name, value = ("readout_values", readout_values) if readout_values is not None else \
            ("readout_proportions", readout_proportions)
        raise ParameterError(option(name), value, f"used only with {option('readout')} given")
    return None, None


def _rows(solved: list, tau: dict, on_failure: str) -> tuple[list, int]:
    """One row per solved point (with τ* of the pair and the status label) and the number of failed
    points; a failure raises the point's error with ``on_failure="raise"``."""
    rows, n_failed = [], 0
    for pt, dd, r in solved:
        row = record(r)
        if dd is not None:
            row["d"] = dd
        row.update(tau)
        if not r.converged:
            n_failed += 1
            if on_failure == "raise":
                where = {**pt, "width": row["width"], **({"d": dd} if dd is not None else {}), "types": r.types}
                raise point_error("theory large-step", where, r.message)
        _status_label(row, r)
        rows.append(row)
    return rows, n_failed


def _large_step_meta(spec: LargeStepGrid, tol, n_failed: int) -> dict:
    """The metadata of ``theory large-step``: the model, activations, options and conventions."""
    return base_meta(
        command="theory large-step",
        model="Ba et al. one large step eta = c sqrt(N), Gaussian readout: typed spiked RF "
              "(docs/large-step-exact.md)",
        activations={"student": spec.student.as_dict(), "teacher": spec.teacher.as_dict()},
        readout=spec.readout, initial_columns=spec.initial_columns, gradient=spec.gradient, tolerance=tol,
        checked=spec.check, failed=n_failed,
        conventions="Ba et al.: psi1 = n/d, psi2 = N/d, ridge (1/n)|y - Phi a|^2 + (lam/N)|a|^2; risk1 = "
                    "E(f_hat - f*)^2 excludes the label noise; width 'inf' = proportional limit; finite width: "
                    "leading-order correction of the spike-mean block (N^-1/2 cross terms neglected); initial "
                    "columns 'gaussian': the initial column norms chi2_d/d as types; gradient 'exact': the residual "
                    "y - f0 of the initial output (collective shrink of W0, self shrink, f0 energy)",
    )


def _status_label(row: dict, res) -> None:
    """``status`` becomes the :class:`~asymptotics.solvers.Status` label of the solve, the solver's
    sentence (when it says more) ``message``."""
    from ..solvers import Status

    code = Status(int(res.status))
    if not res.converged and code == Status.CONVERGED:
        code = Status.SINGULAR
    label = code.label
    if row.get("status") != label:
        row["message"] = row.get("status")
        row["status"] = label
