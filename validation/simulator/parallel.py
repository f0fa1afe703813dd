r"""Running seeds (and grid points) serially or on a pool of worker processes.

Seeds are independent: seed k of a run with root seed s uses only the streams
``SeedSequence(s, spawn_key=(k, component, …))`` (see :mod:`validation.simulator.rng`), so the
numbers of a seed do not depend on which worker runs it, on the order of completion or on the
number of workers. Workers are processes started with ``spawn`` (no fork of a threaded BLAS);
each gets ``blas_threads`` BLAS, numba and RNG threads (default: the cores divided among the
workers), set in its environment before it starts, so that workers × threads never exceeds the
cores. With ``workers=1`` everything runs in the calling process.

By default (``workers=None``) the threads and processes are chosen by problem size
(:func:`validation.simulator.threads.choose_parallelism`): large problems use all cores in BLAS
in this process, small ones one thread per seed — in worker processes when there is enough work
to pay for starting them. The choice depends only on the configurations, the number of seeds and
the cores, so a rerun gives the same numbers. A memory pre-flight
(:func:`validation.simulator.config.memory_estimate`) refuses a run that does not fit, before it
starts, and limits the number of parallel workers to what fits. With ``store=`` every seed's
numbers are kept on disk (:mod:`validation.simulator.store`) and read back instead of recomputed.

Results agree bit for bit whenever the BLAS thread count per task is the same (e.g.
``workers=1, blas_threads=1`` and ``workers=2`` on two cores) and to round-off (~1e-13) otherwise:
a multithreaded BLAS may order sums differently.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

import numpy as np

from asymptotics.errors import DegenerateWarning, ParameterError
from asymptotics.params import available_memory, check_int

from .config import BaConfig, CuiConfig, SRFConfig, memory_estimate
from .linalg import RCOND_WARN
from .measurements import measurement_names
from .protocols import run_seed
from .result import SimulationResult, aggregate, versions
from .rng import COMPONENTS, available_cores
from .store import SeedStore, code_version
from .threads import (
    blas_thread_timeout,
    choose_parallelism,
    get_blas_threads,
    set_blas_threads,
    set_numba_threads,
    single_thread_scipy_blas,
    thread_env,
)
from .threads import blas_threads as blas_limit

__all__ = ["simulate", "simulate_many"]

_CONFIGS = (BaConfig, CuiConfig, SRFConfig)


def _check_config(cfg) -> None:
    if not isinstance(cfg, _CONFIGS):
        raise ParameterError(
            "protocol",
            type(cfg).__name__,
            "a BaConfig (ba), CuiConfig (cui) or SRFConfig (srf) configuration",
        )


def simulate(
    cfg, seeds: int | Sequence[int] = 4, root_seed: int = 0, workers: int | None = None, **options
) -> SimulationResult:
    """Simulate ``cfg`` (a :class:`BaConfig`, :class:`CuiConfig` or :class:`SRFConfig`) over
    independent seeds and aggregate.

    Args:
        cfg: the configuration.
        seeds: the number of independent repetitions (seed indices 0 … seeds − 1), or the seed
            indices themselves (e.g. ``range(4, 8)`` to extend a study of 4 seeds).
        root_seed: root entropy of every ``SeedSequence`` (a non-negative integer).
        workers: worker processes (1: in this process). Default: chosen by problem size
            (:func:`validation.simulator.threads.choose_parallelism`): all cores in BLAS for large
            problems, one thread per seed otherwise, in parallel processes when the work is long
            enough to pay for starting them.

    Keyword options (those of :func:`simulate_many`):
        blas_threads: BLAS/numba/RNG threads per task (default: chosen by problem size with
            ``workers`` unset or 1, cores // workers otherwise). Numbers are bit-identical for a
            given (seed, threads per task), whatever the number of workers.
        progress: called as ``progress(done, total)`` after each seed (stored ones included).
        on_stage: called as ``on_stage(config_index, seed_index, stage)`` when a phase of a seed
            starts (``first layer``, ``spike``, ``readout``, ``risk``; in this process only).
        store: a directory (or True for the user cache's ``simulations``) keeping every seed's
            numbers (:class:`validation.simulator.store.SeedStore`): stored seeds are read back
            bit for bit, only new ones are simulated. Default: no store.
        max_memory: bytes the run may use; refused before it starts when the estimate
            (:func:`validation.simulator.config.memory_estimate` × parallel tasks) exceeds it.
            Default: the memory available now.

    Returns:
        a :class:`SimulationResult` (``mean``, ``se``, ``test_se``, ``per_seed``, ``meta``).

    >>> from validation.simulator import BaConfig, simulate
    >>> res = simulate(BaConfig(d=60, measure=("risk",)), seeds=2)
    >>> sorted(res.mean)
    ['delta', 'risk0', 'risk1', 'train_error']
    >>> res.test_se["risk1"]          # the exact population risk: no test set
    0.0
    """
    return simulate_many([cfg], seeds, root_seed, workers, **options)[0]


def _seed_indices(seeds) -> list[int]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        return list(range(check_int("seeds", int(seeds), 1)))
    try:
        idx = [check_int("seeds", int(k), 0) for k in seeds]
    except TypeError:
        raise ParameterError("seeds", seeds, "a positive integer or a list of seed indices >= 0") from None
    if not idx or len(set(idx)) != len(idx):
        raise ParameterError("seeds", seeds, "a non-empty list of distinct seed indices >= 0")
    return idx


def _preflight(configs, parallel: int, max_memory) -> int:
    """The number of tasks that may run at once within the memory limit; raises when one does not fit."""
    need = max(memory_estimate(cfg) for cfg in configs)
    limit = check_int("max_memory", max_memory, 1) if max_memory is not None else available_memory()
    if limit is None:
        return parallel
    if need > limit:
        largest = max(configs, key=memory_estimate)
        raise ParameterError(
            "d", largest.d, "small enough for the memory limit",
            f"one seed needs about {need / 2**30:.2f} GiB (limit {limit / 2**30:.2f} GiB)",
        )  # fmt: skip
    return max(1, min(parallel, limit // need))


def simulate_many(
    configs: Sequence,
    seeds: int | Sequence[int] = 4,
    root_seed: int = 0,
    workers: int | None = None,
    *,
    blas_threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_stage: Callable[[int, int, str], None] | None = None,
    store: str | os.PathLike | bool | None = None,
    max_memory: int | None = None,
) -> list[SimulationResult]:
    """Simulate several configurations (a grid) with one pool of workers; same arguments as
    :func:`simulate`. Every configuration uses the same root seed (common random numbers across
    the grid)."""
    configs = list(configs)
    for cfg in configs:
        _check_config(cfg)
    indices = _seed_indices(seeds)
    root_seed = check_int("root_seed", root_seed, 0)
    if workers is not None:
        workers = check_int("workers", workers, 1)
    if blas_threads is not None:
        blas_threads = check_int("blas_threads", blas_threads, 1)
    tasks = [(i, k) for i in range(len(configs)) for k in indices]
    workers, per_task, chosen = _plan(configs, len(tasks), workers, blas_threads, max_memory)
    seed_store = None
    if store is not None and store is not False:
        seed_store = SeedStore(None if store is True else store)
    results = _stored(seed_store, configs, tasks, root_seed, per_task, progress)
    hits = len(results)
    pending = [t for t in tasks if t not in results]
    t0 = time.perf_counter()

    def finished(task, values):
        results[task] = values
        if seed_store is not None:
            seed_store.put(configs[task[0]], root_seed, task[1], per_task, values)
        if progress:
            progress(len(results), len(tasks))

    if workers == 1 or len(pending) <= 1:
        controlled = _run_in_process(configs, pending, root_seed, per_task, on_stage, finished)
        mode = "in-process"
    else:
        controlled = _run_in_processes(configs, pending, root_seed, workers, per_task, finished)
        mode = "processes"
    run = {
        "workers": workers,
        "mode": mode,
        "threads_per_task": per_task,
        "threads_chosen": chosen,
        "blas_threads_controlled": bool(controlled) if controlled is not None else None,
        "openblas_thread_timeout": blas_thread_timeout()
        if mode == "in-process"
        else os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4"),
        "elapsed_s": time.perf_counter() - t0,
        "store": None if seed_store is None else {
            "directory": str(seed_store.directory), "read": hits, "computed": len(pending),
            "code_version": code_version(),
        },
    }  # fmt: skip
    out = [_result(cfg, [dict(seed=k, **results[(i, k)]) for k in indices], indices, root_seed, run)
           for i, cfg in enumerate(configs)]
    if len(indices) == 1:
        warnings.warn(
            "one seed: standard errors over seeds are undefined (NaN); use seeds >= 2", stacklevel=2
        )
    return out


def _plan(configs, n_tasks: int, workers, blas_threads, max_memory) -> tuple[int, int, str]:
    """(workers, BLAS threads per task, how they were chosen) for ``n_tasks`` tasks: by problem size
    unless given, never more tasks at once than the memory limit allows."""
    cores = available_cores()
    if workers is None or (workers == 1 and blas_threads is None):
        auto_workers, auto_threads = choose_parallelism(configs, n_tasks, cores)
        workers = auto_workers if workers is None else 1
        if blas_threads is not None:  # given threads per task: as many workers as fit on the cores
            workers = max(1, min(workers, cores // blas_threads))
        per_task = blas_threads or (auto_threads if workers == 1 else 1)
        chosen = "by problem size"
    else:
        per_task = blas_threads or max(1, cores // workers)
        chosen = "given"
    if workers > 1 and blas_threads is None and workers > cores:
        warnings.warn(f"{workers} workers on {cores} cores: the machine is oversubscribed", stacklevel=3)
    workers = min(workers, _preflight(configs, min(workers, max(1, n_tasks)), max_memory))
    return workers, per_task, chosen


def _stored(seed_store, configs, tasks, root_seed: int, per_task: int, progress) -> dict:
    """The per-seed values already in the seed store, by task (reported to ``progress`` as done)."""
    results: dict[tuple[int, int], dict] = {}
    if seed_store is None:
        return results
    for i, k in tasks:
        got = seed_store.get(configs[i], root_seed, k, per_task)
        if got is not None:
            results[(i, k)] = got
            if progress:
                progress(len(results), len(tasks))
    return results


def _run_in_process(configs, pending, root_seed: int, per_task: int, on_stage, finished):
    """Run the pending tasks one after the other in this process (``per_task`` BLAS and numba
    threads); returns whether the BLAS threads could be controlled."""
    import numba

    numba_before = numba.get_num_threads()
    with blas_limit(per_task) as controlled, warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        single_thread_scipy_blas()
        set_numba_threads(per_task)
        try:
            for i, k in pending:
                stage = (lambda name, i=i, k=k: on_stage(i, k, name)) if on_stage else None
                finished((i, k), run_seed(configs[i], root_seed, k, per_task, stage))
        finally:
            numba.set_num_threads(numba_before)
    return controlled


def _run_in_processes(configs, pending, root_seed: int, workers: int, per_task: int, finished):
    """Run the pending tasks in a pool of spawned processes (the first failure cancels the rest and
    is raised); returns whether the workers could control their BLAS threads."""
    controlled = None
    ctx = mp.get_context("spawn")
    # NUMBA_NUM_THREADS is left out of the parent's environment: numba re-reads its config on
    # every compile and refuses a changed value once its thread pool runs; the workers set
    # their numba threads in _init_worker instead.
    env = {k: v for k, v in thread_env(per_task).items() if k != "NUMBA_NUM_THREADS"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # inherited by the spawned workers at start-up
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(pending)),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(per_task,),
        ) as pool:
            futures = {pool.submit(_run_task, configs[i], root_seed, k, per_task): (i, k) for i, k in pending}
            todo = set(futures)
            while todo:
                ready, todo = wait(todo, return_when=FIRST_EXCEPTION)
                for fut in ready:
                    exc = fut.exception()
                    if exc is not None:
                        for other in todo:
                            other.cancel()
                        raise exc
                    values, controlled = fut.result()
                    finished(futures[fut], values)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return controlled


def _result(cfg, per_seed: list, indices, root_seed: int, run: dict) -> SimulationResult:
    """One configuration's result: means and standard errors over its seeds, with the metadata of
    the run (``run``: workers, mode, threads, timing, store)."""
    names = measurement_names(cfg.protocol, cfg.measure)
    mean, se, test_se = aggregate(per_seed, names)
    _warn_degenerate(cfg, per_seed)
    exact = cfg.test_risk == "exact"
    meta = {
        "versions": versions(),
        "protocol": cfg.protocol,
        "config": cfg.as_dict(),
        "student": cfg.student_activation().as_dict(),
        "teacher": cfg.teacher_activation().as_dict(),
        "seeds": len(indices),
        "seed_indices": list(indices),
        "root_seed": root_seed,
        "streams": "SeedSequence(root_seed, spawn_key=(seed_index, component[, sub][, block])) with SFC64; "
        + "components "
        + ", ".join(f"{k}={v}" for k, v in COMPONENTS.items()),
        "test_set": _test_set_text(cfg, exact),
        **run,
    }
    if run["store"] is not None:
        meta["store"] = dict(run["store"])  # one dict per result, as each result's metadata is its own
    if exact:
        meta["risk_bound_max"] = max(
            (v for ps in per_seed for key, v in ps.items() if key.startswith("risk_bound")), default=0.0
        )
    return SimulationResult(cfg, per_seed, mean, se, test_se, meta)


def _test_set_text(cfg, exact: bool) -> str:
    if exact and cfg.features == "ge":
        return "exact population risk (Gaussian-equivalent features: a quadratic form in Gaussians, closed form)"
    if exact:
        return (
            "exact population risk from the Gram matrix WᵀW (closed-form dual kernel, or the conditioned Hermite "
            f"expansion with truncation bound <= {cfg.risk_rtol:g}·E σ*², reported per seed as risk_bound*); "
            "no test set, test_se = 0"
        )
    return (
        f"{cfg.n_test} fresh Gaussian points per seed"
        + (" (exact joint law of the projections: Gaussian-equivalent features)" if cfg.features == "ge" else "")
        + "; se = seed-to-seed standard error of the mean (includes the test-set error), test_se = the test-set part"
    )


def _warn_degenerate(cfg, per_seed) -> None:
    solvers = {v for ps in per_seed for k, v in ps.items() if k.startswith("ridge_solver")}
    rconds = [v for ps in per_seed for k, v in ps.items() if k.startswith("ridge_rcond")]
    if "eigh" in solvers:
        warnings.warn(
            f"{cfg.protocol} d={cfg.d}: a ridge Gram matrix was singular (lam = {cfg.lam:g}); the minimum-norm "
            "solution was used",
            DegenerateWarning,
            stacklevel=4,  # the caller of simulate_many
        )
    elif rconds and min(rconds) < RCOND_WARN:
        warnings.warn(
            f"{cfg.protocol} d={cfg.d}: ridge system nearly singular (rcond = {min(rconds):.1e} at lam = {cfg.lam:g}); "
            "near the interpolation threshold the numbers carry large rounding errors",
            DegenerateWarning,
            stacklevel=4,  # the caller of simulate_many
        )


# ---- worker side ------------------------------------------------------------------------------
_WORKER_CONTROLLED = None


def _init_worker(threads: int) -> None:
    global _WORKER_CONTROLLED
    _WORKER_CONTROLLED = set_blas_threads(threads) and get_blas_threads() == threads
    single_thread_scipy_blas()
    set_numba_threads(threads)
    warnings.simplefilter("ignore", DegenerateWarning)


def _run_task(cfg, root_seed: int, k: int, threads: int):
    return run_seed(cfg, root_seed, k, threads), _WORKER_CONTROLLED
