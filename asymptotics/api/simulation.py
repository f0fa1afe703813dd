r"""``asy.simulate``: Monte-Carlo simulation of the one-step network (the ground truth), the command
``asymptotics simulate``.

Three protocols (``protocol``): ``"ba"`` — Ba et al. (2022): ``psi1``, ``psi2``, ``eta`` with
``eta_exponent`` (η = eta·N^exponent; 0.5 is the large step), ``lam`` ((λ/N)‖a‖² on the mean
loss), ``noise``; ``"cui"`` — Cui et al. (2024): ``alpha``, ``alpha0``, ``beta``, ``eta_tilde``,
``lam`` (Σ(y − ŷ)² + λ‖a‖²), ``readout``; ``"srf"`` — the spiked random-features model:
``alpha``, ``beta``, ``lam``, ``c``, ``r``, ``gamma``. Parameters a protocol does not take must be
left at ``None``; those left at ``None`` take the protocol's defaults.

Every numeric parameter (and ``d``, ``steps``) is a grid; several form a Cartesian product, each
point simulated with the same root ``seed`` (common random numbers along the grid). Each row
carries ``<name>_mean``, ``<name>_se`` (standard error over seeds) and, for test-set quantities,
``<name>_test_se``; ``per_seed=True`` gives one row per seed.

Options of the simulator's configurations that only some versions have (``test_risk``) are
passed through when given (:func:`config_options`, the one place that knows them).

>>> import asymptotics as asy
>>> sim = asy.simulate(d=60, psi1=2, psi2=1.5, eta=[1, 5], measure="risk", seeds=2)
>>> len(sim.rows), sim.rows[0]["risk1_mean"] > 0
(2, True)
"""

from __future__ import annotations

from dataclasses import fields

from ..errors import ParameterError
from ..memory import check_memory, parse_memory
from ..params import check_int
from ..results import Columns, Result, base_meta
from .checks import checked, refuse_unused
from .errors import option
from .grid import product, values
from .progress import Progress
from .srf import readout_parts

__all__ = ["simulate", "config_options", "table_columns", "MAX_SEEDS", "MAX_TEST", "MAX_POINTS", "MAX_TASKS",
           "MAX_WORKERS", "PROTOCOL_GRIDS"]

#: Caps of one computation: seeds per point, test points per seed, grid points, (point, seed) tasks.
MAX_SEEDS = 100_000
MAX_TEST = 10_000_000
MAX_POINTS = 10_000
MAX_TASKS = 100_000
MAX_WORKERS = 1024
#: From this d on, a simulation states its memory need up front and prints each phase of each seed.
LONG_RUN_D = 4000

_SIM_PARAMS = ("d", "psi1", "psi2", "eta", "eta_exponent", "alpha", "alpha0", "beta", "eta_tilde", "c", "r",
               "gamma", "self_term", "lam", "noise", "steps")
#: The quantities the table shows by default, per protocol and measurement group (mean ± s.e.).
_SHOWN = {
    "ba": {"risk": ("risk0", "risk1", "delta"), "spike": ("overlap_beta",), "ck": ("ck_outlier",)},
    "cui": {"risk": ("test_error",), "spike": ("r", "c", "gamma")},
    "srf": {"risk": ("test_error", "train_error")},
}
#: The grid parameters of each protocol.
PROTOCOL_GRIDS = {
    "ba": ("d", "psi1", "psi2", "eta", "eta_exponent", "lam", "noise", "steps"),
    "cui": ("d", "alpha", "alpha0", "beta", "eta_tilde", "lam", "noise", "steps"),
    "srf": ("d", "alpha", "beta", "lam", "c", "r", "gamma", "self_term", "noise"),
}


def table_columns(measure: tuple[str, ...], protocol: str) -> Columns:
    """The default table of a simulation: the varying grid parameters and the measured quantities."""
    shown = [q for group in measure for q in _SHOWN[protocol].get(group, ())]
    if protocol == "srf":
        shown = list(_SHOWN["srf"]["risk"])
    return Columns(_SIM_PARAMS, tuple(shown))


