"""``asymptotics theory srf``: test and training error of the ridge readout after one large step
(Cui et al. 2024), or of the spiked random-features model directly.

Two ways to give the model (every parameter accepts a grid: ``0.5``, ``1,2,4``, ``0:3:7``,
``log:1e-3:1:4``; several grids form a Cartesian product):

* the one-step network: ``--eta-tilde`` η̃ and ``--alpha0`` α0 = n0/d (``inf`` for the isotropic
  limit), mapped to (c, r, γ);
* the sRF model itself: ``--c --r --gamma``.

The default (``--bulk isotropic``) is Cui et al.'s sRF model of the network (the paper's theory), not
the network's own test error. ``--bulk network`` is the one-step network's theory (the structured
bulk and the step's self term together; rows carry the isotropic value beside); ``--bulk structured``
and ``--bulk self-term`` are its two parts alone. ``--width`` adds the
finite-width theory of the readout's mean directions (readout types).

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

from ..api_call import run_api
from ..options import GRID_HELP as GRID
from ..options import OUTPUT, command, grid, opt, param


@command(
    param(
        "alpha",
        Annotated[
            str,
            typer.Option(
                "--alpha", metavar="GRID", help=f"α = n/d, samples of the ridge per dimension ({GRID})."
            ),
        ],
    ),
    opt("student", "tanh"),
    opt("teacher", "tanh"),
    param(
        "beta",
        Annotated[
            str, typer.Option("--beta", metavar="GRID", help=f"β = p/d, width per dimension ({GRID}).")
        ],
        "1",
    ),
    grid("lam", "0.01", "ridge λ ≥ 0, Cui's convention Σ(y − ŷ)² + λ‖a‖²"),
    param(
        "eta_tilde",
        Annotated[
            str | None,
            typer.Option(
                "--eta-tilde",
                metavar="GRID",
                help=f"η̃ ≥ 0, one-step learning rate (η̃·p on the plain gradient) ({GRID}).",
            ),
        ],
        None,
    ),
    param(
        "alpha0",
        Annotated[
            str | None,
            typer.Option("--alpha0", metavar="GRID", help=f"α0 = n0/d of the first step, or inf ({GRID})."),
        ],
        None,
    ),
    param(
        "c",
        Annotated[
            str | None,
            typer.Option(
                "--c",
                metavar="GRID",
                help=f"sRF bulk variance c > 0 ({GRID}); with --r --gamma instead of --eta-tilde --alpha0.",
            ),
        ],
        None,
    ),
    param(
        "r",
        Annotated[str | None, typer.Option("--r", metavar="GRID", help=f"sRF spike strength r ({GRID}).")],
        None,
    ),
    param(
        "gamma",
        Annotated[
            str | None,
            typer.Option("--gamma", metavar="GRID", help=f"sRF spike–target overlap γ ∈ [−1, 1] ({GRID})."),
        ],
        None,
    ),
    grid("noise", "0", "label-noise standard deviation σ_ε"),
    param(
        "readout",
        Annotated[
            str | None,
            typer.Option(
                "--readout",
                metavar="TYPES",
                help="readout-initialisation types VALUES[:PROPORTIONS], e.g. 0.3,1.7:0.5,0.5.",
            ),
        ],
        None,
    ),
    opt("center", True),
    param(
        "tol",
        Annotated[float, typer.Option("--tol", help="residual tolerance of the fixed point, in [1e-16, 1).")],
        1e-12,
    ),
    param(
        "finite_d",
        Annotated[
            int | None,
            typer.Option(
                "--finite-d",
                help="instead of the Marchenko–Pastur limit, use the spectrum of one sampled bulk at this d (p = round(βd); the authors' finite-d approach; uniform readout only).",
            ),
        ],
        None,
    ),
    param(
        "width",
        Annotated[
            str | None,
            typer.Option(
                "--width",
                metavar="GRID",
                help="finite width p (number of neurons; a grid): the deterministic finite-p theory of the readout's mean directions beside p = ∞ (docs/spiked-rf-finite-width.md; slow limits with readout types).",
            ),
        ],
        None,
    ),
    param(
        "bulk",
        Annotated[
            str,
            typer.Option(
                "--bulk",
                metavar="BULK",
                help="isotropic (default: Cui et al.'s sRF model, the paper's theory, not the network's test error: 5–17 % low at strong steps), network: the one-step network's own theory (structured bulk + self term, valid over the whole (η̃, α0) plane), structured: the trained bulk's weighted-Wishart covariance alone, or self-term: the isotropic map plus the step's self term w⁰ⱼ(1 + k⟨w⁰ⱼ, v⟩) alone (all but isotropic: odd student, uniform readout, no label noise; docs/spiked-rf-finite-width.md).",
            ),
        ],
        "isotropic",
    ),
    opt("seed", None, help="seed of the sampled bulk, with --finite-d only (default 0)."),
    opt("keep_going"),
    opt("max_memory", help="Memory the sampled bulk of --finite-d may use, e.g. 8GiB (default: 80% of the memory "
        "available now); with --finite-d only."),
    *OUTPUT,
)
def srf_command(**options) -> None:
    """Exact asymptotic test/training error of ridge on spiked random features (one large step)."""
    from ...api import srf as api

    run_api(api.spiked_rf, **options)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("srf")(srf_command)
