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
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from ...errors import ConvergenceError, ParameterError
from ...grids import cartesian, parse_values
from ...memory import check_memory
from ...params import check_int
from ...results import Columns, Result, base_meta, record
from ..common import (
    AllOpt,
    CenterOpt,
    ColumnsOpt,
    FormatOpt,
    MaxMemoryOpt,
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
#: Most points of one srf command (each solves a fixed point: about 3 ms a point on one core).
MAX_POINTS = 20_000
#: The table's default columns (every column of the result stays in csv/json/parquet).
TABLE = Columns(("eta_tilde", "alpha0", "c", "r", "gamma", "noise", "beta", "lam", "alpha"),
                ("test_error", "train_error", "r", "c", "gamma", "status"))


def parse_readout(text: str | None):
    """``VALUES[:PROPORTIONS]`` → (values, proportions or None)."""
    if text is None or not text.strip():
        return None
    parts = text.split(":")
    if len(parts) > 2:
        raise ParameterError("--readout", text, "VALUES or VALUES:PROPORTIONS, e.g. 0.3,1.7:0.5,0.5")
    values = parse_values("--readout values", parts[0])
    props = parse_values("--readout proportions", parts[1]) if len(parts) == 2 else None
    from ...theory.spiked_rf import readout_types

    return readout_types(values, props)


def _grid_values(name: str, text: str | None, allow_inf: bool = False):
    if allow_inf and text is not None and text.strip().lower() in ("inf", "infinity"):
        return [math.inf]
    return grid_values(name, text)


def finite_d_memory(d: int, p: int) -> int:
    """Bytes of the sampled bulk at (d, p): the p×d Gaussian, normalised and projected copies,
    two d×d identity factors of ``Spectrum.from_weights``, and the p×p eigendecomposition."""
    return 8 * (4 * p * d + 2 * d * d + 3 * p * p) + 256 * 2**20


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
    check_output(fmt, out)
    if not (1e-16 <= tol < 1):
        raise ParameterError("--tol", tol, "in [1e-16, 1)")
    srf_mode = any(v is not None for v in (c, r, gamma))
    net_mode = any(v is not None for v in (eta_tilde, alpha0))
    if srf_mode and net_mode:
        raise ParameterError("--c/--r/--gamma", (c, r, gamma), "not combined with --eta-tilde/--alpha0 (choose the sRF model or the network)")
    if srf_mode and None in (c, r, gamma):
        raise ParameterError("--c/--r/--gamma", (c, r, gamma), "all three given for the sRF model")
    if not srf_mode and None in (eta_tilde, alpha0):
        raise ParameterError("--eta-tilde/--alpha0", (eta_tilde, alpha0), "both given (or --c --r --gamma for the sRF model)")
    alphas = _grid_values("alpha", alpha)
    betas, lams = _grid_values("beta", beta), _grid_values("lam", lam)
    noises = _grid_values("noise", noise)
    if srf_mode:
        model_grid = cartesian(c=_grid_values("c", c), r=_grid_values("r", r), gamma=_grid_values("gamma", gamma), noise=noises)
    else:
        model_grid = cartesian(eta_tilde=_grid_values("eta_tilde", eta_tilde),
                               alpha0=_grid_values("alpha0", alpha0, allow_inf=True), noise=noises)
    cartesian(max_points=MAX_POINTS, model=model_grid, beta=betas, lam=lams, alpha=alphas)  # size check only
    ro = parse_readout(readout)
    if finite_d is not None:
        finite_d = check_int("--finite-d", finite_d, 2)
        if ro is not None and not ro.is_uniform:
            raise ParameterError("--finite-d", finite_d, "used with the uniform readout only (no --readout)")
        p_max = max(max(1, round(b * finite_d)) for b in betas)
        check_memory(f"--finite-d {finite_d} (p = {p_max})", finite_d_memory(finite_d, p_max), max_memory)
    from ...theory.spiked_rf import (
        channel_model,
        cui_to_srf,
        sample_spectrum,
        spiked_rf_curve,
        srf_parameters,
    )

    s_act = resolve_activation(student, center, "student")
    t_act = resolve_activation(teacher, center, "teacher")
    rows = []
    n_failed = 0
    spectra = {}
    with progress(len(model_grid) * len(betas) * len(lams), "theory srf") as step:
        for mp in model_grid:
            if srf_mode:
                params = srf_parameters(mp["c"], mp["r"], mp["gamma"], ro)
            else:
                params = cui_to_srf(mp["eta_tilde"], mp["alpha0"], s_act, t_act, mp["noise"], ro)
            model = channel_model(params, s_act, t_act, mp["noise"])
            for pt in cartesian(beta=betas, lam=lams):
                prior = None
                if finite_d is not None:
                    p_ = max(1, round(pt["beta"] * finite_d))
                    key = (p_, params.c)
                    if key not in spectra:  # the same draw for every λ (same seed)
                        spectra[key] = sample_spectrum(finite_d, p_, params.c, seed=seed)
                    prior = spectra[key]
                sols = spiked_rf_curve(model, alphas, pt["beta"], pt["lam"], tol=tol, on_failure="return", prior=prior)
                step()
                for sol in sols:
                    if not sol.converged:
                        n_failed += 1
                        if not keep_going:
                            raise ConvergenceError(f"{sol.message} (use --keep-going to write failed points as rows)")
                    row = {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in mp.items()
                           if k != "noise"}
                    row.update(record(sol))
                    if srf_mode:
                        row.pop("eta_tilde", None)
                        row.pop("alpha0", None)
                    row["noise"] = mp["noise"]
                    rows.append(row)
    meta = base_meta(
        command="theory srf",
        model="srf" if srf_mode else "one-step network (Cui et al. 2024)",
        activations=activations_meta(student=s_act, teacher=t_act),
        readout=None if ro is None else ro.as_dict(),
        tolerance=tol,
        prior="Marchenko–Pastur closed form" if finite_d is None else f"sampled bulk, d = {finite_d}, seed = {seed}",
        conventions="Cui et al.: alpha = n/d, beta = p/d, lam not rescaled (sum of squares + lam |a|^2); "
                    "test_error excludes the label noise, train_error includes it",
        formulas="docs/spiked-rf.md",
        failed=n_failed,
    )
    emit(Result(rows=rows, meta=meta, columns=TABLE), fmt, out, columns, show_all)


def register(theory_app: typer.Typer) -> None:
    theory_app.command("srf")(srf_command)