def _readout(readout):
    """``"VALUES[:PROPORTIONS]"``, a list of values or ``(values, proportions)`` → (values,
    proportions) with equal proportions when omitted; ``None`` stays ``None``."""
    name = option("readout")
    parts = readout_parts(readout, lambda part, text: tuple(values(name, text)))
    if parts is None:
        return None
    vals, props = parts
    return vals, props if props is not None else tuple(1.0 / len(vals) for _ in vals)


def config_options(cls, **options) -> dict:
    """The options given (not ``None``) that the configuration class ``cls`` takes; an option it
    does not have is a ParameterError (the installed simulator does not support it)."""
    have = {f.name for f in fields(cls)}
    out = {}
    for name, value in options.items():
        if value is None:
            continue
        if name not in have:
            raise ParameterError(option(name), value, f"left unset: the {cls.protocol} simulator has no {name} option")
        out[name] = value
    return out


def _refuse_unused_risk_options(test_risk, n_test, risk_rtol) -> None:
    """``n_test`` is the Monte-Carlo test set's size, ``risk_rtol`` the exact risk's tolerance: each
    is refused with the other way of computing the risk."""
    mc = isinstance(test_risk, str) and test_risk.strip().lower().replace("_", "-") == "monte-carlo"
    if mc:
        refuse_unused({"risk_rtol": risk_rtol}, (), f"{option('test_risk')} monte-carlo",
                      "it is the tolerance of the exact risk")
    else:
        refuse_unused({"n_test": n_test}, (), f"{option('test_risk')} exact",
                      f"the exact risk needs no test set; {option('test_risk')} monte-carlo uses one")


