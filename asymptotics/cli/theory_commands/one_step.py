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

from ..api_call import run_api
from ..options import OUTPUT, command, grid, opt, param

_ACTIVATIONS = (opt("student", "tanh"), opt("teacher", "tanh"), opt("center", True))
_SPIKE = (
    *_ACTIVATIONS,
    grid("psi1", "2"),
    grid("psi2", "1.5"),
    grid("eta", "0:10:11"),
    grid("noise", "0.1"),
    *OUTPUT,
)
_RISK_GRIDS = (
    grid("psi1", "2"),
    grid("psi2", "1.5"),
    grid("lam", "1e-3"),
    grid("eta", "1"),
    grid("noise", "0.1"),
)
_ROUTE = param(
    "route",
    Annotated[
        str | None,
        typer.Option(
            "--route",
            metavar="ROUTES",
            help="A (Mei–Montanari, R0 only), B (deterministic equivalent), C (linear pencil), or a list "
            "'A,B,C' (one row per route). Rows carry 'route' when given.",
        ),
    ],
    None,
)
_LIMIT = param(
    "limit",
    Annotated[
        str,
        typer.Option(
            "--limit",
            metavar="LIMIT",
            help="psi1-inf: ψ1 → ∞ over (ψ2, λ, η); psi2-inf: ψ2 → ∞ over (ψ1, η) (R0 limit and δ ≈ C/ψ2)",
        ),
    ],
    "psi1-inf",
)
_KEEP_GOING = opt(
    "keep_going",
    help="write points without a solution as rows with their status (numbers null) instead of stopping.",
)


@command(*_SPIKE)
def alignment_command(**options) -> None:
    """Spike of W₁ after one step: BBP threshold η_c (θ⁴ = ψ2), s₁(W₁)², ⟨u₁, β*⟩², ⟨v₁, a⟩², ‖W₁ᵀβ*‖²."""
    from ...api import one_step as api

    run_api(api.alignment, **options)


@command(*_SPIKE)
def ck_spike_command(**options) -> None:
    """Top eigenvalue of the trained CK S = σ(X̃W₁)ᵀσ(X̃W₁)/n: outlier (spiked-covariance map) or bulk edge;
    ``ck_gram_outlier`` is the same for the n×n Gram matrix σσᵀ/N."""
    from ...api import one_step as api

    run_api(api.ck_spike, **options)


@command(*_ACTIVATIONS, *_RISK_GRIDS, _ROUTE, _KEEP_GOING, *OUTPUT)
def risk_command(**options) -> None:
    """Risks of the CK ridge before (R0) and after (R1) one step, δ = R0 − R1 ≥ 0, and the floor μ2*²."""
    from ...api import one_step as api

    run_api(api.risk, **options)


#: The limits' grids: ψ1 only at ψ2 = ∞, ψ2 and λ only at ψ1 = ∞ (a value the limit removes is refused).
_LIMIT_GRIDS = (
    grid("psi1", None, "ψ1 = n/d, with --limit psi2-inf only (default 2)"),
    grid("psi2", None, "ψ2 = N/d, with --limit psi1-inf only (default 1.5)"),
    grid("lam", None, "ridge penalty λ, with --limit psi1-inf only (default 1e-3)"),
    grid("eta", "1"),
    grid("noise", "0.1"),
)


@command(*_ACTIVATIONS, _LIMIT, *_LIMIT_GRIDS, *OUTPUT)
def limits_command(**options) -> None:
    """Limits: the best-linear floor μ2*² (kernel_bound); ψ1 → ∞ closed forms of R0, R1, δ (and δ at
    λ → 0); ψ2 → ∞: R0's kernel limit and the coefficient C of δ ≈ C/ψ2."""
    from ...api import one_step as api

    run_api(api.limits, **options)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("alignment")(alignment_command)
    theory_app.command("ck-spike")(ck_spike_command)
    theory_app.command("risk")(risk_command)
    theory_app.command("limits")(limits_command)
