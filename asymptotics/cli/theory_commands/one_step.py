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
from ...results import Result, base_meta
from ..common import (
    CenterOpt,
    FormatOpt,
    OutOpt,
    StudentOpt,
    TeacherOpt,
    activations_meta,
    build_grid,
    emit,
    grid_option,
    resolve_activation,
)

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


def _finite(v):
    """A float, or None for ±inf (JSON has no infinity; e.g. η_c when μ1 = 0)."""
    v = float(v)
    return v if np.isfinite(v) else None


def _warnings_meta(caught):
    return sorted({str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)})


def _emit(rows, meta, fmt, out, caught):
    msgs = _warnings_meta(caught)
    if msgs:
        meta["warnings"] = msgs
        for m in msgs:
            typer.echo(f"warning: {m}", err=True)
    emit(Result(rows=rows, meta=meta), fmt, out)


def _spike_rows(s, t, grid, columns):
    """Evaluate ``columns(model, arrays)`` (which returns ``j -> {name: value}``) on each
    noise group of ``grid`` (vectorised over ψ1, ψ2, η), collecting DegenerateWarnings."""
    rows = [dict(r) for r in grid]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for nz, idx, a in _groups(grid, ("psi1", "psi2", "eta")):
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            row_of = columns(m, a)
            for j, i in enumerate(idx):
                rows[i].update(row_of(j))
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
) -> None:
    """Spike of W₁ after one step: BBP threshold η_c (θ⁴ = ψ2), s₁(W₁)², ⟨u₁, β*⟩², ⟨v₁, a⟩², ‖W₁ᵀβ*‖²."""
    from ...theory.one_step import spike

    s, t = _setup(student, teacher, center)

    def columns(m, a):
        sp = spike(m, a["psi1"], a["psi2"], a["eta"])
        return lambda j: dict(
            theta_sq=float(sp.theta_sq[j]),
            separated=bool(sp.separated[j]),
            eta_threshold=_finite(sp.eta_threshold[j]),
            overlap_beta=float(sp.overlap_beta[j]),
            overlap_a=float(sp.overlap_a[j]),
            overlap_u=float(sp.overlap_u[j]),
            top_sv2=float(sp.top_sv2[j]),
            teacher_energy=float(sp.teacher_energy[j]),
        )

    rows, caught = _spike_rows(s, t, build_grid(psi1=psi1, psi2=psi2, eta=eta, noise=noise), columns)
    meta = base_meta(command="theory alignment", **activations_meta(student=s, teacher=t),
                     formulas="10-one-step.md §3 (derived; rank-one algebra by asymptotics.theory.one_step.derivation)")
    _emit(rows, meta, fmt, out, caught)


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
) -> None:
    """Top eigenvalue of the trained CK S = σ(X̃W₁)ᵀσ(X̃W₁)/n: outlier (spiked-covariance map) or bulk edge;
    ``ck_gram_outlier`` is the same for the n×n Gram matrix σσᵀ/N."""
    from ...theory.one_step import ck_outlier, spike

    s, t = _setup(student, teacher, center)

    def columns(m, a):
        ck = ck_outlier(m, a["psi1"], a["psi2"], a["eta"])
        sp = spike(m, a["psi1"], a["psi2"], a["eta"])
        return lambda j: dict(
            top_sv2=float(sp.top_sv2[j]),
            population_spike=float(ck.population_spike[j]),
            ck_separated=bool(ck.separated[j]),
            ck_outlier=float(ck.top_eigenvalue[j]),
            ck_bulk_edge=float(ck.bulk_edge[j]),
            ck_gram_outlier=float(ck.gram_top_eigenvalue[j]),
        )

    rows, caught = _spike_rows(s, t, build_grid(psi1=psi1, psi2=psi2, eta=eta, noise=noise), columns)
    meta = base_meta(command="theory ck-spike", **activations_meta(student=s, teacher=t),
                     formulas="10-one-step.md §4 (derived; the paper's hypothesis)")
    _emit(rows, meta, fmt, out, caught)


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
        "--route", help="A (Mei–Montanari, R0 only), B (deterministic equivalent), C (linear pencil), or a list "
                        "'A,B,C' (one row per route). Rows carry 'route' when given.")] = None,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
) -> None:
    """Risks of the CK ridge before (R0) and after (R1) one step, δ = R0 − R1 ≥ 0, and the floor μ2*²."""
    from ...theory.one_step import ROUTES
    from ...theory.one_step import risk as risk_fn

    s, t = _setup(student, teacher, center)
    routes = [r.strip().upper() for r in route.split(",") if r.strip()] if route else ["B"]
    for r in routes:
        if r not in ROUTES:
            raise ParameterError("--route", route, "A, B, C or a comma list of them")
    grid = build_grid(psi1=psi1, psi2=psi2, lam=lam, eta=eta, noise=noise)
    rows = []
    solver = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for r in routes:
            part = [dict(g) for g in grid]
            for nz, idx, a in _groups(grid, ("psi1", "psi2", "lam", "eta")):
                m = _model(s, t, nz)
                res = risk_fn(m, a["psi1"], a["psi2"], a["lam"], a["eta"], route=r)
                solver[r] = {"residual": max(solver.get(r, {}).get("residual", 0.0), float(res.residual)),
                             "iterations": max(solver.get(r, {}).get("iterations", 0), int(res.iterations))}
                for j, i in enumerate(idx):
                    row = part[i]
                    if route:
                        row["route"] = r
                    row["risk0"] = float(np.atleast_1d(res.risk0)[j])
                    if res.risk1 is not None:
                        row["risk1"] = float(np.atleast_1d(res.risk1)[j])
                        row["delta"] = float(np.atleast_1d(res.delta)[j])
                    row["kernel_bound"] = float(res.kernel_bound)
            rows += part
    meta = base_meta(command="theory risk", routes=routes, solver=solver, **activations_meta(student=s, teacher=t),
                     formulas="10-one-step.md §5 (routes A, B, C)")
    _emit(rows, meta, fmt, out, caught)


