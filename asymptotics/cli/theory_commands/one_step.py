"""``asymptotics theory alignment | ck-spike | risk | limits``: one gradient step at η = Θ(1)
(Ba et al. 2022; ``docs/one-step.md``).

Every command takes ``--student/--teacher`` (centred by default) and grids for ψ1 = n/d
(``--psi1``), ψ2 = N/d (``--psi2``), η (``--eta``), λ (``--lam``) and σ_ε (``--noise``) in the
shared grid syntax (``0.5``, ``1,2,4``, ``0:10:21``, ``log:1e-4:10:6``); the rows hold the
parameters and the predicted quantities (json keys ``eta_threshold, overlap_beta, overlap_a,
top_sv2, ck_outlier, risk0, risk1, delta, kernel_bound``).
"""

from __future__ import annotations

import warnings
from typing import Annotated

import numpy as np
import typer

from ...errors import DegenerateWarning, ParameterError
from ...results import Columns, Result, base_meta, grid_rows
from ..common import (
    AllOpt,
    CenterOpt,
    ColumnsOpt,
    FormatOpt,
    OutOpt,
    StudentOpt,
    TeacherOpt,
    activations_meta,
    build_grid,
    check_output,
    emit,
    grid_option,
    resolve_activation,
)

#: Most grid points of a one-step command (the formulas are vectorised over the grid).
MAX_POINTS = 200_000
_DOCS = "docs/one-step.md"
_GRID = ("psi1", "psi2", "lam", "eta", "noise", "route", "limit")

#: The columns each command computes ({column: field of the theory's result}) and shows.
ALIGNMENT_FIELDS = {
    "theta_sq": "theta_sq", "separated": "separated", "eta_threshold": "eta_threshold",
    "overlap_beta": "overlap_beta", "overlap_a": "overlap_a", "overlap_u": "overlap_u",
    "top_sv2": "top_sv2", "teacher_energy": "teacher_energy",
}  # fmt: skip
ALIGNMENT_TABLE = Columns(_GRID, ("separated", "eta_threshold", "overlap_beta", "overlap_a", "top_sv2"))
CK_FIELDS = {
    "population_spike": "population_spike", "ck_separated": "separated", "ck_outlier": "top_eigenvalue",
    "ck_bulk_edge": "bulk_edge", "ck_gram_outlier": "gram_top_eigenvalue",
}  # fmt: skip
CK_TABLE = Columns(_GRID, ("top_sv2", "ck_separated", "ck_outlier", "ck_bulk_edge", "ck_gram_outlier"))
#: The routes of :func:`asymptotics.theory.one_step.risk` (its ROUTES), named here so that a bad
#: ``--route`` is refused before the theory is imported.
ROUTE_NAMES = ("A", "B", "C")
RISK_FIELDS = ("risk0", "risk1", "delta", "kernel_bound")
RISK_TABLE = Columns(_GRID, RISK_FIELDS)
LIMITS_TABLE = Columns(_GRID, ("risk0", "risk1", "delta", "delta_ridgeless", "delta_coefficient", "ridge_slope",
                               "kernel_bound"))

_PSI1 = grid_option("2", "ψ1 = n/d, samples per dimension", "--psi1")
_PSI2 = grid_option("1.5", "ψ2 = N/d, width per dimension", "--psi2")
_ETA = grid_option("1", "learning rate η of the first step (η = Θ(1))", "--eta")
_ETA_SWEEP = grid_option("0:10:11", "learning rate η of the first step (η = Θ(1))", "--eta")
_LAM = grid_option("1e-3", "ridge penalty λ of (1/n)‖y − Φa‖² + (λ/N)‖a‖²", "--lam")
_NOISE = grid_option("0.1", "σ_ε, standard deviation of the label noise", "--noise")


def _setup(student, teacher, center):
    s = resolve_activation(student, center, "student")
    t = resolve_activation(teacher, center, "teacher")
    return s, t


def _groups(rows, keys):
    """Group the grid rows by the model-defining parameter (noise) and return arrays per group."""
    out = {}
    for i, r in enumerate(rows):
        out.setdefault(r.get("noise", 0.0), []).append(i)
    for noise, idx in out.items():
        yield noise, idx, {k: np.array([rows[i][k] for i in idx], dtype=float) for k in keys}


def _model(s, t, noise):
    from ...theory.one_step import OneStepModel

    return OneStepModel.from_activations(s, t, noise=noise)


