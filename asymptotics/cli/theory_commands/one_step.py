"""``asymptotics theory alignment | ck-spike | risk | limits``: one gradient step at η = Θ(1)
(Ba et al. 2022; ``docs/one-step.md``).

Every command takes ``--student/--teacher`` (centred by default) and grids for ψ1 = n/d
(``--psi1``), ψ2 = N/d (``--psi2``), η (``--eta``), λ (``--lam``) and σ_ε (``--noise``) in the
shared grid syntax (``0.5``, ``1,2,4``, ``0:10:21``, ``log:1e-4:10:6``); the rows hold the
parameters and the predicted quantities (json keys ``eta_threshold, overlap_beta, overlap_a,
top_sv2, ck_outlier, risk0, risk1, delta, kernel_bound``; ``risk`` rows also ``status``).

Each command is a thin wrapper over the Python API (:mod:`asymptotics.api.one_step`: ``asy.risk``
and friends): it passes the option strings, the API parses, checks and computes, so the two can
never diverge.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...api import one_step as api
from ..api_call import run_api
from ..common import AllOpt, CenterOpt, ColumnsOpt, FormatOpt, OutOpt, StudentOpt, TeacherOpt, grid_option

# The tables and fields live with the API (asymptotics.api.one_step); kept here under their names.
MAX_POINTS = api.MAX_POINTS
ALIGNMENT_FIELDS, ALIGNMENT_TABLE = api.ALIGNMENT_FIELDS, api.ALIGNMENT_TABLE
CK_FIELDS, CK_TABLE = api.CK_FIELDS, api.CK_TABLE
ROUTE_NAMES, RISK_FIELDS, RISK_TABLE, LIMITS_TABLE = api.ROUTE_NAMES, api.RISK_FIELDS, api.RISK_TABLE, api.LIMITS_TABLE

_PSI1 = grid_option("2", "ψ1 = n/d, samples per dimension", "--psi1")
_PSI2 = grid_option("1.5", "ψ2 = N/d, width per dimension", "--psi2")
_ETA = grid_option("1", "learning rate η of the first step (η = Θ(1))", "--eta")
_ETA_SWEEP = grid_option("0:10:11", "learning rate η of the first step (η = Θ(1))", "--eta")
_LAM = grid_option("1e-3", "ridge penalty λ of (1/n)‖y − Φa‖² + (λ/N)‖a‖²", "--lam")
_NOISE = grid_option("0.1", "σ_ε, standard deviation of the label noise", "--noise")
KeepGoingOpt = Annotated[bool, typer.Option(
    "--keep-going", help="write points without a solution as rows with their status (numbers null) instead of stopping.")]


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
    run_api(api.alignment, fmt, out, columns, show_all, student=student, teacher=teacher, center=center, psi1=psi1,
        psi2=psi2, eta=eta, noise=noise)


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
    run_api(api.ck_spike, fmt, out, columns, show_all, student=student, teacher=teacher, center=center, psi1=psi1,
        psi2=psi2, eta=eta, noise=noise)


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
    keep_going: KeepGoingOpt = False,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Risks of the CK ridge before (R0) and after (R1) one step, δ = R0 − R1 ≥ 0, and the floor μ2*²."""
    run_api(api.risk, fmt, out, columns, show_all, student=student, teacher=teacher, center=center, psi1=psi1,
        psi2=psi2, lam=lam, eta=eta, noise=noise, route=route, on_failure="mark" if keep_going else "raise")


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
    run_api(api.limits, fmt, out, columns, show_all, student=student, teacher=teacher, center=center, limit=limit,
        psi1=psi1, psi2=psi2, lam=lam, eta=eta, noise=noise)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("alignment")(alignment_command)
    theory_app.command("ck-spike")(ck_spike_command)
    theory_app.command("risk")(risk_command)
    theory_app.command("limits")(limits_command)
