"""Thread budgets for BLAS and numba, so that parallel workers never oversubscribe the cores.

Worker processes get their budget through the environment before they start
(``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``, ``NUMBA_NUM_THREADS``, …) and
again at start-up. Inside a running process the OpenBLAS pools are resized with
``threadpoolctl`` when it is installed, else through the ``*_set_num_threads`` entry points of the
OpenBLAS libraries already loaded (numpy's and scipy's wheels each bundle one). When neither works
the budget is recorded as uncontrolled in the result metadata.

Multithreaded BLAS may sum in a different order than single-threaded BLAS, so numbers agree
bit for bit between runs with the same BLAS thread count per task (``blas_threads``) and to
round-off (~1e-13 relative) otherwise.

Idle OpenBLAS threads busy-wait for about 2²⁸ cycles (~0.1 s) after each call; a numba parallel
kernel that follows a GEMM then shares its cores with them and runs at half speed (measured:
25 ms → 50 ms for 4·10⁶ tanh evaluations on 2 cores). ``OPENBLAS_THREAD_TIMEOUT=4`` (2⁴ cycles)
removes this without slowing the GEMMs, but OpenBLAS reads it only when it is loaded: it is set
for worker processes, and :mod:`validation.simulator` sets it by default on import, which takes
effect when numpy has not been imported yet. :func:`blas_thread_timeout` reports the value in use.
"""

from __future__ import annotations

import contextlib
import ctypes
import os

__all__ = [
    "THREAD_ENV_VARS",
    "blas_threads",
    "get_blas_threads",
    "set_blas_threads",
    "set_numba_threads",
    "single_thread_scipy_blas",
    "thread_env",
    "blas_thread_timeout",
    "choose_parallelism",
    "seed_flops",
]

THREAD_ENV_VARS = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)

_SETTERS = (
    "openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
)
_GETTERS = (
    "openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads",
)


def _loaded_openblas() -> list:
    """(setter, getter) pairs of the OpenBLAS libraries mapped into this process (Linux)."""
    import numpy  # noqa: F401 - make sure numpy's BLAS is loaded
    import scipy.linalg  # noqa: F401 - and scipy's

    paths = set()
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and "openblas" in os.path.basename(parts[-1]).lower():
                    paths.add(parts[-1])
    except OSError:  # pragma: no cover - not Linux
        return []
    out = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:  # pragma: no cover
            continue
        setter = next((getattr(lib, s) for s in _SETTERS if hasattr(lib, s)), None)
        getter = next((getattr(lib, g) for g in _GETTERS if hasattr(lib, g)), None)
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            out.append((path, setter, getter))
    return out


_LIBS: list | None = None


def _libs() -> list:
    global _LIBS
    if _LIBS is None:
        _LIBS = _loaded_openblas()
    return _LIBS


def get_blas_threads() -> int | None:
    """The current BLAS thread count (the largest over the loaded libraries), or None if unknown."""
    try:
        from threadpoolctl import threadpool_info

        counts = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
        return max(counts) if counts else None
    except ImportError:
        libs = _libs()
        return max(g() for _, _, g in libs) if libs else None


def set_blas_threads(n: int) -> bool:
    """Set the BLAS thread count of every loaded library; True when it could be controlled."""
    n = max(1, int(n))
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n, user_api="blas")
        return True
    except ImportError:
        libs = _libs()
        for _, setter, _ in libs:
            setter(n)
        return bool(libs)


def single_thread_scipy_blas() -> None:
    """Run scipy's own bundled OpenBLAS (if separate from numpy's) single-threaded.

    The simulator does every O(m³) operation through numpy (one BLAS thread pool) and uses
    scipy's BLAS/LAPACK only for O(m²) work (triangular solves, condition estimates, Lanczos
    vectors); two OpenBLAS pools spinning in turn on the same cores slow each other down.
    """
    for path, setter, _ in _libs():
        if "scipy" in os.path.basename(os.path.dirname(path)) or os.path.basename(path).startswith(
            "libscipy_openblas-"
        ):
            setter(1)