@checked
def simulate(*, protocol: str = "ba", student="tanh", teacher="tanh", center: bool = True, d=1000, psi1=None,
             psi2=None, eta=None, eta_exponent=None, alpha=None, alpha0=None, beta=None, eta_tilde=None, c=None,
             r=None, gamma=None, self_term=None, lam=None, noise=None, steps=None, readout=None, features: str = "true",
             gradient: str = "exact", batches: str = "same", initial_columns: str | None = None, measure=None,
             n_test: int | None = None,
             test_risk=None, risk_rtol=None, seeds: int = 4, seed: int = 0, workers: int = 1, blas_threads: int | None = None,
             per_seed: bool = False, max_memory=None, progress: bool | None = None, matrix: str = "weights,ck",
             ck_features: str = "true,ge", before: bool = False, top: int = 3, bins=None,
             eigenvalues: bool = False) -> Result:
    """Monte-Carlo simulation of the one-step network: risks, spike, CK (mean ± s.e. over seeds)
    (``asymptotics simulate``).

    Args:
        protocol: ``"ba"`` (Ba et al.), ``"cui"`` (Cui et al.) or ``"srf"`` (spiked RF model).
        student: σ, a built-in name or an expression in ``x``.
        teacher: σ*, likewise.
        center: centre σ and σ*.
        d: input dimension, an integer ≥ 2 (grid).
        psi1, psi2, eta, eta_exponent: (ba) ψ1 = n/d (default 2), ψ2 = N/d (1.5), the learning-rate
            constant (1) and the exponent of N in η (0; 0.5 is the large step) (grids).
        alpha, alpha0, beta, eta_tilde: (cui, srf) α = n/d (1), α0 = n0/d (1), β = p/d (1), η̃ (1) (grids).
        c, r, gamma: (srf) bulk variance (1), spike strength (0), spike–target overlap (0) (grids).
        self_term: (srf) k of the step's self term, bulk columns √c wⱼ(1 + k uⱼ⟨wⱼ, v⟩) (0) (grid;
            ``docs/spiked-rf-finite-width.md``, "The self term").
        lam: ridge λ ≥ 0 (ba: (λ/N)‖a‖² on the mean loss, default 1e-3; cui/srf: λ‖a‖² on the
            summed loss, default 0.01) (grid).
        noise: σ_ε (ba default 0.1, cui/srf 0) (grid).
        steps: (ba, cui) number of gradient steps T ≥ 1 (grid).
        readout: (cui, srf) readout types ``"0.3,1.7:0.5,0.5"``, ``[0.3, 1.7]`` or
            ``([0.3, 1.7], [0.5, 0.5])`` (default: uniform 1).
        features: ``"true"`` σ(Wᵀx) or ``"ge"`` (Gaussian equivalent μ0 + μ1Wᵀx + μ2 z).
        gradient: (ba, cui) ``"exact"`` or ``"rank1"``.
        batches: (ba, cui) ``"same"`` or ``"fresh"``.
        initial_columns: (ba) ``"gaussian"`` (default: W₀ with N(0, 1/d) entries) or ``"unit"`` (the
            same columns normalised to the sphere: paired with the default on every seed; the Cui
            protocol and the sRF model always have unit columns).
        measure: measurement groups, ``"risk,spike"`` or a list (risk, spike, ck; cui also baseline),
            or ``"spectrum"``: the empirical spectra of W₁ᵀW₁ and the CK Gram with the top
            eigenvectors' overlaps (:mod:`asymptotics.api.simulation_spectrum`; ba and cui).
        n_test: with ``test_risk="monte-carlo"`` only, test points per seed (``None``: the simulator's
            default, 10000).
        test_risk: ``"exact"`` (the simulator's default): the population risk E_x(f̂ − f*)² of each
            trained network in closed form (dual kernels and a conditioned Hermite expansion, no
            test set; docs/simulator.md); ``"monte-carlo"``: the mean over ``n_test`` fresh points.
        risk_rtol: tolerance of the exact risk's Hermite truncation bound, relative to E σ*²
            (default 1e-10, in [1e-15, 1e-2]; not with ``test_risk="monte-carlo"``).
        seeds: independent seeds per grid point (≥ 2 for standard errors).
        seed: the root seed of every numpy SeedSequence.
        workers: worker processes (seeds and grid points in parallel).
        blas_threads: BLAS/numba threads per task (default: cores // workers).
        per_seed: one row per seed instead of mean ± s.e.
        max_memory: memory the run may use (bytes or ``"8GiB"``; default 80 % of what is available).
        progress: ``None`` (automatic), ``True`` or ``False``.
        matrix, ck_features, before, top, bins, eigenvalues: with ``measure="spectrum"`` only: the
            matrices (``weights``, ``ck``), the CK feature models (``true``, ``ge``), also the
            matrices of W₀, how many top eigenvalues get overlaps, histogram bins
            (``"LO:HI:COUNT"`` or edges; default: every eigenvalue), and keep every eigenvalue too.

    Returns:
        a :class:`~asymptotics.results.Result` (parameters, ``<name>_mean``, ``<name>_se``, …).
    """
    seeds, n_test, workers = _check_run_options(seeds, n_test, workers, blas_threads, seed, test_risk, risk_rtol)
    given = {"d": d, "psi1": psi1, "psi2": psi2, "eta": eta, "eta_exponent": eta_exponent, "alpha": alpha,
             "alpha0": alpha0, "beta": beta, "eta_tilde": eta_tilde, "c": c, "r": r, "gamma": gamma,
             "self_term": self_term, "lam": lam, "noise": noise, "steps": steps}
    proto = _check_protocol(protocol, given, readout)
    fixed = _fixed_fields(proto, student, teacher, center, features, initial_columns, gradient, batches)
    spectrum = _spectrum_mode(proto, measure, per_seed, matrix, ck_features, before, top, bins, eigenvalues)
    _add_measure_and_readout(fixed, measure, spectrum, readout)
    grid = _grid(given, PROTOCOL_GRIDS[proto], seeds, max_memory)
    configs = _configs(proto, fixed, grid, n_test, test_risk, risk_rtol)
    if spectrum:
        from .simulation_spectrum import simulate_spectrum

        return simulate_spectrum(configs, grid, seeds=seeds, root_seed=seed, matrix=matrix, features=ck_features,
                                 before=before, top=top, bins=bins, eigenvalues=eigenvalues, max_memory=max_memory,
                                 progress=progress, protocol=proto)
    results = _simulate_configs(configs, proto, seeds, seed, workers, blas_threads, max_memory, progress)
    return _simulation_result(results, configs, proto, seeds, seed, workers, per_seed)


