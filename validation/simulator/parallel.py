r"""Running seeds (and grid points) serially or on a pool of worker processes.

Seeds are independent: seed k of a run with root seed s uses only the streams
``SeedSequence(s, spawn_key=(k, component, …))`` (see :mod:`validation.simulator.rng`), so the
numbers of a seed do not depend on which worker runs it, on the order of completion or on the
number of workers. Workers are processes started with ``spawn`` (no fork of a threaded BLAS);
each gets ``blas_threads`` BLAS, numba and RNG threads (default: the cores divided among the
workers), set in its environment before it starts, so that workers × threads never exceeds the
cores. With ``workers=1`` everything runs in the calling process with all cores.

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

from asymptotics.errors import DegenerateWarning, ParameterError
from asymptotics.params import check_int

from .config import BaConfig, CuiConfig, SRFConfig
from .linalg import RCOND_WARN
from .measurements import measurement_names
from .protocols import run_seed
from .result import SimulationResult, aggregate, versions
from .rng import COMPONENTS, available_cores
from .threads import (
    blas_thread_timeout,
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
    cfg,
    seeds: int = 4,
    root_seed: int = 0,
    workers: int = 1,
    *,
    blas_threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Simulate ``cfg`` (a :class:`BaConfig`, :class:`CuiConfig` or :class:`SRFConfig`) over
    ``seeds`` independent seeds and aggregate.

    Args:
        cfg: the configuration.
        seeds: number of independent repetitions (≥ 1; ≥ 2 for a standard error).
        root_seed: root entropy of every ``SeedSequence`` (a non-negative integer).
        workers: worker processes (1: in this process).
        blas_threads: BLAS/numba/RNG threads per task (default: with ``workers=1`` the BLAS thread
            count of this process — all cores unless OPENBLAS_NUM_THREADS & co. say otherwise —,
            else cores // workers). On a machine shared with other busy processes a threaded BLAS
            can be several times slower than ``blas_threads=1``.
        progress: called as ``progress(done, total)`` after each seed.

    Returns:
        a :class:`SimulationResult` (``mean``, ``se``, ``test_se``, ``per_seed``, ``meta``).

    >>> from validation.simulator import BaConfig, simulate
    >>> res = simulate(BaConfig(d=60, n_test=500, measure=("risk",)), seeds=2)
    >>> sorted(res.mean)
    ['delta', 'risk0', 'risk1', 'train_error']
    """
    return simulate_many([cfg], seeds, root_seed, workers, blas_threads=blas_threads, progress=progress)[0]