def _warnings_meta(caught):
    return sorted({str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)})


def _emit(rows, meta, caught, table, fmt, out, columns, show_all):
    msgs = _warnings_meta(caught)
    if msgs:
        meta["warnings"] = msgs
        for m in msgs:
            typer.echo(f"warning: {m}", err=True)
    emit(Result(rows=rows, meta=meta, columns=table), fmt, out, columns, show_all)


def _spike_rows(s, t, grid, results):
    """Rows of ``results(model, arrays)`` — a list of (result, {column: field}) — on each
    noise group of ``grid`` (vectorised over ψ1, ψ2, η), collecting DegenerateWarnings."""
    rows = [dict(r) for r in grid]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for nz, idx, a in _groups(grid, ("psi1", "psi2", "eta")):
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            for res, fields in results(m, a):
                for i, values in zip(idx, grid_rows(res, fields, len(idx)), strict=True):
                    rows[i].update(values)
    return rows, caught


# --------------------------------------------------------------------------------- alignment
def alignment_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    psi1: str = _PSI1,
    psi2: str = _PSI2,
    eta: str = _ETA_SWEEP,
    noise: str = _NOISE,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Spike of W₁ after one step: BBP threshold η_c (θ⁴ = ψ2), s₁(W₁)², ⟨u₁, β*⟩², ⟨v₁, a⟩², ‖W₁ᵀβ*‖²."""
    check_output(fmt, out)
    grid = build_grid(MAX_POINTS, psi1=psi1, psi2=psi2, eta=eta, noise=noise)
    from ...theory.one_step import spike

    s, t = _setup(student, teacher, center)
    rows, caught = _spike_rows(
        s, t, grid, lambda m, a: [(spike(m, a["psi1"], a["psi2"], a["eta"]), ALIGNMENT_FIELDS)]
    )
    meta = base_meta(command="theory alignment", **activations_meta(student=s, teacher=t),
                     formulas=f"{_DOCS}, section 'The spike' (derived; rank-one algebra by asymptotics.theory.one_step.derivation)")
    _emit(rows, meta, caught, ALIGNMENT_TABLE, fmt, out, columns, show_all)


# --------------------------------------------------------------------------------- ck-spike
def ck_spike_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    psi1: str = _PSI1,
    psi2: str = _PSI2,
    eta: str = _ETA_SWEEP,
    noise: str = _NOISE,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Top eigenvalue of the trained CK S = σ(X̃W₁)ᵀσ(X̃W₁)/n: outlier (spiked-covariance map) or bulk edge;
    ``ck_gram_outlier`` is the same for the n×n Gram matrix σσᵀ/N."""
    check_output(fmt, out)
    grid = build_grid(MAX_POINTS, psi1=psi1, psi2=psi2, eta=eta, noise=noise)
    from ...theory.one_step import ck_outlier, spike

    s, t = _setup(student, teacher, center)

    def results(m, a):
        p = (a["psi1"], a["psi2"], a["eta"])
        return [(spike(m, *p), ("top_sv2",)), (ck_outlier(m, *p), CK_FIELDS)]

    rows, caught = _spike_rows(s, t, grid, results)
    meta = base_meta(command="theory ck-spike", **activations_meta(student=s, teacher=t),
                     formulas=f"{_DOCS}, section 'The trained-CK outlier' (derived; the paper's hypothesis)")
    _emit(rows, meta, caught, CK_TABLE, fmt, out, columns, show_all)