@contextlib.contextmanager
def blas_threads(n: int | None):
    """Temporarily run BLAS with ``n`` threads (``None``: leave it alone). Yields whether the
    count is controlled."""
    if n is None:
        yield get_blas_threads() is not None
        return
    before = get_blas_threads()
    ok = set_blas_threads(n)
    try:
        yield ok
    finally:
        if ok and before is not None:
            set_blas_threads(before)


def set_numba_threads(n: int) -> int:
    """Limit numba's parallel loops to ``n`` threads (within its launch-time maximum)."""
    import numba

    n = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)
    return n


def thread_env(n: int) -> dict:
    """Environment variables giving a fresh process ``n`` BLAS/OpenMP/numba threads (and idle
    OpenBLAS threads that sleep at once, unless ``OPENBLAS_THREAD_TIMEOUT`` is already set)."""
    env = {k: str(int(n)) for k in THREAD_ENV_VARS}
    env["NUMBA_NUM_THREADS"] = str(int(n))
    env["OPENBLAS_THREAD_TIMEOUT"] = os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4")
    return env


def blas_thread_timeout() -> int | None:
    """OpenBLAS's idle-thread timeout exponent in use (0: the built-in default, 2²⁸ cycles), or
    None when unknown."""
    for path, _, _ in _libs():
        try:
            fn = ctypes.CDLL(path).openblas_thread_timeout
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int
        return int(fn())
    return None


# ---- threads and processes chosen by problem size ---------------------------------------------
#: Above this many floating-point operations per GEMM-sized product (n·d·N) one seed uses all
#: cores in BLAS; below it one thread per seed (measured on 2 cores: a threaded BLAS at d ≤ 1000
#: is no faster on an idle machine and 1.6–9× slower on a loaded one; see
#: benchmarks/results/simulator_threads.md).
THREADED_PRODUCT = 1500**3
#: Worker processes pay off only when the serial work estimate exceeds this many seconds (starting
#: a worker — imports, loading the compiled kernels — costs 3–6 s on 2 cores).
PROCESS_SECONDS = 60.0
#: Nominal single-core rate (FLOP/s) of the work estimate (only compared with PROCESS_SECONDS).
NOMINAL_RATE = 2e10


def seed_flops(cfg) -> float:
    """A rough count of the floating-point operations of one seed (its matrix products)."""
    sizes = cfg.sizes()
    d, n = cfg.d, sizes["n"]
    N = sizes.get("N", sizes.get("p"))
    n0 = sizes.get("n0", n)
    step = 4.0 * n0 * d * N if cfg.protocol != "srf" else 0.0
    readout = 2.0 * (2.0 * n * d * N + n * N * min(n, N))
    risk = 2.0 * d * N * N if getattr(cfg, "test_risk", "exact") == "exact" else 4.0 * cfg.n_test * d * N
    return step + readout + risk + 1e8  # + a fixed overhead per seed


def choose_parallelism(configs, tasks: int, cores: int) -> tuple[int, int]:
    """(worker processes, threads per task) for ``tasks`` seeds of ``configs`` on ``cores``.

    Large problems (n·d·N ≥ :data:`THREADED_PRODUCT` for the largest configuration) run in this
    process with all cores in BLAS; smaller ones with one thread per seed, in parallel worker
    processes when the serial work estimate exceeds :data:`PROCESS_SECONDS`, else in this process.
    The choice depends only on the configurations, the number of tasks and the cores, so that a
    rerun picks the same thread count (and gives the same numbers).
    """
    if cores <= 1 or tasks <= 0:
        return 1, max(1, cores)
    largest = max(cfg.d * cfg.sizes()["n"] * cfg.sizes().get("N", cfg.sizes().get("p")) for cfg in configs)
    if largest >= THREADED_PRODUCT:
        return 1, cores
    serial = sum(seed_flops(cfg) for cfg in configs) * (tasks / max(1, len(configs))) / NOMINAL_RATE
    if tasks >= 2 and serial >= PROCESS_SECONDS:
        return min(cores, tasks), 1
    return 1, 1
