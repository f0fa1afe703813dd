r"""Executors: where the tasks of a sweep run.

All three have the same interface — a context manager whose :meth:`run` takes the quantity's
callable and a list of task batches and yields the rows of each batch as it completes (in any
order). Rows are always returned to the driver, which alone writes them, so a task that is
recomputed (its worker died) is still written once.

* :class:`InProcessExecutor` — the calling process, one task after another (the default; what
  tests and embedded use want; BLAS threads as configured for the process).
* :class:`ProcessExecutor` — ``processes:N``: a ``concurrent.futures.ProcessPoolExecutor`` with N
  spawned workers, each with ``cpu_count // N`` BLAS/OpenMP threads. If a worker dies (killed, out
  of memory) the pool breaks; the batches that were in flight are resubmitted to a fresh pool up to
  ``retries`` times and then recorded as failed.
* :class:`DaskExecutor` — ``local:N`` (a ``dask.distributed.LocalCluster`` of N single-threaded
  worker *processes* with ``cpu_count // N`` BLAS threads each, ``memory_limit = max_memory``) or
  ``tcp://host:port`` (an existing scheduler; its workers need ``asymptotics`` installed). Dask
  reschedules the tasks of a worker that dies; after ``retries`` such deaths
  (``distributed.scheduler.allowed-failures``, set for ``local:N``; the cluster's own setting for
  an existing scheduler) the task raises ``KilledWorker`` and is recorded as failed. Nannies
  restart dead workers and terminate a worker that exceeds its memory limit, so one oversized task
  does not take the node down.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Iterator

from ..errors import ParameterError
from .config import format_bytes, parse_scheduler
from .tasks import Task, execute_batch, failed_row

__all__ = [
    "InProcessExecutor",
    "ProcessExecutor",
    "DaskExecutor",
    "make_executor",
    "default_threads",
    "THREADED_COST",
    "BLAS_THREAD_VARS",
]

BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")

#: Floating-point operations of one task from which BLAS/numba threads are worth having (about a
#: second of one core's work). Below it a task runs on one thread: its matrix products are too small
#: for threads to pay off, and threads that compete with other tasks or other jobs for the cores
#: make it several times slower (``benchmarks/results/sweeps.md``).
THREADED_COST = 1e10


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _blas_threads(n_workers: int) -> int:
    return max(1, _cores() // max(1, n_workers))


def default_threads(quantity, tasks, executor) -> int | None:
    """The BLAS/numba threads of each task when ``--threads-per-task`` is not given.

    One thread when every task is small (its ``cost`` estimate below :data:`THREADED_COST`) or
    its cost is unknown; otherwise the executor's cores per task: every core in-process,
    ``cores // N`` on ``processes:N`` and ``local:N`` (``None``, the workers' own setting, on an
    existing Dask cluster). Many small tasks are better served by several workers
    (``processes:N``/``local:N``) of one thread each than by threads inside one task.
    """
    costs = [quantity.cost_estimate(t.params) for t in tasks]
    if not costs or any(c is None for c in costs) or max(costs) < THREADED_COST:
        return 1
    return executor.cores_per_task()


def _limit_numba_threads(n: int) -> None:
    """Initializer of a spawned worker: give numba ``n`` threads (before or after its import)."""
    import sys

    if "numba" in sys.modules:
        import numba

        numba.set_num_threads(max(1, min(int(n), numba.config.NUMBA_NUM_THREADS)))
    else:
        os.environ["NUMBA_NUM_THREADS"] = str(int(n))


class InProcessExecutor:
    """Run every task in the calling process."""

    kind = "in-process"

    def __init__(self):
        self.workers = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def memory_limit(self) -> int | None:
        return None

    def describe(self) -> str:
        return "in-process"

    def cores_per_task(self) -> int | None:
        return _cores()

    def run(self, fn: Callable, batches: list[list[Task]], run_id: str = "",
            threads: int | None = None) -> Iterator[list[dict]]:
        for batch in batches:
            yield execute_batch(fn, batch, run_id, threads)


class ProcessExecutor:
    """``processes:N`` — local worker processes (``concurrent.futures``, spawn start method)."""

    kind = "processes"

    def __init__(self, n_workers: int, retries: int = 2, threads: int | None = None):
        self.workers = int(n_workers)
        self.retries = int(retries)
        self.threads = int(threads) if threads else _blas_threads(self.workers)
        self._pool = None
        self._saved_env: dict = {}

    def _new_pool(self):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=mp.get_context("spawn"),
            initializer=_limit_numba_threads,
            initargs=(self.threads,),
        )

    def __enter__(self):
        # spawned children inherit the environment at spawn time: set the BLAS thread counts.
        # NUMBA_NUM_THREADS is NOT set in the parent: numba re-reads its config on every compile
        # and refuses a changed value once its thread pool runs ("Cannot set NUMBA_NUM_THREADS");
        # the children set it themselves in _limit_numba_threads.
        threads = str(self.threads)
        for k in BLAS_THREAD_VARS:
            if k == "NUMBA_NUM_THREADS":
                continue
            self._saved_env[k] = os.environ.get(k)
            os.environ[k] = threads
        self._pool = self._new_pool()
        return self

    def __exit__(self, exc_type, *exc):
        if self._pool is not None:
            self._pool.shutdown(wait=exc_type is None, cancel_futures=True)
            self._pool = None
        for k, v in self._saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        return False

    def memory_limit(self) -> int | None:
        return None

    def describe(self) -> str:
        return f"{self.workers} local processes ({self.threads} BLAS thread(s) each)"

    def cores_per_task(self) -> int | None:
        return self.threads

    def run(self, fn, batches, run_id: str = "", threads: int | None = None):
        import pickle
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise ParameterError(
                "quantity function", fn, "importable by worker processes (a function defined at module level)",
                f"cannot be pickled: {exc}; use --scheduler in-process or local:N (Dask uses cloudpickle)",
            ) from None
        queue = deque((i, b, 0) for i, b in enumerate(batches))
        window = 2 * self.workers
        inflight: dict = {}
        failed: list[list[dict]] = []
        while queue or inflight:
            while queue and len(inflight) < window:
                i, b, attempt = queue.popleft()
                inflight[self._pool.submit(execute_batch, fn, b, run_id, threads)] = (i, b, attempt)
            done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                i, b, attempt = inflight.pop(fut)
                try:
                    rows = fut.result()
                except BrokenProcessPool:
                    broken = True
                    self._retry_or_fail(queue, failed, i, b, attempt, run_id)
                    continue
                yield rows
            if broken:
                # every batch still in flight was lost with the pool: resubmit it to a new pool
                for fut, (i, b, attempt) in list(inflight.items()):
                    if fut.done() and fut.exception() is None:
                        yield fut.result()
                    else:
                        self._retry_or_fail(queue, failed, i, b, attempt, run_id)
                inflight.clear()
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            while failed:
                yield failed.pop()

    def _retry_or_fail(self, queue, failed, i, b, attempt, run_id):
        if attempt < self.retries:
            queue.append((i, b, attempt + 1))
        else:
            msg = (f"WorkerDied: the worker process running this task died {attempt + 1} time(s) "
                   "(killed, or out of memory); rerun the sweep with --retry-failed to try again")
            failed.append([failed_row(t, "error", msg, run_id) for t in b])


class DaskExecutor:
    """``local:N`` (a LocalCluster) or an existing Dask scheduler address, or a ``Client``."""

    kind = "dask"

    def __init__(self, address: str | None = None, n_workers: int | None = None, *, memory_limit: int | None = None,
                 retries: int = 2, client=None, threads: int | None = None):
        self.threads = int(threads) if threads else (_blas_threads(n_workers) if n_workers else None)
        self.address = address
        self.n_workers = n_workers
        self.max_memory = memory_limit
        self.retries = int(retries)
        self.client = client
        self._own_client = client is None
        self.cluster = None

    @property
    def workers(self) -> int:
        try:
            return max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))
        except Exception:
            return self.n_workers or 1

    def __enter__(self):
        _require_dask(self.address or f"local:{self.n_workers}")
        import dask
        from distributed import Client, LocalCluster

        if self.client is not None:
            return self
        if self.address is not None:
            self.client = Client(self.address, timeout="30s", set_as_default=False)
            return self
        threads = str(self.threads)
        # pre-spawn variables are also set in THIS process (the nanny's): never NUMBA_NUM_THREADS,
        # which numba refuses to see change once its pool runs; workers get it through
        # distributed.nanny.environ, applied in the worker process only.
        environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
        environ.update({k: threads for k in BLAS_THREAD_VARS if k != "NUMBA_NUM_THREADS"})
        worker_environ = dict(dask.config.get("distributed.nanny.environ", {}))
        worker_environ["NUMBA_NUM_THREADS"] = threads
        with dask.config.set({
            "distributed.scheduler.allowed-failures": self.retries,
            "distributed.nanny.pre-spawn-environ": environ,
            "distributed.nanny.environ": worker_environ,
        }):
            self.cluster = LocalCluster(
                n_workers=self.n_workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=self.max_memory if self.max_memory is not None else "auto",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster, set_as_default=False)
        return self

    def __exit__(self, exc_type, *exc):
        if self._own_client and self.client is not None:
            try:
                self.client.close()
            finally:
                self.client = None
        if self.cluster is not None:
            try:
                self.cluster.close()
            finally:
                self.cluster = None
        return False

    def memory_limit(self) -> int | None:
        """The smallest worker memory limit of the cluster (``None`` if unbounded)."""
        try:
            limits = [w.get("memory_limit") or 0 for w in self.client.scheduler_info()["workers"].values()]
        except Exception:
            return None
        limits = [x for x in limits if x]
        return min(limits) if limits else None

    def describe(self) -> str:
        lim = format_bytes(self.memory_limit())
        if self.cluster is not None:
            return (f"Dask LocalCluster: {self.n_workers} worker processes ({self.threads} BLAS thread(s) each), "
                    f"memory limit {lim} each")
        addr = getattr(self.client, "scheduler", None)
        addr = getattr(addr, "address", self.address)
        return f"Dask scheduler {addr}: {self.workers} worker thread(s), smallest memory limit {lim}"

    def cores_per_task(self) -> int | None:
        return self.threads

    def run(self, fn, batches, run_id: str = "", threads: int | None = None):
        from distributed import as_completed
        try:
            from distributed.scheduler import KilledWorker
        except ImportError:  # pragma: no cover - older layout
            from distributed import KilledWorker

        queue = deque(enumerate(batches))
        window = max(32, 4 * self.workers)
        meta: dict = {}
        ac = as_completed(loop=self.client.loop)

        def submit():
            i, b = queue.popleft()
            fut = self.client.submit(execute_batch, fn, b, run_id, threads, key=f"asymptotics-sweep-{run_id}-{i}", pure=False)
            meta[fut.key] = b
            ac.add(fut)

        try:
            while queue and ac.count() < window:
                submit()
            for fut in ac:
                b = meta.pop(fut.key)
                try:
                    rows = fut.result()
                except KilledWorker as exc:
                    msg = (f"KilledWorker: the Dask workers running this task died {self.retries + 1} time(s) "
                           f"(killed, crashed or over the memory limit): {exc}; rerun with --retry-failed to try again")
                    rows = [failed_row(t, "error", msg[:2000], run_id) for t in b]
                fut.release()
                yield rows
                while queue and ac.count() < window:
                    submit()
        finally:
            # on an interrupt, cancel whatever is still queued on the cluster
            pending = list(getattr(ac, "futures", ()))
            if pending:
                try:
                    self.client.cancel(pending)
                except Exception:
                    pass


def _require_dask(spec) -> None:
    """One clear line when a Dask scheduler is asked for and Dask is not installed."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise ParameterError(
            "scheduler", spec, "in-process or processes:N without Dask",
            "local:N and tcp:// need the dask extra: pip install 'asymptotics[dask]'",
        ) from None


def make_executor(spec, *, max_memory: int | None = None, retries: int = 2, threads: int | None = None):
    """The executor for a scheduler spec (see :func:`~asymptotics.sweeps.config.parse_scheduler`).
    A Dask spec without Dask installed is refused here, before anything is opened or written."""
    kind, arg = parse_scheduler(spec)
    if kind in ("local", "address"):
        _require_dask(spec)
    if kind == "inprocess":
        return InProcessExecutor()
    if kind == "processes":
        return ProcessExecutor(arg, retries=retries, threads=threads)
    if kind == "local":
        return DaskExecutor(n_workers=arg, memory_limit=max_memory, retries=retries, threads=threads)
    if kind == "address":
        return DaskExecutor(address=arg, retries=retries, threads=threads)
    return DaskExecutor(client=arg, retries=retries, threads=threads)
