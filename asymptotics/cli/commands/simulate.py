"""``asymptotics simulate``: Monte-Carlo simulation of the one-step network (the ground truth).

Three protocols (``--protocol``):

* ``ba``  — Ba et al. (2022): ``--psi1`` ψ1 = n/d, ``--psi2`` ψ2 = N/d, ``--eta`` with
  ``--eta-exponent`` (η = eta·N^exponent; 0.5 is the large step η = eta·√N), ``--lam`` λ
  (penalty (λ/N)‖a‖² on (1/n)‖ỹ − Φa‖²), ``--noise`` σ_ε. Reports risk0, risk1, delta (common
  random numbers), the spike (overlap_beta, overlap_a, top_sv2, bulk_edge_sv2, rank1_error, …)
  and the conjugate-kernel outlier.
* ``cui`` — Cui et al. (2024): ``--alpha`` α = n/d, ``--alpha0`` α0 = n0/d, ``--beta`` β = p/d,
  ``--eta-tilde`` η̃, ``--lam`` (Σ(y − ŷ)² + λ‖a‖², not rescaled), ``--readout VALUES[:PROPORTIONS]``.
  Reports test_error, train_error and the measured sRF parameters r, c, gamma.
* ``srf`` — the spiked random-features model: ``--alpha --beta --lam --c --r --gamma``.

Every numeric parameter (and ``--d``, ``--steps``) accepts a grid: ``0.5``, ``1,2,4``,
``0:1:5``, ``log:1e-4:1:5``; several grids form a Cartesian product, each point simulated with
the same root seed (common random numbers along the grid). Each row carries ``<name>_mean``,
``<name>_se`` (standard error over seeds) and, for test-set quantities, ``<name>_test_se`` (the
part of the error due to the finite test set). ``--per-seed`` writes one row per seed instead.

Example::

    asymptotics simulate --protocol ba --d 1000 --psi1 2 --psi2 1.5 --eta 1,3,5,10 \\
        --seeds 4 --workers 2 --format json --out alignment.json
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...errors import ParameterError
from ...grids import parse_values
from ...memory import check_memory, parse_memory
from ...params import check_int
from ...results import Columns, Result, base_meta
from ..common import (
    AllOpt,
    CenterOpt,
    ColumnsOpt,
    FormatOpt,
    MaxMemoryOpt,
    OutOpt,
    StudentOpt,
    TeacherOpt,
    build_grid,
    check_output,
    emit,
    resolve_activation,
)

GRID = "a number, a list 1,2,4, a range start:stop:num or log:start:stop:num"
#: Caps of one command: seeds per point, test points per seed, grid points, all (point, seed) tasks.
MAX_SEEDS = 100_000
MAX_TEST = 10_000_000
MAX_POINTS = 10_000
MAX_TASKS = 100_000
MAX_WORKERS = 1024

_SIM_PARAMS = ("d", "psi1", "psi2", "eta", "eta_exponent", "alpha", "alpha0", "beta", "eta_tilde", "c", "r",
               "gamma", "lam", "noise", "steps")
#: The quantities the table shows by default, per protocol and measurement group (mean ± s.e.).
_SHOWN = {
    "ba": {"risk": ("risk0", "risk1", "delta"), "spike": ("overlap_beta",), "ck": ("ck_outlier",)},
    "cui": {"risk": ("test_error",), "spike": ("r", "c", "gamma")},
    "srf": {"risk": ("test_error", "train_error")},
}


def table_columns(measure: tuple[str, ...], protocol: str) -> Columns:
    """The default table of a simulation: the varying grid parameters and the measured quantities."""
    shown = [q for group in measure for q in _SHOWN[protocol].get(group, ())]
    if protocol == "srf":
        shown = list(_SHOWN["srf"]["risk"])
    return Columns(_SIM_PARAMS, tuple(shown))

#: grid parameters of each protocol (CLI option name → config field)
_PROTOCOL_GRIDS = {
    "ba": ("d", "psi1", "psi2", "eta", "eta_exponent", "lam", "noise", "steps"),
    "cui": ("d", "alpha", "alpha0", "beta", "eta_tilde", "lam", "noise", "steps"),
    "srf": ("d", "alpha", "beta", "lam", "c", "r", "gamma", "noise"),
}
_ALL_GRIDS = sorted({n for v in _PROTOCOL_GRIDS.values() for n in v})


def _opt(name: str) -> str:
    return "--" + name.replace("_", "-")


def parse_readout(text: str | None):
    """``VALUES[:PROPORTIONS]`` → (values, proportions); equal proportions when omitted."""
    if text is None or not text.strip():
        return None
    parts = text.split(":")
    if len(parts) > 2:
        raise ParameterError("--readout", text, "VALUES or VALUES:PROPORTIONS, e.g. 0.3,1.7:0.5,0.5")
    values = tuple(parse_values("--readout", parts[0]))
    if len(parts) == 2:
        props = tuple(parse_values("--readout", parts[1]))
    else:
        props = tuple(1.0 / len(values) for _ in values)
    return values, props


def _g(help_text: str):
    return typer.Option(help=f"{help_text} ({GRID}).")


def simulate_command(
    protocol: Annotated[
        str, typer.Option("--protocol", help="ba (Ba et al.), cui (Cui et al.) or srf (spiked RF model).")
    ] = "ba",
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    d: Annotated[str, _g("input dimension d, an integer >= 2")] = "1000",
    psi1: Annotated[str | None, _g("(ba) ψ1 = n/d (default 2)")] = None,
    psi2: Annotated[str | None, _g("(ba) ψ2 = N/d (default 1.5)")] = None,
    eta: Annotated[str | None, _g("(ba) learning-rate constant; η = eta·N^eta_exponent (default 1)")] = None,
    eta_exponent: Annotated[
        str | None, _g("(ba) exponent of N in η, in [0, 1]; 0.5 is the large step (default 0)")
    ] = None,
    alpha: Annotated[str | None, _g("(cui, srf) α = n/d of the readout set (default 1)")] = None,
    alpha0: Annotated[str | None, _g("(cui) α0 = n0/d of the first-step batch (default 1)")] = None,
    beta: Annotated[str | None, _g("(cui, srf) β = p/d, width (default 1)")] = None,
    eta_tilde: Annotated[str | None, _g("(cui) η̃, step η̃·p on the plain gradient (default 1)")] = None,
    c: Annotated[str | None, _g("(srf) bulk variance c (default 1)")] = None,
    r: Annotated[str | None, _g("(srf) spike strength r (default 0)")] = None,
    gamma: Annotated[str | None, _g("(srf) spike–target overlap γ in [-1, 1] (default 0)")] = None,
    lam: Annotated[
        str | None,
        _g(
            "ridge λ >= 0 (ba: (λ/N)|a|² on the mean loss, default 1e-3; cui/srf: λ|a|² on the summed loss, default 0.01)"
        ),
    ] = None,
    noise: Annotated[str | None, _g("label-noise standard deviation σ_ε (ba default 0.1, cui/srf 0)")] = None,
    steps: Annotated[str | None, _g("(ba, cui) number of gradient steps T >= 1 (default 1)")] = None,
    readout: Annotated[
        str | None,
        typer.Option(
            "--readout",
            help="(cui, srf) readout types VALUES[:PROPORTIONS], e.g. 0.3,1.7:0.5,0.5 (default: uniform 1).",
        ),
    ] = None,
    features: Annotated[
        str, typer.Option("--features", help="true: σ(Wᵀx); ge: Gaussian equivalent μ0 + μ1Wᵀx + μ2 z.")
    ] = "true",
    gradient: Annotated[
        str,
        typer.Option("--gradient", help="(ba, cui) exact gradient, or rank1 (its rank-one approximation)."),
    ] = "exact",
    batches: Annotated[
        str,
        typer.Option(
            "--batches", help="(ba, cui) same: full-batch steps on one set; fresh: a new batch per step."
        ),
    ] = "same",
    measure: Annotated[
        str | None,
        typer.Option(
            "--measure",
            help="measurement groups, comma-separated: risk, spike, ck (cui also baseline); default per protocol.",
        ),
    ] = None,
    n_test: Annotated[
        int, typer.Option("--n-test", help="test points per seed (streamed in chunks).")
    ] = 10_000,
    seeds: Annotated[
        int, typer.Option("--seeds", help="independent seeds per grid point (>= 2 for standard errors).")
    ] = 4,
    root_seed: Annotated[int, typer.Option("--seed", help="root seed of every numpy SeedSequence.")] = 0,
    workers: Annotated[
        int, typer.Option("--workers", help="worker processes (seeds and grid points in parallel).")
    ] = 1,
    blas_threads: Annotated[
        int | None,
        typer.Option("--blas-threads", help="BLAS/numba threads per task (default: cores // workers)."),
    ] = None,
    per_seed: Annotated[
        bool, typer.Option("--per-seed", help="one row per seed instead of mean ± s.e.")
    ] = False,
    max_memory: MaxMemoryOpt = None,
    fmt: FormatOpt = "table",
    out: OutOpt = None,
    columns: ColumnsOpt = None,
    show_all: AllOpt = False,
) -> None:
    """Monte-Carlo simulation of the one-step network: risks, spike, CK (mean ± s.e. over seeds)."""
    check_output(fmt, out)
    seeds = check_int("--seeds", seeds, 1, MAX_SEEDS)
    n_test = check_int("--n-test", n_test, 2, MAX_TEST)
    workers = check_int("--workers", workers, 1, MAX_WORKERS)
    if blas_threads is not None:
        check_int("--blas-threads", blas_threads, 1, 4096)
    check_int("--seed", root_seed, 0)
    proto = protocol.strip().lower()
    if proto not in _PROTOCOL_GRIDS:
        raise ParameterError("--protocol", protocol, "one of ba, cui, srf")
    texts = {
        "d": d, "psi1": psi1, "psi2": psi2, "eta": eta, "eta_exponent": eta_exponent, "alpha": alpha,
        "alpha0": alpha0, "beta": beta, "eta_tilde": eta_tilde, "c": c, "r": r, "gamma": gamma, "lam": lam,
        "noise": noise, "steps": steps,
    }  # fmt: skip
    allowed = _PROTOCOL_GRIDS[proto]
    for name in _ALL_GRIDS:
        if texts[name] is not None and name not in allowed:
            raise ParameterError(
                _opt(name),
                texts[name],
                f"omitted with --protocol {proto} (it takes {', '.join(map(_opt, allowed))})",
            )
    if proto == "ba" and readout is not None:
        raise ParameterError(
            "--readout", readout, "omitted with --protocol ba (its readout is Gaussian N(0, 1/N))"
        )
    fixed: dict = {
        "student": student,
        "teacher": teacher,
        "center": center,
        "features": features,
        "n_test": n_test,
    }
    if proto != "srf":
        fixed.update(gradient=gradient, batches=batches)
    elif (gradient, batches) != ("exact", "same"):
        raise ParameterError(
            "--gradient/--batches",
            (gradient, batches),
            "left at exact/same with --protocol srf (the sRF model has no training step)",
        )
    if measure is not None:
        fixed["measure"] = measure
    ro = parse_readout(readout)
    if ro is not None:
        fixed.update(readout_values=ro[0], readout_proportions=ro[1])
    if max_memory is not None:
        parse_memory(max_memory, "--max-memory")
    grid = build_grid(MAX_POINTS, **{name: texts[name] for name in allowed})
    if len(grid) * seeds > MAX_TASKS:
        raise ParameterError("--seeds", seeds, f"at most {MAX_TASKS} (grid points × seeds) tasks in one command",
                             f"{len(grid)} points × {seeds} seeds; use asymptotics sweep for larger runs")
    resolve_activation(student, center, "student")  # one error naming the option, moments checked
    resolve_activation(teacher, center, "teacher")
    from validation.simulator import config_class, simulate_many
    from validation.simulator.config import memory_estimate

    cls = config_class(proto)
    configs = []
    for point in grid:
        if "d" in point:
            point["d"] = int(point["d"])
        if "steps" in point:
            point["steps"] = int(point["steps"])
        configs.append(cls(**fixed, **point))
    largest = max(configs, key=memory_estimate)
    parallel = min(workers, len(configs) * seeds)
    what = f"simulate at d = {largest.d}" + (f" with {parallel} workers" if parallel > 1 else "")
    check_memory(what, parallel * memory_estimate(largest), max_memory)

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    total = len(configs) * seeds
    with Progress(
        TextColumn(f"simulating {proto}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as prog:
        task = prog.add_task("seeds", total=total)
        results = simulate_many(
            configs,
            seeds=seeds,
            root_seed=root_seed,
            workers=workers,
            blas_threads=blas_threads,
            progress=lambda done, tot: prog.update(task, completed=done),
        )
    if per_seed:
        rows = []
        for res in results:
            params = res.config.as_dict()
            for ps in res.per_seed:
                rows.append({**params, **ps})
    else:
        rows = [res.as_row() for res in results]
    first = results[0].meta
    meta = base_meta(
        command="simulate",
        protocol=proto,
        seeds=seeds,
        root_seed=root_seed,
        workers=workers,
        student=first["student"],
        teacher=first["teacher"],
        streams=first["streams"],
        test_set=first["test_set"],
        threads_per_task=first["threads_per_task"],
        blas_threads_controlled=first["blas_threads_controlled"],
        elapsed_s=first["elapsed_s"],
        simulator_versions=first["versions"],
    )
    table = table_columns(configs[0].measure, proto)
    if per_seed:
        table = Columns(table.params + ("seed",), table.values)
    emit(Result(rows=rows, meta=meta, columns=table), fmt, out, columns, show_all)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)