# --------------------------------------------------------------------------------- limits
def limits_command(
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    limit: Annotated[str, typer.Option(
        "--limit", help="psi1-inf: ψ1 → ∞ over (ψ2, λ, η); psi2-inf: ψ2 → ∞ over (ψ1, η) (R0 limit and δ ≈ C/ψ2)")] = "psi1-inf",
    psi1: str = _PSI1,
    psi2: str = _PSI2,
    lam: str = _LAM,
    eta: str = _ETA,
    noise: str = _NOISE,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
) -> None:
    """Limits: the best-linear floor μ2*² (kernel_bound); ψ1 → ∞ closed forms of R0, R1, δ (and δ at
    λ → 0); ψ2 → ∞: R0's kernel limit and the coefficient C of δ ≈ C/ψ2."""
    from ...theory.one_step import limits as L

    s, t = _setup(student, teacher, center)
    which = limit.strip().lower()
    if which not in ("psi1-inf", "psi2-inf"):
        raise ParameterError("--limit", limit, "psi1-inf or psi2-inf")
    if which == "psi1-inf":
        grid = build_grid(psi2=psi2, lam=lam, eta=eta, noise=noise)
        keys = ("psi2", "lam", "eta")
    else:
        grid = build_grid(psi1=psi1, eta=eta, noise=noise)
        keys = ("psi1", "eta")
    rows = [dict(g, limit=which) for g in grid]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateWarning)
        for nz, idx, a in _groups(grid, keys):
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            if which == "psi1-inf":
                r0 = np.atleast_1d(L.risk0_infinite_samples(m, a["psi2"], a["lam"]))
                d = np.atleast_1d(L.delta_infinite_samples(m, a["psi2"], a["lam"], a["eta"]))
                d0 = (np.atleast_1d(L.delta_infinite_samples_ridgeless(m, a["psi2"], a["eta"]))
                      if m.mu2_sq > 0 else None)
                for j, i in enumerate(idx):
                    rows[i].update(risk0=float(r0[j]), risk1=float(r0[j] - d[j]), delta=float(d[j]))
                    if d0 is not None:
                        rows[i]["delta_ridgeless"] = float(d0[j])
                    rows[i]["kernel_bound"] = L.best_linear_floor(m)
            else:
                r0 = np.atleast_1d(L.risk0_infinite_width(m, a["psi1"]))
                c = np.atleast_1d(L.delta_infinite_width_coefficient(m, a["psi1"], a["eta"]))
                k = np.atleast_1d(L.infinite_width_ridge(m, a["psi1"]))
                for j, i in enumerate(idx):
                    rows[i].update(risk0=float(r0[j]), delta_coefficient=float(c[j]),
                                   ridge_slope=float(k[j]), kernel_bound=L.best_linear_floor(m))
    meta = base_meta(command="theory limits", limit=which, **activations_meta(student=s, teacher=t),
                     formulas="10-one-step.md §5 Limits; ψ2 → ∞ derived in asymptotics.theory.one_step.limits",
                     notes="psi2-inf: delta ≈ delta_coefficient/ψ2; ridge_slope k = lim κ/(μ1²ψ2)")
    _emit(rows, meta, fmt, out, caught)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("alignment")(alignment_command)
    theory_app.command("ck-spike")(ck_spike_command)
    theory_app.command("risk")(risk_command)
    theory_app.command("limits")(limits_command)