def _check_run_options(seeds, n_test, workers, blas_threads, seed, test_risk, risk_rtol) -> tuple:
    """The run's counts checked (``seeds``, ``n_test``, ``workers``, ``blas_threads``, ``seed``) and the
    risk options the chosen risk does not use refused; returns (seeds, n_test, workers)."""
    seeds = check_int(option("seeds"), seeds, 1, MAX_SEEDS)
    if n_test is not None:
        n_test = check_int(option("n_test"), n_test, 2, MAX_TEST)
    workers = check_int(option("workers"), workers, 1, MAX_WORKERS)
    if blas_threads is not None:
        check_int(option("blas_threads"), blas_threads, 1, 4096)
    check_int(option("seed"), seed, 0)
    _refuse_unused_risk_options(test_risk, n_test, risk_rtol)
    return seeds, n_test, workers


def _check_protocol(protocol, given: dict, readout) -> str:
    """The protocol's name (``ba``, ``cui``, ``srf``); the grid parameters it does not take (``given``:
    name → value) and a readout with the Ba protocol are refused."""
    proto = protocol.strip().lower() if isinstance(protocol, str) else protocol
    if proto not in PROTOCOL_GRIDS:
        raise ParameterError(option("protocol"), protocol, "one of ba, cui, srf")
    refuse_unused(given, PROTOCOL_GRIDS[proto], f"{option('protocol')} {proto}")
    if proto == "ba" and readout is not None:
        raise ParameterError(option("readout"), readout,
                             f"omitted with {option('protocol')} ba (its readout is Gaussian N(0, 1/N))")
    return proto


def _fixed_fields(proto: str, student, teacher, center, features, initial_columns, gradient, batches) -> dict:
    """The configuration fields every grid point shares: the activations, the features, the initial
    columns (Ba protocol only) and the training step (not the sRF model's)."""
    fixed: dict = {"student": student, "teacher": teacher, "center": center, "features": features}
    if initial_columns is not None:
        if proto != "ba":
            raise ParameterError(option("initial_columns"), initial_columns,
                                 f"omitted with {option('protocol')} {proto} (its initial columns are unit vectors)")
        fixed["initial_columns"] = initial_columns
    if proto != "srf":
        fixed.update(gradient=gradient, batches=batches)
    elif (gradient, batches) != ("exact", "same"):
        raise ParameterError(f"{option('gradient')}/{option('batches')}", (gradient, batches),
                             f"left at exact/same with {option('protocol')} srf (the sRF model has no training step)")
    return fixed


def _spectrum_mode(proto: str, measure, per_seed, matrix, ck_features, before, top, bins, eigenvalues) -> bool:
    """Whether ``measure`` asks for the empirical spectra; their options (``matrix`` … ``eigenvalues``)
    are checked with it and refused without it."""
    spectrum = isinstance(measure, str) and measure.strip().lower() == "spectrum"
    if spectrum:
        if proto == "srf":
            raise ParameterError(option("measure"), measure, f"risk/spike/ck groups with {option('protocol')} srf "
                                 "(spectra: ba or cui)")
        if per_seed:
            raise ParameterError(option("per_seed"), per_seed, f"omitted with {option('measure')} spectrum "
                                 "(its rows are per seed or pooled by construction)")
        check_int(option("top"), top, 1, 1000)
    elif (matrix, ck_features, before, top, bins, eigenvalues) != ("weights,ck", "true,ge", False, 3, None, False):
        raise ParameterError(f"{option('matrix')}/{option('ck_features')}/{option('before')}/{option('top')}/"
                             f"{option('bins')}/{option('eigenvalues')}", "given", f"only with {option('measure')} spectrum")
    return spectrum


def _add_measure_and_readout(fixed: dict, measure, spectrum: bool, readout) -> None:
    """Add the measurement groups (not with the spectra) and the readout types to ``fixed``."""
    if measure is not None and not spectrum:
        fixed["measure"] = measure if isinstance(measure, str) else tuple(measure)
    ro = _readout(readout)
    if ro is not None:
        fixed.update(readout_values=ro[0], readout_proportions=ro[1])


def _grid(given: dict, allowed: tuple, seeds: int, max_memory) -> list[dict]:
    """The Cartesian grid of the protocol's parameters (``max_memory`` checked first), within the caps
    on points and on (point, seed) tasks."""
    if max_memory is not None:
        parse_memory(max_memory, option("max_memory"))
    grid = product(MAX_POINTS, **{name: values(name, given[name]) for name in allowed})
    if len(grid) * seeds > MAX_TASKS:
        raise ParameterError(option("seeds"), seeds, f"at most {MAX_TASKS} (grid points × seeds) tasks in one command",
                             f"{len(grid)} points × {seeds} seeds; use asymptotics sweep for larger runs")
    return grid


