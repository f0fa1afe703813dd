r"""Random streams: every random object of a run has its own ``SeedSequence``, fixed by
(root seed, seed index, component[, sub-index, block]), so that

* results never depend on the number of workers or threads (each large array is filled in fixed
  blocks of :data:`BLOCK` numbers, block b from its own stream, whichever thread fills it);
* different grid points with the same root seed and seed index share W₀, a, the data and the test
  inputs wherever their sizes agree (common random numbers across a sweep in η, λ, σ_ε, …);
* switching ``features`` between ``true`` and ``ge`` changes only the Gaussian-equivalent noise.

The bit generator is SFC64 (two to three times faster than PCG64 for normals on the reference
machine; it passes the same statistical test batteries). Normals are drawn by numpy's ziggurat.

>>> s = Streams(root_seed=0, seed_index=3)
>>> x = s.normal("test", (4, 5), 0)
>>> y = Streams(root_seed=0, seed_index=3, threads=1).normal("test", (4, 5), 0)
>>> bool((x == y).all())
True
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["Streams", "COMPONENTS", "BLOCK", "available_cores"]

#: Numbers per independently seeded block of a large array.
BLOCK = 1 << 18

#: One stream family per random object of a run.
COMPONENTS = {
    "teacher": 0,  # β* / θ, and v, ζ of the sRF model
    "weights": 1,  # W₀ (or W of the sRF model)
    "readout": 2,  # a (Ba)
    "train": 3,  # inputs of the gradient-step batch(es)
    "train_noise": 4,
    "ridge": 5,  # inputs of the fresh ridge set
    "ridge_noise": 6,
    "ridge_ge": 7,  # Gaussian-equivalent feature noise z on the ridge set
    "test": 8,  # test inputs (per chunk)
    "test_ge": 9,  # Gaussian-equivalent feature noise on the test set
    "linalg": 10,  # start vectors of the Lanczos iterations
}

_POOLS: dict[int, ThreadPoolExecutor] = {}


def available_cores() -> int:
    """CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pool(threads: int) -> ThreadPoolExecutor:
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sim-rng")
    return pool


class Streams:
    """The random streams of one seed of one run.

    Args:
        root_seed: the root entropy (a non-negative integer, recorded in results).
        seed_index: which seed of the run (0, 1, …).
        threads: threads used to fill large arrays (does not change any number).
    """

    def __init__(self, root_seed: int, seed_index: int, threads: int | None = None):
        self.root_seed = int(root_seed)
        self.seed_index = int(seed_index)
        self.threads = max(1, int(threads or available_cores()))

    def sequence(self, component: str, *sub: int) -> np.random.SeedSequence:
        """The ``SeedSequence`` of one component (spawn key (seed index, component, *sub))."""
        key = (self.seed_index, COMPONENTS[component], *map(int, sub))
        return np.random.SeedSequence(self.root_seed, spawn_key=key)

    def generator(self, component: str, *sub: int) -> np.random.Generator:
        """A generator for small draws of one component."""
        return np.random.Generator(np.random.SFC64(self.sequence(component, *sub)))

    def normal(self, component: str, shape, *sub: int, scale: float = 1.0, out: np.ndarray | None = None):
        """Standard normals (times ``scale``) of the given shape, C order, filled block-wise.

        ``out`` (C-contiguous float64, of ``shape``) is filled in place when given.
        """
        shape = tuple(int(s) for s in np.atleast_1d(shape))
        if out is None:
            out = np.empty(shape)
        elif out.shape != shape or not out.flags.c_contiguous or out.dtype != np.float64:
            raise ValueError("out must be a C-contiguous float64 array of the requested shape")
        flat = out.reshape(-1)
        size = flat.size
        nblocks = (size + BLOCK - 1) // BLOCK
        key = (self.seed_index, COMPONENTS[component], *map(int, sub))

        def fill(b: int) -> None:
            ss = np.random.SeedSequence(self.root_seed, spawn_key=(*key, b))
            part = flat[b * BLOCK : min(size, (b + 1) * BLOCK)]
            np.random.Generator(np.random.SFC64(ss)).standard_normal(out=part)
            if scale != 1.0:
                part *= scale

        if nblocks <= 1 or self.threads == 1:
            for b in range(nblocks):
                fill(b)
        else:
            list(_pool(self.threads).map(fill, range(nblocks)))
        return out

    def unit_vector(self, component: str, dim: int, *sub: int) -> np.ndarray:
        """A vector uniform on the unit sphere of ℝ^dim."""
        g = self.normal(component, (dim,), *sub)
        return g / np.linalg.norm(g)
