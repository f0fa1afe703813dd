"""``asymptotics theory srf``: test and training error of the ridge readout after one large step
(Cui et al. 2024), or of the spiked random-features model directly.

Two ways to give the model (every parameter accepts a grid: ``0.5``, ``1,2,4``, ``0:3:7``,
``log:1e-3:1:4``; several grids form a Cartesian product):

* the one-step network: ``--eta-tilde`` η̃ and ``--alpha0`` α0 = n0/d (``inf`` for the isotropic
  limit), mapped to (c, r, γ);
* the sRF model itself: ``--c --r --gamma``.

Common: ``--alpha`` α = n/d, ``--beta`` β = p/d, ``--lam`` λ (Cui's ridge Σ(y − ŷ)² + λ‖a‖², not
rescaled), ``--noise`` σ_ε, ``--readout VALUES[:PROPORTIONS]`` readout-initialisation types
(``0.3,1.7:0.5,0.5``; equal proportions when omitted). Curves along α are solved by continuation.

Example::

    asymptotics theory srf --alpha 0.5,1.5,3 --alpha0 1 --eta-tilde 5 --lam 0.01 \\
        --student tanh --teacher tanh --format json

The command wraps the Python API (``asy.spiked_rf``: :mod:`asymptotics.api.srf`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...api import srf as api
from ..api_call import run_api
from ..common import (
    AllOpt,
    CenterOpt,
    ColumnsOpt,
    FormatOpt,
    MaxMemoryOpt,
    OutOpt,
    StudentOpt,
    TeacherOpt,
)

GRID = "a number, a list 1,2,4, a range start:stop:num or log:start:stop:num"
# The limits, the table and the helpers live with the API (asymptotics.api.srf); kept here under their names.
MAX_POINTS, TABLE, parse_readout, finite_d_memory = api.MAX_POINTS, api.TABLE, api.parse_readout, api.finite_d_memory


def srf_command(
    alpha: Annotated[str, typer.Option("--alpha", metavar="GRID", help=f"α = n/d, samples of the ridge per dimension ({GRID}).")],
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    beta: Annotated[str, typer.Option("--beta", metavar="GRID", help=f"β = p/d, width per dimension ({GRID}).")] = "1",
    lam: Annotated[str, typer.Option("--lam", metavar="GRID", help=f"ridge λ ≥ 0, Cui's convention Σ(y − ŷ)² + λ‖a‖² ({GRID}).")] = "0.01",
    eta_tilde: Annotated[str | None, typer.Option("--eta-tilde", metavar="GRID", help=f"η̃ ≥ 0, one-step learning rate (η̃·p on the plain gradient) ({GRID}).")] = None,
    alpha0: Annotated[str | None, typer.Option("--alpha0", metavar="GRID", help=f"α0 = n0/d of the first step, or inf ({GRID}).")] = None,
    c: Annotated[str | None, typer.Option("--c", metavar="GRID", help=f"sRF bulk variance c > 0 ({GRID}); with --r --gamma instead of --eta-tilde --alpha0.")] = None,
    r: Annotated[str | None, typer.Option("--r", metavar="GRID", help=f"sRF spike strength r ({GRID}).")] = None,
    gamma: Annotated[str | None, typer.Option("--gamma", metavar="GRID", help=f"sRF spike–target overlap γ ∈ [−1, 1] ({GRID}).")] = None,
    noise: Annotated[str, typer.Option("--noise", metavar="GRID", help=f"label-noise standard deviation σ_ε ({GRID}).")] = "0",
    readout: Annotated[str | None, typer.Option("--readout", metavar="TYPES", help="readout-initialisation types VALUES[:PROPORTIONS], e.g. 0.3,1.7:0.5,0.5.")] = None,
    center: CenterOpt = True,
    tol: Annotated[float, typer.Option("--tol", help="residual tolerance of the fixed point, in [1e-16, 1).")] = 1e-12,
    finite_d: Annotated[int | None, typer.Option("--finite-d", help="instead of the Marchenko–Pastur limit, use the spectrum of one sampled bulk at this d (p = round(βd); the authors' finite-d approach; uniform readout only).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed of the sampled bulk for --finite-d.")] = 0,
    keep_going: Annotated[bool, typer.Option("--keep-going", help="write failed points as rows with their status (numbers null) instead of stopping.")] = False,
    max_memory: MaxMemoryOpt = None,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Exact asymptotic test/training error of ridge on spiked random features (one large step)."""
    run_api(api.spiked_rf, fmt, out, columns, show_all, alpha=alpha, student=student, teacher=teacher, beta=beta,
            lam=lam, eta_tilde=eta_tilde, alpha0=alpha0, c=c, r=r, gamma=gamma, noise=noise, readout=readout,
            center=center, tol=tol, finite_d=finite_d, seed=seed, max_memory=max_memory,
            on_failure="mark" if keep_going else "raise")


def register(theory_app: typer.Typer) -> None:
    theory_app.command("srf")(srf_command)