def simulate_many(
    configs: Sequence,
    seeds: int = 4,
    root_seed: int = 0,
    workers: int = 1,
    *,
    blas_threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[SimulationResult]:
    """Simulate several configurations (a grid) with one pool of workers; same arguments as
    :func:`simulate`. Every configuration uses the same root seed (common random numbers across
    the grid)."""
    configs = list(configs)
    for cfg in configs:
        _check_config(cfg)
    seeds = check_int("seeds", seeds, 1)
    root_seed = check_int("root_seed", root_seed, 0)
    workers = check_int("workers", workers, 1)
    cores = available_cores()
    if blas_threads is not None:
        blas_threads = check_int("blas_threads", blas_threads, 1)
    per_task = blas_threads or max(1, cores // workers)
    if workers > 1 and blas_threads is None and workers > cores:
        warnings.warn(f"{workers} workers on {cores} cores: the machine is oversubscribed", stacklevel=2)
    tasks = [(i, k) for i in range(len(configs)) for k in range(seeds)]
    results: dict[tuple[int, int], dict] = {}
    t0 = time.perf_counter()
    done = 0
    controlled = None
    if workers == 1 or len(tasks) == 1:
        import numba

        numba_before = numba.get_num_threads()
        # default: the BLAS thread count this process already has (all cores unless the environment
        # says otherwise), and as many numba and RNG threads
        task_threads = blas_threads or min(cores, get_blas_threads() or cores)
        with blas_limit(task_threads) as controlled, warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            single_thread_scipy_blas()
            set_numba_threads(task_threads)
            try:
                for i, k in tasks:
                    results[(i, k)] = run_seed(configs[i], root_seed, k, task_threads)
                    done += 1
                    if progress:
                        progress(done, len(tasks))
            finally:
                numba.set_num_threads(numba_before)
        mode = "in-process"
    else:
        ctx = mp.get_context("spawn")
        # NUMBA_NUM_THREADS is left out of the parent's environment: numba re-reads its config on
        # every compile and refuses a changed value once its thread pool runs; the workers set
        # their numba threads in _init_worker instead.
        env = {k: v for k, v in thread_env(per_task).items() if k != "NUMBA_NUM_THREADS"}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # inherited by the spawned workers at start-up
        try:
            with ProcessPoolExecutor(
                max_workers=min(workers, len(tasks)),
                mp_context=ctx,
                initializer=_init_worker,
                initargs=(per_task,),
            ) as pool:
                futures = {
                    pool.submit(_run_task, configs[i], root_seed, k, per_task): (i, k) for i, k in tasks
                }
                pending = set(futures)
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
                    for fut in finished:
                        exc = fut.exception()
                        if exc is not None:
                            for other in pending:
                                other.cancel()
                            raise exc
                        results[futures[fut]], controlled = fut.result()
                        done += 1
                        if progress:
                            progress(done, len(tasks))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        mode = "processes"
        task_threads = per_task
    elapsed = time.perf_counter() - t0
    out = []
    for i, cfg in enumerate(configs):
        per_seed = [dict(seed=k, **results[(i, k)]) for k in range(seeds)]
        names = measurement_names(cfg.protocol, cfg.measure)
        mean, se, test_se = aggregate(per_seed, names)
        _warn_degenerate(cfg, per_seed)
        meta = {
            "versions": versions(),
            "protocol": cfg.protocol,
            "config": cfg.as_dict(),
            "student": cfg.student_activation().as_dict(),
            "teacher": cfg.teacher_activation().as_dict(),
            "seeds": seeds,
            "root_seed": root_seed,
            "streams": "SeedSequence(root_seed, spawn_key=(seed_index, component[, sub][, block])) with SFC64; "
            + "components "
            + ", ".join(f"{k}={v}" for k, v in COMPONENTS.items()),
            "test_set": (
                f"{cfg.n_test} fresh Gaussian points per seed"
                + (
                    " (exact joint law of the projections: Gaussian-equivalent features)"
                    if cfg.features == "ge"
                    else ""
                )
                + "; se = seed-to-seed standard error of the mean (includes the test-set error), "
                "test_se = the test-set part"
            ),
            "workers": workers,
            "mode": mode,
            "threads_per_task": task_threads,
            "blas_threads_controlled": bool(controlled),
            "openblas_thread_timeout": blas_thread_timeout()
            if mode == "in-process"
            else os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4"),
            "elapsed_s": elapsed,
        }
        out.append(SimulationResult(cfg, per_seed, mean, se, test_se, meta))
    if seeds == 1:
        warnings.warn(
            "one seed: standard errors over seeds are undefined (NaN); use seeds >= 2", stacklevel=2
        )
    return out


def _warn_degenerate(cfg, per_seed) -> None:
    solvers = {v for ps in per_seed for k, v in ps.items() if k.startswith("ridge_solver")}
    rconds = [v for ps in per_seed for k, v in ps.items() if k.startswith("ridge_rcond")]
    if "eigh" in solvers:
        warnings.warn(
            f"{cfg.protocol} d={cfg.d}: a ridge Gram matrix was singular (lam = {cfg.lam:g}); the minimum-norm "
            "solution was used",
            DegenerateWarning,
            stacklevel=3,
        )
    elif rconds and min(rconds) < RCOND_WARN:
        warnings.warn(
            f"{cfg.protocol} d={cfg.d}: ridge system nearly singular (rcond = {min(rconds):.1e} at lam = {cfg.lam:g}); "
            "near the interpolation threshold the numbers carry large rounding errors",
            DegenerateWarning,
            stacklevel=3,
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