def _configs(proto: str, fixed: dict, grid: list[dict], n_test, test_risk, risk_rtol) -> list:
    """The simulator's configuration (``BaConfig``, ``CuiConfig``, ``SRFConfig``) of every grid point; the
    activations are resolved first (one error naming the option), and an error of the simulator's own
    checks names the option, not its field."""
    from ..activations import resolve_activation

    resolve_activation(fixed["student"], center=fixed["center"], name=option("student"))  # moments checked
    resolve_activation(fixed["teacher"], center=fixed["center"], name=option("teacher"))
    from validation.simulator import config_class

    cls = config_class(proto)
    fixed.update(config_options(cls, n_test=n_test, test_risk=test_risk, risk_rtol=risk_rtol))
    configs = []
    for point in grid:
        if "d" in point:
            point["d"] = int(point["d"])
        if "steps" in point:
            point["steps"] = int(point["steps"])
        try:
            configs.append(cls(**fixed, **point))
        except ParameterError as exc:  # the simulator names its field; the user gets the option's spelling
            if exc.name in fixed or exc.name in point:
                raise ParameterError(option(exc.name), exc.value, exc.valid, exc.hint) from None
            raise
    return configs


def _simulate_configs(configs: list, proto: str, seeds: int, seed: int, workers: int, blas_threads, max_memory,
                      progress) -> list:
    """Every configuration simulated at ``seeds`` seeds (after the memory pre-flight of the largest
    one); a long run (d ≥ :data:`LONG_RUN_D`) states its memory need and prints each phase of each seed."""
    from validation.simulator import simulate_many
    from validation.simulator.config import memory_estimate

    largest = max(configs, key=memory_estimate)
    parallel = min(workers, len(configs) * seeds)
    what = f"simulate at d = {largest.d}" + (f" with {parallel} workers" if parallel > 1 else "")
    need = parallel * memory_estimate(largest)
    check_memory(what, need, max_memory, option("max_memory"))
    total = len(configs) * seeds
    on_stage = None
    if progress is not False and largest.d >= LONG_RUN_D:  # a long run says its size, then each phase
        import sys

        from ..memory import default_memory_limit, format_bytes

        limit = default_memory_limit() if max_memory is None else parse_memory(max_memory, option("max_memory"))
        print(f"{what}: needs about {format_bytes(need)}"
              + (f" (limit {format_bytes(limit)}; {option('max_memory')})" if limit else ""), file=sys.stderr)

        def on_stage(i, k, stage):
            print(f"  point {i + 1}/{len(configs)}, seed {k + 1}/{seeds}: {stage}", file=sys.stderr, flush=True)
    with Progress(total, f"simulating {proto}", progress, min_total=0) as bar:
        return simulate_many(configs, seeds=seeds, root_seed=seed, workers=workers, blas_threads=blas_threads,
                             progress=bar.update, on_stage=on_stage)


def _simulation_result(results: list, configs: list, proto: str, seeds: int, seed: int, workers: int,
                       per_seed: bool) -> Result:
    """The rows (mean ± s.e. per point, or one per seed), the run's metadata and the default table."""
    if per_seed:
        rows = [{**res.config.as_dict(), **ps} for res in results for ps in res.per_seed]
    else:
        rows = [res.as_row() for res in results]
    first = results[0].meta
    meta = base_meta(
        command="simulate", protocol=proto, seeds=seeds, root_seed=seed, workers=workers,
        student=first["student"], teacher=first["teacher"], streams=first["streams"], test_set=first["test_set"],
        threads_per_task=first["threads_per_task"], blas_threads_controlled=first["blas_threads_controlled"],
        elapsed_s=first["elapsed_s"], simulator_versions=first["versions"],
    )
    table = table_columns(configs[0].measure, proto)
    if per_seed:
        table = Columns(table.params + ("seed",), table.values)
    return Result(rows=rows, meta=meta, columns=table)
