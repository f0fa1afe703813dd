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

import math
from typing import Annotated

import typer

from ...errors import ParameterError
from ...grids import parse_values
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

_SCALAR_KEYS = ("support", "atom", "atom_error", "outliers", "edges", "mass", "status", "residual", "height")


def _width(width: str | None, d: str | None, ratio: float) -> float:
    if d is not None:
        if width is not None:
            raise ParameterError("--d", d, "not given together with --width")
        dv = parse_values("--d", d)
        if len(dv) != 1 or not (dv[0] >= 2 and float(dv[0]).is_integer()):
            raise ParameterError("--d", d, "one integer dimension d >= 2")
        return float(round(ratio * dv[0]))
    if width is None or width.strip().lower() in ("inf", "infinity"):
        return math.inf
    wv = parse_values("--width", width)
    if len(wv) != 1 or not (math.isfinite(wv[0]) and wv[0] >= 1):
        raise ParameterError("--width", width, "one number of neurons N >= 1, or inf")
    return float(wv[0])


def spectrum_command(
    matrix: Annotated[str, typer.Option("--matrix", help="weights (W1^T W1, N×N) or ck ((1/n) F^T F, N×N).")] = "ck",
    protocol: Annotated[str, typer.Option("--protocol", help="ba (Ba et al.) or cui (Cui et al.).")] = "ba",
    regime: Annotated[str, typer.Option("--regime", help="ba only: small (η = Θ(1)) or large (η = c√N, --eta is c).")] = "small",
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    psi1: str = grid_option("2", "ba: ψ1 = n/d", "--psi1"),
    psi2: str = grid_option("1.5", "ba: ψ2 = N/d", "--psi2"),
    eta: str = grid_option("5", "ba: learning rate η (small) or c of η = c√N (large)", "--eta"),
    alpha: str = grid_option("2", "cui: α = n/d of the CK data", "--alpha"),
    beta: str = grid_option("1", "cui: β = p/d (width)", "--beta"),
    eta_tilde: str = grid_option("3", "cui: η̃", "--eta-tilde"),
    alpha0: str = grid_option("2", "cui: α0 = n0/d of the step", "--alpha0"),
    noise: str = grid_option("0.1", "σ_ε, label-noise standard deviation", "--noise"),
    before: Annotated[bool, typer.Option("--before/--after", help="The matrix before the step (W0, random-features CK).")] = False,
    equivalence: Annotated[str, typer.Option("--equivalence", help="ck at the large step: conditional (cGET) or gaussian (GE hypothesis).")] = "conditional",
    width: Annotated[str | None, typer.Option("--width", help="large step: N for the outlier locations, or inf.")] = None,
    d: Annotated[str | None, typer.Option("--d", help="large step: N = round(ψ2·d) for the outlier locations.")] = None,
    x: Annotated[str | None, typer.Option("--x", help="density grid, e.g. 0:5:1001 (default: --points over the support).")] = None,
    points: Annotated[int, typer.Option("--points", help="points of the default density grid.")] = 1000,
    types: Annotated[int, typer.Option("--types", help="large step (ba): readout types (Gauss–Hermite nodes in u).")] = 8,
    kappa_nodes: Annotated[int, typer.Option("--kappa-nodes", help="large step: Gauss–Hermite nodes in κ.")] = 32,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
) -> None:
    """Limiting eigenvalue density, edges, atom and outliers (with eigenvector overlaps) of W1^T W1 or the CK."""
    from ...theory.spectra import ba_step, ck_spectrum, cui_step, weights_spectrum

    if matrix not in ("weights", "ck"):
        raise ParameterError("--matrix", matrix, "weights or ck")
    if protocol not in ("ba", "cui"):
        raise ParameterError("--protocol", protocol, "ba or cui")
    if regime not in ("small", "large"):
        raise ParameterError("--regime", regime, "small or large")
    if protocol == "cui" and regime != "small":
        raise ParameterError("--regime", regime, "not given with --protocol cui (always a large step)")
    if equivalence not in ("conditional", "gaussian"):
        raise ParameterError("--equivalence", equivalence, "conditional or gaussian")
    if not (isinstance(points, int) and 2 <= points <= 1_000_000):
        raise ParameterError("--points", points, "an integer in [2, 1000000]")
    s = resolve_activation(student, center, "student")
    t = resolve_activation(teacher, center, "teacher")
    xs = None if x is None else parse_values("--x", x)
    if protocol == "ba":
        grid = build_grid(psi1=psi1, psi2=psi2, eta=eta, noise=noise)
    else:
        a0 = [math.inf] if alpha0.strip().lower() in ("inf", "infinity") else None
        grid = build_grid(alpha=alpha, beta=beta, eta_tilde=eta_tilde, noise=noise,
                          **({} if a0 else {"alpha0": alpha0}))
        if a0:
            grid = [dict(g, alpha0=math.inf) for g in grid]
    rows, spectra = [], []
    for g in grid:
        if protocol == "ba":
            step = ba_step(s, t, psi1=g["psi1"], psi2=g["psi2"], eta=g["eta"], noise=g["noise"], regime=regime,
                           center=center)
        else:
            step = cui_step(s, t, alpha=g["alpha"], beta=g["beta"], eta_tilde=g["eta_tilde"], alpha0=g["alpha0"],
                            noise=g["noise"], center=center)
        w = _width(width, d, step.width_ratio)
        if matrix == "weights":
            res = weights_spectrum(step, x=xs, points=points, before=before, width=w, types=max(types, 64))
        else:
            res = ck_spectrum(step, x=xs, points=points, before=before, width=w, equivalence=equivalence,
                              types=types, kappa_nodes=kappa_nodes)
        params = {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in g.items()}
        for r in res.rows():
            rows.append({**params, **r} if len(grid) > 1 else r)
        spectra.append({"point": params, **res.meta()})
    meta = base_meta(command="theory spectrum", matrix=matrix, protocol=protocol,
                     regime="large" if protocol == "cui" else regime, before=before,
                     **activations_meta(student=s, teacher=t), spectra=spectra,
                     formulas="docs/spectra.md (status of each formula there)")
    if len(spectra) == 1:
        meta.update({k: spectra[0][k] for k in _SCALAR_KEYS})
    for sp in spectra:
        for note in sp.get("notes", []):
            typer.echo(f"note: {note}", err=True)
    emit(Result(rows=rows, meta=meta), fmt, out)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("spectrum")(spectrum_command)