# --------------------------------------------------------------------------------- risk
def risk_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    psi1: str = _PSI1,
    psi2: str = _PSI2,
    lam: str = _LAM,
    eta: str = _ETA,
    noise: str = _NOISE,
    route: Annotated[str | None, typer.Option(
        "--route", metavar="ROUTES",
        help="A (Mei–Montanari, R0 only), B (deterministic equivalent), C (linear pencil), or a list "
             "'A,B,C' (one row per route). Rows carry 'route' when given.")] = None,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Risks of the CK ridge before (R0) and after (R1) one step, δ = R0 − R1 ≥ 0, and the floor μ2*²."""
    check_output(fmt, out)
    routes = [r.strip().upper() for r in route.split(",")] if route is not None else ["B"]
    for r in routes:
        if r not in ROUTE_NAMES:
            raise ParameterError("--route", route, "A, B, C or a comma list of them")
    grid = build_grid(MAX_POINTS, psi1=psi1, psi2=psi2, lam=lam, eta=eta, noise=noise)
    from ...theory.one_step import risk as risk_fn

    s, t = _setup(student, teacher, center)
    rows = []
    solver = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for r in routes:
            part = [dict(g, **({"route": r} if route else {})) for g in grid]
            for nz, idx, a in _groups(grid, ("psi1", "psi2", "lam", "eta")):
                m = _model(s, t, nz)
                res = risk_fn(m, a["psi1"], a["psi2"], a["lam"], a["eta"], route=r)
                solver[r] = {"residual": max(solver.get(r, {}).get("residual", 0.0), float(res.residual)),
                             "iterations": max(solver.get(r, {}).get("iterations", 0), int(res.iterations))}
                for i, values in zip(idx, grid_rows(res, RISK_FIELDS, len(idx)), strict=True):
                    part[i].update(values)
            rows += part
    meta = base_meta(command="theory risk", routes=routes, solver=solver, **activations_meta(student=s, teacher=t),
                     formulas=f"{_DOCS}, section 'R0, R1 and δ: three routes' (routes A, B, C)")
    _emit(rows, meta, caught, RISK_TABLE, fmt, out, columns, show_all)


# --------------------------------------------------------------------------------- limits
def limits_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    limit: Annotated[str, typer.Option(
        "--limit", metavar="LIMIT",
        help="psi1-inf: ψ1 → ∞ over (ψ2, λ, η); psi2-inf: ψ2 → ∞ over (ψ1, η) (R0 limit and δ ≈ C/ψ2)")] = "psi1-inf",
    psi1: str = _PSI1,
    psi2: str = _PSI2,
    lam: str = _LAM,
    eta: str = _ETA,
    noise: str = _NOISE,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Limits: the best-linear floor μ2*² (kernel_bound); ψ1 → ∞ closed forms of R0, R1, δ (and δ at
    λ → 0); ψ2 → ∞: R0's kernel limit and the coefficient C of δ ≈ C/ψ2."""
    check_output(fmt, out)
    which = limit.strip().lower()
    if which not in ("psi1-inf", "psi2-inf"):
        raise ParameterError("--limit", limit, "psi1-inf or psi2-inf")
    if which == "psi1-inf":
        grid = build_grid(MAX_POINTS, psi2=psi2, lam=lam, eta=eta, noise=noise)
        keys = ("psi2", "lam", "eta")
    else:
        grid = build_grid(MAX_POINTS, psi1=psi1, eta=eta, noise=noise)
        keys = ("psi1", "eta")
    from ...theory.one_step import limits as L

    s, t = _setup(student, teacher, center)
    rows = [dict(g, limit=which) for g in grid]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for nz, idx, a in _groups(grid, keys):
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            floor = L.best_linear_floor(m)
            if which == "psi1-inf":
                r0 = np.atleast_1d(L.risk0_infinite_samples(m, a["psi2"], a["lam"]))
                d = np.atleast_1d(L.delta_infinite_samples(m, a["psi2"], a["lam"], a["eta"]))
                d0 = (L.delta_infinite_samples_ridgeless(m, a["psi2"], a["eta"]) if m.mu2_sq > 0 else None)
                values = {"risk0": r0, "risk1": r0 - d, "delta": d, "delta_ridgeless": d0, "kernel_bound": floor}
            else:
                values = {"risk0": L.risk0_infinite_width(m, a["psi1"]),
                          "delta_coefficient": L.delta_infinite_width_coefficient(m, a["psi1"], a["eta"]),
                          "ridge_slope": L.infinite_width_ridge(m, a["psi1"]), "kernel_bound": floor}
            for i, row in zip(idx, grid_rows(values, list(values), len(idx)), strict=True):
                rows[i].update(row)
    meta = base_meta(command="theory limits", limit=which, **activations_meta(student=s, teacher=t),
                     formulas=f"{_DOCS}, section 'Limits'; ψ2 → ∞ derived in asymptotics.theory.one_step.limits",
                     notes="psi2-inf: delta ≈ delta_coefficient/ψ2; ridge_slope k = lim κ/(μ1²ψ2)")
    _emit(rows, meta, caught, LIMITS_TABLE, fmt, out, columns, show_all)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("alignment")(alignment_command)
    theory_app.command("ck-spike")(ck_spike_command)
    theory_app.command("risk")(risk_command)
    theory_app.command("limits")(limits_command)
