"""``asymptotics theory spectrum``: the limiting eigenvalue density of the trained weights
W₁ᵀW₁ (``--matrix weights``) or of the conjugate kernel (1/n)FᵀF (``--matrix ck``), with the
support's edges, the atom at zero and each outlier's location and eigenvector overlaps
(``docs/spectra.md``).

* ``--protocol ba`` (default): ``--psi1 --psi2 --eta --noise``; ``--regime small`` (η = Θ(1), the
  default) or ``large`` (η = c√N: ``--eta`` is then c).
* ``--protocol cui``: ``--alpha --beta --eta-tilde --alpha0 --noise`` (always a large step).
* ``--before``: the matrix before the step (W₀, the random-features CK).
* Large step: outliers grow like N; ``--width N`` (or ``--d d``: N = round(ψ2·d)) gives their
  location, otherwise only ``location_per_width``. ``--equivalence gaussian`` (CK) gives the
  Gaussian-equivalence prediction instead of the conditional one.
* ``--x`` the density grid (``0:5:1001``); default ``--points`` points over the support.

The console table is a summary: the bulk's edges, the atom, the bulk mass, each outlier with its
location and its alignments (squared eigenvector overlaps), the solver status; ``--density``
prints the density instead, ``--out FILE`` writes it (csv, json, parquet) beside the summary.

Every parameter accepts a grid (``0.5``, ``1,2,4``, ``0:3:7``, ``log:1e-3:1:4``). JSON: rows
``{x, density}`` (plus the parameters when the grid has several points); meta ``support`` (list
of intervals), ``atom``, ``outliers`` (list of ``{location, overlaps: {...}}``), ``edges``,
``mass``, ``status``, ``residual`` (one entry per point in ``spectra``; at the top level too when
there is one point).

Example::

    asymptotics theory spectrum --matrix ck --psi1 3 --psi2 1 --eta 6 --student tanh --teacher tanh \\
        --noise 0.1 --format json
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..api_call import compute
from ..common import emit
from ..options import command, grid, grid_option, opt, param


@command(
    param(
        "matrix",
        Annotated[str, typer.Option("--matrix", help="weights (W1^T W1, N×N) or ck ((1/n) F^T F, N×N).")],
        "ck",
    ),
    param(
        "protocol",
        Annotated[str, typer.Option("--protocol", help="ba (Ba et al.) or cui (Cui et al.).")],
        "ba",
    ),
    param(
        "regime",
        Annotated[
            str, typer.Option("--regime", help="ba only: small (η = Θ(1)) or large (η = c√N, --eta is c).")
        ],
        "small",
    ),
    opt("student", "tanh"),
    opt("teacher", "tanh"),
    opt("center", True),
    grid("psi1", None, "ba: ψ1 = n/d (default 2)"),
    grid("psi2", None, "ba: ψ2 = N/d (default 1.5)"),
    grid("eta", None, "ba: learning rate η (small) or c of η = c√N (large) (default 5)"),
    param("alpha", str | None, grid_option(None, "cui: α = n/d of the CK data (default 2)", "--alpha")),
    param("beta", str | None, grid_option(None, "cui: β = p/d, width (default 1)", "--beta")),
    param("eta_tilde", str | None, grid_option(None, "cui: η̃ (default 3)", "--eta-tilde")),
    param("alpha0", str | None, grid_option(None, "cui: α0 = n0/d of the step (default 2)", "--alpha0")),
    grid("noise", "0.1", "σ_ε, label-noise standard deviation"),
    param(
        "before",
        Annotated[
            bool,
            typer.Option("--before/--after", help="The matrix before the step (W0, random-features CK)."),
        ],
        False,
    ),
    param(
        "equivalence",
        Annotated[
            str | None,
            typer.Option(
                "--equivalence",
                help="ck at the large step: conditional (cGET, default) or gaussian (GE hypothesis).",
            ),
        ],
        None,
    ),
    param(
        "width",
        Annotated[
            str | None, typer.Option("--width", help="large step: N for the outlier locations, or inf.")
        ],
        None,
    ),
    param(
        "d",
        Annotated[
            str | None, typer.Option("--d", help="large step: N = round(ψ2·d) for the outlier locations.")
        ],
        None,
    ),
    param(
        "x",
        Annotated[
            str | None,
            typer.Option("--x", help="density grid, e.g. 0:5:1001 (default: --points over the support)."),
        ],
        None,
    ),
    param(
        "points",
        Annotated[int | None, typer.Option("--points", help="points of the default density grid (default 1000).")],
        None,
    ),
    param(
        "types",
        Annotated[
            int | None,
            typer.Option(
                "--types",
                help="large step (ba): readout types, Gauss–Hermite nodes in u (default 8 for ck, 64 for weights).",
            ),
        ],
        None,
    ),
    param(
        "kappa_nodes",
        Annotated[int | None, typer.Option("--kappa-nodes", help="large step, ck: Gauss–Hermite nodes in κ (default 32).")],
        None,
    ),
    param(
        "density",
        Annotated[
            bool,
            typer.Option(
                "--density",
                help="Print the density (x, density) instead of the summary table (output only: csv, json, "
                "parquet and --out files always hold the density, json its summary in meta).",
            ),
        ],
        False,
    ),
    opt("fmt"),
    opt("out"),
)
def spectrum_command(fmt: str, out, density: bool = False, **options) -> None:
    """Limiting eigenvalue density, edges, atom and outliers (with eigenvector overlaps) of W1^T W1 or the CK.

    The table is a summary (bulk edges, atom, bulk mass, each outlier with its location and
    alignments, solver status); --density prints the density instead; --out FILE (csv, json,
    parquet) and --format csv/json write the density."""
    from ...api import spectra as api

    result = compute(api.spectrum, fmt, out, notes="", **options)
    for sp in result.meta["spectra"]:
        for note in sp.get("notes", []):
            typer.echo(f"note: {note}", err=True)
    if fmt != "table" or out is not None or density:
        emit(result, fmt, out)
    if fmt == "table" and not density:  # the summary on the console (beside a file written with --out)
        emit(result.summary, "table", None)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("spectrum")(spectrum_command)
